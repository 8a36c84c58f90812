"""`read_daily`: the agent's (or the global) daily-note entries of a range of days."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.core import injection
from vault_app.mcp import calls, params
from vault_app.mcp.tools import tool


@tool(
    """Daily-note entries of a date range (ISO dates; default today only, at most
366 days), yours (scope "mine", default) or the global notes ("global").
Example: {"since": "2026-03-01", "until": "2026-03-07", "scope": "mine"}"""
)
def read_daily(
    ctx: Context,
    since: str | None = None,
    until: str | None = None,
    scope: Literal["mine", "global"] = "mine",
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    first, last = params.days(since, until, runtime.reader.now().astimezone().date())
    owner = agent if scope == "mine" else None
    days = []
    for day in runtime.reader.daily_dates(owner):
        if first <= day <= last:
            note = runtime.reader.daily_note(day, owner)
            entries = [
                {"time": e.time, "text": injection.shown_to_agents(e.text)} for e in note.entries
            ]
            days.append({"date": day.isoformat(), "entries": entries})
    return {"scope": scope, "since": first.isoformat(), "until": last.isoformat(), "days": days}
