"""The kinds of write an agent may ask for, as data: one `WriteKind` each, registered once
in `KINDS`.

A kind holds everything that differs from one kind to another: its parameters (required
and optional), `check` (refuse what the agent may not do or cannot be, through the
access policy and the core's validations, before anything is queued or written; it
returns the texts the agent wrote), `apply` (the write itself, through the `Vault` acting
as the agent; its JSON result), `target` (where it lands, in words, for a person), `shown`
(the text a person reads in the review), `before` (what a diff compares the proposal
with) and whether it writes the agent's own memory files (`own_memory`: what a
neighbour's folder keeps). The flow that is the same for every kind — who is acting, the
quotas, the injection scan, the review queue — is `agent_writes`'s and `review`'s.
Adding a kind is one `WriteKind` here (and the name in `agent_writes.Kind`, the type the
MCP tools declare).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vault_app.core import access, documents, errors, facts, layout, models

if TYPE_CHECKING:  # agent_writes imports this module; vault imports most of core
    from vault_app.core.agent_writes import AgentWrite
    from vault_app.core.vault import Vault

Check = Callable[["Vault", "AgentWrite"], list[str]]
Apply = Callable[["Vault", "AgentWrite"], dict[str, Any]]

_ROLE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
_MAX_SPEAKER = 100
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
WRITES, TOUCHES = access.Action.WRITE, access.Action.TOUCH


def _no_before(vault: Vault, write: AgentWrite) -> str | None:
    return None


def _shown_text(write: AgentWrite) -> str | None:
    """What the agent wrote, for a person: a fact's or document's text, a note's content,
    a profile value."""
    p = write.params
    value = p.get("text") or p.get("content") or p.get("value")
    return None if value is None else str(value)


@dataclass(frozen=True)
class WriteKind:
    """One kind of agent write (see the module docstring)."""

    name: str
    required: frozenset[str]
    optional: frozenset[str]
    check: Check
    apply: Apply
    target: Callable[[AgentWrite], str]
    shown: Callable[[AgentWrite], str | None] = _shown_text
    before: Callable[[Vault, AgentWrite], str | None] = _no_before
    own_memory: bool = False  # the agent's own memory files (notes, tiers, profile)

    @property
    def changes_something_held(self) -> bool:
        """Whether it replaces what its target holds (a person then reads a diff)."""
        return self.before is not _no_before

    def check_names(self, write: AgentWrite) -> None:
        """Refuse a write missing a required parameter, or given an unknown one."""
        given = set(write.params)
        missing = sorted(self.required - given)
        unknown = sorted(given - self.required - self.optional)
        if missing or unknown:
            problem = (
                f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(unknown)}"
            )
            allowed = ", ".join(sorted(self.required)) + (
                f" (optional: {', '.join(sorted(self.optional))})" if self.optional else ""
            )
            raise errors.InvalidFactError(f"{write.kind}: {problem}; parameters are {allowed}")


# -- facts -----------------------------------------------------------------------------------


def _check_add_fact(vault: Vault, write: AgentWrite) -> list[str]:
    p = write.params
    ref = layout.EntityRef.parse(string(write, "entity"))
    vault.check_access(WRITES, access.Target.entity(ref))
    related = strings(write, "related") if "related" in p else []
    facts.checked_fields(p["text"], p["category"], related, p.get("confidence", 1.0), write.agent)
    facts.checked_json(source=p.get("source"), metadata=mapping(write, "metadata"))
    return [p["text"], *optional_strings(p, "source", "title")]


def _apply_add_fact(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    p = write.params
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
        at=write.at,
        title=p.get("title"),
    )
    return {"fact": fact_json(fact), "entity": p["entity"]}


def _check_fact_change(vault: Vault, write: AgentWrite) -> None:
    ref = vault.locate([string(write, "fact_id")])[write.params["fact_id"]]
    vault.check_access(WRITES, access.Target.entity(ref))


def _check_supersede(vault: Vault, write: AgentWrite) -> list[str]:
    _check_fact_change(vault, write)
    p = write.params
    facts.checked_fields(  # an absent category is the old fact's: any valid one here
        p["text"],
        p.get("category") or models.FactCategory.CONTEXT,
        strings(write, "related") if p.get("related") is not None else [],
        p["confidence"] if p.get("confidence") is not None else 1.0,
        write.agent,
    )
    facts.checked_json(
        source=p.get("source"), reason=p.get("reason"), metadata=mapping(write, "metadata")
    )
    return [p["text"], *optional_strings(p, "source", "reason")]


def _apply_supersede(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    p = write.params
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
        at=write.at,
    )
    return {"old": fact_json(old), "fact": fact_json(new)}


def _check_archive(vault: Vault, write: AgentWrite) -> list[str]:
    _check_fact_change(vault, write)
    return optional_strings(write.params, "reason")


def _apply_archive(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    fact = vault.archive_fact(write.params["fact_id"], reason=write.params.get("reason"))
    return {"fact": fact_json(fact)}


def _check_touch(vault: Vault, write: AgentWrite) -> list[str]:
    for ref in set(vault.locate(strings(write, "fact_ids")).values()):
        vault.check_access(TOUCHES, access.Target.entity(ref))  # what it may read
    return []


def _the_fact(write: AgentWrite) -> str:
    return f"fact {write.params.get('fact_id')}"


# -- daily notes --------------------------------------------------------------------------------


def _check_daily(vault: Vault, write: AgentWrite) -> list[str]:
    vault.check_access(WRITES, access.Target.daily(daily_scope(write)))
    string(write, "text", blank=False)
    daily_text(write)
    return [write.params["text"], *optional_strings(write.params, "speaker")]


def _apply_daily(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    entry = vault.append_daily(daily_text(write), agent=daily_scope(write), at=write.at)
    return {"entry": entry_json(entry)}


def _daily_target(write: AgentWrite) -> str:
    if daily_scope(write) is None:
        return "global daily note"
    return f"daily note of agent {write.agent}"


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


# -- documents --------------------------------------------------------------------------------


def _check_document(vault: Vault, write: AgentWrite) -> list[str]:
    name = string(write, "name")
    vault.check_access(WRITES, access.Target.document(name, write.agent))
    if name not in documents.AGENT_DOCUMENTS:
        raise errors.InvalidIdError(
            f"unknown agent document {name!r}: use one of {', '.join(documents.AGENT_DOCUMENTS)}"
        )
    string(write, "text")
    expected(write.params.get("expected_sha256"))
    return [write.params["text"]]


def _apply_document(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    p = write.params
    digest = vault.write_document(
        p["name"], p["text"], agent=write.agent, expected=expected(p.get("expected_sha256"))
    )
    return {"sha256": digest, "document": p["name"]}


# -- the agent's own memory files (`agent_memory`: Hermes' notes, MicroClaw's tiers,
# -- PicoClaw's profile.json); whose files: the agent's own, always (checked again there)


def _check_memory(vault: Vault, write: AgentWrite) -> list[str]:
    from vault_app.core import agent_memory  # (a server starts without it)

    action, target = string(write, "action"), string(write, "target")
    if action not in ("add", "replace", "remove"):
        raise errors.InvalidFactError(f"memory: action {action!r} is not add, replace or remove")
    agent_memory.check_target(target)
    agent_memory.check_enabled(vault, write.agent, target)  # before a review, not after
    needs = {"add": ("content",), "replace": ("old_text", "content"), "remove": ("old_text",)}
    for name in needs[action]:
        string(write, name, blank=False)
    return optional_strings(write.params, "content")


def _apply_memory(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    from vault_app.core import agent_memory

    p = write.params
    state = agent_memory.change_notes(
        vault,
        write.agent,
        p["target"],
        p["action"],
        content=p.get("content"),
        old_text=p.get("old_text"),
    )
    return state.to_dict(vault.root)


def _notes_file(write: AgentWrite) -> str:
    name = "USER.md" if write.params.get("target") == "user" else "MEMORY.md"
    return f"agents/{write.agent}/memories/{name}"


def _check_memory_batch(vault: Vault, write: AgentWrite) -> list[str]:
    from vault_app.core import agent_memory, notes

    target = string(write, "target")
    agent_memory.check_target(target)
    agent_memory.check_enabled(vault, write.agent, target)
    return [op.content for op in notes.operations(write.params["operations"]) if op.content]


def _apply_memory_batch(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    from vault_app.core import agent_memory, notes

    ops = notes.operations(write.params["operations"])
    state = agent_memory.batch_notes(vault, write.agent, write.params["target"], ops)
    return state.to_dict(vault.root)


def _batch_shown(write: AgentWrite) -> str:
    """One line an operation, as the agent asked them."""
    return "\n".join(_operation_line(op) for op in write.params.get("operations") or [])


def _operation_line(op: Any) -> str:
    if not isinstance(op, dict):
        return repr(op)
    action = op.get("action")
    if action == "replace":
        return f"- replace: {op.get('old_text')} -> {op.get('content')}"
    if action == "remove":
        return f"- remove: {op.get('old_text')}"
    return f"- {action}: {op.get('content')}"


def _check_tiers(vault: Vault, write: AgentWrite) -> list[str]:
    from vault_app.core import tiers

    tier = write.params["tier"]
    if not isinstance(tier, int) or isinstance(tier, bool):
        raise errors.InvalidFactError(f"tiers_write: tier {tier!r} is not 1, 2 or 3")
    tiers.check(tier)
    return [tiers.check_body(string(write, "text"))]


def _apply_tiers(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    from vault_app.core import agent_memory

    tier = write.params["tier"]
    return agent_memory.write_tier(vault, write.agent, tier, write.params["text"]).to_dict(
        vault.root, tier
    )


def _check_profile(vault: Vault, write: AgentWrite) -> list[str]:
    from vault_app.core import agent_memory, profile

    agent_memory.check_enabled(vault, write.agent, "profile")
    key = string(write, "key")
    profile.check_key(key)
    if write.kind == "profile_delete":
        return [key]
    return [key, string(write, "value")]


def _apply_profile_set(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    from vault_app.core import agent_memory

    p = write.params
    return agent_memory.set_profile(vault, write.agent, p["key"], p["value"]).to_dict(vault.root)


def _apply_profile_delete(vault: Vault, write: AgentWrite) -> dict[str, Any]:
    from vault_app.core import agent_memory

    state = agent_memory.delete_profile(vault, write.agent, write.params["key"])
    return state.to_dict(vault.root)


def _profile_target(write: AgentWrite) -> str:
    return f"agents/{write.agent}/profile.json ({write.params.get('key')})"


def _none(*names: str) -> frozenset[str]:
    return frozenset(names)


KINDS: dict[str, WriteKind] = {
    kind.name: kind
    for kind in (
        WriteKind(
            "add_fact",
            _none("entity", "text", "category"),
            # title: the heading of the entity the fact makes, as its name was written
            # (the heartbeat's held facts; the MCP tool does not take one)
            _none("related", "source", "confidence", "metadata", "title"),
            _check_add_fact,
            _apply_add_fact,
            lambda w: str(w.params.get("entity")),
        ),
        WriteKind(
            "supersede_fact",
            _none("fact_id", "text"),
            _none("category", "related", "source", "confidence", "reason", "metadata"),
            _check_supersede,
            _apply_supersede,
            _the_fact,
            before=lambda vault, w: vault.fact(w.params["fact_id"])[1].fact,
        ),
        WriteKind(
            "archive_fact",
            _none("fact_id"),
            _none("reason"),
            _check_archive,
            _apply_archive,
            _the_fact,
        ),
        WriteKind(
            "touch_facts",
            _none("fact_ids"),
            _none(),
            _check_touch,
            lambda vault, w: {"counts": vault.mark_accessed(w.params["fact_ids"])},
            lambda w: f"{len(w.params.get('fact_ids') or [])} facts",
        ),
        WriteKind(
            "append_daily",
            _none("text"),
            _none("scope"),
            _check_daily,
            _apply_daily,
            _daily_target,
        ),
        WriteKind(
            "record_interaction",
            _none("role", "text"),
            _none("speaker", "chat_id"),
            _check_daily,
            _apply_daily,
            _daily_target,
            shown=daily_text,
        ),
        WriteKind(
            "write_document",
            _none("name", "text"),
            _none("expected_sha256"),
            _check_document,
            _apply_document,
            lambda w: f"agents/{w.agent}/{w.params.get('name')}",
            before=lambda vault, w: vault.document(w.params["name"], w.agent).text,
        ),
        WriteKind(
            "memory",
            _none("action", "target"),
            _none("content", "old_text"),
            _check_memory,
            _apply_memory,
            lambda w: f"{_notes_file(w)} ({w.params.get('action')})",
            own_memory=True,
        ),
        WriteKind(
            "memory_batch",  # Hermes' batch
            _none("target", "operations"),
            _none(),
            _check_memory_batch,
            _apply_memory_batch,
            lambda w: f"{_notes_file(w)} ({len(w.params.get('operations') or [])} operations)",
            shown=_batch_shown,
            own_memory=True,
        ),
        WriteKind(
            "tiers_write",
            _none("tier", "text"),
            _none(),
            _check_tiers,
            _apply_tiers,
            lambda w: f"agents/{w.agent}/MEMORY.md (tier {w.params.get('tier')})",
            own_memory=True,
        ),
        WriteKind(
            "profile_set",
            _none("key", "value"),
            _none(),
            _check_profile,
            _apply_profile_set,
            _profile_target,
            own_memory=True,
        ),
        WriteKind(
            "profile_delete",
            _none("key"),
            _none(),
            _check_profile,
            _apply_profile_delete,
            _profile_target,
            own_memory=True,
        ),
    )
}


def kind_of(write: AgentWrite) -> WriteKind:
    return KINDS[write.kind]


# -- what agents get back ---------------------------------------------------------------------


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


# -- parameter checks ---------------------------------------------------------------------------


def string(write: AgentWrite, name: str, *, blank: bool = True) -> str:
    value = write.params.get(name)
    if not isinstance(value, str) or (not blank and not value.strip()):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be a non-empty string")
    facts.checked_json(**{name: value})
    return value


def strings(write: AgentWrite, name: str) -> list[str]:
    value = write.params.get(name)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be a list of strings")
    return value


def mapping(write: AgentWrite, name: str) -> dict[str, Any] | None:
    value = write.params.get(name)
    if value is not None and not isinstance(value, dict):
        raise errors.InvalidFactError(f"{write.kind}: {name} must be an object")
    return value


def optional_strings(params: dict[str, Any], *names: str) -> list[str]:
    for name in names:
        value = params.get(name)
        if value is not None and not isinstance(value, str):
            raise errors.InvalidFactError(f"{name} must be a string")
    return [params[n] for n in names if isinstance(params.get(n), str)]


def expected(value: Any) -> documents.Expected:
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
