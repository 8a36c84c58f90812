"""`read_daily` over a PicoClaw workspace or a MicroClaw runtime: a paragraph an entry."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from vault_app.core import injection
from vault_app.core.neighbours import entries as neighbour_entries
from vault_app.mcp import calls, params
from vault_app.mcp.tools import tool


@tool(
    """Your daily notes of a date range (ISO dates; default today only, at most
366 days), one entry a paragraph.
Example: {"since": "2026-11-01", "until": "2026-11-07"}"""
)
def read_daily(ctx: Context, since: str | None = None, until: str | None = None) -> dict[str, Any]:
    runtime, agent = calls.on_folder(ctx)
    folder = runtime.reader
    first, last = params.days(since, until, folder.today())
    days = []
    for day in folder.daily_dates(agent):
        if first <= day <= last:
            text = neighbour_entries.untitled(folder.daily_note(agent, day).text or "", day)
            entries = [
                {"time": None, "text": injection.shown_to_agents(p)}
                for p in neighbour_entries.paragraphs(text)
            ]
            days.append({"date": day.isoformat(), "entries": entries})
    return {"scope": "mine", "since": first.isoformat(), "until": last.isoformat(), "days": days}
