"""`mcp`: serve the vault to one agent over stdio, the MCP transport an agent framework
starts as a child process (`vault-app mcp --agent finance`).

This command owns its process: it opts in to the bulk-load tuning (`process_tuning.tune_process`),
sends logging to stderr, and keeps stdout for the protocol alone: the protocol gets a
private copy of file descriptor 1, and descriptor 1 itself then points at stderr, so a
stray print or a native library's message cannot corrupt the stream. The search index
opens in the background (`Runtime.start`), started once the client has the handshake's
answer: the handshake waits for the interpreter, the CLI and the MCP SDK's imports only
(figures: benchmarks/bench_mcp_handshake.py).

In a neighbour's folder (a Hermes home, a PicoClaw workspace, a MicroClaw runtime) it
serves the folder as it is (`workspace.FolderWorkspace`, `mcp/tools/folder/`): `--agent`
may be left out where the folder holds one agent; a MicroClaw persona is
`--agent=CHAT/PERSONA`.

A server that cannot start (no vault at the path, an unknown agent) still answers its
client: the first request gets a JSON-RPC error carrying the reason (`_refuse`), which
an MCP client shows, instead of a closed connection with the reason on a stderr nobody
reads; the reason goes to stderr too, and the exit status is 1.

`mcp-config` prints the configuration an MCP client needs to start this server: the
absolute path of the installed command (an agent's client does not share the shell's
PATH), the vault and the agent, all checked first, so that what it prints works as
pasted.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from vault_app.cli import declaring, opening, output, process_end
from vault_app.core import errors


def register(commands: declaring.Commands) -> None:
    p = commands.command("mcp", cmd_mcp, "serve the vault to an agent over MCP (stdio)")
    p.add_argument(
        "--agent",
        metavar="ID",
        help="the agent the client is (required unless the vault has exactly one agent)",
    )
    p.add_argument("--bm25", action="store_true", help="do not load the semantic model")
    p = commands.command(
        "mcp-config",
        cmd_mcp_config,
        "print a working MCP client configuration (mcp.json) for an agent of this vault",
    )
    p.add_argument("--agent", metavar="ID", help="the agent (may be left out if there is one)")
    p.add_argument("--name", default="vault", help="the server's name in the client (vault)")


def _agent(args: argparse.Namespace, known: list[str], foreign: str | None = None) -> str:
    """The agent `--agent` names, or the only one; `foreign`: the neighbour's folder kind."""
    if args.agent is None:
        if len(known) == 1:
            return known[0]
        raise declaring.UsageError(
            f"give --agent ID: the agent this client is (agents: {', '.join(known) or 'none'})"
        )
    if args.agent not in known:
        create = (
            f"create it with `vault-app agent create {args.agent}`"
            if foreign is None
            else f"a {foreign}'s agents are its owner's to make"
        )
        raise declaring.UsageError(
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


def _open(args: argparse.Namespace) -> tuple[Any, str]:
    """The workspace `mcp` serves and the agent it serves it to (both checked)."""
    from vault_app import workspace
    from vault_app.workspace import folder_workspace

    served = workspace.open_workspace(
        opening.resolve_vault_path(args.vault),
        semantic=False if getattr(args, "bm25", False) else None,
        clock=opening.clock_of(args),
    )
    if isinstance(served, folder_workspace.FolderWorkspace):  # a neighbour's, as it is
        agent = _agent(args, served.reader.agents(), foreign=served.reader.name)
    else:
        agent = _agent(args, served.reader.paths.agent_ids())
        served.vault_for(agent)
    return served, agent


def _refuse(message: str) -> None:
    """Answer each request of the client with `message` as a JSON-RPC error (see the
    module docstring) until it closes the connection: a process that ended at once
    would race its answer with the end of its output, which clients report as a closed
    connection. A person at a terminal gets the error line alone."""
    if sys.stdin is None or sys.stdin.isatty():
        return
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if isinstance(request, dict) and "id" in request and "method" in request:
            answer = {
                "jsonrpc": "2.0",
                "id": request["id"],
                "error": {"code": START_FAILED, "message": f"vault-app mcp: {message}"},
            }
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


START_FAILED = -32002  # a JSON-RPC server error: the server could not start


def cmd_mcp(args: argparse.Namespace) -> int:
    from vault_app.core import process_tuning
    from vault_app.mcp import server
    from vault_app.watch import quiet

    try:
        served, agent = _open(args)
    except errors.VaultError as exc:
        if getattr(args, "owns_process", False):
            _refuse(str(exc))
        raise
    if getattr(args, "owns_process", False):
        process_tuning.tune_process()
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
        process_end.end_server_process(0)
    return 0


def server_command() -> list[str]:
    """The command line that starts this installation's vault-app, absolute: the app's
    own executable when frozen (the installers), the `vault-app` script beside this
    Python (a virtualenv or pipx), else this Python with `-m vault_app`."""
    executable = Path(sys.executable).absolute()
    if getattr(sys, "frozen", False):
        return [str(executable)]
    script = executable.parent / ("vault-app.exe" if os.name == "nt" else "vault-app")
    if script.is_file():
        return [str(script)]
    return [str(executable), "-m", "vault_app"]


def cmd_mcp_config(args: argparse.Namespace) -> None:
    """Print an `mcpServers` entry that starts `vault-app mcp` for the agent, as an MCP
    client's mcp.json takes it (Claude Desktop, Claude Code, Cursor, VS Code, MicroClaw)."""
    served, agent = _open(args)
    served.close()
    command, *rest = server_command()
    config = {
        "mcpServers": {
            args.name: {
                "command": command,
                "args": [*rest, "--vault", str(served.root.absolute()), "mcp", "--agent", agent],
            }
        }
    }
    output.emit(args, config, json.dumps(config, indent=2, ensure_ascii=False))
