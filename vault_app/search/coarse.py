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

FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]


class Blocks:
    """Int8 code columns in two blocks, row for row with `VectorRows`: `codes`, sized to
    the rows a load asked for, and `extra`, the rows added since, grown by doubling and
    folded into `codes` when it outgrows it (each block multiplied whole: the kernel reads
    contiguous columns)."""

    def __init__(self, dimension: int, size: int) -> None:
        self.dimension = dimension
        self.codes = np.zeros((dimension, size), dtype=np.int8)  # a row is a column
        self.extra = np.zeros((dimension, 0), dtype=np.int8)  # rows past `codes`

    def reset(self, size: int) -> None:
        """Nothing held: one block of exactly `size` columns."""
        self.codes = np.zeros((self.dimension, size), dtype=np.int8)
        self.extra = np.zeros((self.dimension, 0), dtype=np.int8)

    def grow_extra(self, room: int) -> None:
        grown = np.zeros((self.dimension, room), dtype=np.int8)
        grown[:, : self.extra.shape[1]] = self.extra
        self.extra = grown

    def fold(self, size: int) -> None:
        """Both blocks as one of `size` columns (every column copied once)."""
        main, extra = self.codes.shape[1], self.extra.shape[1]
        codes = np.zeros((self.dimension, size), dtype=np.int8)
        codes[:, :main] = self.codes
        codes[:, main : main + extra] = self.extra
        self.codes = codes
        self.extra = np.zeros((self.dimension, 0), dtype=np.int8)

    def write(self, index: npt.NDArray[np.int64], codes: int8_dots.Int8Matrix) -> None:
        """Rows `index` (sorted or not) take `codes`, one row of codes each."""
        first, main = int(index[0]), self.codes.shape[1]
        if index[-1] < main and index[-1] - first == len(index) - 1 and (np.diff(index) == 1).all():
            self.codes[:, first : first + len(index)] = codes.T  # in order: a slice
        else:
            inside = index < main
            self.codes[:, index[inside]] = codes[inside].T
            self.extra[:, index[~inside] - main] = codes[~inside].T

    def columns(self, index: npt.NDArray[np.int64]) -> int8_dots.Int8Matrix:
        """The code columns of rows `index`, from either block, contiguous."""
        main = self.codes.shape[1]
        if index.size == 0 or index.max() < main:
            return self.codes[:, index]
        out = np.empty((self.dimension, index.size), dtype=np.int8)
        inside = index < main
        out[:, inside] = self.codes[:, index[inside]]
        out[:, ~inside] = self.extra[:, index[~inside] - main]
        return out

    @property
    def arrays(self) -> tuple[int8_dots.Int8Matrix, int8_dots.Int8Matrix]:
        """Both blocks as they are now (a change replaces them, never resizes them)."""
        return self.codes, self.extra


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
