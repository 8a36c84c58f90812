"""Document vectors as int8 codes, and their dot products with queries, exact in integers.

The semantic index of a 200,000-fact vault is 200,000 vectors of 384 numbers. As float32
that is 307 MB resident in a server that should stay under 600 MB, and every query reads
all of it (12.5 ms a query on this machine, bound by memory). As int8 it is 77 MB, read
four times faster.

A document vector `v` becomes `codes = round(v / scale)` with `scale = max|v| / 127`
(one scale a row, so a row's largest component keeps full precision). A query `q`
becomes `round(q / qscale)` in -63..63 with `qscale = max|q| / 63`. Their cosine is then
`dot(qcodes, codes) * qscale * scale`, the dot product exact in integers. Measured on
210,000 real vectors and 150 evaluation queries (all-MiniLM-L6-v2): every cosine within
0.0034 of float32's, the same best hit for 99.3% of the queries, 98.8% of each top 10 the
same (the differences are near-ties).

The products run in ONNX Runtime's `MatMulInteger` (the u8 x s8 kernel, 4 ms for 225,000
rows against 12.5 ms for float32 BLAS): the queries go in as uint8 `qcodes + 64`, and
`64 * sum(codes)` of each row, kept with the row, is taken off the result. The query
range -63..63 is chosen for that kernel: on AVX2 it sums pairs of u8 x s8 products in
int16, and 127 x 127 x 2 still fits (255 x 127 x 2 would saturate). Without onnxruntime
the same integers come from numpy in float32 (exact: |dot| <= 63 x 127 x 384 < 2^24),
block by block, at float32's speed.

The graph is one node; it ships as `data/int8_dots.onnx` (so `onnx` is not needed at run
time) and `model_bytes()` builds it again for the test that checks the file.
"""

from __future__ import annotations

import importlib.resources
import logging
from typing import Any

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

CODE_LEVELS = 127  # a document's components: -127..127
QUERY_LEVELS = 63  # a query's: -63..63, shifted by QUERY_SHIFT into uint8 1..127
QUERY_SHIFT = 64
MODEL_NAME = "int8_dots.onnx"
_BLOCK = 8192  # columns converted at a time by the numpy path

Int8Matrix = npt.NDArray[np.int8]
FloatMatrix = npt.NDArray[np.float32]


def quantize_rows(
    vectors: npt.NDArray[Any],
) -> tuple[Int8Matrix, FloatMatrix, npt.NDArray[np.int32]]:
    """Rows of `vectors` as (codes, scale, code sums); a zero row has scale 0."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors), np.float32)
    scale = (peak / CODE_LEVELS).astype(np.float32)
    divisor = np.where(scale > 0, scale, 1.0).astype(np.float32)
    codes = np.rint(vectors / divisor[:, None]).clip(-CODE_LEVELS, CODE_LEVELS).astype(np.int8)
    return codes, scale, codes.sum(axis=1, dtype=np.int32)


def quantize_queries(vectors: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int16], FloatMatrix]:
    """Rows of `vectors` as (codes in -63..63, scale)."""
    vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    scale = (np.abs(vectors).max(axis=1) / QUERY_LEVELS).astype(np.float32)
    divisor = np.where(scale > 0, scale, 1.0).astype(np.float32)
    codes = np.rint(vectors / divisor[:, None]).clip(-QUERY_LEVELS, QUERY_LEVELS)
    return codes.astype(np.int16), scale


def model_bytes() -> bytes:
    """The scoring graph, built with `onnx` (used to write and check the shipped file)."""
    from onnx import TensorProto, helper

    queries = helper.make_tensor_value_info("queries", TensorProto.UINT8, ["k", "d"])
    codes = helper.make_tensor_value_info("codes", TensorProto.INT8, ["d", "n"])
    dots = helper.make_tensor_value_info("dots", TensorProto.INT32, ["k", "n"])
    node = helper.make_node("MatMulInteger", ["queries", "codes"], ["dots"])
    graph = helper.make_graph([node], "int8_dots", [queries, codes], [dots])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="vault-app"
    )
    model.ir_version = 7  # readable by every onnxruntime the semantic extra allows
    return bytes(model.SerializeToString())


class Dots:
    """Integer dot products of quantized queries with int8 code columns. Thread-safe."""

    def __init__(self, *, use_onnx: bool = True) -> None:
        self._session: Any = None
        self.backend = "numpy"
        if use_onnx:
            self._session = _onnx_session()
            if self._session is not None:
                self.backend = "onnxruntime"

    def __call__(
        self, qcodes: npt.NDArray[np.int16], codes: Int8Matrix, sums: npt.NDArray[np.int32]
    ) -> npt.NDArray[np.int32]:
        """`qcodes @ codes` as int32 (k, n): `codes` is (d, n), C-contiguous."""
        if self._session is not None:
            # one query a run: with one row the kernel streams the codes as they are
            # (5 ms at 236,000 rows); with more it packs them first, 19 ms for two
            shifted = (qcodes + QUERY_SHIFT).astype(np.uint8)
            if len(qcodes) == 1:  # the kernel's own answer, not copied (a query's product
                # is bound by memory: every pass over its 200,000 results counts)
                (out,) = self._session.run(None, {"queries": shifted, "codes": codes})
            else:
                out = np.empty((len(qcodes), codes.shape[1]), dtype=np.int32)
                for row in range(len(qcodes)):
                    feeds = {"queries": shifted[row : row + 1], "codes": codes}
                    (out[row],) = self._session.run(None, feeds)
            out -= QUERY_SHIFT * sums[None, :]
            return np.asarray(out, dtype=np.int32)
        return _numpy_dots(qcodes, codes)


def _numpy_dots(qcodes: npt.NDArray[np.int16], codes: Int8Matrix) -> npt.NDArray[np.int32]:
    queries = qcodes.astype(np.float32)
    out = np.empty((queries.shape[0], codes.shape[1]), dtype=np.int32)
    block = np.empty((codes.shape[0], min(_BLOCK, codes.shape[1])), dtype=np.float32)
    for start in range(0, codes.shape[1], _BLOCK):
        part = codes[:, start : start + _BLOCK]
        width = part.shape[1]
        np.copyto(block[:, :width], part)
        out[:, start : start + width] = queries @ block[:, :width]  # exact below 2^24
    return out


def _onnx_session() -> Any:
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    data = importlib.resources.files("vault_app.search").joinpath("data", MODEL_NAME)
    try:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # queries run side by side; one core each
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(data.read_bytes(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # any runtime failure: numpy gives the same integers
        log.warning("int8 scoring through onnxruntime is unavailable (%s); using numpy", exc)
        return None
