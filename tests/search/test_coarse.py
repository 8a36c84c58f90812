"""The semantic index's first stage on a large vault (`search/coarse.py`): its candidates
hold what the full product finds, it follows rows added, changed and dropped, it keeps
to the allowed rows, and the engine builds it only where it pays."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vault_app.core import demo
from vault_app.search import coarse, engine, int8_dots, kinds, vector_rows
from vault_app.search.columns import Filters

DIMENSION = 64
CODES_ROUNDING = 0.002  # a cosine from int8 codes against one from the float vectors


def structured_rows(count: int, seed: int = 4) -> np.ndarray:
    """Unit vectors that live mostly in 16 directions, as sentence vectors mostly do in
    their main ones (random vectors in 64 would leave a projection nothing to keep)."""
    rng = np.random.default_rng(seed)
    mixing = rng.standard_normal((16, DIMENSION))
    vectors = rng.standard_normal((count, 16)) @ mixing
    vectors += 0.15 * rng.standard_normal((count, DIMENSION))
    vectors = vectors.astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture
def small_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first stage from 1,000 rows, 24 directions kept, 60 candidates (at least 3 a hit)."""
    monkeypatch.setattr(coarse, "MIN_ROWS", 1000)
    monkeypatch.setattr(coarse, "DIMENSION", 24)
    monkeypatch.setattr(coarse, "WIDTH", 60)
    monkeypatch.setattr(coarse, "WIDTH_PER_HIT", 3)


def both(docs: np.ndarray) -> tuple[vector_rows.VectorRows, vector_rows.VectorRows]:
    """The same rows twice: with the full product only, and with a first stage."""
    full = vector_rows.VectorRows(dimension=DIMENSION)
    full.put_vectors(range(len(docs)), docs)
    staged = vector_rows.VectorRows(dimension=DIMENSION)
    staged.put_vectors(range(len(docs)), docs)
    assert staged.index_coarse() and staged.coarse is not None
    assert full.coarse is None
    return full, staged


def queries_near(docs: np.ndarray, count: int, seed: int = 9) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picked = docs[rng.choice(len(docs), count, replace=False)]
    noisy = picked + 0.3 * rng.standard_normal(picked.shape).astype(np.float32)
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


def agree(
    full: vector_rows.VectorRows,
    staged: vector_rows.VectorRows,
    query: np.ndarray,
    k: int,
    allowed: np.ndarray | None = None,
) -> None:
    """The same rows, best first, with the same cosines (to float32's last digits)."""
    if allowed is None:
        allowed = np.ones(full.valid.size, dtype=bool)
    expected = full.top(query, k, allowed)
    found = staged.top(query, k, allowed)
    assert [row for row, _ in found] == [row for row, _ in expected]
    np.testing.assert_allclose([s for _, s in found], [s for _, s in expected], atol=1e-5)


def test_the_directions_kept_are_orthonormal_and_ordered_by_what_they_keep() -> None:
    docs = structured_rows(2000)
    basis = coarse.fit(docs, 24)
    assert basis.shape == (24, DIMENSION) and basis.dtype == np.float32
    np.testing.assert_allclose(basis @ basis.T, np.eye(24), atol=1e-5)
    kept = ((docs @ basis.T) ** 2).sum(axis=0)
    assert (np.diff(kept) <= 1e-3).all()  # the first direction keeps the most
    assert kept.sum() / (docs**2).sum() > 0.9  # the 16 main directions and a little noise


@pytest.mark.usefixtures("small_stage")
def test_the_candidates_hold_what_the_full_product_finds() -> None:
    docs = structured_rows(3000)
    full, staged = both(docs)
    for query in queries_near(docs, 25):
        agree(full, staged, query, 10)
    assert coarse.width(10) == 60 and coarse.width(40) == 120


@pytest.mark.usefixtures("small_stage")
def test_below_its_rows_no_first_stage_is_built() -> None:
    rows = vector_rows.VectorRows(dimension=DIMENSION)
    rows.put_vectors(range(999), structured_rows(999))
    assert not rows.index_coarse() and rows.coarse is None
    rows.put_vectors([999], structured_rows(1, seed=5))
    assert rows.index_coarse() and rows.coarse is not None
    assert not rows.index_coarse()  # built once


