"""What search indexes: facts, entity summaries and daily-note entries, as `SearchDoc`s.

Every document has a stable key that names where it comes from, so that an index can be
updated per source and a hit can be opened:

- ``fact:<fact id>`` — one fact (active or superseded) of an entity's items.json;
- ``summary:<entity address>`` — an entity's summary.md;
- ``daily:<scope>:<YYYY-MM-DD>:<entry index>`` — one ``## HH:MM:SS`` entry of a daily
  note, scope ``global`` or ``agent:<id>``.

The text BM25 sees (`index_text`) is the fact plus its category and entity name (so
"plumber" finds facts of `areas/people/plumber-joe`); the text semantic search embeds and
the text shown is the fact alone. A source is an entity (its facts + summary) or a daily
note; `source_of(key)` says which, so a change re-indexes only that source's documents.
A document's `owner` is whom it is of: its entity's title, or the speaker of a daily
entry written as a turn (hybrid weighs a name a document is of above one it mentions).
A daily entry written as a turn may carry an id (`turn`); a fact may say which entries it
was taken from (`cites`): hybrid weighs a fact by how well they answer (`origins`).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.core import daily, decay, errors, formats, layout, models, synthesis
from vault_app.search.kinds import DAILY as DAILY  # the kinds, for the search modules
from vault_app.search.kinds import FACT as FACT
from vault_app.search.kinds import KINDS as KINDS
from vault_app.search.kinds import SUMMARY as SUMMARY


def text_key(text: str) -> int:
    """The embedding cache's key of a text: the first 64 bits of sha256(utf-8),
    little-endian. The index keeps it per document, so that a reopen finds every vector
    without hashing 200,000 texts again."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def text_keys(texts: Iterable[str]) -> npt.NDArray[np.uint64]:
    """`text_key` of each text, as a uint64 array."""
    sha = hashlib.sha256
    joined = b"".join(sha(text.encode("utf-8")).digest()[:8] for text in texts)
    return np.frombuffer(joined, dtype="<u8").astype(np.uint64)


@dataclass(frozen=True, slots=True)
class SearchDoc:
    """One searchable unit and the metadata filters need (slots: 200,000 of them are
    held while an index is built, and an instance dict is 30 MB of them)."""

    key: str
    kind: str
    source: str  # "entity:<address>" or "daily:<scope>:<date>"
    scope: str  # "global" or "agent:<id>"
    text: str  # shown, and embedded
    index_text: str  # what BM25 tokenizes
    path: str  # the file it comes from (a string: cheap to keep for 10^5 documents)
    entity: str | None = None  # entity address (facts, summaries)
    para: str | None = None  # projects / areas / resources / archives
    fact_id: str | None = None
    category: str | None = None  # fact category
    status: str = "active"
    agent: str | None = None  # fact's agentId, or the daily note's agent
    timestamp: float | None = None  # creation (facts), entry time (daily), seconds
    last_accessed: float | None = None
    access_count: int = 0
    source_ref: str | None = None  # the fact's `source`
    date: dt.date | None = None  # daily entries
    # A fact's confidence and metadata (None when it has none): what a face answering
    # from the index needs beyond the text (MicroClaw's memories), so that a search
    # answer reads no entity file.
    confidence: float = 1.0
    metadata: dict[str, Any] | None = field(default=None, hash=False, compare=False)


def owner(doc: SearchDoc) -> str | None:
    """Whom `doc` is of, as a name: its entity's title (a fact, a summary), or the speaker
    of a daily entry written as a turn ("**Maya** (D1:3): …", `daily.speaker`); None
    when it is neither."""
    if doc.entity is not None:
        return _title(doc.entity)
    return daily.speaker(doc.text) if doc.kind == DAILY else None


def turn(doc: SearchDoc) -> str | None:
    """The id of the turn a daily entry is ("**Melanie** (D14:4): …" -> "D14:4",
    `daily.turn_id`), which facts may cite; None for anything else."""
    return daily.turn_id(doc.text) if doc.kind == DAILY else None


