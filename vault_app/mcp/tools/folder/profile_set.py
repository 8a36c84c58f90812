"""`profile_set` over a PicoClaw workspace: one key of its profile.json."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.mcp.tools.vault import profile_set as vault_profile_set


@tool(vault_profile_set.DESCRIPTION)
def profile_set(ctx: Context, key: str, value: str) -> dict[str, Any]:
    return calls.folder_write(ctx, "profile_set", {"key": key, "value": value})
