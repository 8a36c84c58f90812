"""`list_entities`: the entities the agent can read, a page at a time."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.mcp import answers, calls, params
from vault_app.mcp.tools import tool


@tool(
    """List the entities you can read (global and your workspace), a page at a
time. scope: global, mine or all (default); para: projects, areas, resources or archives.
Example: {"scope": "mine", "para": "projects", "limit": 50}"""
)
def list_entities(
    ctx: Context,
    scope: str | None = None,
    para: params.Para | None = None,
    offset: params.Page = 0,
    limit: Annotated[int, Field(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    allowed = runtime.scope_for(agent, scope)
    assert allowed is not None  # an agent's: the scopes it reads
    scopes = {allowed} if isinstance(allowed, str) else set(allowed)
    rows = [
        r
        for r in runtime.reader.list_entities().entities
        if r.scope in scopes and (para is None or r.path.split("/", 1)[0] == para)
    ]
    return {
        **answers.page(len(rows), offset, limit),
        "entities": [
            {"entity": r.address, "scope": r.scope, "hasSummary": r.has_summary}
            for r in rows[offset : offset + limit]
        ],
    }
