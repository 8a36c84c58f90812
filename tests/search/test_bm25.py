"""The BM25 index: parity with rank_bm25, incremental changes, top-k, persistence."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
import rank_bm25
from hypothesis import given, settings
from hypothesis import strategies as st

from vault_app.search import bm25

TOLERANCE = 1e-9
WORDS = [f"w{i}" for i in range(12)]

token_lists = st.lists(st.lists(st.sampled_from(WORDS), max_size=12), min_size=1, max_size=30)
queries = st.lists(st.sampled_from([*WORDS, "unknown", "w0", "w1"]), max_size=6)


def reference(docs: Mapping[str, Sequence[str]]) -> rank_bm25.BM25Okapi:
    return rank_bm25.BM25Okapi([list(tokens) for tokens in docs.values()])


def assert_parity(
    index: bm25.BM25Index, docs: Mapping[str, Sequence[str]], query: Sequence[str]
) -> None:
    """Our scores for the live documents equal rank_bm25's built fresh on them."""
    ours = index.scores(query)
    assert ours.shape == (index.n_slots,)
    assert len(index) == len(docs)
    assert sorted(index.keys()) == sorted(docs)
    slots = [index.slot(key) for key in docs]
    if not docs:
        assert not ours.any()
        return
    if not any(docs.values()):  # rank_bm25 divides by zero on a corpus of empty documents
        assert not ours.any()
        return
    theirs = reference(docs).get_scores(list(query))
    np.testing.assert_allclose(ours[slots], theirs, rtol=0, atol=TOLERANCE)
    dead = np.ones(index.n_slots, dtype=bool)
    dead[slots] = False
    assert not ours[dead].any()


def build(docs: Mapping[str, Sequence[str]], **policy: int) -> bm25.BM25Index:
    index = bm25.BM25Index(**policy)
    index.add_many(docs.items())
    return index


def zipf_corpus(seed: int, n_docs: int, vocabulary: int = 400) -> dict[str, list[str]]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 26, size=n_docs)
    return {
        f"doc-{i}": [f"t{j}" for j in (rng.zipf(1.3, size=length) - 1) % vocabulary]
        for i, length in enumerate(lengths)
    }


# ------------------------------------------------------------------ parity, static


@given(token_lists, st.lists(queries, min_size=1, max_size=4))
def test_parity_on_random_corpora(corpus: list[list[str]], query_list: list[list[str]]) -> None:
    docs = {f"k{i}": tokens for i, tokens in enumerate(corpus)}
    index = build(docs)
    for query in query_list:
        assert_parity(index, docs, query)


@pytest.mark.parametrize("seed", range(5))
def test_parity_on_seeded_zipf_corpora(seed: int) -> None:
    docs = zipf_corpus(seed, 3000)
    index = build(docs)
    rng = np.random.default_rng(seed + 100)
    ref = reference(docs)
    slots = [index.slot(key) for key in docs]
    for _ in range(30):
        query = [f"t{j}" for j in rng.integers(0, 450, size=rng.integers(1, 6))]
        query += query[:1]  # a repeated token
        np.testing.assert_allclose(
            index.scores(query)[slots], ref.get_scores(query), rtol=0, atol=TOLERANCE
        )


def test_the_parity_is_exact_in_practice() -> None:
    docs = zipf_corpus(7, 2000)
    index, ref = build(docs), reference(docs)
    query = ["t5", "t77", "t5", "t300", "nope"]  # no idf floored: bit for bit
    assert np.array_equal(index.scores(query), ref.get_scores(query))
    # "t0" and "t1" are in most documents: their idf is epsilon times the mean idf, a sum
    # over the vocabulary taken in another order than rank_bm25's.
    query = ["t0", "t1", "t5", "t1"]
    np.testing.assert_allclose(index.scores(query), ref.get_scores(query), rtol=0, atol=1e-13)


