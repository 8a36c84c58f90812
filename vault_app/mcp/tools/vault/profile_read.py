"""`profile_read`: the agent's key–value profile of the user (PicoClaw's profile.json)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool

DESCRIPTION = """Read your key–value profile of the user (profile.json): every key,
or one.
Example: {"key": "timezone"}"""


def answer(values: dict[str, str], key: str | None) -> dict[str, Any]:
    """The answer for a profile's `values`: all of them, or the one `key`."""
    if key is None:
        return {"profile": values}
    return {"key": key, "value": values.get(key), "exists": key in values}


@tool(DESCRIPTION)
def profile_read(ctx: Context, key: str | None = None) -> dict[str, Any]:
    from vault_app.core import agent_memory

    runtime, agent = calls.on_vault(ctx)
    return answer(agent_memory.read_profile(runtime.vault_for(agent), agent).values, key)
