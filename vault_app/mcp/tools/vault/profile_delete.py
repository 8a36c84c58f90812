"""`profile_delete`: one key of the agent's profile of the user removed."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool

DESCRIPTION = """Remove one key of your key–value profile of the user.
Example: {"key": "timezone"}"""


@tool(DESCRIPTION)
def profile_delete(ctx: Context, key: str) -> dict[str, Any]:
    answer = calls.vault_write(ctx, "profile_delete", {"key": key})[1]
    answer.pop("path", None)
    return answer