def test_repeated_query_tokens_count_each_time() -> None:
    docs = {"a": ["tea", "coffee"], "b": ["tea"], "c": ["juice"], "d": ["juice", "x"]}
    index = build(docs)
    once, twice = index.scores(["coffee"]), index.scores(["coffee", "coffee"])
    assert twice[index.slot("a")] == pytest.approx(2 * once[index.slot("a")])
    assert_parity(index, docs, ["coffee", "tea", "coffee"])


def test_unknown_terms_score_nothing() -> None:
    docs = {"a": ["tea"], "b": ["coffee"], "c": ["juice"]}
    index = build(docs)
    assert not index.scores(["nothing", "here"]).any()
    assert index.top(["nothing"]) == []
    assert index.idf("nothing") == 0.0
    assert_parity(index, docs, ["nothing", "tea"])


def test_a_term_in_every_document_gets_the_epsilon_floor() -> None:
    docs = {f"d{i}": ["common", f"rare{i}"] for i in range(6)}
    index = build(docs)
    ref = reference(docs)
    assert ref.idf["common"] == pytest.approx(ref.epsilon * ref.average_idf)
    assert index.idf("common") == pytest.approx(ref.idf["common"], abs=TOLERANCE)
    assert index.idf("rare3") == pytest.approx(ref.idf["rare3"], abs=TOLERANCE)
    assert_parity(index, docs, ["common"])
    assert_parity(index, docs, ["common", "rare2", "common"])


def test_a_single_document_scores_below_zero_and_is_still_a_hit() -> None:
    docs = {"only": ["jane", "prefers", "tea"]}
    index = build(docs)
    assert_parity(index, docs, ["tea"])
    [(key, score)] = index.top(["tea"])
    assert key == "only" and score < 0
    assert index.top(["coffee"]) == []


def test_two_documents_give_zero_idf() -> None:
    docs = {"a": ["tea"], "b": ["coffee"]}
    index = build(docs)
    assert_parity(index, docs, ["tea"])
    assert index.top(["tea"]) == [("a", 0.0)]


def test_empty_documents() -> None:
    docs: dict[str, list[str]] = {"empty": [], "a": ["tea", "tea"], "also-empty": []}
    index = build(docs)
    assert index.doc_len("empty") == 0
    assert_parity(index, docs, ["tea"])
    only_empty = build({"e1": [], "e2": []})
    assert len(only_empty) == 2 and only_empty.avgdl == 0.0
    assert not only_empty.scores(["tea"]).any()
    assert only_empty.top(["tea"]) == []


def test_an_empty_index() -> None:
    index = bm25.BM25Index()
    assert len(index) == 0 and index.n_slots == 0 and index.n_terms == 0
    assert index.scores(["tea"]).shape == (0,)
    assert index.top(["tea"]) == []
    index.compact()
    assert index.keys() == []


def test_other_parameters() -> None:
    docs = zipf_corpus(3, 500)
    index = bm25.BM25Index(k1=1.2, b=0.5, epsilon=0.1)
    index.add_many(docs.items())
    ref = rank_bm25.BM25Okapi(list(docs.values()), k1=1.2, b=0.5, epsilon=0.1)
    query = ["t0", "t3", "t40"]
    np.testing.assert_allclose(index.scores(query), ref.get_scores(query), atol=TOLERANCE)


# ------------------------------------------------------------ parity, incremental

operation = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 15), st.lists(st.sampled_from(WORDS), max_size=10)),
    st.tuples(st.just("remove"), st.integers(0, 15), st.just([])),
    st.tuples(st.just("compact"), st.just(0), st.just([])),
)


