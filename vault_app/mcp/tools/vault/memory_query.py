"""`memory_query`: MicroClaw's structured-memory read: list, context, search, get.

The contract, exactly as MicroClaw calls it, is described in `vault_app.mcp.microclaw`.
A synchronous tool: the SDK runs it in a worker thread, as the others.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from vault_app.mcp import calls, microclaw
from vault_app.mcp.tools import tool


@tool(
    """MicroClaw's structured-memory read (one tool, four ops).
op "list" {chat_id|null}: every memory of the chat (archived ones flagged is_archived).
op "context" {chat_id, limit}: the chat's active memories for a prompt, hot first.
op "search" {chat_id, query, limit, include_archived, broad_recall}: ranked search.
op "get" {id}: one memory as a one-item list, [] when none.
Answers a JSON array of {id, content, category: PROFILE|KNOWLEDGE|EVENT, chat_id,
created_at, updated_at, last_seen_at, confidence, source, is_archived, archived_at}.
Example: {"op": "search", "chat_id": 42, "query": "allergies", "limit": 5}"""
)
def memory_query(
    op: str,
    ctx: Context,
    chat_id: int | None = None,
    query: str | None = None,
    limit: int | None = None,
    include_archived: bool = False,
    broad_recall: bool = False,
    id: int | None = None,
) -> CallToolResult:
    payload = {
        "op": op,
        "chat_id": chat_id,
        "query": query,
        "limit": limit,
        "include_archived": include_archived,
        "broad_recall": broad_recall,
        "id": id,
    }
    return microclaw.answer(microclaw.MicroClawMemory(*calls.on_vault(ctx)).query(payload))
