"""Entities: `entities` lists them with their tier counts, `show` prints one (summary and
facts; `--as-of DATE` as believed then, `Vault.as_of`), `related` follows relatedEntities
both ways, `entity create|archive` changes them.

`entities --para FOLDER` keeps the entities of one PARA folder (projects, areas, resources,
archives), as `search --para` does; `--category`, its first spelling, still works (hidden
from --help: in `search` and `fact add` a category is a fact's category).
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import TYPE_CHECKING, Any

from vault_app.cli import declaring
from vault_app.cli.declaring import UsageError
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit, fact_json, fact_line, table
from vault_app.core import layout, models
from vault_app.workspace import arguments

if TYPE_CHECKING:
    from vault_app.core import history


def register(commands: declaring.Commands) -> None:
    p = commands.command("entities", cmd_entities, "list entities with their tier counts")
    p.add_argument("--scope", help="global, agents, or agent:ID")
    p.add_argument(
        "--para", choices=layout.PARA_CATEGORIES, help="only the entities of this PARA folder"
    )
    p.add_argument(  # the first spelling of --para
        "--category", dest="para", choices=layout.PARA_CATEGORIES, help=argparse.SUPPRESS
    )
    p = commands.command("show", cmd_show, "an entity's summary and facts")
    p.add_argument("entity", help="areas/people/jane or agent:finance:projects/budget")
    p.add_argument("--all", action="store_true", help="include superseded facts")
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="as believed then: the facts active on DATE (YYYY-MM-DD: its end; or an ISO "
        "time) with their tiers then, and the summary then from the backup ring",
    )
    p = commands.command("related", cmd_related, "entities linked by relatedEntities, both ways")
    p.add_argument("entity")

    entity = commands.group("entity", "create, archive or unarchive entities")
    p = commands.command("create", cmd_entity_create, "create an entity", within=entity)
    p.add_argument("entity")
    p.add_argument("--summary", help="first lines of summary.md")
    p = commands.command(
        "archive", cmd_entity_archive, "move an entity under archives/", within=entity
    )
    p.add_argument("entity")
    p = commands.command(
        "unarchive",
        cmd_entity_unarchive,
        "move an archived entity back where it was archived from",
        within=entity,
    )
    p.add_argument("entity", help="archives/old-fence or agent:finance:archives/x")
    p.add_argument(
        "--category",
        choices=("projects", "areas", "resources"),
        help="where to put it (default: where the audit log says it was archived from)",
    )


def summary_json(row: models.EntitySummary) -> dict[str, Any]:
    return {
        "entity": row.address,
        "scope": row.scope,
        "path": row.path,
        "facts": row.total,
        "active": row.active,
        "hot": row.hot,
        "warm": row.warm,
        "cold": row.cold,
        "superseded": row.superseded,
        "hasSummary": row.has_summary,
        "problem": row.problem,
    }


def cmd_entities(args: argparse.Namespace) -> None:
    v = open_vault(args)
    rows = v.scan().entities
    if args.scope:
        rows = [
            r
            for r in rows
            if r.scope == args.scope or (args.scope == "agents" and r.scope != "global")
        ]
    if args.para:
        rows = [r for r in rows if r.path.split("/", 1)[0] == args.para]
    emit(
        args,
        [summary_json(r) for r in rows],
        lambda: table(
            [
                [r.address, r.active, r.hot, r.warm, r.cold, r.superseded, r.problem or ""]
                for r in rows
            ],
            ["entity", "active", "hot", "warm", "cold", "superseded", "problem"],
        ),
    )


def cmd_show(args: argparse.Namespace) -> None:
    if args.as_of is not None:
        show_as_of(args)
        return
    v = open_vault(args)
    view = v.entity(args.entity)
    now = v.now()
    shown = [f for f in view.facts if args.all or f.is_active]
    tiers = {f.id: v.tier(f, now) for f in view.facts if f.is_active}
    data = {
        "entity": str(view.ref),
        "folder": str(view.folder),
        "factsFile": str(view.facts_path),
        "format": view.file.dialect.describe() if view.file else [],
        "summary": view.summary.text,
        "facts": [fact_json(f, view.ref, tiers.get(f.id)) for f in shown],
        "invalid": [{"location": e.location, "reason": e.reason} for e in view.invalid],
        "error": str(view.error) if view.error else None,
        "summaryError": str(view.summary.error) if view.summary.error else None,
    }

    def text() -> str:
        lines = [f"# {view.ref}", ""]
        for problem in (view.error, view.summary.error):
            if problem:
                lines += [f"error: {problem}", ""]
        if view.summary.text:
            lines += [view.summary.text.rstrip(), ""]
        lines.append(f"Facts ({len(shown)} shown of {len(view.facts)}):")
        lines += ["  " + fact_line(f, tiers.get(f.id)) for f in shown]
        lines += [f"  invalid {e.location}: {e.reason}" for e in view.invalid]
        return "\n".join(lines)

    emit(args, data, text)


def _when(value: str) -> dt.date | dt.datetime:
    """`--as-of`: a day (its end) or an ISO time."""
    if len(value) == 10:
        return arguments.day(value)
    return arguments.moment(value)


def show_as_of(args: argparse.Namespace) -> None:
    """`show ENTITY --as-of DATE`: `show`'s shape, as believed then (`Vault.as_of`)."""
    if args.all:
        raise UsageError("--all and --as-of do not go together: --as-of shows what was active")
    when = _when(args.as_of)
    v = open_vault(args)
    then = v.as_of(args.entity, when)
    view = v.entity(then.ref)

    def ended(item: history.FactThen) -> dict[str, Any] | None:
        end = item.ended
        if end is None:
            return None
        return {"how": end.how, "at": end.at.isoformat() if end.at else None, "by": end.by}

    facts = []
    for item in then.facts:
        data = fact_json(item.fact, then.ref, item.tier)
        data["endedLater"] = ended(item)
        facts.append(data)
    data = {
        "entity": str(then.ref),
        "asOf": then.moment.isoformat(),
        "folder": str(view.folder),
        "factsFile": str(view.facts_path),
        "format": view.file.dialect.describe() if view.file else [],
        "summary": then.summary.text,
        "summaryWritten": then.summary.written.isoformat() if then.summary.written else None,
        "summaryNote": then.summary.note,
        "facts": facts,
        "createdLater": then.later,
        "uncertain": [f.id for f in then.uncertain],
        "invalid": [{"location": e.location, "reason": e.reason} for e in view.invalid],
        "error": None,
        "summaryError": None,
    }

    def text() -> str:
        lines = [f"# {then.ref} as of {then.moment:%Y-%m-%d %H:%M %Z}".rstrip(), ""]
        lines.append(f"Summary then: {then.summary.note}")
        if then.summary.text:
            lines += ["", then.summary.text.rstrip()]
        lines += ["", f"Facts active then ({len(then.facts)}; {then.later} created later):"]
        for item in then.facts:
            line = "  " + fact_line(item.fact, item.tier)
            if item.ended is not None:
                at = f" on {item.ended.at:%Y-%m-%d}" if item.ended.at else ""
                line += f"  [{item.ended.how} later{at}]"
            lines.append(line)
        if then.uncertain:
            lines.append(
                f"  ({len(then.uncertain)} superseded with no record of when, left out: "
                + ", ".join(f.id for f in then.uncertain)
                + ")"
            )
        lines += [f"  invalid {e.location}: {e.reason}" for e in view.invalid]
        return "\n".join(lines)

    emit(args, data, text)


def cmd_related(args: argparse.Namespace) -> None:
    v = open_vault(args)
    links = v.related(args.entity)
    emit(
        args,
        {"entity": args.entity, **links},
        lambda: "\n".join(
            [f"{args.entity} names:"]
            + [f"  → {r}" for r in links["outgoing"]]
            + ["named by:"]
            + [f"  ← {r}" for r in links["incoming"]]
        ),
    )


def cmd_entity_create(args: argparse.Namespace) -> None:
    v = open_vault(args)
    folder = v.create_entity(args.entity, args.summary)
    emit(args, {"entity": args.entity, "folder": str(folder)}, f"Created {args.entity} at {folder}")


def cmd_entity_archive(args: argparse.Namespace) -> None:
    v = open_vault(args)
    target = v.archive_entity(args.entity)
    emit(
        args,
        {"entity": args.entity, "archivedAs": str(target)},
        f"Archived {args.entity} as {target}",
    )


def cmd_entity_unarchive(args: argparse.Namespace) -> None:
    v = open_vault(args)
    target = v.unarchive_entity(args.entity, args.category)
    emit(
        args,
        {"entity": args.entity, "unarchivedAs": str(target)},
        f"Unarchived {args.entity} as {target}",
    )
