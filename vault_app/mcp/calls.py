"""A tool call's workspace and agent: the server that carries them, and how a tool
reaches them from its `ctx`.

`ToolServer` is the SDK's `MCPServer` holding the workspace it serves (a vault's
`VaultWorkspace` or a neighbour's `FolderWorkspace`) and `agent_of`, which names the
calling agent of a request (stdio: the fixed `--agent`; HTTP: the agent whose token the
request carries). A tool asks `on_vault(ctx)` or `on_folder(ctx)` for both, the agent
checked as known (an unknown one is refused with the reason), and submits its writes
with `vault_write` or `folder_write`: the one path of agent writes of each kind of
workspace (permission, validation, injection scan, review queue, audit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer

from vault_app.core import agent_writes, vault
from vault_app.mcp import answers
from vault_app.workspace import vault_workspace

if TYPE_CHECKING:  # a vault's server never imports the folder's modules (the handshake)
    from vault_app.workspace import folder_workspace


class ToolServer(MCPServer):
    """An MCP server over one workspace, for the agents `agent_of` tells apart."""

    def __init__(
        self,
        workspace: vault_workspace.VaultWorkspace | folder_workspace.FolderWorkspace,
        agent_of: answers.AgentOf,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.workspace = workspace
        self.agent_of = agent_of


def _server(ctx: Context) -> ToolServer:
    server = ctx.mcp_server
    assert isinstance(server, ToolServer), "vault-app's tools run on a ToolServer"
    return server


def on_vault(ctx: Context) -> tuple[vault_workspace.VaultWorkspace, str]:
    """The vault this call is on and the calling agent (known to the vault)."""
    server = _server(ctx)
    runtime = server.workspace
    assert isinstance(runtime, vault_workspace.VaultWorkspace)
    agent = server.agent_of(ctx)
    runtime.vault_for(agent)  # an unknown agent is refused with the reason
    return runtime, agent


def on_folder(ctx: Context) -> tuple[folder_workspace.FolderWorkspace, str]:
    """The neighbour's folder this call is on and the calling agent (known to it)."""
    server = _server(ctx)
    runtime = server.workspace
    assert not isinstance(runtime, vault_workspace.VaultWorkspace)
    return runtime, runtime.agent(server.agent_of(ctx))


def vault_write(
    ctx: Context, kind: agent_writes.Kind, params: dict[str, Any], at: str | None = None
) -> tuple[vault.Vault | None, dict[str, Any]]:
    """Submit one write to the vault as the calling agent: (its vault when the write was
    applied, None when it waits for review; the answer)."""
    runtime, agent = on_vault(ctx)
    target = runtime.vault_for(agent)
    outcome = agent_writes.submit(target, answers.agent_write(kind, agent, params, at))
    held = isinstance(outcome, agent_writes.Pending)
    return (None if held else target), answers.write_answer(outcome)


def folder_write(
    ctx: Context, kind: agent_writes.Kind, params: dict[str, Any], at: str | None = None
) -> dict[str, Any]:
    """Submit one write to the folder as the calling agent, in the folder's format."""
    from vault_app.core.neighbours import agents as neighbour_agents

    runtime, agent = on_folder(ctx)
    write = answers.agent_write(kind, agent, params, at)
    answer = answers.write_answer(neighbour_agents.submit(runtime.folder_for(agent), write))
    answer.pop("path", None)  # the server's files are not the agent's business
    return answer