@settings(max_examples=150)
@given(
    st.lists(operation, max_size=60),
    queries,
    st.sampled_from([{"min_delta": 10**9, "min_dead": 10**9}, {"min_delta": 6, "min_dead": 2}]),
)
def test_parity_after_any_sequence_of_changes(
    operations: list[tuple[str, int, list[str]]], query: list[str], policy: dict[str, int]
) -> None:
    index = bm25.BM25Index(**policy)
    docs: dict[str, list[str]] = {}
    for kind, number, tokens in operations:
        key = f"key-{number}"
        if kind == "add":
            index.add(key, tokens)
            docs.pop(key, None)
            docs[key] = tokens
        elif kind == "remove":
            assert index.discard(key) == (key in docs)
            docs.pop(key, None)
        else:
            index.compact()
        assert_parity(index, docs, query)
    # The same documents indexed at once, in another order, rank the same, bit for bit.
    fresh = build(dict(sorted(docs.items(), reverse=True)))
    assert fresh.top(query, 5) == index.top(query, 5)
    index.compact()
    assert index.n_slots == len(docs)
    assert_parity(index, docs, query)


@pytest.mark.parametrize("seed", range(3))
def test_parity_after_random_interleavings_with_compaction(seed: int) -> None:
    rng = random.Random(seed)
    pool = zipf_corpus(seed, 1500)
    pool_keys = list(pool)
    index = bm25.BM25Index(min_delta=300, min_dead=40)
    docs: dict[str, list[str]] = {}
    generations = {index.generation}
    for step in range(1200):
        key = rng.choice(pool_keys[:600])
        roll = rng.random()
        if roll < 0.55:
            tokens = pool[rng.choice(pool_keys)]
            index.add(key, tokens)
            docs.pop(key, None)
            docs[key] = tokens
        elif roll < 0.8:
            if key in docs:
                index.remove(key)
                del docs[key]
        else:
            batch = {k: pool[rng.choice(pool_keys)] for k in rng.sample(pool_keys[:600], 30)}
            index.add_many(batch.items())
            for k, tokens in batch.items():
                docs.pop(k, None)
                docs[k] = tokens
        generations.add(index.generation)
        if step % 100 == 0:
            assert_parity(index, docs, ["t0", "t1", "t2", "t9", "t0"])
    assert len(generations) > 1000
    for query in (["t0"], ["t3", "t3", "t50"], ["t1", "t120", "t399", "nope"]):
        assert_parity(index, docs, query)
    index.compact()
    assert index.n_slots == len(docs)
    for query in (["t0"], ["t3", "t3", "t50"]):
        assert_parity(index, docs, query)


@pytest.mark.parametrize(("seed", "order"), [(0, "same"), (1, "reversed"), (2, "partial")])
def test_an_index_sharing_the_callers_rows_stays_exact(seed: int, order: str) -> None:
    """`share_keys`: slots kept by the caller's rows (which only grow, as the engine's
    columns do) give the same keys, slots and scores through adds, removals, re-adds of
    keys the rows lack and compactions; and the index holds the caller's key strings."""
    rng = random.Random(seed)
    pool = zipf_corpus(seed, 900)
    pool_keys = list(pool)
    first = {k: pool[k] for k in pool_keys[:300]}
    shared = build(first, min_delta=200, min_dead=30)
    alone = build(first, min_delta=200, min_dead=30)
    row_keys = [(k + ".")[:-1] for k in pool_keys[:300]]  # equal strings, other objects
    if order == "reversed":
        row_keys.reverse()
    elif order == "partial":
        row_keys = row_keys[:200]  # 100 keys the rows lack: kept by key
    rows = {k: i for i, k in enumerate(row_keys)}
    shared.share_keys(row_keys, rows)
    assert all(shared.key_of(shared.slot(k)) is row_keys[rows[k]] for k in row_keys)
    docs = dict(first)
    for step in range(900):
        key = rng.choice(pool_keys[:500])
        if rng.random() < 0.6:
            if key not in rows and rng.random() < 0.5:  # the caller's rows grow first
                rows[key] = len(row_keys)
                row_keys.append(key)
            tokens = pool[rng.choice(pool_keys)]
            shared.add(key, tokens)
            alone.add(key, tokens)
            docs.pop(key, None)
            docs[key] = tokens
        elif key in docs:
            shared.remove(key)
            alone.remove(key)
            del docs[key]
        assert (key in shared) == (key in docs)
        assert shared.find(key) == (shared.slot(key) if key in docs else -1)
        if step % 150 == 0:
            assert_parity(shared, docs, ["t0", "t1", "t7"])
            asked = [*pool_keys[:550], "nope"]
            for index in (shared, alone):  # by the shared rows, and by its own dict
                assert index.find_many(asked).tolist() == [index.find(k) for k in asked]
    assert shared.keys() == alone.keys()
    assert [shared.slot(k) for k in docs] == [alone.slot(k) for k in docs]
    for query in (["t0"], ["t3", "t3", "t50"], ["t1", "t120", "t399", "nope"]):
        assert_parity(shared, docs, query)
        assert shared.top(query, 10) == alone.top(query, 10)
    shared.compact()
    assert shared.n_slots == len(docs)
    assert shared.find_many(pool_keys).tolist() == [shared.find(k) for k in pool_keys]
    assert_parity(shared, docs, ["t0", "t2"])
    with pytest.raises(KeyError):
        shared.remove("never there")


