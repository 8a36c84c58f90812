"""The one path every agent write takes: permission, validation, injection scan, apply.

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

`apply` is also the approval path (`review.approve`): the permission is checked again
(the settings may have changed since), the scan is not (a person looked at it). Every
write is made by the vault given, opened with actor `agent:<id>`, so the audit log
names the agent. Nothing is deleted: archiving a fact withdraws it, kept.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from vault_app.core import (
    access,
    documents,
    errors,
    facts,
    injection,
    layout,
    models,
    quotas,
)

if TYPE_CHECKING:  # vault imports most of core; only its type is needed here
    from vault_app.core.vault import Vault

Kind = Literal[
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


# kind -> (required parameters, optional parameters)
PARAMS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "add_fact": (
        frozenset({"entity", "text", "category"}),
        frozenset({"related", "source", "confidence", "metadata"}),
    ),
    "supersede_fact": (
        frozenset({"fact_id", "text"}),
        frozenset({"category", "related", "source", "confidence", "reason", "metadata"}),
    ),
    "archive_fact": (frozenset({"fact_id"}), frozenset({"reason"})),
    "touch_facts": (frozenset({"fact_ids"}), frozenset()),
    "append_daily": (frozenset({"text"}), frozenset({"scope"})),
    "record_interaction": (frozenset({"role", "text"}), frozenset({"speaker", "chat_id"})),
    "write_document": (frozenset({"name", "text"}), frozenset({"expected_sha256"})),
    # the agent's own memory files (`agent_memory`): Hermes' notes, MicroClaw's tiers,
    # PicoClaw's profile.json
    "memory": (frozenset({"action", "target"}), frozenset({"content", "old_text"})),
    "memory_batch": (frozenset({"target", "operations"}), frozenset()),  # Hermes' batch
    "tiers_write": (frozenset({"tier", "text"}), frozenset()),
    "profile_set": (frozenset({"key", "value"}), frozenset()),
    "profile_delete": (frozenset({"key"}), frozenset()),
}
MEMORY_KINDS = frozenset({"memory", "memory_batch", "tiers_write", "profile_set", "profile_delete"})
_ROLE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
_MAX_SPEAKER = 100
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def submit(vault: Vault, write: AgentWrite) -> Applied | Pending:
    """Check, scan, then apply or queue for review `write` (see the module doc)."""
    check(vault, write)
    findings = scan(write)
    if findings:
        from vault_app.core import review  # review applies through this module

        proposal = review.propose(vault, write, findings)
        return Pending(proposal.id, findings)
    return apply(vault, write)


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
    p, at = write.params, write.at
    if write.kind == "add_fact":
        fact = vault.add_fact(
            p["entity"],
            p["text"],
            p["category"],
            related=p.get("related") or (),
            source=p.get("source"),
            agent_id=write.agent,
            confidence=p.get("confidence", 1.0),
            metadata=p.get("metadata"),
            create=True,
            at=at,
        )
        return Applied({"fact": fact_json(fact), "entity": p["entity"]})
    if write.kind == "supersede_fact":
        metadata = dict(p.get("metadata") or {})
        if p.get("reason") is not None:
            metadata["reason"] = p["reason"]
        old, new = vault.supersede_fact(
            p["fact_id"],
            p["text"],
            category=p.get("category"),
            related=p.get("related"),
            source=p.get("source"),
            agent_id=write.agent,
            confidence=p.get("confidence"),
            metadata=metadata or None,
            at=at,
        )
        return Applied({"old": fact_json(old), "fact": fact_json(new)})
    if write.kind == "archive_fact":
        fact = vault.archive_fact(p["fact_id"], reason=p.get("reason"))
        return Applied({"fact": fact_json(fact)})
    if write.kind == "touch_facts":
        return Applied({"counts": vault.mark_accessed(p["fact_ids"])})
    if write.kind in ("append_daily", "record_interaction"):
        entry = vault.append_daily(daily_text(write), agent=daily_scope(write), at=at)
        return Applied({"entry": entry_json(entry)})
    if write.kind in MEMORY_KINDS:
        return Applied(_apply_memory(vault, write))
    digest = vault.write_document(
        p["name"], p["text"], agent=write.agent, expected=_expected(p.get("expected_sha256"))
    )
    return Applied({"sha256": digest, "document": p["name"]})


def check(vault: Vault, write: AgentWrite) -> list[str]:
    """Refuse what `write` may not do or cannot be; returns the texts its agent wrote."""
    wanted = access.Kind.HEARTBEAT if write.via == "heartbeat" else access.Kind.AGENT
    if vault.principal.kind is not wanted or vault.principal.agent != write.agent:
        raise errors.AccessDeniedError(
            f"a write of agent {write.agent!r} must be made by a vault opened as "
            f"{write.actor}, not by actor {vault.actor!r}"
        )
    _check_names(write)
    quotas.check_write(vault.config.quotas, write.kind, write.params, write.at, vault.now())
    p, agent = write.params, write.agent
    writes, touches = access.Action.WRITE, access.Action.TOUCH
    if write.at is not None:
        facts.checked_time(write.at)
    if write.kind == "add_fact":
        ref = layout.EntityRef.parse(_string(write, "entity"))
        vault.check_access(writes, access.Target.entity(ref))
        related = _strings(write, "related") if "related" in p else []
        facts.checked_fields(p["text"], p["category"], related, p.get("confidence", 1.0), agent)
        facts.checked_json(source=p.get("source"), metadata=_mapping(write, "metadata"))
        return [p["text"], *_optional_strings(p, "source")]
    if write.kind in ("supersede_fact", "archive_fact"):
        ref = vault.locate([_string(write, "fact_id")])[p["fact_id"]]
        vault.check_access(writes, access.Target.entity(ref))
        if write.kind == "archive_fact":
            return _optional_strings(p, "reason")
        facts.checked_fields(  # an absent category is the old fact's: any valid one here
            p["text"],
            p.get("category") or models.FactCategory.CONTEXT,
            _strings(write, "related") if p.get("related") is not None else [],
            p["confidence"] if p.get("confidence") is not None else 1.0,
            agent,
        )
        facts.checked_json(
            source=p.get("source"), reason=p.get("reason"), metadata=_mapping(write, "metadata")
        )
        return [p["text"], *_optional_strings(p, "source", "reason")]
    if write.kind == "touch_facts":
        for ref in set(vault.locate(_strings(write, "fact_ids")).values()):
            vault.check_access(touches, access.Target.entity(ref))  # what it may read
        return []
    if write.kind in ("append_daily", "record_interaction"):
        vault.check_access(writes, access.Target.daily(daily_scope(write)))
        _string(write, "text", blank=False)
        daily_text(write)
        return [p["text"], *_optional_strings(p, "speaker")]
    if write.kind in MEMORY_KINDS:
        return _check_memory(vault, write)
    name = _string(write, "name")
    vault.check_access(writes, access.Target.document(name, agent))
    if name not in documents.AGENT_DOCUMENTS:
        raise errors.InvalidIdError(
            f"unknown agent document {name!r}: use one of {', '.join(documents.AGENT_DOCUMENTS)}"
        )
    _string(write, "text")
    _expected(p.get("expected_sha256"))
    return [p["text"]]


def _check_memory(vault: Vault, write: AgentWrite) -> list[str]:
    """The parameters of a write to the agent's own memory files; the texts to scan.
    (Whose files: the agent's own, always; `agent_memory` checks it again.)"""
    from vault_app.core import (  # (a server starts without them)
        agent_memory,
        notes,
        profile,
        tiers,
    )

    p = write.params
    if write.kind == "memory":
        action, target = _string(write, "action"), _string(write, "target")
        if action not in ("add", "replace", "remove"):
            raise errors.InvalidFactError(
                f"memory: action {action!r} is not add, replace or remove"
            )
        agent_memory.check_target(target)
        agent_memory.check_enabled(vault, write.agent, target)  # before a review, not after
        needs = {"add": ("content",), "replace": ("old_text", "content"), "remove": ("old_text",)}
        for name in needs[action]:
            _string(write, name, blank=False)
        return _optional_strings(p, "content")
    if write.kind == "memory_batch":
        target = _string(write, "target")
        agent_memory.check_target(target)
        agent_memory.check_enabled(vault, write.agent, target)
        return [op.content for op in notes.operations(p["operations"]) if op.content]
    if write.kind == "tiers_write":
        if not isinstance(p["tier"], int) or isinstance(p["tier"], bool):
            raise errors.InvalidFactError(f"tiers_write: tier {p['tier']!r} is not 1, 2 or 3")
        tiers.check(p["tier"])
        return [tiers.check_body(_string(write, "text"))]
    agent_memory.check_enabled(vault, write.agent, "profile")
    key = _string(write, "key")
    profile.check_key(key)
    if write.kind == "profile_delete":
        return [key]
    return [key, _string(write, "value")]


def _apply_memory(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    from vault_app.core import agent_memory, notes

    p, agent = write.params, write.agent
    if write.kind == "memory":
        state = agent_memory.change_notes(
            vault,
            agent,
            p["target"],
            p["action"],
            content=p.get("content"),
            old_text=p.get("old_text"),
        )
        return state.to_dict(vault.root)
    if write.kind == "memory_batch":
        ops = notes.operations(p["operations"])
        return agent_memory.batch_notes(vault, agent, p["target"], ops).to_dict(vault.root)
    if write.kind == "tiers_write":
        return agent_memory.write_tier(vault, agent, p["tier"], p["text"]).to_dict(
            vault.root, p["tier"]
        )
    if write.kind == "profile_set":
        return agent_memory.set_profile(vault, agent, p["key"], p["value"]).to_dict(vault.root)
    return agent_memory.delete_profile(vault, agent, p["key"]).to_dict(vault.root)


def daily_scope(write: AgentWrite) -> str | None:
    """Whose daily note `write` appends to: the agent's, or None for the global one."""
    scope = write.params.get("scope", "agent") if write.kind == "append_daily" else "agent"
    if scope not in ("agent", "global"):
        raise errors.InvalidIdError(
            f"append_daily: scope {scope!r} is not 'agent' (the default) or 'global'"
        )
    return None if scope == "global" else write.agent


def daily_text(write: AgentWrite) -> str:
    """The entry `write` appends: its text, or a chat turn as `**role** (chat 42): text`."""
    p = write.params
    if write.kind == "append_daily":
        return str(p["text"])
    role = p["role"]
    if not isinstance(role, str) or not _ROLE.match(role):
        raise errors.InvalidFactError(
            f"record_interaction: role {role!r} must be one word (user, assistant, ...)"
        )
    details = []
    speaker = p.get("speaker")
    if speaker is not None:
        if not isinstance(speaker, str) or not speaker.strip() or len(speaker) > _MAX_SPEAKER:
            raise errors.InvalidFactError(
                f"record_interaction: speaker must be a name of 1 to {_MAX_SPEAKER} characters"
            )
        details.append(" ".join(speaker.split()))
    chat = p.get("chat_id")
    if chat is not None:
        if isinstance(chat, bool) or not isinstance(chat, int):
            raise errors.InvalidFactError(f"record_interaction: chat_id {chat!r} is not an integer")
        details.append(f"chat {chat}")
    where = f" ({', '.join(details)})" if details else ""
    return f"**{role}**{where}: {p['text']}"


def fact_json(fact: models.Fact) -> dict[str, Any]:
    """A fact as the JSON agents get back (camelCase, as in the fact files)."""
    return fact.model_dump(mode="json", by_alias=True)


def entry_json(entry: models.DailyEntry) -> dict[str, Any]:
    return {
        "date": entry.date.isoformat(),
        "time": entry.time,
        "agent": entry.agent,
        "text": entry.text,
    }


# -- parameter checks --------------------------------------------------------------------


def _check_names(write: AgentWrite) -> None:
    check_names(write)
    layout.validate_agent_id(write.agent)


def check_names(write: AgentWrite) -> None:
    """Refuse a write missing a required parameter of its kind, or given an unknown one."""
    required, optional = PARAMS[write.kind]
    given = set(write.params)
    missing = sorted(required - given)
    unknown = sorted(given - required - optional)
    if missing or unknown:
        problem = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(unknown)}"
        allowed = ", ".join(sorted(required)) + (
            f" (optional: {', '.join(sorted(optional))})" if optional else ""
        )
        raise errors.InvalidFactError(f"{write.kind}: {problem}; parameters are {allowed}")


def _string(write: AgentWrite, name: str, *, blank: bool = True) -> str:
    value = write.params.get(name)
    if not isinstance(value, str) or (not blank and not value.strip()):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be a non-empty string")
    facts.checked_json(**{name: value})
    return value


def _strings(write: AgentWrite, name: str) -> list[str]:
    value = write.params.get(name)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be a list of strings")
    return value


def _mapping(write: AgentWrite, name: str) -> dict[str, Any] | None:
    value = write.params.get(name)
    if value is not None and not isinstance(value, dict):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be an object")
    return value


def _optional_strings(params: dict[str, Any], *names: str) -> list[str]:
    for name in names:
        value = params.get(name)
        if value is not None and not isinstance(value, str):
            raise errors.InvalidFactError(f"{name} must be a string")
    return [params[n] for n in names if isinstance(params.get(n), str)]


def _expected(value: Any) -> documents.Expected:
    """`expected_sha256` as `Vault.write_document` takes it: None must not exist, "*"
    any, else the 64 hex digits of the sha256 the agent read."""
    if value is None:
        return None
    if value == "*":
        return documents.Check.SKIP
    if isinstance(value, str) and _SHA256.match(value):
        return value
    raise errors.InvalidFactError(
        f"write_document: expected_sha256 {value!r} is not a sha256 (64 hex digits), "
        "null (the document must not exist) or '*' (any)"
    )
