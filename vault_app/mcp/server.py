"""The MCP server object: `build_server(runtime, agent_of)` registers every tool group.

Faces are thin: each tool, one module each in `tools/vault/` (reads, writes through
`core.agent_writes`, the agent's own notes, tiers and profile, MicroClaw's contract),
adapts its arguments to one workspace, core or search call. Over a neighbour's folder (a
`folder_workspace.FolderWorkspace`) the server carries `tools/folder/` instead: the
tools its format keeps, same names and answers. The server is a `calls.ToolServer`: it
holds the workspace and `agent_of`, which each tool reaches through its `ctx`. Here: the
server's identity and instructions; `answers.tool_errors` turns a vault error into a
tool error the model can read (the SDK hides the text of any other exception from the
client, as it should for a crash).

`build_server` is a library call: it leaves the process's logging as it found it (the
SDK's constructor calls `logging.basicConfig`); the process owner (`vault-app mcp`,
`vault-app serve`) configures logging to stderr.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any, TypeGuard

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from vault_app import __version__
from vault_app.mcp import answers, calls, tools
from vault_app.workspace import vault_workspace

if TYPE_CHECKING:  # a vault's server never imports the folder's modules (the handshake)
    from vault_app.workspace import folder_workspace

AgentOf = answers.AgentOf

INSTRUCTIONS = """\
vault-app: your long-term memory, a PARA vault (projects, areas, resources, archives) of
entities holding atomic facts. You read global memory and your own workspace; you write
your own workspace, daily notes and documents (global entities only if the vault allows
you). Nothing is ever deleted: a changed fact is superseded, its history kept.
Start with `context` (what your prompt should carry) or `search`; open an entity with
`get_entity`. Record durable facts with `add_fact`, corrections with `supersede_fact`,
the day's events with `append_daily`; keep your curated notes and what you know of
the user with `memory`. A write may answer {"status": "pending_review"}:
a person will review it; do not retry it."""


def build_server(
    runtime: vault_workspace.VaultWorkspace | folder_workspace.FolderWorkspace, agent_of: AgentOf
) -> MCPServer:
    """The MCP server (name "vault-app"): over a vault, every vault tool; over a
    neighbour's folder (a `FolderWorkspace`), the tools its format keeps."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    if serves_a_folder(runtime):
        from vault_app.mcp.tools import folder

        instructions, chosen = folder.instructions(runtime.format), folder.tools(runtime.format)
    else:
        from vault_app.mcp.tools import vault

        instructions, chosen = INSTRUCTIONS, vault.tools()
    try:
        server = calls.ToolServer(
            runtime, agent_of, name="vault-app", version=__version__, instructions=instructions
        )
    finally:  # the SDK configures the root logger; that is the process owner's to do
        root.handlers[:] = handlers
        root.setLevel(level)
    tools.add(server, chosen)
    return server


def serves_a_folder(runtime: object) -> TypeGuard[folder_workspace.FolderWorkspace]:
    """Whether `runtime` serves a neighbour's folder (a `folder_workspace.FolderWorkspace`),
    asked without importing that module: an instance of it means it is imported, and a
    vault's server starts without it (its imports are on the handshake's path)."""
    module = sys.modules.get("vault_app.workspace.folder_workspace")
    return module is not None and isinstance(runtime, module.FolderWorkspace)


def start_index_after_handshake(
    built: MCPServer, runtime: vault_workspace.VaultWorkspace | folder_workspace.FolderWorkspace
) -> None:
    """Open the index once a client has the handshake's answer (its `initialized`
    notification): the load's imports and walk hold the interpreter most of the time,
    and the server's own start (its imports, the transport's threads) waits for it at
    every hand-over, 2 s on a 10,000-entity vault. A search before that opens it itself."""

    async def start_index(
        ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "notifications/initialized":
            runtime.start()
        return result

    built.middleware.append(start_index)
