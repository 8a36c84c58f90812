"""The semantic index: the search engine's document vectors in rows, top-k by cosine.

`VectorRows` holds the vectors of the engine's documents row for row with its metadata
table (`columns.DocumentColumns`), filled from the embedding cache, and answers top-k
cosine queries with one matrix-vector product over the rows a filter lets through.

Concurrent queries share that product. Reading the 300 MB matrix is what a query costs
(the arithmetic is cheap beside it), and the engine answers one query at a time under its
lock, so a resident server with several agents searching at once would read it once per
query, one after the other. Instead, `prepare(query)` encodes a query *before* the
engine's lock (encoders run in parallel) and leaves its vector waiting; whoever holds the
lock next scores every waiting vector in one matrix-matrix product (one pass over the
matrix), and the queries queued behind it find their scores ready. Alone, a query costs
what it did.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.search import embedding_cache, encoders

BoolArray = npt.NDArray[np.bool_]
SCORED_KEPT = 16  # queries whose scores are kept until a row changes (0.8 MB each at 200k)
BLOCK_ROWS = 4096  # rows scored by every waiting query while in the cache (6 MB at 384 dims)


class VectorRows:
    """Sentence vectors in rows of one float32 matrix, row for row with a caller's table
    (the search engine's document columns); top-k by cosine with one matrix product.

    `put(rows, texts)` fills rows from the embedding cache (so reopening a vault encodes
    nothing and a changed text encodes only itself); `put_vectors` takes vectors as they
    are; `drop(rows)` clears rows. A query is one encode (the last one is remembered)
    plus one matrix-vector product over the rows `allowed` lets through. Not thread-safe:
    the engine serialises changes and queries under its lock.
    """

    def __init__(
        self,
        encoder: encoders.Encoder | None = None,
        cache: embedding_cache.EmbeddingCache | None = None,
        *,
        dimension: int | None = None,
    ) -> None:
        if dimension is None:
            if encoder is None:
                raise ValueError("give an encoder or a dimension")
            dimension = encoder.dimension
        self.encoder = encoder
        self.cache = cache
        self.matrix = np.zeros((1024, int(dimension)), dtype=np.float32)
        self.valid = np.zeros(1024, dtype=np.bool_)
        self._last_query: tuple[str, encoders.FloatVector] | None = None
        # the scores of the last query, until a row changes: a hybrid query asks twice
        # (top k, then the fusion's missing candidates), and each is a 300 MB product
        self._last_scores: tuple[str, int, npt.NDArray[np.float32]] | None = None
        # `prepare`: vectors encoded outside the engine's lock, waiting to be scored, and
        # the scores computed for them with another query's product (until a row changes)
        self._waiting: dict[str, encoders.FloatVector] = {}
        self._scored: dict[tuple[str, int], npt.NDArray[np.float32]] = {}
        self._queue_lock = threading.Lock()

    def preload(self, *, touch: bool = True) -> None:
        """Read the embedding cache and make room for as many rows, touching the memory:
        the first write to a fresh 300 MB matrix costs more in page faults than the
        copy itself. Call it on a helper thread while the rows' owner loads. The eighth
        to spare is left untouched: pages never written cost no memory; `touch=False`
        leaves all of them so, until they are filled."""
        if self.cache is None or self.encoder is None:
            return
        rows = self.cache.preload(self.encoder)
        self._grow(rows)
        if touch:
            self.matrix[:rows].fill(0.0)  # zero pages, now faulted in

    def put(
        self,
        rows: Sequence[int],
        texts: Sequence[str],
        progress: encoders.Progress | None = None,
        *,
        keys: npt.NDArray[np.uint64] | None = None,
    ) -> None:
        """Fill `rows` with the vectors of `texts` (from the cache, or encoded); `keys`
        are their `text_keys` when known (`texts` is then read only for new texts)."""
        self._forget_scores()
        if not rows:
            return
        if self.encoder is None:
            raise ValueError("no encoder: give vectors with put_vectors")
        if self.cache is None:
            self.put_vectors(rows, self.encoder.encode(list(texts), progress=progress))
            return
        first = rows[0]
        if rows == range(first, first + len(rows)) or list(rows) == list(
            range(first, first + len(rows))
        ):
            # the common case (reopening: every row in order): the cache writes straight
            # into the matrix, with no 300 MB intermediate to allocate and copy
            self._grow(first + len(rows))
            view = self.matrix[first : first + len(rows)]
            self.cache.get_or_encode(texts, self.encoder, progress, out=view, keys=keys)
            self.valid[first : first + len(rows)] = True
            return
        vectors = self.cache.get_or_encode(texts, self.encoder, progress, keys=keys)
        self.put_vectors(rows, vectors)

    def put_vectors(self, rows: Sequence[int], vectors: npt.NDArray[Any]) -> None:
        self._forget_scores()
        if len(rows) == 0:
            return
        self._grow(max(rows) + 1)
        index = np.asarray(rows, dtype=np.int64)
        self.matrix[index] = vectors
        self.valid[index] = True

    def _grow(self, needed: int) -> None:
        self._forget_scores()
        if needed > self.valid.size:
            # an eighth to spare (untouched zero pages cost no memory), so that the next
            # few facts added after a reopen do not copy the whole matrix
            size = max(needed + needed // 8, self.valid.size * 2)
            matrix = np.zeros((size, self.matrix.shape[1]), dtype=np.float32)
            matrix[: self.matrix.shape[0]] = self.matrix
            valid = np.zeros(size, dtype=np.bool_)
            valid[: self.valid.size] = self.valid
            self.matrix, self.valid = matrix, valid

    def drop(self, rows: Sequence[int]) -> None:
        self._forget_scores()
        self.valid[np.asarray(rows, dtype=np.int64)] = False

    def _forget_scores(self) -> None:
        """A row changes: scores computed before are stale (waiting vectors are not)."""
        self._last_scores = None
        with self._queue_lock:
            self._scored.clear()

    def prepare(self, query: str) -> None:
        """Encode `query` now, outside the engine's lock (thread-safe), and leave its
        vector waiting, so that the next product scores it with the others waiting."""
        if self.encoder is None or not query.strip():
            return
        with self._queue_lock:
            if query in self._waiting:
                return
        vector = self.encoder.encode([query])[0]
        with self._queue_lock:
            self._waiting[query] = vector

    def query_vector(self, query: str) -> encoders.FloatVector:
        if self.encoder is None:
            raise ValueError("no encoder to encode the query with")
        if self._last_query is not None and self._last_query[0] == query:
            return self._last_query[1]
        with self._queue_lock:
            vector = self._waiting.get(query)
        if vector is None:
            vector = self.encoder.encode([query])[0]
        self._last_query = (query, vector)
        return vector

    def scores(self, query: str | encoders.FloatVector, n: int) -> npt.NDArray[np.float32]:
        """The cosine of every row (of the first `n`) to `query` (do not modify it).

        Called under the engine's lock. The scores of every query `prepare`d meanwhile
        are computed in the same pass over the matrix and kept for them."""
        if not isinstance(query, str):
            return self.matrix[:n] @ query
        cached = self._last_scores
        if cached is not None and cached[0] == query and cached[1] == n:
            return cached[2]
        vector = self.query_vector(query)
        with self._queue_lock:
            ready = self._scored.pop((query, n), None)
            self._waiting.pop(query, None)
            others = list(self._waiting.items())
            self._waiting.clear()
        if ready is not None:
            scores = ready
        elif not others:
            scores = self.matrix[:n] @ vector
        else:  # one pass over the matrix for this query and the ones queued behind it
            product = self._scores_together([vector, *(v for _, v in others)], n)
            scores = product[0]
            with self._queue_lock:
                for (text, _), row in zip(others, product[1:], strict=True):
                    self._scored[(text, n)] = row
                while len(self._scored) > SCORED_KEPT:
                    self._scored.pop(next(iter(self._scored)))
        self._last_scores = (query, n, scores)
        return scores

    def _scores_together(
        self, vectors: Sequence[encoders.FloatVector], n: int
    ) -> npt.NDArray[np.float32]:
        """The scores of several query vectors in one pass over the first `n` rows: each
        block of rows is multiplied by every vector while it sits in the cache. (A matrix
        product with a few columns is slower than as many matrix-vector products on this
        hardware: 38 ms for 4 queries over 210,000 rows against 4 x 12.5 ms; by blocks of
        4,096 rows it takes 26 ms.)"""
        out = np.empty((len(vectors), n), dtype=np.float32)
        for start in range(0, n, BLOCK_ROWS):
            block = self.matrix[start : min(n, start + BLOCK_ROWS)]
            for row, vector in enumerate(vectors):
                np.dot(block, vector, out=out[row, start : start + block.shape[0]])
        return out

    def top(
        self, query: str | encoders.FloatVector, k: int, allowed: BoolArray
    ) -> list[tuple[int, float]]:
        """The `k` allowed rows most similar to `query`, as (row, cosine), best first."""
        n = allowed.size
        rows = np.flatnonzero(allowed & self.valid[:n])
        if rows.size == 0 or k <= 0:
            return []
        scores = self.scores(query, n)[rows]
        k = min(k, rows.size)
        part = np.argpartition(-scores, k - 1)[:k]
        order = part[np.lexsort((rows[part], -scores[part]))]
        return [(int(rows[i]), float(scores[i])) for i in order]
