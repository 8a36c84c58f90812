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


def test_an_agent_searches_and_gets_context_whatever_another_agent_holds(tmp_path: Path) -> None:
    """The index holds every scope: built or caught up by an agent's command, it was read
    through that agent's door, which refused the other agent's files — `context --agent
    finance` failed on any vault whose other agents had memory (the demo's). The engine
    reads as the CLI; what the agent is shown is still what it may read."""
    v = vault.Vault.create(tmp_path / "v")
    for agent in ("finance", "security"):
        v.create_agent(agent)
    v.add_fact("agent:security:areas/house", "The garage door code is 4417", "context", create=True)
    v.add_fact(
        "agent:finance:areas/bills", "The garage door opener bill is 40", "status", create=True
    )
    v.append_daily("Changed the garage door code again.", agent="security")
    home = str(v.root)
    for argv in (
        ("--actor", "agent:finance", "search", "garage door code", "--mode", "bm25", "--json"),
        ("search", "garage door code", "--agent", "finance", "--mode", "bm25", "--json"),
    ):
        done = vault_app("--vault", home, *argv)
        assert done.returncode == 0, done.stderr
        texts = [hit["text"] for hit in json.loads(done.stdout)["hits"]]
        assert texts and all("4417" not in t and "Changed the" not in t for t in texts)
    # another agent's memory changed since: the catch-up reads it, as the CLI
    v.add_fact("agent:security:areas/house", "The side gate code is 8812", "context")
    for argv in (
        ("context", "--agent", "finance", "--query", "garage code", "--bm25", "--json"),
        ("--actor", "agent:finance", "context", "--query", "garage code", "--bm25", "--json"),
    ):
        done = vault_app("--vault", home, *argv)
        assert done.returncode == 0, done.stderr
        shown = json.dumps(json.loads(done.stdout)["blocks"])
        assert "opener bill" in shown and "4417" not in shown and "8812" not in shown
    done = vault_app(
        "--vault", home, "--actor", "agent:finance", "search", "x", "--agent", "security"
    )
    assert done.returncode == 2 and "an agent searches as itself" in done.stderr


def test_an_agents_cli_shows_only_what_it_may_read(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v")
    for agent in ("finance", "security"):
        v.create_agent(agent)
    v.add_fact("agent:security:areas/house", "The garage door code is 4417", "context", create=True)
    home = str(v.root)
    done = vault_app("--vault", home, "--actor", "agent:finance", "agents", "--json")
    assert done.returncode == 0, done.stderr
    listed = {a["id"]: (a["entities"], a["dailyNotes"]) for a in json.loads(done.stdout)}
    assert listed == {"finance": (0, 0), "security": (None, None)}  # its name, no counts
    done = vault_app("--vault", home, "--actor", "agent:finance", "decay", "--going-cold", "400")
    assert done.returncode == 0 and "4417" not in done.stdout, done.stderr
    done = vault_app("--vault", home, "--actor", "agent:finance", "doctor")
    assert done.returncode != 0 and "doctor checks the whole vault" in done.stderr
    assert "may not read security" in done.stderr
    assert vault_app("--vault", home, "doctor").returncode == 0  # a person's
