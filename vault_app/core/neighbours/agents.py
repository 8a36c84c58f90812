"""A neighbour's agents writing their own memory: the write path, the review queue of the
writes the injection scan holds back, and the agents' bearer tokens for `vault-app serve`.

The rules are a PARA vault's (`core.agent_writes`, `core.review`, `core.tokens`), over
a `ForeignFolder` opened as the agent (actor `agent:<id>`, so every write's audit line
names it):

- `submit(folder, write)` takes the same `agent_writes.AgentWrite` an MCP tool makes in
  a vault, and the same flow (`agent_writes.submit_to` over a `FolderPlace`). It is
  checked (the folder acts as the write's agent, who is one of the folder's agents; the
  kind is one the format keeps, `KINDS`; the parameters are valid), every text the
  agent wrote is scanned (`injection.scan`), and a flagged write waits for a person
  (`propose`) instead of being applied. Otherwise it is applied in
  the owner's format by the folder's adapter (locks, `.bak` rules, backups). Agents
  write only their own memory; nothing here writes principles (MicroClaw's
  `groups/AGENTS.md` is a person's, `MicroClawRuntime.write_principles`).
- The review queue lives in vault-app's state folder for the folder
  (`<state>/review/<id>.json`, `files.state_dir`), never in the folder: proposals in
  `core.review`'s own format (`review.encode`), listed, approved (applied as the
  proposing agent) and rejected by a person with a vault's decisions
  (`review.approve_in`, `reject_in` over an `InFolder`).
- Tokens: `<state>/agent-tokens.json`, the hashes only, in `core.tokens`' format;
  `token_table(root)` is where `vault-app serve` checks them.

========  ==============================================  ===========================
format    an agent writes (`AgentWrite.kind`)             the file
========  ==============================================  ===========================
hermes    memory, memory_batch (§ notes, Hermes' rules)    memories/MEMORY.md, USER.md
picoclaw  profile_set, profile_delete, append_daily       memory/profile.json, daily notes
microclaw tiers_write, append_daily                       <chat>/<persona>/MEMORY.md, logs
========  ==============================================  ===========================
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vault_app.core import (
    access,
    agent_memory,
    agent_writes,
    decay,
    errors,
    formats,
    injection,
    layout,
    notes,
    profile,
    review,
    tiers,
    tokens,
    write_kinds,
)
from vault_app.core.neighbours import detect, files, folder

KINDS: dict[str, frozenset[str]] = {
    detect.HERMES: frozenset({"memory", "memory_batch"}),
    detect.PICOCLAW: frozenset({"profile_set", "profile_delete", "append_daily"}),
    detect.MICROCLAW: frozenset({"tiers_write", "append_daily"}),
}
_PERSONA = re.compile(r"^-?\d{1,20}/-?\d{1,20}$")  # MicroClaw's CHAT/PERSONA


# -- writes ---------------------------------------------------------------------------


def check(target: folder.ForeignFolder, write: agent_writes.AgentWrite) -> list[str]:
    """Refuse what `write` may not do or cannot be; returns the texts its agent wrote."""
    if target.who.agent != write.agent:
        raise errors.AccessDeniedError(
            f"a write of agent {write.agent!r} must be made by a folder opened as "
            f"agent:{write.agent}, not by actor {target.actor!r}"
        )
    agent = target.agent(write.agent)
    if write.kind not in KINDS[target.format]:
        raise folder.UnsupportedError(
            f"a {target.name} keeps no place for {write.kind} ({target.root}); "
            f"it keeps {target.keeps}"
        )
    write_kinds.kind_of(write).check_names(write)
    p = write.params
    if write.kind in ("memory", "memory_batch"):
        target_name = _text(write, "target")
        agent_memory.check_target(target_name)
        if not target.read_notes(agent, target_name).enabled:
            raise agent_memory.DisabledError(
                f"the {target_name} store of {target.root} is off in its config.yaml; "
                "it can be read, not written"
            )
        if write.kind == "memory_batch":
            return [op.content for op in notes.operations(p["operations"]) if op.content]
        action = _text(write, "action")
        needs = {"add": ("content",), "replace": ("old_text", "content"), "remove": ("old_text",)}
        if action not in needs:
            raise errors.InvalidFactError(
                f"memory: action {action!r} is not add, replace or remove"
            )
        for name in needs[action]:
            _text(write, name, blank=False)
        return [p["content"]] if isinstance(p.get("content"), str) else []
    if write.kind == "tiers_write":
        if not isinstance(p["tier"], int) or isinstance(p["tier"], bool):
            raise errors.InvalidFactError(f"tiers_write: tier {p['tier']!r} is not 1, 2 or 3")
        tiers.check(p["tier"])
        return [tiers.check_body(_text(write, "text"))]
    if write.kind in ("profile_set", "profile_delete"):
        key = profile.check_key(_text(write, "key"))
        return [key] if write.kind == "profile_delete" else [key, _text(write, "value")]
    if p.get("scope", "agent") != "agent":
        raise errors.InvalidIdError(
            f"append_daily: a {target.name} keeps no global daily note; scope is 'agent'"
        )
    return [_text(write, "text", blank=False)]


@dataclasses.dataclass(frozen=True)
class FolderPlace:
    """A neighbour's folder as the place of agent writes (`agent_writes.Place`)."""

    folder: folder.ForeignFolder

    def check(self, write: agent_writes.AgentWrite) -> list[str]:
        return check(self.folder, write)

    def apply(self, write: agent_writes.AgentWrite) -> agent_writes.Applied:
        return apply(self.folder, write)

    def propose(
        self, write: agent_writes.AgentWrite, findings: list[injection.Finding]
    ) -> review.Proposal:
        return propose(self.folder, write, findings)

    def held_by_owner(self) -> str | None:
        return self.folder.approval_needed()  # Hermes' memory.write_approval


