"""MicroClaw's memory contract, exactly: what the `memory_query` and `memory_upsert` tools
(`tools/vault/memory_query.py`, `memory_upsert.py`) do, in vault terms.

MicroClaw (src/memory_backend.rs) switches its structured memory to the first MCP server
that exposes both tools. It calls each with one flat JSON object of named arguments
(`{"op": "search", "chat_id": 42, "query": ..., ...}`, absent values sent as null), joins
the text blocks of the result and parses them loosely (the whole text as JSON, else the
first `[`..last `]` span, else the first `{`..last `}` span), then strictly: a memory list
is a JSON array or an object with a `memories` (or `items`) array whose every item has an
int64 `id` and a non-empty `content`; an insert or supersede answer carries `id` (or
`memory_id`, `memory.id`); update, archive and touch answer a bool `updated` (or `ok`,
`success`). Anything else, a tool error included, is an operation failure after which
MicroClaw does that one operation in its own SQLite store (and counts a failure of the
backend). So every answer here is ONE text block of compact JSON (the SDK would turn a
returned list into one block per element, which MicroClaw joins into invalid JSON), and
`tests/microclaw_client.py` replays MicroClaw's parser over every answer in the tests.

In vault terms (each write goes through `core.agent_writes.submit`: permissions, the
injection scan, the review queue, the audit log with the agent as actor):

- a memory is a fact; its number is `numeric_ids.fact_number(fact id)` — stable across
  processes and restarts, reversed by `Runtime.fact_id_for_number`;
- a chat is an entity (`chat_entity`: `[agents.chats]`, else the agent's
  `resources/chat-<id>`; no chat: the agent's `resources/memories`), created on first write;
- insert adds a fact; supersede supersedes it (the old version stays, marked superseded,
  and the new one has a new number); update supersedes too, but MicroClaw keeps using the
  memory's number after an update (its SQLite update is in place), so the new version
  carries `metadata.microclaw_memory` = that number and is what the number resolves to
  (old versions of an update are history, not listed as memories of their own).
  MicroClaw's update also un-archives; here updating an archived memory supersedes the
  archived fact (core allows exactly that inactive case): it stays withdrawn with its
  archive note, and the new, active version answers to the memory's number — the agent
  states the memory again, nothing is reinstated behind a person's back. A memory
  superseded by another memory, or withdrawn by a person (retracted), is not updated
  (`{"updated": false, "note": ...}`): the first would fork its history, the second is
  the person's to reinstate;
- archive withdraws the fact (inactive, kept, reversible by a person); touch counts one
  access (`Vault.mark_accessed`), and `confidence_floor` raises the confidence to at least
  the floor as MicroClaw's SQLite does (`MAX(confidence, floor)`): the vault changes a
  fact's confidence only by a new version, so a touch that raises it writes one (same
  text; the floor only rises, so this happens a bounded number of times per memory).
  Nothing is ever deleted.

Categories: ours -> theirs `preference`, `relationship` -> PROFILE (who the user is and
what they like), `milestone` -> EVENT (something that happened), `status`, `context` ->
KNOWLEDGE (how things currently stand is knowledge, not an event). Theirs -> ours for
writes: PROFILE -> preference, EVENT -> milestone, KNOWLEDGE -> context; an update that
keeps the MicroClaw category keeps the finer category the fact had (a `relationship`
updated as PROFILE stays a relationship). Our own names are accepted too.

Reads mirror MicroClaw's SQLite queries. `list`: every memory of the chat (no chat: of
the agent's `resources/memories`), archived ones included with `is_archived` true, as
its `WHERE chat_id = ?` does. `context`: active facts with confidence >= 0.45 of the chat
and of the no-chat memories, Hot first, then most recently touched (accessed or written).
`search`: the runtime's search engine (hybrid, BM25 while semantic loads) over the
agent's workspace and the global entities, other chats' entities left out; active only
unless `include_archived`; confidence >= 0.45 unless `broad_recall`, which also widens the
candidate pool from 3x to 8x the limit. `get`: a one-item list, or `[]` when no memory
has the number. `is_archived` is "the fact is not active" (superseded or archived).

Facts are read through `fact_reader` (what `Vault.entity` reads, each file decoded once
per version): a search reads only the hits it answers, validating just those facts, and
only the texts answered pass the injection scan's `shown_to_agents`.

A write the scan flags waits in the review queue and is answered
`{"status": "pending_review", "review_id": ...}` — with no `id`: there is no fact (nor
number) until a person approves it, and a made-up number would leave MicroClaw holding
a memory that never resolves. MicroClaw reads the answer as an invalid payload and keeps
that one memory in its local store; the vault stays clean and the proposal waits. For
update the answer also says `"updated": false` (true: nothing was updated), which
MicroClaw takes as "not updated" without counting a backend failure.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vault_app.core import (
    agent_writes,
    config,
    errors,
    layout,
    models,
    numeric_ids,
)
from vault_app.core.vault import Vault
from vault_app.mcp import fact_reader
from vault_app.search import kinds
from vault_app.workspace import vault_workspace

if TYPE_CHECKING:  # numpy comes with it: imported after the handshake
    from vault_app.search.documents import SearchDoc

PROFILE, KNOWLEDGE, EVENT = "PROFILE", "KNOWLEDGE", "EVENT"
THEIRS: dict[models.FactCategory, str] = {
    models.FactCategory.PREFERENCE: PROFILE,
    models.FactCategory.RELATIONSHIP: PROFILE,
    models.FactCategory.MILESTONE: EVENT,
    models.FactCategory.STATUS: KNOWLEDGE,
    models.FactCategory.CONTEXT: KNOWLEDGE,
}
OURS: dict[str, models.FactCategory] = {
    PROFILE: models.FactCategory.PREFERENCE,
    EVENT: models.FactCategory.MILESTONE,
    KNOWLEDGE: models.FactCategory.CONTEXT,
}
CONFIDENCE_FLOOR = 0.45  # MicroClaw's SQLite context/search floor
MAX_LIMIT = 1000
MEMORY_KEY = "microclaw_memory"  # metadata of an update's new version: the memory's number
DEFAULT_SOURCE = "vault"
POOL, BROAD_POOL = 3, 8
_DEFAULT_CHAT = re.compile(r"^resources/chat-(m?)([0-9]{1,20})$")


# -- payloads ---------------------------------------------------------------------------


class _Payload(BaseModel):
    # Unknown keys are ignored: a newer MicroClaw may send more (e.g. `expires_at`).
    model_config = ConfigDict(extra="ignore", strict=False)


class MemoryQuery(_Payload):
    op: Literal["list", "context", "search", "get"]
    chat_id: int | None = None
    query: str | None = None
    limit: int | None = Field(default=None, ge=0)
    include_archived: bool = False
    broad_recall: bool = False
    id: int | None = None


class MemoryUpsert(_Payload):
    op: Literal["insert", "update", "archive", "supersede", "touch"]
    id: int | None = None
    from_memory_id: int | None = None
    chat_id: int | None = None
    content: str | None = None
    category: str | None = None
    source: str | None = None
    confidence: float | None = Field(default=None, ge=0, le=1)
    reason: str | None = None
    confidence_floor: float | None = Field(default=None, ge=0, le=1)


def _validated(model: type[BaseModel], tool: str, payload: dict[str, Any]) -> Any:
    op = payload.get("op")
    ops = model.model_fields["op"].annotation.__args__  # type: ignore[union-attr]
    if op not in ops:
        # MicroClaw reads "unsupported op" as "this server lacks the operation".
        raise ToolError(f"{tool}: unsupported op {op!r}: use one of {', '.join(ops)}")
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ToolError(f"{tool}({op}): {problems}") from None


def _need(value: Any, tool: str, op: str, name: str) -> Any:
    if value is None:
        raise ToolError(f"{tool}({op}): `{name}` is required")
    return value


def our_category(value: str, current: models.FactCategory | None = None) -> models.FactCategory:
    """The vault category for a MicroClaw one (or one of ours), keeping `current` when it
    maps to the same MicroClaw category."""
    upper = value.strip().upper()
    if upper in OURS:
        if current is not None and THEIRS[current] == upper:
            return current
        return OURS[upper]
    try:
        return models.FactCategory(value.strip().lower())
    except ValueError:
        raise ToolError(
            f"category {value!r} is not PROFILE, KNOWLEDGE or EVENT "
            f"(nor one of the vault's: {', '.join(c.value for c in models.FactCategory)})"
        ) from None


# -- facts as memories ------------------------------------------------------------------


def memory_number(fact: models.Fact) -> int:
    """The memory number MicroClaw knows `fact` by (an update's version keeps its memory's)."""
    return _number(fact.id, fact.metadata)


def _number(fact_id: str, metadata: dict[str, Any] | None) -> int:
    kept = metadata.get(MEMORY_KEY) if metadata else None
    if isinstance(kept, int) and not isinstance(kept, bool) and kept > 0:
        return kept
    return numeric_ids.fact_number(fact_id)


def rfc3339(moment: dt.datetime) -> str:
    """A vault time as RFC 3339 in local time (a naive time is local time, as the vault
    reads it): one spelling of an instant, whether it was read from the entity file or
    from the index's seconds (`memory_item_of`)."""
    aware = moment if moment.tzinfo is not None else moment.astimezone()
    return aware.astimezone().isoformat()


