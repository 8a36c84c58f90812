"""Bad input gets a precise error, the rest of the vault still loads, and nothing is overwritten.

Corrupt files (invalid JSON or UTF-8, wrong top level, too large), facts with wrong types,
hostile ids and symlinks leading out of the vault.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest

from vault_app.core import decay, errors, models
from vault_app.core import vault as vault_module

NOW = dt.datetime(2026, 3, 1, 12, 0, 0)
BAD = "areas/bad"

# address -> (total, hot, warm, cold, superseded)
HEALTHY = {
    "areas/people/jane": (4, 3, 0, 0, 1),
    "projects/kitchen": (2, 2, 0, 0, 0),
    "agent:finance:projects/budget": (1, 1, 0, 0, 0),
}


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    """A vault with three healthy entities and an empty one, `areas/bad`, to break."""
    target = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_agent("finance")
    for address in HEALTHY:
        target.create_entity(address)
    jane = [
        target.add_fact("areas/people/jane", text, "context")
        for text in ("Jane lives in Portland", "Jane likes tea", "Jane is a nurse")
    ]
    target.supersede_fact(jane[0].id, "Jane lives in Seattle")
    target.add_fact("projects/kitchen", "Budget is 18k", "status")
    target.add_fact("projects/kitchen", "Walnut cabinets", "preference")
    target.add_fact("agent:finance:projects/budget", "Rent is 1,400", "status")
    target.create_entity(BAD, summary="To be broken.")
    return target


def bad_file(v: vault_module.Vault) -> Path:
    return v.paths.life_dir / BAD / "items.json"


def assert_rest_loads(v: vault_module.Vault, scan: vault_module.VaultScan) -> None:
    by_address = {e.address: e for e in scan.entities}
    for address, (total, hot, warm, cold, superseded) in HEALTHY.items():
        e = by_address[address]
        assert (e.total, e.hot, e.warm, e.cold, e.superseded) == (
            total,
            hot,
            warm,
            cold,
            superseded,
        )
        assert e.problem is None
        view = v.entity(address)
        assert view.error is None and view.invalid == [] and len(view.facts) == total


def tree(root: Path) -> dict[str, bytes | str]:
    """Every path under `root` with its bytes (or the target of a symlink)."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = f"-> {os.readlink(path)}"
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = "dir"
    return found


# -- corrupt files ---------------------------------------------------------------------------

CORRUPT = [
    pytest.param(
        b'[\n  {"id": "f1", "fact": "Jane likes tea", "category": "pref',
        "line 2, column 54",
        "invalid JSON: Unterminated string",
        id="truncated",
    ),
    pytest.param(
        b'[{"id": "f1", "fact": "Jane likes tea", "category": "preference"}',
        "line 1, column 66",
        "invalid JSON: Expecting ',' delimiter",
        id="missing-bracket",
    ),
    pytest.param(b'[{"id": "f1"},]', "line 1, column 15", "Expecting value", id="trailing-comma"),
    pytest.param(
        b'[{"id": "f1", "fact": "caf\xe9 au lait", "category": "preference"}]',
        "byte 26",
        "invalid UTF-8",
        id="latin-1",
    ),
    pytest.param(
        b'[{"id": "f0", "fact": "ok", "category": "status"}, {"id": "f1", "fact": "\xff\xfe"}]',
        "byte 73",
        "invalid UTF-8 (invalid start byte)",
        id="invalid-utf8-later",
    ),
    pytest.param(b"\x00\x00\x00", "line 1, column 1", "invalid JSON", id="nul-bytes"),
    pytest.param(
        b"42\n", "top level", "expected a JSON array of facts, found a number", id="number"
    ),
    pytest.param(
        b'"f1"\n', "top level", "expected a JSON array of facts, found a string", id="string"
    ),
    pytest.param(b"null", "top level", "expected a JSON array of facts", id="null"),
    pytest.param(
        b'{"entityId": "areas/bad", "things": [{"id": "f1"}]}',
        "top level",
        "found an object with keys ['entityId', 'things']",
        id="object-without-items",
    ),
    pytest.param(
        b'{"entity": "areas/bad", "facts": {"f1": {}}}',
        "top level",
        'holding an "items" or "facts" array',
        id="facts-not-a-list",
    ),
]


