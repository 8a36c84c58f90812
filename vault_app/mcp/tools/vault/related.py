"""`related`: the entities linked to one, both ways, as far as the agent may read."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.core import access, layout
from vault_app.mcp import calls
from vault_app.mcp.tools import tool


@tool(
    """Entities linked to one by relatedEntities, both ways: outgoing (its
active facts name them) and incoming (their active facts name it).
Example: {"entity": "areas/people/jane"}"""
)
def related(ctx: Context, entity: str) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    ref = layout.as_ref(entity)
    own = runtime.vault_for(agent)
    own.check_read(ref)
    links = runtime.reader.related(ref)
    policy, who = access.Policy(own.config.agents), own.principal
    outgoing, incoming = (
        [a for a in links[way] if policy.can_read_address(who, a)]
        for way in ("outgoing", "incoming")
    )
    return {"entity": str(ref), "outgoing": outgoing, "incoming": incoming}
