"""Agents' writes, for the person in charge: `review list|show|approve|reject` (the
writes the injection scan held back), `activity` (the audit log, newest first) and
`agent token` (the bearer token an agent presents to `vault-app serve`).

In a neighbour's folder (a Hermes home...) `review`, `activity` and `agent token` work
on what vault-app keeps about it in its state folder (`core.neighbours.agents`): the
queue of its agents' flagged writes, the audit log, their tokens' hashes; nothing is
written into the folder."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from vault_app.cli import declaring, opening
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit, table


def register(commands: declaring.Commands) -> None:
    group = commands.group("review", "agent writes held for a person (injection scan)")
    p = commands.command("list", cmd_list, "list proposals (pending only by default)", within=group)
    p.add_argument("--all", action="store_true", help="decided ones too")
    p = commands.command("show", cmd_show, "show a proposal, with its diff", within=group)
    p.add_argument("review_id")
    p = commands.command("approve", cmd_approve, "apply a proposal as its agent", within=group)
    p.add_argument("review_id")
    p = commands.command("reject", cmd_reject, "reject a proposal (kept)", within=group)
    p.add_argument("review_id")
    p.add_argument("--reason", help="why, for the record")
    p = commands.command("activity", cmd_activity, "recent writes from the audit log")
    p.add_argument("--agent", help="only this agent's writes")
    p.add_argument("--action", help="only this action (fact.add) or family (fact)")
    p.add_argument("--limit", type=declaring.whole(1, 100_000), default=50)


def register_token(commands: declaring.Commands, agent: declaring.Subcommands) -> None:
    """`agent token ID [--revoke]`, in the `agent` group that `cli.agents` declares."""
    p = commands.command(
        "token", cmd_token, "issue (or rotate) an agent's token for vault-app serve", within=agent
    )
    p.add_argument("agent_id")
    p.add_argument("--revoke", action="store_true", help="revoke the agent's token instead")


def _queue(args: argparse.Namespace) -> Any:
    """The review queue of the vault or neighbour's folder the command works on."""
    from vault_app.workspace import reviews

    foreign = opening.open_foreign(args)  # a neighbour's folder: its queue in our state
    return reviews.queue_of(foreign if foreign is not None else open_vault(args))


def cmd_list(args: argparse.Namespace) -> None:
    from vault_app.core import injection  # (the core: --help stays light)

    queue = _queue(args)
    rows = [queue.describe(p) for p in queue.proposals(every=args.all)]
    for where in queue.damaged():  # a held write nobody can read is never hidden
        print(
            f"vault-app: error: {where} is a damaged review item (a held write that cannot "
            "be read); `vault-app doctor --repair` restores it from its backup",
            file=sys.stderr,
        )
    emit(
        args,
        rows,
        lambda: (
            table(
                [
                    [
                        r["id"],
                        r["status"],
                        *map(injection.visible, (r["agent"], r["kind"])),
                        injection.visible(r["target"]),
                        injection.visible(_why(r)),
                    ]
                    for r in rows
                ],
                ["id", "status", "agent", "kind", "target", "why"],
            )
            if rows
            else "No proposals waiting for review."
        ),
    )


def cmd_show(args: argparse.Namespace) -> None:
    queue = _queue(args)
    described = queue.describe(queue.get(args.review_id))
    emit(args, described, lambda: _show(described))


def cmd_approve(args: argparse.Namespace) -> None:
    queue = _queue(args)
    described = queue.describe(queue.approve(args.review_id))
    emit(args, described, f"Approved {args.review_id}: applied as agent {described['agent']}")


def cmd_reject(args: argparse.Namespace) -> None:
    queue = _queue(args)
    described = queue.describe(queue.reject(args.review_id, args.reason))
    emit(args, described, f"Rejected {args.review_id} (kept in {queue.shown_folder})")


def cmd_activity(args: argparse.Namespace) -> None:
    from vault_app.core import activity, storage

    foreign = opening.open_foreign(args)  # a neighbour's folder: its log in our state
    if foreign is not None:
        state = foreign.files.state
        lines = activity.recent(
            state,
            limit=args.limit,
            agent=args.agent,
            action=args.action,
            log=state / storage.AUDIT_NAME,
        )
    else:
        v = open_vault(args)
        lines = activity.recent(v.root, limit=args.limit, agent=args.agent, action=args.action)
    emit(
        args,
        lines,
        lambda: table(
            [[e.get("time"), e.get("actor"), e.get("action"), e.get("target")] for e in lines],
            ["time", "actor", "action", "target"],
        ),
    )


def cmd_token(args: argparse.Namespace) -> None:
    from vault_app.core import tokens
    from vault_app.core.neighbours import agents

    # a neighbour's folder: the hashes go to vault-app's state folder for it, not into it
    foreign = opening.open_foreign(args)
    v = open_vault(args) if foreign is None else None
    if args.revoke:
        if foreign is not None:
            done = agents.revoke_token(foreign, args.agent_id)
        else:
            assert v is not None
            done = tokens.revoke(v, args.agent_id)
        emit(
            args,
            {"agent": args.agent_id, "revoked": done},
            f"Revoked the token of {args.agent_id}" if done else f"{args.agent_id} had no token",
        )
        return
    if foreign is not None:
        token = agents.issue_token(foreign, args.agent_id)
    else:
        assert v is not None
        token = tokens.issue(v, args.agent_id)
    hint = (
        "Shown once. Give it to the agent's MCP client as the header "
        "'Authorization: Bearer <token>' for vault-app serve; run this again to rotate it."
    )
    emit(args, {"agent": args.agent_id, "token": token, "hint": hint}, f"{token}\n{hint}")


def _why(row: dict[str, Any]) -> str:
    return "; ".join(f["detail"] for f in row["findings"])


def _show(r: dict[str, Any]) -> str:
    """A proposal for a terminal: every field of the write, as it would be applied, and
    each finding with the field it is in; whatever an agent wrote passes
    `injection.visible` (its escapes and bidi controls shown as ⟨U+…⟩, never run)."""
    from vault_app.core import injection

    def shown(value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return injection.visible(text).replace("\n", "\n         ")

    lines = [
        f"{r['id']}  {r['status']}",
        f"agent:   {shown(r['agent'])}  ({r['created']})",
        f"write:   {shown(r['kind'])} -> {shown(r['target'])}",
    ]
    for f in r["findings"]:
        where = f" in {shown(f['field'])}" if f.get("field") else ""
        lines.append(f"finding: {f['kind']}{where}: {shown(f['detail'])} ({shown(f['excerpt'])})")
    if r["decidedBy"]:
        lines.append(f"decided: {r['status']} by {shown(r['decidedBy'])} at {r['decidedAt']}")
    if r["reason"]:
        lines.append(f"reason:  {shown(r['reason'])}")
    if r["result"] and "error" in r["result"]:
        lines.append(f"error:   {shown(r['result']['error'])}")
    lines.append("fields:")
    lines += [f"  {shown(key)}: {shown(value)}" for key, value in r["params"].items()]
    if r["diff"]:
        lines += ["", *(injection.visible(line) for line in r["diff"])]
    return "\n".join(lines)
