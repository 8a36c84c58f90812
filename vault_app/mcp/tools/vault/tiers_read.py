"""`tiers_read`: the agent's tiered MEMORY.md (MicroClaw's), one tier or all three."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool

DESCRIPTION = """Read your tiered MEMORY.md: tier 1 (long term, principles-like), 2 (mid
term: active projects), 3 (short term: recent focus). Without tier, all three.
Example: {"tier": 2}"""


@tool(DESCRIPTION)
def tiers_read(ctx: Context, tier: Literal[1, 2, 3] | None = None) -> dict[str, Any]:
    from vault_app.core import agent_memory

    runtime, agent = calls.on_vault(ctx)
    v = runtime.vault_for(agent)
    answer = agent_memory.read_tiers(v, agent).to_dict(v.root, tier)
    answer.pop("path", None)  # the server's files are not the agent's business
    return answer
