"""The context builder: what an agent's prompt should carry, layered, within a character budget.

Blocks in this order, each from the agent's `MemorySource` (`search.context_sources`: a
PARA vault through its search engine, or a neighbour's folder opened as it is):

====  ===============  ===========================================================
L0    principles       `global/AGENTS.md` (MicroClaw: `groups/AGENTS.md`), first
L0    user             the user profile: `memories/USER.md` § entries, `profile.json`
L0    me               what the notes told of the user: the active facts of Me
                       (`areas/me`, the agent's own and the global one), hot first
L1    notes            the agent notes: `memories/MEMORY.md` § entries
L1    tiers            tiered `MEMORY.md` (PicoClaw: its free-form one, `long_term`)
L1    tacit            the agent's `TACIT.md`
L2    summaries        summaries of the entities the query is about (else its own)
L2    facts            hot and warm facts first, cold ones only after every warmer one
L2    timeline         daily entries of the days a temporal query names
====  ===============  ===========================================================

**Shares** (MicroClaw's L0 identity / L1 essential / L2 relevance): each block present has
a share of the budget (`SHARES`, scaled over the blocks that have something), identity
and principles small, essentials next, relevance the most; what a block leaves unused
passes to the next. The principles are never starved silently: they may claim up to
`PRINCIPLES_GUARANTEE` of the budget (as much as their text needs), and when they are
cut all the same `Context.warnings` says so, with the budget that carries them whole.

**Meters.** Each block is headed with its meter and its tokens, as in seed 003:
`MEMORY (agent notes) [42% — 924/2,200 chars · ≈231 tokens]`. For the agent notes and
the user profile the meter is the store's own usage against its own budget (as Hermes
shows it, `⚠ over budget` past it); for the other blocks the block's use of its share of
the context. Tokens are the embedding model's count when it is loaded, else an estimate
("≈", `search.token_count`).

A fact is shown once: one placed about the user (a fact of Me) is not offered again
among the specific facts.

**Nothing cut silently.** Items are whole (a fact, an entry) or cut at a line with "…";
items that did not fit are counted (`Block.left_out`) and the block says
`(+N omitted)`. A block with no room even for that is left out with a warning. An
empty block is omitted, header and all. The whole text never exceeds the budget. Each
block keeps the key of each of its lines (`line_keys`: the fact, summary or daily entry
a line shows). Facts returned to the agent are counted as accessed (one batched write
per entity), unless `mark_access` is False.

A context is what an agent reads, whichever face builds it (the MCP `context` tool, the
CLI's `context`, the window's preview), so every stored text passes through
`injection.shown_to_agents` before it is placed (entry by entry for § stores): a flagged
text is shown as its `[BLOCKED: …]` label, alike in every face (the file keeps it as
written; a person reads it on its page). `for_agents=False` is for a caller that needs
the raw texts. The label replaces the whole text before any cut, so a cut cannot hide a
finding.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vault_app.core import errors, injection, layout, notes, vault
from vault_app.search import context_sources, engine, temporal, token_count

if TYPE_CHECKING:
    from vault_app.core.neighbours import ForeignFolder

RULE = "═" * 48
DEFAULT_BUDGET = 4000
LAYERS = {
    "principles": "L0 identity",
    "user": "L0 identity",
    "me": "L0 identity",
    "notes": "L1 essential",
    "tiers": "L1 essential",
    "long_term": "L1 essential",
    "tacit": "L1 essential",
    "summaries": "L2 relevance",
    "facts": "L2 relevance",
    "timeline": "L2 relevance",
}
SHARES = {  # of the budget, scaled over the blocks present (tiers and long_term: one)
    "principles": 0.12,
    "user": 0.08,
    "me": 0.08,
    "notes": 0.12,
    "tiers": 0.10,
    "long_term": 0.10,
    "tacit": 0.08,
    "summaries": 0.18,
    "facts": 0.22,
    "timeline": 0.10,
}
PRINCIPLES_GUARANTEE = 0.5  # of the budget (after headers) the principles may claim
MIN_BODY = 40  # room a block's text should have: below it, the last blocks give way
TITLES = {
    "principles": ("PRINCIPLES", "global/AGENTS.md, highest priority"),
    "user": ("USER PROFILE", "who the user is"),
    "me": ("ABOUT THE USER", "what the notes told of them: Me"),
    "notes": ("MEMORY", "agent notes"),
    "tiers": ("TIERED MEMORY", "long, mid and short term"),
    "long_term": ("LONG-TERM MEMORY", "memory/MEMORY.md"),
    "tacit": ("TACIT KNOWLEDGE", "how the user operates"),
    "summaries": ("RELEVANT ENTITIES", "summaries"),
    "facts": ("SPECIFIC FACTS", "hot and warm first"),
    "timeline": ("TIMELINE", "daily notes"),
}
OVER = " ⚠ over budget"


def omitted_line(count: int) -> str:
    return f"(+{count:,} omitted)"


OMITTED_ROOM = len("\n" + omitted_line(99_999))


@dataclass
class Block:
    name: str
    title: str
    subtitle: str
    cap: int
    lines: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    line_keys: list[str | None] = field(default_factory=list)  # what each line shows
    left_out: int = 0  # items offered that did not fit
    cut: int = 0  # items placed cut short ("…")
    joiner: str = "\n"  # between items: "\n§\n" for § entries
    store: notes.Usage | None = None  # a budgeted store's usage: the meter shows it
    tokens: str = ""  # "≈231 tokens", counted once the block is filled

    @property
    def layer(self) -> str:
        return LAYERS.get(self.name, "")

    @property
    def items_text(self) -> str:
        """The placed items, without the `(+N omitted)` line."""
        return self.joiner.join(self.lines)

    @property
    def body(self) -> str:
        text = self.items_text
        if self.left_out:
            text = f"{text}\n{omitted_line(self.left_out)}" if text else omitted_line(self.left_out)
        return text

    @property
    def used(self) -> int:
        return len(self.body)

    @property
    def percent(self) -> int:
        if self.store is not None:
            return self.store.percent
        return round(100 * self.used / self.cap) if self.cap > 0 else 0

    def meter(self) -> str:
        """`42% — 924/2,200 chars · ≈231 tokens`: the store's usage, else the share's."""
        if self.store is not None:
            text = self.store.meter() + (OVER if self.store.over else "")
        else:
            text = f"{self.percent}% — {self.used:,}/{max(self.cap, 0):,} chars"
        return f"{text} · {self.tokens}" if self.tokens else text

    def header(self) -> str:
        return f"{RULE}\n{self.title} ({self.subtitle}) [{self.meter()}]\n{RULE}"

    def render(self) -> str:
        return f"{self.header()}\n{self.body}"

    def offer(self, item: context_sources.Item) -> bool:
        """Place `item` if it fits the cap (leaving room for an `(+N omitted)` line), or
        cut at a line with "…" when it may be; True if placed."""
        room = self.cap - OMITTED_ROOM - len(self.items_text)
        room -= len(self.joiner) if self.lines else 0
        if len(item.text) <= room:
            self._place(item.text, item.key)
            return True
        if item.cut and room >= item.min_room:
            clipped = _clip_lines(item.text, room)
            if clipped:
                self._place(clipped, item.key)
                self.cut += 1
                return True
        self.left_out += 1
        return False

    def _place(self, line: str, key: str | None) -> None:
        self.lines.append(line)
        self.line_keys.append(key)
        if key:
            self.keys.append(key)

    def to_json(self) -> dict[str, Any]:
        store = self.store
        return {
            "name": self.name,
            "title": self.title,
            "layer": self.layer,
            "used": self.used,
            "cap": self.cap,
            "percent": round(100 * self.used / self.cap) if self.cap > 0 else 0,
            "meter": self.meter(),
            "tokens": self.tokens,
            "store": None
            if store is None
            else {"used": store.used, "limit": store.limit, "percent": store.percent},
            "keys": self.keys,
            "leftOut": self.left_out,
            "cut": self.cut,
            "text": self.body,
        }


@dataclass
class Context:
    agent: str
    query: str | None
    budget: int
    blocks: list[Block]
    period: tuple[dt.date, dt.date] | None
    marked: dict[str, int]
    warnings: list[str] = field(default_factory=list)  # e.g. the principles were cut
    format: str = "para"  # where the memory came from: para, hermes, picoclaw, microclaw
    tokens: str = ""  # of the whole text

    @property
    def text(self) -> str:
        return "\n".join(b.render() for b in self.blocks)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "format": self.format,
            "query": self.query,
            "budget": self.budget,
            "used": len(self.text),
            "tokens": self.tokens,
            "period": [d.isoformat() for d in self.period] if self.period else None,
            "blocks": [b.to_json() for b in self.blocks],
            "warnings": self.warnings,
            "markedAccessed": self.marked,
            "text": self.text,
        }


def _clip_lines(text: str, room: int) -> str:
    """The longest prefix of whole lines (or words) of `text` within `room`, with "…"."""
    if room < 8:
        return ""
    lines = text.splitlines()
    kept: list[str] = []
    for line in lines:
        candidate = "\n".join([*kept, line])
        if len(candidate) + 2 > room:
            break
        kept.append(line)
    if not kept:
        words = text.split()
        out = ""
        for word in words:
            if len(out) + len(word) + 3 > room:
                break
            out = f"{out} {word}".strip()
        return f"{out} …" if out else ""
    return "\n".join(kept) + "\n…"


class ContextBuilder:
    """Builds contexts for agents from a `SearchEngine` (and its vault), or from a
    neighbour's folder (`over_folder`); stored texts are shown as agents may read them
    (see the module doc) unless `for_agents` is False."""

    def __init__(
        self,
        search: engine.SearchEngine | None = None,
        *,
        for_agents: bool = True,
        folder: ForeignFolder | None = None,
    ) -> None:
        if (search is None) == (folder is None):
            raise ValueError("a context builder reads a search engine or a folder, one of them")
        self.search = search
        self.folder = folder
        self.vault: vault.Vault | None = search.vault if search is not None else None
        self.for_agents = for_agents
        self.counter = token_count.counter_for(search) if search is not None else None

    @classmethod
    def over_folder(cls, folder: ForeignFolder, *, for_agents: bool = True) -> ContextBuilder:
        """A builder over a neighbour's folder (Hermes, PicoClaw, MicroClaw) as it is."""
        return cls(folder=folder, for_agents=for_agents)

    @property
    def _folder(self) -> ForeignFolder:
        assert self.folder is not None
        return self.folder

    def _shown(self, text: str) -> str:
        return injection.shown_to_agents(text) if self.for_agents else text

    def source(self, agent: str | None) -> context_sources.MemorySource:
        """The memory `agent` is given from (checked: it exists)."""
        if self.folder is not None:
            return context_sources.FolderSource(self.folder, agent, self._shown)
        assert self.search is not None and self.vault is not None
        if agent is None:
            raise errors.VaultError("name the agent whose context to build (--agent)")
        layout.validate_agent_id(agent)
        if not self.vault.paths.agent_dir(agent).is_dir():
            raise errors.NotFoundError(f"no agent {agent!r} in {self.vault.root}")
        return context_sources.VaultSource(self.search, agent, self._shown)

    def build(
        self,
        agent: str | None,
        query: str | None = None,
        *,
        budget: int = DEFAULT_BUDGET,
        mark_access: bool = True,
        today: dt.date | None = None,
    ) -> Context:
        source = self.source(agent)
        if budget < 200:
            raise errors.VaultError(f"a context budget of {budget} chars is too small (min 200)")
        query = query.strip() if query else None
        if today is None:
            today = self.vault.now().date() if self.vault is not None else self._folder.today()
        period = temporal.date_range(query, today) if query else None
        # rank by what the query is about, not by "last week"
        topic = (temporal.strip(query, today) or None) if query else None
        offers = source.offers(context_sources.Period(period, topic, query))
        counter = self.counter or token_count.ESTIMATE
        warnings = list(source.warnings)
        blocks = self._lay_out(offers, budget, warnings, counter, source, period)
        marked: dict[str, int] = {}
        fact_ids = [
            k.removeprefix("fact:") for b in blocks for k in b.keys if k.startswith("fact:")
        ]
        if mark_access and fact_ids:
            marked = source.mark_accessed(fact_ids)
        context = Context(
            source.agent, query, budget, blocks, period, marked, warnings, source.origin
        )
        context.tokens = counter.label(counter.count(context.text))
        assert len(context.text) <= budget, "the context builder overran its budget"
        return context

    def _lay_out(
        self,
        offers: dict[str, context_sources.Offer],
        budget: int,
        warnings: list[str],
        counter: token_count.TokenCounter,
        source: context_sources.MemorySource,
        period: tuple[dt.date, dt.date] | None,
    ) -> list[Block]:
        """The blocks filled within `budget`, shares as the module doc says."""
        empty: dict[str, Block] = {}
        for name, offer in offers.items():
            title, subtitle = TITLES[name]
            subtitle = offer.subtitle or source.subtitles.get(name, subtitle)
            if name == "timeline" and period:
                subtitle = f"daily notes {period[0].isoformat()} – {period[1].isoformat()}"
            empty[name] = Block(name, title, subtitle, 0, joiner=offer.joiner, store=offer.store)
        names = list(empty)
        reserved = {n: len(_widest_header(empty[n], budget)) + 1 for n in names}
        while names and budget - sum(reserved[n] for n in names) < MIN_BODY * len(names):
            dropped = names.pop()  # the lowest priority gives way to the headers above it
            warnings.append(
                f"No room for the {empty[dropped].title} block "
                f"({len(offers[dropped].items)} items) in a budget of {budget:,} characters."
            )
        overhead = sum(reserved[n] for n in names)
        room = budget - overhead
        shares = {n: SHARES[n] for n in names}
        total = sum(shares.values()) or 1.0
        caps = {n: int(shares[n] / total * room) for n in names}
        principles = offers.get("principles")
        wanted = sum(len(i.text) for i in principles.items) if principles else 0
        claim = min(wanted + OMITTED_ROOM, int(PRINCIPLES_GUARANTEE * room))
        if "principles" in names and claim > caps["principles"] and len(names) > 1:
            # the principles first; the others share the rest
            rest = (room - claim) / (total - shares["principles"])
            caps = {n: claim if n == "principles" else int(shares[n] * rest) for n in names}
        carry = 0
        blocks: list[Block] = []
        placed: set[str] = set()  # a fact shown once: a fact of Me not again below
        for name in names:
            block = empty[name]
            block.cap = caps[name] + carry
            for item in offers[name].items:
                if item.key is None or item.key not in placed:
                    block.offer(item)
            placed.update(block.keys)
            if not block.lines and not block.left_out:  # all of it already shown above
                carry = block.cap + reserved[name]
                continue
            block.tokens = counter.label(counter.count(block.items_text)) if block.lines else ""
            if not block.lines and block.used > block.cap:  # not even "(+N omitted)" fits
                warnings.append(
                    f"No room for the {block.title} block ({block.left_out} items) "
                    f"in a budget of {budget:,} characters."
                )
                carry = block.cap + reserved[name]
                continue
            carry = block.cap - block.used + reserved[name] - len(block.header()) - 1
            blocks.append(block)
        margin = 8 * len(names)  # a larger budget's meters are a digit or two wider
        where = source.subtitles.get("principles", TITLES["principles"][1]).split(",")[0]
        warnings[:0] = _principles_warning(blocks, wanted, overhead + margin, where)
        return blocks


def _principles_warning(
    blocks: list[Block], wanted: int, overhead: int, where: str = "global/AGENTS.md"
) -> list[str]:
    """A warning when the principles (`wanted` characters) did not fit whole."""
    shown = next((b for b in blocks if b.name == "principles"), None)
    if not wanted or (shown is not None and not shown.cut and not shown.left_out):
        return []
    used = len(shown.items_text) if shown is not None else 0
    whole = overhead + math.ceil((wanted + OMITTED_ROOM) / PRINCIPLES_GUARANTEE)
    return [
        f"The principles ({where}) are cut: {used:,} of their {wanted:,} characters "
        f"fit. A budget of about {whole:,} characters carries them whole."
    ]


def _widest_header(block: Block, budget: int) -> str:
    """The header `block` can have at most: meters of numbers as wide as any it may show."""
    store = block.store
    widest = max(budget, store.used, store.limit) if store is not None else budget
    meter = f"100% — {widest:,}/{widest:,} chars · ≈{widest * 10:,} tokens"
    over = OVER if store is not None and store.over else ""
    return f"{RULE}\n{block.title} ({block.subtitle}) [{meter}{over}]\n{RULE}"
