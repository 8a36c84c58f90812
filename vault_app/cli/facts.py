"""Facts: `fact add` writes one to an entity, `fact supersede` replaces one (the old one is
kept, superseded), `fact access` counts a use, `fact history` walks a lineage, `fact show`
prints one. `--category` here is the fact's category (relationship, milestone, ...)."""

from __future__ import annotations

import argparse

from vault_app.cli import declaring
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit, fact_json, fact_line
from vault_app.core import layout, models


def register(commands: declaring.Commands) -> None:
    fact = commands.group("fact", "add, supersede, access and trace facts")
    p = commands.command("add", cmd_fact_add, "add a fact to an entity", within=fact)
    p.add_argument("entity")
    _fact_fields(p, required=True)
    p.add_argument("--create", action="store_true", help="create the entity if missing")
    p = commands.command(
        "supersede", cmd_fact_supersede, "replace a fact, keeping the old one", within=fact
    )
    p.add_argument("fact_id")
    _fact_fields(p, required=False)
    p = commands.command("access", cmd_fact_access, "count an access of facts", within=fact)
    p.add_argument("fact_ids", nargs="+", metavar="FACT_ID")
    p.add_argument("--agent")
    p = commands.command("history", cmd_fact_history, "a fact's lineage, oldest first", within=fact)
    p.add_argument("fact_id")
    p = commands.command("show", cmd_fact_show, "one fact", within=fact)
    p.add_argument("fact_id")


def _fact_fields(p: argparse.ArgumentParser, required: bool) -> None:
    """What a new fact says. `--text` always; to supersede, the other fields not given are
    kept from the old fact."""
    p.add_argument("--text", required=True, help="the fact: one clear, atomic statement")
    p.add_argument(
        "--category",
        required=required,
        choices=[c.value for c in models.FactCategory],
    )
    p.add_argument("--related", nargs="+", metavar="ENTITY", help="related entity ids")
    p.add_argument("--source", help="a date or a reference (conversation id…)")
    p.add_argument("--agent", help="the agent writing it (audited as agent:ID)")
    p.add_argument("--confidence", type=float, default=None if not required else 1.0)


def cmd_fact_add(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    fact = v.add_fact(
        args.entity,
        args.text,
        args.category,
        related=args.related or (),
        source=args.source,
        agent_id=args.agent,
        confidence=args.confidence,
        create=args.create,
    )
    ref = layout.EntityRef.parse(args.entity)
    emit(args, fact_json(fact, ref, v.tier(fact)), f"Added {fact.id} to {ref}")


def cmd_fact_supersede(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    old, new = v.supersede_fact(
        args.fact_id,
        args.text,
        category=args.category,
        related=args.related,
        source=args.source,
        agent_id=args.agent,
        confidence=args.confidence,
    )
    emit(
        args,
        {"old": fact_json(old), "new": fact_json(new)},
        f"Superseded {old.id} by {new.id}",
    )


def cmd_fact_access(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    counts = v.mark_accessed(args.fact_ids)
    emit(
        args,
        [{"id": fid, "accessCount": n} for fid, n in counts.items()],
        lambda: "\n".join(f"{fid}: accessCount {n}" for fid, n in counts.items()),
    )


def cmd_fact_history(args: argparse.Namespace) -> None:
    v = open_vault(args)
    chain = v.fact_history(args.fact_id)
    emit(
        args,
        [fact_json(f, ref) for ref, f in chain],
        lambda: "\n".join(
            f"{'→ ' if i else '  '}{f.id} [{f.status.value}] {f.fact}  ({ref}, {f.timestamp})"
            for i, (ref, f) in enumerate(chain)
        ),
    )


def cmd_fact_show(args: argparse.Namespace) -> None:
    v = open_vault(args)
    ref, fact = v.fact(args.fact_id)
    tier = v.tier(fact) if fact.is_active else None
    emit(args, fact_json(fact, ref, tier), lambda: f"{ref}\n{fact_line(fact, tier)}")
