"""`memory` over a Hermes home: Hermes' own tool on its § notes, as in a vault."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool
from vault_app.mcp.tools.vault import memory as vault_memory


@tool(vault_memory.memory.description)
def memory(
    ctx: Context,
    action: Literal["add", "replace", "remove", "read"] | None = None,
    target: Literal["memory", "user"] = "memory",
    content: str | None = None,
    old_text: str | None = None,
    operations: list[vault_memory.MemoryOperation] | None = None,
) -> dict[str, Any]:
    runtime, agent = calls.on_folder(ctx)
    return vault_memory.memory_answer(
        runtime.root,
        lambda t: runtime.reader.read_notes(agent, t),
        lambda kind, fields: calls.folder_write(ctx, kind, fields),
        action,
        target,
        content,
        old_text,
        operations,
    )
