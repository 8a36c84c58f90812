"""Which vault or folder a command works on (`--vault`, the vault around the current
folder, the configured one, else the demo vault, announced once), opened as a PARA vault
or as a neighbour's folder, with the clock of `--now`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vault_app.core import errors
from vault_app.workspace import arguments

if TYPE_CHECKING:
    from vault_app.core import decay, neighbours, vault


def resolve_vault_path(given: str | None) -> Path:
    """The vault a command works on: `--vault PATH`, else the vault containing the current
    folder, else the configured one, else (as the window does) the demo vault in the
    user's data folder, created on first use and announced on stderr."""
    from vault_app.core import config

    if given:
        return Path(given).expanduser()
    found = config.default_vault(Path.cwd())
    if found is not None:
        return found
    from vault_app.core import demo

    path, created = demo.ensure_demo_vault()
    if path not in _ANNOUNCED:  # once a command, however often it resolves the vault
        _ANNOUNCED.add(path)
        print(
            f"vault-app: notice: no vault given, none here or configured: using the demo "
            f"vault at {path}{' (created now)' if created else ''}; pass --vault PATH for "
            "another",
            file=sys.stderr,
        )
    return path


_ANNOUNCED: set[Path] = set()


def open_vault(args: argparse.Namespace, agent: str | None = None) -> vault.Vault:
    """The PARA vault a command works on. A neighbour's folder (a Hermes home, a PicoClaw
    workspace, a MicroClaw runtime) is refused, naming the commands that work in it: it
    is never opened as a PARA vault (which would lay vault-app's `.vault/` into it)."""
    from vault_app.core import vault

    path = resolve_vault_path(args.vault)
    refuse_foreign(args, path)
    actor = args.actor if args.actor is not None else (f"agent:{agent}" if agent else "cli")
    clock = clock_of(args)
    return vault.Vault(path, actor=actor, clock=clock)


# The commands that work in a neighbour's folder (each calls `open_foreign` first)
FOREIGN_COMMANDS = (
    "info, notes, tiers, profile, daily, context, search, mcp, serve, review, activity, "
    "agent token, and the window (no command)"
)


def refuse_foreign(args: argparse.Namespace, path: Path) -> None:
    """Refuse a neighbour's folder (or an unknown or ambiguous one, precisely) where a
    command works on PARA vaults only."""
    from vault_app.core.neighbours import detect

    if not path.is_dir():
        return  # Vault() says precisely what is wrong
    found = detect.detect(path)
    if found.format != detect.PARA:
        command = getattr(args, "command", None) or "gui"
        raise errors.VaultError(
            f"{path} is a {detect.NAMES[found.format]}, not a PARA vault: `vault-app "
            f"{command}` works on PARA vaults only; in it use {FOREIGN_COMMANDS}"
        )


def open_foreign(args: argparse.Namespace) -> neighbours.ForeignFolder | None:
    """The neighbour's folder a command works on, in its own format; None when the
    folder is a PARA vault (then `open_vault` it). Unknown and ambiguous folders are
    refused by `neighbours.detect`, naming what was looked for or found."""
    from vault_app.core import neighbours

    path = resolve_vault_path(args.vault)
    if not path.is_dir():
        return None  # Vault() says precisely what is wrong
    actor = args.actor if args.actor is not None else "cli"
    clock = clock_of(args)
    return neighbours.open_folder(path, actor=actor, clock=clock)


def clock_of(args: argparse.Namespace) -> decay.Clock:
    """The clock a command runs by: `--now` (an ISO time, for scripts and tests) or the
    system's."""
    from vault_app.core import decay

    return decay.fixed_clock(arguments.moment(args.now)) if args.now else decay.system_clock
