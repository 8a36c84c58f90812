"""What a query asks about beyond its words: whom it names and which days it speaks of.

Hybrid ranking adds a bonus to the candidates that match these (`boosts`), so that
"What is Maya's dog called?" ranks Maya's pet above the five other people's pets that
mean the same, and "What was Maya up to in May 2025?" ranks what was said or learnt in
that May first:

- **names**: a query word whose token is a word of a name the vault knows (an entity's
  title, `areas/people/maya-chen` -> Maya Chen, or the speaker of a daily-note turn,
  `Maya: ...`, `**Maya** (D1:3): ...`: `core.daily.speaker`), written with a capital
  letter, or in lower case when the vault's daily notes write that word capitalised
  (`CAPITAL_MIN` times or more) and almost never plain (`PLAIN_SHARE`): "what did maya do"
  names Maya, "may" is no name where notes say "I may come", even if someone there is
  called May. A vault of entities alone has no such statistics (its facts are not read for
  them): its names count capitalised only. A candidate that is *of* the name
  (`documents.owner`: a fact of Maya's entity, a turn Maya spoke, where "I" is Maya) gets
  `NAME_BOOST` times the share of the query's names it is of; one that only mentions it (a
  fact of Leo's that names Maya, a turn said *to* her) `MENTION` (facts) or `MENTION_TURN`
  (turns) of that. Words not written as names ("plumber", "solar") and names the vault
  does not know are left alone.
- **dates**: the days the query refers to (`temporal.date_range`, as the context builder
  reads them: "in May 2025", "last week", "yesterday"), read without the names it mentions
  unless said as a date (`undated`: "What did June say?" is about June, "in June 2025" is
  a date); a candidate stamped within them (a fact's timestamp, a daily entry's time) gets
  `DATE_BOOST`, 1: the fused score spans [0, 1], so the days asked about come first, as
  a constraint the asker stated.

A query naming someone is also embedded without the names (`meaning`): a question's vector
is otherwise closest to every short fact of that person ("Maya has a busy week" for "What
pastime has Maya picked up?"), while the boost already picks the person. A candidate
holding every name is then a match whatever its cosine (the relevance floor would judge a
meaning measured without them), and the hybrid weighs BM25 by `NAMED_BM25` (its lexical
match is mostly the name).

A name mentioned counts `MENTION_TURN` (0.5) of one a turn is of, and `MENTION` (0.85)
for facts and summaries, chosen on LoCoMo's development half (`search_quality.py --set
locomo`) and held to our own sets: turns hit@1 / hit@5 0.419 / 0.728 -> 0.455 / 0.749
(MRR 0.549 -> 0.580): "How did Melanie feel after the accident?" is answered by Melanie,
not by Caroline's "Melanie, that must have been scary"; facts 0.599 / 0.800 -> 0.604 /
0.805. A mention at 0.5 for facts too gives LoCoMo facts 0.602 / 0.808 but costs the
household set 0.020 of hit@1 (its facts are filed under topics: "Jordan's night shift at
St. Anne's runs…" is the hospital's), 0.75 costs it 0.010; at 0.85 it loses 0.005, the
conversation sets are unchanged or better.

The values were chosen on the conversation set (`benchmarks/search_quality.py`; facts
hit@1 / hit@5 of hybrid, 0.314 / 0.688 without any of this): all of it 0.619 / 0.939
(with a date boost of 0.3, 0.601 / 0.913; 0.8 and more give 0.619); without the date boost
0.579 / 0.852; BM25 at full weight 0.587 / 0.917; the query embedded with its names 0.324
/ 0.747; no name boost 0.192 / 0.636. A name boost above 0.5 changes nothing (the person's
documents already lead). On the held-out conversations (`benchmarks/eval/heldout.py`,
never tuned on; a third of its questions typed in lower case) the ranking as first tuned
gave 0.586 / 0.868, names in lower case 0.612 / 0.921, the date boost of 1 0.645 / 0.928.
Tried and left out (facts hit@1, tuning / held out): the query's wh-word and auxiliary
left out of the meaning, 0.565 / 0.586; each named candidate's cosine to the name alone
subtracted (a hub penalty), 0.575 / 0.605 at 0.5 and worse above; BM25 over the words
other than the names, 0.553 / 0.605; NAMED_BM25 0 or 0.25, 0.593 and 0.597 on tuning; 300
candidates instead of 100, no change. A "no good matches" from the best cosine among the
named person's documents separates nothing: a floor that catches 17% of the no-answer
questions (0.15) loses 2.4% of the answerable ones (held out: 12% for 5.3%).

The names are read from the index's sources at the first query, then only from sources
added or changed since (a daily note gains turns all day; a removed entity's name words
stay: they only ever boost documents holding that word; a note read again counts its
words again, which leaves their shares as they were). A daily note's turns are read for
their speakers and the case statistics with `LazyDocs.peek`, which holds none of them
(at 50,000 daily entries the first read takes 0.6 s and no memory; reading them as
documents held 33 MB); only the names' counts are kept, and a name first seen after a
note was read has no counts from it. The cost per query is a few dictionary lookups and
one sorted search per name over the candidates' postings (`BM25Index.holds`): 0.13 ms
for a named query on the 200,000-fact vault; finding the names and the meaning takes
4 µs (1 µs before lower-case names).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vault_app.core import daily, errors, layout
from vault_app.search import columns, documents, temporal

if TYPE_CHECKING:
    from vault_app.search.engine import SearchEngine

NAME_BOOST = 0.5  # chosen on the conversation evaluation set (benchmarks/search_quality.py)
# a candidate that only mentions a name the query asks about (not its entity's, not its
# turn's speaker) gets this share of the name's boost: a fact filed under another entity
# is often about the name it holds ("Jordan's night shift runs…" under the hospital); a
# turn said *to* someone is about its speaker
MENTION = 0.85
MENTION_TURN = 0.5
# the days a query asks about come first: the fused score spans [0, 1], so a bonus of 1
# ranks a document of those days above every other one as named (0.3 on the conversation
# set: facts hit@1 0.601, 0.619 from 0.8 on; held out 0.612 -> 0.645; the old set alike)
DATE_BOOST = 1.0
# the hybrid's BM25 weight is scaled by this for a query naming someone: its lexical match
# is then mostly the name, which the name boost already weighs
NAMED_BM25 = 0.5
# a name token counts in a query typed in lower case when at most this share of its
# occurrences in the vault's texts are written in lower case (a plain word's, "may")
PLAIN_SHARE = 0.05
CAPITAL_MIN = 3  # and the texts write it capitalised at least this often

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_LETTERS = re.compile(r"[^\W\d_]+")
# a word written in lower case, or capitalised (ASCII letters, which is fast: a word with
# others is not counted, which only ever leaves a name capitalised-only)
_PLAIN_WORD = re.compile(r"\b[a-z]+\b")
_CAPITAL_WORD = re.compile(r"\b[A-Z][a-z]+\b")


class Names:
    """The tokens of the names a vault knows (entity titles, daily-note speakers), and
    those of them safe to match in a query typed in lower case (`lower`)."""

    def __init__(self) -> None:
        self.words: set[str] = set()
        # by name token: how often the texts read write it in lower case, and capitalised
        self.plain: Counter[str] = Counter()
        self.capital: Counter[str] = Counter()
        self.lower: set[str] = set()  # the name tokens rare as plain words
        self.forms: dict[str, set[str]] = {}  # a name token's words as written, lower-cased
        # the sources read, each with the signature it had (a daily note read in the
        # morning has more turns, and maybe new speakers, by the evening)
        self.seen: dict[str, object] = {}
        self.size = (-1, -1)  # the index's sources and document rows when last read
        self.lock = threading.Lock()
        # by name token, the owner codes (`DocumentColumns.owner`) whose name holds it
        self.owners: dict[str, list[int]] = {}
        self.owners_read = 0  # the owner codes read so far (a vocabulary only grows)

    def owned_by(self, engine: SearchEngine, token: str) -> npt.NDArray[np.int32]:
        """The owner codes whose name holds `token` (reading the owners added since)."""
        table = engine.columns.codes["owner"]
        if len(table) != self.owners_read:
            with self.lock:
                fresh = [(n, c) for n, c in list(table.items()) if c >= self.owners_read]
                for name, code in fresh:
                    for t in set(engine.tokens.tokenize(name or "")):
                        self.owners.setdefault(t, []).append(code)
                self.owners_read = max(self.owners_read, *(c + 1 for _, c in fresh), 0)
        return np.asarray(self.owners.get(token, ()), dtype=np.int32)

    def update(self, engine: SearchEngine) -> set[str]:
        """The name tokens, reading the sources added or changed since the last call.

        Without the engine's lock while no source came or went (a query's names are read
        before its meaning is encoded, outside the lock, as other queries are scored);
        under it to read the new ones."""
        if (len(engine.state.by_source), engine.columns.size) == self.size:
            return self.words
        with engine._lock.shared(), self.lock:  # the engine's changes wait
            sources = engine.state.by_source
            signatures = engine.state.signatures
            fresh = [s for s in sources if self.seen.get(s) is not signatures.get(s, s)]
            plain: Counter[str] = Counter()  # by word as written, lower-cased
            capital: Counter[str] = Counter()
            tokenize = engine.tokens.tokenize
            for source in fresh:
                for name in set(_source_names(engine, source, plain, capital)):
                    self.words.update(tokenize(name))
                    for form in _LETTERS.findall(name.lower()):
                        for token in tokenize(form):
                            self.forms.setdefault(token, set()).add(form)
            self.seen.update((s, signatures.get(s, s)) for s in fresh)
            self.size = (len(sources), engine.columns.size)
            # only the names' counts are kept (the vocabulary's are dropped)
            for token, forms in self.forms.items():
                self.plain[token] += sum(plain[f] for f in forms)
                self.capital[token] += sum(capital[f] for f in forms)
            self.lower = {
                w
                for w in self.words
                if w.isalpha()
                and self.capital[w] >= CAPITAL_MIN
                and self.plain[w] <= PLAIN_SHARE * (self.plain[w] + self.capital[w])
            }
        return self.words


def _source_names(
    engine: SearchEngine, source: str, plain: Counter[str], capital: Counter[str]
) -> list[str]:
    """The names of `source` as written (its entity's title, its turns' speakers),
    counting into `plain` and `capital` a daily note's words (lower-cased) by how they are
    written: the statistics of lower-case names (a vault of entities alone has none, and
    its names count only capitalised)."""
    if source.startswith("entity:"):
        try:
            return [layout.EntityRef.parse(source.removeprefix("entity:")).title]
        except errors.InvalidIdError:
            return []  # its facts are not read: 200,000 of them take seconds
    names: list[str] = []
    for text in engine.state.docs.peek(engine.state.by_source.get(source, ())):
        if text is None:
            continue
        who = daily.speaker(text)
        if who:
            names.append(who)
        plain.update(_PLAIN_WORD.findall(text))
        capital.update(w.lower() for w in _CAPITAL_WORD.findall(text))
    return names


def named(query: str, engine: SearchEngine) -> list[str]:
    """The tokens of the names `query` mentions: its capitalised words the vault knows as
    names, and its lower-case ones that are names the vault's texts rarely write in lower
    case ("maya" but not "may", when the notes say "I may come")."""
    words = _WORD.findall(query)
    if not words:
        return []
    names = engine.names
    known = names.update(engine)
    if not known:
        return []
    tokenize = engine.tokens.tokenize
    capitalised = tokenize(" ".join(w for w in words if w[0].isupper()))
    lower = tokenize(" ".join(w for w in words if not w[0].isupper()))
    found = [t for t in capitalised if t in known] + [t for t in lower if t in names.lower]
    return list(dict.fromkeys(found))


def meaning(query: str, names: Sequence[str], engine: SearchEngine) -> str:
    """`query` without the names it mentions, for the embedding: a question's vector is
    dominated by a name it shares with every short fact of that person ("Maya has a busy
    week" is closest to "What pastime has Maya picked up?"); the names are matched by the
    name boost instead. The query as it is when nothing else would remain."""
    if not names:
        return query
    wanted = set(names)
    tokenize = engine.tokens.tokenize
    lower = engine.names.lower  # a name in lower case is one only when it is safe
    kept = [
        w
        for w in query.split()
        if not (
            (t := tokenize(w))
            and all(x in wanted for x in t)
            and (w[0].isupper() or all(x in lower for x in t))
        )
    ]
    rest = " ".join(kept)
    return rest if engine.tokens.tokenize(rest) else query


_DATE_WORD = re.compile(r"\b(?:in|during|since|last|of)\s+$", re.IGNORECASE)
_YEAR = re.compile(r"\s+\d{4}\b")  # matched at a position: no ^


def undated(query: str, names: Sequence[str], engine: SearchEngine) -> str:
    """`query` without the words of the names it mentions, unless one is a month said as
    a date ("in June", "June 2025"): "What did June say?" asks about June, not about June's
    days, once the vault knows someone called June."""
    if not names:
        return query
    wanted = set(names)
    tokenize = engine.tokens.tokenize
    out: list[str] = []
    at = 0
    for match in _WORD.finditer(query):
        word = match[0]
        if (
            (t := tokenize(word))
            and all(x in wanted for x in t)
            and not _DATE_WORD.search(query, 0, match.start())
            and not _YEAR.match(query, match.end())
        ):
            out.append(query[at : match.start()])
            at = match.end()
    return "".join(out) + query[at:]


def window(query: str, today: dt.date) -> tuple[float, float] | None:
    """The query's days as [start, end) epoch seconds in local time, or None."""
    days = temporal.date_range(query, today)
    if days is None:
        return None
    start = dt.datetime.combine(days[0], dt.time()).astimezone()
    end = dt.datetime.combine(days[1] + dt.timedelta(days=1), dt.time()).astimezone()
    return start.timestamp(), end.timestamp()


@dataclass(frozen=True)
class Boosts:
    bonus: dict[str, float]  # by candidate key, only those with one
    named: set[str]  # the candidates holding every name the query mentions


def boosts(engine: SearchEngine, query: str, names: Sequence[str], keys: Sequence[str]) -> Boosts:
    """The bonus of each candidate in `keys` (only those with one): for holding the
    `names` the query mentions (`named`), for being of the days it speaks of. A candidate
    holding every name is a match whatever its cosine (`Boosts.named`): its meaning was
    measured without them."""
    days = window(undated(query, names, engine), engine.source.now().date())
    if not keys or (not names and days is None):
        return Boosts({}, set())
    holding: set[str] = set()
    bonus = np.zeros(len(keys), dtype=np.float64)
    rows = engine.columns.row
    at_rows = np.fromiter((rows[k] for k in keys), dtype=np.int64, count=len(keys))
    if names:
        index = engine.bm25
        slots = np.fromiter((index.find(k) for k in keys), dtype=np.int64, count=len(keys))
        live = slots >= 0
        owners = engine.columns.owner[at_rows]
        turns = engine.columns.kind[at_rows] == columns.KIND_CODE[documents.DAILY]
        mention = np.where(turns, MENTION_TURN, MENTION)
        held = np.zeros(len(keys), dtype=np.float64)
        weight = np.zeros(len(keys), dtype=np.float64)
        for name in names:
            holds = np.zeros(len(keys), dtype=np.bool_)
            holds[live] = index.holds(name, slots[live])
            held += holds
            of = holds & np.isin(owners, engine.names.owned_by(engine, name))
            weight += np.where(of, 1.0, mention * holds)
        bonus += NAME_BOOST * weight / len(names)
        holding = {k for k, h in zip(keys, held.tolist(), strict=True) if h == len(names)}
    if days is not None:
        at = engine.columns.timestamp[at_rows]
        bonus += DATE_BOOST * ((at >= days[0]) & (at < days[1]))
    return Boosts({k: b for k, b in zip(keys, bonus.tolist(), strict=True) if b}, holding)
