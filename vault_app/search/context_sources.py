"""Where the context builder's blocks come from: a PARA vault, or a neighbour's folder.

The builder (`search.context`) lays out blocks, shares the budget, writes the meters and
counts what did not fit; a `MemorySource` only says what each block would hold, as an
`Offer` of whole `Item`s in the order they should be placed. One source per folder kind:

* `VaultSource` — a PARA vault through its search engine: principles (`global/AGENTS.md`),
  the agent's user profile (`memories/USER.md` § entries and `profile.json`), what the
  notes told of the user (the facts of Me, its own `areas/me` and the global one), agent notes
  (`memories/MEMORY.md`), tiered memory (`MEMORY.md`), `TACIT.md`, then the relevance
  blocks the engine finds (summaries, facts, timeline);
* `FolderSource` — a neighbour's folder opened as it is (`core.neighbours.ForeignFolder`),
  asked for the same structures by the same names (`read_notes`, `read_profile`,
  `read_tiers`, daily notes, principles); what its format lacks gives no block. With no
  search index there, its timeline is the days the query names, else the latest
  `RECENT_DAYS` days with a note (as PicoClaw puts its recent daily notes in a prompt).

The per-agent switches hold on both: agent notes off, or the user profile off (which
covers `USER.md` and `profile.json`), and that block is absent. Every stored text passes
through `shown` (the builder's `injection.shown_to_agents` for an agent) before it is
placed, entry by entry, so a flagged entry is its `[BLOCKED: …]` label and a cut can
never hide a finding. A file that cannot be read as its format says (a corrupt
`profile.json`) is left out with a warning (`MemorySource.warnings`), never silently.
"""

from __future__ import annotations

import abc
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vault_app.core import agent_memory, errors, layout, notes, profile, tiers, vault

if TYPE_CHECKING:
    from vault_app.core.neighbours import ForeignFolder
    from vault_app.search import engine

Shown = Callable[[str], str]
RECENT_DAYS = 3  # a neighbour's timeline without a date in the query: its latest days
MAX_DAYS = 31  # days of a neighbour's timeline offered at most (newest first)
ME_FACTS = 40  # facts of Me offered to the user profile at most (the block's share cuts)
SUMMARY_ROOM = 80  # a summary needs room for its heading and a useful line, else left out
_DAY_HEADING = re.compile(r"^# \d{4}-\d{2}-\d{2}[ \t]*\r?\n(\r?\n)?")


@dataclass(frozen=True)
class Item:
    """One thing a block may hold: an entry, a fact, a summary, a day, a document."""

    text: str
    key: str | None = None  # what the line shows ("fact:ID", "summary:…", "daily:…")
    cut: bool = True  # may be cut at a line ("…") when it does not fit whole
    min_room: int = 8  # below this much room it is left out rather than cut


@dataclass
class Offer:
    """What a source gives one block: items in order, and how the block is headed."""

    items: list[Item]
    subtitle: str | None = None  # instead of the block's usual one
    store: notes.Usage | None = None  # a budgeted store's own usage: its meter
    joiner: str = "\n"  # between items ("\n§\n" for § entries, as Hermes shows them)


@dataclass
class Period:
    """What the query asks of the timeline: its days (None: no date named), its topic."""

    days: tuple[dt.date, dt.date] | None
    topic: str | None
    query: str | None


