"""`vault-app import SOURCE --into VAULT`: a Hermes home, a PicoClaw workspace or a
MicroClaw runtime copied into a PARA vault (made when VAULT is missing or empty): each
file to its twin, each atomic entry (a § entry, a tier's entry, a profile key) also as a
fact of the agent, with a report of what went where; the source is only read
(`core.neighbours.importing`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from vault_app.cli import declaring, opening
from vault_app.cli.output import emit


def register(commands: declaring.Commands) -> None:
    p = commands.command(
        "import",
        cmd_import,
        "copy a Hermes home, PicoClaw workspace or MicroClaw runtime into a PARA vault "
        "(its entries as facts, its long texts as documents and daily notes)",
    )
    p.add_argument("source", metavar="SOURCE", help="the neighbour's folder (only read)")
    p.add_argument("--into", required=True, metavar="VAULT", help="the PARA vault (made if new)")


def cmd_import(args: argparse.Namespace) -> None:
    from vault_app.core import errors, neighbours, vault
    from vault_app.core.neighbours import importing

    source = neighbours.open_folder(Path(args.source).expanduser(), actor="cli")
    if source is None:
        raise errors.VaultError(
            f"{args.source} is a PARA vault already: import reads a Hermes home, a PicoClaw "
            "workspace or a MicroClaw runtime"
        )
    into = Path(args.into).expanduser()
    if not into.exists() or (into.is_dir() and not any(into.iterdir())):
        actor = args.actor if args.actor is not None else "cli"
        target = vault.Vault.create(into, actor=actor, clock=opening.clock_of(args))
    else:  # an existing folder must be a PARA vault (a neighbour's is refused)
        args.vault = str(into)
        target = opening.open_vault(args)
    report = importing.import_folder(source, target)
    emit(args, report.as_json(), lambda: "\n".join(importing.lines(report)))
