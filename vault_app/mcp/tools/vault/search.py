"""`search`: the agent's search over the vault, within what it may read."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.mcp import calls, params
from vault_app.mcp.tools import tool
from vault_app.workspace import arguments


@tool(
    """Search your memory: facts, entity summaries and daily-note entries.
Hybrid (BM25 + semantic) by default; while the semantic model loads, or when it is off,
results come from BM25 and `notice` says so. Searches global memory and your workspace.
Filters: kinds (facts, summaries, daily), scope (global, mine, all), para, tiers,
status (active by default; superseded or any for history), categories, author (a fact's
agentId), since/until (ISO dates) on date_field. Facts found count as accessed unless
mark_access is false.
Example: {"query": "vanity delivery", "kinds": ["facts"], "tiers": ["hot", "warm"], "limit": 5}"""
)
def search(
    ctx: Context,
    query: str,
    mode: params.Mode = "hybrid",
    kinds: list[params.Kind] | None = None,
    scope: str | None = None,
    para: params.Para | None = None,
    tiers: list[params.Tier] | None = None,
    status: params.Status = "active",
    categories: list[str] | None = None,
    author: str | None = None,
    since: str | None = None,
    until: str | None = None,
    date_field: Literal["timestamp", "lastAccessed"] = "timestamp",
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    mark_access: bool = True,
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    filters = arguments.search_filters(
        kinds=kinds,
        scope=runtime.scope_for(agent, scope),
        para=para,
        tiers=tiers,
        status=status,
        categories=categories,
        author=author,
        since=since,
        until=until,
        date_field=date_field,
    )
    answer = runtime.search(
        query, mode=mode, limit=limit, filters=filters, agent=agent, mark_access=mark_access
    )
    return answer.agent_json()
