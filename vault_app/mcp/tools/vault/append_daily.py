"""`append_daily`: an entry in today's daily note, the agent's or the global one."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.workspace import arguments


@tool(
    """Append an entry to today's daily note: yours (scope "agent", default) or
the global one ("global", if the vault allows you). For events, decisions, what happened.
Example: {"text": "Booked the plumber for Thursday 9:00."}"""
)
def append_daily(
    ctx: Context,
    text: str,
    scope: Literal["agent", "global"] = "agent",
    timestamp: str | None = None,
) -> dict[str, Any]:
    target, answer = calls.vault_write(
        ctx, "append_daily", {"text": text, "scope": scope}, timestamp
    )
    if target is not None:
        entry = answer["entry"]
        calls.on_vault(ctx)[0].after_daily(arguments.day(entry["date"]), entry["agent"])
    return answer