@pytest.mark.usefixtures("small_stage")
def test_rows_added_changed_and_dropped_after_the_first_stage_are_followed() -> None:
    """Added rows go to the small block (and are folded into the main one later), a
    changed row is projected again, a dropped one is never a hit: the first stage does
    what the full codes do, column for column."""
    docs = structured_rows(4200)
    full, staged = both(docs[:3000])
    queries = queries_near(docs, 12, seed=2)
    for row in range(3000, 3100):  # one by one, as facts come: the small block
        for rows in (full, staged):
            rows.put_vectors([row], docs[row : row + 1])
    assert staged.full.by_row and not full.full.by_row  # a first stage's are gathered
    assert staged.full.added == vector_rows.EXTRA_MIN == full.full.added
    assert staged.coarse is not None and staged.coarse.blocks.added == staged.full.added
    for query in queries:
        agree(full, staged, query, 10)
    target = queries[0]
    for rows in (full, staged):
        rows.put_vectors([17], target[None, :])  # a changed fact
        rows.put_vectors([3100], -target[None, :])  # a new one, the query's opposite
    allowed = np.ones(3101, dtype=bool)
    assert staged.top(target, 1, allowed)[0][0] == 17
    for rows in (full, staged):
        rows.drop([17])
    assert 17 not in [row for row, _ in staged.top(target, 10, allowed)]
    agree(full, staged, target, 10)
    for rows in (full, staged):  # past an eighth of the main block: folded into it
        rows.put_vectors(range(3101, 4200), docs[3101:4200])
    assert staged.full.added == 0 and staged.full.main == 4200
    assert staged.extra.shape == (0, DIMENSION) and staged.codes.shape == (4200, DIMENSION)
    assert staged.coarse.blocks.main == 4200
    for query in queries_near(docs, 12, seed=3):
        agree(full, staged, query, 10)


