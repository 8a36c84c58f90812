"""One odd value in one fact: that fact is reported at its place and left out; the rest of
the vault keeps working in every face (issue 11, "One odd value must not break the whole
vault").

The ranges are defined once, in `vault_app.core.models` (MAX_ACCESS_COUNT, MIN_TIME /
MAX_TIME, MAX_JSON_DEPTH, `json_value_problem`), and checked where a raw entry becomes a
`Fact` (`formats.to_fact`), so every face that reads facts leaves the bad one out.

Variants (each one fact among good ones; `ODD` below):

- accessCount: 2**63 (the int64 search columns overflowed), 2**53 + 1, -1, 1e300, true,
  "5"; 2**53 itself is accepted (`test_boundary_values_are_facts_in_every_zone`);
- times: naive 0001-01-01T00:00:00 as lastAccessed, and as timestamp with no
  lastAccessed ("year 0 is out of range" in search); 9999-12-31T23:59:59+14:00,
  0001-01-01T00:00:00-14:00, naive 9999-12-31T23:59:59; 0001-01-03 and
  9999-12-29T23:59:59+14:00 are accepted and searched under UTC+14 and UTC-11;
  lastAccessed in the far future is a valid fact and a doctor warning
  (`test_a_future_time_is_a_warning`);
- nesting: metadata 100 levels deep (one invalid fact); 300 levels (past orjson's
  255-level writer: the file is still written back, by the standard library,
  `test_a_fact_past_the_writers_depth_survives_a_write`); 100,000 levels (no parser
  reads it: the file is reported at [i] with its line and column and the rest of the
  vault works, `test_whole_vault_survives_through_the_cli`,
  `test_a_file_no_parser_can_read_is_one_problem_of_the_scan`);
- lone surrogates (UnicodeEncodeError in search, `show`, `decay`; orjson refuses them in
  every --json answer): in the fact text, a metadata value, a metadata key, the id,
  relatedEntities, source, an unknown field; the fact stays escaped in its file when
  another fact is written;
- API input: add_fact / supersede_fact refuse a surrogate (text, source, metadata,
  related), NaN, nesting past the limit and values JSON has no type for
  (`test_the_api_refuses_values_a_file_cannot_hold`);
- faces: the library (entity, decay_report, synthesize, mark_accessed, scan); the CLI
  in subprocesses: info --json, entities, search (bm25, --json, and hybrid once),
  context, synthesize, decay --json, show --json, doctor (exit codes, messages with the
  place, the good facts still listed and found); the window:
  tests/ui/test_odd_values_window.py.

Not here: NaN / Infinity / 1e400 literals and duplicated keys make the whole file
refused or unwritable (tests/core/test_hardening_odd_files.py). The vault scan still
counts an invalid fact in its entity's totals, as it always did for any invalid fact (it
reads only tier fields, never validates); it never crashes on one.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path
from typing import Any

import cli_process
import pytest

import vault_app
from vault_app.core import decay, doctor, errors, formats, models
from vault_app.core import vault as vault_module

NOW = dt.datetime(2026, 3, 1, 12, 0, 0)
NOW_ARG = "2026-03-01T12:00:00"
ODD_ENTITY = "areas/odd"
REPO = Path(vault_app.__file__).resolve().parent.parent


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


# name -> (fields replacing a good fact's, or raw JSON text of metadata; location; message)
ODD: dict[str, tuple[dict[str, Any] | str, str, str]] = {
    "count 2**63": ({"accessCount": 2**63}, "accessCount", "less than or equal to"),
    "count 2**53+1": ({"accessCount": 2**53 + 1}, "accessCount", "less than or equal to"),
    "count -1": ({"accessCount": -1}, "accessCount", "greater than or equal to 0"),
    "count 1e300": ({"accessCount": 1e300}, "accessCount", "valid integer"),
    "count true": ({"accessCount": True}, "accessCount", "valid integer"),
    "count string": ({"accessCount": "5"}, "accessCount", "valid integer"),
    "naive year 1": ({"lastAccessed": "0001-01-01T00:00:00"}, "lastAccessed", "out of range"),
    "created year 1": (
        {"timestamp": "0001-01-01T00:00:00", "lastAccessed": None},
        "timestamp",
        "out of range",
    ),
    "max +14:00": ({"lastAccessed": "9999-12-31T23:59:59+14:00"}, "lastAccessed", "out of range"),
    "min -14:00": ({"lastAccessed": "0001-01-01T00:00:00-14:00"}, "lastAccessed", "out of range"),
    "max naive": ({"lastAccessed": "9999-12-31T23:59:59"}, "lastAccessed", "out of range"),
    "deep 100": (nested(100), "metadata" + ".a" * 63, "nested deeper than 64 levels"),
    "surrogate text": ({"fact": "plumbing \ud800 leak"}, "fact", "lone surrogate"),
    "surrogate meta": ({"metadata": {"note": "x\udc00"}}, "metadata.note", "lone surrogate"),
    "surrogate key": ({"metadata": {"k\ud800": 1}}, "metadata['k\\ud800']", "key holds a lone"),
    "surrogate id": ({"id": "odd-\ud800"}, "id", "lone surrogate"),
    "surrogate related": ({"relatedEntities": ["areas/\udfff"]}, "relatedEntities[0]", "lone"),
    "surrogate source": ({"source": "chat \ud83d"}, "source", "lone surrogate"),
    "surrogate extra": ({"x-note": "\ud800"}, "['x-note']", "lone surrogate"),
}


def good_entry(fact_id: str, text: str, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": fact_id,
        "fact": text,
        "category": "context",
        "timestamp": "2026-02-27T09:00:00",
        "source": "2026-02-27",
        "status": "active",
        "supersededBy": None,
        "relatedEntities": [],
        "lastAccessed": "2026-02-28T09:00:00",
        "accessCount": 3,
        "confidence": 1.0,
        "agentId": None,
        "metadata": {},
    }
    entry.update(fields)
    return entry


def odd_entry(name: str, index: int) -> str:
    """The JSON text of the odd fact `name` (its text says "plumbing", as the good ones)."""
    change, _, _ = ODD[name]
    entry = good_entry(f"odd-{index}", f"Odd plumbing fact {index}")
    if isinstance(change, str):
        entry["metadata"] = "@@METADATA@@"
        return json.dumps(entry).replace('"@@METADATA@@"', change)
    entry.update(change)
    return json.dumps(entry)  # ensure_ascii: a surrogate is written as its \\u escape


def write_entries(path: Path, texts: list[str]) -> None:
    path.write_text("[\n" + ",\n".join(texts) + "\n]\n", encoding="ascii")


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    target = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_agent("finance")
    target.create_entity("projects/kitchen", "The kitchen remodel.")
    target.add_fact("projects/kitchen", "The plumbing under the sink was replaced", "milestone")
    target.create_entity(ODD_ENTITY, "Odd things.")
    return target


def odd_file(v: vault_module.Vault) -> Path:
    return v.paths.life_dir / ODD_ENTITY / "items.json"


@pytest.mark.parametrize("name", list(ODD))
def test_each_odd_value_is_one_invalid_fact_at_its_place(v: vault_module.Vault, name: str) -> None:
    _, location, message = ODD[name]
    path = odd_file(v)
    good = json.dumps(good_entry("good-0", "The plumbing inspection passed"))
    write_entries(path, [good, odd_entry(name, 1)])
    view = v.entity(ODD_ENTITY)
    assert [f.id for f in view.facts] == ["good-0"] and view.error is None
    (bad,) = view.invalid
    assert bad.location == f"[1].{location}".replace(".[", "["), bad
    assert message in bad.reason
    report = doctor.run(v)
    assert [(p.location, p.severity) for p in report.problems] == [(bad.location, "error")]
    # every reader of facts leaves it out; nothing raises
    rows, problems = v.decay_report()
    assert "good-0" in {r.fact.id for r in rows} and not any("odd" in r.fact.id for r in rows)
    assert [p.location for p in problems] == [bad.location]
    _, problems = v.synthesize([ODD_ENTITY])
    assert [p.location for p in problems] == [bad.location]
    summary = (path.parent / "summary.md").read_text(encoding="utf-8")
    assert "The plumbing inspection passed" in summary and "Odd plumbing" not in summary
    # the good fact is written; the odd one goes back exactly as it was read
    before = json.loads(path.read_text(encoding="ascii"))[1]
    assert v.mark_accessed(["good-0"]) == {"good-0": 4}
    assert json.loads(path.read_text(encoding="utf-8"))[1] == before
    odd_id = before["id"] if isinstance(before["id"], str) else None
    if odd_id and not models.text_problem(odd_id):
        with pytest.raises(errors.CorruptFileError) as refused:
            v.mark_accessed([odd_id])
        assert refused.value.location == bad.location
        with pytest.raises(errors.CorruptFileError) as looked_up:  # not "no fact odd-1"
            v.fact(odd_id)
        assert looked_up.value.location == bad.location


def test_boundary_values_are_facts_in_every_zone(v: vault_module.Vault) -> None:
    """The edges of each range are valid facts, and nothing downstream overflows on them,
    under the zones farthest from UTC either way."""
    path = odd_file(v)
    entries = [
        good_entry("edge-count", "Plumbing edge count", accessCount=models.MAX_ACCESS_COUNT),
        good_entry(
            "edge-old", "Plumbing edge old", timestamp="0001-01-03T00:00:00", lastAccessed=None
        ),
        good_entry("edge-new", "Plumbing edge new", lastAccessed="9999-12-29T23:59:59+14:00"),
        good_entry("edge-old-zone", "Plumbing edge zone", lastAccessed="0001-01-03T00:00:00-14:00"),
    ]
    meta = nested(models.MAX_JSON_DEPTH - 1)
    texts = [json.dumps(e) for e in entries]
    texts.append(
        json.dumps(good_entry("edge-deep", "Plumbing edge deep", metadata="@@")).replace(
            '"@@"', meta
        )
    )
    write_entries(path, texts)
    view = v.entity(ODD_ENTITY)
    assert view.invalid == [] and len(view.facts) == 5
    assert not doctor.run(v).errors
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"):
        env = {"TZ": zone}
        for argv in (
            ["--json", "search", "--mode", "bm25", "--status", "any", "plumbing edge"],
            ["--json", "decay"],
            ["--json", "context", "--agent", "finance", "--bm25", "--query", "plumbing"],
            ["synthesize"],
        ):
            done = cli(v, *argv, env=env)
            assert done.returncode == 0 and "Traceback" not in done.stderr, (zone, argv, done)
        hits = json.loads(cli(v, "--json", "search", "--mode", "bm25", "plumbing edge").stdout)
        assert {h["id"] for h in hits["hits"]} >= {f.id for f in view.facts}
    # the context marked them accessed: the count stays at its maximum, a valid fact
    after = v.entity(ODD_ENTITY)
    assert after.invalid == [] and after.fact("edge-count").access_count == models.MAX_ACCESS_COUNT


def test_a_future_time_is_a_warning(v: vault_module.Vault) -> None:
    path = odd_file(v)
    write_entries(
        path,
        [
            json.dumps(
                good_entry("later", "Plumbing from the future", lastAccessed="3000-01-01T00:00:00")
            )
        ],
    )
    assert [f.id for f in v.entity(ODD_ENTITY).facts] == ["later"]
    report = doctor.run(v)
    assert report.ok
    (warning,) = report.problems
    assert warning.severity == "warning" and warning.location == "[0].lastAccessed"
    assert "future" in warning.message


def test_a_fact_past_the_writers_depth_survives_a_write(v: vault_module.Vault) -> None:
    """orjson reads 1,024 levels but writes 255: a 300-deep fact is left out, and the
    file is written back by the standard library, the deep fact intact."""
    path = odd_file(v)
    deep = json.dumps(good_entry("deep", "Deep plumbing", metadata="@@")).replace(
        '"@@"', nested(300)
    )
    write_entries(path, [json.dumps(good_entry("good-0", "The plumbing inspection passed")), deep])
    view = v.entity(ODD_ENTITY)
    assert [f.id for f in view.facts] == ["good-0"]
    assert "nested deeper than 64" in view.invalid[0].reason
    v.add_fact(ODD_ENTITY, "The plumber comes on Monday", "context")
    written = formats.decode(path, path.read_bytes())
    assert len(written.raw) == 3 and written.raw[1]["id"] == "deep"
    depth, node = 0, written.raw[1]["metadata"]
    while isinstance(node, dict):
        depth, node = depth + 1, node["a"]
    assert depth == 300
    assert path.read_text(encoding="utf-8").startswith('[\n  {\n    "id": "good-0"')


def test_a_file_no_parser_can_read_is_one_problem_of_the_scan(v: vault_module.Vault) -> None:
    """100,000 levels: msgspec raised RecursionError out of the scan (info, entities,
    synthesize and the window failed for the whole vault)."""
    path = odd_file(v)
    deep = json.dumps(good_entry("deep", "Deep plumbing", metadata="@@")).replace(
        '"@@"', nested(100_000)
    )
    write_entries(path, [json.dumps(good_entry("good-0", "Fine")), deep])
    with pytest.raises(errors.CorruptFileError) as refused:
        formats.decode_tier_fields(path, path.read_bytes())
    assert refused.value.location is not None and refused.value.location.startswith("[1] (line 3")
    scan = v.scan()
    by_address = {e.address: e for e in scan.entities}
    assert by_address["projects/kitchen"].total == 1 and by_address["projects/kitchen"].hot == 1
    assert "nested too deeply" in (by_address[ODD_ENTITY].problem or "")
    assert [p.location for p in scan.problems] == [refused.value.location]
    assert v.update_scan(scan, [ODD_ENTITY]).problems[0].location == refused.value.location
    assert v.entity(ODD_ENTITY).error is not None
    with pytest.raises(errors.CorruptFileError):
        v.add_fact(ODD_ENTITY, "Not written onto an unreadable file", "context")


def test_the_api_refuses_values_a_file_cannot_hold(v: vault_module.Vault) -> None:
    v.add_fact(ODD_ENTITY, "A good fact", "context")
    path = odd_file(v)
    before = path.read_bytes()
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(models.MAX_JSON_DEPTH + 1):
        node["a"] = {}
        node = node["a"]
    attempts: list[tuple[dict[str, Any], str]] = [
        ({"text": "leak \ud800"}, "text: holds a lone surrogate"),
        ({"text": "ok", "source": "\udc00"}, "source: holds a lone surrogate"),
        ({"text": "ok", "metadata": {"k\ud800": 1}}, "key holds a lone surrogate"),
        ({"text": "ok", "metadata": {"k": float("nan")}}, "metadata is not JSON"),
        ({"text": "ok", "metadata": {"k": dt.date(2026, 1, 1)}}, "metadata is not JSON"),
        ({"text": "ok", "metadata": deep}, "nested deeper than 64"),
        ({"text": "ok", "related": ["areas/\ud800"]}, "relatedEntities[0]: holds a lone"),
    ]
    for kwargs, message in attempts:
        with pytest.raises(errors.InvalidFactError, match=message.replace("[", r"\[")):
            v.add_fact(ODD_ENTITY, category="context", **kwargs)
    fact_id = v.entity(ODD_ENTITY).facts[0].id
    with pytest.raises(errors.InvalidFactError, match="lone surrogate"):
        v.supersede_fact(fact_id, "new \ud800")
    with pytest.raises(errors.InvalidFactError, match="not JSON"):
        v.supersede_fact(fact_id, "new", metadata={"k": float("inf")})
    assert path.read_bytes() == before


# -- the whole vault through the command line ----------------------------------------------


def cli(
    v: vault_module.Vault, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(v.root, *argv, now=NOW_ARG, env=env, timeout=600)


@pytest.fixture
def odd_vault(v: vault_module.Vault) -> vault_module.Vault:
    """Every odd value of `ODD` as one fact of `areas/odd` between two good facts, and
    `areas/deep`, whose file nests 100,000 levels (no parser reads it)."""
    texts = [json.dumps(good_entry("good-0", "The plumbing inspection passed"))]
    texts += [odd_entry(name, i) for i, name in enumerate(ODD, start=1)]
    texts.append(json.dumps(good_entry("good-last", "The plumbing valve is brass")))
    write_entries(odd_file(v), texts)
    v.create_entity("areas/deep")
    deep = json.dumps(good_entry("deep", "Deep plumbing", metadata="@@")).replace(
        '"@@"', nested(100_000)
    )
    write_entries(v.paths.life_dir / "areas/deep/items.json", [deep])
    return v


def test_whole_vault_survives_through_the_cli(odd_vault: vault_module.Vault) -> None:
    v = odd_vault
    places = {f"[{i}].{ODD[name][1]}".replace(".[", "[") for i, name in enumerate(ODD, start=1)}

    def ok(*argv: str) -> subprocess.CompletedProcess[str]:
        done = cli(v, *argv)
        assert done.returncode == 0, (argv, done.stderr)
        assert "Traceback" not in done.stderr, (argv, done.stderr)
        return done

    info = json.loads(ok("--json", "info").stdout)
    assert info["entities"] == 3
    assert [p["path"] for p in info["problems"]] == ["global/life/areas/deep/items.json"]
    assert info["problems"][0]["location"].startswith("[0] (line 2")

    listed = ok("entities").stdout
    assert "projects/kitchen" in listed and "areas/odd" in listed and "nested too deeply" in listed

    for argv in (["--mode", "bm25"], ["--mode", "bm25", "--status", "any"]):
        hits = json.loads(ok("--json", "search", *argv, "plumbing").stdout)["hits"]
        ids = {h["id"] for h in hits if h["kind"] == "fact"}
        assert {"good-0", "good-last"} <= ids and not any(i.startswith("odd") for i in ids)
    text = ok("search", "--mode", "bm25", "plumbing").stdout
    assert "The plumbing valve is brass" in text and "Odd plumbing" not in text

    built = json.loads(
        ok("--json", "context", "--agent", "finance", "--bm25", "--query", "plumbing").stdout
    )
    assert "Odd plumbing" not in json.dumps(built)
    assert "The plumbing" in json.dumps(built)
    assert "plumbing" in ok("context", "--agent", "finance", "--bm25", "--query", "plumbing").stdout

    synthesized = ok("synthesize")
    warned = {line for line in synthesized.stderr.splitlines() if "areas/odd" in line}
    assert {w.split(" at ", 1)[1].split(":", 1)[0] for w in warned} == places
    summary = (v.paths.life_dir / ODD_ENTITY / "summary.md").read_text(encoding="utf-8")
    assert "The plumbing valve is brass" in summary and "Odd plumbing" not in summary

    rows = json.loads(ok("--json", "decay").stdout)
    assert {"good-0", "good-last"} <= {r["id"] for r in rows}
    shown = json.loads(ok("--json", "show", ODD_ENTITY).stdout)
    assert [f["id"] for f in shown["facts"]] == ["good-0", "good-last"]
    assert {i["location"] for i in shown["invalid"]} == places

    checked = cli(v, "--json", "doctor")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr
    problems = json.loads(checked.stdout)["problems"]
    odd = {p["location"] for p in problems if p["path"].endswith("areas/odd/items.json")}
    assert odd == places
    assert any(p["path"].endswith("areas/deep/items.json") for p in problems)
    text_report = cli(v, "doctor").stdout
    assert "lone surrogate ('\\ud800'" in text_report and "Traceback" not in text_report


@pytest.mark.slow  # the first semantic search of a test run prepares the model (~1 min)
def test_hybrid_search_leaves_the_odd_facts_out(odd_vault: vault_module.Vault) -> None:
    """Once with the semantic model (or its BM25 fallback): texts with a lone surrogate
    never reach the encoder."""
    done = cli(odd_vault, "--json", "search", "--mode", "hybrid", "plumbing")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    ids = {h["id"] for h in json.loads(done.stdout)["hits"] if h["kind"] == "fact"}
    assert "good-0" in ids and not any(i.startswith("odd") for i in ids)


@pytest.mark.parametrize(
    "entry",
    [
        {"id": "x", "metadata": json.loads(nested(models.MAX_JSON_DEPTH - 1))},
        {"id": "x", "metadata": json.loads(nested(models.MAX_JSON_DEPTH))},
        {"id": "x", "metadata": {"list": [[[["deep enough"]]]]}},
        {"id": "x\ud800"},
        {"id": "x", "metadata": {"k\udfff": 1}},
        {"id": "x", "accessCount": 2**70},
    ],
    ids=["64 levels", "65 levels", "lists", "surrogate", "surrogate key", "big int"],
)
def test_the_whole_file_check_agrees_with_the_check_of_each_fact(entry: dict[str, Any]) -> None:
    """`facts()` checks a file's entries in one call into C and each entry only when that
    fails: both must say the same, exactly at the depth limit too."""
    clean = models.json_value_problem(entry) is None
    whole = models.entries_are_clean([{"id": "good"}, entry])
    if not clean:
        assert not whole  # never "clean" for a file with a bad entry
    elif "accessCount" not in entry:  # (over 64 bits orjson cannot tell: each entry is walked)
        assert whole