class MemorySource(abc.ABC):
    """One agent's memory as the builder reads it (see the module doc)."""

    def __init__(self, agent: str, shown: Shown) -> None:
        self.agent = agent
        self.shown = shown
        self.warnings: list[str] = []
        self.subtitles: dict[str, str] = {}  # block -> subtitle where this format differs

    @property
    @abc.abstractmethod
    def origin(self) -> str:
        """The format the memory is read in: para, hermes, picoclaw or microclaw."""

    def offers(self, period: Period) -> dict[str, Offer]:
        """Each block this source has something for, by block name; a block whose file
        cannot be read as its format says is left out with a warning."""
        readers: dict[str, Callable[[], Offer | None]] = {
            "principles": self.principles,
            "user": self.user,
            "me": self.me,
            "notes": self.notes,
            "tiers": self.tiers,
            "long_term": self.long_term,
            "tacit": self.tacit,
            "summaries": lambda: self.summaries(period.topic),
            "facts": lambda: self.facts(period.topic),
            "timeline": lambda: self.timeline(period),
        }
        found: dict[str, Offer] = {}
        for name, read in readers.items():
            try:
                offer = read()
            except errors.CorruptFileError as exc:
                self.warnings.append(f"The {name} block is left out: {exc}")
                continue
            if offer and offer.items:
                found[name] = offer
        return found

    def mark_accessed(self, fact_ids: list[str]) -> dict[str, int]:
        """Count the facts placed as accessed (only a vault has facts)."""
        return {}

    # -- the blocks; a source without one gives None ------------------------------------

    def principles(self) -> Offer | None:
        return None

    def user(self) -> Offer | None:
        return None

    def me(self) -> Offer | None:
        return None

    def notes(self) -> Offer | None:
        return None

    def tiers(self) -> Offer | None:
        return None

    def long_term(self) -> Offer | None:
        return None

    def tacit(self) -> Offer | None:
        return None

    def summaries(self, topic: str | None) -> Offer | None:
        return None

    def facts(self, topic: str | None) -> Offer | None:
        return None

    def timeline(self, period: Period) -> Offer | None:
        return None

    # -- shared shapes ------------------------------------------------------------------

    def _document(self, text: str | None, subtitle: str | None = None) -> Offer | None:
        if not text or not text.strip():
            return None
        return Offer([Item(self.shown(text.strip()))], subtitle)

    def _entries(self, state: agent_memory.NotesState | None) -> Offer | None:
        """A § store's entries, each whole, under the store's own meter (as Hermes)."""
        if state is None or not state.enabled or not state.entries:
            return None
        items = [Item(self.shown(e), cut=False) for e in state.entries]
        return Offer(items, store=state.usage, joiner=notes.ENTRY_DELIMITER)

    def _user(
        self, state: agent_memory.NotesState | None, values: dict[str, str] | None
    ) -> Offer | None:
        """USER.md's entries, then profile.json as a markdown list (one more item)."""
        offer = self._entries(state) or Offer([], joiner=notes.ENTRY_DELIMITER)
        if values:
            offer.items.append(Item(self.shown(profile.as_markdown(values))))
        return offer

    def _tiered(self, state: agent_memory.TiersState | None) -> Offer | None:
        """Each tier that holds text, under its heading, long term first."""
        if state is None or state.text is None:
            return None
        memory = state.memory
        items = [
            Item(f"{tiers.TIER_HEADINGS[n]}\n{self.shown(body)}")
            for n, body in memory.tiers().items()
            if body
        ]
        return Offer(items, joiner="\n\n")

    def _profile(self, read: Callable[[], agent_memory.ProfileState]) -> dict[str, str] | None:
        try:
            return read().values
        except errors.CorruptFileError as exc:
            self.warnings.append(f"The key–value profile is left out: {exc}")
            return None


