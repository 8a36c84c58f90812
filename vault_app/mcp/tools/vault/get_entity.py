"""`get_entity`: one entity's summary and facts, a page at a time."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.core import injection, layout
from vault_app.mcp import answers, calls, params
from vault_app.mcp.tools import tool


@tool(
    f"""One entity: its summary and its facts, a page at a time (offset, limit;
next_offset is null on the last page). status: active (default), superseded or any.
fields keeps only those fact fields, e.g. ["id", "fact"] for a compact listing; one of
{", ".join(params.FACT_FIELDS)}. Entity addresses: "areas/people/jane" (global) or
"agent:<you>:projects/budget" (your workspace).
Example: {{"entity": "areas/people/jane", "fields": ["id", "fact"], "limit": 20}}"""
)
def get_entity(
    ctx: Context,
    entity: str,
    offset: params.Page = 0,
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
    status: params.Status = "active",
    fields: list[str] | None = None,
    include_summary: bool = True,
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    ref = layout.as_ref(entity)
    runtime.vault_for(agent).check_read(ref)
    wanted = params.fact_fields(fields)
    view = runtime.reader.entity(ref)
    if view.error is not None:
        raise view.error
    now = runtime.reader.now()
    shown = [f for f in view.facts if status == "any" or f.status.value == status]
    rows = []
    for fact in shown[offset : offset + limit]:
        tier = runtime.reader.tier(fact, now).value if fact.is_active else None
        data = answers.fact_view(fact, None, tier)
        rows.append({k: data.get(k) for k in wanted} if wanted else data)
    answer: dict[str, Any] = {"entity": str(ref), **answers.page(len(shown), offset, limit)}
    if include_summary:
        text = view.summary.text
        answer["summary"] = injection.shown_to_agents(text) if text else None
    answer["facts"] = rows
    return answer
