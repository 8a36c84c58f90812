"""`read_document`: one of the agent's documents, or the vault's principles."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context

from vault_app.core import injection
from vault_app.mcp import calls
from vault_app.mcp.tools import tool


@tool(
    """Read a document: your TACIT.md (how the user operates), CONTEXT.md,
SOUL.md, MEMORY.md or USER.md, or the vault's principles, AGENTS.md (global, read-only).
sha256 is what write_document's expected_sha256 takes (null when the file does not exist).
Example: {"name": "TACIT.md"}"""
)
def read_document(
    ctx: Context,
    name: Literal["TACIT.md", "CONTEXT.md", "SOUL.md", "MEMORY.md", "USER.md", "AGENTS.md"],
) -> dict[str, Any]:
    runtime, agent = calls.on_vault(ctx)
    owner = None if name == "AGENTS.md" else agent
    doc = runtime.reader.document(name, owner)
    if doc.error is not None:
        raise doc.error
    return {
        "name": name,
        "scope": "global" if owner is None else f"agent:{agent}",
        "exists": doc.exists,
        "text": injection.shown_to_agents(doc.text) if doc.text is not None else None,
        "sha256": doc.digest,
    }