def test_bulk_and_one_by_one_adds_agree() -> None:
    docs = zipf_corpus(11, 400)
    bulk = build(docs)  # the scipy counting path
    single = bm25.BM25Index(min_delta=10**9)
    for key, tokens in docs.items():  # the plain Python path
        single.add(key, tokens)
    query = ["t0", "t2", "t7", "t2"]
    assert np.array_equal(bulk.scores(query), single.scores(query))
    assert bulk.n_terms == single.n_terms


def test_compaction_happens_by_itself_and_drops_unused_terms() -> None:
    index = bm25.BM25Index(min_delta=50, min_dead=5)
    for i in range(20):
        index.add(f"k{i}", [f"unique{i}", "shared", "shared"])
    assert index.n_slots == 20
    for i in range(10):
        index.remove(f"k{i}")
    assert index.n_slots == 14  # compacted at the 6th removal (more than 5 and a quarter dead)
    assert index.n_terms == 11
    assert index.df("unique0") == 0 and index.df("shared") == 10
    assert sorted(index.keys()) == sorted(f"k{i}" for i in range(10, 20))


def test_replacing_a_document() -> None:
    index = build({"a": ["tea"], "b": ["coffee"], "c": ["juice"]})
    index.add("a", ["coffee", "cake"])
    assert index.df("tea") == 0 and index.df("coffee") == 2
    assert len(index) == 3
    assert {key for key, _ in index.top(["coffee"])} == {"a", "b"}
    assert_parity(index, {"b": ["coffee"], "c": ["juice"], "a": ["coffee", "cake"]}, ["cake"])


def test_add_many_lets_a_later_duplicate_win() -> None:
    index = bm25.BM25Index()
    index.add_many([("a", ["tea"]), ("b", ["coffee"]), ("a", ["juice"])])
    assert len(index) == 2 and index.df("tea") == 0 and index.df("juice") == 1
    index.add_many([])
    assert len(index) == 2


def test_removing() -> None:
    index = build({"a": ["tea"], "b": ["coffee"], "c": ["tea", "cake"]})
    with pytest.raises(KeyError):
        index.remove("nope")
    assert not index.discard("nope")
    assert index.remove_many(["a", "nope", "a"]) == 1
    assert "a" not in index and "b" in index
    assert index.df("tea") == 1
    index.clear()
    assert len(index) == 0 and index.top(["tea"]) == []


# -------------------------------------------------------------------------- top


