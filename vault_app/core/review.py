"""The review queue: agent writes held back by the injection scan, waiting for a person.

Each proposal is one JSON file, `.vault/review/<id>.json`, written through the vault's
storage like every other file (lock, no symlink followed, atomic replace, backup, audit
line). Its id sorts by creation time (`r-YYYYMMDDTHHMMSSffffff-<hex>`), so the folder
lists oldest first. A proposal keeps the write exactly as the agent asked for it
(`agent_writes.AgentWrite`), the findings, and what the target held then (`before`: the
old fact's text, the document's text) for the diff a person reads.

A person decides: `approve` applies the write with `agent_writes.apply` through a vault
opened as the proposing agent (the write's audit line names the agent) and records who
approved (`decided_by`, and a `review.approve` audit line by the approver); `reject`
records who and why. Both happen under the proposal file's lock, so a proposal is
decided once. Decided proposals stay in the folder, never deleted. Agents do not decide
proposals (theirs or others'): an agent actor gets `AccessDeniedError`.

The decision is the same wherever the queue is kept: `approve_in(queue, id)` and
`reject_in(queue, id, reason)` over a `Queue`, a vault's (`InVault`, what `approve` and
`reject` use) or a neighbour's folder's (`neighbours.agents.InFolder`, in vault-app's
state folder for it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import difflib
import functools
import json
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import ValidationError

from vault_app.core import (
    access,
    agent_writes,
    errors,
    injection,
    quotas,
    safe_fs,
    storage,
    write_kinds,
)

if TYPE_CHECKING:
    from vault_app.core.vault import Vault

Status = Literal["pending", "approved", "rejected"]
REVIEW_DIR = "review"
_ID = re.compile(r"^r-[0-9]{8}T[0-9]{12}-[0-9a-f]{8}$")


@dataclasses.dataclass
class Proposal:
    id: str
    created: dt.datetime
    agent: str
    write: agent_writes.AgentWrite
    findings: list[injection.Finding]
    status: Status
    decided_by: str | None
    decided_at: dt.datetime | None
    reason: str | None
    result: dict[str, Any] | None
    before: str | None = None  # what the target held when proposed (for the diff)


def propose(
    vault: Vault, write: agent_writes.AgentWrite, findings: list[injection.Finding]
) -> Proposal:
    """Queue `write` for a person; a new file `.vault/review/<id>.json` (atomic). An
    agent whose held writes fill its quota is refused (`quotas.check_pending`)."""
    held = held_sizes(vault, write.agent)
    quotas.check_pending(vault.config.quotas, write.agent, held, quotas.size_of(write.params))
    created = vault.now()
    review_id = new_id(created)
    proposal = Proposal(
        review_id, created, write.agent, write, list(findings), "pending",
        None, None, None, None, _before(vault, write),
    )  # fmt: skip
    vault.storage.write(
        path_of(vault, review_id),
        encode(proposal),
        expected=None,
        action="review.propose",
        review=review_id,
        agent=write.agent,
        kind=write.kind,
    )
    return proposal


def all_proposals(vault: Vault) -> list[Proposal]:
    """Every proposal, oldest first; a file that is not one is skipped (logged by doctor)."""
    return read_all(vault.root, vault.paths.state_dir / REVIEW_DIR, lambda i: get(vault, i))


def read_all(root: Path, folder: Path, read: Callable[[str], Proposal]) -> list[Proposal]:
    """The proposals `read(id)` gives for the review files in `folder` (checked from
    `root` on), oldest first; a file that is not one is skipped."""
    safe_fs.check_tree(root, folder, safe_fs.STATE_READ)
    found = []
    for entry in safe_fs.regular_files(folder):
        review_id = entry.name.removesuffix(".json")
        if entry.name.endswith(".json") and is_id(review_id):
            try:
                found.append(read(review_id))
            except (errors.CorruptFileError, errors.NotFoundError):
                continue
    return sorted(found, key=lambda p: (p.created, p.id))


def held_sizes(vault: Vault, agent: str) -> list[int]:
    """The sizes (`quotas.size_of`) of the writes `agent` holds pending: what its review
    quota counts. Each file is decoded once per version (`_held`), so a queue of
    hundreds costs a listing and a `stat` a file, not a decode, at every proposal."""
    folder = vault.paths.state_dir / REVIEW_DIR
    safe_fs.check_tree(vault.root, folder, safe_fs.STATE_READ)
    sizes = []
    for entry in safe_fs.regular_files(folder):
        if not (entry.name.endswith(".json") and is_id(entry.name.removesuffix(".json"))):
            continue
        info = entry.stat(follow_symlinks=False)
        held = _held(entry.path, info.st_ino, info.st_size, info.st_mtime_ns)
        if held is not None and held[0] == agent:
            sizes.append(held[1])
    return sizes


@functools.lru_cache(maxsize=4096)
def _held(path: str, inode: int, size: int, mtime_ns: int) -> tuple[str, int] | None:
    """(agent, size of the write) of the pending proposal in one version of a file
    (its identity and time the key), None when it is decided or not a proposal."""
    try:
        proposal = decode(Path(path), safe_fs.read_file(path) or b"")
    except (OSError, errors.VaultError):
        return None
    if proposal.status != "pending":
        return None
    return proposal.agent, quotas.size_of(proposal.write.params)


def damaged(vault: Vault) -> list[Path]:
    """The files of the review queue that cannot be read as proposals (`review list`
    and `doctor` report them; `doctor --repair` restores them from their backups): a held
    write is never dropped silently."""
    folder = vault.paths.state_dir / REVIEW_DIR
    safe_fs.check_tree(vault.root, folder, safe_fs.STATE_READ)
    found = []
    for entry in safe_fs.regular_files(folder):
        if not entry.name.endswith(".json"):
            continue
        path = folder / entry.name
        try:
            decode(path, vault.storage.read(path) or b"")
        except errors.CorruptFileError:
            found.append(path)
    return found


def pending(vault: Vault) -> list[Proposal]:
    return [p for p in all_proposals(vault) if p.status == "pending"]


def get(vault: Vault, review_id: str) -> Proposal:
    """The proposal `review_id`; NotFoundError if there is none, CorruptFileError if its
    file cannot be read as one."""
    path = path_of(vault, review_id)
    data = vault.storage.read(path)
    if data is None:
        raise errors.NotFoundError(f"no review {review_id} in {path.parent}")
    return decode(path, data)


class Held(Protocol):
    """A proposal read under its file's lock, and how its decision is recorded (once)."""

    proposal: Proposal

    def record(self, proposal: Proposal, action: str) -> None:
        """Write `proposal` back and audit `action` (review.approve, .reject, .fail)."""


