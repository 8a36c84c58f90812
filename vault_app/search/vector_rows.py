"""The semantic index: the search engine's document vectors in rows, top-k by cosine.

`VectorRows` holds the vectors of the engine's documents row for row with its metadata
table (`columns.DocumentColumns`), filled from the embedding cache, and answers top-k
cosine queries with one product over every row, keeping the rows a filter lets through.

The rows are held as int8 codes (`int8_dots`: a scale per row, the products exact in
integers, every cosine within 0.004 of float32's): 77 MB rather than 307 MB for 200,000
vectors of 384, and a query's product takes 4 ms rather than 12.5. The codes are stored
transposed, (dimension, capacity), the layout the integer kernel reads; a row is a
column. The embedding cache keeps the float vectors on disk; rows are filled from it in
chunks, so the float32 matrix is never whole in memory. The top candidates of a query
(k and `RESCORED` more) are scored again with their vectors read back from the cache, so
the hits and their cosines are float32's (a near-tie is ordered as it was before int8);
only the rows beyond the candidates are ranked by the codes alone.

The codes sit in two blocks, each multiplied whole: `codes`, sized to the rows a load or
a build asked for (no spare column: every query reads all of it, and a spare eighth cost
a query an eighth more), and `extra`, the rows added since, which grows by doubling and
is folded into `codes` once it reaches an eighth of it (a copy of every row, as rarely as
the single block's spare eighth made one).

Concurrent queries score side by side. The engine answers one query at a time under its
lock, so a resident server with several agents searching at once would encode and score
one query after the other on one core. Instead, `prepare(query)` encodes the query and
computes its scores *before* the engine's lock: the encoder and the integer kernel let go
of the interpreter, so queries from several clients run on every core, and under the
lock the query finds its scores ready. A product computed while the rows changed is
thrown away (`_changing` counts the changes; a product is kept only if none began or
ran during it), and the query is then scored under the lock as before.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.core import errors
from vault_app.search import documents, embedding_cache, encoders, int8_dots

log = logging.getLogger(__name__)

BoolArray = npt.NDArray[np.bool_]
EXTRA_MIN = 1024  # columns of the first block of rows added after a load
SCORED_KEPT = 16  # queries whose scores are kept until a row changes (0.8 MB each at 200k)
FILL_ROWS = 16384  # rows read from the embedding cache at a time (25 MB of float32 at 384)
RESCORED = 32  # candidates beyond the k asked for that are scored again with float vectors


class VectorRows:
    """Sentence vectors in rows of int8 codes, row for row with a caller's table (the
    search engine's document columns); top-k by cosine with one integer product.

    `put(rows, texts)` fills rows from the embedding cache (so reopening a vault encodes
    nothing and a changed text encodes only itself); `put_vectors` takes vectors as they
    are; `drop(rows)` clears rows. A query is one encode (the last one is remembered)
    plus one product over the rows, of which those `allowed` lets through are kept. Not
    thread-safe: the engine serialises changes and queries under its lock.
    """

    def __init__(
        self,
        encoder: encoders.Encoder | None = None,
        cache: embedding_cache.EmbeddingCache | None = None,
        *,
        dimension: int | None = None,
        dots: int8_dots.Dots | None = None,
    ) -> None:
        if dimension is None:
            if encoder is None:
                raise ValueError("give an encoder or a dimension")
            dimension = encoder.dimension
        self.encoder = encoder
        self.cache = cache
        self.dimension = int(dimension)
        self.dots = dots or int8_dots.Dots()
        self.codes = np.zeros((self.dimension, 1024), dtype=np.int8)  # a row is a column
        self.extra = np.zeros((self.dimension, 0), dtype=np.int8)  # rows past `codes`
        self.scale = np.zeros(1024, dtype=np.float32)
        self.sums = np.zeros(1024, dtype=np.int32)  # each row's codes added up (the kernel's)
        self.valid = np.zeros(1024, dtype=np.bool_)
        # each row's text key when it came from the cache (`put`), for exact re-scoring
        self.keys = np.zeros(1024, dtype=np.uint64)
        self.keyed = np.zeros(1024, dtype=np.bool_)
        self._last_query: tuple[str, encoders.FloatVector] | None = None
        # the scores of the last query, until a row changes: a hybrid query asks twice
        # (top k, then the fusion's missing candidates)
        self._last_scores: tuple[str, int, npt.NDArray[np.float32]] | None = None
        # `prepare`: vectors encoded outside the engine's lock, and their scores over
        # every column, computed there too (kept until a row changes)
        self._waiting: dict[str, encoders.FloatVector] = {}
        self._scored: dict[str, npt.NDArray[np.float32]] = {}
        self._queue_lock = threading.Lock()
        self._changes = 0  # changes begun (and ended: +1 each), under `_queue_lock`
        self._changers = 0  # changes running now

    def preload(self, *, touch: bool = True) -> None:
        """Read the embedding cache and make room for as many rows, touching the memory:
        the first write to fresh memory costs more in page faults than the copy itself.
        Call it on a helper thread while the rows' owner loads. `touch=False` leaves
        the pages untouched (never written, they cost no memory) until they are filled."""
        if self.cache is None or self.encoder is None:
            return
        rows = self.cache.preload(self.encoder)
        self._grow(rows)
        if touch:
            self.codes[:, :rows].fill(0)  # zero pages, now faulted in

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
        with self._changing():
            self._put(rows, texts, progress, keys)

    def _put(
        self,
        rows: Sequence[int],
        texts: Sequence[str],
        progress: encoders.Progress | None,
        keys: npt.NDArray[np.uint64] | None,
    ) -> None:
        if not rows:
            return
        if self.encoder is None:
            raise ValueError("no encoder: give vectors with put_vectors")
        if self.cache is None:
            self.put_vectors(rows, self.encoder.encode(list(texts), progress=progress))
            return
        if keys is None:
            keys = documents.text_keys(texts)
        # chunk by chunk through one float32 buffer: the whole float matrix (307 MB at
        # 200,000 rows) is never in memory; encoding progress counts over every chunk
        order = np.asarray(rows, dtype=np.int64)
        self._grow(int(order.max()) + 1)
        buffer = np.empty((min(FILL_ROWS, len(order)), self.dimension), dtype=np.float32)
        for start in range(0, len(order), FILL_ROWS):
            stop = min(len(order), start + FILL_ROWS)
            view = buffer[: stop - start]
            self.cache.get_or_encode(
                _Window(texts, start, stop),
                self.encoder,
                _shifted(progress, start, len(order)),
                out=view,
                keys=keys[start:stop],
            )
            self._store(order[start:stop], view)
            self.keys[order[start:stop]] = keys[start:stop]
            self.keyed[order[start:stop]] = True

    def put_vectors(self, rows: Sequence[int], vectors: npt.NDArray[Any]) -> None:
        if len(rows) == 0:
            return
        with self._changing():
            index = np.asarray(rows, dtype=np.int64)
            self._grow(int(index.max()) + 1)
            self._store(index, vectors)
            self.keyed[index] = False

    def _store(self, index: npt.NDArray[np.int64], vectors: npt.NDArray[Any]) -> None:
        codes, scale, sums = int8_dots.quantize_rows(vectors)
        first, main = int(index[0]), self.codes.shape[1]
        if index[-1] < main and index[-1] - first == len(index) - 1 and (np.diff(index) == 1).all():
            self.codes[:, first : first + len(index)] = codes.T  # in order: a slice
        else:
            inside = index < main
            self.codes[:, index[inside]] = codes[inside].T
            self.extra[:, index[~inside] - main] = codes[~inside].T
        self.scale[index] = scale
        self.sums[index] = sums
        self.valid[index] = True

    def vectors(self, rows: Sequence[int] | npt.NDArray[np.int64]) -> encoders.FloatMatrix:
        """The vectors held in `rows`, as the codes give them back (float32)."""
        index = np.asarray(rows, dtype=np.int64)
        return (self._codes_of(index).T.astype(np.float32) * self.scale[index, None]).astype(
            np.float32
        )

    def _codes_of(self, index: npt.NDArray[np.int64]) -> int8_dots.Int8Matrix:
        """The code columns of rows `index`, from either block."""
        main = self.codes.shape[1]
        if index.size == 0 or index.max() < main:
            return self.codes[:, index]
        out = np.empty((self.dimension, index.size), dtype=np.int8)
        inside = index < main
        out[:, inside] = self.codes[:, index[inside]]
        out[:, ~inside] = self.extra[:, index[~inside] - main]
        return out

    def _grow(self, needed: int) -> None:
        if needed <= self.valid.size:
            return
        with self._changing():
            main, extra = self.codes.shape[1], self.extra.shape[1]
            room = max(EXTRA_MIN, 2 * extra, needed - main)
            if not self.valid.any():
                # nothing held: one block of exactly the rows asked for (a load or a build
                # asks for all of them at once), nothing copied - a row of the codes spans
                # pages, and writing a column touches every page of all of them (with
                # transparent huge pages, the whole matrix), long before a build fills it
                size = needed
                self.codes = np.zeros((self.dimension, size), dtype=np.int8)
                self.extra = np.zeros((self.dimension, 0), dtype=np.int8)
            elif room <= max(main // 8, EXTRA_MIN):  # rows added: the small block grows
                size = main + room
                grown = np.zeros((self.dimension, room), dtype=np.int8)
                grown[:, :extra] = self.extra
                self.extra = grown
            else:  # the added rows fold into one block, every row copied once
                size = needed
                codes = np.zeros((self.dimension, size), dtype=np.int8)
                codes[:, :main] = self.codes
                codes[:, main : main + extra] = self.extra
                self.codes = codes
                self.extra = np.zeros((self.dimension, 0), dtype=np.int8)
            self.scale = _grown(self.scale, size)
            self.sums = _grown(self.sums, size)
            self.valid = _grown(self.valid, size)
            self.keys = _grown(self.keys, size)
            self.keyed = _grown(self.keyed, size)

    def drop(self, rows: Sequence[int]) -> None:
        with self._changing():
            self.valid[np.asarray(rows, dtype=np.int64)] = False

    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """Rows change inside: scores computed before, or while, are stale (vectors
        waiting are not)."""
        with self._queue_lock:
            self._changes += 1
            self._changers += 1
            self._scored.clear()
        self._last_scores = None
        try:
            yield
        finally:
            with self._queue_lock:
                self._changes += 1
                self._changers -= 1

    def prepare(self, query: str) -> None:
        """Encode `query` and score it now, outside the engine's lock (thread-safe): the
        scores wait for the query under the lock, unless the rows changed meanwhile."""
        if self.encoder is None or not query.strip():
            return
        with self._queue_lock:
            if query in self._waiting:
                return
        vector = encoders.query_vector(self.encoder, query)
        with self._queue_lock:
            self._waiting[query] = vector
            if self._changers:
                return  # rows are changing: scored under the lock instead
            changes = self._changes
            blocks, scale, sums = (self.codes, self.extra), self.scale, self.sums  # one set
        scores = self._dots([vector], blocks, scale, sums)[0]
        with self._queue_lock:
            if self._changes == changes:
                self._scored[query] = scores
                while len(self._scored) > SCORED_KEPT:
                    self._scored.pop(next(iter(self._scored)))

    def query_vector(self, query: str) -> encoders.FloatVector:
        if self.encoder is None:
            raise ValueError("no encoder to encode the query with")
        if self._last_query is not None and self._last_query[0] == query:
            return self._last_query[1]
        with self._queue_lock:
            vector = self._waiting.get(query)
        if vector is None:
            vector = encoders.query_vector(self.encoder, query)
        self._last_query = (query, vector)
        return vector

    def scores(self, query: str | encoders.FloatVector, n: int) -> npt.NDArray[np.float32]:
        """The cosine of every row (of the first `n`) to `query` (do not modify it).

        Called under the engine's lock: a query `prepare`d finds its scores ready."""
        if not isinstance(query, str):
            return self._product([query], n)[0]
        cached = self._last_scores
        if cached is not None and cached[0] == query and cached[1] == n:
            return cached[2]
        vector = self.query_vector(query)
        with self._queue_lock:
            ready = self._scored.pop(query, None)
            self._waiting.pop(query, None)
        scores = ready[:n] if ready is not None else self._product([vector], n)[0]
        self._last_scores = (query, n, scores)
        return scores

    def _product(self, vectors: Sequence[encoders.FloatVector], n: int) -> npt.NDArray[np.float32]:
        """The cosines of the first `n` rows to each vector, (len(vectors), n)."""
        return self._dots(vectors, (self.codes, self.extra), self.scale, self.sums)[:, :n]

    def _dots(
        self,
        vectors: Sequence[encoders.FloatVector],
        blocks: tuple[int8_dots.Int8Matrix, int8_dots.Int8Matrix],
        scale: npt.NDArray[np.float32],
        sums: npt.NDArray[np.int32],
    ) -> npt.NDArray[np.float32]:
        """The cosines of every row of both code blocks to each vector. Every column of
        each block is multiplied (the kernel wants them contiguous)."""
        qcodes, qscale = int8_dots.quantize_queries(np.stack(vectors))
        codes, extra = blocks
        main = codes.shape[1]
        dots = self.dots(qcodes, codes, sums[:main])
        if extra.shape[1]:
            more = self.dots(qcodes, extra, sums[main : main + extra.shape[1]])
            dots = np.concatenate([dots, more], axis=1)
        # as `dots.astype(np.float32) * qscale * scale`, bit for bit, in one new array
        # instead of three: a query's 200,000 scores are 0.8 MB each, read cache-cold
        cosines = np.multiply(dots, qscale[:, None], dtype=np.float32)
        cosines *= scale[None, :]
        return cosines

    def top(
        self, query: str | encoders.FloatVector, k: int, allowed: BoolArray
    ) -> list[tuple[int, float]]:
        """The `k` allowed rows most similar to `query`, as (row, cosine), best first."""
        n = allowed.size
        rows = np.flatnonzero(allowed & self.valid[:n])
        if rows.size == 0 or k <= 0:
            return []
        scores = self.scores(query, n)[rows]  # a copy: the kept scores stay as they are
        k = min(k, rows.size)
        wide = min(rows.size, k + RESCORED)
        part = np.argpartition(-scores, wide - 1)[:wide]
        vector = query if not isinstance(query, str) else self.query_vector(query)
        scores[part] = self._exact(vector, rows[part])
        part = part[np.lexsort((rows[part], -scores[part]))][:k]
        return [(int(rows[i]), float(scores[i])) for i in part]

    def _exact(
        self, vector: encoders.FloatVector, rows: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        """The cosines of `rows` to `vector` from their float vectors: read back from the
        embedding cache (as they were encoded), else from the codes (without the query's
        rounding)."""
        vectors = np.empty((rows.size, self.dimension), dtype=np.float32)
        missing = np.ones(rows.size, dtype=np.bool_)
        keyed = self.keyed[rows]
        if self.cache is not None and self.encoder is not None and keyed.any():
            try:
                found, held = self.cache.held(self.keys[rows[keyed]], self.encoder)
            except (OSError, ValueError, errors.VaultError) as error:  # the codes will do
                log.info("re-scoring from the embedding cache failed: %s", error)
            else:
                places = np.flatnonzero(keyed)[found]
                vectors[places] = held[found]
                missing[places] = False
        if missing.any():
            vectors[missing] = self.vectors(rows[missing])
        return (vectors @ np.asarray(vector, dtype=np.float32)).astype(np.float32)


def _grown(array: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
    grown = np.zeros(size, dtype=array.dtype)
    grown[: array.size] = array
    return grown


class _Window(Sequence[str]):
    """`texts[start:stop]` without copying (the engine's texts are read lazily)."""

    def __init__(self, texts: Sequence[str], start: int, stop: int) -> None:
        self.texts, self.start, self.stop = texts, start, stop

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return self.texts[self.start + index % len(self)]


def _shifted(
    progress: encoders.Progress | None, offset: int, total: int
) -> encoders.Progress | None:
    """Progress of one chunk's encoding as progress over all of them (at most)."""
    if progress is None:
        return None
    return lambda done, _: progress(min(total, offset + done), total)
