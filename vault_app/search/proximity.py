"""The query's words side by side: a candidate that holds two of them next to each other.

BM25 and the embedding both see a document as a bag: "What does Melanie say running has
been great for?" scores "Melanie got new running shoes for running, which she finds great
for destressing" as high as "Running has been great for Melanie's mental health", or
higher (two "running"s). What tells the answer is that it holds the query's words in the
query's order, together. Hybrid ranking adds `PHRASE` times the share of the query's
adjacent word pairs a candidate holds adjacent too (`bonuses`), a pair weighed by the idf
of its two words. Pairs are read on the tokens BM25 indexes (stemmed, stopwords out), so
"running has been great" and "running is great" share the pair run/great, as a small
window would; a fact's pairs are those of its text (not of the entity name BM25 adds).

Only what can change the first `limit` is read: a candidate that holds both words of some
pair (the index tells, `bm25.BM25Index.holds`, one sorted search a word for all of them),
and of those, likeliest first, only while one could still reach the `limit`-th best total
(the threshold algorithm: a total is at least the score before the bonus). Their texts
are read a batch at a time in one opening of the saved documents (`LazyDocs.peek`, none
kept) and tokenized: about 18 of a query's 180 candidates on the 200,000-fact vault, 0.3 ms
of a hybrid query's 12 ms of CPU.

Chosen on LoCoMo's development half (`search_quality.py --set locomo`) and held to our own
sets, hybrid hit@1 / hit@5: 0 -> 0.4 gives LoCoMo facts 0.599 / 0.853 -> 0.623 / 0.853
(turns 0.455 / 0.749 -> 0.467 / 0.757); 0.2: 0.612 / 0.853; 0.6: 0.628 / 0.851, with our
conversation set losing 0.012 of facts hit@1. At 0.4 our sets move by 0.006 at most
(household 0.670 / 0.892 -> 0.665 / 0.887; conversation facts hit@1 0.613 -> 0.607,
turns 0.433 -> 0.429; held out facts 0.645 -> 0.651). Tried and left out: the pairs
without the names' words (facts 0.613 / 0.848), a fact's origin entries gaining theirs too
(0.628 / 0.849, and more texts to read).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from vault_app.search.engine import SearchEngine

PHRASE = 0.4
BATCH = 8  # candidates read at once


def pairs(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """The query's adjacent token pairs, each once (a word beside itself is no pair)."""
    return list(dict.fromkeys((a, b) for a, b in itertools.pairwise(tokens) if a != b))


def bonuses(
    engine: SearchEngine,
    tokens: Sequence[str],
    scores: Mapping[str, float],
    limit: int,
    lexical: Mapping[str, float],
) -> dict[str, float]:
    """`PHRASE` times the idf-weighted share of the query's pairs a candidate holds
    adjacent, for the candidates (`scores`: key -> score before it) that it could bring
    into the first `limit`; only those that gain are in it. Only a candidate with a BM25
    score (`lexical`) holds a query word at all."""
    wanted = pairs(tokens)
    if not wanted or not scores or PHRASE <= 0.0:
        return {}
    index = engine.bm25
    idf = np.array([index.idf(a) + index.idf(b) for a, b in wanted])
    if limit <= 0 or float(idf.sum()) <= 0.0:
        return {}
    weights = PHRASE * idf / float(idf.sum())  # what each pair held adjacent adds
    every = list(scores)
    known = np.fromiter(scores.values(), dtype=np.float64, count=len(every))  # the totals
    bar = _kth(known, limit)  # the limit-th best total, as known so far
    worded = np.fromiter((lexical.get(k, 0.0) > 0.0 for k in every), dtype=np.bool_)
    at = np.flatnonzero(worded & (known + PHRASE >= bar))  # the candidates worth a look
    if at.size == 0:
        return {}
    keys = [every[i] for i in at.tolist()]
    base = known[at]
    slots = index.find_many(keys)
    live = slots >= 0
    held = {}
    for token in dict.fromkeys(t for p in wanted for t in p):
        held[token] = np.zeros(len(keys), dtype=np.bool_)
        held[token][live] = index.holds(token, slots[live])
    most = np.zeros(len(keys), dtype=np.float64)  # what each could gain: its pairs' words held
    for (a, b), weight in zip(wanted, weights.tolist(), strict=True):
        most += weight * (held[a] & held[b])
    # the threshold algorithm: read the likeliest first, a batch at a time, until no
    # candidate left could reach the limit-th best total known (each at least its score)
    order = np.argsort(-(base + most), kind="stable")
    order = order[most[order] > 0.0]
    out: dict[str, float] = {}
    wanted_weights = list(zip(wanted, weights.tolist(), strict=True))
    for start in range(0, order.size, BATCH):
        bar = _kth(known, limit)
        batch = [i for i in order[start : start + BATCH].tolist() if base[i] + most[i] >= bar]
        if not batch:
            break
        chosen = [keys[i] for i in batch]
        for i, key, text in zip(batch, chosen, engine.state.docs.peek(chosen), strict=True):
            beside = set(itertools.pairwise(engine.tokens.tokenize(text) if text else []))
            got = sum(w for p, w in wanted_weights if p in beside)
            if got > 0.0:
                out[key] = got
                known[at[i]] += got
    return out


def _kth(values: npt.NDArray[np.float64], k: int) -> float:
    """The k-th largest of `values` (-inf when they are fewer)."""
    return float(np.partition(values, -k)[-k]) if values.size >= k else -math.inf
