"""`context`: the memory block for the agent's prompt, within a budget."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.mcp import answers, calls
from vault_app.mcp.tools import tool


@tool(
    """The memory block for your prompt, within a character budget, in layers:
principles (global/AGENTS.md), the user profile (your USER.md and profile.json), what your
notes told of the user (the facts of Me, areas/me: your own and the global one), your notes
(memories/MEMORY.md), your tiered MEMORY.md, your TACIT.md, relevant entity summaries, hot
and warm facts first, and daily notes when the query names a time ("last week", "in
March"). Each block is headed with its meter; "(+N omitted)" says what did not fit. Facts
included count as accessed unless mark_access is false.
Example: {"query": "what did we decide about the kitchen last week", "budget": 3000}"""
)
def context(
    ctx: Context,
    query: str | None = None,
    budget: Annotated[int, Field(ge=200, le=100_000)] = 4000,
    mark_access: bool = True,
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    built = runtime.context(agent, query, budget=budget, mark_access=mark_access)
    return answers.context_answer(built, budget, runtime.search_state, len(built.marked))