def test_top_is_the_best_matches_in_order() -> None:
    docs = zipf_corpus(5, 2000)
    index = build(docs)
    query = ["t3", "t8", "t30"]
    scores = index.scores(query)
    matched = [key for key, tokens in docs.items() if set(tokens) & set(query)]
    expected = sorted(((key, scores[index.slot(key)]) for key in matched), key=lambda h: -h[1])
    hits = index.top(query, 25)
    assert [score for _, score in hits] == [score for _, score in expected[:25]]
    assert len(index.top(query, 10**6)) == len(matched)
    assert index.top(query, 0) == [] and index.top(query, -1) == []


def test_ties_are_ordered_by_key() -> None:
    docs = {f"k{i:03d}": ["tea", "filler"] for i in range(50)}
    docs |= {f"x{i}": ["other", "filler"] for i in range(50)}
    index = bm25.BM25Index()
    index.add_many(sorted(docs.items(), reverse=True))
    hits = index.top(["tea"], 7)
    assert [key for key, _ in hits] == [f"k{i:03d}" for i in range(7)]
    assert len({score for _, score in hits}) == 1


def expected_top(
    index: bm25.BM25Index,
    docs: Mapping[str, Sequence[str]],
    query: Sequence[str],
    k: int,
    allowed: set[str] | None = None,
) -> list[tuple[str, float]]:
    """Brute force: every document with a query token, by score then key."""
    scores = index.scores(query)
    hits = [
        (key, float(scores[index.slot(key)]))
        for key, tokens in docs.items()
        if set(tokens) & set(query) and (allowed is None or key in allowed)
    ]
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:k]


@contextlib.contextmanager
def strategy(name: str) -> Iterator[None]:
    """Make `top` take one way: a union of the postings, or a scan of all slots."""
    saved = bm25._DENSE_SHARE
    bm25._DENSE_SHARE = {"union": 1, "scan": 10**9}[name]
    try:
        yield
    finally:
        bm25._DENSE_SHARE = saved


@pytest.mark.parametrize("way", ["union", "scan"])
@settings(max_examples=150)
@given(
    corpus=token_lists,
    query=queries,
    k=st.integers(1, 8),
    allowed_numbers=st.one_of(st.none(), st.sets(st.integers(0, 29))),
)
def test_top_is_brute_force_top_k(
    way: str, corpus: list[list[str]], query: list[str], k: int, allowed_numbers: set[int] | None
) -> None:
    docs = {f"k{i:02d}": tokens for i, tokens in enumerate(corpus)}
    index = build(docs)
    allowed = None if allowed_numbers is None else {f"k{i:02d}" for i in allowed_numbers}
    mask = None if allowed is None else index.mask(allowed)
    with strategy(way):
        assert index.top(query, k, allowed=mask) == expected_top(index, docs, query, k, allowed)


@pytest.mark.parametrize("way", ["union", "scan"])
@pytest.mark.parametrize("share", [0.05, 0.3])
def test_ties_at_the_cut_are_ordered_by_key_either_way(way: str, share: float) -> None:
    rng = random.Random(3)
    docs = {f"d{i:04d}": ["tea" if rng.random() < share else "x", "pad"] for i in range(2000)}
    docs |= {f"long{i}": ["tea", "tea", "pad"] for i in range(3)}
    index = bm25.BM25Index()
    index.add_many(sorted(docs.items(), reverse=True))
    with strategy(way):
        hits = index.top(["tea"], 8)
    assert [key for key, _ in hits[:3]] == ["long0", "long1", "long2"]
    tea = sorted(key for key, tokens in docs.items() if tokens == ["tea", "pad"])
    assert [key for key, _ in hits[3:]] == tea[:5]
    assert hits == expected_top(index, docs, ["tea"], 8)