class Queue(Protocol):
    """A review queue as a decision needs it."""

    @property
    def actor(self) -> str:
        """Who decides (the audit log's actor)."""

    @property
    def principal(self) -> access.Principal:
        """Who decides, as the access policy knows them."""

    def now(self) -> dt.datetime: ...

    def holding(self, review_id: str) -> contextlib.AbstractContextManager[Held]:
        """The proposal `review_id` under its file's lock (NotFoundError: none)."""

    def as_agent(self, proposal: Proposal) -> agent_writes.Place:
        """The place the proposal's write lands, opened as its agent."""


def approve_in(queue: Queue, review_id: str) -> Proposal:
    """Apply the proposal's write as its agent and mark it approved by the queue's actor.

    A write that fails now (the fact was superseded meanwhile, the agent lost its global
    permission, the document changed) leaves the proposal pending with the error in its
    `result`, and the error is raised.
    """
    check_person(queue.principal, queue.actor, "approve")
    with queue.holding(review_id) as held:
        proposal = check_pending(held.proposal, review_id)
        try:
            applied = queue.as_agent(proposal).apply(proposal.write)
        except errors.VaultError as exc:
            proposal.result = {"error": str(exc)}
            held.record(proposal, "review.fail")
            raise
        decide(proposal, "approved", queue.actor, queue.now(), None, applied.result)
        held.record(proposal, "review.approve")
    return proposal


def reject_in(queue: Queue, review_id: str, reason: str | None = None) -> Proposal:
    """Mark the proposal rejected by the queue's actor (and why); nothing is applied."""
    check_person(queue.principal, queue.actor, "reject")
    with queue.holding(review_id) as held:
        proposal = check_pending(held.proposal, review_id)
        decide(proposal, "rejected", queue.actor, queue.now(), reason, None)
        held.record(proposal, "review.reject")
    return proposal


@dataclasses.dataclass
class _VaultHeld:
    proposal: Proposal
    tx: storage.Transaction

    def record(self, proposal: Proposal, action: str) -> None:
        self.tx.commit(encode(proposal), action, review=proposal.id, agent=proposal.agent)


@dataclasses.dataclass(frozen=True)
class InVault:
    """A vault's review queue, `.vault/review/`, decided by the vault's actor."""

    vault: Vault

    @property
    def actor(self) -> str:
        return self.vault.actor

    @property
    def principal(self) -> access.Principal:
        return self.vault.principal

    def now(self) -> dt.datetime:
        return self.vault.now()

    @contextlib.contextmanager
    def holding(self, review_id: str) -> Iterator[Held]:
        path = path_of(self.vault, review_id)
        with self.vault.storage.transaction(path) as tx:
            yield _VaultHeld(_pending(path, tx.data, review_id), tx)

    def as_agent(self, proposal: Proposal) -> agent_writes.Place:
        from vault_app.core.vault import Vault  # the facade imports most of core

        v = self.vault
        return agent_writes.VaultPlace(
            Vault(
                v.root,
                clock=v.clock,
                actor=proposal.write.actor,
                settings=v.config,
                approved=True,  # a write the policy holds for a person's approval now has it
            )
        )


def approve(vault: Vault, review_id: str) -> Proposal:
    """`approve_in` the vault's queue (see there)."""
    return approve_in(InVault(vault), review_id)


def reject(vault: Vault, review_id: str, reason: str | None = None) -> Proposal:
    """`reject_in` the vault's queue (see there)."""
    return reject_in(InVault(vault), review_id, reason)


