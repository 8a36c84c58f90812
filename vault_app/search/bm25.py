"""Okapi BM25 as an incremental, keyed index whose scores equal rank_bm25's `BM25Okapi`.

Scores are those of `rank_bm25.BM25Okapi(corpus, k1, b, epsilon).get_scores(query)` built
fresh on the live documents (tested to 1e-9; bit for bit but for the floored idf below,
whose mean is summed in another order, a difference of about 1e-15): with N live
documents, avgdl their mean length and df a term's document frequency,
idf = log(N - df + 0.5) - log(df + 0.5); an idf below zero is replaced by epsilon times
the mean idf of all terms of the corpus; a document's score is the sum over the query's
tokens (a repeated token counts each time; an unknown one adds nothing) of
idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)).

The layout is that of a segment index, so that a query never loops over documents in
Python and a change costs only the changed documents:

- Documents live in **slots** (rows). The **main segment** is a `scipy.sparse` CSC matrix
  of term frequencies (slots x terms) plus its CSR structure (to find a removed row's
  terms). A query term's postings are one column: a slice of `indices`/`data`, weighted
  with numpy over that column's nonzeros only.
- The **delta** holds the documents added since the last compaction, as flat growing
  arrays of (slot, term, tf) postings, scanned with one vectorised comparison per query
  term.
- A **query** weighs each distinct term over its postings only (the length norms
  k1 * (1 - b + b * dl / avgdl) are cached per slot until the next change) and adds the
  weights into a dense score vector, in query order as rank_bm25 does. `top` then ranks
  either the union of the postings or, when they are many and every idf is positive (so
  that a hit is exactly a slot scoring above zero), the slots scoring at least the k-th
  best score within one term's postings, a lower bound of the k-th best overall.
- A removal only clears the slot's bit in the **live mask**; a re-added key is a removal
  plus an addition. Document frequencies, lengths, N and the total length are kept up to
  date on every change, and the mean idf is recomputed (from a histogram of df values)
  on the first query after a change.
- **Compaction** merges the live rows of both into a new main segment, renumbering the
  slots in order and dropping terms no live document uses. It runs by itself when the
  delta holds more than max(`min_delta`, main postings / 16) postings-plus-documents, or
  when more than max(`min_dead`, slots / 4) slots are dead; `compact()` forces it.

Slots are stable between compactions only: `generation` changes on every change, and a
mask over slots (`allowed`) must be as long as `n_slots`. Persistence is two plain files
(`bm25_files`), tied by a random save id so that a half-written pair is refused. The index
is not thread-safe: callers serialise changes against queries.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from vault_app.search import bm25_files

# The index's files, as callers and tests name them.
from vault_app.search.bm25_files import ARRAYS_FILE as ARRAYS_FILE
from vault_app.search.bm25_files import FORMAT as FORMAT
from vault_app.search.bm25_files import FORMAT_VERSION as FORMAT_VERSION
from vault_app.search.bm25_files import HEADER_FILE as HEADER_FILE
from vault_app.search.bm25_files import IndexFormatError as IndexFormatError
from vault_app.search.bm25_slots import SlotMap

IntArray = npt.NDArray[np.integer[Any]]  # slots, term ids, counts: int32 or int64
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_SMALL_BATCH = 64  # below this many documents, count terms in plain Python
_DENSE_SHARE = 128  # top() scans all slots when the postings are more than 1/128 of them


def _grown(array: npt.NDArray[Any], needed: int) -> npt.NDArray[Any]:
    """`array`, or a copy at least `needed` long (doubling), zero-filled past the end."""
    if needed <= array.shape[0]:
        return array
    bigger = np.zeros(max(needed, 2 * array.shape[0], 16), dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


class BM25Index:
    """A keyed Okapi BM25 index: `add`/`remove` documents, `top`/`scores` for token lists."""

    def __init__(
        self,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        min_delta: int = 32_768,
        min_dead: int = 4_096,
    ) -> None:
        self.k1 = float(k1)
        self.b = float(b)
        self.epsilon = float(epsilon)
        self.min_delta = min_delta
        self.min_dead = min_dead
        self.meta: dict[str, Any] = {}
        """JSON-able data saved and loaded with the index (e.g. the tokenizer fingerprint)."""
        self.generation = 0
        """Changes on every change of the documents or of their slots."""
        self._install(sp.csc_matrix((0, 0), dtype=np.int32), [], [])

    # ----------------------------------------------------------------- documents

    def __len__(self) -> int:
        return self._n_live

    def __contains__(self, key: object) -> bool:
        return key in self._slot_of

    @property
    def n_slots(self) -> int:
        """The length of `scores()` and of an `allowed` mask; live or not."""
        return len(self._keys)

    @property
    def n_terms(self) -> int:
        """How many distinct terms the live documents use."""
        return int(np.count_nonzero(self._df[: len(self._terms)]))

    @property
    def avgdl(self) -> float:
        """The mean document length in tokens (0.0 when empty)."""
        return self._total_len / self._n_live if self._n_live else 0.0

    def slot(self, key: str) -> int:
        """The slot of a live document (KeyError if there is none)."""
        return self._slot_of[key]

    def find(self, key: str) -> int:
        """The slot of a live document, -1 when there is none (one lookup)."""
        slot: int = self._slot_of.get(key, -1)
        return slot

    def find_many(self, keys: Sequence[str]) -> IntArray:
        """The slot of each of `keys`, -1 where it is not live (`find`, at once)."""
        return self._slot_of.get_many(keys)

    def key_of(self, slot: int) -> str | None:
        """The key in a slot, None when the slot is dead."""
        return self._keys[slot]

    def keys(self) -> list[str]:
        """The live keys, in slot order."""
        return [key for key in self._keys if key is not None]

    def slot_keys(self) -> npt.NDArray[np.object_]:
        """The key of every slot (None where dead), as an object array `n_slots` long."""
        return np.array(self._keys, dtype=object)

    def live_mask(self) -> BoolArray:
        """True for the live slots (a copy)."""
        return self._live[: self.n_slots].copy()

    def mask(self, keys: Iterable[str]) -> BoolArray:
        """An `allowed` mask that is True at the slots of those of `keys` that are live."""
        out = np.zeros(self.n_slots, dtype=bool)
        slot_of = self._slot_of
        slots = [slot_of[key] for key in keys if key in slot_of]
        out[slots] = True
        return out

    def doc_len(self, key: str) -> int:
        """The length in tokens of a live document."""
        return int(self._doc_len[self._slot_of[key]])

    def df(self, term: str) -> int:
        """How many live documents contain `term`."""
        term_id = self._term_ids.get(term)
        return 0 if term_id is None else int(self._df[term_id])

    def terms(self) -> list[str]:
        """The distinct terms of the live documents."""
        used = self._df[: len(self._terms)] > 0
        return [term for term, live in zip(self._terms, used.tolist(), strict=True) if live]

    def add(self, key: str, tokens: Sequence[str]) -> None:
        """Index a document under `key`, replacing the one there was."""
        self.add_many([(key, tokens)])

    def add_many(self, docs: Iterable[tuple[str, Sequence[str]]]) -> None:
        """Index many documents at once (the fast path); a later duplicate key wins."""
        batch: dict[str, Sequence[str]] = dict(docs)
        if not batch:
            return
        keys, token_lists = list(batch), list(batch.values())
        if self.n_slots == 0 and len(keys) >= _SMALL_BATCH:  # a first build: no delta
            rows, cols = self._coordinates(token_lists)
            shape = (len(keys), len(self._terms))
            counts = sp.csc_matrix((np.ones(rows.size, dtype=np.int32), (rows, cols)), shape=shape)
            self._install(counts, keys, self._terms)
            self.generation += 1
            return
        for key in keys:
            if key in self._slot_of:
                self._remove_slot(self._slot_of[key])
        self._append(keys, token_lists)
        self._changed()

    def remove(self, key: str) -> None:
        """Forget a document (KeyError if there is none)."""
        self._remove_slot(self._slot_of[key])
        self._changed()

    def discard(self, key: str) -> bool:
        """Forget a document if there is one; whether there was."""
        if key not in self._slot_of:
            return False
        self.remove(key)
        return True

    def remove_many(self, keys: Iterable[str]) -> int:
        """Forget the documents there are of `keys`; how many there were."""
        slots = [self._slot_of[key] for key in set(keys) if key in self._slot_of]
        for slot in slots:
            self._remove_slot(slot)
        if slots:
            self._changed()
        return len(slots)

    def clear(self) -> None:
        """Forget every document."""
        self._install(sp.csc_matrix((0, 0), dtype=np.int32), [], [])
        self.generation += 1

    # -------------------------------------------------------------------- queries

    def idf(self, term: str) -> float:
        """The term's idf as rank_bm25 has it (floored), 0.0 for an unknown term."""
        term_id = self._term_ids.get(term)
        if term_id is None or self._df[term_id] == 0:
            return 0.0
        return self._idf(term_id)

    def scores(self, tokens: Sequence[str]) -> FloatArray:
        """The score of every slot (0.0 for dead ones): rank_bm25's `get_scores`."""
        return self._score(tokens, self._query_terms(tokens), hits=False)[0]

    def top(
        self, tokens: Sequence[str], k: int = 10, allowed: BoolArray | None = None
    ) -> list[tuple[str, float]]:
        """The `k` best documents that contain a query term, best first, as (key, score).

        A document that contains none of the tokens is never a hit, whatever its score
        (0.0). One that contains some is a hit even when its score is not positive, which
        happens in tiny corpora, where rank_bm25's idf is 0 or negative for every term (in
        two documents, a term of one has idf log(1.5) - log(1.5) = 0). Equal scores are
        ordered by key, so the result does not depend on the order of indexing.
        `allowed`, a bool mask `n_slots` long, restricts the hits to its True slots.
        """
        if allowed is not None and (allowed.shape != (self.n_slots,) or allowed.dtype != np.bool_):
            raise ValueError(
                f"allowed must be a bool array of shape ({self.n_slots},), "
                f"not {allowed.dtype} {allowed.shape}"
            )
        if k <= 0:
            return []
        terms = self._query_terms(tokens)
        postings = sum(int(self._df[term_id]) for term_id, _ in terms.values())
        positive = self.k1 >= 0 and 0 <= self.b <= 1 and all(idf > 0 for _, idf in terms.values())
        hits: IntArray
        if positive and postings > self.n_slots // _DENSE_SHARE:
            # Many hits, and a hit is exactly a slot scoring above zero: no union needed.
            # The k-th best score among the postings of one term is a lower bound of the
            # k-th best overall, which leaves few candidates to sort out.
            # With `allowed`, the bound comes from allowed postings only and the hits are
            # filtered last: masking every score first cost a third of a query.
            scores, _, columns = self._score(tokens, terms, hits=False)
            bound = 0.0
            for rows in sorted(columns, key=len):
                if allowed is not None:
                    rows = rows[allowed[rows]]
                if rows.size >= k:
                    sample = scores[rows]
                    bound = float(np.partition(sample, sample.size - k)[sample.size - k])
                    break
            hits = np.flatnonzero(scores >= bound) if bound > 0 else np.flatnonzero(scores > 0)
            if allowed is not None:
                hits = hits[allowed[hits]]
        else:
            scores, hits, _ = self._score(tokens, terms, hits=True)
            if allowed is not None:
                hits = hits[allowed[hits]]
        best = hits[self._best(scores[hits], k, hits)]
        keys = self._keys
        ranked = [(keys[slot] or "", float(scores[slot])) for slot in best.tolist()]
        ranked.sort(key=lambda hit: (-hit[1], hit[0]))
        return ranked

    def _best(self, values: FloatArray, k: int, slots: IntArray) -> IntArray:
        """Positions of the `k` largest values; at the cut, equal values by smallest key.

        `values[i]` is the score of slot `slots[i]`.
        """
        if values.size <= k:
            return np.arange(values.size, dtype=np.int64)
        part = np.argpartition(values, values.size - k)[values.size - k :]  # (of -values: slower)
        kth = values[part].min()
        if np.count_nonzero(values == kth) == np.count_nonzero(values[part] == kth):
            return part.astype(np.int64)  # no equal value left out: nothing to break
        better = np.flatnonzero(values > kth)
        tied = np.flatnonzero(values == kth).tolist()
        keys = self._keys

        def key_of(position: int) -> str:
            return keys[int(slots[position])] or ""

        chosen = heapq.nsmallest(k - better.size, tied, key=key_of)
        return np.concatenate([better, np.array(chosen, dtype=np.int64)])

    def explain(self, tokens: Sequence[str], key: str) -> list[tuple[str, float]]:
        """Each query token's share of a live document's score, in query order.

        The shares add up, in this order, to the document's entry in `scores(tokens)`.
        """
        slot = self._slot_of[key]
        shares: list[tuple[str, float]] = []
        if self._total_len == 0:
            return [(token, 0.0) for token in tokens]
        avgdl = self._total_len / self._n_live
        dl = int(self._doc_len[slot])
        k1, b = self.k1, self.b
        for token in tokens:
            term_id = self._term_ids.get(token)
            tf = 0 if term_id is None or self._df[term_id] == 0 else self._tf(term_id, slot)
            if term_id is None or tf == 0:
                shares.append((token, 0.0))
                continue
            norm = tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
            shares.append((token, self._idf(term_id) * norm))
        return shares

    def holds(self, token: str, slots: IntArray) -> npt.NDArray[np.bool_]:
        """Whether each live document in `slots` holds `token` (one sorted search over
        the token's postings for all of them, not one lookup a document)."""
        term_id = self._term_ids.get(token)
        held = np.zeros(slots.size, dtype=np.bool_)
        if term_id is None or self._df[term_id] == 0 or slots.size == 0:
            return held
        main = slots < self._main_n
        if term_id < self._main_cols and main.any():
            start, end = self._m_indptr[term_id], self._m_indptr[term_id + 1]
            column = self._m_indices[start:end]
            if column.size:
                at = np.minimum(np.searchsorted(column, slots[main]), column.size - 1)
                held[main] = column[at] == slots[main]
        for i in np.flatnonzero(~main).tolist():  # documents added since: a few
            held[i] = self._tf(term_id, int(slots[i])) > 0
        return held

    # ------------------------------------------------------------- persistence

    def save(
        self, folder: str | os.PathLike[str], *, meta: Mapping[str, Any] | None = None
    ) -> None:
        """Write the index into `folder` as plain files (compacting it first): see
        `bm25_files`. `meta` (JSON-able) replaces `self.meta` and is stored with the index.
        """
        if meta is not None:
            self.meta = dict(meta)
        self.compact()
        parameters = {"k1": self.k1, "b": self.b, "epsilon": self.epsilon}
        bm25_files.write(folder, self._main, self._keys, self._terms, parameters, self.meta)

    @classmethod
    def load(
        cls, folder: str | os.PathLike[str], *, min_delta: int = 32_768, min_dead: int = 4_096
    ) -> BM25Index:
        """Read an index written by `save`.

        FileNotFoundError when `folder` holds no index; IndexFormatError when its files are
        corrupt, inconsistent, foreign, or of another format version.
        """
        header, main, keys, terms = bm25_files.read(folder)  # checked: k1, b, epsilon too
        index = cls(
            k1=header["k1"],
            b=header["b"],
            epsilon=header["epsilon"],
            min_delta=min_delta,
            min_dead=min_dead,
        )
        index.meta = header.get("meta", {})
        index._install(main, keys, terms)
        return index

    # --------------------------------------------------------------- compaction

    def compact(self) -> None:
        """Merge the delta into the main segment and drop dead slots and unused terms."""
        if self._delta_docs == 0 and self._main_dead == 0 and self.n_terms == len(self._terms):
            return
        n_slots = self.n_slots
        live = self._live[:n_slots]
        main = self._main
        rows = main.indices.astype(np.int64)
        cols = np.repeat(np.arange(main.shape[1], dtype=np.int64), np.diff(main.indptr))
        data = main.data
        nnz = self._d_nnz
        rows = np.concatenate([rows, self._d_slot[:nnz]])
        cols = np.concatenate([cols, self._d_term[:nnz]])
        data = np.concatenate([data, self._d_tf[:nnz]]).astype(np.int32)
        keep = live[rows]
        rows, cols, data = rows[keep], cols[keep], data[keep]
        new_slot = np.cumsum(live) - 1
        term_live = self._df[: len(self._terms)] > 0
        new_term = np.cumsum(term_live) - 1
        keys = [key for key in self._keys if key is not None]
        terms = [term for term, used in zip(self._terms, term_live.tolist(), strict=True) if used]
        shape = (len(keys), len(terms))
        merged = sp.csc_matrix((data, (new_slot[rows], new_term[cols])), shape=shape)
        self._slot_of.renumber(new_slot)  # dead slots are in it no more
        self._install(merged, keys, terms, self._slot_of)
        self.generation += 1

    # ----------------------------------------------------------------- internals

    def _install(
        self, main: Any, keys: list[str], terms: list[str], slots: SlotMap | None = None
    ) -> None:
        """Make `main` (canonical CSC, slots x terms) the whole index, deriving the rest."""
        main.sort_indices()
        n_docs, n_terms = main.shape
        self._main = main
        self._m_indptr: IntArray = main.indptr.astype(np.int64)
        # The matrix's own int32 arrays, not copies: a posting costs 4 + 4 bytes here, and
        # 4 more in the CSR structure that finds a removed document's terms.
        self._m_indices: IntArray = main.indices
        self._m_data: npt.NDArray[np.int32] = main.data
        structure = main.tocsr()
        self._m_row_ptr: IntArray = structure.indptr
        self._m_row_terms: IntArray = structure.indices
        self._main_n = n_docs
        self._main_cols = n_terms
        self._main_dead = 0
        self._keys: list[str | None] = list(keys)
        self._slot_of = SlotMap(keys) if slots is None else slots
        self._terms: list[str] = list(terms)
        self._term_ids: dict[str, int] = dict(zip(terms, range(n_terms), strict=True))
        self._df: IntArray = _grown(np.diff(self._m_indptr), max(n_terms, 16))
        lengths = np.bincount(self._m_indices, weights=self._m_data, minlength=n_docs)
        self._doc_len: IntArray = _grown(lengths.astype(np.int64), max(n_docs, 16))
        self._live: BoolArray = _grown(np.ones(n_docs, dtype=bool), max(n_docs, 16))
        self._n_live = n_docs
        self._total_len = int(self._doc_len.sum())
        self._d_slot: IntArray = np.zeros(0, dtype=np.int64)
        self._d_term: IntArray = np.zeros(0, dtype=np.int64)
        self._d_tf: IntArray = np.zeros(0, dtype=np.int64)
        self._d_nnz = 0
        self._d_start: list[int] = []
        self._delta_docs = 0
        self._delta_dead = 0
        self._avg_idf: float | None = None
        self._norms: FloatArray | None = None

    def share_keys(self, keys: Sequence[str], rows: Mapping[str, int]) -> None:
        """Hold the caller's key strings and key -> row map instead of copies of its own:
        `keys[i]` is the key of row i of `rows`, which only ever grows and never moves a
        key (the engine's document columns). At 200,000 documents the key strings are 15
        MB and a dict of them 14 MB. Slots are then kept by row (`bm25_slots`)."""
        same = self._keys == keys if isinstance(keys, list) else self._keys == list(keys)
        if same:
            self._keys = list(keys)
        else:
            self._keys = [keys[rows[k]] if k is not None and k in rows else k for k in self._keys]
        self._slot_of.share(rows, self._keys, same=same)

    def _append(self, keys: list[str], token_lists: list[Sequence[str]]) -> None:
        """Put new documents (keys not in the index) in the delta."""
        term_ids, terms = self._term_ids, self._terms
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        if len(keys) < _SMALL_BATCH:
            ids: list[int] = []
            tfs: list[int] = []
            starts = [0]
            for tokens in token_lists:
                counts: dict[str, int] = {}
                for token in tokens:
                    counts[token] = counts.get(token, 0) + 1
                for term, tf in counts.items():
                    term_id = term_ids.get(term)
                    if term_id is None:
                        term_id = term_ids[term] = len(terms)
                        terms.append(term)
                    ids.append(term_id)
                    tfs.append(tf)
                starts.append(len(ids))
            doc_ids = np.array(ids, dtype=np.int64)
            doc_tfs = np.array(tfs, dtype=np.int64)
            doc_ptr = np.array(starts, dtype=np.int64)
        else:
            rows, cols = self._coordinates(token_lists)
            counted = sp.csr_matrix(
                (np.ones(rows.size, dtype=np.int64), (rows, cols)), shape=(len(keys), len(terms))
            )
            counted.sum_duplicates()
            doc_ids = counted.indices.astype(np.int64)
            doc_tfs = counted.data.astype(np.int64)
            doc_ptr = counted.indptr.astype(np.int64)
        n_terms = len(terms)
        self._df = _grown(self._df, n_terms)
        if doc_ids.size * 8 < n_terms:
            np.add.at(self._df, doc_ids, 1)
        else:
            self._df[:n_terms] += np.bincount(doc_ids, minlength=n_terms)

        first = self.n_slots
        slots = np.arange(first, first + len(keys), dtype=np.int64)
        end = first + len(keys)
        self._doc_len = _grown(self._doc_len, end)
        self._doc_len[first:end] = lengths
        self._live = _grown(self._live, end)
        self._live[first:end] = True
        self._keys += keys
        self._slot_of.update(zip(keys, range(first, end), strict=True))
        self._n_live += len(keys)
        self._total_len += int(lengths.sum())

        nnz, added = self._d_nnz, doc_ids.shape[0]
        self._d_slot = _grown(self._d_slot, nnz + added)
        self._d_term = _grown(self._d_term, nnz + added)
        self._d_tf = _grown(self._d_tf, nnz + added)
        self._d_slot[nnz : nnz + added] = np.repeat(slots, np.diff(doc_ptr))
        self._d_term[nnz : nnz + added] = doc_ids
        self._d_tf[nnz : nnz + added] = doc_tfs
        self._d_start += (doc_ptr[:-1] + nnz).tolist()
        self._d_nnz = nnz + added
        self._delta_docs += len(keys)

    def _coordinates(self, token_lists: list[Sequence[str]]) -> tuple[IntArray, IntArray]:
        """(document number, term id) of every token, registering the new terms."""
        term_ids, terms = self._term_ids, self._terms
        flat = list(itertools.chain.from_iterable(token_lists))
        for term in dict.fromkeys(flat):  # new terms get ids in order of appearance
            if term not in term_ids:
                term_ids[term] = len(terms)
                terms.append(term)
        # int32 when the counts fit (always, but for a corpus of 2^31 documents or
        # terms): half the memory of a first build's (document, term) pairs, which are
        # one per token (3 million at 200,000 facts)
        wide = max(len(terms), len(token_lists)) >= np.iinfo(np.int32).max
        dtype = np.int64 if wide else np.int32
        cols: IntArray = np.fromiter(map(term_ids.__getitem__, flat), dtype=dtype, count=len(flat))
        del flat
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        rows: IntArray = np.repeat(np.arange(len(token_lists), dtype=dtype), lengths)
        return rows, cols

    def _remove_slot(self, slot: int) -> None:
        """Take a live document out of the statistics and the live mask."""
        if slot < self._main_n:
            terms = self._m_row_terms[self._m_row_ptr[slot] : self._m_row_ptr[slot + 1]]
            self._main_dead += 1
        else:
            i = slot - self._main_n
            end = self._d_start[i + 1] if i + 1 < len(self._d_start) else self._d_nnz
            terms = self._d_term[self._d_start[i] : end]
            self._delta_dead += 1
        self._df[terms] -= 1
        self._total_len -= int(self._doc_len[slot])
        self._n_live -= 1
        self._live[slot] = False
        key = self._keys[slot]
        self._keys[slot] = None
        if key is not None:
            del self._slot_of[key]

    def _changed(self) -> None:
        self.generation += 1
        self._avg_idf = None
        self._norms = None
        delta_size = self._d_nnz + self._delta_docs
        dead = self._main_dead + self._delta_dead
        if delta_size > max(self.min_delta, self._main.nnz // 16) or dead > max(
            self.min_dead, self.n_slots // 4
        ):
            self.compact()

    def _average_idf(self) -> float:
        """rank_bm25's `average_idf`: the mean unfloored idf of the corpus's terms."""
        if self._avg_idf is None:
            df = self._df[: len(self._terms)]
            df = df[df > 0]
            if df.size == 0:
                self._avg_idf = 0.0
            else:
                counts = np.bincount(df)
                values = np.flatnonzero(counts)
                n = self._n_live
                idfs = np.log(n - values + 0.5) - np.log(values + 0.5)
                self._avg_idf = float(np.dot(idfs, counts[values])) / df.size
        return self._avg_idf

    def _idf(self, term_id: int) -> float:
        df = int(self._df[term_id])
        idf = math.log(self._n_live - df + 0.5) - math.log(df + 0.5)
        return self.epsilon * self._average_idf() if idf < 0 else idf

    def _postings(self, term_id: int) -> tuple[IntArray, npt.NDArray[np.integer[Any]]]:
        """The live slots that contain a term, with its frequency in each."""
        rows: IntArray = np.zeros(0, dtype=np.int64)
        tfs: npt.NDArray[np.integer[Any]] = np.zeros(0, dtype=np.int32)
        if term_id < self._main_cols:
            start, end = self._m_indptr[term_id], self._m_indptr[term_id + 1]
            rows, tfs = self._m_indices[start:end], self._m_data[start:end]
            if self._main_dead:
                keep = self._live[rows]
                rows, tfs = rows[keep], tfs[keep]
        if self._d_nnz:
            found = np.flatnonzero(self._d_term[: self._d_nnz] == term_id)
            if found.size:
                d_rows, d_tfs = self._d_slot[found], self._d_tf[found]
                if self._delta_dead:
                    keep = self._live[d_rows]
                    d_rows, d_tfs = d_rows[keep], d_tfs[keep]
                rows = np.concatenate([rows, d_rows])
                tfs = np.concatenate([tfs, d_tfs])
        return rows, tfs

    def _tf(self, term_id: int, slot: int) -> int:
        """How often a term occurs in the document in a live slot."""
        if slot < self._main_n:
            if term_id >= self._main_cols:
                return 0
            start, end = self._m_indptr[term_id], self._m_indptr[term_id + 1]
            column = self._m_indices[start:end]
            at = int(np.searchsorted(column, slot))
            return int(self._m_data[start + at]) if at < column.size and column[at] == slot else 0
        i = slot - self._main_n
        first = self._d_start[i]
        end = self._d_start[i + 1] if i + 1 < len(self._d_start) else self._d_nnz
        found = np.flatnonzero(self._d_term[first:end] == term_id)
        return int(self._d_tf[first + found[0]]) if found.size else 0

    def _query_terms(self, tokens: Sequence[str]) -> dict[str, tuple[int, float]]:
        """The distinct known tokens of a query, each with its term id and idf."""
        terms: dict[str, tuple[int, float]] = {}
        for token in tokens:
            if token not in terms:
                term_id = self._term_ids.get(token)
                if term_id is not None and self._df[term_id] > 0:
                    terms[token] = term_id, self._idf(term_id)
        return terms

    def _length_norms(self) -> FloatArray:
        """k1 * (1 - b + b * dl / avgdl) of every slot, as rank_bm25 computes it."""
        if self._norms is None:
            avgdl = self._total_len / self._n_live
            dl = self._doc_len[: self.n_slots]
            self._norms = self.k1 * (1 - self.b + self.b * dl / avgdl)
        return self._norms

    def _score(
        self, tokens: Sequence[str], terms: dict[str, tuple[int, float]], *, hits: bool
    ) -> tuple[FloatArray, IntArray, list[IntArray]]:
        """All slots' scores, the slots with a query term (if `hits`), each term's postings."""
        scores = np.zeros(self.n_slots, dtype=np.float64)
        found: list[IntArray] = [np.zeros(0, dtype=np.int64)]
        if not terms:
            return scores, found[0], []
        seen = np.zeros(self.n_slots if hits and len(terms) > 1 else 0, dtype=bool)
        norms = self._length_norms()
        k1 = self.k1
        weights: dict[str, tuple[IntArray, FloatArray]] = {}
        for token in tokens:
            if token not in terms:
                continue
            if token not in weights:
                term_id, idf = terms[token]
                rows, tfs = self._postings(term_id)
                # rank_bm25's very expression, so that the floats are the same.
                weights[token] = rows, idf * (tfs * (k1 + 1) / (tfs + norms[rows]))
                if hits and seen.size:  # the union of the postings, without sorting them
                    found.append(rows[~seen[rows]])
                    seen[rows] = True
                elif hits:
                    found.append(rows)
            rows, weight = weights[token]
            scores[rows] += weight
        return scores, np.concatenate(found), [rows for rows, _ in weights.values()]