@pytest.mark.parametrize(("data", "location", "reason"), CORRUPT)
def test_corrupt_file(v: vault_module.Vault, data: bytes, location: str, reason: str) -> None:
    path = bad_file(v)
    path.write_bytes(data)

    view = v.entity(BAD)
    assert isinstance(view.error, errors.CorruptFileError)
    assert (view.error.path, view.error.location) == (path, location)
    assert view.error.reason.startswith(reason) or reason in view.error.reason
    assert str(path) in str(view.error) and location in str(view.error)
    assert view.facts == [] and view.summary.text == "# Bad\n\nTo be broken.\n"

    scan = v.scan()
    assert_rest_loads(v, scan)
    (summary,) = [e for e in scan.entities if e.address == BAD]
    assert summary.problem is not None and summary.problem.startswith(f"{location}: ")
    assert summary.total == 0
    (problem,) = scan.problems
    assert (problem.path, problem.location) == (f"global/life/{BAD}/items.json", location)
    assert problem.severity == "error"

    backups = tree(v.paths.state_dir / "backups")
    with pytest.raises(errors.CorruptFileError) as caught:
        v.add_fact(BAD, "A new fact", "context")
    assert caught.value.path == path and caught.value.location == location
    with pytest.raises(errors.NotFoundError):  # a fact in a file that cannot be read
        v.mark_accessed(["f1"])
    with pytest.raises(errors.NotFoundError):
        v.supersede_fact("f1", "Replacement")
    results, problems = v.synthesize([BAD])
    assert results == [] and [(p.path, p.location) for p in problems] == [
        (f"global/life/{BAD}/items.json", location)
    ]
    _, problems = v.decay_report()
    assert [p.location for p in problems] == [location]
    assert path.read_bytes() == data
    assert tree(v.paths.state_dir / "backups") == backups
    assert sorted(p.name for p in path.parent.iterdir()) == ["items.json", "summary.md"]
    assert v.entity(BAD).summary.text == "# Bad\n\nTo be broken.\n"


def test_huge_file_is_refused_without_being_read(v: vault_module.Vault) -> None:
    path = bad_file(v)
    entry = (
        '{"id": "fact-%08d", "fact": "A synthetic fact that pads the file out to fifty megabytes'
        ' with ordinary words", "category": "context", "timestamp": "2026-01-01T00:00:00", '
        '"lastAccessed": "2026-01-01T00:00:00", "accessCount": 0}'
    )
    count = 50 * 1024 * 1024 // len(entry % 0 + ",\n") + 1
    data = ("[\n" + ",\n".join(entry % n for n in range(count)) + "\n]\n").encode()
    assert len(data) > 50 * 1024 * 1024
    path.write_bytes(data)
    json.loads(data[:2000].rsplit(b",\n", 1)[0] + b"]")  # it is valid JSON, only too large

    view = v.entity(BAD)
    assert isinstance(view.error, errors.CorruptFileError)
    assert view.error.path == path and view.error.location is None
    assert "file is 50.0 MB, over the 32 MB limit" in view.error.reason
    scan = v.scan()
    assert_rest_loads(v, scan)
    (summary,) = [e for e in scan.entities if e.address == BAD]
    assert summary.problem is not None and "over the 32 MB limit" in summary.problem
    assert [p.path for p in scan.problems] == [f"global/life/{BAD}/items.json"]
    with pytest.raises(errors.CorruptFileError, match="over the 32 MB limit"):
        v.add_fact(BAD, "A new fact", "context")
    with pytest.raises(errors.NotFoundError):
        v.mark_accessed(["fact-00000001"])
    with pytest.raises(errors.NotFoundError):
        v.supersede_fact("fact-00000001", "x")
    assert path.stat().st_size == len(data) and path.read_bytes() == data
    ring = v.storage.backups(path)  # the versions this vault wrote, never the huge file
    assert all(p.stat().st_size < 1024 for p in ring)


# -- facts with wrong types ------------------------------------------------------------------


def good_entry(fid: str, text: str) -> dict[str, Any]:
    return {
        "id": fid,
        "fact": text,
        "category": "context",
        "timestamp": "2026-02-27T10:00:00",
        "source": "2026-02-27",
        "status": "active",
        "supersededBy": None,
        "relatedEntities": [],
        "lastAccessed": "2026-02-27T10:00:00",
        "accessCount": 2,
        "confidence": 1.0,
        "agentId": None,
        "metadata": {},
    }


