"""The `vault-app` command line: every library operation, `--json` on every command.

Run with no command it opens the desktop app. Errors go to stderr as one line
(`vault-app: error: <reason>`, never a traceback) with exit status 1 (2 for a usage
error, 130 for Ctrl+C, 141 when the reader of stdout went away); results go to stdout,
as text for people or as JSON (`--json`) for agents and scripts. The vault is
`--vault PATH`, else the vault containing the current folder, else the configured one
(`VAULT_APP_VAULT`, or `vault = "..."` in the user's config.toml), else - as the window
does - the demo vault in the user's data folder, created on first use and announced on
stderr.

`main` first offers a read command to a `serve` already running for the vault
(`serve_link`: a local socket only this user can open; same output, without opening the
vault and its index again), and otherwise runs it here (`program`). Nothing heavy is
imported before that choice: a forwarded search costs the interpreter's start and a
socket's round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command (see `program.main`); a read command goes to a running `serve`
    for the same vault when there is one (`serve_link.forward`)."""
    if argv is None:  # the program itself: a forwarded command leaves no state behind
        import sys

        from vault_app.cli import serve_link, until_stopped

        until_stopped.install(sys.argv[1:])  # serve, watch: a SIGTERM while they start

        forwarded = serve_link.forward()
        if forwarded is not None:
            return forwarded
    from vault_app.cli import program

    return program.main(argv)


def __getattr__(name: str) -> Any:
    """`build_parser` and the command groups, imported when first asked for."""
    import importlib

    if name == "build_parser":
        from vault_app.cli import program

        return program.build_parser
    try:
        return importlib.import_module(f"vault_app.cli.{name}")
    except ModuleNotFoundError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