def describe(p: Proposal) -> dict[str, Any]:
    """The proposal for people and faces (CLI --json, MCP, window): who, when, why (the
    findings), what (kind, target, text) and, for a supersede or a document, the diff."""
    write, params = p.write, p.write.params
    kind = write_kinds.kind_of(write)
    answer: dict[str, Any] = {
        "id": p.id,
        "status": p.status,
        "agent": p.agent,
        "created": p.created.isoformat(),
        "kind": write.kind,
        "target": kind.target(write),
        "text": kind.shown(write),  # what the agent wrote, as a person reads it
        "at": None if write.at is None else write.at.isoformat(),
        "params": params,
        "findings": [dataclasses.asdict(f) for f in p.findings],
        "decidedBy": p.decided_by,
        "decidedAt": None if p.decided_at is None else p.decided_at.isoformat(),
        "reason": p.reason,
        "result": p.result,
        "diff": None,
    }
    if kind.changes_something_held:
        name = params.get("name") or params.get("fact_id")
        answer["diff"] = list(
            difflib.unified_diff(
                (p.before or "").splitlines(),
                str(params.get("text", "")).splitlines(),
                f"{name} (now)",
                f"{name} (proposed)",
                lineterm="",
            )
        )
    return answer


# -- files -----------------------------------------------------------------------------


def is_id(name: str) -> bool:
    return bool(_ID.match(name))


def check_id(review_id: str) -> str:
    """`review_id` if it is a review id (`r-YYYYMMDDTHHMMSSffffff-<hex>`), else an error."""
    if not isinstance(review_id, str) or not _ID.match(review_id):
        raise errors.InvalidIdError(f"invalid review id {review_id!r} (e.g. r-20260101T...)")
    return review_id


def new_id(created: dt.datetime) -> str:
    """A new review id: it sorts by `created`."""
    return f"r-{created.astimezone(dt.UTC):%Y%m%dT%H%M%S%f}-{secrets.token_hex(4)}"


def path_of(vault: Vault, review_id: str) -> Path:
    return vault.paths.state_dir / REVIEW_DIR / f"{check_id(review_id)}.json"


def encode(p: Proposal) -> bytes:
    data = {
        "id": p.id,
        "created": p.created.isoformat(),
        "agent": p.agent,
        "write": p.write.model_dump(mode="json"),
        "findings": [dataclasses.asdict(f) for f in p.findings],
        "status": p.status,
        "decidedBy": p.decided_by,
        "decidedAt": None if p.decided_at is None else p.decided_at.isoformat(),
        "reason": p.reason,
        "result": p.result,
        "before": p.before,
    }
    return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"


def decode(path: Path, data: bytes) -> Proposal:
    try:
        raw = json.loads(storage.decode_text(path, data))
        status = raw["status"]
        if status not in ("pending", "approved", "rejected"):
            raise ValueError(f"unknown status {status!r}")
        decided_at = raw.get("decidedAt")
        return Proposal(
            id=str(raw["id"]),
            created=dt.datetime.fromisoformat(raw["created"]),
            agent=str(raw["agent"]),
            write=agent_writes.AgentWrite.model_validate(raw["write"]),
            findings=[injection.Finding(**f) for f in raw["findings"]],
            status=status,
            decided_by=raw.get("decidedBy"),
            decided_at=None if decided_at is None else dt.datetime.fromisoformat(decided_at),
            reason=raw.get("reason"),
            result=raw.get("result"),
            before=raw.get("before"),
        )
    except (ValueError, KeyError, TypeError, ValidationError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise errors.CorruptFileError(path, f"not a review proposal: {reason}") from None


def _pending(path: Path, data: bytes | None, review_id: str) -> Proposal:
    if data is None:
        raise errors.NotFoundError(f"no review {review_id} in {path.parent}")
    return check_pending(decode(path, data), review_id)


def check_pending(proposal: Proposal, review_id: str) -> Proposal:
    """`proposal` (read as `review_id`) if it still waits for a person; else a
    VaultError naming who decided it."""
    if proposal.status != "pending":
        raise errors.VaultError(
            f"review {review_id} was already {proposal.status} by {proposal.decided_by} "
            f"at {proposal.decided_at}"
        )
    return proposal


def decide(
    p: Proposal,
    status: Status,
    actor: str,
    at: dt.datetime,
    reason: str | None,
    result: dict[str, Any] | None,
) -> None:
    """Mark `p` decided (`status`) by `actor` at `at`, with the reason and result."""
    p.status, p.decided_by, p.decided_at = status, actor, at
    p.reason, p.result = reason, result


def check_person(who: access.Principal, actor: str, verb: str) -> None:
    """AccessDeniedError unless `who` may decide reviews (a person: `access.deciding`)."""
    decision = access.deciding(who)
    if not decision.allowed:
        raise errors.AccessDeniedError(f"{decision.reason} (may not {verb}; actor {actor!r})")


def _before(vault: Vault, write: agent_writes.AgentWrite) -> str | None:
    """What the target holds now, for the diff: the old fact's text, the document's."""
    return write_kinds.kind_of(write).before(vault, write)
