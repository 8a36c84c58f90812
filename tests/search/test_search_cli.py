"""`vault-app search` / `context` as processes: the --queries contract, access under concurrency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vault_app.core import vault


@pytest.fixture
def home(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("maintenance")
    v.create_entity("areas/people/marcus", "Marcus Bell is the plumber.")
    v.add_fact("areas/people/marcus", "Marcus fixed the leaking pipe under the sink", "milestone")
    v.add_fact("areas/people/marcus", "Marcus charges 95 dollars an hour", "status")
    v.create_entity("projects/roof")
    v.add_fact("projects/roof", "Summit Roofing quoted 14,800 dollars for the roof", "status")
    return v.root


def vault_app(
    *argv: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "vault_app", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=300,
    )


@pytest.mark.semantic  # one process answers every line in hybrid, the model loaded once
def test_queries_file_gives_one_json_line_per_line_in_order(home: Path, tmp_path: Path) -> None:
    queries = ["leaking pipe", "", "roof quote", "nothing matches zzzz", "who fixes our pipes"]
    out = vault_app(
        "--vault",
        str(home),
        "search",
        "--queries",
        "-",
        "--json",
        "--limit",
        "2",
        stdin="\n".join(queries) + "\n",
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(queries)
    results = [json.loads(line) for line in lines]
    assert [r["query"] for r in results] == queries
    assert all(r["mode"] == "hybrid" for r in results)  # the model loaded (once, one process)
    assert results[0]["hits"][0]["text"] == "Marcus fixed the leaking pipe under the sink"
    assert results[1]["hits"] == [] and results[3]["hits"][:0] == []
    assert results[2]["hits"][0]["entity"] == "projects/roof"
    hit = results[0]["hits"][0]
    assert set(hit) >= {
        "kind",
        "scope",
        "entity",
        "id",
        "text",
        "score",
        "parts",
        "tier",
        "status",
        "source",
        "path",
    }
    assert set(hit["parts"]) == {"bm25", "semantic"}


def test_a_person_searching_marks_nothing(home: Path) -> None:
    before = (home / "global/life/areas/people/marcus/items.json").read_bytes()
    out = vault_app("--vault", str(home), "search", "leaking pipe", "--mode", "bm25", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["markedAccessed"] == {}
    assert (home / "global/life/areas/people/marcus/items.json").read_bytes() == before


WORKER = textwrap.dedent(
    """
    import json, sys
    from vault_app.core import vault
    from vault_app.search import context, engine
    root, rounds = sys.argv[1], int(sys.argv[2])
    v = vault.Vault(root, actor="agent:maintenance")
    search, _ = engine.open_engine(v, semantic=False)
    builder = context.ContextBuilder(search)
    marks = {}
    sys.stdin.readline()  # start together
    for _ in range(rounds):
        for fid in builder.build("maintenance", "Marcus leaking pipe dollars").marked:
            marks[fid] = marks.get(fid, 0) + 1
        result = search.search("Marcus", mode="bm25")
        ids = [h.fact_id for h in result.hits if h.fact_id]
        for fid in v.mark_accessed(ids):
            marks[fid] = marks.get(fid, 0) + 1
        search.refresh_entity("areas/people/marcus")
    print(json.dumps(marks))
    """
)


@pytest.mark.slow
def test_access_marking_under_concurrent_agents(home: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(home), "15"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    totals: dict[str, int] = {}
    for proc in procs:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0
        for fid, n in json.loads(out).items():
            totals[fid] = totals.get(fid, 0) + n
    v = vault.Vault(home)
    counts = {f.id: f.access_count for ref in v.entity_refs() for f in v.entity(ref).facts}
    assert totals and all(counts[fid] == n for fid, n in totals.items())
    assert sum(totals.values()) >= 3 * 15 * 2
