"""Empty and odd fact files must never lose a fact or a value (issue 11, "Empty and odd
files that lose facts").

Variants:

- emptied files, whose backups hold facts: 0 bytes, white space only, a lone BOM, a BOM
  and a newline, CRLF only. The scan, `show`/`entity()` and synthesis report it (an
  error: "file is empty … its backup … holds N facts"); every write onto it is refused
  (add, supersede, access, reinstate: CorruptFileError, the file untouched); `doctor`
  reports it and `doctor --repair` restores the newest backup holding facts (even when a
  newer backup in the ring is itself blank), keeping the blank file in quarantine;
- a blank file never written with facts (no backups, or only blank/`[]` ones) is an
  entity without facts and can be written;
- `[]` and `{"items": []}` whose backups hold facts: a doctor warning (another writer may
  mean it; vault-app never deletes a fact), writes allowed, `doctor --repair` puts the
  facts back and keeps the `[]` file; a new entity's `[]` is no warning;
- duplicated keys: a fact's text (`[1].fact`), its id, a metadata key given three times,
  inside a wrapper object (`items[0].id`): `doctor` reports the place, writes are refused
  with it, nothing is dropped; a file from another writer without duplicates (4-space
  indent, compact) is still written; an app-written file is checked for free (no second
  parse);
- numbers: 1e400, -1e400, 1E+400 (beyond a double: would come back as Infinity), NaN,
  Infinity, -Infinity (not JSON; Python's json takes them), an integer of 5,000 digits:
  the file is refused with line and column (scan, entity, doctor, writes), the rest of
  the vault works; 1e-400 (a non-zero number that reads as 0): reads, but `doctor`
  reports it and writes are refused; integers beyond 64 bits, -0, -0.0, 1.0e0, 1E2,
  5e-324 (the smallest double) and 0.1 keep their value through a write;
- the CLI in subprocesses: `doctor` (exit 1, the place), `fact add` (exit 1, one line),
  `doctor --repair` (exit 0), then `search` finds the restored facts.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import cli_process
import pytest

import vault_app
from vault_app.core import decay, doctor, errors, formats, strict_json
from vault_app.core import vault as vault_module

NOW = dt.datetime(2026, 3, 1, 12, 0, 0)
ENTITY = "projects/roof"
REPO = Path(vault_app.__file__).resolve().parent.parent
BLANKS = {
    "0 bytes": b"",
    "white space": b"  \n\t\n",
    "a lone BOM": b"\xef\xbb\xbf",
    "a BOM and a newline": b"\xef\xbb\xbf\n",
    "CRLF": b"\r\n",
}


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    """A vault where `projects/roof` holds three facts (so its backup ring does too) and
    `projects/kitchen` one."""
    target = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_entity("projects/kitchen", "Kitchen.")
    target.add_fact("projects/kitchen", "Walnut cabinets", "preference")
    target.create_entity(ENTITY, "The roof.")
    for text in ("Shingles are asphalt", "The roofer is Dana", "Gutters are copper"):
        target.add_fact(ENTITY, text, "context")
    return target


def facts_file(v: vault_module.Vault, address: str = ENTITY) -> Path:
    return v.paths.life_dir / address / "items.json"


def fact_ids(v: vault_module.Vault, address: str = ENTITY) -> list[str]:
    return [f.id for f in v.entity(address).facts]


def refused_writes(v: vault_module.Vault, fact_id: str) -> list[errors.CorruptFileError]:
    """Every kind of fact write onto ENTITY: each must be refused."""
    found = []
    for attempt in (
        lambda: v.add_fact(ENTITY, "Built on an emptied file", "context"),
        lambda: v.mark_accessed([fact_id]),
        lambda: v.supersede_fact(fact_id, "A new text"),
        lambda: v.set_fact_status(fact_id, False),
    ):
        with pytest.raises((errors.CorruptFileError, errors.NotFoundError)) as refused:
            attempt()
        if isinstance(refused.value, errors.CorruptFileError):
            found.append(refused.value)
    return found


# -- emptied files ------------------------------------------------------------------------------


@pytest.mark.parametrize("blank", list(BLANKS))
def test_an_emptied_file_is_reported_refused_and_repaired(
    v: vault_module.Vault, blank: str
) -> None:
    path = facts_file(v)
    ids = fact_ids(v)
    summary = (path.parent / "summary.md").read_bytes()
    path.write_bytes(BLANKS[blank])

    scan = v.scan()
    (problem,) = scan.problems
    assert problem.path.endswith("projects/roof/items.json") and problem.severity == "error"
    assert "file is empty" in problem.message and "holds 3 facts" in problem.message
    roof = next(e for e in scan.entities if e.address == ENTITY)
    assert roof.problem is not None and "doctor --repair" in roof.problem
    kitchen = next(e for e in scan.entities if e.address == "projects/kitchen")
    assert kitchen.total == 1 and kitchen.problem is None
    view = v.entity(ENTITY)
    assert view.error is not None and "holds 3 facts" in view.error.reason and view.facts == []

    # no write builds on it, so the ring keeps the facts (the id is found in no file now:
    # mark/supersede/retract say so, an add says why)
    refusals = refused_writes(v, ids[0])
    assert refusals and all("file is empty" in r.reason for r in refusals)
    _, problems = v.synthesize([ENTITY])
    assert problems and "file is empty" in problems[0].message
    assert path.read_bytes() == BLANKS[blank]
    assert (path.parent / "summary.md").read_bytes() == summary

    report = doctor.run(v)
    assert [p.message[:13] for p in report.errors] == ["file is empty"]
    repaired = doctor.run(v, repair=True)
    assert repaired.ok and repaired.problems[0].repaired is not None
    assert fact_ids(v) == ids
    kept = list((v.paths.state_dir / "quarantine").rglob("items.json"))
    assert [p.read_bytes() for p in kept] == [BLANKS[blank]]
    assert doctor.run(v).problems == []
    v.add_fact(ENTITY, "Written after the repair", "context")
    assert len(fact_ids(v)) == 4


def test_repair_takes_the_newest_backup_that_holds_facts(v: vault_module.Vault) -> None:
    """A blank version newer in the ring (kept by an older vault-app, or copied there)
    is not what the repair restores."""
    path = facts_file(v)
    ids = fact_ids(v)
    ring = v.storage.backup_dir(path)
    newest = max(p.name for p in ring.iterdir())
    blank_name = f"{int(newest.split('-')[0]) + 1:020d}-{formats.digest_of(b'')[:12]}"
    (ring / blank_name).write_bytes(b"")
    path.write_bytes(b"")
    assert v.entity(ENTITY).error is not None
    assert doctor.run(v, repair=True).ok
    assert fact_ids(v) == ids


def test_a_blank_file_never_written_with_facts_is_an_empty_entity(
    v: vault_module.Vault,
) -> None:
    folder = v.paths.life_dir / "projects/new"
    folder.mkdir()
    (folder / "items.json").write_bytes(b"\n")  # another writer's fresh file: no backups
    assert v.entity("projects/new").error is None
    assert doctor.run(v).problems == []
    v.add_fact("projects/new", "First fact", "context")
    (folder / "items.json").write_bytes(b"")  # its ring: "[]"-less, but holds that fact now
    assert v.entity("projects/new").error is not None
    v.create_entity("projects/fresh")  # writes "[]": a ring of "[]" versions only
    facts_file(v, "projects/fresh").write_bytes(b"")
    assert v.entity("projects/fresh").error is None
    v.add_fact("projects/fresh", "Fine", "context")


@pytest.mark.parametrize("empty", ["[]\n", '{"entityId": "projects/roof", "items": []}\n'])
def test_an_empty_list_where_facts_were_is_a_warning_and_repairable(
    v: vault_module.Vault, empty: str
) -> None:
    """Another writer may mean `[]`, so it is no error and writes go on; but vault-app never
    deletes a fact, so `doctor` says where the facts still are and repair restores them."""
    path = facts_file(v)
    ids = fact_ids(v)
    path.write_text(empty)
    assert v.entity(ENTITY).error is None and fact_ids(v) == []
    report = doctor.run(v)
    (warning,) = report.problems
    assert report.ok and warning.severity == "warning" and "holds no facts" in warning.message
    assert "holds 3" in warning.message
    repaired = doctor.run(v, repair=True)
    assert repaired.problems[0].repaired is not None and fact_ids(v) == ids
    path.write_text(empty)
    v.add_fact(ENTITY, "A deliberate fresh start", "context")
    assert len(fact_ids(v)) == 1
    assert doctor.run(v).problems == []  # the ring's newest version holds facts again


def test_a_new_entitys_empty_list_is_fine(v: vault_module.Vault) -> None:
    v.create_entity("projects/garden")
    assert doctor.run(v).problems == []


# -- duplicated keys --------------------------------------------------------------------------

GOOD = '{"id": "good", "fact": "Shingles are asphalt", "category": "context"}'
DUPLICATES = {
    "fact text": (
        f'[{GOOD}, {{"id": "x", "fact": "first", "fact": "second", "category": "context"}}]',
        "[1].fact",
        '("first", then "second")',
    ),
    "id": (
        f'[{GOOD}, {{"id": "x1", "fact": "t", "category": "context", "id": "x2"}}]',
        "[1].id",
        "given 2 times",
    ),
    "metadata key thrice": (
        f'[{GOOD}, {{"id": "x", "fact": "t", "category": "context",'
        ' "metadata": {"k": 1, "k": 2, "k": 3}}]',
        "[1].metadata.k",
        "would lose 2 of the values",
    ),
    "wrapper": (
        f'{{"entityId": "projects/roof", "items": [{GOOD}, {{"id": "x", "fact": "a",'
        ' "category": "status", "category": "context"}]}',
        "items[1].category",
        "given 2 times",
    ),
}


@pytest.mark.parametrize("case", list(DUPLICATES))
def test_a_duplicated_key_is_reported_and_never_written_away(
    v: vault_module.Vault, case: str
) -> None:
    text, place, message = DUPLICATES[case]
    path = facts_file(v)
    path.write_text(text)
    assert "good" in fact_ids(v)  # reading goes on (each reader keeps the last value)
    (problem,) = doctor.run(v).errors
    assert problem.location == place and message in problem.message
    with pytest.raises(errors.CorruptFileError) as refused:
        v.add_fact(ENTITY, "Would drop the first value", "context")
    assert refused.value.location == place
    with pytest.raises(errors.CorruptFileError):
        v.mark_accessed(["good"])
    assert path.read_text() == text


def test_other_writers_layouts_without_duplicates_are_written(v: vault_module.Vault) -> None:
    path = facts_file(v)
    entries = json.loads(path.read_text())
    for layout in (
        json.dumps(entries, indent=4),
        json.dumps(entries),
        json.dumps(entries, separators=(",", ":")),
    ):
        path.write_text(layout)
        v.mark_accessed([entries[0]["id"]])
        assert len(fact_ids(v)) == 3


def test_an_app_written_file_is_checked_without_a_second_parse(
    v: vault_module.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_second_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(strict_json, "_stdlib_loads", no_second_parse)
    path = facts_file(v)
    data = path.read_bytes()
    formats.check_lossless(formats.decode(path, data), data)
    v.add_fact(ENTITY, "One more", "context")


# -- numbers ------------------------------------------------------------------------------------

REFUSED_NUMBERS = {
    "1e400": "beyond the range of a double",
    "-1e400": "beyond the range of a double",
    "1E+400": "beyond the range of a double",
    "NaN": "NaN is not a JSON number",
    "Infinity": "Infinity is not a JSON number",
    "-Infinity": "-Infinity is not a JSON number",
    "9" * 5000: "integer of 5000 digits is too long",
}


@pytest.mark.parametrize("field", ["metadata", "accessCount"])
@pytest.mark.parametrize("token", list(REFUSED_NUMBERS), ids=lambda t: t[:12])
def test_numbers_a_write_would_turn_into_non_json_are_refused(
    v: vault_module.Vault, token: str, field: str
) -> None:
    path = facts_file(v)
    value = f'{{"n": {token}}}' if field == "metadata" else token
    text = f'[{GOOD},\n {{"id": "x", "fact": "t", "category": "context", "{field}": {value}}}]'
    path.write_text(text)
    place = f"line 2, column {text.splitlines()[1].index(token) + 1}"
    view = v.entity(ENTITY)
    assert view.error is not None and REFUSED_NUMBERS[token] in view.error.reason
    assert view.error.location == place
    assert [p.location for p in doctor.run(v).errors] == [place]
    with pytest.raises(errors.CorruptFileError):
        v.add_fact(ENTITY, "Would write Infinity", "context")
    assert path.read_text() == text
    # The scan reads the tier fields (accessCount) and reports the number there; in the
    # fields it skips unparsed (metadata, texts) it does not look at numbers.
    scan = v.scan()
    if field == "accessCount":
        assert [p.location for p in scan.problems] == [place]
    assert next(e for e in scan.entities if e.address == "projects/kitchen").total == 1


def test_a_number_that_reads_as_zero_is_reported_and_not_written(v: vault_module.Vault) -> None:
    path = facts_file(v)
    text = f'[{GOOD},\n {{"id": "x", "fact": "t", "category": "context", "confidence": 1e-400}}]'
    path.write_text(text)
    assert sorted(fact_ids(v)) == ["good", "x"]
    (problem,) = doctor.run(v).errors
    assert problem.location == f"line 2, column {text.splitlines()[1].index('1e-400') + 1}"
    assert "too small for a double" in problem.message
    with pytest.raises(errors.CorruptFileError, match=r"would change it to 0\.0"):
        v.mark_accessed(["good"])
    assert path.read_text() == text


def test_numbers_a_double_holds_keep_their_value(v: vault_module.Vault) -> None:
    path = facts_file(v)
    numbers = {
        "big": "18446744073709551617",
        "negative big": "-1180591620717411303424",
        "minus zero": "-0",
        "minus zero float": "-0.0",
        "exponent": "1.0e0",
        "upper exponent": "1E2",
        "smallest double": "5e-324",
        "tenth": "0.1",
    }
    metadata = ", ".join(f'"{k}": {n}' for k, n in numbers.items())
    path.write_text(
        f'[{{"id": "x", "fact": "t", "category": "context", "metadata": {{{metadata}}}}}]'
    )
    assert doctor.run(v).problems == []
    v.add_fact(ENTITY, "Written beside them", "context")
    written = formats.decode(path, path.read_bytes()).raw[0]["metadata"]
    for key, token in numbers.items():
        expected = json.loads(token)
        assert written[key] == expected and type(written[key]) is type(expected), key
    assert str(written["minus zero float"]) == "-0.0"


# -- through the command line ----------------------------------------------------------------


def cli(v: vault_module.Vault, *argv: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(v.root, *argv)


def test_emptied_file_and_duplicate_key_through_the_cli(v: vault_module.Vault) -> None:
    path = facts_file(v)
    path.write_bytes(b"")
    checked = cli(v, "doctor")
    assert checked.returncode == 1 and "file is empty (0 bytes)" in checked.stdout
    added = cli(v, "fact", "add", ENTITY, "--text", "Lost", "--category", "context")
    assert added.returncode == 1 and added.stderr.startswith("vault-app: error: ")
    assert "file is empty" in added.stderr and added.stderr.count("\n") == 1
    assert "Traceback" not in added.stderr and path.read_bytes() == b""
    listed = cli(v, "entities")
    assert listed.returncode == 0 and "file is empty" in listed.stdout
    repaired = cli(v, "doctor", "--repair")
    assert repaired.returncode == 0 and "repaired: restored" in repaired.stdout
    found = cli(v, "--json", "search", "--mode", "bm25", "roofer Dana")
    assert found.returncode == 0
    assert "The roofer is Dana" in {h["text"] for h in json.loads(found.stdout)["hits"]}

    path.write_text(DUPLICATES["fact text"][0])
    checked = cli(v, "--json", "doctor")
    assert checked.returncode == 1
    assert [p["location"] for p in json.loads(checked.stdout)["problems"]] == ["[1].fact"]
    added = cli(v, "fact", "add", ENTITY, "--text", "x", "--category", "context")
    assert added.returncode == 1 and 'at [1].fact: key "fact" is given 2 times' in added.stderr
    assert path.read_text() == DUPLICATES["fact text"][0]