def _archived_at(fact: models.Fact) -> str | None:
    if fact.is_active:
        return None
    for key in ("archived", "retracted"):
        mark = fact.metadata.get(key)
        when = mark.get("at") if isinstance(mark, dict) else mark
        if isinstance(when, str) and when:
            return when
    return rfc3339(fact.timestamp) if fact.timestamp is not None else None


def memory_item(fact: models.Fact, chat_id: int | None) -> dict[str, Any]:
    """One fact as the memory object MicroClaw's strict parser reads."""
    return _item(memory_number(fact), fact.fact, fact.category, float(fact.confidence),
                 fact.source_text, _archived_at(fact), not fact.is_active, fact.metadata,
                 fact.timestamp, fact.last_touched, chat_id)  # fmt: skip


def memory_item_of(doc: SearchDoc, chat_id: int | None) -> dict[str, Any]:
    """`memory_item` of an active fact's search document: the same object, read from the
    index instead of the entity file (the document holds every field a memory shows)."""
    assert doc.fact_id is not None and doc.category is not None and doc.status == "active"
    written, seen = (
        None if s is None else dt.datetime.fromtimestamp(s).astimezone()
        for s in (doc.timestamp, doc.last_accessed)
    )
    category = models.FactCategory(doc.category)
    number = _number(doc.fact_id, doc.metadata)
    return _item(number, doc.text, category, doc.confidence, doc.source_ref, None, False,
                 doc.metadata, written, seen, chat_id)  # fmt: skip


