"""`record_interaction`: one conversation turn in the agent's daily note."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.workspace import arguments


@tool(
    """Record one conversation turn in your daily note (role: user, assistant, ...;
optional speaker name and chat_id), for later reflection.
Example: {"role": "user", "speaker": "Jane", "text": "Remind me about the boiler",
 "chat_id": 42}"""
)
def record_interaction(
    ctx: Context,
    role: str,
    text: str,
    speaker: str | None = None,
    chat_id: int | None = None,
    timestamp: str | None = None,
) -> dict[str, Any]:
    fields = {"role": role, "text": text, "speaker": speaker, "chat_id": chat_id}
    target, answer = calls.vault_write(ctx, "record_interaction", fields, timestamp)
    if target is not None:
        entry = answer["entry"]
        calls.on_vault(ctx)[0].after_daily(arguments.day(entry["date"]), entry["agent"])
    return answer
