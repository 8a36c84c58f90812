"""The permission matrix over MCP (issue 27): every tool that reads or writes a target,
for three agents (a plain one, a global writer, one granted another's memory), on each
kind of target (its own, global memory, another agent's), stated as a table; a cell that
answers otherwise fails, and the test names every such cell at once. The context, which
reads no one target, is in it by what it shows: a target's fact in its text or not."""

from __future__ import annotations

import json
from collections.abc import Callable
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

AGENTS = ("finance", "household", "manager", "security")
ENTITY = {
    "own": "agent:{agent}:areas/notes",
    "global": "areas/family",
    "other": "agent:security:areas/house",
}
SCOPE = {"own": "mine", "global": "global", "other": "agent:security"}
TEXT = {  # each kind of target's fact, as the base vault holds it
    "own": "{agent} keeps notes",
    "global": "The family code word is pumpkin",
    "other": "The garage door code is 4417",
}
Call = Callable[[str, dict[str, int], str], tuple[str, dict[str, Any]]]

# tool -> how it is called on a target (the agent, the facts' numbers by target kind)
CALLS: dict[str, Call] = {
    "get_entity": lambda k, n, a: ("get_entity", {"entity": ENTITY[k].format(agent=a)}),
    "related": lambda k, n, a: ("related", {"entity": ENTITY[k].format(agent=a)}),
    "fact_history": lambda k, n, a: ("fact_history", {"number": n[k]}),
    "search": lambda k, n, a: ("search", {"query": "code", "scope": SCOPE[k]}),
    "context": lambda k, n, a: (
        "context",
        {"query": TEXT[k].format(agent=a), "mark_access": False},
    ),
    "list_entities": lambda k, n, a: ("list_entities", {"scope": SCOPE[k]}),
    "memory_query get": lambda k, n, a: ("memory_query", {"op": "get", "id": n[k]}),
    "add_fact": lambda k, n, a: (
        "add_fact",
        {"entity": ENTITY[k].format(agent=a), "text": "A new fact", "category": "context"},
    ),
    "supersede_fact": lambda k, n, a: ("supersede_fact", {"number": n[k], "text": "Changed"}),
    "memory_upsert touch": lambda k, n, a: ("memory_upsert", {"op": "touch", "id": n[k]}),
    "memory_upsert update": lambda k, n, a: (
        "memory_upsert",
        {"op": "update", "id": n[k], "content": "Changed"},
    ),
    "memory_upsert archive": lambda k, n, a: ("memory_upsert", {"op": "archive", "id": n[k]}),
}
# (tool, target kind) -> the answer for finance (plain), household (a global writer),
# manager (granted read of every agent's memory). ok: done; no: refused (a tool error,
# or `updated: false`); none: nothing there for it (MicroClaw's `[]`).
TABLE: dict[tuple[str, str], tuple[str, str, str]] = {
    ("get_entity", "own"): ("ok", "ok", "ok"),
    ("get_entity", "global"): ("ok", "ok", "ok"),
    ("get_entity", "other"): ("no", "no", "ok"),
    ("related", "own"): ("ok", "ok", "ok"),
    ("related", "global"): ("ok", "ok", "ok"),
    ("related", "other"): ("no", "no", "ok"),
    ("fact_history", "own"): ("ok", "ok", "ok"),
    ("fact_history", "global"): ("ok", "ok", "ok"),
    ("fact_history", "other"): ("no", "no", "ok"),
    ("search", "own"): ("ok", "ok", "ok"),
    ("search", "global"): ("ok", "ok", "ok"),
    ("search", "other"): ("no", "no", "ok"),
    # what an agent reads first is its own and the global memory, whatever it was granted
    # (a grant is for asking: `search` with the other's scope)
    ("context", "own"): ("ok", "ok", "ok"),
    ("context", "global"): ("ok", "ok", "ok"),
    ("context", "other"): ("none", "none", "none"),
    ("list_entities", "own"): ("ok", "ok", "ok"),
    ("list_entities", "global"): ("ok", "ok", "ok"),
    ("list_entities", "other"): ("no", "no", "ok"),
    ("memory_query get", "own"): ("ok", "ok", "ok"),
    ("memory_query get", "global"): ("ok", "ok", "ok"),
    ("memory_query get", "other"): ("none", "none", "ok"),
    ("add_fact", "own"): ("ok", "ok", "ok"),
    ("add_fact", "global"): ("no", "ok", "no"),
    ("add_fact", "other"): ("no", "no", "no"),
    ("supersede_fact", "own"): ("ok", "ok", "ok"),
    ("supersede_fact", "global"): ("no", "ok", "no"),
    ("supersede_fact", "other"): ("no", "no", "no"),
    ("memory_upsert touch", "own"): ("ok", "ok", "ok"),
    ("memory_upsert touch", "global"): ("ok", "ok", "ok"),
    ("memory_upsert touch", "other"): ("no", "no", "ok"),
    ("memory_upsert update", "own"): ("ok", "ok", "ok"),
    ("memory_upsert update", "global"): ("no", "ok", "no"),
    ("memory_upsert update", "other"): ("no", "no", "no"),
    ("memory_upsert archive", "own"): ("ok", "ok", "ok"),
    ("memory_upsert archive", "global"): ("no", "ok", "no"),
    ("memory_upsert archive", "other"): ("no", "no", "no"),
}
WHO = ("finance", "household", "manager")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("matrix") / "v"
    v = Vault.create(root, actor="jane")
    for agent in AGENTS:
        v.create_agent(agent)
        v.add_fact(f"agent:{agent}:areas/notes", f"{agent} keeps notes", "context", create=True)
    v.add_fact("agent:security:areas/house", "The garage door code is 4417", "context", create=True)
    v.add_fact("areas/family", "The family code word is pumpkin", "context", create=True)
    settings = config.VaultConfig.load(root)
    settings.agents.global_writers = ["household"]
    settings.agents.grants = {"manager": config.AgentGrant(read=["*"])}
    settings.save(v.storage)
    return root