class VaultSource(MemorySource):
    """A PARA vault's agent, its relevance blocks found by the search engine."""

    def __init__(self, search: engine.SearchEngine, agent: str, shown: Shown) -> None:
        super().__init__(agent, shown)
        self.search = search
        self.vault: vault.Vault = search.vault
        self.settings = agent_memory.settings(self.vault, agent)

    @property
    def origin(self) -> str:
        return "para"

    def mark_accessed(self, fact_ids: list[str]) -> dict[str, int]:
        return self.search.mark_accessed(fact_ids) if fact_ids else {}

    def principles(self) -> Offer | None:
        return self._document(self.vault.document(vault.PRINCIPLES).text)

    def user(self) -> Offer | None:
        if not self.settings.profile:
            return None
        state = agent_memory.read_notes(self.vault, self.agent, "user")
        values = self._profile(lambda: agent_memory.read_profile(self.vault, self.agent))
        return self._user(state, values)

    def me(self) -> Offer | None:
        """What the notes told of the user: the active facts of Me (`layout.USER_ENTITY`),
        the agent's own and the global one, hot first, then the most used (the user
        profile switched off takes them away too)."""
        from vault_app.search import documents, engine

        if not self.settings.profile:
            return None
        sources = frozenset(documents.entity_source(ref) for ref in self._me_refs())
        filters = engine.Filters(
            kinds=frozenset({documents.FACT}), scope=self._scopes(), sources=sources
        )
        hits = self.search.ranked_without_query(filters, ME_FACTS)
        return Offer([Item(f"- {self.shown(h.text)} ({h.tier})", h.key, cut=False) for h in hits])

    def notes(self) -> Offer | None:
        if not self.settings.notes:
            return None
        return self._entries(agent_memory.read_notes(self.vault, self.agent, "memory"))

    def tiers(self) -> Offer | None:
        return self._tiered(agent_memory.read_tiers(self.vault, self.agent))

    def tacit(self) -> Offer | None:
        return self._document(self.vault.document("TACIT.md", self.agent).text)

    def _scopes(self) -> frozenset[str]:
        return frozenset({layout.GLOBAL_SCOPE, f"agent:{self.agent}"})

    def _me_refs(self) -> tuple[layout.EntityRef, layout.EntityRef]:
        """Me: the agent's own and the global one."""
        return (
            layout.EntityRef(self.agent, layout.USER_ENTITY),
            layout.EntityRef(None, layout.USER_ENTITY),
        )

    def summaries(self, topic: str | None) -> Offer | None:
        """The summaries of the entities the query is about (without one, the agent's
        own), Me's aside: its facts are the ABOUT THE USER block's."""
        from vault_app.search import documents, engine

        filters = engine.Filters(kinds=frozenset({documents.SUMMARY}), scope=self._scopes())
        if topic:
            found = self.search.search(topic, mode="hybrid", filters=filters, limit=5).hits
        else:  # no query: the agent's own entities
            filters.scope = f"agent:{self.agent}"
            found = self.search.ranked_without_query(filters, 5)
        items = []
        me = {str(ref) for ref in self._me_refs()}
        for doc in (self.search.document(h.key) for h in found):
            if doc is None or doc.entity in me:
                continue
            prose = documents.summary_prose(doc.text) or documents.summary_body(doc.text)
            if prose:
                text = f"### {doc.entity}\n{self.shown(prose)}"
                items.append(Item(text, doc.key, min_room=SUMMARY_ROOM))
        return Offer(items)

    def facts(self, topic: str | None) -> Offer | None:
        """Hot and warm facts first (by relevance, else by tier and accessCount); cold
        ones after every warmer one."""
        from vault_app.search import documents, engine

        scopes = self._scopes()
        warm, cold_tier = frozenset({"hot", "warm"}), frozenset({"cold"})
        kinds = frozenset({documents.FACT})
        if topic:
            found = self.search.search(
                topic,
                mode="hybrid",
                limit=25,
                filters=engine.Filters(kinds=kinds, scope=scopes, tiers=warm),
            ).hits
            cold = self.search.search(
                topic,
                mode="hybrid",
                limit=10,
                filters=engine.Filters(kinds=kinds, scope=scopes, tiers=cold_tier),
            ).hits
        else:
            found = self.search.ranked_without_query(
                engine.Filters(kinds=kinds, scope=scopes, tiers=warm), 40
            )
            cold = self.search.ranked_without_query(
                engine.Filters(kinds=kinds, scope=scopes, tiers=cold_tier), 40
            )[:10]
        items = [
            Item(f"- {self.shown(h.text)} ({h.entity or h.scope}; {h.tier})", h.key, cut=False)
            for h in [*found, *cold]
        ]
        return Offer(items)

    def timeline(self, period: Period) -> Offer | None:
        """Daily entries of the days the query names (none without a date)."""
        from vault_app.search import documents, engine

        if not period.days:
            return None
        start = dt.datetime.combine(period.days[0], dt.time.min)
        end = dt.datetime.combine(period.days[1], dt.time.max)
        filters = engine.Filters(
            kinds=frozenset({documents.DAILY}), scope=self._scopes(), since=start, until=end
        )
        hits = self.search.search(period.query or "", mode="hybrid", filters=filters, limit=8).hits
        if len(hits) < 3:
            seen = {h.key for h in hits}
            hits += [h for h in self.search.ranked_without_query(filters, 8) if h.key not in seen]
        items = []
        for hit in hits:
            doc = self.search.document(hit.key)
            stamp = doc.date.isoformat() if doc and doc.date else ""
            when = ""
            if doc and doc.timestamp:
                when = dt.datetime.fromtimestamp(doc.timestamp).strftime(" %H:%M")
            who = "" if hit.scope == layout.GLOBAL_SCOPE else f" [{hit.scope[6:]}]"
            items.append(Item(f"**{stamp}{when}**{who}: {self.shown(hit.text)}", hit.key))
        return Offer(items)


