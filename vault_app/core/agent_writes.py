"""The one path every agent write takes: permission, validation, injection scan, apply.

What differs from one kind of write to another (its parameters, checks, effect, target)
is data, one `write_kinds.WriteKind` each; this module is the flow they all take.

An `AgentWrite` is a write an agent asks for (add a fact, supersede or archive one,
count accesses, append to its daily note, record a chat turn, write its TACIT.md, change
its own § notes, tiers or profile.json...),
as plain JSON-able data so that it can wait in the review queue and be applied later
exactly as asked. `submit` is what agents call (the MCP tools):

1. the write is checked: the vault must be acting as the write's agent, it is within the
   agent's quotas (`quotas`, `QuotaExceededError`), the agent may
   write the target (`access`, `AccessDeniedError`), and the parameters are
   valid (unknown parameters, empty texts, bad categories, times out of range: the
   precise `VaultError` of the core) — before anything is queued or written;
2. every string the write carries is scanned (`scan`: texts, sources, metadata keys and
   values, entity addresses, profile keys); any finding sends the write to a person
   (`review.propose`) and the agent gets `Pending`;
3. otherwise it is applied (`apply`) and the agent gets `Applied` with the result.

The flow is the same wherever the write lands: `submit_to(place, write)` over a `Place`,
a vault (`VaultPlace`, what `submit(vault, write)` uses) or a neighbour's folder
(`neighbours.agents.FolderPlace`: the same check, scan and review queue, applied in the
owner's format; an owner who approves every write holds them all).

`apply` is also the approval path (`review.approve`): the permission is checked again
(the settings may have changed since), the scan is not (a person looked at it). Every
write is made by the vault given, opened with actor `agent:<id>`, so the audit log
names the agent. Nothing is deleted: archiving a fact withdraws it, kept.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from vault_app.core import access, errors, facts, injection, layout, quotas, write_kinds

if TYPE_CHECKING:  # vault imports most of core; only its type is needed here
    from vault_app.core import review
    from vault_app.core.vault import Vault

Kind = Literal[  # the names of `write_kinds.KINDS` (a test holds them equal)
    "add_fact",
    "supersede_fact",
    "archive_fact",
    "touch_facts",
    "append_daily",
    "record_interaction",
    "write_document",
    "memory",
    "memory_batch",
    "tiers_write",
    "profile_set",
    "profile_delete",
]


class AgentWrite(BaseModel):
    """A write an agent asks for; JSON round-trips (`model_dump_json`/`model_validate_json`)."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    agent: str
    params: dict[str, Any]
    at: dt.datetime | None = None  # the write's timestamp (backfill); None = now
    # who asked: the agent itself, or the heartbeat acting for it (a fact from its note
    # that it may not write without a person's approval: `access`)
    via: Literal["agent", "heartbeat"] = "agent"

    @property
    def actor(self) -> str:
        """The audit actor the write is made as (`agent:<id>` or `heartbeat:<id>`)."""
        if self.via == "heartbeat":
            return access.heartbeat_actor(self.agent)
        return f"agent:{self.agent}"


@dataclass(frozen=True)
class Applied:
    result: dict[str, Any]


@dataclass(frozen=True)
class Pending:
    review_id: str
    findings: list[injection.Finding]


class Place(Protocol):
    """Where an agent's writes land, as the flow needs it."""

    def check(self, write: AgentWrite) -> list[str]:
        """Refuse what `write` may not do or cannot be; the texts its agent wrote."""

    def apply(self, write: AgentWrite) -> Applied:
        """Apply `write` as its agent (checked again, not scanned)."""

    def propose(self, write: AgentWrite, findings: list[injection.Finding]) -> review.Proposal:
        """Queue `write` for a person."""

    def held_by_owner(self) -> str | None:
        """Why the owner holds every write for approval (None: only flagged ones)."""


@dataclass(frozen=True)
class VaultPlace:
    """A vault as the place of agent writes (opened as the write's agent)."""

    vault: Vault

    def check(self, write: AgentWrite) -> list[str]:
        return check(self.vault, write)

    def apply(self, write: AgentWrite) -> Applied:
        return apply(self.vault, write)

    def propose(self, write: AgentWrite, findings: list[injection.Finding]) -> review.Proposal:
        from vault_app.core import review  # review applies through this module

        return review.propose(self.vault, write, findings)

    def held_by_owner(self) -> str | None:
        return None  # a vault's policy holds writes through `check` (AccessDeniedError)


def submit(vault: Vault, write: AgentWrite) -> Applied | Pending:
    """Check, scan, then apply or queue for review `write` (see the module doc)."""
    return submit_to(VaultPlace(vault), write)


def submit_to(place: Place, write: AgentWrite) -> Applied | Pending:
    """The flow of every agent write, wherever it lands: checked, every string scanned,
    then queued for a person (a finding, or an owner who approves every write) or
    applied."""
    place.check(write)
    findings = scan(write)
    reason = place.held_by_owner()
    if reason is not None:
        findings.append(injection.Finding("approval", "owner.write_approval", reason, ""))
    if findings:
        return Pending(place.propose(write, findings).id, findings)
    return place.apply(write)


def scan(write: AgentWrite) -> list[injection.Finding]:
    """The injection scan's findings in every string `write` carries (texts, sources,
    metadata keys and values, entity addresses and names, profile keys...), each naming
    the field it was found in."""
    findings = []
    for field, text in dict(quotas.strings(write.params, "params")).items():
        findings += [dataclasses.replace(f, field=field) for f in injection.scan(text)]
    return findings


def apply(vault: Vault, write: AgentWrite) -> Applied:
    """Apply `write` as its agent: permission and parameters checked again, no scan."""
    check(vault, write)
    return Applied(write_kinds.kind_of(write).apply(vault, write))


def check(vault: Vault, write: AgentWrite) -> list[str]:
    """Refuse what `write` may not do or cannot be (who acts, its parameters, the quotas,
    then its kind's own checks: `write_kinds`); returns the texts its agent wrote."""
    wanted = access.Kind.HEARTBEAT if write.via == "heartbeat" else access.Kind.AGENT
    if vault.principal.kind is not wanted or vault.principal.agent != write.agent:
        raise errors.AccessDeniedError(
            f"a write of agent {write.agent!r} must be made by a vault opened as "
            f"{write.actor}, not by actor {vault.actor!r}"
        )
    kind = write_kinds.kind_of(write)
    kind.check_names(write)
    layout.validate_agent_id(write.agent)
    quotas.check_write(vault.config.quotas, write.kind, write.params, write.at, vault.now())
    if write.at is not None:
        facts.checked_time(write.at)
    return kind.check(vault, write)
