"""The command line's program: the parser built from the command groups, and the run
that maps every failure to one line and an exit status (`vault_app.cli.main` calls it
when the command is not answered by a running `serve`: `serve_link`).

One module per command group, each declaring its commands' arguments beside the handlers
(`register`); this module builds the parser from them and maps failures to exit statuses:

    vaults      init, info, doctor          the vault as a whole
    importing   import SOURCE --into VAULT  a Hermes, PicoClaw or MicroClaw folder copied in
    entities    entities, show, related, entity create|archive|unarchive
    facts       fact add|supersede|access|history|show
    decay       decay, synthesize           tiers, and summaries rewritten from them
    daily       daily append|show
    documents   tacit, context-md, principles, summary: show|edit of markdown documents
    agent_memory  tiers show|write, notes show|add|replace|remove, profile show|set|delete
    agents      agents, agent create|token
    review      review list|show|approve|reject, activity   agents' writes, for a person
    search      search, context             the search engine and an agent's context
    sync        sync merge|git-setup|syncthing setup   a vault on several devices
    watch       watch                       changes on disk as they happen
    mcp         mcp, mcp-config             the vault's MCP server for one agent, over stdio
    serve       serve                       the vault's MCP server for agents, streamable HTTP
    heartbeat   heartbeat --once|--status|--waiting|--keep   daily notes turned into facts;
                the weekly synthesis; the names waiting for their entity
    gui         gui (and no command)        the desktop app
    declaring, output, opening, reading, process_end   what they share: how a group declares
                its commands, what a command prints, which vault it opens, what it reads
                besides its arguments, how a server command ends its process
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from vault_app import __version__
from vault_app.cli import (
    agent_memory,
    agents,
    daily,
    decay,
    declaring,
    documents,
    entities,
    facts,
    gui,
    heartbeat,
    importing,
    mcp,
    review,
    search,
    serve,
    sync,
    vaults,
    watch,
)
from vault_app.core import errors

# the order of `vault-app --help`
GROUPS = (
    vaults,
    importing,
    entities,
    facts,
    decay,
    daily,
    documents,
    agent_memory,
    agents,
    review,
    search,
    sync,
    watch,
    mcp,
    serve,
    heartbeat,
    gui,
)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--vault", metavar="PATH", default=argparse.SUPPRESS, help="the vault folder"
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output"
    )
    common.add_argument("--actor", default=argparse.SUPPRESS, help="who writes, for the audit log")
    common.add_argument(
        "--now", metavar="ISO", default=argparse.SUPPRESS, help="pretend it is this time (tests)"
    )

    parser = argparse.ArgumentParser(
        prog="vault-app",
        description="See, search and curate the PARA memory vaults of AI agents. "
        "With no command, opens the desktop app.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"vault-app {__version__}")
    commands = declaring.Commands(common, parser.add_subparsers(dest="command", metavar="COMMAND"))
    for group in GROUPS:
        group.register(commands)
    return parser


# Exit status of a command whose reader went away (`vault-app decay | head -1`): what a
# shell reports for a program killed by SIGPIPE, as `seq 1 100000 | head -1` does; quiet.
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130
# Arguments that name local files: bytes that are not UTF-8 are kept (surrogateescape)
# there, as the file system has them; in any other argument (ids, text) they are refused.
_PATH_ARGUMENTS = frozenset({"vault", "path", "file", "queries"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure ends as one `vault-app: error:` line on stderr.

    Exit status: 0 done, 1 error, 2 wrong arguments, 130 interrupted (Ctrl+C), 141 the
    reader of stdout went away (a pipe closed early; nothing more is printed).
    `VAULT_APP_DEBUG=1` shows the traceback of an unexpected error.

    Run as the program (`argv` None: the command line's), the CLI owns its process and
    opts in to the bulk-load tuning of `core.process_tuning` (the collector paused during a scan
    or an index load, its results frozen); called with `argv` from another program, it
    leaves that program's process as it found it.
    """
    if argv is None:
        from vault_app.core import process_tuning

        process_tuning.tune_process()
    try:
        code = _run(argv, owns_process=argv is None)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        # the Python documentation's way: point stdout at devnull so that the
        # interpreter's own flush at exit does not fail again
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _fail(message: str) -> int:
    line = message.replace("\r", " ").replace("\n", " ")  # one line, whatever it held
    print(f"vault-app: error: {line}", file=sys.stderr)
    return 1


def describe_os_error(exc: OSError) -> str:
    """`<path>: <reason>`, the reason in words (no `[Errno 28]`)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    target = os.fsdecode(exc.filename) if isinstance(exc.filename, bytes) else str(exc.filename)
    if exc.filename2 is not None:
        target += f" -> {exc.filename2}"
    return f"{target}: {reason}"


def _undecodable_argument(args: argparse.Namespace) -> str | None:
    """The first argument (not a file path) holding bytes that are not UTF-8, shown."""
    for name, value in vars(args).items():
        if name in _PATH_ARGUMENTS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                shown = repr(item.encode("utf-8", "surrogateescape"))[1:]
                return f"{name.replace('_', '-')} {shown}"
    return None


def _run(argv: Sequence[str] | None, *, owns_process: bool = False) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.owns_process = owns_process  # may a command tune process-wide state (`watch`)
    for name, default in (("vault", None), ("json", False), ("actor", None), ("now", None)):
        if not hasattr(args, name):
            setattr(args, name, default)
    bad = _undecodable_argument(args)
    if bad is not None:
        print(f"vault-app: error: argument is not valid UTF-8: {bad}", file=sys.stderr)
        return 2
    handler: declaring.Handler = getattr(args, "handler", gui.cmd_gui)
    try:
        result = handler(args)
    except errors.InvalidArgumentError as exc:  # a usage error (the CLI's own, a date...)
        parser.error(str(exc))
    except errors.VaultError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        raise
    except OSError as exc:
        return _fail(describe_os_error(exc))
    except RecursionError:
        return _fail("data nested too deeply to handle (a recursion limit was reached)")
    except MemoryError:
        return _fail("out of memory")
    except Exception as exc:
        if os.environ.get("VAULT_APP_DEBUG"):
            raise
        return _fail(
            f"unexpected {type(exc).__name__}: {exc} (a bug: please report it; "
            "VAULT_APP_DEBUG=1 shows the traceback)"
        )
    return result if isinstance(result, int) else 0
