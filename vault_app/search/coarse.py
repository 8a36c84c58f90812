"""The semantic index's first stage on a large vault: every row projected on the vectors'
128 main directions, as int8 codes, so that a query reads a third of the memory.

Why. A query's product over all 210,000 rows of the benchmark vault reads 80 MB of codes:
3.2 ms alone on this machine, about 6 ms when four clients' products compete for memory
on two cores, the largest share of a resident server's search. Most of those rows are
nowhere near the query; a cheaper pass can find the few hundred that might be.

How. `fit` takes the top eigenvectors of the second moment `XᵀX` of a sample of the rows
(uncentred: a dot product is what has to survive the projection; a constant offset would
not change any ranking anyway). A row `x` is stored as the int8 codes of `Px` (P is
128 x 384), a query `q` scored as `Pq . Px` with the same integer kernel as the full
codes (`int8_dots`). The `width(k)` best rows of that pass (400, or four times the k
asked for) are then scored with the query as it is against their full codes (gathered:
400 columns), and those cosines rank them: no embedding-cache read, no rounded query.

What it keeps, measured by `benchmarks/bench_coarse.py` on the benchmark vault (210,000
vectors, 300 queries like the MCP benchmark's): the 400 candidates hold the full
product's best row for 99.7% of the queries, 99.7% of its top 10, 97.5% of its top 100;
the hybrid search `memory_query` runs gives the same best hit for every query, 99.4% of
the same top 10, in the same order for 72% (near-ties: the cosines differ from the
embedding cache's float vectors by the codes' rounding, under 0.004). The pass costs
1.4 ms instead of 3.5, a hybrid search 6.8 ms instead of 9.3 on one thread; the stage
holds 27 MB and is built in 0.4 s.

When. Only where it pays: from `MIN_ROWS` rows (below, the full product takes under a
millisecond), and only in processes that stay (`SearchEngine.enable_semantic`: the server,
the window), since the fit and the projection cost 0.4 s once. A one-shot CLI search
keeps the full product. The projection follows the rows: a row stored is projected too,
and the blocks grow as the full codes' do (`Blocks`, the same two-block layout).

The full codes' layout follows. Once the first stage is built, the full codes are only
ever gathered (the candidates' rows), never multiplied whole, so they are laid out by row
(`Blocks.to_rows`): a row's 384 codes are then one run of memory, where by column they
were a byte in each of 384 columns 200,000 bytes apart. 400 candidates' codes come in
0.03 ms instead of 0.33 (`bench_coarse.py`), and on a busy server that was a cache miss
per byte.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.search import int8_dots

DIMENSION = 128  # directions kept of the model's 384
MIN_ROWS = 50_000  # rows from which a first stage is built
SAMPLE = 20_000  # rows the directions are fitted on
WIDTH = 400  # candidates carried to the full codes (at least WIDTH_PER_HIT x k)
WIDTH_PER_HIT = 4
_SLICE = 8192  # rows copied or multiplied at a time by `Blocks.to_rows` and `Blocks.product`

FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]


class Blocks:
    """Int8 codes in two blocks, row for row with `VectorRows`: `codes`, sized to the
    rows a load asked for, and `extra`, the rows added since, grown by doubling and
    folded into `codes` when it outgrows it.

    Two layouts. By column (`by_row=False`, a row of the vectors is a column, (dimension,
    size)): what the integer kernel multiplies whole, the layout of every block a product
    runs over. By row ((size, dimension), `to_rows`): what a gather of a few hundred rows
    reads, 384 contiguous bytes each rather than a byte from each of 384 columns 200,000
    apart (0.03 ms for 400 rows instead of 0.33 on this machine). The full codes take it
    once a first stage is built, since from then on they are only ever gathered."""

    def __init__(self, dimension: int, size: int) -> None:
        self.dimension = dimension
        self.by_row = False
        self.codes = self._empty(size)  # a row is a column, until `to_rows`
        self.extra = self._empty(0)  # rows past `codes`

    def _empty(self, size: int) -> int8_dots.Int8Matrix:
        shape = (size, self.dimension) if self.by_row else (self.dimension, size)
        return np.zeros(shape, dtype=np.int8)

    @property
    def main(self) -> int:
        """Rows the main block holds room for."""
        return int(self.codes.shape[0 if self.by_row else 1])

    @property
    def added(self) -> int:
        """Rows the small block holds room for."""
        return int(self.extra.shape[0 if self.by_row else 1])

    def reset(self, size: int) -> None:
        """Nothing held: one block of exactly `size` rows."""
        self.codes = self._empty(size)
        self.extra = self._empty(0)

    def touch(self, rows: int) -> None:
        """Write the first `rows` rows' zero pages now (the first write to fresh memory
        costs more in page faults than the copy after it)."""
        if self.by_row:
            self.codes[:rows].fill(0)
        else:
            self.codes[:, :rows].fill(0)

    def grow_extra(self, room: int) -> None:
        grown = self._empty(room)
        if self.by_row:
            grown[: self.added] = self.extra
        else:
            grown[:, : self.added] = self.extra
        self.extra = grown

    def fold(self, size: int) -> None:
        """Both blocks as one of `size` rows (every row copied once)."""
        main, extra = self.main, self.added
        codes = self._empty(size)
        if self.by_row:
            codes[:main] = self.codes
            codes[main : main + extra] = self.extra
        else:
            codes[:, :main] = self.codes
            codes[:, main : main + extra] = self.extra
        self.codes = codes
        self.extra = self._empty(0)

    def to_rows(self) -> None:
        """Both blocks laid out by row from now on (a copy of each, a slice at a time, so
        the old layout and the new are not both whole in memory for long)."""
        self._lay_out(by_row=True)

    def to_columns(self) -> None:
        """Both blocks laid out by column again (`bench_coarse.py` compares the two)."""
        self._lay_out(by_row=False)

    def _lay_out(self, *, by_row: bool) -> None:
        """Both blocks copied to the other layout, then swapped in (as `fold` and
        `grow_extra` replace them: the rows' owner makes the change, see `VectorRows`)."""
        if self.by_row == by_row:
            return
        codes, extra = (self._copied(block, by_row) for block in (self.codes, self.extra))
        self.codes, self.extra, self.by_row = codes, extra, by_row

    @staticmethod
    def _copied(old: int8_dots.Int8Matrix, by_row: bool) -> int8_dots.Int8Matrix:
        new = np.empty(old.shape[::-1], dtype=np.int8)
        for start in range(0, old.shape[1] if by_row else old.shape[0], _SLICE):
            if by_row:
                new[start : start + _SLICE] = old[:, start : start + _SLICE].T
            else:
                new[:, start : start + _SLICE] = old[start : start + _SLICE].T
        return new

    def write(self, index: npt.NDArray[np.int64], codes: int8_dots.Int8Matrix) -> None:
        """Rows `index` (sorted or not) take `codes`, one row of codes each."""
        first, main = int(index[0]), self.main
        in_order = index[-1] - first == len(index) - 1 and bool((np.diff(index) == 1).all())
        if self.by_row:
            inside = index < main
            self.codes[index[inside]] = codes[inside]
            self.extra[index[~inside] - main] = codes[~inside]
        elif index[-1] < main and in_order:
            self.codes[:, first : first + len(index)] = codes.T  # in order: a slice
        else:
            inside = index < main
            self.codes[:, index[inside]] = codes[inside].T
            self.extra[:, index[~inside] - main] = codes[~inside].T

    def rows(self, index: npt.NDArray[np.int64]) -> int8_dots.Int8Matrix:
        """The codes of rows `index`, from either block, one row each: (len, dimension)."""
        main = self.main
        if index.size == 0 or index.max() < main:
            return self.codes[index] if self.by_row else self.codes[:, index].T
        out = np.empty((index.size, self.dimension), dtype=np.int8)
        inside = index < main
        if self.by_row:
            out[inside] = self.codes[index[inside]]
            out[~inside] = self.extra[index[~inside] - main]
        else:
            out[inside] = self.codes[:, index[inside]].T
            out[~inside] = self.extra[:, index[~inside] - main].T
        return out

    @property
    def arrays(self) -> tuple[int8_dots.Int8Matrix, int8_dots.Int8Matrix]:
        """Both blocks as they are now, by column (a change replaces them, never resizes
        them): what `product` multiplies."""
        if self.by_row:
            raise ValueError("codes laid out by row are gathered, never multiplied whole")
        return self.codes, self.extra

    def product(
        self, dots: int8_dots.Dots, qcodes: npt.NDArray[np.int16], sums: npt.NDArray[np.int32]
    ) -> npt.NDArray[np.int32]:
        """`qcodes` times every row of both blocks, (k, main + added): the kernel's by
        column; by row, in float32 a slice at a time (exact: every product is an integer
        under 2^24), for the rare caller that wants every row's cosine after `to_rows`."""
        if not self.by_row:
            return product(dots, qcodes, self.arrays, sums)
        queries = qcodes.astype(np.float32).T
        out = np.empty((len(qcodes), self.main + self.added), dtype=np.int32)
        for offset, block in ((0, self.codes), (self.main, self.extra)):
            for start in range(0, block.shape[0], _SLICE):
                part = block[start : start + _SLICE].astype(np.float32) @ queries
                out[:, offset + start : offset + start + part.shape[0]] = part.T
        return out


def product(
    dots: int8_dots.Dots,
    qcodes: npt.NDArray[np.int16],
    arrays: tuple[int8_dots.Int8Matrix, int8_dots.Int8Matrix],
    sums: npt.NDArray[np.int32],
) -> npt.NDArray[np.int32]:
    """`qcodes` times every column of both blocks (`Blocks.arrays`), (k, main + extra)."""
    codes, extra = arrays
    main = codes.shape[1]
    out = dots(qcodes, codes, sums[:main])
    if extra.shape[1]:
        more = dots(qcodes, extra, sums[main : main + extra.shape[1]])
        out = np.concatenate([out, more], axis=1)
    return out


def grown(array: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
    """A row array with room for `size` rows: its values first, zeros after."""
    out = np.zeros(size, dtype=array.dtype)
    out[: array.size] = array
    return out


def fit(sample: npt.NDArray[Any], dimension: int = DIMENSION) -> FloatMatrix:
    """The `dimension` directions that keep most of `sample`'s dot products (its second
    moment's top eigenvectors), as rows, float32."""
    sample = np.asarray(sample, dtype=np.float32)
    _, vectors = np.linalg.eigh((sample.T @ sample).astype(np.float64))  # ascending
    return np.ascontiguousarray(vectors[:, ::-1][:, :dimension].T, dtype=np.float32)


class CoarseStage:
    """Rows projected on `basis`, as int8 codes in `Blocks` (row for row with the full
    codes), their scales and code sums; scored with the same kernel."""

    def __init__(self, basis: FloatMatrix, codes_main: int, codes_extra: int) -> None:
        self.basis = basis
        self.blocks = Blocks(basis.shape[0], codes_main)
        if codes_extra:
            self.blocks.grow_extra(codes_extra)
        size = codes_main + codes_extra
        self.scale = np.zeros(size, dtype=np.float32)
        self.sums = np.zeros(size, dtype=np.int32)

    def store(self, index: npt.NDArray[np.int64], vectors: npt.NDArray[Any]) -> None:
        """Rows `index` hold `vectors` (float, full dimension): their projections kept."""
        projected = np.asarray(vectors, dtype=np.float32) @ self.basis.T
        codes, scale, sums = int8_dots.quantize_rows(projected)
        self.blocks.write(index, codes)
        self.scale[index] = scale
        self.sums[index] = sums

    def grow_rows(self, size: int) -> None:
        """Room for `size` rows in the per-row arrays (the blocks grow with the full ones)."""
        self.scale = grown(self.scale, size)
        self.sums = grown(self.sums, size)

    def scorer(self, dots: int8_dots.Dots) -> Callable[[npt.NDArray[Any]], FloatVector]:
        """Every row's approximate score for a vector (a ranking, not a cosine), over the
        rows as they are now: the arrays are taken here, so a product run outside the
        rows' owner's lock reads one consistent set."""
        basis, arrays, scale, sums = self.basis, self.blocks.arrays, self.scale, self.sums

        def scores(vector: npt.NDArray[Any]) -> FloatVector:
            query = basis @ np.asarray(vector, dtype=np.float32)
            qcodes, qscale = int8_dots.quantize_queries(query)
            out = np.multiply(product(dots, qcodes, arrays, sums)[0], qscale[0], dtype=np.float32)
            out *= scale[: out.size]
            return out

        return scores


def width(k: int) -> int:
    """Candidates the first stage hands on for a top `k`."""
    return max(WIDTH, WIDTH_PER_HIT * k)
