"""`gui` (and no command at all): open the desktop app on the vault given, found or
configured (a PARA vault, or a neighbour's folder in its own window); with none, the app
opens the demo vault."""

from __future__ import annotations

import argparse
from pathlib import Path

from vault_app.cli import declaring


def register(commands: declaring.Commands) -> None:
    p = commands.command("gui", cmd_gui, "open the desktop app (the default)")
    p.add_argument("--demo", action="store_true", help="open the demo vault")


def cmd_gui(args: argparse.Namespace) -> int:
    from vault_app.core import config
    from vault_app.core.neighbours import detect
    from vault_app.ui import app

    # no vault given, none here or configured: None, and the app opens the demo vault, as
    # every other command does (resolve_vault_path)
    path = Path(args.vault).expanduser() if args.vault else config.default_vault(Path.cwd())
    if path is not None and path.is_dir():
        # a neighbour's folder opens in a window of its own (`app.window_for` decides);
        # a folder of no known kind, or of two, is refused here, saying what was looked
        # for or found, before any window
        detect.detect(path)
    return app.run(path, demo=getattr(args, "demo", False))
