"""Agents: `agents` lists them (entities, daily notes, whether they keep a TACIT.md),
`agent create` makes an agent's folder, `agent token` its token for `vault-app serve`
(declared in `cli.review`)."""

from __future__ import annotations

import argparse

from vault_app.cli import declaring, review
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit, table


def register(commands: declaring.Commands) -> None:
    commands.command("agents", cmd_agents, "list agents")
    agent = commands.group("agent", "manage agents")
    p = commands.command("create", cmd_agent_create, "create an agent folder", within=agent)
    p.add_argument("agent_id")
    review.register_token(commands, agent)


def cmd_agents(args: argparse.Namespace) -> None:
    v = open_vault(args)
    agents = v.agents()
    # an agent sees every agent's name, and counts only of the memory it may read
    entities = {a.id: len(v.entity_refs(a.id)) if v.reads_scope(a.id) else None for a in agents}
    notes = {a.id: len(a.daily_dates) if v.reads_scope(a.id) else None for a in agents}

    def shown(count: int | None) -> str | int:
        return "-" if count is None else count

    emit(
        args,
        [
            {
                "id": a.id,
                "folder": str(a.folder),
                "tacit": a.has_tacit,
                "context": a.has_context,
                "dailyNotes": notes[a.id],
                "entities": entities[a.id],
            }
            for a in agents
        ],
        lambda: table(
            [
                [a.id, shown(entities[a.id]), shown(notes[a.id]), "yes" if a.has_tacit else "no"]
                for a in agents
            ],
            ["agent", "entities", "daily notes", "TACIT.md"],
        ),
    )


def cmd_agent_create(args: argparse.Namespace) -> None:
    v = open_vault(args)
    folder = v.create_agent(args.agent_id)
    emit(
        args,
        {"agent": args.agent_id, "folder": str(folder)},
        f"Created agent {args.agent_id} at {folder}",
    )
