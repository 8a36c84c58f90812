"""Decay and synthesis: `decay` lists every active fact with its tier (now, or `--at` a
date), or with `--going-cold N` the facts that turn Cold within N days; `synthesize`
rewrites summary.md files and index.md from the facts' tiers (`--dry-run` previews the
diff, `--next` says when the weekly synthesis runs next). The figures come from
`core.outlook`, as the window's decay dashboard does.

Each report of `decay` is one function taking the open vault (`tier_report`); another
report (an option of `decay`) is another such function, chosen in `cmd_decay`.
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import TYPE_CHECKING

from vault_app.cli import declaring
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit, warn
from vault_app.core import models
from vault_app.workspace import arguments

if TYPE_CHECKING:
    from vault_app.core import vault


def register(commands: declaring.Commands) -> None:
    p = commands.command("decay", cmd_decay, "every active fact with its tier")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--at", metavar="DATE", help="compute tiers at this date/time")
    when.add_argument(
        "--going-cold",
        metavar="DAYS",
        type=declaring.whole(0, 3650),
        help="only the Hot and Warm facts that turn Cold within DAYS days, with the date",
    )
    p = commands.command(
        "synthesize", cmd_synthesize, "rewrite summary.md from facts, and index.md"
    )
    p.add_argument("entities", nargs="*", metavar="ENTITY")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    what.add_argument(
        "--next", action="store_true", help="when the weekly synthesis runs next; write nothing"
    )


def cmd_decay(args: argparse.Namespace) -> None:
    v = open_vault(args)
    if args.going_cold is not None:
        going_cold_report(args, v, args.going_cold)
        return
    at = arguments.moment(args.at) if args.at else None
    tier_report(args, v, at)


def tier_report(args: argparse.Namespace, v: vault.Vault, at: dt.datetime | None) -> None:
    """Every active fact with its tier at `at` (default now), entity by entity."""
    rows, problems = v.decay_report(at)
    warn(problems)
    data = [
        {
            "id": r.fact.id,
            "entity": str(r.ref),
            "tier": r.tier.value,
            "days": r.days,
            "accessCount": r.fact.access_count,
            "lastAccessed": r.fact.last_touched.isoformat() if r.fact.last_touched else None,
            "fact": r.fact.fact,
        }
        for r in rows
    ]

    def text() -> str:
        counts = {t: sum(1 for r in rows if r.tier is t) for t in models.DecayTier}
        head = ", ".join(f"{n} {t.value}" for t, n in counts.items())
        body = [
            f"{r.tier.value:<5} {r.days:>5}d  {r.fact.access_count:>3}×  {r.ref}: {r.fact.fact}"
            for r in rows
        ]
        return "\n".join([f"{len(rows)} active facts: {head}", *body])

    emit(args, data, text)


def going_cold_report(args: argparse.Namespace, v: vault.Vault, days: int) -> None:
    """The facts, Hot or Warm now, that turn Cold within `days` days (unless accessed)."""
    from vault_app.core import outlook

    report = outlook.going_cold(v, days)
    assert report is not None  # only a cancelled report is None
    warn(report.problems)
    data = {
        "at": report.at.isoformat(),
        "until": report.until.isoformat(),
        "facts": [
            {
                "id": f.fact_id,
                "entity": f.address,
                "tier": f.tier.value,
                "days": f.days,
                "accessCount": f.access_count,
                "coldOn": f.cold_on.isoformat(),
                "fact": f.text,
            }
            for f in report.facts
        ],
    }

    def text() -> str:
        n = len(report.facts)
        head = f"{n} fact{'' if n == 1 else 's'} turn Cold by {report.until.date().isoformat()}"
        body = [
            f"{f.cold_on.isoformat()}  {f.tier.value:<4} {f.access_count:>3}×  "
            f"{f.address}: {f.text}"
            for f in report.facts
        ]
        return "\n".join([head, *body])

    emit(args, data, text)


def cmd_synthesize(args: argparse.Namespace) -> None:
    v = open_vault(args)
    if args.next:
        next_synthesis(args, v)
        return
    results, problems = v.synthesize(args.entities or None, dry_run=args.dry_run)
    warn(problems)
    data = {
        "dryRun": args.dry_run,
        "results": [
            {
                "entity": str(r.ref) if r.ref else None,
                "file": v.paths.relative(r.path),
                "changed": r.changed,
                "hot": r.hot,
                "warm": r.warm,
                "cold": r.cold,
                "diff": r.diff,
            }
            for r in results
        ],
        "problems": [p.model_dump() for p in problems],
    }

    def text() -> str:
        changed = [r for r in results if r.changed]
        verb = "would change" if args.dry_run else "changed"
        lines = [f"{len(changed)} of {len(results)} files {verb}"]
        if args.dry_run:
            lines += [r.diff for r in changed]
        return "\n".join(lines)

    emit(args, data, text)


def next_synthesis(args: argparse.Namespace, v: vault.Vault) -> None:
    """When the vault's weekly synthesis is due next, from its `[synthesis]` settings."""
    from vault_app.core import outlook

    settings = v.config.synthesis
    now = v.now()
    due = outlook.next_synthesis(settings, now)
    data = {"next": due.isoformat(), "schedule": outlook.describe_next_synthesis(settings, now)}
    emit(args, data, lambda: data["schedule"])