def submit(
    target: folder.ForeignFolder, write: agent_writes.AgentWrite
) -> agent_writes.Applied | agent_writes.Pending:
    """Check, scan, then apply or queue for review `write`: a vault's flow
    (`agent_writes.submit_to`), and a folder whose owner asks to approve each write
    (Hermes' `memory.write_approval`) holds them all."""
    return agent_writes.submit_to(FolderPlace(target), write)


def apply(target: folder.ForeignFolder, write: agent_writes.AgentWrite) -> agent_writes.Applied:
    """Apply `write` in the owner's format, as its agent: checked again, not scanned."""
    check(target, write)
    p, agent, root = write.params, write.agent, target.root
    if write.kind == "memory":
        state = target.change_notes(
            agent, p["target"], p["action"], content=p.get("content"), old_text=p.get("old_text")
        )
        return agent_writes.Applied(state.to_dict(root))
    if write.kind == "memory_batch":
        ops = notes.operations(p["operations"])
        return agent_writes.Applied(target.batch_notes(agent, p["target"], ops).to_dict(root))
    if write.kind == "tiers_write":
        tiered = target.write_tier(agent, p["tier"], p["text"])
        return agent_writes.Applied(tiered.to_dict(root, p["tier"]))
    if write.kind == "profile_set":
        return agent_writes.Applied(target.set_profile(agent, p["key"], p["value"]).to_dict(root))
    if write.kind == "profile_delete":
        return agent_writes.Applied(target.delete_profile(agent, p["key"]).to_dict(root))
    day = write.at.date() if write.at is not None else None
    note = target.daily_append(agent, p["text"], day)
    entry = {"date": note.date.isoformat(), "time": None, "agent": agent, "text": p["text"].strip()}
    return agent_writes.Applied({"entry": entry, "file": target.files.relative(note.path)})


def target_file(target: folder.ForeignFolder, write: agent_writes.AgentWrite) -> Path:
    """The file of the folder that `write` changes."""
    agent, p = write.agent, write.params
    if write.kind in ("memory", "memory_batch"):
        return target.read_notes(agent, str(p.get("target"))).path
    if write.kind == "tiers_write":
        return target.read_tiers(agent).path
    if write.kind in ("profile_set", "profile_delete"):
        return target.read_profile(agent).path
    return target.daily_note(agent, write.at.date() if write.at else target.today()).path


def _text(write: agent_writes.AgentWrite, name: str, *, blank: bool = True) -> str:
    value = write.params.get(name)
    if not isinstance(value, str) or (not blank and not value.strip()):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be a non-empty string")
    return value


# -- the review queue -----------------------------------------------------------------


def _name(review_id: str) -> str:
    return f"{review.REVIEW_DIR}/{review.check_id(review_id)}.json"


def _now(target: folder.ForeignFolder) -> dt.datetime:
    return decay.as_aware(target.clock())


def propose(
    target: folder.ForeignFolder,
    write: agent_writes.AgentWrite,
    findings: list[injection.Finding],
) -> review.Proposal:
    """Queue `write` for a person: a new `<state>/review/<id>.json` (atomic), audited."""
    created = _now(target)
    review_id = review.new_id(created)
    proposal = review.Proposal(
        review_id, created, write.agent, write, list(findings), "pending",
        None, None, None, None,
    )  # fmt: skip
    target.files.write_state(_name(review_id), review.encode(proposal))
    target.files.audit(
        "review.propose",
        target_file(target, write),
        review=review_id,
        agent=write.agent,
        kind=write.kind,
    )
    return proposal


def all_proposals(target: folder.ForeignFolder) -> list[review.Proposal]:
    """Every proposal about the folder, oldest first (a file that is not one skipped)."""
    state = target.files.state
    return review.read_all(state, state / review.REVIEW_DIR, lambda i: get(target, i))


def pending(target: folder.ForeignFolder) -> list[review.Proposal]:
    return [p for p in all_proposals(target) if p.status == "pending"]


