"""An agent's own memory files: `tiers` (MEMORY.md), `notes` (§ entries) and `profile`.

    tiers show|write --agent ID [--tier 1|2|3] [--text T | --file F]
    notes show|add|replace|remove --agent ID --target memory|user
          add TEXT · replace OLD NEW · remove OLD   (OLD: a unique substring of one entry)
    profile show|set|delete --agent ID [KEY] [VALUE]

A notes change refused (over budget, no unique match, a duplicate) exits 1 with the
reason on stderr; with `--json` the structured error (usage, limit, candidates) is also
printed on stdout, as the MCP tools return it. The rules are `core.agent_memory`'s.

In a neighbour's folder the same commands work in its own files (`core.neighbours`): a
Hermes home's notes, a PicoClaw workspace's profile, a MicroClaw runtime's tiers, with
`--agent` left out where the folder holds one agent; what a format lacks is refused,
naming what it keeps.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vault_app.cli import declaring, opening, output, reading
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit
from vault_app.cli.reading import read_text_arg


def register(commands: declaring.Commands) -> None:
    group = commands.group("tiers", "show or write an agent's tiered MEMORY.md")
    p = commands.command("show", cmd_tiers_show, "print MEMORY.md, or one tier", within=group)
    _agent(p)
    p.add_argument("--tier", type=int, choices=(1, 2, 3))
    p = commands.command(
        "write",
        cmd_tiers_write,
        "replace one tier (the rest kept byte for byte), or with no --tier the whole file "
        "(--text, --file, stdin or $EDITOR)",
        within=group,
    )
    _agent(p)
    p.add_argument("--tier", type=int, choices=(1, 2, 3))
    p.add_argument("--text")
    p.add_argument("--file", help="read the new text from a file (- for stdin)")

    group = commands.group(
        "notes", "an agent's notes (--target memory) or user profile (--target user), § entries"
    )
    p = commands.command("show", cmd_notes_show, "print the entries and the usage", within=group)
    _target(_agent(p))
    p = commands.command("add", cmd_notes_add, "add an entry (refused over budget)", within=group)
    _target(_agent(p))
    p.add_argument("content", metavar="TEXT")
    p = commands.command(
        "replace", cmd_notes_replace, "replace the entry holding OLD by NEW", within=group
    )
    _target(_agent(p))
    p.add_argument("old_text", metavar="OLD", help="a substring of exactly one entry")
    p.add_argument("content", metavar="NEW")
    p = commands.command("remove", cmd_notes_remove, "remove the entry holding OLD", within=group)
    _target(_agent(p))
    p.add_argument("old_text", metavar="OLD", help="a substring of exactly one entry")
    p = commands.command(
        "batch",
        cmd_notes_batch,
        "apply several add/replace/remove at once, all or none (budget on the result)",
        within=group,
    )
    _target(_agent(p))
    p.add_argument(
        "--file",
        default="-",
        help='a JSON list of {"action", "content", "old_text"} (default -: stdin)',
    )

    group = commands.group("profile", "an agent's key–value profile.json")
    p = commands.command("show", cmd_profile_show, "print the profile, or one key", within=group)
    _agent(p)
    p.add_argument("key", metavar="KEY", nargs="?")
    p = commands.command("set", cmd_profile_set, "set KEY to VALUE", within=group)
    _agent(p)
    p.add_argument("key", metavar="KEY")
    p.add_argument("value", metavar="VALUE")
    p = commands.command("delete", cmd_profile_delete, "remove KEY", within=group)
    _agent(p)
    p.add_argument("key", metavar="KEY")


def _agent(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument(
        "--agent",
        metavar="ID",
        help="the agent (may be left out in a Hermes home or a PicoClaw workspace, which "
        "hold one; a MicroClaw persona is CHAT/PERSONA)",
    )
    return p


class _VaultMemory:
    """`core.agent_memory` bound to a PARA vault, under the names a neighbour's folder
    answers to (`neighbours.ForeignFolder`), so that each command is written once."""

    def __init__(self, v: Any) -> None:
        self.v = v

    def __getattr__(self, name: str) -> Any:
        from vault_app.core import agent_memory

        call = getattr(agent_memory, name)

        def bound(agent: str | None, *rest: Any, **named: Any) -> Any:
            if agent is None:
                raise declaring.UsageError("--agent is required in a PARA vault")
            return call(self.v, agent, *rest, **named)

        return bound


def _memory(args: argparse.Namespace) -> tuple[Path, Any]:
    """(the folder's root, its agents' memory): a neighbour's folder in its own format,
    else the PARA vault's `agent_memory`."""
    foreign = opening.open_foreign(args)
    if foreign is not None:
        return foreign.root, foreign
    v = open_vault(args)
    return v.root, _VaultMemory(v)