def cites(doc: SearchDoc) -> str | None:
    """Where a fact says it was taken from (`origins`): the heartbeat's entry ref
    (`metadata.heartbeat.entry`), else a `source` made of turn ids ("D1:3 D1:4"); None
    when it names neither."""
    if doc.kind != FACT:
        return None
    made = (doc.metadata or {}).get("heartbeat")
    if isinstance(made, dict) and isinstance(made.get("entry"), str):
        return str(made["entry"])
    words = (doc.source_ref or "").split()
    if 0 < len(words) <= 16 and all(daily.is_turn_id(w) for w in words):
        return " ".join(words)
    return None


@functools.lru_cache(maxsize=4096)
def _title(address: str) -> str | None:
    try:
        return layout.EntityRef.parse(address).title
    except errors.InvalidIdError:
        return None


def entity_source(ref: layout.EntityRef) -> str:
    return f"entity:{ref}"


def daily_source(scope: str, day: dt.date) -> str:
    return f"daily:{scope}:{day.isoformat()}"


def scope_of(agent: str | None) -> str:
    return layout.GLOBAL_SCOPE if agent is None else f"agent:{agent}"


def _seconds(value: dt.datetime | None) -> float | None:
    return None if value is None else decay.as_aware(value).timestamp()


def entity_documents(
    ref: layout.EntityRef, file: formats.FactFile | None, summary: str | None, folder: Path
) -> Iterator[SearchDoc]:
    """The documents of one entity: each valid fact, and its summary if it has text.

    Entries that fail validation are not indexed (doctor reports them).
    """
    source = entity_source(ref)
    name = ref.title
    address = str(ref)
    if file is not None:
        facts, _ = file.facts()
        path = str(file.path)  # one string for the entity's facts, not one each
        for fact in facts:
            yield SearchDoc(
                key=f"fact:{fact.id}",
                kind=FACT,
                source=source,
                scope=ref.scope,
                text=fact.fact,
                index_text=f"{fact.fact} {fact.category.value} {name}",
                path=path,
                entity=address,
                para=ref.category,
                fact_id=fact.id,
                category=fact.category.value,
                status="active" if fact.is_active else "superseded",
                agent=fact.agent_id,
                timestamp=_seconds(fact.timestamp),
                last_accessed=_seconds(fact.last_touched),
                access_count=fact.access_count,
                source_ref=fact.source_text,
                confidence=float(fact.confidence),
                metadata=fact.metadata or None,
            )
    body = summary_body(summary) if summary else ""
    if body:
        yield SearchDoc(
            key=f"summary:{address}",
            kind=SUMMARY,
            source=source,
            scope=ref.scope,
            text=body,
            index_text=f"{name} {body}",
            path=str(folder / layout.SUMMARY_NAME),
            entity=address,
            para=ref.category,
        )


def summary_body(text: str) -> str:
    """A summary's prose: the whole file, markers dropped (the generated facts stay)."""
    lines = [line for line in text.splitlines() if not synthesis.is_marker(line)]
    return "\n".join(lines).strip()


def summary_prose(text: str) -> str:
    """The hand-written part of a summary: outside the generated block, without its title."""
    lines = synthesis.outside_block(text).strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()


def daily_documents(note: models.DailyNote) -> Iterator[SearchDoc]:
    scope = scope_of(note.agent)
    source = daily_source(scope, note.date)
    for entry in note.entries:
        if not entry.text.strip():
            continue
        moment = decay.as_aware(entry.moment)
        yield SearchDoc(
            key=f"daily:{scope}:{note.date.isoformat()}:{entry.index}",
            kind=DAILY,
            source=source,
            scope=scope,
            text=entry.text,
            index_text=entry.text,
            path=str(note.path),
            agent=note.agent,
            timestamp=moment.timestamp(),
            date=note.date,
        )
