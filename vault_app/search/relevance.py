"""The relevance floor: which candidates are matches at all, and which query words the
vault has never seen.

A hit found by a query term alone can be noise: `asdf house` finds every document that
says "house", `what time is it` every one with "time". The floor weighs what a document
holds of the query by the terms' idf (`coverage`: the idf of the query terms it contains
over the idf of all of them, a word no document holds counted at the highest idf there
is) and keeps a candidate when

* (hybrid) its raw cosine is at least `min_cosine` (it means what the query means), or
  it holds a query term and either has a cosine of at least `lexical_cosine` or covers
  at least `min_coverage` of the query;
* (BM25) it covers at least `bm25_coverage` of the query (without a model there is no
  meaning to vouch for a hit, so this floor is low).

The values were measured on the labelled evaluation set (`benchmarks/search_quality.py`,
which prints what the floor keeps and leaves out): none of its relevant hits in the top
10 falls under the floor, in either mode, while the tails of weak one-word matches of
nonsense queries do. `unknown_terms` names the query words no document holds, so a face
can say "no good matches: the vault never mentions asdf".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vault_app.search import bm25

LEXICAL_COSINE = 0.2  # a hit with a query term and less meaning than this needs coverage
MIN_COVERAGE = 0.4  # ... of this share of the query's weight (hybrid)
BM25_COVERAGE = 0.1  # BM25 alone: the share of the query's weight a hit must hold


@dataclass(frozen=True)
class Floor:
    """The thresholds of the floor (`min_cosine` is the engine's `[search] min_cosine`)."""

    min_cosine: float = 0.32
    lexical_cosine: float = LEXICAL_COSINE
    min_coverage: float = MIN_COVERAGE
    bm25_coverage: float = BM25_COVERAGE


class Coverage:
    """The share of a query's idf weight each document holds (`of(key)`)."""

    def __init__(self, index: bm25.BM25Index, tokens: Sequence[str]) -> None:
        self.index = index
        self.terms = list(dict.fromkeys(tokens))
        highest = math.log((max(len(index), 1) + 0.5) / 0.5)  # an unseen word's weight
        self.weights = [max(index.idf(t), 1e-9) if index.df(t) else highest for t in self.terms]
        self.total = sum(self.weights)

    def of(self, key: str) -> float:
        """0 (holds no query term, or is not indexed) to 1 (holds every one). A term is
        held when the document contains it, whatever its idf (in a tiny corpus a word
        half the documents hold has an idf of 0, and still counts)."""
        return coverages(self, [key])[0]


def coverages(cover: Coverage, keys: Sequence[str]) -> list[float]:
    """The coverage of each key (`Coverage.of`), the postings of each query term searched
    once for all of them."""
    if not keys:
        return []
    if not cover.terms or cover.total <= 0:
        return [0.0] * len(keys)
    index = cover.index
    slots = index.find_many(keys)
    live = slots >= 0
    held = np.zeros(len(keys), dtype=np.float64)
    for term, weight in zip(cover.terms, cover.weights, strict=True):
        held[live] += weight * index.holds(term, slots[live])
    return (held / cover.total).tolist()


def unknown_terms(index: bm25.BM25Index, tokens: Sequence[str]) -> list[str]:
    """The query's tokens that no indexed document holds, in query order."""
    return [t for t in dict.fromkeys(tokens) if index.df(t) == 0]


def keeps_hybrid(floor: Floor, cosine: float, coverage: float) -> bool:
    """Whether a hybrid candidate is a match (see the module doc)."""
    if cosine >= floor.min_cosine:
        return True
    return coverage > 0 and (cosine >= floor.lexical_cosine or coverage >= floor.min_coverage)


def keeps_bm25(floor: Floor, coverage: float) -> bool:
    return coverage >= floor.bm25_coverage
