"""`context` over a neighbour's folder: the layered memory block, as the folder keeps it."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.mcp import answers, calls
from vault_app.mcp.tools import tool


@tool(
    """The memory block for your prompt, within a character budget, in layers:
principles, the user profile, your notes, your tiered memory, long-term memory and daily
notes (those of the period when the query names one: "last week"), as this folder keeps
them. Each block is headed with its meter; "(+N omitted)" says what did not fit.
Example: {"query": "what did we plan for the trip last week", "budget": 3000}"""
)
def context(
    ctx: Context,
    query: str | None = None,
    budget: Annotated[int, Field(ge=200, le=100_000)] = 4000,
) -> dict[str, Any]:
    from vault_app.search import context as context_module

    runtime, agent = calls.on_folder(ctx)
    builder = context_module.ContextBuilder.over_folder(runtime.reader, for_agents=True)
    built = builder.build(agent, query, budget=budget, mark_access=False)
    return answers.context_answer(built, budget, runtime.search_state, 0)
