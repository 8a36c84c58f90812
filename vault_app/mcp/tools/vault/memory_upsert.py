"""`memory_upsert`: MicroClaw's structured-memory write: insert, update, supersede, archive, touch.

The contract, exactly as MicroClaw calls it, is described in `vault_app.mcp.microclaw`.
A synchronous tool: the SDK runs it in a worker thread, as the others.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from vault_app.mcp import calls, microclaw
from vault_app.mcp.tools import tool


@tool(
    """MicroClaw's structured-memory write (one tool, five ops); nothing deleted.
op "insert" {chat_id, content, category, source, confidence} -> {"id": n}
op "update" {id, content, category, source, confidence} -> {"updated": true} (same id)
op "supersede" {from_memory_id, content, category, source, confidence, reason} -> {"id": n}
op "archive" {id} -> {"updated": true} (inactive, kept; a person can restore it)
op "touch" {id, confidence_floor} -> {"updated": true}
A text the injection scan flags waits for a person's review:
{"status": "pending_review", "review_id": ...}.
Example: {"op": "insert", "chat_id": 42, "content": "Sam is allergic to peanuts",
"category": "PROFILE"}"""
)
def memory_upsert(
    op: str,
    ctx: Context,
    id: int | None = None,
    from_memory_id: int | None = None,
    chat_id: int | None = None,
    content: str | None = None,
    category: str | None = None,
    source: str | None = None,
    confidence: float | None = None,
    reason: str | None = None,
    confidence_floor: float | None = None,
) -> CallToolResult:
    payload = {
        "op": op,
        "id": id,
        "from_memory_id": from_memory_id,
        "chat_id": chat_id,
        "content": content,
        "category": category,
        "source": source,
        "confidence": confidence,
        "reason": reason,
        "confidence_floor": confidence_floor,
    }
    return microclaw.answer(microclaw.MicroClawMemory(*calls.on_vault(ctx)).upsert(payload))