@pytest.mark.usefixtures("small_stage")
def test_only_allowed_rows_are_candidates_and_scores_of_matches_top(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = structured_rows(3000)
    full, staged = both(docs)
    query = queries_near(docs, 1)[0]
    allowed = np.zeros(3000, dtype=bool)
    allowed[::3] = True
    found = staged.top(query, 10, allowed)
    agree(full, staged, query, 10, allowed)
    assert all(row % 3 == 0 for row, _ in found)
    rows = np.array([row for row, _ in found])
    np.testing.assert_allclose(
        staged.scores_of(query, rows, 3000), [s for _, s in found], atol=1e-6
    )
    # the cosines are the float query's with each row's codes: close to the vectors'
    np.testing.assert_allclose(staged.scores_of(query, rows, 3000), docs[rows] @ query, atol=0.01)
    few = np.zeros(3000, dtype=bool)
    few[[5, 50, 500]] = True  # fewer rows than candidates: all of them, scored as they are

    def no_full_product(*_: object) -> None:
        raise AssertionError("the full product ran with a first stage")

    monkeypatch.setattr(staged, "_product", no_full_product)
    assert sorted(row for row, _ in staged.top(query, 10, few)) == [5, 50, 500]


@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="no onnxruntime")
def test_the_engine_builds_it_where_it_pays_and_answers_as_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`enable_semantic` (a process that stays) builds the first stage from `MIN_ROWS`
    rows; a one-shot `open_engine` never does. With every direction kept the candidates
    are exact, so a search answers what the full product answers, but for a hit whose
    cosine sits at the floor: the first stage scores its candidates with their codes,
    the full product re-scores its best with the float vectors, and the two cosines
    differ in the third decimal (0.3202 and 0.3199 for one demo fact, on one machine)."""
    v = demo.create_demo(tmp_path / "demo")
    monkeypatch.setattr(coarse, "WIDTH", 8)
    monkeypatch.setattr(coarse, "WIDTH_PER_HIT", 1)
    monkeypatch.setattr(coarse, "DIMENSION", 384)
    plain, _ = engine.open_engine(v)
    assert plain.semantic is not None and plain.semantic.coarse is None
    rows = int(plain.semantic.valid.sum())
    monkeypatch.setattr(coarse, "MIN_ROWS", rows + 1)
    unbuilt, _ = engine.open_engine(v, semantic=False)
    unbuilt.enable_semantic()
    assert unbuilt.semantic is not None and unbuilt.semantic.coarse is None  # too few rows
    monkeypatch.setattr(coarse, "MIN_ROWS", rows)
    staged, _ = engine.open_engine(v, semantic=False)
    staged.enable_semantic()
    assert staged.semantic is not None and staged.semantic.coarse is not None
    first_passes = []
    first = staged.semantic._first
    monkeypatch.setattr(staged.semantic, "_first", lambda q: first_passes.append(q) or first(q))
    facts = Filters(kinds=frozenset({kinds.FACT}))
    for query in ("who fixes the pipes", "dentist appointment", "the roof quote", "budget"):
        for mode in ("semantic", "hybrid"):
            expected = plain.search(query, mode=mode, filters=facts, limit=5).hits
            found = staged.search(query, mode=mode, filters=facts, limit=5).hits
            assert [h.key for h in found][:1] == [h.key for h in expected][:1], (query, mode)
            at_the_floor = {
                h.key
                for h in (*found, *expected)
                if abs(float(h.parts["semantic"] or 0.0) - staged.min_cosine) < CODES_ROUNDING
            }
            kept = {h.key for h in found} - at_the_floor
            assert kept == {h.key for h in expected} - at_the_floor, (query, mode)
            assert len(at_the_floor) <= 1, (query, mode)  # the test still says something
    assert len(first_passes) == 8  # every search went through the first stage


def test_codes_laid_out_by_row_hold_the_same_rows_and_products() -> None:
    """`Blocks.to_rows` keeps every row of both blocks; written, grown, folded and
    gathered by row they are what the same steps give by column, and their product with
    a query is the kernel's, integer for integer."""
    rng = np.random.default_rng(3)
    by_column, by_row = coarse.Blocks(DIMENSION, 500), coarse.Blocks(DIMENSION, 500)
    codes = rng.integers(-127, 128, (620, DIMENSION), dtype=np.int8)
    sums = codes.sum(axis=1, dtype=np.int32)
    for blocks in (by_column, by_row):
        blocks.write(np.arange(500), codes[:500])
        blocks.grow_extra(64)
        blocks.write(np.array([510, 3, 501]), codes[[510, 3, 501]])  # either block, any order
    by_row.to_rows()
    assert by_row.by_row and by_row.codes.shape == (500, DIMENSION)
    assert by_row.extra.shape == (64, DIMENSION) and (by_row.main, by_row.added) == (500, 64)
    picked = np.array([0, 3, 499, 501, 510, 7])
    assert np.array_equal(by_row.rows(picked), by_column.rows(picked))
    assert np.array_equal(by_row.rows(picked), codes[picked])
    queries = rng.integers(-63, 64, (2, DIMENSION)).astype(np.int16)
    dots = int8_dots.Dots(use_onnx=False)
    assert np.array_equal(
        by_row.product(dots, queries, sums), by_column.product(dots, queries, sums)
    )
    for blocks in (by_column, by_row):
        blocks.fold(620)
        blocks.write(np.arange(560, 620), codes[560:620])
    assert by_row.by_row and by_row.codes.shape == (620, DIMENSION) and by_row.added == 0
    every = np.arange(620)
    assert np.array_equal(by_row.rows(every), by_column.rows(every))
    with pytest.raises(ValueError):
        _ = by_row.arrays  # never multiplied whole by the kernel
    by_row.to_columns()
    assert not by_row.by_row and all(
        np.array_equal(a, b) for a, b in zip(by_row.arrays, by_column.arrays, strict=True)
    )


@pytest.mark.usefixtures("small_stage")
def test_every_rows_cosine_is_the_same_with_a_first_stage() -> None:
    """The full product a caller may still ask for (`scores`) reads the codes laid out by
    row and gives the cosines the kernel gives by column."""
    docs = structured_rows(3000)
    full, staged = both(docs)
    assert staged.full.by_row
    for query in queries_near(docs, 3):
        np.testing.assert_array_equal(staged.scores(query, 3000), full.scores(query, 3000))
    np.testing.assert_allclose(staged.vectors([5, 2999]), full.vectors([5, 2999]))
