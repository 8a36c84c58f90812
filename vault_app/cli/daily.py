"""Daily notes: `daily append` adds a timestamped entry to today's note (global, or an
agent's), `daily show` prints a day's note or, with `--list`, the days that have one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from vault_app.cli import declaring, opening
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit
from vault_app.cli.reading import read_stdin
from vault_app.core import daily
from vault_app.workspace import arguments

if TYPE_CHECKING:
    from vault_app.core import neighbours


def register(commands: declaring.Commands) -> None:
    group = commands.group("daily", "daily notes")
    p = commands.command(
        "append", cmd_daily_append, "append an entry to today's note", within=group
    )
    p.add_argument("text", nargs="*", help="the entry (stdin when absent)")
    p.add_argument("--agent")
    p = commands.command("show", cmd_daily_show, "a day's note (today by default)", within=group)
    p.add_argument("date", nargs="?", help="YYYY-MM-DD")
    p.add_argument("--agent")
    p.add_argument("--list", action="store_true", help="list the days that have notes")


def cmd_daily_append(args: argparse.Namespace) -> None:
    content = " ".join(args.text) if args.text else read_stdin()
    foreign = opening.open_foreign(args)
    if foreign is not None:
        note = foreign.daily_append(args.agent, content)
        emit(args, note.as_json(), f"Appended to {note.date.isoformat()} ({note.path})")
        return
    v = open_vault(args, args.agent)
    entry = v.append_daily(content, agent=args.agent)
    emit(
        args,
        entry.model_dump(mode="json"),
        f"Appended to {entry.date.isoformat()} at {entry.time}"
        + (f" ({args.agent})" if args.agent else ""),
    )


def cmd_daily_show(args: argparse.Namespace) -> None:
    foreign = opening.open_foreign(args)
    if foreign is not None:
        _show_foreign(args, foreign)
        return
    v = open_vault(args)
    if args.list:
        dates = v.daily_dates(args.agent)
        emit(args, [d.isoformat() for d in dates], lambda: "\n".join(d.isoformat() for d in dates))
        return
    day = arguments.day(args.date) if args.date else v.now().date()
    note = v.daily_note(day, args.agent)
    emit(
        args,
        note.model_dump(mode="json"),
        lambda: "\n".join(
            [f"# {note.date.isoformat()}" + (f" — {note.agent}" if note.agent else "")]
            + [f"\n## {e.time}\n\n{daily.escape_text(e.text)}" for e in note.entries]
        ),
    )


def _show_foreign(args: argparse.Namespace, folder: neighbours.ForeignFolder) -> None:
    """A neighbour's daily note as its owner wrote it (PicoClaw, MicroClaw)."""
    if args.list:
        dates = folder.daily_dates(args.agent)
        emit(args, [d.isoformat() for d in dates], lambda: "\n".join(d.isoformat() for d in dates))
        return
    day = arguments.day(args.date) if args.date else folder.today()
    note = folder.daily_note(args.agent, day)
    emit(
        args,
        note.as_json(),
        lambda: (
            note.text if note.text is not None else f"(no note on {day.isoformat()}: {note.path})"
        ),
    )
