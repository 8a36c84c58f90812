"""`tiers_write` over a MicroClaw runtime: one tier of the persona's MEMORY.md."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.mcp.tools.vault import tiers_write as vault_tiers_write


@tool(vault_tiers_write.DESCRIPTION)
def tiers_write(ctx: Context, tier: Literal[1, 2, 3], content: str) -> dict[str, Any]:
    return calls.folder_write(ctx, "tiers_write", {"tier": tier, "text": content})
