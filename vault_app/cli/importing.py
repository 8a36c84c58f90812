"""`vault-app import SOURCE [--into VAULT]`: what a person or an agent already has, brought
into a PARA vault, with a report of what went where; the source is only read.

- A neighbour's folder (a Hermes home, a PicoClaw workspace, a MicroClaw runtime): each
  file to its twin, each atomic entry (a § entry, a tier's entry, a profile key) also as
  a fact of the agent (`core.neighbours.importing`).
- A file of conversations with assistants, told by its content (`--format auto`, or
  chatgpt, claude, jsonl): ChatGPT's or Claude's data export (`conversations.json`, the
  export's zip, or the folder it unzips to), or JSON lines of `{time, speaker, text,
  conversation}`. Each message becomes an entry of the daily note of its date, the
  global notes or `--agent ID`'s (`core.chat_exports`); `--extract` then runs the
  heartbeat once, so that the facts are written now. A large export is streamed, with
  its progress on stderr.

`--into` defaults to the vault the command is run on (`--vault`, `$VAULT_APP_VAULT`, the
current folder); a VAULT that is missing or empty is made a new vault.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from vault_app.cli import declaring, opening
from vault_app.cli.output import emit


def register(commands: declaring.Commands) -> None:
    p = commands.command(
        "import",
        cmd_import,
        "bring in a Hermes home, PicoClaw workspace or MicroClaw runtime (its entries as "
        "facts), or a ChatGPT, Claude or JSON-lines chat export (as daily-note entries)",
    )
    p.add_argument(
        "source",
        metavar="SOURCE",
        help="the neighbour's folder, or the export (its file, zip or folder; only read)",
    )
    p.add_argument("--into", metavar="VAULT", help="the PARA vault (made if new; default: --vault)")
    p.add_argument(
        "--format",
        choices=("auto", "chatgpt", "claude", "jsonl"),
        default="auto",
        help="an export's format (default: told by its content)",
    )
    p.add_argument("--agent", metavar="ID", help="an export's entries in this agent's daily notes")
    p.add_argument(
        "--extract", action="store_true", help="after an export, run the heartbeat once (facts)"
    )


def cmd_import(args: argparse.Namespace) -> int:
    from vault_app.core import chat_exports, errors

    source = Path(args.source).expanduser()
    if chat_exports.is_export(source):  # a file, or the folder an export unzips to
        return _import_export(args, source)
    if args.format != "auto" or args.agent or args.extract:
        raise declaring.UsageError("--format, --agent and --extract go with an export file")
    if not source.is_dir():
        raise errors.NotFoundError(f"no folder or file {source}")
    return _import_folder(args, source)


def _target(args: argparse.Namespace) -> Any:
    from vault_app.core import vault

    if args.into is None:
        return opening.open_vault(args)
    into = Path(args.into).expanduser()
    if not into.exists() or (into.is_dir() and not any(into.iterdir())):
        actor = args.actor if args.actor is not None else "cli"
        return vault.Vault.create(into, actor=actor, clock=opening.clock_of(args))
    args.vault = str(into)  # an existing folder must be a PARA vault (a neighbour's is refused)
    return opening.open_vault(args)


def _import_folder(args: argparse.Namespace, path: Path) -> int:
    from vault_app.core import errors, neighbours
    from vault_app.core.neighbours import importing

    source = neighbours.open_folder(path, actor="cli")
    if source is None:
        raise errors.VaultError(
            f"{args.source} is a PARA vault already: import reads a Hermes home, a PicoClaw "
            "workspace, a MicroClaw runtime, or a chat export file"
        )
    report = importing.import_folder(source, _target(args))
    emit(args, report.as_json(), lambda: "\n".join(importing.lines(report)))
    return 0


def _import_export(args: argparse.Namespace, path: Path) -> int:
    from vault_app.core import chat_exports

    target = _target(args)
    report = chat_exports.import_export(
        target, path, args.format, agent=args.agent, progress=_progress(path)
    )
    answer: dict[str, Any] = report.as_json()
    text = list(chat_exports.lines(report, path))
    if args.extract:
        from vault_app.heartbeat import runs

        record = runs.run_heartbeat(target.root, runner="cli", trigger="once")
        answer["heartbeat"] = record.model_dump(mode="json", exclude_none=True)
        text.append(
            f"heartbeat: {record.entries} entries, {record.extracted} extracted, "
            f"{record.written} written, {record.deferred} deferred"
            + (f"; error: {record.error}" if record.error else "")
        )
    emit(args, answer, lambda: "\n".join(text))
    return 1 if report.problems else 0


def _progress(path: Path) -> Any:
    """Bytes read of a large export, on stderr every 2 s (nothing for a small one)."""
    started, last = time.monotonic(), [time.monotonic()]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 2 and now - started >= 2:
            last[0] = now
            share = done / total if total else 1.0
            bar = "#" * int(share * 30)
            print(
                f"vault-app: importing {path.name} [{bar:<30}] {share:.0%} "
                f"({done / 1e6:,.0f} of {total / 1e6:,.0f} MB)",
                file=sys.stderr,
            )

    return show
