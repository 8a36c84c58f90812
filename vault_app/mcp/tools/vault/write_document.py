"""`write_document`: one of the agent's documents replaced, guarded by its hash."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.mcp import calls
from vault_app.mcp.tools import tool


@tool(
    """Replace one of your documents (TACIT.md, CONTEXT.md, SOUL.md, MEMORY.md,
USER.md) with new text. expected_sha256 is the sha256 read_document gave (null: the file
must not exist yet; "*": overwrite whatever is there). A changed file is refused: read
it again and merge. global AGENTS.md is read-only.
Example: {"name": "CONTEXT.md", "text": "# Context\\n...", "expected_sha256": "3f2a..."}"""
)
def write_document(
    ctx: Context,
    name: Literal["TACIT.md", "CONTEXT.md", "SOUL.md", "MEMORY.md", "USER.md"],
    text: str,
    expected_sha256: str | None = None,
) -> dict[str, Any]:
    fields = {"name": name, "text": text, "expected_sha256": expected_sha256}
    return calls.vault_write(ctx, "write_document", fields)[1]
