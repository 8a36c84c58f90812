"""`search` over a neighbour's folder: its entries, each hit naming where it is."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.mcp import calls, params
from vault_app.mcp.tools import tool
from vault_app.workspace import arguments


@tool(
    """Search your memory in this {folder}: its entries, each hit with its
origin (file, structure, place). Hybrid (BM25 + semantic) by default; while the semantic model
loads, or when it is off, results come from BM25 and `notice` says so.
kinds: facts (atomic entries: § notes, tier items, profile keys), summaries (long-form
blocks, principles), daily (daily-note paragraphs).
Example: {"query": "trip to Porto", "limit": 5}"""
)
def search(
    ctx: Context,
    query: str,
    mode: params.Mode = "hybrid",
    kinds: list[params.Kind] | None = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
) -> dict[str, Any]:
    runtime, agent = calls.on_folder(ctx)
    filters = arguments.search_filters(kinds=kinds)
    answer = runtime.search(query, mode=mode, limit=limit, filters=filters, agent=agent)
    return answer.agent_json()
