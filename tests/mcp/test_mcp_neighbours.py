"""The MCP server in a neighbour's folder, opened as it is (a Hermes home, a PicoClaw
workspace, a MicroClaw runtime), through the SDK's own client: in-process, a real
`vault-app mcp` child over stdio, and a real `vault-app serve` over HTTP on 127.0.0.1
with right, wrong and missing tokens.

Each format lists the tools it keeps and only those; reads leave the folder's bytes as
they were; a write lands in the owner's format and is audited with the agent as actor;
a flagged write waits in the review queue of vault-app's state folder (which `vault-app
review` sees when pointed at the folder), and nothing of vault-app's is written into
the folder.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from test_mcp_http import ServeProcess, ThreadServer, client, post
from test_mcp_stdio import child_env

from tests.neighbour_folders import AGENTS, ATTACK, PERSONA, copied, digest
from vault_app import cli
from vault_app.core import decay, neighbours
from vault_app.core.neighbours import agents as neighbour_agents
from vault_app.core.neighbours import files as neighbour_files
from vault_app.core.neighbours import picoclaw
from vault_app.mcp import http, server
from vault_app.workspace.folder_workspace import FolderWorkspace

NOW = "2026-11-24T09:30:00+00:00"
TOOLS = {
    "hermes": {"search", "context", "memory"},
    "picoclaw": {
        "search",
        "context",
        "profile_read",
        "profile_set",
        "profile_delete",
        "append_daily",
        "read_daily",
    },
    "microclaw": {"search", "context", "tiers_read", "tiers_write", "append_daily", "read_daily"},
}
# one write per format that the injection scan lets through, and one it holds back
WRITES = {
    "hermes": ("memory", {"action": "add", "target": "user", "content": "{text}"}),
    "picoclaw": ("profile_set", {"key": "note", "value": "{text}"}),
    "microclaw": ("tiers_write", {"tier": 3, "content": "{text}"}),
}


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def served(root: Path) -> FolderWorkspace:
    clock = decay.fixed_clock(dt.datetime.fromisoformat(NOW))
    return FolderWorkspace(root, semantic=False, clock=clock)


def calls(rt: FolderWorkspace, agent: str, *steps: tuple[str, dict[str, Any]]) -> Any:
    """Tool calls through the SDK's in-process client: for each, the structured content,
    or the error text (a str) when the result is an error; then the tool names."""

    async def go() -> tuple[list[Any], set[str]]:
        async with Client(server.build_server(rt, lambda ctx: agent)) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            answers = []
            for name, args in steps:
                result = await c.call_tool(name, args)
                answers.append(
                    result.content[0].text if result.is_error else result.structured_content
                )
            return answers, names

    try:
        return asyncio.run(go())
    finally:
        rt.close()


def audit(root: Path) -> list[dict[str, Any]]:
    log = neighbour_files.state_dir(root.resolve()) / "audit.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def write_step(name: str, text: str) -> tuple[str, dict[str, Any]]:
    tool, args = WRITES[name]
    return tool, {k: (v.format(text=text) if isinstance(v, str) else v) for k, v in args.items()}


# -- in-process ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(TOOLS))
def test_each_format_lists_the_tools_it_keeps_and_only_those(name: str, tmp_path: Path) -> None:
    root = copied(name, tmp_path)

    async def go() -> Any:
        async with Client(server.build_server(served(root), lambda ctx: AGENTS[name])) as c:
            return (await c.list_tools()).tools, c.server_info, c.instructions

    tools, info, instructions = asyncio.run(go())
    assert {t.name for t in tools} == TOOLS[name]
    assert info is not None and info.name == "vault-app"
    assert instructions and "pending_review" in instructions
    for tool in tools:  # written for a model, as on a vault: each with an example
        example = (tool.description or "").split("Example: ", 1)[1]
        assert isinstance(json.loads(example), dict), tool.name


@pytest.mark.parametrize("name", list(TOOLS))
def test_reads_leave_the_folders_bytes_untouched(name: str, tmp_path: Path) -> None:
    root = copied(name, tmp_path)
    before = digest(root)
    reads: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": "porto trip fedora city"}),
        ("context", {"query": "what happened yesterday", "budget": 2000}),
    ]
    reads += {
        "hermes": [("memory", {"action": "read", "target": "user"})],
        "picoclaw": [("profile_read", {}), ("read_daily", {"since": "2026-11-01"})],
        "microclaw": [("tiers_read", {"tier": 2}), ("read_daily", {"since": "2026-11-20"})],
    }[name]
    answers, _ = calls(served(root), AGENTS[name], *reads)
    assert all(isinstance(a, dict) for a in answers), answers
    assert digest(root) == before


def test_search_hits_carry_their_origin_and_no_server_path(tmp_path: Path) -> None:
    root = copied("hermes", tmp_path)
    (found,), _ = calls(served(root), "hermes", ("search", {"query": "fedora dnf"}))
    assert found["mode"] == "bm25" and "semantic search is off" in found["notice"]
    hit = found["hits"][0]
    assert hit["origin"]["file"] == "memories/MEMORY.md" and hit["origin"]["target"] == "memory"
    assert "Fedora" in hit["text"] and "path" not in hit
    assert found["marked_accessed"] == 0


def test_a_hermes_memory_write_lands_in_hermes_format_audited_as_the_agent(
    tmp_path: Path,
) -> None:
    root = copied("hermes", tmp_path)
    path = root / "memories" / "USER.md"
    before = path.read_text(encoding="utf-8")
    (added, batch, over), _ = calls(
        served(root),
        "hermes",
        ("memory", {"action": "add", "target": "user", "content": "Drinks tea, not coffee."}),
        (
            "memory",
            {
                "target": "user",
                "operations": [
                    {"action": "remove", "old_text": "tea, not coffee"},
                    {"action": "add", "content": "Drinks green tea."},
                ],
            },
        ),
        ("memory", {"action": "add", "content": "x" * 3000}),
    )
    assert added["success"] and added["status"] == "applied" and added["usage"] == "122/1,375"
    assert batch["success"] and batch["message"] == "Applied 2 operations."
    assert path.read_text(encoding="utf-8") == before + "\n§\nDrinks green tea."
    assert over["success"] is False and over["usage"].endswith("/2,200")  # refused, said why
    assert {(line["actor"], line["action"]) for line in audit(root)} == {
        ("agent:hermes", "notes.add"),
        ("agent:hermes", "notes.batch"),
    }
    assert not (root / ".vault").exists()


def test_a_picoclaw_profile_and_daily_write_land_in_picoclaws_format(tmp_path: Path) -> None:
    root = copied("picoclaw", tmp_path)
    (set_, day, read), _ = calls(
        served(root),
        "picoclaw",
        ("profile_set", {"key": "pet", "value": "a cat <Tom>"}),
        ("append_daily", {"text": "Fed the cat."}),
        ("read_daily", {}),
    )
    assert set_["status"] == "applied" and set_["profile"]["pet"] == "a cat <Tom>"
    saved = (root / "memory" / "profile.json").read_text(encoding="utf-8")
    assert saved == picoclaw.go_json(set_["profile"]) and "\\u003cTom\\u003e" in saved
    assert day["entry"] == {
        "date": "2026-11-24",
        "time": None,
        "agent": "picoclaw",
        "text": "Fed the cat.",
    }
    note = root / "memory" / "202611" / "20261124.md"
    assert note.read_text(encoding="utf-8") == "# 2026-11-24\n\nFed the cat.\n"
    assert read["days"] == [
        {"date": "2026-11-24", "entries": [{"time": None, "text": "Fed the cat."}]}
    ]
    assert {line["actor"] for line in audit(root)} == {"agent:picoclaw"}


def test_a_microclaw_persona_writes_its_tier_and_reads_only_its_own(tmp_path: Path) -> None:
    root = copied("microclaw", tmp_path)
    path = root / "groups" / "-1001234567890" / "1" / "MEMORY.md"
    before = path.read_text(encoding="utf-8")
    principles = (root / "groups" / "AGENTS.md").read_bytes()
    (written, tier, found, other, ctx), names = calls(
        served(root),
        PERSONA,
        ("tiers_write", {"tier": 3, "content": "Rested after the trip."}),
        ("tiers_read", {"tier": 3}),
        ("search", {"query": "porto trip"}),
        ("search", {"query": "check-in"}),  # chat 42's log: another chat's
        ("context", {"budget": 2000}),
    )
    assert written["status"] == "applied" and tier["text"] == "Rested after the trip."
    after = path.read_text(encoding="utf-8")
    assert "## Tier 3 — Short term\n\nRested after the trip.\n" in after
    assert after.split("## Tier 3")[0] == before.split("## Tier 3")[0]  # tiers 1, 2 kept
    agents = {h["origin"]["agent"] for h in found["hits"]}
    assert agents <= {PERSONA, None} and found["hits"]  # never persona 2's tiers
    assert all(h["origin"].get("chat") in (None, "-1001234567890") for h in other["hits"])
    assert "Never share the user's address." in ctx["text"]  # principles: read, in context
    assert not {n for n in names if "principle" in n or n == "write_document"}
    assert (root / "groups" / "AGENTS.md").read_bytes() == principles
    assert {line["actor"] for line in audit(root)} == {f"agent:{PERSONA}"}


@pytest.mark.parametrize("name", list(TOOLS))
def test_a_flagged_write_waits_for_review_in_our_state_never_in_the_folder(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copied(name, tmp_path)
    before = digest(root)
    (answer,), _ = calls(served(root), AGENTS[name], write_step(name, ATTACK))
    assert answer["status"] == "pending_review" and answer["review_id"].startswith("r-")
    assert digest(root) == before  # neither applied nor anything of ours written there
    state = neighbour_files.state_dir(root.resolve())
    assert (state / "review" / f"{answer['review_id']}.json").is_file()
    code = cli.main(["--vault", str(root), "--json", "review", "list"])
    listed = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["id"] for r in listed] == [answer["review_id"]]
    assert listed[0]["agent"] == AGENTS[name] and listed[0]["findings"]
    code = cli.main(["--vault", str(root), "--now", NOW, "review", "approve", answer["review_id"]])
    assert code == 0, capsys.readouterr().err
    assert digest(root) != before  # a person approved: applied, as the agent
    applied = [line for line in audit(root) if line["action"] not in ("review.propose",)]
    assert applied[0]["actor"] == f"agent:{AGENTS[name]}"
    assert any(line["action"] == "review.approve" and line["actor"] == "cli" for line in applied)
    capsys.readouterr()
    code = cli.main(["--vault", str(root), "--json", "activity", f"--agent={AGENTS[name]}"])
    mine = json.loads(capsys.readouterr().out)  # the person sees what the agent did
    assert code == 0 and {e["actor"] for e in mine} == {f"agent:{AGENTS[name]}"}
    assert {e["action"] for e in mine} >= {"review.propose"}


def test_an_unknown_agent_is_refused_by_every_tool(tmp_path: Path) -> None:
    root = copied("microclaw", tmp_path)
    (found, tier), _ = calls(
        served(root), "-1001234567890/9", ("search", {"query": "porto"}), ("tiers_read", {})
    )
    assert "no agent '-1001234567890/9'" in found and "no agent" in tier


# -- a real stdio child -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(TOOLS))
def test_a_stdio_client_works_in_each_format(name: str, tmp_path: Path) -> None:
    root = copied(name, tmp_path)
    agent = [] if name != "microclaw" else [f"--agent={PERSONA}"]  # one agent: none needed
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vault_app", "--vault", str(root), "mcp", *agent, "--bm25"],
        env={**child_env(), "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    tool, args = write_step(name, "Likes the sea in winter.")

    async def session() -> tuple[set[str], Any, Any, Any]:
        async with Client(params) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            written = await c.call_tool(tool, args)
            found = await c.call_tool("search", {"query": "sea in winter"})
            return tools, written, found, c.server_info

    tools, written, found, info = asyncio.run(session())
    assert info.name == "vault-app" and tools == TOOLS[name]
    assert not written.is_error and written.structured_content["status"] == "applied"
    hits = found.structured_content["hits"]
    assert hits and "sea in winter" in hits[0]["text"] and hits[0]["origin"]["format"] == name
    assert audit(root)[-1]["actor"] == f"agent:{AGENTS[name]}"


def test_stdio_in_a_microclaw_runtime_needs_the_persona(tmp_path: Path) -> None:
    import subprocess

    root = copied("microclaw", tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "vault_app", "--vault", str(root), "mcp"],
        env=child_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "give --agent ID" in done.stderr and PERSONA in done.stderr


# -- `vault-app serve`, a real process over HTTP --------------------------------------------


@pytest.mark.parametrize("name", list(TOOLS))
def test_serve_in_each_format_answers_the_right_token_only(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copied(name, tmp_path)
    code = cli.main(["--vault", str(root), "--json", "agent", "token", "--", AGENTS[name]])
    issued = json.loads(capsys.readouterr().out)
    assert code == 0 and issued["agent"] == AGENTS[name]
    table = neighbour_agents.token_table(root.resolve())
    assert table.path.is_file() and issued["token"] not in table.path.read_text(encoding="utf-8")
    before = digest(root)
    serve = ServeProcess(root, "--bm25")
    try:

        async def session() -> tuple[set[str], Any]:
            async with client(serve.url, issued["token"]) as c:
                tools = {t.name for t in (await c.list_tools()).tools}
                return tools, await c.call_tool("context", {"budget": 1000})

        tools, ctx = asyncio.run(session())
        assert tools == TOOLS[name]
        assert not ctx.is_error and ctx.structured_content["blocks"]
        assert post(serve.url).status_code == 401  # missing
        assert post(serve.url, Authorization="Bearer vat_wrong").status_code == 401  # wrong
        assert post(serve.url, Authorization=f"Bearer {issued['token']}").status_code == 200
    finally:
        assert serve.stop() == 0
    assert digest(root) == before


def test_a_persona_of_another_chat_does_not_read_this_chats_log(tmp_path: Path) -> None:
    root = copied("microclaw", tmp_path)
    (theirs,), _ = calls(served(root), PERSONA, ("search", {"query": "discussed porto trip"}))
    assert any(h["origin"].get("chat") == "-1001234567890" for h in theirs["hits"])
    (mine,), _ = calls(served(root), "42/7", ("search", {"query": "discussed porto trip"}))
    assert all(h["origin"].get("chat") is None for h in mine["hits"])
    assert all(h["origin"]["agent"] in ("42/7", None) for h in mine["hits"])


def test_a_rotated_or_revoked_folder_token_is_refused_at_the_next_request(
    tmp_path: Path,
) -> None:
    root = copied("picoclaw", tmp_path)
    person = neighbours.open_folder(root, actor="cli")
    assert person is not None
    first = neighbour_agents.issue_token(person, "picoclaw")
    rt = served(root)
    serve = ThreadServer(lambda port: http.create_app(rt, host="127.0.0.1", port=port))
    try:

        async def profile(token: str) -> Any:
            async with client(f"{serve.base}/mcp", token) as c:
                return (await c.call_tool("profile_read", {"key": "city"})).structured_content

        assert asyncio.run(profile(first)) == {"key": "city", "value": "Lyon", "exists": True}
        second = neighbour_agents.issue_token(person, "picoclaw")
        assert post(f"{serve.base}/mcp", Authorization=f"Bearer {first}").status_code == 401
        assert post(f"{serve.base}/mcp", Authorization=f"Bearer {second}").status_code == 200
        assert neighbour_agents.revoke_token(person, "picoclaw")
        assert post(f"{serve.base}/mcp", Authorization=f"Bearer {second}").status_code == 401
    finally:
        serve.stop()
        rt.close()


def test_a_hermes_store_that_would_not_round_trip_is_refused_as_hermes_refuses(
    tmp_path: Path,
) -> None:
    root = copied("hermes-drift", tmp_path)
    path = root / "memories" / "MEMORY.md"
    before = path.read_bytes()
    (answer,), _ = calls(
        served(root), "hermes", ("memory", {"action": "remove", "old_text": "Fedora"})
    )
    assert answer["success"] is False and answer["error"] == "not_round_trip"
    assert path.read_bytes() == before  # left as it was, its bytes also kept in a .bak
    (backup,) = (root / "memories").glob("MEMORY.md.bak.*")
    assert backup.read_bytes() == before
