"""`tiers_write`: one tier of the agent's tiered MEMORY.md replaced."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool

DESCRIPTION = """Replace one tier of your tiered MEMORY.md (the other tiers are kept as
they are). Tier 1 only on an explicit ask or a long-term pattern; tier 3 often. No line may
start with "## " (use "### " for sub-headings).
Example: {"tier": 3, "content": "This week: moving house; tired."}"""


@tool(DESCRIPTION)
def tiers_write(ctx: Context, tier: Literal[1, 2, 3], content: str) -> dict[str, Any]:
    answer = calls.vault_write(ctx, "tiers_write", {"tier": tier, "text": content})[1]
    answer.pop("path", None)
    return answer