def test_top_with_an_allowed_mask() -> None:
    docs = zipf_corpus(9, 1000)
    index = build(docs)
    wanted = [key for key in docs if int(key.split("-")[1]) % 3 == 0]
    allowed = index.mask([*wanted, "not-a-key"])
    assert allowed.sum() == len(wanted)
    hits = index.top(["t0", "t4"], 20, allowed=allowed)
    assert hits and all(key in set(wanted) for key, _ in hits)
    everything = [hit for hit in index.top(["t0", "t4"], 10**6) if hit[0] in set(wanted)]
    assert hits == everything[:20]
    assert index.top(["t0"], 5, allowed=np.zeros(index.n_slots, dtype=bool)) == []
    with pytest.raises(ValueError, match="allowed"):
        index.top(["t0"], 5, allowed=np.ones(index.n_slots + 1, dtype=bool))
    with pytest.raises(ValueError, match="allowed"):
        index.top(["t0"], 5, allowed=np.ones(index.n_slots, dtype=np.int64))  # type: ignore[arg-type]


def test_keys_and_slots() -> None:
    index = bm25.BM25Index(min_delta=10**9, min_dead=10**9)
    index.add_many([("a", ["tea"]), ("b", ["coffee"]), ("c", ["cake"])])
    index.remove("b")
    assert index.n_slots == 3 and len(index) == 2
    assert index.keys() == ["a", "c"]
    assert index.slot_keys().tolist() == ["a", None, "c"]
    assert index.key_of(index.slot("c")) == "c" and index.key_of(1) is None
    assert index.live_mask().tolist() == [True, False, True]
    before = index.generation
    index.compact()
    assert index.generation != before
    assert index.slot_keys().tolist() == ["a", "c"]


def test_explain_adds_up_to_the_score() -> None:
    docs = zipf_corpus(4, 300)
    index = bm25.BM25Index(min_delta=10**9)
    index.add_many(list(docs.items())[:200])
    index.add_many(list(docs.items())[200:])  # some in the main segment, some in the delta
    query = ["t0", "t2", "t2", "nope", "t11"]
    scores = index.scores(query)
    for key in ("doc-5", "doc-250"):
        shares = index.explain(query, key)
        assert [token for token, _ in shares] == query
        total = 0.0
        for _, share in shares:
            total += share
        assert total == scores[index.slot(key)]


# ------------------------------------------------------------------ persistence


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    docs = zipf_corpus(2, 800)
    index = build(docs, min_delta=10**9)
    index.add("extra", ["t1", "brand-new"])
    index.remove("doc-3")
    index.save(tmp_path / "ix", meta={"tokenizer": "v1", "files": {"a": 1}})
    loaded = bm25.BM25Index.load(tmp_path / "ix")
    assert loaded.meta == {"tokenizer": "v1", "files": {"a": 1}}
    assert loaded.keys() == index.keys()
    assert (loaded.k1, loaded.b, loaded.epsilon) == (1.5, 0.75, 0.25)
    for query in (["t0", "t1"], ["brand-new", "t7", "t7"], ["nope"]):
        assert np.array_equal(loaded.scores(query), index.scores(query))
        assert loaded.top(query, 10) == index.top(query, 10)
    loaded.add("later", ["t2"])  # a loaded index keeps changing as usual
    loaded.remove("doc-4")
    docs.pop("doc-3")
    docs.pop("doc-4")
    docs |= {"extra": ["t1", "brand-new"], "later": ["t2"]}
    assert_parity(loaded, docs, ["t2", "t1", "brand-new"])


