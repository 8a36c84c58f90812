"""One agent cannot reach another's private memory over MCP (issue 27): every tool that
reads or writes by number, id, address, link or listing asks the access policy, through
the official SDK's in-process client, as a hostile agent would try it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from vault_app.core import config, numeric_ids
from vault_app.core.vault import Vault
from vault_app.mcp.server import build_server
from vault_app.workspace.vault_workspace import VaultWorkspace

SECRET = "The garage door code is 4417"
HOUSE = "agent:security:areas/house"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    v = Vault.create(tmp_path / "v", actor="jane")
    for agent in ("finance", "security"):
        v.create_agent(agent)
    v.add_fact(HOUSE, SECRET, "context", create=True, agent_id="security")
    v.add_fact("areas/family", "The family has two cats", "context", create=True)
    v.add_fact(
        "agent:finance:areas/budget", "Rent is 900", "status", create=True, agent_id="finance"
    )
    return v.root


@pytest.fixture
def runtime(root: Path) -> Iterator[VaultWorkspace]:
    rt = VaultWorkspace(root, semantic=False)
    rt.start()
    yield rt
    rt.close()


def call(rt: VaultWorkspace, agent: str, name: str, args: dict[str, Any]) -> CallToolResult:
    async def run() -> CallToolResult:
        async with Client(build_server(rt, lambda ctx: agent)) as client:
            return await client.call_tool(name, args)

    return anyio.run(run)


def text(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


def answer(result: CallToolResult) -> Any:
    assert not result.is_error, text(result)
    if result.structured_content is not None and "result" not in result.structured_content:
        return result.structured_content
    return json.loads(text(result))


def secret_id(root: Path) -> str:
    return Vault(root, actor="jane").entity(HOUSE).facts[0].id


def house_bytes(root: Path) -> bytes:
    return (root / "agents/security/workspace/areas/house/items.json").read_bytes()


def test_a_memory_number_of_another_agent_is_no_memory(root: Path, runtime: VaultWorkspace) -> None:
    number = numeric_ids.fact_number(secret_id(root))
    got = answer(call(runtime, "finance", "memory_query", {"op": "get", "id": number}))
    assert got == []
    mine = answer(call(runtime, "security", "memory_query", {"op": "get", "id": number}))
    assert [m["content"] for m in mine] == [SECRET]


@pytest.mark.parametrize(
    "payload",
    [
        {"op": "touch"},
        {"op": "touch", "confidence_floor": 1.0},
        {"op": "archive"},
        {"op": "update", "content": "The code is 0000"},
    ],
)
def test_another_agents_memory_is_never_written(
    root: Path, runtime: VaultWorkspace, payload: dict[str, Any]
) -> None:
    before = house_bytes(root)
    number = numeric_ids.fact_number(secret_id(root))
    result = call(runtime, "finance", "memory_upsert", {**payload, "id": number})
    assert result.is_error or answer(result) == {"updated": False}
    refused = call(
        runtime,
        "finance",
        "memory_upsert",
        {"op": "supersede", "from_memory_id": number, "content": "The code is 0000"},
    )
    assert refused.is_error
    assert house_bytes(root) == before


def test_history_and_entities_of_another_agent_are_refused(
    root: Path, runtime: VaultWorkspace
) -> None:
    number = numeric_ids.fact_number(secret_id(root))
    for name, args in (
        ("fact_history", {"number": number}),
        ("fact_history", {"fact_id": secret_id(root)}),
        ("get_entity", {"entity": HOUSE}),
        ("related", {"entity": HOUSE}),
    ):
        result = call(runtime, "finance", name, args)
        assert result.is_error, (name, text(result))
        assert SECRET not in text(result)
    listing = answer(call(runtime, "finance", "list_entities", {}))
    assert HOUSE not in {e["entity"] for e in listing["entities"]}


def test_recent_activity_for_everyone_leaves_out_what_the_agent_may_not_read(
    root: Path, runtime: VaultWorkspace
) -> None:
    got = answer(call(runtime, "finance", "recent_activity", {"everyone": True, "limit": 500}))
    seen = json.dumps(got)
    assert "agents/security" not in seen and secret_id(root) not in seen
    assert "areas/family" in seen and "agents/finance" in seen
    own = answer(call(runtime, "security", "recent_activity", {"everyone": True, "limit": 500}))
    assert secret_id(root) in json.dumps(own)


def test_a_link_in_the_agents_own_workspace_leads_nowhere_else(
    root: Path, runtime: VaultWorkspace
) -> None:
    link = root / "agents/finance/workspace/areas/peek"
    link.mkdir()
    os.symlink(root / "agents/security/workspace/areas/house/items.json", link / "items.json")
    result = call(runtime, "finance", "get_entity", {"entity": "agent:finance:areas/peek"})
    assert result.is_error and SECRET not in text(result)
    assert "security" in text(result)


def test_search_keeps_to_the_scopes_the_agent_reads_and_a_grant_widens_them(
    root: Path, runtime: VaultWorkspace
) -> None:
    hits = answer(call(runtime, "finance", "search", {"query": "garage door code"}))
    assert SECRET not in json.dumps(hits)
    refused = call(runtime, "finance", "search", {"query": "garage", "scope": "agent:security"})
    assert refused.is_error and "grants" in text(refused)
    settings = config.VaultConfig.load(root)
    settings.agents.grants = {"finance": config.AgentGrant(read=["security"])}
    settings.save(Vault(root, actor="jane").storage)
    runtime.vault_for("finance").adopt_config(settings)
    hits = answer(
        call(runtime, "finance", "search", {"query": "garage door code", "scope": "agent:security"})
    )
    assert SECRET in json.dumps(hits)
    before = house_bytes(root)
    number = numeric_ids.fact_number(secret_id(root))
    wrote = call(
        runtime, "finance", "memory_upsert", {"op": "update", "id": number, "content": "0000"}
    )
    assert wrote.is_error or answer(wrote) == {"updated": False}
    assert house_bytes(root).count(b"0000") == 0 and SECRET.encode() in before


def test_errors_name_vault_paths_never_the_servers(root: Path, runtime: VaultWorkspace) -> None:
    broken = root / "global/life/areas/family/items.json"
    broken.write_text("[{", encoding="utf-8")
    for name, args in (
        ("get_entity", {"entity": "areas/family"}),
        ("get_entity", {"entity": "areas/nothing-here"}),
        ("fact_history", {"fact_id": "fact-00000000000000000000000000000000"}),
    ):
        result = call(runtime, "finance", name, args)
        assert result.is_error
        assert str(root) not in text(result) and str(root.resolve()) not in text(result)
    assert "global/life/areas/family/items.json" in text(
        call(runtime, "finance", "get_entity", {"entity": "areas/family"})
    )


def test_the_context_tells_each_agent_its_own_me_and_the_global_one(root: Path) -> None:
    v = Vault(root, actor="jane")
    v.add_fact("areas/me", "The user takes their coffee black", "preference", create=True)
    v.add_fact("agent:security:areas/me", "The user works night shifts", "context", create=True)
    rt = VaultWorkspace(root, semantic=False)
    rt.start()
    try:
        mine = answer(call(rt, "security", "context", {"mark_access": False}))
        theirs = answer(call(rt, "finance", "context", {"query": "night shifts work"}))
    finally:
        rt.close()
    assert "me" in [b["name"] for b in mine["blocks"]]
    assert "ABOUT THE USER" in mine["text"]
    assert "- The user works night shifts" in mine["text"] and "coffee black" in mine["text"]
    assert "coffee black" in theirs["text"]  # the global Me is every agent's
    assert "night shifts" not in theirs["text"]  # security's Me is security's alone
