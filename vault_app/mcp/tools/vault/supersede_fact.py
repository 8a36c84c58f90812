"""`supersede_fact`: a new version of a fact; the old one kept, marked superseded."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import answers, calls, params
from vault_app.mcp.tools import tool


@tool(
    """Replace a fact that changed or was wrong: the old version stays, marked
superseded, linked to the new one (see fact_history). Give the fact's id or its numeric
id (number); category and the rest default to the old fact's.
Example: {"fact_id": "fact-9a2b2b50acb149d1b53aa43aeea6046f",
 "text": "Jane now drinks coffee", "reason": "she said so today"}"""
)
def supersede_fact(
    ctx: Context,
    text: str,
    fact_id: str | None = None,
    number: int | None = None,
    category: params.Category | None = None,
    related: list[str] | None = None,
    source: str | None = None,
    confidence: float | None = None,
    reason: str | None = None,
    timestamp: str | None = None,
) -> dict[str, Any]:
    runtime, _ = calls.on_vault(ctx)
    fid = params.fact_id(runtime, fact_id, number)
    fields = {
        "fact_id": fid,
        "text": text,
        "category": category,
        "related": related,
        "source": source,
        "confidence": confidence,
        "reason": reason,
    }
    target, answer = calls.vault_write(ctx, "supersede_fact", fields, timestamp)
    if target is not None:
        runtime.after_write(set(target.locate([fid, answer["fact"]["id"]]).values()))
    return answers.with_numbers(answer)
