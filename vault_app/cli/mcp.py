"""`mcp`: serve the vault to one agent over stdio, the MCP transport an agent framework
starts as a child process (`vault-app mcp --agent finance`).

This command owns its process: it opts in to the bulk-load tuning (`memory.tune_process`),
sends logging to stderr, and keeps stdout for the protocol alone: the protocol gets a
private copy of file descriptor 1, and descriptor 1 itself then points at stderr, so a
stray print or a native library's message cannot corrupt the stream. The search index
opens in the background (`Runtime.start`), started once the client has the handshake's
answer: the handshake waits for the interpreter, the CLI and the MCP SDK's imports only
(figures: benchmarks/bench_mcp_handshake.py).

In a neighbour's folder (a Hermes home, a PicoClaw workspace, a MicroClaw runtime) it
serves the folder as it is (`mcp.folder_runtime`, `mcp.folder_tools`): `--agent` may be
left out where the folder holds one agent; a MicroClaw persona is `--agent=CHAT/PERSONA`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from vault_app.cli import _common


def register(commands: _common.Commands) -> None:
    p = commands.command("mcp", cmd_mcp, "serve the vault to an agent over MCP (stdio)")
    p.add_argument(
        "--agent",
        metavar="ID",
        help="the agent the client is (required unless the vault has exactly one agent)",
    )
    p.add_argument("--bm25", action="store_true", help="do not load the semantic model")


def _agent(args: argparse.Namespace, known: list[str], foreign: str | None = None) -> str:
    """The agent `--agent` names, or the only one; `foreign`: the neighbour's folder kind."""
    if args.agent is None:
        if len(known) == 1:
            return known[0]
        raise _common.UsageError(
            f"give --agent ID: the agent this client is (agents: {', '.join(known) or 'none'})"
        )
    if args.agent not in known:
        create = (
            f"create it with `vault-app agent create {args.agent}`"
            if foreign is None
            else f"a {foreign}'s agents are its owner's to make"
        )
        raise _common.UsageError(
            f"no agent {args.agent!r} in this {foreign or 'vault'} "
            f"(agents: {', '.join(known) or 'none'}); {create}"
        )
    return args.agent


def _protocol_stdout() -> None:
    """Give the protocol its own copy of stdout; point descriptor 1 at stderr."""
    sys.stdout.flush()
    private = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = open(private, "w", encoding="utf-8", newline="\n")  # noqa: SIM115


def cmd_mcp(args: argparse.Namespace) -> int:
    from vault_app import workspace
    from vault_app.core import memory
    from vault_app.mcp import server
    from vault_app.watch import quiet
    from vault_app.workspace import folder_workspace

    served = workspace.open_workspace(
        _common.resolve_vault_path(args.vault),
        semantic=False if args.bm25 else None,
        clock=_common.clock_of(args),
    )
    if isinstance(served, folder_workspace.FolderWorkspace):  # a neighbour's, as it is
        agent = _agent(args, served.reader.agents(), foreign=served.reader.name)
    else:
        agent = _agent(args, served.reader.paths.agent_ids())
        served.vault_for(agent)
    if getattr(args, "owns_process", False):
        memory.tune_process()
        logging.basicConfig(
            stream=sys.stderr, level=logging.WARNING, format="vault-app mcp: %(message)s"
        )
        _protocol_stdout()
        quiet.quiet_benign_warnings()  # the runtime's watcher; the process is ours
    built = server.build_server(served, lambda ctx: agent)
    server.start_index_after_handshake(built, served)
    try:
        built.run("stdio")
    finally:
        served.close()
    if getattr(args, "owns_process", False):
        _common.end_server_process(0)
    return 0