def get(target: folder.ForeignFolder, review_id: str) -> review.Proposal:
    name = _name(review_id)
    data = target.files.read_state(name)
    if data is None:
        raise errors.NotFoundError(f"no review {review_id} in {target.files.state / name}")
    return review.decode(target.files.state / name, data)


@dataclasses.dataclass
class _FolderHeld:
    target: folder.ForeignFolder
    proposal: review.Proposal

    def record(self, proposal: review.Proposal, action: str) -> None:
        _record(self.target, proposal, action)


@dataclasses.dataclass(frozen=True)
class InFolder:
    """A folder's review queue (`review.Queue`), in vault-app's state folder for it."""

    target: folder.ForeignFolder

    @property
    def actor(self) -> str:
        return self.target.actor

    @property
    def principal(self) -> access.Principal:
        agent = self.target.who.agent
        return access.Principal.person() if agent is None else access.Principal.of_agent(agent)

    def now(self) -> dt.datetime:
        return _now(self.target)

    @contextlib.contextmanager
    def holding(self, review_id: str) -> Iterator[review.Held]:
        with self.target.files.state_lock(_name(review_id)):
            yield _FolderHeld(self.target, get(self.target, review_id))

    def as_agent(self, proposal: review.Proposal) -> agent_writes.Place:
        t = self.target
        return FolderPlace(type(t)(t.root, actor=f"agent:{proposal.agent}", clock=t.clock))


def approve(target: folder.ForeignFolder, review_id: str) -> review.Proposal:
    """Apply the proposal's write as its agent (a folder opened as it) and mark it
    approved by `target.actor`; a write that fails now stays pending, its error kept
    (`review.approve_in`)."""
    return review.approve_in(InFolder(target), review_id)


def reject(
    target: folder.ForeignFolder, review_id: str, reason: str | None = None
) -> review.Proposal:
    """Mark the proposal rejected by `target.actor` (and why); nothing is applied."""
    return review.reject_in(InFolder(target), review_id, reason)


def describe(target: folder.ForeignFolder, proposal: review.Proposal) -> dict[str, Any]:
    """`review.describe`, the target named by the folder's own file."""
    write, p = proposal.write, proposal.write.params
    detail = {
        "memory": str(p.get("action")),
        "memory_batch": f"{len(p.get('operations') or [])} operations",
        "tiers_write": f"tier {p.get('tier')}",
        "profile_set": str(p.get("key")),
        "profile_delete": str(p.get("key")),
        "append_daily": "append",
    }.get(write.kind, write.kind)
    try:
        where = target.files.relative(target_file(target, write))
    except errors.VaultError:  # the agent or its file is gone: still shown
        where = write.kind
    return {**review.describe(proposal), "target": f"{where} ({detail})"}


def _record(target: folder.ForeignFolder, p: review.Proposal, action: str) -> None:
    target.files.write_state(_name(p.id), review.encode(p))
    target.files.audit(action, f"{review.REVIEW_DIR}/{p.id}.json", review=p.id, agent=p.agent)


# -- tokens ---------------------------------------------------------------------------


def check_agent_id(agent: str) -> str:
    """An agent id a neighbour's token table may name: a vault's, or `CHAT/PERSONA`."""
    if isinstance(agent, str) and _PERSONA.match(agent):
        return agent
    return layout.validate_agent_id(agent)


def token_table(root: Path) -> tokens.Table:
    """Where the tokens of the agents of the folder at `root` (resolved) are checked."""
    state = files.state_dir(root)
    return tokens.Table(state, state / tokens.TOKENS_NAME, check_agent_id)


def issue_token(target: folder.ForeignFolder, agent: str) -> str:
    """A new token for one of the folder's agents (rotating any it had), stored as a
    hash in vault-app's state folder; returned once."""
    review.check_person(InFolder(target).principal, target.actor, "issue tokens for")
    agent = target.agent(agent)
    table_at = token_table(target.root)
    with target.files.state_lock(tokens.TOKENS_NAME):
        table = tokens.read_table(table_at)
        token, digest = tokens.new_token()
        table[agent] = {"sha256": digest, "issued": formats.iso(_now(target))}
        target.files.write_state(tokens.TOKENS_NAME, tokens.encode(table))
    target.files.audit("token.issue", tokens.TOKENS_NAME, agent=agent)
    return token


def revoke_token(target: folder.ForeignFolder, agent: str) -> bool:
    """Forget an agent's token; False when it had none."""
    review.check_person(InFolder(target).principal, target.actor, "revoke tokens of")
    table_at = token_table(target.root)
    with target.files.state_lock(tokens.TOKENS_NAME):
        table = tokens.read_table(table_at)
        if agent not in table:
            return False
        del table[agent]
        target.files.write_state(tokens.TOKENS_NAME, tokens.encode(table))
    target.files.audit("token.revoke", tokens.TOKENS_NAME, agent=agent)
    return True