WRONG_TYPES = [
    pytest.param({"accessCount": "x"}, "[1].accessCount", "valid integer", id="accessCount-x"),
    pytest.param({"accessCount": -3}, "[1].accessCount", "greater than or equal to 0", id="neg"),
    pytest.param({"accessCount": True}, "[1].accessCount", "valid integer", id="accessCount-bool"),
    pytest.param({"category": "nonsense"}, "[1].category", "Input should be", id="category"),
    pytest.param({"fact": 12}, "[1].fact", "valid string", id="fact-12"),
    pytest.param({"fact": " "}, "[1].fact", "fact text is empty", id="fact-blank"),
    pytest.param({"lastAccessed": "yesterday"}, "[1].lastAccessed", "datetime", id="date"),
    pytest.param({"confidence": 1.5}, "[1].confidence", "less than or equal to 1", id="conf"),
    pytest.param({"relatedEntities": "areas/x"}, "[1].relatedEntities", "list", id="related"),
    pytest.param({"status": "deleted"}, "[1].status", "Input should be", id="status"),
]


@pytest.mark.parametrize(("change", "location", "message"), WRONG_TYPES)
def test_fact_with_a_wrong_type(
    v: vault_module.Vault, change: dict[str, Any], location: str, message: str
) -> None:
    path = bad_file(v)
    entries = [good_entry("f0", "First"), good_entry("f1", "Second"), good_entry("f2", "Third")]
    entries[1].update(change)
    data = (json.dumps(entries, indent=2) + "\n").encode()
    path.write_bytes(data)

    view = v.entity(BAD)
    assert view.error is None
    assert [f.id for f in view.facts] == ["f0", "f2"]  # the rest of the file loads
    (error,) = view.invalid
    assert (error.path, error.location) == (path, location)
    assert message in error.reason
    scan = v.scan()
    assert_rest_loads(v, scan)
    (summary,) = [e for e in scan.entities if e.address == BAD]
    assert summary.total == 3  # counted from the raw entries; validated when opened
    _, problems = v.decay_report()
    assert [(p.path, p.location) for p in problems] == [(f"global/life/{BAD}/items.json", location)]

    # Writes to the bad fact are refused and leave the file as it is.
    for attempt in (
        lambda: v.supersede_fact("f1", "Replacement"),
        lambda: v.mark_accessed(["f1"]),
        lambda: v.mark_accessed(["f0", "f1"]),
    ):
        with pytest.raises(errors.CorruptFileError) as caught:
            attempt()
        assert (caught.value.path, caught.value.location) == (path, location)
        assert path.read_bytes() == data

    # Writes to the good ones go through and carry the bad fact along untouched.
    v.mark_accessed(["f0"])
    added = v.add_fact(BAD, "Fourth", "status")
    after = json.loads(path.read_bytes())
    assert [e.get("id") for e in after] == ["f0", "f1", "f2", added.id]
    assert list(after[1].items()) == list(entries[1].items())
    assert after[0]["accessCount"] == 3


def test_entry_that_is_not_an_object(v: vault_module.Vault) -> None:
    path = bad_file(v)
    path.write_text(json.dumps([good_entry("f0", "First"), 42, ["f1"], good_entry("f2", "x")]))
    view = v.entity(BAD)
    assert [(e.location, e.reason) for e in view.invalid] == [
        ("[1]", "expected a fact object, found a number"),
        ("[2]", "expected a fact object, found an array"),
    ]
    assert [f.id for f in view.facts] == ["f0", "f2"]
    (summary,) = [e for e in v.scan().entities if e.address == BAD]
    assert (summary.total, summary.hot) == (4, 2)


def test_duplicate_fact_ids_are_reported_not_edited(v: vault_module.Vault) -> None:
    path = bad_file(v)
    data = json.dumps([good_entry("f0", "First"), good_entry("f0", "Copy")]).encode()
    path.write_bytes(data)
    with pytest.raises(errors.CorruptFileError, match="appears 2 times") as caught:
        v.mark_accessed(["f0"])
    assert caught.value.location == "[1].id"
    with pytest.raises(errors.CorruptFileError):
        v.supersede_fact("f0", "x")
    assert path.read_bytes() == data


