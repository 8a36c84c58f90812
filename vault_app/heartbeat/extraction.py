"""The types every part of the heartbeat shares.

An `Entry` is one `## HH:MM:SS` entry of a daily note, named by a `ref` that stays the
same while the entry does (its note's path, its time and a hash of its text), so a
rerun recognises what it already did and an edited entry reads as a new one. A
`Candidate` is one fact an extractor proposes from an entry; `entity` and `related` hold
what the text named (an address such as `areas/family`, or a plain name such as
"Dr. Patel") for routing to resolve. An `Extraction` is what an extractor made of a batch:
the candidates, and the entries it could not read (the cursor stays before those, so the
next run retries them).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import ConfigDict

from vault_app.core import models

ACTOR = "heartbeat"  # the actor of every write the heartbeat makes (the audit log's name)


class Entry(models.DailyEntry):
    """A daily-note entry as the heartbeat reads it: the note's own entry type
    (`models.DailyEntry`: date, time, text, agent), with the note's vault-relative POSIX
    path (e.g. "global/daily/2026-11-20.md") and which of its equal entries it is
    (`occurrence`: the n-th entry of this note with the same time and text). Frozen."""

    model_config = ConfigDict(frozen=True)

    path: str
    index: int = 0  # its place in the note (0 when made from elsewhere)
    occurrence: int = 0

    @property
    def ref(self) -> str:
        """`<path>@<time>#<sha256 of the text, 12 hex>[.n]`: stable while the entry is."""
        digest = hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:12]
        suffix = f".{self.occurrence}" if self.occurrence else ""
        return f"{self.path}@{self.time}#{digest}{suffix}"


@dataclass(frozen=True)
class Candidate:
    """A fact proposed from one entry, before routing and dedup."""

    fact: str
    category: models.FactCategory
    entry: Entry
    entity: str | None = None  # the entity it is about: an address or a name
    related: tuple[str, ...] = ()  # other entities it names: addresses or names
    track: bool = False  # the text asks to track `entity` ("keep track of the boiler")
    explicit: bool = False  # asked to be remembered ("remember that …"): kept, never deferred
    about_user: bool = False  # of the person the notes speak for ("I prefer…", no one named)
    # names the entry gave before this fact's sentence, the nearest first: where a fact
    # that names no one goes when one of them is an entity ("Called Summit Roofing; the
    # quote is $14,200" -> Summit Roofing's); never counted towards making an entity
    around: tuple[str, ...] = ()
    confidence: float = 1.0
    # `entity` is only the first of the names in it, no rule's subject ("the car
    # registration for the Prius renews…"): asked to be remembered, routing may prefer
    # another of them that the vault knows, or the notes spoke of more
    guessed: bool = False


@dataclass
class Extraction:
    candidates: list[Candidate] = field(default_factory=list)
    failed: list[tuple[Entry, str]] = field(default_factory=list)  # (entry, why)


class Extractor(Protocol):
    """Turns entries into candidate facts. `name` goes into the run log ("rules",
    "llm:<model>")."""

    name: str

    def extract(self, entries: list[Entry]) -> Extraction: ...