def _item(
    number: int,
    text: str,
    category: models.FactCategory,
    confidence: float,
    source: str | None,
    archived_at: str | None,
    archived: bool,
    metadata: dict[str, Any] | None,
    written: dt.datetime | None,
    seen: dt.datetime | None,
    chat_id: int | None,
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": number,
        "content": fact_reader.shown_to_agents(text).strip() or "[empty]",
        "category": THEIRS[category],
        "chat_id": chat_id,
        "confidence": confidence,
        "source": source or DEFAULT_SOURCE,
        "is_archived": archived,
        "archived_at": archived_at,
    }
    created = metadata.get("microclaw_created") if metadata else None
    if written is not None:
        stamp = rfc3339(written)
        item["created_at"] = created if isinstance(created, str) else stamp
        item["updated_at"] = stamp
    if seen is not None:
        item["last_seen_at"] = rfc3339(seen)
    return item


def _listed(facts: list[models.Fact]) -> list[models.Fact]:
    """Facts as memories: an update's old versions (same number as their successor) left out."""
    by_id = {fact.id: fact for fact in facts}
    shown = []
    for fact in facts:
        successor = by_id.get(fact.superseded_by or "")
        if successor is not None and memory_number(successor) == memory_number(fact):
            continue
        shown.append(fact)
    return shown


