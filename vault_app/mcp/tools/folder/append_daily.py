"""`append_daily` over a PicoClaw workspace or a MicroClaw runtime: one paragraph."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool


@tool(
    """Append a paragraph to your daily note (today's, or the day of timestamp,
an ISO date), in this folder's own format.
Example: {"text": "Booked the train to Porto for Friday."}"""
)
def append_daily(ctx: Context, text: str, timestamp: str | None = None) -> dict[str, Any]:
    return calls.folder_write(ctx, "append_daily", {"text": text}, timestamp)
