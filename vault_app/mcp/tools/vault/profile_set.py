"""`profile_set`: one key of the agent's profile of the user set."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool

DESCRIPTION = """Set one key of your key–value profile of the user (a string value).
Example: {"key": "timezone", "value": "Europe/Paris"}"""


@tool(DESCRIPTION)
def profile_set(ctx: Context, key: str, value: str) -> dict[str, Any]:
    answer = calls.vault_write(ctx, "profile_set", {"key": key, "value": value})[1]
    answer.pop("path", None)
    return answer
