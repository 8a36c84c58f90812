"""`fact_history`: every version of one fact, oldest first."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import answers, calls, params
from vault_app.mcp.tools import tool


@tool(
    """A fact's whole history, oldest first: every version it superseded or was
superseded by. Give the fact's id (uuid) or its numeric id (number).
Example: {"fact_id": "0b6e5c8e-4c1a-4f7e-9a51-2f0f3f0b7d11"}"""
)
def fact_history(
    ctx: Context, fact_id: str | None = None, number: int | None = None
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    fid = params.fact_id(runtime, fact_id, number)
    lineage = runtime.reader.fact_history(fid)
    for ref in {ref for ref, _ in lineage}:
        runtime.vault_for(agent).check_read(ref)
    return {"fact_id": fid, "versions": [answers.fact_view(f, ref) for ref, f in lineage]}
