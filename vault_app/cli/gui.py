"""`gui` (and no command at all): open the desktop app on the vault given, found or
configured; with none, the app opens the demo vault."""

from __future__ import annotations

import argparse
from pathlib import Path

from vault_app.cli import _common


def register(commands: _common.Commands) -> None:
    p = commands.command("gui", cmd_gui, "open the desktop app (the default)")
    p.add_argument("--demo", action="store_true", help="open the demo vault")


def cmd_gui(args: argparse.Namespace) -> int:
    from vault_app.core import config
    from vault_app.ui import app

    # no vault given, none here or configured: None, and the app opens the demo vault, as
    # every other command does (resolve_vault_path)
    path = Path(args.vault).expanduser() if args.vault else config.default_vault(Path.cwd())
    if path is not None:
        # the window works on PARA vaults only for now: a neighbour's folder is refused
        # here rather than opened as a vault (which would lay a .vault/ into it)
        _common.refuse_foreign(args, path)
    return app.run(path, demo=getattr(args, "demo", False))
