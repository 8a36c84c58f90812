"""`recent_activity`: the audit log's recent lines, as far as the agent may see them."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from vault_app.core import activity
from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.workspace import arguments


@tool(
    """Recent changes to the vault from its audit log, newest first: yours by
default, everyone's with everyone=true; since (ISO time) and action (e.g. "fact.add")
narrow it.
Example: {"limit": 20, "action": "fact.add"}"""
)
def recent_activity(
    ctx: Context,
    limit: Annotated[int, Field(ge=1, le=500)] = 20,
    since: str | None = None,
    action: str | None = None,
    everyone: bool = False,
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    rows = activity.recent(
        runtime.root,
        limit=limit,
        agent=None if everyone else agent,
        since=arguments.optional_moment(since, "since"),
        action=action,
        keep=activity.visible_to(
            agent, runtime.vault_for(agent).reads_scope
        ),  # others' private writes
    )
    return {"entries": rows}
