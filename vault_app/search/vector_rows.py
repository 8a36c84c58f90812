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

On a large vault a process that stays builds a first stage (`index_coarse`, see `coarse`):
every row projected on 128 main directions, scanned in a third of the time; its best few
hundred rows are then scored with their full codes, and the full product is not run at
all. The full codes are then only gathered, a few hundred rows a query, so they are laid
out by row from then on (`coarse.Blocks.to_rows`: a row's 384 codes in one place rather
than a byte in each of 384 columns). `scores_of` scores given rows alone (the hybrid
fusion's candidates from BM25).

Concurrent queries score side by side. The engine answers one query at a time under its
lock, so a resident server with several agents searching at once would encode and score
one query after the other on one core. Instead, `prepare(query)` encodes the query and
computes its scores *before* the engine's lock: the encoder and the integer kernel let go
of the interpreter, so queries from several clients run on every core, and under the
lock the query finds its scores ready. A product computed while the rows changed is
thrown away (`_changing` counts the changes; a product is kept only if none began or
ran during it), and the query is then scored under the lock as before. The engine's
queries share its lock (`engine_lock`), so what a query remembers between its two asks
(its vector, its scores) is kept per thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.core import errors, process_tuning
from vault_app.search import coarse, documents, embedding_cache, encoders, int8_dots

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
    plus one product over the rows (or the first stage's, `index_coarse`), of which those
    `allowed` lets through are kept. Queries may run side by side; changes run alone (the
    engine's lock: `engine_lock`).
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
        self.full = coarse.Blocks(self.dimension, 1024)  # the codes, a row a column
        # the first stage on a large vault (`index_coarse`), row for row with `full`
        self.coarse: coarse.CoarseStage | None = None
        self.scale = np.zeros(1024, dtype=np.float32)
        self.sums = np.zeros(1024, dtype=np.int32)  # each row's codes added up (the kernel's)
        self.valid = np.zeros(1024, dtype=np.bool_)
        # each row's text key when it came from the cache (`put`), for exact re-scoring
        self.keys = np.zeros(1024, dtype=np.uint64)
        self.keyed = np.zeros(1024, dtype=np.bool_)
        # each thread's last query and its vector, and that query's scores until a row
        # changes (a hybrid query asks twice: top k, then the fusion's missing candidates);
        # per thread, since queries run side by side (`engine_lock`)
        self._last = threading.local()
        # `prepare`: vectors encoded outside the engine's lock, and their first pass over
        # every column (the full product, or the coarse one), computed there too (kept
        # until a row changes)
        self._waiting: dict[str, encoders.FloatVector] = {}
        self._scored: dict[str, npt.NDArray[np.float32]] = {}
        self._queue_lock = threading.Lock()
        self._changes = 0  # changes begun (and ended: +1 each), under `_queue_lock`
        self._changers = 0  # changes running now

    @property
    def codes(self) -> int8_dots.Int8Matrix:
        """The main block of codes, (dimension, rows a load asked for); by row, (rows,
        dimension), once a first stage is built (`coarse.Blocks.to_rows`)."""
        return self.full.codes

    @property
    def extra(self) -> int8_dots.Int8Matrix:
        """The rows added since, (dimension, room for them), or by row as `codes` is."""
        return self.full.extra

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
            self.full.touch(rows)  # zero pages, now faulted in

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
        self.full.write(index, codes)
        self.scale[index] = scale
        self.sums[index] = sums
        self.valid[index] = True
        if self.coarse is not None:
            self.coarse.store(index, vectors)

    def vectors(self, rows: Sequence[int] | npt.NDArray[np.int64]) -> encoders.FloatMatrix:
        """The vectors held in `rows`, as the codes give them back (float32)."""
        index = np.asarray(rows, dtype=np.int64)
        return (self.full.rows(index).astype(np.float32) * self.scale[index, None]).astype(
            np.float32
        )

    def _grow(self, needed: int) -> None:
        if needed <= self.valid.size:
            return
        with self._changing():
            main, extra = self.full.main, self.full.added
            room = max(EXTRA_MIN, 2 * extra, needed - main)
            blocks = [self.full] if self.coarse is None else [self.full, self.coarse.blocks]
            if not self.valid.any():
                # nothing held: one block of exactly the rows asked for (a load or a build
                # asks for all of them at once), nothing copied - a row of the codes spans
                # pages, and writing a column touches every page of all of them (with
                # transparent huge pages, the whole matrix), long before a build fills it
                size = needed
                for each in blocks:
                    each.reset(size)
            elif room <= max(main // 8, EXTRA_MIN):  # rows added: the small block grows
                size = main + room
                for each in blocks:
                    each.grow_extra(room)
            else:  # the added rows fold into one block, every row copied once
                size = needed
                for each in blocks:
                    each.fold(size)
            if self.coarse is not None:
                self.coarse.grow_rows(size)
            self.scale = coarse.grown(self.scale, size)
            self.sums = coarse.grown(self.sums, size)
            self.valid = coarse.grown(self.valid, size)
            self.keys = coarse.grown(self.keys, size)
            self.keyed = coarse.grown(self.keyed, size)

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
        try:
            yield
        finally:
            with self._queue_lock:
                self._changes += 1
                self._changers -= 1

    def index_coarse(self) -> bool:
        """Build the first stage (`coarse`) when the rows held are `coarse.MIN_ROWS` or
        more and it is not built yet; True if built now. 0.4 s for 210,000 rows: for
        processes that stay."""
        held = np.flatnonzero(self.valid)
        if self.coarse is not None or held.size < coarse.MIN_ROWS:
            return False
        rng = np.random.default_rng(held.size)  # the same rows, the same directions
        sample = np.sort(rng.choice(held, min(coarse.SAMPLE, held.size), replace=False))
        basis = coarse.fit(self.vectors(sample))
        with self._changing():
            stage = coarse.CoarseStage(basis, self.full.main, self.full.added)
            stage.grow_rows(self.valid.size)
            for start in range(0, held.size, FILL_ROWS):
                index = held[start : start + FILL_ROWS]
                stage.store(index, self.vectors(index))
            self.coarse = stage
            self.full.to_rows()  # from now on only gathered (`scores_of`), never multiplied
        process_tuning.release()  # the fit's and the projection's temporaries, in a tuned process
        return True

    def prepare(self, query: str) -> None:
        """Encode `query` and run its first pass now, outside the engine's lock
        (thread-safe): the scores wait for the query under the lock, unless the rows
        changed meanwhile."""
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
            first = self._first_pass()  # the arrays as they are now, one set
        scores = first(vector)
        with self._queue_lock:
            if self._changes == changes:
                self._scored[query] = scores
                while len(self._scored) > SCORED_KEPT:
                    self._scored.pop(next(iter(self._scored)))

    def _first_pass(self) -> Callable[[encoders.FloatVector], npt.NDArray[np.float32]]:
        """A query's scores over every column: the coarse stage's when there is one, else
        the full product's cosines (the arrays taken now)."""
        if self.coarse is not None:
            return self.coarse.scorer(self.dots)
        arrays, scale, sums = self.full.arrays, self.scale, self.sums
        return lambda vector: self._cosines([vector], arrays, scale, sums)[0]

    def query_vector(self, query: str) -> encoders.FloatVector:
        if self.encoder is None:
            raise ValueError("no encoder to encode the query with")
        last = getattr(self._last, "query", None)
        if last is not None and last[0] == query:
            return last[1]
        with self._queue_lock:
            vector = self._waiting.get(query)
        if vector is None:
            vector = encoders.query_vector(self.encoder, query)
        self._last.query = (query, vector)
        return vector

    def _first(self, query: str | encoders.FloatVector) -> npt.NDArray[np.float32]:
        """The first pass for `query`: ready when `prepare`d (do not modify it)."""
        if isinstance(query, str):
            vector = self.query_vector(query)
            ready = self._taken(query)
            if ready is not None:
                return ready
            query = vector
        return self._first_pass()(query)

    def _taken(self, query: str) -> npt.NDArray[np.float32] | None:
        """What `prepare` left for `query` (its first pass, if any), taken away."""
        with self._queue_lock:
            self._waiting.pop(query, None)
            return self._scored.pop(query, None)

    def scores(self, query: str | encoders.FloatVector, n: int) -> npt.NDArray[np.float32]:
        """The cosine of every row (of the first `n`) to `query` (do not modify it): the
        full product, whether or not there is a coarse stage.

        Called under the engine's lock: a query `prepare`d finds its scores ready."""
        if not isinstance(query, str):
            return self._product([query], n)[0]
        cached = getattr(self._last, "scores", None)
        if cached is not None and cached[:3] == (query, n, self._changes) and not self._changers:
            return cached[3]
        if self.coarse is None:
            scores = self._first(query)[:n]
        else:
            scores = self._product([self.query_vector(query)], n)[0]
        self._last.scores = (query, n, self._changes, scores)
        return scores

    def scores_of(
        self, query: str | encoders.FloatVector, rows: npt.NDArray[np.int64], n: int
    ) -> npt.NDArray[np.float32]:
        """The cosines of `rows` (of the first `n`) to `query`: as `scores` gives them, or
        with a coarse stage, the query as it is (not rounded) with those rows' codes."""
        if self.coarse is None:
            return self.scores(query, n)[rows]
        vector = query if not isinstance(query, str) else self.query_vector(query)
        products = self.full.rows(rows).astype(np.float32) @ np.asarray(vector, dtype=np.float32)
        return np.asarray(products * self.scale[rows], dtype=np.float32)

    def _product(self, vectors: Sequence[encoders.FloatVector], n: int) -> npt.NDArray[np.float32]:
        """The cosines of the first `n` rows to each vector, (len(vectors), n)."""
        return self._cosines(vectors, self.full, self.scale, self.sums)[:, :n]

    def _cosines(
        self,
        vectors: Sequence[encoders.FloatVector],
        codes: coarse.Blocks | tuple[int8_dots.Int8Matrix, int8_dots.Int8Matrix],
        scale: npt.NDArray[np.float32],
        sums: npt.NDArray[np.int32],
    ) -> npt.NDArray[np.float32]:
        """The cosines of every row of both code blocks to each vector: the blocks as
        `coarse.Blocks.arrays` took them (by column: every column of each block multiplied,
        the kernel wants them contiguous), or the blocks themselves as they are now."""
        qcodes, qscale = int8_dots.quantize_queries(np.stack(vectors))
        if isinstance(codes, coarse.Blocks):
            dots = codes.product(self.dots, qcodes, sums)
        else:
            dots = coarse.product(self.dots, qcodes, codes, sums)
        # as `dots.astype(np.float32) * qscale * scale`, bit for bit, in one new array
        # instead of three: a query's 200,000 scores are 0.8 MB each, read cache-cold
        cosines = np.multiply(dots, qscale[:, None], dtype=np.float32)
        cosines *= scale[None, : cosines.shape[1]]
        return cosines

    def top(
        self, query: str | encoders.FloatVector, k: int, allowed: BoolArray
    ) -> list[tuple[int, float]]:
        """The `k` allowed rows most similar to `query`, as (row, cosine), best first.

        Without a coarse stage, every allowed row is scored by the full product, and the
        best k and `RESCORED` more again with their float vectors from the embedding cache
        (`_exact`). With one, its `coarse.width(k)` best rows (or all the allowed ones, when
        fewer) are the candidates, scored by the query as it is with their codes
        (`scores_of`), and those are the cosines: no full product, no file read for a
        query (see `coarse` for what that keeps of the ranking)."""
        n = allowed.size
        rows = np.flatnonzero(allowed & self.valid[:n])
        if rows.size == 0 or k <= 0:
            return []
        k = min(k, rows.size)
        vector = query if not isinstance(query, str) else self.query_vector(query)
        if self.coarse is not None:
            if rows.size > coarse.width(k):
                first = self._first(query)[:n]
                first = first if rows.size == n else first[rows]  # all allowed: no copy
                cut = first.size - coarse.width(k)  # the best width(k), in no order
                rows = rows[np.argpartition(first, cut)[cut:]]  # (of -first: 40% slower)
                rows.sort()  # the columns read in order
            elif isinstance(query, str):
                self._taken(query)  # few rows allowed: every one is a candidate
            scores = self.scores_of(vector, rows, n)
            part = np.argpartition(-scores, k - 1)[:k]
        else:
            scores = self.scores(query, n)[rows]  # a copy: the kept scores stay as they are
            wide = min(rows.size, k + RESCORED)
            part = np.argpartition(-scores, wide - 1)[:wide]
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
