"""Does the entity know this already? Exact and near duplicates, and changed values.

A candidate is compared with the ACTIVE facts of the entity it was routed to, never
with superseded history (an old value said again is news: it supersedes the new one).
Each entity's facts are read and prepared once per run (`Deduper` caches them; `added`
keeps the cache current as the run writes), so a check costs one read per entity and
then set arithmetic.

- "same": the same text once normalised (`normalize`: case, accents, punctuation,
  British/American spellings, filler words like "now" set aside).
- "update": the same subject with a changed value. The two texts' word sequences share
  a beginning (the subject: at least one content word) and possibly an end, and differ
  in a short middle (the value, at most `MAX_VALUE` words a side); the attribute is one
  that holds one value at a time: the values are numbers, dates or amounts; or the
  subject names a single-valued attribute ("favourite colour", "pressure", "address",
  "budget"); or the relation is ("works at", "lives in", "is married to"); or the value
  follows the subject's "is" directly ("the garage door is locked" -> "unlocked").
  "Theo is allergic to peanuts" -> "... to cats" is two facts, not an update; nor is a
  past event on another date ("was serviced on ..."). A statement and its negation
  ("likes" / "doesn't like") is an update too.
- "near": word-shingle Jaccard (words and word pairs) at or above `jaccard`, or, when an
  `embed` callable is given (L2-normalised float32 rows), embedding cosine at or above
  `cosine` — unless the numbers differ or one text negates the other: "paid on the 3rd"
  and "paid on the 5th" are two facts however alike they read.
- "new": none of those.

Order: same, then near, then update (a text that is near one fact and an update of
another — the old value still active beside the new — is skipped, not written twice),
then new. The thresholds' defaults were calibrated on `benchmarks/data/dedup_pairs.jsonl`
by `benchmarks/bench_dedup.py`, which prints the table they were chosen from.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from vault_app.core import layout, models
from vault_app.core.vault import Vault

JACCARD = 0.5  # calibrated: benchmarks/bench_dedup.py
COSINE = 0.9  # calibrated: benchmarks/bench_dedup.py
MAX_VALUE = 5  # words a changed value may span, each side


def _words_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


Embed = Callable[[list[str]], npt.NDArray[np.float32]]

_TOKEN = re.compile(r"\d+(?:[.,:/-]\d+)*(?:st|nd|rd|th|am|pm|k)?|[^\W\d_]+", re.UNICODE)
_SPELLING = {
    "favourite": "favorite",
    "favourites": "favorites",
    "colour": "color",
    "colours": "colors",
    "neighbour": "neighbor",
    "neighbours": "neighbors",
    "organise": "organize",
    "organised": "organized",
    "centre": "center",
    "theatre": "theater",
    "cheque": "check",
    "mum": "mom",
    "grey": "gray",
    "tyre": "tire",
    "tyres": "tires",
    "metre": "meter",
    "metres": "meters",
    "litre": "liter",
    "litres": "liters",
    "programme": "program",
    "licence": "license",
    "cancelled": "canceled",
    "travelling": "traveling",
}
FILLER = _words_set("now currently still actually really also just already")
STOP = _words_set(
    "a an the and or of to in on at by for with from is are was were be been being has "
    "have had do does did will would can could should it its this that these those as "
    "s our my your their his her we i you he she they them us me"
)
NEGATIONS = _words_set("not no never none nothing nobody t dont doesnt isnt cant wont")
COPULAS = _words_set("is are am s")
ARTICLES = _words_set("a an the")
# Nouns naming an attribute that holds one value at a time
ATTRIBUTES = _words_set(
    "favorite color pressure number phone mobile address email budget price cost rate "
    "deadline date time day age name password code pin passcode wifi schedule birthday "
    "size temperature thermostat setting limit balance salary rent premium provider plan "
    "status location bedtime appointment dentist doctor pediatrician vet school teacher "
    "coach job employer weight height mileage due mortgage payment deductible fee bill "
    "contractor plumber electrician insurer carrier tariff speed capacity version model "
    "owner manager agent broker lawyer accountant"
)
# Verbs (and participles) of a relation that holds one value at a time
RELATIONS = _words_set(
    "works work lives live married engaged employed moved switched costs cost expires "
    "expire renews renew due scheduled located attends attend drives uses use set "
    "planned starts start ends end opens closes runs"
)
PAST_EVENT = re.compile(r"^(was|were)$")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def tokens(text: str) -> list[str]:
    """The words of `text` as dedup compares them: folded, spellings unified, "n't" -> "not"."""
    folded = _fold(text).replace("\u2019", "'").replace("n't", " not")
    return [_SPELLING.get(t, t) for t in _TOKEN.findall(folded)]


def normalize(text: str) -> str:
    """`text` reduced to what makes two statements the same: folded words and numbers,
    one space between, filler words ("now", "currently") left out."""
    return " ".join(t for t in tokens(text) if t not in FILLER)


def shingles(words: list[str]) -> frozenset[str]:
    """Word shingles: every content word and every pair of adjacent words."""
    unigrams = {w for w in words if w not in STOP}
    bigrams = {f"{a} {b}" for a, b in itertools.pairwise(words)}
    return frozenset(unigrams | bigrams)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _numbers(words: list[str]) -> frozenset[str]:
    return frozenset(w for w in words if any(c.isdigit() for c in w))


def _negated(words: list[str]) -> bool:
    return any(w in NEGATIONS for w in words)


def _content_stems(words: list[str]) -> set[str]:
    """Content words with a plural or third-person "s" cut: "likes" ~ "like"."""
    return {
        w[:-1] if len(w) > 3 and w.endswith("s") else w
        for w in words
        if w not in STOP and w not in NEGATIONS
    }


def update_score(old: list[str], new: list[str]) -> float | None:
    """How much of two word sequences is shared when they state one subject with two
    values (see the module's rules), or None when they do not."""
    if _negated(old) != _negated(new):
        said, says = _content_stems(old), _content_stems(new)
        shared = len(said & says) / max(len(said), len(says), 1)
        return shared if shared >= 0.6 else None
    limit = min(len(old), len(new))
    pre = 0
    while pre < limit and old[pre] == new[pre]:
        pre += 1
    suf = 0
    while suf < limit - pre and old[-1 - suf] == new[-1 - suf]:
        suf += 1
    was, now = old[pre : len(old) - suf], new[pre : len(new) - suf]
    subject = old[:pre]
    if not was or not now or len(was) > MAX_VALUE or len(now) > MAX_VALUE:
        return None
    if set(was) == set(now) or not any(w not in STOP for w in subject):
        return None
    if not _single_valued(subject, was, now):
        return None
    return (pre + suf) / max(len(old), len(new))


def _single_valued(subject: list[str], was: list[str], now: list[str]) -> bool:
    past = any(PAST_EVENT.match(w) for w in subject)
    if any(w in ATTRIBUTES for w in subject):
        return True
    if any(w in RELATIONS for w in subject) or (was[0] in RELATIONS and now[0] in RELATIONS):
        return True
    if _numbers(was) and _numbers(now) and not past:
        return True
    head = [w for w in subject if w not in ARTICLES]
    return bool(head) and head[-1] in COPULAS and not past


@dataclass(frozen=True)
class Verdict:
    kind: Literal["new", "same", "near", "update"]  # same/near: skip + mark accessed;
    fact_id: str | None  # update: supersede fact_id
    score: float


@dataclass
class _Known:
    """One active fact, prepared for comparison."""

    id: str
    text: str
    words: list[str]
    shingles: frozenset[str]
    numbers: frozenset[str]
    negated: bool


@dataclass
class _EntityFacts:
    facts: list[_Known] = field(default_factory=list)
    exact: dict[str, str] = field(default_factory=dict)  # normalised text -> fact id
    vectors: npt.NDArray[np.float32] | None = None  # rows of `facts`, when embedding


def _known(fact_id: str, text: str) -> _Known:
    words = [w for w in tokens(text) if w not in FILLER]
    return _Known(fact_id, text, words, shingles(words), _numbers(words), _negated(words))


class Deduper:
    """Checks candidates against the active facts of their entities, one run long."""

    def __init__(
        self,
        vault: Vault,
        *,
        embed: Embed | None = None,
        jaccard: float = JACCARD,
        cosine: float = COSINE,
    ) -> None:
        self.vault = vault
        self.embed = embed
        self.jaccard = jaccard
        self.cosine = cosine
        self._cache: dict[layout.EntityRef, _EntityFacts] = {}

    def check(
        self, ref: layout.EntityRef, text: str, category: models.FactCategory | None = None
    ) -> Verdict:
        """What `text` is to the entity `ref` knows: same, near, an update of a fact, or new.

        `category` is accepted for the runner's sake; the rules do not need it (a changed
        value is one whatever its category)."""
        known = self._facts(ref)
        new = _known("", text)
        key = " ".join(new.words)
        if key in known.exact:
            return Verdict("same", known.exact[key], 1.0)
        near: tuple[float, str] | None = None
        update: tuple[float, str] | None = None
        best = 0.0
        cosines = self._cosines(known, text)
        for row, fact in enumerate(known.facts):
            changed = update_score(fact.words, new.words)
            if changed is not None:
                if update is None or changed > update[0]:
                    update = (changed, fact.id)
                continue
            if fact.numbers != new.numbers or fact.negated != new.negated:
                continue  # another date, amount or a denial: never the same statement
            score = jaccard(fact.shingles, new.shingles)
            best = max(best, score)
            if score >= self.jaccard and (near is None or score > near[0]):
                near = (score, fact.id)
            if cosines is not None and cosines[row] >= self.cosine:
                similarity = float(cosines[row])
                if near is None or similarity > near[0]:
                    near = (similarity, fact.id)
        if near is not None:
            return Verdict("near", near[1], near[0])
        if update is not None:
            return Verdict("update", update[1], update[0])
        return Verdict("new", None, best)

    def added(self, ref: layout.EntityRef, fact: models.Fact) -> None:
        """Tell the cache about a fact the run wrote to `ref`: an active one joins it, an
        inactive one (the old side of a supersede) leaves it. An entity not read yet
        is left alone: it will be read with the fact."""
        known = self._cache.get(ref)
        if known is None:
            return
        position = next((i for i, k in enumerate(known.facts) if k.id == fact.id), None)
        if position is not None:
            gone = known.facts.pop(position)
            if known.exact.get(" ".join(gone.words)) == gone.id:
                del known.exact[" ".join(gone.words)]
            if known.vectors is not None:
                known.vectors = np.delete(known.vectors, position, axis=0)
        if not fact.is_active:
            return
        item = _known(fact.id, fact.fact)
        known.facts.append(item)
        known.exact.setdefault(" ".join(item.words), item.id)
        if known.vectors is not None and self.embed is not None:
            known.vectors = np.vstack([known.vectors, self._vectors([fact.fact])])

    def forget(self, ref: layout.EntityRef | None = None) -> None:
        """Drop the cache of `ref` (of every entity when None): read again on next use."""
        if ref is None:
            self._cache.clear()
        else:
            self._cache.pop(ref, None)

    # -- the cache -----------------------------------------------------------------------

    def _facts(self, ref: layout.EntityRef) -> _EntityFacts:
        known = self._cache.get(ref)
        if known is None:
            known = _EntityFacts()
            view = self.vault.entity(ref)
            for fact in view.facts:
                if fact.is_active:
                    item = _known(fact.id, fact.fact)
                    known.facts.append(item)
                    known.exact.setdefault(" ".join(item.words), item.id)
            self._cache[ref] = known
        return known

    def _cosines(self, known: _EntityFacts, text: str) -> npt.NDArray[np.float32] | None:
        if self.embed is None or not known.facts:
            return None
        if known.vectors is None:
            known.vectors = self._vectors([k.text for k in known.facts])
        query = self._vectors([text])[0]
        return np.asarray(known.vectors @ query, dtype=np.float32)

    def _vectors(self, texts: list[str]) -> npt.NDArray[np.float32]:
        assert self.embed is not None
        rows: Any = self.embed(texts)
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
