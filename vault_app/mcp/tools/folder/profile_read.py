"""`profile_read` over a PicoClaw workspace: its profile.json of the user."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.mcp.tools.vault import profile_read as vault_profile_read


@tool(vault_profile_read.DESCRIPTION)
def profile_read(ctx: Context, key: str | None = None) -> dict[str, Any]:
    runtime, agent = calls.on_folder(ctx)
    return vault_profile_read.answer(runtime.reader.read_profile(agent).values, key)