def answer(value: Any) -> CallToolResult:
    """A tool's answer as MicroClaw parses it: one text block of compact JSON."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)])


def chat_entity(settings: config.VaultConfig, agent: str, chat_id: int | None) -> layout.EntityRef:
    """Where `agent`'s memories of chat `chat_id` go: `[agents.chats]`'s entity, else its
    `resources/chat-<id>` (`chat-m<id>` for a negative id), else `resources/memories`.
    Where, not a permission: the access policy decides the write (`access`)."""
    layout.validate_agent_id(agent)
    if chat_id is None:
        return layout.EntityRef(agent, "resources/memories")
    if isinstance(chat_id, bool) or not isinstance(chat_id, int):
        raise errors.InvalidIdError(f"chat id {chat_id!r} is not an integer")
    mapped = settings.agents.chats.get(str(chat_id))
    if mapped is not None:
        return layout.EntityRef.parse(mapped)
    spelled = f"m{-chat_id}" if chat_id < 0 else str(chat_id)
    return layout.EntityRef(agent, f"resources/chat-{spelled}")


# -- the service ------------------------------------------------------------------------


class MicroClawMemory:
    """The two tools' work for one agent, synchronous (the tools run it in a thread)."""

    def __init__(self, runtime: vault_workspace.VaultWorkspace, agent: str) -> None:
        self.runtime = runtime
        self.agent = agent
        self.vault: Vault = runtime.vault_for(agent)
        self.reader = fact_reader.reader_for(self.vault)
        self._chats: dict[layout.EntityRef, int] | None = None

    # chats <-> entities

    def chat_ref(self, chat_id: int | None) -> layout.EntityRef:
        return chat_entity(self.vault.config, self.agent, chat_id)

    def chat_of(self, ref: layout.EntityRef) -> int | None:
        """The chat whose memories `ref` holds (configured first, then the default name)."""
        if self._chats is None:  # the first configured chat of an entity, as a loop finds
            self._chats = {}
            for chat, address in self.vault.config.agents.chats.items():
                self._chats.setdefault(layout.EntityRef.parse(address), int(chat))
        if ref in self._chats:
            return self._chats[ref]
        if ref.agent == self.agent:
            match = _DEFAULT_CHAT.match(ref.path)
            if match:
                number = int(match.group(2))
                return -number if match.group(1) else number
        return None

    def _facts(self, ref: layout.EntityRef) -> list[models.Fact]:
        # [] for a chat with no memory yet: its entity comes with the first write
        return self.reader.facts(ref)

    def resolve(self, number: int) -> tuple[layout.EntityRef, models.Fact] | None:
        """The current version of memory `number` (following its updates), or None: also
        when the agent may not read it (its vault's door refuses the file)."""
        fact_id = self.runtime.fact_id_for_number(number)
        if fact_id is None:
            return None
        try:
            ref, fact = self.vault.fact(fact_id)
            while fact.superseded_by:
                next_ref, successor = self.vault.fact(fact.superseded_by)
                if memory_number(successor) != number:
                    break
                ref, fact = next_ref, successor
        except (errors.NotFoundError, errors.AccessDeniedError):
            return None  # (another agent's memory is no memory of this one: `access`)
        return ref, fact

    # memory_query

    def query(self, payload: dict[str, Any]) -> Any:
        q: MemoryQuery = _validated(MemoryQuery, "memory_query", payload)
        limit = min(q.limit if q.limit is not None else 50, MAX_LIMIT)
        if q.op == "list":
            ref = self.chat_ref(q.chat_id)
            return [memory_item(f, q.chat_id) for f in _listed(self._facts(ref))]
        if q.op == "context":
            return self.context(_need(q.chat_id, "memory_query", q.op, "chat_id"), limit)
        if q.op == "search":
            chat_id = _need(q.chat_id, "memory_query", q.op, "chat_id")
            query = _need(q.query, "memory_query", q.op, "query")
            return self.search(chat_id, query, limit, q.include_archived, q.broad_recall)
        number = _need(q.id, "memory_query", q.op, "id")
        found = self.resolve(number)
        return [] if found is None else [memory_item(found[1], self.chat_of(found[0]))]

    def context(self, chat_id: int, limit: int) -> list[dict[str, Any]]:
        now = self.vault.now()
        rank = {models.DecayTier.HOT: 0, models.DecayTier.WARM: 1, models.DecayTier.COLD: 2}
        pool: list[tuple[models.Fact, int | None]] = []
        for ref, chat in ((self.chat_ref(chat_id), chat_id), (self.chat_ref(None), None)):
            pool += [
                (f, chat)
                for f in self._facts(ref)
                if f.is_active and f.confidence >= CONFIDENCE_FLOOR
            ]
        oldest = dt.datetime.min.replace(tzinfo=dt.UTC)

        def key(entry: tuple[models.Fact, int | None]) -> tuple[int, float]:
            fact = entry[0]
            touched = fact.last_touched
            when = (touched if touched.tzinfo else touched.astimezone()) if touched else oldest
            return rank[self.vault.tier(fact, now)], -when.timestamp()

        pool.sort(key=key)
        return [memory_item(f, chat) for f, chat in pool[:limit]]

    def search(
        self, chat_id: int, query: str, limit: int, include_archived: bool, broad: bool
    ) -> list[dict[str, Any]]:
        if limit == 0 or not query.strip():
            return []
        from vault_app.search.columns import Filters  # numpy: after the handshake

        filters = Filters(
            kinds=frozenset({kinds.FACT}),
            scope=frozenset({"global", f"agent:{self.agent}"}),
            status=None if include_archived else "active",
        )
        pool = limit * (BROAD_POOL if broad else POOL)
        # The engine itself, not `Runtime.search`: that one makes every hit's text safe to
        # show, and a memory's content is made from the fact as read (`memory_item`), for
        # the few hits answered. The engine answers BM25 while semantic search loads.
        engine = self.runtime.search_engine()
        answer = engine.search(query, mode="hybrid", filters=filters, limit=pool)
        own = self.chat_ref(chat_id)
        items: list[dict[str, Any]] = []
        seen: set[int] = set()
        for hit in answer.hits:
            if hit.entity is None or hit.fact_id is None:
                continue  # the filter asks for facts only; a fact hit names both
            ref = layout.EntityRef.parse(hit.entity)
            chat = chat_id if ref == own else self.chat_of(ref)
            if chat is not None and chat != chat_id:
                continue  # another chat's memories, as MicroClaw's own search leaves them out
            item = self._memory_of(engine, hit.key, ref, hit.fact_id, chat, broad)
            if item is None or item["id"] in seen:
                continue  # (an older version of an updated memory: its newest is shown)
            seen.add(item["id"])
            items.append(item)
            if len(items) == limit:
                break
        return items

    def _memory_of(
        self,
        engine: Any,
        key: str,
        ref: layout.EntityRef,
        fact_id: str,
        chat: int | None,
        broad: bool,
    ) -> dict[str, Any] | None:
        """The memory of a fact hit: an active fact's from its search document (no file
        read: the index follows every write), an archived one's from its file (its
        archive note is in the lineage); None when it is gone or below the floor."""
        doc = engine.document(key)
        if doc is not None and doc.status == "active" and doc.category is not None:
            if not broad and doc.confidence < CONFIDENCE_FLOOR:
                return None
            return memory_item_of(doc, chat)
        fact = self.reader.fact(ref, fact_id)  # each file read once per version
        if fact is None or (not broad and fact.confidence < CONFIDENCE_FLOOR):
            return None
        return memory_item(fact, chat)

    # memory_upsert

    def upsert(self, payload: dict[str, Any]) -> dict[str, Any]:
        u: MemoryUpsert = _validated(MemoryUpsert, "memory_upsert", payload)
        if u.op == "insert":
            return self.insert(u)
        number = _need(
            u.from_memory_id if u.op == "supersede" else u.id,
            "memory_upsert",
            u.op,
            "from_memory_id" if u.op == "supersede" else "id",
        )
        found = self.resolve(number)
        if found is None:
            if u.op == "supersede":  # MicroClaw's SQLite fails here too (no such row)
                raise ToolError(f"memory_upsert(supersede): no memory has id {number}")
            return {"updated": False}
        ref, fact = found
        if u.op == "archive":
            return self.archive(ref, fact)
        if u.op == "touch":
            return self.touch(ref, fact, u.confidence_floor)
        content = _need(u.content, "memory_upsert", u.op, "content")
        if not content.strip():
            raise ToolError(f"memory_upsert({u.op}): `content` is empty")
        if u.op == "update":
            return self.update(ref, fact, number, u, content)
        return self.supersede(ref, fact, u, content)

    def _submit(
        self, kind: agent_writes.Kind, params: dict[str, Any]
    ) -> agent_writes.Applied | agent_writes.Pending:
        write = agent_writes.AgentWrite(kind=kind, agent=self.agent, params=params)
        return agent_writes.submit(self.vault, write)

    def _written(self, refs: Iterable[layout.EntityRef]) -> None:
        self.runtime.after_write(list(refs))

    def insert(self, u: MemoryUpsert) -> dict[str, Any]:
        content = _need(u.content, "memory_upsert", u.op, "content")
        if not content.strip():
            raise ToolError("memory_upsert(insert): `content` is empty")
        ref = self.chat_ref(u.chat_id)
        params: dict[str, Any] = {
            "entity": str(ref),
            "text": content,
            "category": our_category(u.category or KNOWLEDGE).value,
            "source": u.source or "microclaw",
        }
        if u.confidence is not None:
            params["confidence"] = u.confidence
        outcome = self._submit("add_fact", params)
        if isinstance(outcome, agent_writes.Pending):
            return _pending(outcome)
        self._written([ref])
        return {"id": numeric_ids.fact_number(outcome.result["fact"]["id"])}

    def _new_version(
        self,
        fact: models.Fact,
        text: str,
        category: models.FactCategory,
        source: str | None,
        confidence: float | None,
        reason: str | None,
        keep: int | None,
    ) -> agent_writes.Applied | agent_writes.Pending:
        params: dict[str, Any] = {"fact_id": fact.id, "text": text, "category": category.value}
        if source is not None:
            params["source"] = source
        if confidence is not None:
            params["confidence"] = confidence
        if reason is not None:
            params["reason"] = reason
        if keep is not None:  # an update: the new version answers to the memory's number
            created = fact.metadata.get("microclaw_created")
            if not isinstance(created, str) and fact.timestamp is not None:
                created = rfc3339(fact.timestamp)
            params["metadata"] = {MEMORY_KEY: keep, "microclaw_created": created}
        return self._submit("supersede_fact", params)

    def update(
        self, ref: layout.EntityRef, fact: models.Fact, number: int, u: MemoryUpsert, text: str
    ) -> dict[str, Any]:
        category = our_category(u.category or THEIRS[fact.category], fact.category)
        source = u.source or fact.source_text
        confidence = u.confidence
        unchanged = (
            text == fact.fact
            and category is fact.category
            and source == fact.source_text
            and (confidence is None or confidence == fact.confidence)
        )
        if unchanged and fact.is_active:
            return {"updated": True}  # the same memory again: no new version to record
        closed = self._closed(fact)
        if closed is not None:
            return {"updated": False, "note": closed}
        outcome = self._new_version(
            fact, text, category, source, confidence, "microclaw update", number
        )
        if isinstance(outcome, agent_writes.Pending):
            return {"updated": False, **_pending(outcome)}
        self._written([ref])
        return {"updated": True}

    def _closed(self, fact: models.Fact) -> str | None:
        """Why memory `fact` takes no new version, or None (active or archived: it does).

        A fact superseded by another memory would fork its history, and a retracted one
        (a person undid it) is the person's to reinstate; both answer "not updated"."""
        if fact.superseded_by is not None:
            try:
                successor = memory_number(self.vault.fact(fact.superseded_by)[1])
            except errors.NotFoundError:
                return f"memory {memory_number(fact)} was superseded; update its successor"
            return f"memory {memory_number(fact)} was superseded by memory {successor}"
        if not fact.is_active and "archived" not in fact.metadata:
            return f"memory {memory_number(fact)} was withdrawn by a person"
        return None

    def supersede(
        self, ref: layout.EntityRef, fact: models.Fact, u: MemoryUpsert, text: str
    ) -> dict[str, Any]:
        category = our_category(u.category or THEIRS[fact.category], fact.category)
        outcome = self._new_version(
            fact, text, category, u.source, u.confidence, u.reason or "microclaw supersede", None
        )
        if isinstance(outcome, agent_writes.Pending):
            return _pending(outcome)
        self._written([ref])
        return {"id": numeric_ids.fact_number(outcome.result["fact"]["id"])}

    def archive(self, ref: layout.EntityRef, fact: models.Fact) -> dict[str, Any]:
        if fact.is_active:
            self._submit("archive_fact", {"fact_id": fact.id, "reason": "microclaw archive"})
            self._written([ref])
        return {"updated": True}

    def touch(
        self, ref: layout.EntityRef, fact: models.Fact, floor: float | None
    ) -> dict[str, Any]:
        self._submit("touch_facts", {"fact_ids": [fact.id]})
        if floor is not None and fact.is_active and floor > fact.confidence:
            number = memory_number(fact)
            outcome = self._new_version(
                fact, fact.fact, fact.category, fact.source_text, floor, "microclaw touch", number
            )
            if isinstance(outcome, agent_writes.Pending):
                return {"updated": True, **_pending(outcome)}  # the touch itself was done
        self._written([ref])
        return {"updated": True}


def _pending(outcome: agent_writes.Pending) -> dict[str, Any]:
    return {"status": "pending_review", "review_id": outcome.review_id}
