"""`heartbeat`: turn the daily notes' new entries into facts now (`--once`), or say how the
vault's heartbeat stands (`--status`).

`--once` takes the vault's lease as runner "cli", runs one heartbeat (due or not) and
the weekly synthesis too when it is due, and prints the run records; a run that
recorded an error (a corrupt cursor, an unreadable note) ends with exit status 1 and the
error on stderr, as every command's errors do. When another
process (`serve`, the app, another cron run) holds the lease it says which one and exits
0 without running: a cron line must not fail because `serve` is up. `--llm-base-url` and
`--llm-model` choose an OpenAI-compatible endpoint for this run over `[heartbeat]` in
`.vault/config.toml`.

`--status` reads only: who holds the lease, the last runs, when the next heartbeat and
synthesis are due, and how many entries wait before the cursor.

`--waiting` reads only too: the names the heartbeat met but made no entity of yet (it
makes one on the third mention), each with the facts that wait for it in the daily notes.
`--keep NAME` asks for one now: it writes the request the rules read as "keep track of"
(`mentions.keep_request`) in the daily notes of whoever named it last (an agent's, or the
global ones, so the same access policy decides), then runs a heartbeat as `--once` does,
which makes the entity and writes what waited; when another process holds the lease,
that runner does it at its next heartbeat.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vault_app.cli import declaring, opening, output
from vault_app.core import errors, layout

RECENT_RUNS = 5


def register(commands: declaring.Commands) -> None:
    p = commands.command(
        "heartbeat",
        cmd_heartbeat,
        "turn new daily-note entries into facts now (--once), or show the heartbeat (--status)",
    )
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--once",
        action="store_true",
        help="run one heartbeat now (and the weekly synthesis if due); a no-op when "
        "another runner holds the vault",
    )
    mode.add_argument(
        "--status", action="store_true", help="lease holder, last runs, next runs, backlog"
    )
    mode.add_argument(
        "--waiting",
        action="store_true",
        help="the names met but not made entities yet, with the facts waiting for them",
    )
    mode.add_argument(
        "--keep",
        metavar="NAME",
        help="make the entity of a waiting name now and write the facts waiting for it",
    )
    p.add_argument("--llm-base-url", metavar="URL", help="an OpenAI-compatible endpoint (/v1)")
    p.add_argument("--llm-model", metavar="NAME", help="the endpoint's model")


def _root(args: argparse.Namespace) -> Path:
    root = opening.resolve_vault_path(args.vault)
    if not layout.is_vault(root):
        raise errors.NotFoundError(f"no vault at {root}")
    return root


def cmd_heartbeat(args: argparse.Namespace) -> int:
    if args.status or args.waiting:
        if args.llm_base_url or args.llm_model:
            raise declaring.UsageError("--llm-base-url and --llm-model go with --once")
        return _status(args) if args.status else _waiting(args)
    asked = _ask_to_keep(args) if args.keep is not None else None
    return _once(args, asked)


def _waiting(args: argparse.Namespace) -> int:
    from vault_app.heartbeat import mentions

    waiting = mentions.waiting_names(_root(args))
    data = {
        "waiting": [
            {
                "name": w.name,
                "address": w.address,
                "mentions": w.mentions,
                "made_at": mentions.CREATE_AT,
                "facts": [
                    {"fact": c.fact, "category": str(c.category), "entry": c.entry.ref}
                    for c in w.facts
                ],
            }
            for w in waiting
        ]
    }

    def text() -> str:
        if not waiting:
            return "No name waits: every fact found has its entity."
        waits = "name waits for its entity" if len(waiting) == 1 else "names wait for their entity"
        lines = [
            f"{len(waiting)} {waits} (made on mention "
            f"{mentions.CREATE_AT}; `heartbeat --keep NAME` makes one now):"
        ]
        for w in waiting:
            said = "mention" if w.mentions == 1 else "mentions"
            facts = "fact waits" if len(w.facts) == 1 else "facts wait"
            lines.append(f"  {w.name} ({w.address}): {w.mentions} {said}, {len(w.facts)} {facts}")
            lines += [f"    {c.fact}  [{c.entry.path}]" for c in w.facts]
        return "\n".join(lines)

    output.emit(args, data, text)
    return 0


def _ask_to_keep(args: argparse.Namespace) -> str:
    """Write the request to keep `args.keep` where it was met, and say so."""
    from vault_app.core.vault import Vault
    from vault_app.heartbeat import mentions

    vault = Vault(_root(args), actor=args.actor or "cli", clock=opening.clock_of(args))
    found = mentions.ask_to_keep(vault, args.keep)
    notes = f"{found.agent}'s daily notes" if found.agent else "the global daily notes"
    return f"Asked to keep track of {found.name} ({found.address}) in {notes}."


def _once(args: argparse.Namespace, asked: str | None = None) -> int:
    from vault_app.core import config
    from vault_app.heartbeat import lease
    from vault_app.heartbeat import runner as service
    from vault_app.heartbeat import runs as run

    root = _root(args)
    extractor = None
    if args.llm_base_url is not None or args.llm_model is not None:
        settings = config.VaultConfig.load(root).heartbeat
        extractor = run.extractor_for(
            settings, llm_base_url=args.llm_base_url, llm_model=args.llm_model
        )
    runner = service.Runner(root, runner="cli", clock=opening.clock_of(args), extractor=extractor)
    try:
        records = runner.once()
    finally:
        runner.close()
    if records is None:
        info = lease.holder(root) or {"holder": "unknown"}
        done = "it keeps the name at its next heartbeat." if asked else "nothing done."
        output.emit(
            args,
            {"ran": False, "holder": info, "runs": [], "asked": asked},
            (asked + "\n" if asked else "")
            + f"The heartbeat of {root} is run by {lease.describe(info)}: {done}",
        )
        return 0
    runs = [r.model_dump(mode="json", exclude_none=True) for r in records]
    output.emit(
        args,
        {"ran": True, "holder": None, "runs": runs, "asked": asked},
        lambda: (asked + "\n" if asked else "") + _runs_text(records),
    )
    errors_seen = [(r.job, r.error) for r in records if r.error]
    for job, error in errors_seen:  # logged too; the status tells cron and scripts
        line = error.replace("\r", " ").replace("\n", " ")
        print(f"vault-app: error: {job}: {line}", file=sys.stderr)
    return 1 if errors_seen else 0


def _runs_text(records: list[Any], *, stamped: bool = False) -> str:
    lines = []
    for r in records:
        stamp = (
            f"{r.started.astimezone():%Y-%m-%d %H:%M} by {r.runner} ({r.trigger}): "
            if stamped
            else ""
        )
        if r.job == "heartbeat":
            lines.append(
                f"{stamp}Heartbeat ({r.extractor}, {r.duration_s:.2f} s): {r.entries} entries, "
                f"{r.extracted} extracted, {r.written} written, {r.deduped} deduped, "
                f"{r.superseded} superseded, {r.deferred} deferred, {r.created} created, "
                f"{r.flagged} flagged, {r.held} held for review, {r.rerouted} rerouted, "
                f"{r.failed} failed"
            )
        else:
            lines.append(
                f"{stamp}Synthesis ({r.trigger}, {r.duration_s:.2f} s): "
                f"{r.summaries} summaries rewritten"
            )
        if r.error and stamped:
            lines.append(f"  error: {r.error}")
    return "\n".join(lines)


def _status(args: argparse.Namespace) -> int:
    from vault_app.core import decay
    from vault_app.core.vault import Vault
    from vault_app.heartbeat import entries, lease, runlog, schedule

    root = _root(args)
    vault = Vault(root, actor="cli", clock=opening.clock_of(args))
    now = vault.now()
    holder = lease.holder(root)
    state = schedule.ScheduleState.load(root)
    next_beat, next_synthesis = schedule.next_times(vault.config, state, now)
    backlog: int | None
    cursor_error = None
    try:
        backlog = len(entries.Cursor.load(root).new_entries(vault))
    except errors.CorruptFileError as exc:
        backlog, cursor_error = None, str(exc)
    last = {
        job: next(iter(runlog.read(root, limit=1, job=job)), None)
        for job in ("heartbeat", "synthesis")
    }
    recent = runlog.read(root, limit=RECENT_RUNS)
    data = {
        "vault": str(root),
        "holder": holder,
        "enabled": vault.config.heartbeat.enabled,
        "interval_minutes": vault.config.heartbeat.interval_minutes,
        "extractor": "llm:" + vault.config.heartbeat.llm_model
        if vault.config.heartbeat.llm_base_url
        else "rules",
        "last_heartbeat": _dump(last["heartbeat"]),
        "last_synthesis": _dump(last["synthesis"]),
        "next_heartbeat": None if next_beat is None else next_beat.isoformat(),
        "next_synthesis": next_synthesis.isoformat(),
        "backlog": backlog,
        "cursor_error": cursor_error,
        "recent": [_dump(r) for r in recent],
    }

    def text() -> str:
        def when(moment: Any) -> str:
            return (
                "now"
                if moment == now
                else decay.as_aware(moment).astimezone().strftime("%a %Y-%m-%d %H:%M")
            )

        who = "nobody" if holder is None else lease.describe(holder)
        lines = [
            f"Vault:          {root}",
            f"Runner:         {who}",
            f"Extractor:      {data['extractor']}",
            "Next heartbeat: "
            + ("disabled ([heartbeat] enabled = false)" if next_beat is None else when(next_beat))
            + f" (every {data['interval_minutes']} min)",
            f"Next synthesis: {when(next_synthesis)}",
            "Backlog:        "
            + (f"{backlog} entries wait" if backlog is not None else f"unknown: {cursor_error}"),
            "Last runs:" if recent else "Last runs:      none yet",
        ]
        lines += ["  " + line for line in _runs_text(recent, stamped=True).splitlines()]
        return "\n".join(lines)

    output.emit(args, data, text)
    return 0


def _dump(record: Any) -> dict[str, Any] | None:
    return None if record is None else record.model_dump(mode="json", exclude_none=True)
