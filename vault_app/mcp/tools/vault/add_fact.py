"""`add_fact`: one durable fact on an entity, through the agent-write path."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.core import layout
from vault_app.mcp import answers, calls, params
from vault_app.mcp.tools import tool


@tool(
    """Record one durable fact on an entity (created if missing). Write to your
workspace ("agent:<you>:projects/x") or, if the vault allows you, a global entity
("areas/people/jane"). One atomic statement per fact; category is relationship, milestone,
status, preference or context. timestamp (ISO) backdates a fact learned earlier.
Example: {"entity": "areas/people/jane", "text": "Jane prefers tea",
 "category": "preference"}"""
)
def add_fact(
    ctx: Context,
    entity: str,
    text: str,
    category: params.Category,
    related: list[str] | None = None,
    source: str | None = None,
    confidence: float | None = None,
    timestamp: str | None = None,
) -> dict[str, Any]:
    fields = {
        "entity": entity,
        "text": text,
        "category": category,
        "related": related,
        "source": source,
        "confidence": confidence,
    }
    target, answer = calls.vault_write(ctx, "add_fact", fields, timestamp)
    if target is not None:  # the agent's next search finds it
        calls.on_vault(ctx)[0].after_write([layout.as_ref(entity)])
    return answers.with_numbers(answer)