# -- hostile ids -----------------------------------------------------------------------------

HOSTILE = [
    "../etc",
    "../../../../etc/passwd",
    "/abs",
    "/etc/passwd",
    "\\\\server\\share",
    "C:/Windows",
    "areas/ x",
    "areas/x ",
    " areas/x",
    "areas/./x",
    "areas/x/.",
    "areas/../areas/x",
    "areas/x/..",
    "areas/a\\b",
    "areas/a:b",
    "areas//x",
    "areas/x/",
    "areas/x\x00y",
    "areas/x\ny",
    "areas/.hidden",
    ".vault/locks",
    "areas",
    "people/jane",
    "",
    "agent:../x:projects/y",
    "agent::projects/y",
    "agent:.hidden:projects/y",
    "agent:fin/ance:projects/y",
    "agent:finance",
    "agent:finance:../../etc",
    "global:../x",
    "global:/abs",
]


@pytest.mark.parametrize("address", HOSTILE)
def test_hostile_entity_ids(tmp_path: Path, v: vault_module.Vault, address: str) -> None:
    before = tree(tmp_path)
    attempts = [
        lambda: v.entity(address),
        lambda: v.create_entity(address),
        lambda: v.add_fact(address, "x", "context", create=True),
        lambda: v.archive_entity(address),
        lambda: v.summary(address),
        lambda: v.write_summary(address, "x", expected=vault_module.Check.SKIP),
        lambda: v.synthesize([address]),
        lambda: v.related(address),
        lambda: v.add_fact("areas/people/jane", "x", "context", related=[address]),
    ]
    for attempt in attempts:
        with pytest.raises(
            errors.InvalidIdError, match=r"invalid (entity|agent) (id|address)|empty entity id"
        ):
            attempt()
    assert v.resolve_reference(address) is None
    assert tree(tmp_path) == before


@pytest.mark.parametrize(
    "agent", ["..", ".", "../x", "a/b", "", " x", "x\x00", ".hidden", "a" * 65]
)
def test_hostile_agent_ids(tmp_path: Path, v: vault_module.Vault, agent: str) -> None:
    before = tree(tmp_path)
    for attempt in (
        lambda: v.create_agent(agent),
        lambda: v.document("TACIT.md", agent=agent),
        lambda: v.write_document("TACIT.md", "x", agent=agent, expected=vault_module.Check.SKIP),
        lambda: v.append_daily("x", agent=agent),
        lambda: v.daily_note(dt.date(2026, 3, 1), agent=agent),
        lambda: v.add_fact("areas/people/jane", "x", "context", agent_id=agent),
    ):
        with pytest.raises(errors.InvalidIdError, match="invalid agent id"):
            attempt()
    assert tree(tmp_path) == before


def test_hostile_folder_names_on_disk_are_skipped(v: vault_module.Vault) -> None:
    areas = v.paths.life_dir / "areas"
    for name in (" padded", "colon:name", "back\\slash", ".hidden", "tab\tname"):
        (areas / name).mkdir()
        (areas / name / "items.json").write_text(json.dumps([good_entry("z", "Hidden")]))
    scan = v.scan()
    assert_rest_loads(v, scan)
    assert {e.address for e in scan.entities} == {*HEALTHY, BAD}
    skipped = sorted(p.path for p in scan.problems)
    assert skipped == sorted(
        f"global/life/areas/{name}"
        for name in (" padded", "colon:name", "back\\slash", "tab\tname")
    )
    assert all(p.severity == "warning" for p in scan.problems)


# -- symlinks out of the vault ---------------------------------------------------------------


def outside_facts(tmp_path: Path) -> Path:
    folder = tmp_path / "outside" / "secret"
    folder.mkdir(parents=True)
    (folder / "items.json").write_text(json.dumps([good_entry("outside-1", "Not yours")]))
    (folder / "summary.md").write_text("# Outside\n")
    return folder


