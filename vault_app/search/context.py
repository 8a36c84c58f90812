"""The context builder: what an agent's prompt should carry, within a character budget.

Tiered retrieval as in the design ("Search & Retrieval"), in this order:

1. **Principles** — `global/AGENTS.md`, the single highest-priority source;
2. **Tacit knowledge** — the agent's `TACIT.md`;
3. **Relevant entities** — summaries (found by the query, else the agent's own);
4. **Specific facts** — Hot and Warm facts first (by relevance to the query, else by
   tier and accessCount); Cold facts only once no warmer fact is left that fits;
5. **Timeline** — daily-note entries of the days the query speaks of, only when the
   query is temporal ("last week", "in March", a date).

The agent sees global memory and its own workspace, never other agents' workspaces.
Each block has a share of the budget (what a block leaves unused passes to the next),
items are whole (a fact, an entry) or cut at a line with "…", and each block is headed
with its usage meter as in seed 003: `SPECIFIC FACTS (…) [42% — 924/2,200 chars]`. The
whole text, headers included, never exceeds the budget. Each block counts the items that
did not fit (`Block.left_out`) and keeps the key of each of its lines (`line_keys`: the
fact, summary or daily entry a line shows).

The principles are never starved silently: they get a guaranteed share of the budget
(up to `PRINCIPLES_GUARANTEE` of it, as much as their text needs, the other blocks
sharing the rest), and when they are cut all the same the context says so
(`Context.warnings`, with the budget that would carry them whole). Facts returned to the agent are
counted as accessed (one batched write per entity), unless `mark_access` is False.

Built for an agent (`ContextBuilder(engine, for_agents=True)`, as the MCP `context` tool
does), every stored text passes through `injection.shown_to_agents` before it is placed:
a text the injection scan flags is shown as its `[BLOCKED: …]` label (the file keeps it
as written). A person's context (the CLI, the window's preview) shows the raw texts.
The label replaces the whole text before any cut, so a cut cannot hide a finding.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vault_app.core import errors, injection, layout, vault
from vault_app.search import documents, engine, temporal

RULE = "═" * 48
DEFAULT_BUDGET = 4000
SHARES = {
    "principles": 0.15,
    "tacit": 0.15,
    "summaries": 0.25,
    "facts": 0.30,
    "timeline": 0.15,
}
PRINCIPLES_GUARANTEE = 0.5  # of the budget (after headers) the principles may claim
TITLES = {
    "principles": ("PRINCIPLES", "global/AGENTS.md, highest priority"),
    "tacit": ("TACIT KNOWLEDGE", "how the user operates"),
    "summaries": ("RELEVANT ENTITIES", "summaries"),
    "facts": ("SPECIFIC FACTS", "hot and warm first"),
    "timeline": ("TIMELINE", "daily notes"),
}


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

    @property
    def body(self) -> str:
        return "\n".join(self.lines)

    @property
    def used(self) -> int:
        return len(self.body)

    def header(self) -> str:
        percent = round(100 * self.used / self.cap) if self.cap else 0
        meter = f"[{percent}% — {self.used:,}/{self.cap:,} chars]"
        return f"{RULE}\n{self.title} ({self.subtitle}) {meter}\n{RULE}"

    def render(self) -> str:
        return f"{self.header()}\n{self.body}"

    def offer(self, line: str, key: str | None = None, *, cut: bool = False) -> bool:
        """Add `line` if it fits the cap (cut at a line with "…" if `cut`); True if added."""
        extra = len(line) + (1 if self.lines else 0)
        if self.used + extra <= self.cap:
            self._place(line, key)
            return True
        if cut:
            room = self.cap - self.used - (1 if self.lines else 0)
            clipped = _clip_lines(line, room)
            if clipped:
                self._place(clipped, key)
                self.cut += 1
                return True
        self.left_out += 1
        return False

    def _place(self, line: str, key: str | None) -> None:
        self.lines.append(line)
        self.line_keys.append(key)
        if key:
            self.keys.append(key)


@dataclass
class Context:
    agent: str
    query: str | None
    budget: int
    blocks: list[Block]
    period: tuple[dt.date, dt.date] | None
    marked: dict[str, int]
    warnings: list[str] = field(default_factory=list)  # e.g. the principles were cut

    @property
    def text(self) -> str:
        return "\n".join(b.render() for b in self.blocks if b.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "query": self.query,
            "budget": self.budget,
            "used": len(self.text),
            "period": [d.isoformat() for d in self.period] if self.period else None,
            "blocks": [
                {
                    "name": b.name,
                    "title": b.title,
                    "used": b.used,
                    "cap": b.cap,
                    "percent": round(100 * b.used / b.cap) if b.cap else 0,
                    "keys": b.keys,
                    "leftOut": b.left_out,
                    "cut": b.cut,
                    "text": b.body,
                }
                for b in self.blocks
                if b.lines
            ],
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
    """Builds contexts for agents from a `SearchEngine` (and its vault); with
    `for_agents`, stored texts are shown as agents may read them (see the module doc)."""

    def __init__(self, search: engine.SearchEngine, *, for_agents: bool = False) -> None:
        self.search = search
        self.vault: vault.Vault = search.vault
        self.for_agents = for_agents

    def _shown(self, text: str) -> str:
        return injection.shown_to_agents(text) if self.for_agents else text

    def build(
        self,
        agent: str,
        query: str | None = None,
        *,
        budget: int = DEFAULT_BUDGET,
        mark_access: bool = True,
        today: dt.date | None = None,
    ) -> Context:
        layout.validate_agent_id(agent)
        if not self.vault.paths.agent_dir(agent).is_dir():
            raise errors.NotFoundError(f"no agent {agent!r} in {self.vault.root}")
        if budget < 200:
            raise errors.VaultError(f"a context budget of {budget} chars is too small (min 200)")
        query = query.strip() if query else None
        today = today or self.vault.now().date()
        period = temporal.date_range(query, today) if query else None
        # rank by what the query is about, not by "last week"
        topic = (temporal.strip(query, today) or None) if query else None
        names = [n for n in SHARES if n != "timeline" or period]
        overhead = sum(len(_empty_header(n)) + 1 for n in names)
        shares = {n: SHARES[n] for n in names}
        scale = (budget - overhead) / sum(shares.values())
        principles = self.vault.document(vault.PRINCIPLES)
        wanted = len(self._shown(principles.text.strip())) if principles.text else 0
        caps = {n: int(shares[n] * scale) for n in names}
        claim = min(wanted, int(PRINCIPLES_GUARANTEE * (budget - overhead)))
        if claim > caps["principles"]:  # the principles first; the others share the rest
            rest = (budget - overhead - claim) / (sum(shares.values()) - shares["principles"])
            caps = {n: claim if n == "principles" else int(shares[n] * rest) for n in names}
        carry = 0
        blocks: list[Block] = []
        fillers: dict[str, Callable[[Block], None]] = {
            "principles": lambda b: self._document(b, principles),
            "tacit": lambda b: self._document(b, self.vault.document("TACIT.md", agent)),
            "summaries": lambda b: self._summaries(b, agent, topic),
            "facts": lambda b: self._facts(b, agent, topic),
            "timeline": lambda b: self._timeline(b, agent, topic, period),
        }
        for name in names:
            title, subtitle = TITLES[name]
            if name == "timeline" and period:
                subtitle = f"daily notes {period[0].isoformat()} – {period[1].isoformat()}"
            block = Block(name, title, subtitle, caps[name] + carry)
            fillers[name](block)
            carry = block.cap - block.used
            if block.lines:
                # an empty block is omitted, and so is its header: give its room on
                blocks.append(block)
            else:
                carry += len(_empty_header(name)) + 1
        marked: dict[str, int] = {}
        fact_ids = [
            k.removeprefix("fact:") for b in blocks for k in b.keys if k.startswith("fact:")
        ]
        if mark_access and fact_ids:
            marked = self.search.mark_accessed(fact_ids)
        warnings = _principles_warning(blocks, wanted, overhead)
        context = Context(agent, query, budget, blocks, period, marked, warnings)
        assert len(context.text) <= budget, "the context builder overran its budget"
        return context

    # -- blocks -----------------------------------------------------------------------------

    def _document(self, block: Block, doc: vault.Document) -> None:
        if doc.text and doc.text.strip():
            block.offer(self._shown(doc.text.strip()), None, cut=True)

    def _scopes(self, agent: str) -> frozenset[str]:
        return frozenset({layout.GLOBAL_SCOPE, f"agent:{agent}"})

    def _summaries(self, block: Block, agent: str, query: str | None) -> None:
        filters = engine.Filters(kinds=frozenset({documents.SUMMARY}), scope=self._scopes(agent))
        if query:
            found = self.search.search(query, mode="hybrid", filters=filters, limit=5).hits
        else:  # no query: the agent's own entities
            filters.scope = f"agent:{agent}"
            found = self.search.ranked_without_query(filters, 5)
        for doc in (self.search.document(h.key) for h in found):
            if doc is None:
                continue
            prose = documents.summary_prose(doc.text) or documents.summary_body(doc.text)
            if not prose:
                continue
            room = block.cap - block.used
            if room < 80:  # not enough for a heading and a useful line
                break
            block.offer(f"### {doc.entity}\n{self._shown(prose)}", doc.key, cut=True)

    def _facts(self, block: Block, agent: str, query: str | None) -> None:
        scopes = self._scopes(agent)
        warm = frozenset({"hot", "warm"})
        kinds = frozenset({documents.FACT})
        if query:
            found = self.search.search(
                query,
                mode="hybrid",
                limit=25,
                filters=engine.Filters(kinds=kinds, scope=scopes, tiers=warm),
            ).hits
            cold = self.search.search(
                query,
                mode="hybrid",
                limit=10,
                filters=engine.Filters(kinds=kinds, scope=scopes, tiers=frozenset({"cold"})),
            ).hits
        else:
            found = self._by_tier(scopes, warm)
            cold = self._by_tier(scopes, frozenset({"cold"}))[:10]
        for hit in [*found, *cold]:
            where = hit.entity or hit.scope
            block.offer(f"- {self._shown(hit.text)} ({where}; {hit.tier})", hit.key)

    def _by_tier(self, scopes: frozenset[str], tiers: frozenset[str]) -> list[engine.Hit]:
        """Facts of these scopes and tiers, hot first, then by accessCount (no query)."""
        return self.search.ranked_without_query(
            engine.Filters(kinds=frozenset({documents.FACT}), scope=scopes, tiers=tiers), 40
        )

    def _timeline(
        self, block: Block, agent: str, query: str | None, period: tuple[dt.date, dt.date] | None
    ) -> None:
        if not period:
            return
        start = dt.datetime.combine(period[0], dt.time.min)
        end = dt.datetime.combine(period[1], dt.time.max)
        filters = engine.Filters(
            kinds=frozenset({documents.DAILY}), scope=self._scopes(agent), since=start, until=end
        )
        hits = self.search.search(query or "", mode="hybrid", filters=filters, limit=8).hits
        if len(hits) < 3:
            seen = {h.key for h in hits}
            hits += [h for h in self.search.ranked_without_query(filters, 8) if h.key not in seen]
        for hit in hits:
            doc = self.search.document(hit.key)
            stamp = doc.date.isoformat() if doc and doc.date else ""
            when = ""
            if doc and doc.timestamp:
                when = dt.datetime.fromtimestamp(doc.timestamp).strftime(" %H:%M")
            who = "" if hit.scope == layout.GLOBAL_SCOPE else f" [{hit.scope[6:]}]"
            block.offer(f"**{stamp}{when}**{who}: {self._shown(hit.text)}", hit.key, cut=True)


def _principles_warning(blocks: list[Block], wanted: int, overhead: int) -> list[str]:
    """A warning when the principles (`wanted` characters) did not fit whole."""
    shown = next((b for b in blocks if b.name == "principles"), None)
    if not wanted or (shown is not None and not shown.cut):
        return []
    used = shown.used if shown is not None else 0
    whole = overhead + math.ceil((wanted + 2) / PRINCIPLES_GUARANTEE)
    return [
        f"The principles (global/AGENTS.md) are cut: {used:,} of their {wanted:,} characters "
        f"fit. A budget of about {whole:,} characters carries them whole."
    ]


def _empty_header(name: str) -> str:
    title, subtitle = TITLES[name]
    # the widest a header gets: meters up to "[100% — 99,999/99,999 chars]", long subtitles
    return (
        f"{RULE}\n{title} ({subtitle} 2026-01-01 – 2026-12-31) [100% — 99,999/99,999 chars]\n{RULE}"
    )
