"""`tiers_read` over a MicroClaw runtime: the persona's tiered MEMORY.md."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.mcp.tools.vault import tiers_read as vault_tiers_read


@tool(vault_tiers_read.DESCRIPTION)
def tiers_read(ctx: Context, tier: Literal[1, 2, 3] | None = None) -> dict[str, Any]:
    runtime, agent = calls.on_folder(ctx)
    answer = runtime.reader.read_tiers(agent).to_dict(runtime.root, tier)
    answer.pop("path", None)
    return answer
