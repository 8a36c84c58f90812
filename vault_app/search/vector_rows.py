"""The semantic index: the search engine's document vectors in rows, top-k by cosine.

`VectorRows` holds the vectors of the engine's documents row for row with its metadata
table (`columns.DocumentColumns`), filled from the embedding cache, and answers top-k
cosine queries with one matrix-vector product over the rows a filter lets through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.search import embedding_cache, encoders

BoolArray = npt.NDArray[np.bool_]


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
        self._last_scores = None
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
        self._last_scores = None
        if len(rows) == 0:
            return
        self._grow(max(rows) + 1)
        index = np.asarray(rows, dtype=np.int64)
        self.matrix[index] = vectors
        self.valid[index] = True

    def _grow(self, needed: int) -> None:
        self._last_scores = None
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
        self._last_scores = None
        self.valid[np.asarray(rows, dtype=np.int64)] = False

    def query_vector(self, query: str) -> encoders.FloatVector:
        if self.encoder is None:
            raise ValueError("no encoder to encode the query with")
        if self._last_query is None or self._last_query[0] != query:
            self._last_query = (query, self.encoder.encode([query])[0])
        return self._last_query[1]

    def scores(self, query: str | encoders.FloatVector, n: int) -> npt.NDArray[np.float32]:
        """The cosine of every row (of the first `n`) to `query` (do not modify it)."""
        if not isinstance(query, str):
            return self.matrix[:n] @ query
        cached = self._last_scores
        if cached is not None and cached[0] == query and cached[1] == n:
            return cached[2]
        scores = self.matrix[:n] @ self.query_vector(query)
        self._last_scores = (query, n, scores)
        return scores

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