class FolderSource(MemorySource):
    """A neighbour's folder in its own format (Hermes, PicoClaw, MicroClaw)."""

    def __init__(self, folder: ForeignFolder, agent: str | None, shown: Shown) -> None:
        super().__init__(folder.agent(agent), shown)
        self.folder = folder
        if hasattr(folder, "principles_path"):
            where = folder.principles_path().relative_to(folder.root).as_posix()
            self.subtitles["principles"] = f"{where}, highest priority"

    @property
    def origin(self) -> str:
        return self.folder.format

    def _has(self, read: Callable[[], object]) -> object | None:
        from vault_app.core.neighbours import UnsupportedError

        try:
            return read()
        except UnsupportedError:
            return None

    def principles(self) -> Offer | None:
        text = self._has(self.folder.principles)
        return self._document(text if isinstance(text, str) else None)

    def user(self) -> Offer | None:
        state = self._has(lambda: self.folder.read_notes(self.agent, "user"))
        notes_state = state if isinstance(state, agent_memory.NotesState) else None
        if notes_state is not None and not notes_state.enabled:
            return None
        values = self._has(lambda: self._profile(lambda: self.folder.read_profile(self.agent)))
        return self._user(notes_state, values if isinstance(values, dict) else None)

    def notes(self) -> Offer | None:
        state = self._has(lambda: self.folder.read_notes(self.agent, "memory"))
        return self._entries(state if isinstance(state, agent_memory.NotesState) else None)

    def tiers(self) -> Offer | None:
        state = self._has(lambda: self.folder.read_tiers(self.agent))
        return self._tiered(state if isinstance(state, agent_memory.TiersState) else None)

    def long_term(self) -> Offer | None:
        read = getattr(self.folder, "long_term", None)  # PicoClaw's free-form MEMORY.md
        return self._document(read() if read is not None else None)

    def timeline(self, period: Period) -> Offer | None:
        found = self._has(lambda: self.folder.daily_dates(self.agent))
        days = found if isinstance(found, list) else []
        if period.days:
            start, end = period.days
            days = [d for d in days if start <= d <= end]
            subtitle = None
        else:
            days = days[-RECENT_DAYS:]
            subtitle = "recent daily notes"
        items = []
        for day in sorted(days, reverse=True)[:MAX_DAYS]:
            note = self.folder.daily_note(self.agent, day)
            body = _DAY_HEADING.sub("", note.text or "", count=1).strip()
            if body:
                items.append(Item(f"**{day.isoformat()}**: {self.shown(body)}"))
        return Offer(items, subtitle)