def test_fact_file_symlinked_out_of_the_vault(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = outside_facts(tmp_path)
    link = bad_file(v)
    link.unlink()
    link.symlink_to(outside / "items.json")
    before = tree(tmp_path / "outside")

    scan = v.scan()
    assert_rest_loads(v, scan)
    (summary,) = [e for e in scan.entities if e.address == BAD]  # listed for its summary.md
    assert summary.facts_file is None and summary.total == 0
    (problem,) = scan.problems
    assert problem.path == f"global/life/{BAD}/items.json"
    assert "symlink leads outside the vault" in problem.message

    view = v.entity(BAD)
    assert isinstance(view.error, errors.CorruptFileError)
    assert view.error.path == link and "outside the vault" in view.error.reason
    assert view.facts == []
    with pytest.raises(errors.CorruptFileError, match="outside the vault"):
        v.add_fact(BAD, "Write through the link", "context")
    with pytest.raises(errors.NotFoundError):
        v.mark_accessed(["outside-1"])
    with pytest.raises(errors.NotFoundError):
        v.supersede_fact("outside-1", "x")
    _, problems = v.synthesize([BAD])
    assert len(problems) == 1 and "outside the vault" in problems[0].message
    assert tree(tmp_path / "outside") == before
    assert link.is_symlink() and link.resolve() == outside / "items.json"
    ring = v.storage.backups(v.paths.life_dir / BAD / "items.json")
    assert [p.read_bytes() for p in ring] == [b"[]\n"]  # what the vault wrote, nothing outside


def test_entity_folder_symlinked_out_of_the_vault(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = outside_facts(tmp_path)
    link = v.paths.life_dir / "areas" / "linked"
    link.symlink_to(outside, target_is_directory=True)
    before = tree(tmp_path / "outside")

    scan = v.scan()
    assert_rest_loads(v, scan)
    assert "areas/linked" not in {e.address for e in scan.entities}
    (problem,) = scan.problems
    assert problem.path == "global/life/areas/linked"
    assert "symlink leads outside the vault" in problem.message
    for attempt in (
        lambda: v.entity("areas/linked"),
        lambda: v.add_fact("areas/linked", "x", "context"),
        lambda: v.add_fact("areas/linked/deeper", "x", "context", create=True),
        lambda: v.create_entity("areas/linked/new"),
        lambda: v.write_summary("areas/linked", "x", expected=vault_module.Check.SKIP),
        lambda: v.archive_entity("areas/linked"),
    ):
        with pytest.raises(errors.InvalidIdError, match="outside the vault"):
            attempt()
    with pytest.raises(errors.NotFoundError):
        v.mark_accessed(["outside-1"])
    assert tree(tmp_path / "outside") == before


def test_document_symlinked_out_of_the_vault_is_not_overwritten(
    tmp_path: Path, v: vault_module.Vault
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Someone else's notes\n")
    tacit = v.root / "agents" / "finance" / "TACIT.md"
    tacit.unlink()
    tacit.symlink_to(outside)
    with pytest.raises(errors.CorruptFileError, match="outside the vault"):
        v.document("TACIT.md", agent="finance")
    with pytest.raises(errors.CorruptFileError, match="outside the vault"):
        v.write_document("TACIT.md", "# Mine\n", agent="finance", expected=vault_module.Check.SKIP)
    assert outside.read_text() == "# Someone else's notes\n"
    assert tacit.is_symlink()


def test_status_words_are_not_guessed(v: vault_module.Vault) -> None:
    """A status nobody defined is reported at its place, never read as active."""
    path = bad_file(v)
    path.write_text(json.dumps([good_entry("f0", "x") | {"status": "archived"}]))
    (error,) = v.entity(BAD).invalid
    assert error.location == "[0].status"
    assert models.FactStatus.ACTIVE.value in error.reason


def test_lone_surrogate_escape_survives_a_write(v: vault_module.Vault) -> None:
    """JSON may escape half a surrogate pair; UTF-8 cannot hold it: that fact is reported
    (not Unicode text: no view, search or JSON answer could carry it) and stays escaped
    when another fact of its file is written (tests/core/test_hardening_odd_values.py)."""
    path = bad_file(v)
    path.write_bytes('[{"id": "f0", "fact": "café \\ud800", "category": "context"}]'.encode())
    view = v.entity(BAD)
    assert view.facts == [] and view.invalid[0].location == "[0].fact"
    with pytest.raises(errors.CorruptFileError, match="lone surrogate"):
        v.mark_accessed(["f0"])
    v.add_fact(BAD, "Another fact", "context")
    first, _ = json.loads(path.read_bytes())
    assert first["fact"] == "café \ud800" and "accessCount" not in first