def test_save_writes_plain_files(tmp_path: Path) -> None:
    index = build({"a": ["tea"], "é": ["café"]})
    index.save(tmp_path)
    header = json.loads((tmp_path / bm25.HEADER_FILE).read_text(encoding="utf-8"))
    assert header["format"] == bm25.FORMAT and header["version"] == bm25.FORMAT_VERSION
    assert header["keys"] == ["a", "é"]
    with np.load(tmp_path / bm25.ARRAYS_FILE, allow_pickle=False) as arrays:
        assert sorted(arrays.files) == ["data", "indices", "indptr", "save_id"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bm25.json", "bm25.npz"]
    empty = bm25.BM25Index()
    empty.save(tmp_path / "empty")
    assert len(bm25.BM25Index.load(tmp_path / "empty")) == 0


def test_loading_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        bm25.BM25Index.load(tmp_path / "missing")


def _rewrite_header(folder: Path, **changes: object) -> None:
    path = folder / bm25.HEADER_FILE
    header = json.loads(path.read_text(encoding="utf-8"))
    header.update(changes)
    path.write_text(json.dumps(header), encoding="utf-8")


def _rewrite_arrays(folder: Path, **changes: np.ndarray) -> None:
    path = folder / bm25.ARRAYS_FILE
    with np.load(path, allow_pickle=False) as arrays:
        stored = {name: arrays[name] for name in arrays.files}
    stored.update(changes)
    with path.open("wb") as stream:
        np.savez(stream, **stored)


def _write_npy(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as stream:
        np.save(stream, array)


CORRUPTIONS = {
    "header not json": lambda f: (f / bm25.HEADER_FILE).write_text("{nope", encoding="utf-8"),
    "header not utf-8": lambda f: (f / bm25.HEADER_FILE).write_bytes(b"\xff\xfe\x00"),
    "header a list": lambda f: (f / bm25.HEADER_FILE).write_text("[]", encoding="utf-8"),
    "foreign format": lambda f: _rewrite_header(f, format="something-else"),
    "newer version": lambda f: _rewrite_header(f, version=bm25.FORMAT_VERSION + 1),
    "keys not strings": lambda f: _rewrite_header(f, keys=[1, 2, 3]),
    "too few keys": lambda f: _rewrite_header(f, keys=["a"]),
    "duplicate keys": lambda f: _rewrite_header(f, keys=["a", "a", "b"]),
    "counts differ": lambda f: _rewrite_header(f, documents=4),
    "vocabulary short": lambda f: _rewrite_header(f, vocabulary=["tea"]),
    "bad k1": lambda f: _rewrite_header(f, k1="fast"),
    "meta not an object": lambda f: _rewrite_header(f, meta=[1]),
    "arrays missing": lambda f: (f / bm25.ARRAYS_FILE).unlink(),
    "arrays truncated": lambda f: (f / bm25.ARRAYS_FILE).write_bytes(
        (f / bm25.ARRAYS_FILE).read_bytes()[:100]
    ),
    "arrays garbage": lambda f: (f / bm25.ARRAYS_FILE).write_bytes(b"garbage" * 10),
    "arrays a plain .npy": lambda f: _write_npy(f / bm25.ARRAYS_FILE, np.arange(3)),
    "arrays pickled": lambda f: _rewrite_arrays(f, data=np.array([object()], dtype=object)),
    "another save": lambda f: _rewrite_arrays(f, save_id=np.zeros(16, dtype=np.uint8)),
    "posting out of range": lambda f: _rewrite_arrays(f, indices=np.array([0, 1, 0, 1, 7])),
    "zero frequency": lambda f: _rewrite_arrays(f, data=np.array([1, 0, 1, 1, 1])),
    "rows out of order": lambda f: _rewrite_arrays(f, indices=np.array([1, 0, 0, 1, 2])),
    "float indices": lambda f: _rewrite_arrays(f, indices=np.array([0.0, 1.0, 0.0, 1.0, 2.0])),
    "postings count": lambda f: _rewrite_arrays(f, data=np.array([1, 1, 1, 1])),
    "bad indptr": lambda f: _rewrite_arrays(f, indptr=np.array([0, 3, 2, 4, 5])),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_a_corrupt_or_foreign_index_is_refused(tmp_path: Path, corruption: str) -> None:
    index = build({"a": ["tea", "cake"], "b": ["coffee", "tea"], "c": ["juice"]})
    index.save(tmp_path)
    bm25.BM25Index.load(tmp_path)  # fine before
    CORRUPTIONS[corruption](tmp_path)
    with pytest.raises(bm25.IndexFormatError):
        bm25.BM25Index.load(tmp_path)
