"""`vault-app sync …`: a vault kept on several devices by Syncthing or git.

    sync syncthing setup     the vault's .stignore: per-device state stays on each device
    sync merge               every Syncthing conflict file merged into its file
    sync git-setup           .gitignore, .gitattributes and vault-app as git's merge driver
    sync merge-driver O A B P  what git runs for a file both sides changed (not by hand)

The rules are `core.sync_merge`'s (one implementation under Syncthing and git), the files
`core.sync_files` and `core.sync_setup`. `sync merge` exits 1 when a document is left for
a person (both sides changed the same lines): the window and `doctor` show it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from vault_app.cli import declaring, opening
from vault_app.cli.output import emit


def register(commands: declaring.Commands) -> None:
    group = commands.group("sync", "a vault on several devices: Syncthing or git")
    syncthing = group.add_parser(
        "syncthing", help="Syncthing: what stays on each device", description="Syncthing"
    )
    syncthing.set_defaults(handler=lambda a: syncthing.error("name a syncthing command"))
    within = syncthing.add_subparsers(dest="syncthing_command", metavar="COMMAND")
    commands.command(
        "setup",
        cmd_syncthing_setup,
        "write the vault's .stignore (per-device state stays local; your own lines kept)",
        within=within,
    )
    commands.command(
        "merge",
        cmd_merge,
        "merge every Syncthing conflict file into its file (facts by id, notes by entry)",
        within=group,
    )
    commands.command(
        "git-setup",
        cmd_git_setup,
        "make vault-app git's merge driver for the vault's files, and ignore device state",
        within=group,
    )
    driver = commands.command(
        "merge-driver",
        cmd_merge_driver,
        "git's merge driver (git runs it: %%O %%A %%B %%P)",
        within=group,
    )
    for name, text in (
        ("base", "the common ancestor's file (%O)"),
        ("ours", "our version, where the result is written (%A)"),
        ("theirs", "their version (%B)"),
        ("path", "the file's path in the repository (%P)"),
    ):
        driver.add_argument(name, help=text)


def cmd_syncthing_setup(args: argparse.Namespace) -> int:
    from vault_app.core import sync_setup

    target = opening.open_vault(args)
    path, changed = sync_setup.syncthing_ignore(target.root)
    emit(
        args,
        {"file": str(path), "changed": changed, "ignored": sync_setup.syncthing_lines()},
        f"{'wrote' if changed else 'unchanged:'} {path}\n"
        "Share the vault's folder in Syncthing; the lines between the vault-app markers "
        "keep each device's own state on it.",
    )
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from vault_app.core import sync_files

    target = opening.open_vault(args)
    results = sync_files.merge_all(target)
    rows = [
        {
            "conflict": target.paths.relative(r.conflict),
            "file": target.paths.relative(r.original),
            "merged": r.merged,
            "kind": r.kind,
            "said": r.said,
            "reason": r.reason,
        }
        for r in results
    ]

    def text() -> str:
        if not results:
            return "no conflict files"
        return "\n".join(r.describe(target.root) for r in results)

    emit(args, rows, text)
    return 0 if all(r.merged for r in results) else 1


def cmd_git_setup(args: argparse.Namespace) -> int:
    from vault_app.core import sync_setup

    target = opening.open_vault(args)
    driver = [shlex.quote(sys.executable), "-m", "vault_app", "sync", "merge-driver"]
    written = sync_setup.git_setup(target.root, driver)
    lines = [f"{'wrote' if changed else 'unchanged:'} {path}" for path, changed in written]
    lines.append("vault-app is the repository's merge driver for fact files, notes and documents.")
    emit(args, [{"file": str(p), "changed": c} for p, c in written], "\n".join(lines))
    return 0


def cmd_merge_driver(args: argparse.Namespace) -> int:
    """Merge THEIRS into OURS (the file git reads back); 0 when clean, 1 when a person must
    resolve what is marked (or a side cannot be read: OURS is then left as it was)."""
    from vault_app.core import errors, sync_merge

    ours_path = Path(args.ours)
    base = Path(args.base).read_bytes()
    ours, theirs = ours_path.read_bytes(), Path(args.theirs).read_bytes()
    try:
        outcome = sync_merge.merge_file(Path(args.path), ours, theirs, [base] if base else [])
    except errors.VaultError as exc:
        print(f"vault-app: cannot merge {args.path}: {exc}", file=sys.stderr)
        return 1
    ours_path.write_bytes(outcome.data)
    if not outcome.clean:
        print(f"vault-app: {args.path}: {outcome.describe()}", file=sys.stderr)
    return 0 if outcome.clean else 1
