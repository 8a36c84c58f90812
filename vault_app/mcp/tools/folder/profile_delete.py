"""`profile_delete` over a PicoClaw workspace: one key of its profile.json removed."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.mcp.tools.vault import profile_delete as vault_profile_delete


@tool(vault_profile_delete.DESCRIPTION)
def profile_delete(ctx: Context, key: str) -> dict[str, Any]:
    return calls.folder_write(ctx, "profile_delete", {"key": key})
