"""The int8 codes of the semantic index: exact integer products on either backend, close
to float32's cosines, and the shipped scoring graph is the one the code describes."""

from __future__ import annotations

import importlib.resources
import importlib.util

import numpy as np
import pytest

from vault_app.search import int8_dots, vector_rows

needs_onnxruntime = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed"
)


def unit_rows(count: int, dimension: int = 384, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, dimension)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.mark.skipif(importlib.util.find_spec("onnx") is None, reason="onnx is not installed")
def test_the_shipped_graph_is_the_one_model_bytes_builds() -> None:
    shipped = importlib.resources.files("vault_app.search").joinpath("data", int8_dots.MODEL_NAME)
    assert shipped.read_bytes() == int8_dots.model_bytes()


@needs_onnxruntime
def test_both_backends_give_the_exact_integer_products_even_at_the_extremes() -> None:
    rng = np.random.default_rng(5)
    codes = rng.integers(-127, 128, (384, 3000), dtype=np.int8)
    codes[:, :10] = 127  # every pair of products at its largest: no int16 saturation
    codes[:, 10:20] = -127
    sums = codes.sum(axis=0, dtype=np.int32)
    queries = rng.integers(-63, 64, (4, 384)).astype(np.int16)
    queries[0], queries[1] = 63, -63
    exact = queries.astype(np.int64) @ codes.astype(np.int64)
    onnx = int8_dots.Dots()
    assert onnx.backend == "onnxruntime"
    assert np.array_equal(onnx(queries, codes, sums), exact)
    assert np.array_equal(int8_dots.Dots(use_onnx=False)(queries, codes, sums), exact)


def test_cosines_from_the_codes_are_within_a_few_thousandths_of_float32() -> None:
    docs, queries = unit_rows(4000), unit_rows(20, seed=9)
    rows = vector_rows.VectorRows(dimension=384)
    rows.put_vectors(range(len(docs)), docs)
    for query in queries:
        approx = rows.scores(query, len(docs))
        assert np.abs(approx - docs @ query).max() < 0.01
        best = np.argsort(-(docs @ query))[:10]
        assert len(set(best) & set(np.argsort(-approx)[:10])) >= 8


def test_a_zero_vector_scores_zero_not_nan() -> None:
    codes, scale, sums = int8_dots.quantize_rows(np.zeros((2, 8), np.float32))
    assert not codes.any() and not scale.any() and not sums.any()
    qcodes, qscale = int8_dots.quantize_queries(np.zeros(8, np.float32))
    assert not qcodes.any() and qscale[0] == 0
    rows = vector_rows.VectorRows(dimension=8)
    rows.put_vectors([0, 1], np.vstack([np.zeros(8), np.ones(8) / np.sqrt(8)]))
    scores = rows.scores(np.ones(8, np.float32) / np.sqrt(8), 2)
    assert scores[0] == 0 and abs(scores[1] - 1) < 0.01


def test_rows_put_in_pieces_hold_what_one_put_would() -> None:
    docs = unit_rows(100, dimension=16)
    whole = vector_rows.VectorRows(dimension=16)
    whole.put_vectors(range(100), docs)
    np.testing.assert_allclose(whole.vectors(range(100)), docs, atol=0.01)
    pieces = vector_rows.VectorRows(dimension=16)
    for rows in (range(60, 100), [5, 3, 1], range(0, 60)):
        pieces.put_vectors(rows, docs[list(rows)])
    assert np.array_equal(whole.codes[:, :100], pieces.codes[:, :100])
    assert np.array_equal(whole.sums[:100], pieces.sums[:100])


def test_rows_added_after_a_load_score_as_if_put_at_once() -> None:
    """A load sizes the codes to its rows; rows added later go to the small block, which
    is folded into the main one once it outgrows an eighth of it (or EXTRA_MIN)."""
    docs, queries = unit_rows(3500, dimension=32), unit_rows(5, dimension=32, seed=8)
    whole = vector_rows.VectorRows(dimension=32)
    whole.put_vectors(range(3500), docs)
    grown = vector_rows.VectorRows(dimension=32)
    grown.put_vectors(range(2000), docs[:2000])
    assert grown.codes.shape[1] == 2000 and grown.extra.shape[1] == 0  # no spare column
    for row in range(2000, 2100):  # facts added one by one
        grown.put_vectors([row], docs[row : row + 1])
    assert grown.codes.shape[1] == 2000 and grown.extra.shape[1] == vector_rows.EXTRA_MIN
    for query in queries:
        assert np.array_equal(grown.scores(query, 2100), whole.scores(query, 2100))
    assert np.array_equal(grown.vectors([5, 2050]), whole.vectors([5, 2050]))
    everything = np.ones(2100, dtype=bool)
    assert grown.top(queries[0], 7, everything) == whole.top(queries[0], 7, everything)
    grown.put_vectors(range(2100, 3500), docs[2100:])  # past the small block: folded
    assert grown.codes.shape[1] == 3500 and grown.extra.shape[1] == 0
    for query in queries:
        assert np.array_equal(grown.scores(query, 3500), whole.scores(query, 3500))
    assert np.array_equal(grown.vectors(range(3500)), whole.vectors(range(3500)))