def _where(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _target(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--target", required=True, choices=("memory", "user"), help="agent notes or user profile"
    )


# -- tiers -------------------------------------------------------------------------------


def cmd_tiers_show(args: argparse.Namespace) -> None:
    root, memory = _memory(args)
    state = memory.read_tiers(args.agent)
    where = _where(root, state.path)
    if args.tier is not None:
        text = state.memory.tier(args.tier) or f"(tier {args.tier} of {where} is empty)"
    else:
        text = state.text if state.text is not None else f"({where} does not exist yet)"
    emit(args, state.to_dict(root, args.tier), text)


def cmd_tiers_write(args: argparse.Namespace) -> None:
    root, memory = _memory(args)
    current = memory.read_tiers(args.agent)
    if args.tier is None:
        state = memory.write_tiers(args.agent, read_text_arg(args, current.text or ""))
        said = "Saved"
    else:
        body = read_text_arg(args, current.memory.tier(args.tier))
        state = memory.write_tier(args.agent, args.tier, body)
        said = f"Saved tier {args.tier} of"
    emit(args, state.to_dict(root, args.tier), f"{said} {_where(root, state.path)}")


# -- notes -------------------------------------------------------------------------------


def cmd_notes_show(args: argparse.Namespace) -> None:
    from vault_app.core import agent_memory, notes

    root, memory = _memory(args)
    state = memory.read_notes(args.agent, args.target)

    def text() -> str:
        name = agent_memory.TARGET_NAMES[state.target]
        off = "" if state.enabled else " — switched off"
        head = f"{name} of {state.agent} [{state.usage.meter()}]{off} {_where(root, state.path)}"
        return head + ("\n" + notes.join(state.entries) if state.entries else "\n(no entries)")

    emit(args, state.to_dict(root), text)


def cmd_notes_add(args: argparse.Namespace) -> int:
    return _change(args, "add", content=args.content)


def cmd_notes_replace(args: argparse.Namespace) -> int:
    return _change(args, "replace", old_text=args.old_text, content=args.content)


def cmd_notes_remove(args: argparse.Namespace) -> int:
    return _change(args, "remove", old_text=args.old_text)


def cmd_notes_batch(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from vault_app.core import errors

    source = "stdin" if args.file == "-" else args.file
    if args.file == "-" and sys.stdin.isatty():
        raise declaring.UsageError("give the operations with --file OPS.json, or pipe them in")
    data = reading.read_stdin() if args.file == "-" else None
    if data is None:
        data = reading.decode_input(Path(args.file).expanduser().read_bytes(), source)
    try:
        raw = json.loads(data)
    except json.JSONDecodeError as exc:
        raise errors.VaultError(f"{source}: not JSON ({exc.msg}, line {exc.lineno})") from None
    return _change(args, "batch", operations=raw)


_DONE = {
    "add": "Added to",
    "replace": "Replaced in",
    "remove": "Removed from",
    "batch": "Applied the operations to",
}


def _change(
    args: argparse.Namespace,
    action: str,
    *,
    content: str | None = None,
    old_text: str | None = None,
    operations: object = None,
) -> int:
    from vault_app.core import agent_memory, notes

    root, memory = _memory(args)
    try:
        if action == "batch":
            state = memory.batch_notes(args.agent, args.target, notes.operations(operations))
        else:
            state = memory.change_notes(
                args.agent, args.target, action, content=content, old_text=old_text
            )
    except notes.NotesError as exc:
        # the structured refusal, for scripts, beside the one error line for people
        if args.json:
            refusal = {"success": False, "agent": args.agent, "target": args.target}
            refusal.update(exc.to_dict())
            sys.stdout.buffer.write(output.json_bytes(refusal, indent=True) + b"\n")
        print(f"vault-app: error: {exc}", file=sys.stderr)
        return 1
    name = agent_memory.TARGET_NAMES[state.target]
    answer = {"success": True, **state.to_dict(root)}
    emit(args, answer, f"{_DONE[action]} {name} of {state.agent} [{state.usage.meter()}]")
    return 0


# -- profile -----------------------------------------------------------------------------


def cmd_profile_show(args: argparse.Namespace) -> None:
    from vault_app.core import errors, profile

    root, memory = _memory(args)
    state = memory.read_profile(args.agent)
    answer = state.to_dict(root)
    if args.key is not None:
        if args.key not in state.values:
            known = ", ".join(repr(k) for k in state.values) or "none"
            raise errors.NotFoundError(f"no profile key {args.key!r} (keys: {known})")
        emit(
            args,
            {**answer, "key": args.key, "value": state.values[args.key]},
            state.values[args.key],
        )
        return
    emit(args, answer, profile.as_markdown(state.values) or "(no profile yet)")


def cmd_profile_set(args: argparse.Namespace) -> None:
    root, memory = _memory(args)
    state = memory.set_profile(args.agent, args.key, args.value)
    emit(args, state.to_dict(root), f"Set {args.key} in {_where(root, state.path)}")


def cmd_profile_delete(args: argparse.Namespace) -> None:
    root, memory = _memory(args)
    state = memory.delete_profile(args.agent, args.key)
    emit(args, state.to_dict(root), f"Deleted {args.key} from {_where(root, state.path)}")
