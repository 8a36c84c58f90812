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

The index keeps no positions, so each document carries a **pair signature**
(`signatures`, built from its BM25 tokens when it is indexed; columns `pairs_0`..`pairs_3`,
saved with the index): 256 bits in which each of its adjacent pairs sets three, a Bloom
filter of 32 bytes a document (6.7 MB at 210,000). A pair whose bits are not all set is
surely not in it; so a query reads the text of only the candidates whose signature may
hold one of its pairs (in a fact, 2 in 1,000 of the pairs it lacks look held), and of
those, likeliest first, only while one could still reach the `limit`-th best total (the
threshold algorithm: a total is at least the score before the bonus); the texts are read a
batch at a time in one opening of the saved documents (`LazyDocs.peek`, none kept) and
tokenized, and the bonus is exact. On the 200,000-fact vault this costs about 0.3 ms of a
hybrid query's 12 ms of CPU, reading about 4 texts of its 180 candidates (reading every
candidate holding both words of a pair, 17 of them, cost 0.7 ms).

Chosen on LoCoMo's development half (`search_quality.py --set locomo`) and held to our own
sets, hybrid hit@1 / hit@5: 0 -> 0.4 gives LoCoMo facts 0.599 / 0.853 -> 0.623 / 0.853
(turns 0.455 / 0.749 -> 0.467 / 0.757); 0.2: 0.612 / 0.853; 0.6: 0.628 / 0.851, with our
conversation set losing 0.012 of facts hit@1. At 0.4 our sets lose 0.008 at most
(`search_quality.py --set all`, beside the code before on the same day: household hit@5
0.887 -> 0.881; conversation facts hit@1 0.613 -> 0.607, turns MRR 0.569 -> 0.561; held
out facts hit@1 0.645 -> 0.651, hit@10 0.961 -> 0.954). Tried and left out: the pairs
without the names' words (facts 0.613 / 0.848), a fact's origin entries gaining theirs too
(0.628 / 0.849, and more texts to read).
"""

from __future__ import annotations

import hashlib
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
WORDS, HASHES = 4, 3  # a signature's 64-bit words, and the bits each pair sets
_CHUNK = 4096  # documents signed at once (a bitmap of 1 MB)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # a pair's hash: splitmix64's constants
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)
_HASHES: dict[str, int] = {}  # token -> its stable 64-bit hash
_HASHES_LIMIT = 500_000


def pairs(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """The query's adjacent token pairs, each once (a word beside itself is no pair)."""
    return list(dict.fromkeys((a, b) for a, b in itertools.pairwise(tokens) if a != b))


def signatures(token_lists: Sequence[Sequence[str]]) -> npt.NDArray[np.uint64]:
    """Each document's pair signature: `WORDS` words of 64 bits in which each adjacent
    pair of its tokens sets `HASHES` bits (`_bits`), a Bloom filter. A pair whose bits
    are not all set is not in the document; one whose bits are may be (in a fact of 12
    pairs, 2 in 1,000 are not; in a turn of 50, 9 in 100)."""
    out = np.zeros((len(token_lists), WORDS), dtype=np.uint64)
    for start in range(0, len(token_lists), _CHUNK):  # a bitmap of 256 bytes a document
        out[start : start + _CHUNK] = _signed(token_lists[start : start + _CHUNK])
    return out


def _signed(token_lists: Sequence[Sequence[str]]) -> npt.NDArray[np.uint64]:
    bitmap = np.zeros((len(token_lists), WORDS * 64), dtype=np.bool_)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    total = int(lengths.sum())
    if total >= 2:
        flat = np.fromiter(
            (_hash(t) for tokens in token_lists for t in tokens), dtype=np.uint64, count=total
        )
        doc = np.repeat(np.arange(len(token_lists)), lengths)
        within = doc[:-1] == doc[1:]  # a pair inside one document, not across two
        owner = doc[:-1][within]
        for word, shift in _bits(flat[:-1][within], flat[1:][within]):
            bitmap[owner, word * 64 + shift.astype(np.int64)] = True
    packed = np.packbits(bitmap, axis=1, bitorder="little")  # bit i of byte j: bit 8j + i
    return packed.view("<u8").astype(np.uint64, copy=False).reshape(len(token_lists), WORDS)


def _bits(
    left: npt.NDArray[np.uint64], right: npt.NDArray[np.uint64]
) -> list[tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64]]]:
    """The `HASHES` bits of each pair (left[i], right[i]): its signature word and shift,
    8 bits of the pair's mixed hash each."""
    with np.errstate(over="ignore"):
        mixed = left * _MIX ^ right
        mixed ^= mixed >> np.uint64(31)
        mixed *= _MIX2
        mixed ^= mixed >> np.uint64(29)
    out = []
    for j in range(HASHES):
        bit = (mixed >> np.uint64(8 * j)) & np.uint64(WORDS * 64 - 1)
        out.append(((bit >> np.uint64(6)).astype(np.int64), bit & np.uint64(63)))
    return out


def _hash(token: str) -> int:
    """A token's 64-bit hash, the same in every process (Python's `hash` is not)."""
    found = _HASHES.get(token)
    if found is None:
        if len(_HASHES) >= _HASHES_LIMIT:
            _HASHES.clear()
        digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
        found = _HASHES[token] = int.from_bytes(digest, "little")
    return found


def _maybe(signed: npt.NDArray[np.uint64], wanted: list[tuple[str, str]]) -> npt.NDArray[np.bool_]:
    """(documents x pairs): whether each signature (`signatures`' rows) may hold each
    pair: has every bit the pair sets (`_bits`)."""
    left = np.fromiter((_hash(a) for a, _ in wanted), dtype=np.uint64, count=len(wanted))
    right = np.fromiter((_hash(b) for _, b in wanted), dtype=np.uint64, count=len(wanted))
    masks = [[0] * WORDS for _ in wanted]  # each pair's bits, by signature word
    for word, shift in _bits(left, right):
        for p, (w, bit) in enumerate(zip(word.tolist(), shift.tolist(), strict=True)):
            masks[p][w] |= 1 << bit
    out = np.ones((signed.shape[0], len(wanted)), dtype=np.bool_)
    for p, pair in enumerate(masks):
        for w, mask in enumerate(pair):
            if mask:
                m = np.uint64(mask)
                out[:, p] &= (signed[:, w] & m) == m
    return out


def bonuses(
    engine: SearchEngine,
    tokens: Sequence[str],
    scores: Mapping[str, float],
    limit: int,
) -> dict[str, float]:
    """`PHRASE` times the idf-weighted share of the query's pairs a candidate holds
    adjacent, for the candidates (`scores`: key -> score before it) that it could bring
    into the first `limit`; only those that gain are in it."""
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
    at = np.flatnonzero(known + PHRASE >= bar)  # the candidates worth a look
    keys = [every[i] for i in at.tolist()]
    base = known[at]
    row = engine.columns.row
    rows = np.fromiter((row[k] for k in keys), dtype=np.int64, count=len(keys))
    signed = engine.columns.pairs(rows)
    most = _maybe(signed, wanted).astype(np.float64) @ weights  # what each could gain
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