def numbers(root: Path, agent: str) -> dict[str, int]:
    person = Vault(root, actor="jane")
    ids = {
        kind: person.entity(address.format(agent=agent)).facts[0].id
        for kind, address in ENTITY.items()
    }
    return {kind: numeric_ids.fact_number(fact_id) for kind, fact_id in ids.items()}


def outcome(result: CallToolResult, shows: str | None = None) -> str:
    """ok, no or none (see TABLE); `shows`: the context's cell is whether its text holds
    this fact."""
    if result.is_error:
        return "no"
    text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = result.structured_content
    if shows is not None:
        return "ok" if shows in data["text"] else "none"
    if data == []:
        return "none"
    if isinstance(data, dict) and (data.get("updated") is False or ("status" in data
                                   and data["status"] not in ("applied",))):  # fmt: skip
        return "no"
    return "ok"


def answer(
    root: Path, agent: str, name: str, args: dict[str, Any], shows: str | None = None
) -> str:
    """The outcome of one call by `agent`, on a server of its own over `root`."""
    runtime = VaultWorkspace(root, semantic=False)
    runtime.start()
    try:

        async def run() -> CallToolResult:
            async with Client(build_server(runtime, lambda ctx: agent)) as client:
                return await client.call_tool(name, args)

        return outcome(anyio.run(run), shows)
    finally:
        runtime.close()


def test_every_tool_on_every_kind_of_target_answers_as_the_table_says(
    base: Path, tmp_path: Path
) -> None:
    """Each cell on a fresh copy of the vault, so that no cell's write changes another's."""
    import shutil

    differ = []
    cell = 0
    for (tool, kind), expected in TABLE.items():
        for agent, wanted in zip(WHO, expected, strict=True):
            cell += 1
            root = tmp_path / f"cell-{cell}"
            shutil.copytree(base, root)
            name, args = CALLS[tool](kind, numbers(root, agent), agent)
            shows = TEXT[kind].format(agent=agent) if tool == "context" else None
            got = answer(root, agent, name, args, shows)
            if got != wanted:
                differ.append(f"{agent} {tool} on {kind}: {got}, the table says {wanted}")
    assert not differ, "\n".join(differ)
    assert set(TABLE) == {(tool, kind) for tool in CALLS for kind in ENTITY}  # every cell
