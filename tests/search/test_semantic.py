"""Semantic search on the real model: encoders, the ONNX export, the embedding cache, the index."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vault_app.search import (
    documents,
    embedding_cache,
    embedding_model,
    encoders,
    int8_calibration,
    semantic,
    vector_rows,
)

pytestmark = pytest.mark.skipif(
    not semantic.semantic_available(backend="onnx")[0]
    or importlib.util.find_spec("sentence_transformers") is None,
    reason="the semantic extra is not installed",
)

FACTS = {
    "plumber": "Marco Ruiz of Ruiz Plumbing repairs the leaking pipes and the water heater.",
    "dentist": "Mia's next dentist appointment is on 12 March with Dr. Patel.",
    "flight": "Alex booked the morning flight to Lisbon, aisle seat 14C.",
    "budget": "The household budget moves $400 a month into the emergency fund.",
    "dog": "Biscuit the beagle takes his heartworm pill on the first of each month.",
    "roof": "Summit Roofing will replace the asphalt shingle roof after the storm.",
    "router": "The Wi-Fi router password was rotated after the firmware update.",
    "garden": "Tomatoes in the backyard garden need watering twice a day in July.",
}
TEXTS = [
    *FACTS.values(),
    "Jordan is allergic to shellfish and carries an EpiPen in the blue backpack.",
    "Quarterly estimated taxes are due in April, June, September and January.",
    "The contractor's license number is CSLB 1048832 and expires in 2027.",
    "Sofia confirmed the tile delivery slipped three days, so demolition moves.",
    "Noah's school bus leaves at 07:12 from the corner of Elm Street and 3rd.",
    "The electrician said the panel needs an upgrade to 200 A for an EV charger.",
    "Flight UA 1532 departs SFO at 06:45, confirmation code K7XQ2P.",
    "Emma is now a product designer at Fieldstone Labs after switching jobs.",
    "The basement smells damp after rain; the dehumidifier is set to 50%.",
    "Greg lent us his ladder and wants it back before the end of the month.",
    "Weekly groceries from FreshCart arrive on Saturday mornings between 9 and 11.",
    "The mortgage rate is fixed at 3.1% until 2029, then it adjusts every year.",
    "By is paid colleague glidinere the studio and has of qune in orcla at the qusinapro.",
    "Fareve the darribri the and will by elclabritu which from the mondarkapro office.",
    "Invoice #2024-117 from Summit Roofing is paid; the warranty covers 15 years.",
    "Call the pharmacy to refill the blood pressure prescription before Friday.",
    "La réunion avec le notaire est prévue jeudi à 14 h à Lyon, avec Claire.",
    "who fixes our pipes",
    "dentist",
    "ok",
    "cheapest flight to Lisbon in May",
    " ".join(["The boiler was serviced before the winter storm hit Millbrook."] * 40),
]


class FiltersWatch:
    """The warnings filters before, during (every distinct list a thread sampling them
    every millisecond saw) and after a block of code."""

    def __init__(self) -> None:
        self.before = list(warnings.filters)
        self.during: list[list[Any]] = []
        self.after: list[Any] | None = None


@contextlib.contextmanager
def watching_warnings_filters() -> Iterator[FiltersWatch]:
    watch = FiltersWatch()
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.001):
            now = list(warnings.filters)
            if now not in watch.during:
                watch.during.append(now)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield watch
    finally:
        done.set()
        sampler.join()
        watch.after = list(warnings.filters)


EXPORT_FILTERS: list[FiltersWatch] = []  # the export's, watched by `export_notices`


@pytest.fixture(scope="module")
def export_notices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    """The default model exported once, with every network connection refused meanwhile."""
    cache_dir = tmp_path_factory.mktemp("models")
    notices: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("no network in this test")

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        patch.setattr(socket.socket, "connect", refuse)
        with watching_warnings_filters() as watch:
            semantic.load_encoder(cache_dir=cache_dir, backend="onnx", notice=notices.append)
        EXPORT_FILTERS.append(watch)
    yield cache_dir, notices


@pytest.fixture(scope="module")
def encoder(export_notices: tuple[Path, list[str]]) -> encoders.Encoder:
    return semantic.load_encoder(cache_dir=export_notices[0], backend="onnx")


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """Plain sentence-transformers' vectors of TEXTS."""
    plain = encoders.TorchEncoder(embedding_model.resolve_model())
    return plain.encode(TEXTS)


class Counting:
    """An encoder that counts the texts it is asked to encode (wraps a real one)."""

    def __init__(self, inner: encoders.Encoder, identity: str | None = None) -> None:
        self.inner = inner
        self.calls: list[list[str]] = []
        self._identity = identity or inner.identity

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def backend(self) -> str:
        return self.inner.backend

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = 32,
        progress: Callable[[int, int], None] | None = None,
    ) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.encode(texts, batch_size, progress)

    @property
    def encoded(self) -> int:
        return sum(len(call) for call in self.calls)


# ------------------------------------------------------------------- encoders


def test_importing_the_module_loads_no_ml_package() -> None:
    code = (
        "import sys, vault_app.search.semantic as s\n"
        "heavy = {'torch', 'sentence_transformers', 'onnxruntime', 'transformers', 'PySide6'}\n"
        "assert not heavy & set(sys.modules), heavy & set(sys.modules)\n"
        "print(s.semantic_available()[0])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_export_runs_offline_once_then_is_reused(
    export_notices: tuple[Path, list[str]],
) -> None:
    cache_dir, notices = export_notices
    assert len(notices) == 1 and "exporting" in notices[0]
    (export_dir,) = [p for p in cache_dir.iterdir() if p.is_dir()]
    meta = json.loads((export_dir / "export.json").read_text())
    assert meta["fingerprint"] == embedding_model.resolve_model().fingerprint
    assert meta["int8"]["calibration_min_cosine"] >= int8_calibration.INT8_MIN_COSINE
    again: list[str] = []
    encoder = semantic.load_encoder(cache_dir=cache_dir, notice=again.append)
    assert again == []
    assert encoder.backend.startswith("onnxruntime-int8-")
    ok, reason = semantic.semantic_available(cache_dir=cache_dir)
    assert ok and reason.endswith("on ONNX Runtime")


def test_the_export_leaves_the_warnings_filters_alone(
    export_notices: tuple[Path, list[str]],
) -> None:
    """torch's exporter warns as it works (a deprecated exporter, tracer warnings): the
    export runs in a child process, and this one's filters stay as they were throughout,
    not only after (other threads, a window or a test run, rely on them meanwhile)."""
    (watch,) = EXPORT_FILTERS
    assert watch.during == [watch.before]
    assert watch.after == watch.before


def test_the_torch_encoder_leaves_the_warnings_filters_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Loading and running plain sentence-transformers sets no warnings filter, not even
    for the time of a call (a filter set then is every thread's)."""
    import sentence_transformers

    model_class = sentence_transformers.SentenceTransformer
    seen: list[list[Any]] = []
    real_init, real_encode = model_class.__init__, model_class.encode

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        seen.append(list(warnings.filters))
        real_init(self, *args, **kwargs)

    def encode(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(list(warnings.filters))
        return real_encode(self, *args, **kwargs)

    monkeypatch.setattr(model_class, "__init__", init)
    monkeypatch.setattr(model_class, "encode", encode)
    before = list(warnings.filters)
    encoder = encoders.TorchEncoder(embedding_model.resolve_model())
    assert encoder.encode(TEXTS[:3]).shape == (3, encoder.dimension)
    assert len(seen) == 2 and all(filters == before for filters in seen)
    assert list(warnings.filters) == before


def test_vectors_are_normalised_and_agree_with_sentence_transformers(
    encoder: encoders.Encoder, reference: np.ndarray, export_notices: tuple[Path, list[str]]
) -> None:
    np.testing.assert_allclose(np.linalg.norm(reference, axis=1), 1.0, atol=1e-5)
    exact = semantic.load_encoder(cache_dir=export_notices[0], backend="onnx", int8=False)
    for candidate, batch_size, floor in (
        (encoder, 32, 0.99),
        (encoder, 1, 0.9999),
        (exact, 8, 0.9999),
    ):
        vectors = candidate.encode(TEXTS, batch_size=batch_size)
        assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), 384)
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        cosine = (vectors * reference).sum(axis=1)
        assert cosine.min() >= floor, (candidate.backend, batch_size, cosine.min())
    assert exact.identity != encoder.identity  # float32 and int8 vectors never mix
    assert encoder.encode([]).shape == (0, 384)


def test_queries_run_on_the_int8_model_close_to_float32(
    encoder: encoders.Encoder, reference: np.ndarray, export_notices: tuple[Path, list[str]]
) -> None:
    """A search query is encoded by the int8 model (its weights stay in the cache), within
    a cosine of 0.98 of sentence-transformers; without int8 it is `encode`'s own vector."""
    assert isinstance(encoder, encoders.OnnxEncoder) and encoder.int8 is not None
    queries = [*TEXTS[:6], "plumber", "who fixed the boiler last winter?"]
    exact = semantic.load_encoder(cache_dir=export_notices[0], backend="onnx", int8=False)
    for text, ref in zip(queries, [*reference[:6], *exact.encode(queries[6:])], strict=True):
        vector = encoders.query_vector(encoder, text)
        assert vector.dtype == np.float32 and abs(float(np.linalg.norm(vector)) - 1) < 1e-5
        assert float(vector @ ref) >= 0.98, text
        assert float(vector @ encoder.encode([text])[0]) < 1 - 1e-7  # not the float32 run
        np.testing.assert_array_equal(encoders.query_vector(exact, text), exact.encode([text])[0])
    assert encoder._query is not None and exact._query is None
    # one thread a query, whatever the cores: queries run side by side in a server
    assert encoder._query.get_session_options().intra_op_num_threads == 1


def test_progress_is_reported_per_batch_with_increasing_counts(
    encoder: encoders.Encoder,
) -> None:
    seen: list[tuple[int, int]] = []
    encoder.encode(TEXTS, batch_size=4, progress=lambda done, total: seen.append((done, total)))
    assert len(seen) >= -(-len(TEXTS) // 4)  # batches of at most 4 (fewer when long)
    counts = [done for done, _ in seen]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert seen[-1] == (len(TEXTS), len(TEXTS))
    assert all(total == len(TEXTS) for _, total in seen)


def test_a_missing_model_is_a_clear_unavailability_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(embedding_model.SemanticUnavailable, match="does not exist"):
        semantic.load_encoder(missing)
    ok, reason = semantic.semantic_available(missing)
    assert not ok and "does not exist" in reason
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(embedding_model.SemanticUnavailable, match="nothing is downloaded"):
        embedding_model.resolve_model("someone/not-cached-model")


def test_without_the_packages_search_falls_back_with_a_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    hidden = {"torch", "sentence_transformers", "onnxruntime"}

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name in hidden else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    ok, reason = semantic.semantic_available()
    assert not ok and "BM25" in reason


def test_without_onnxruntime_auto_falls_back_to_torch_with_a_notice(
    monkeypatch: pytest.MonkeyPatch, reference: np.ndarray
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "onnxruntime" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    notices: list[str] = []
    encoder = semantic.load_encoder(notice=notices.append)
    assert encoder.backend == encoders.TORCH_BACKEND
    assert len(notices) == 1 and "sentence-transformers" in notices[0]
    with pytest.raises(embedding_model.SemanticUnavailable):
        semantic.load_encoder(backend="onnx")
    vectors = encoder.encode(TEXTS[:3])
    assert np.allclose(vectors, reference[:3], atol=1e-5)


def test_the_identity_names_model_files_and_backend(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 4}')
    (folder / "README.md").write_text("about")
    first = embedding_model.model_fingerprint(folder)
    (folder / "README.md").write_text("about it, at length")
    assert embedding_model.model_fingerprint(folder) == first  # docs do not change vectors
    (folder / "config.json").write_text('{"hidden_size": 16}')
    second = embedding_model.model_fingerprint(folder)
    assert second != first
    source = embedding_model.ModelSource("m", folder, second)
    identities = {
        embedding_model.model_identity(source, encoders.TORCH_BACKEND),
        embedding_model.model_identity(source, encoders.ONNX_BACKEND),
        embedding_model.model_identity(
            embedding_model.ModelSource("m", folder, first), encoders.TORCH_BACKEND
        ),
    }
    assert len(identities) == 3


# ------------------------------------------------------------------- the cache


def test_cache_encodes_each_text_once_and_reopens_without_encoding(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb")
    first = cache.get_or_encode(TEXTS + TEXTS[:3], counting)
    assert counting.encoded == len(TEXTS)  # duplicates encoded once
    assert np.array_equal(first[: len(TEXTS)][:3], first[len(TEXTS) :])
    again = cache.get_or_encode(TEXTS, counting)
    assert counting.encoded == len(TEXTS)
    assert np.array_equal(again, first[: len(TEXTS)])
    reopened = embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS, counting)
    assert counting.encoded == len(TEXTS)
    assert np.array_equal(reopened, again)
    exact = (encoder.encode(TEXTS) * reopened).sum(axis=1)
    assert exact.min() > 0.9999  # float16 on disk


def test_a_changed_text_re_encodes_only_itself(encoder: encoders.Encoder, tmp_path: Path) -> None:
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb")
    cache.get_or_encode(TEXTS, counting)
    changed = list(TEXTS)
    changed[3] = "The household budget now moves $500 a month into the emergency fund."
    progress: list[tuple[int, int]] = []
    cache.get_or_encode(changed, counting, lambda d, t: progress.append((d, t)))
    assert counting.calls[-1] == [changed[3]]
    assert progress == [(1, 1)]


def test_vectors_go_straight_into_a_given_matrix(encoder: encoders.Encoder, tmp_path: Path) -> None:
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb")
    expected = cache.get_or_encode(TEXTS, counting)
    reopened = embedding_cache.EmbeddingCache(tmp_path / "emb")
    assert reopened.preload(counting) == len(TEXTS)
    out = np.full((len(TEXTS), encoder.dimension), np.nan, dtype=np.float32)
    assert reopened.get_or_encode(TEXTS, counting, out=out) is out
    assert np.array_equal(out, expected) and counting.encoded == len(TEXTS)
    # after the first shard was adopted as read, new texts still append and persist
    more = reopened.get_or_encode([*TEXTS[:2], "A brand new fact about the boiler."], counting)
    assert counting.encoded == len(TEXTS) + 1
    assert np.array_equal(more[:2], expected[:2])
    assert embedding_cache.EmbeddingCache(tmp_path / "emb").preload(counting) == len(TEXTS) + 1
    with pytest.raises(ValueError, match="out must be float32"):
        reopened.get_or_encode(TEXTS, counting, out=np.zeros((2, encoder.dimension), np.float32))


def test_held_gives_what_the_cache_holds_and_encodes_nothing(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb")
    expected = cache.get_or_encode(TEXTS, counting)
    keys = documents.text_keys([TEXTS[2], "a text nobody encoded", TEXTS[0]])
    found, vectors = cache.held(keys, counting)
    assert found.tolist() == [True, False, True] and counting.encoded == len(TEXTS)
    assert np.array_equal(vectors[0], expected[2]) and np.array_equal(vectors[2], expected[0])
    assert not vectors[1].any()
    # a cache that has not loaded its store holds nothing yet (rows are put through
    # get_or_encode, which loads it)
    fresh = embedding_cache.EmbeddingCache(tmp_path / "emb")
    assert not fresh.held(keys, counting)[0].any()


@pytest.mark.skipif(os.name != "posix", reason="a deleted file stays readable on POSIX only")
def test_held_reads_through_the_shard_files_it_keeps_open(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    """A query's re-score opens each shard once: a shard merged away (deleted) by another
    process meanwhile still reads, and the file is closed once its rows are dropped."""
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb")
    expected = cache.get_or_encode(TEXTS, counting)
    keys = documents.text_keys([TEXTS[3], TEXTS[1]])
    assert np.array_equal(cache.held(keys, counting)[1], expected[[3, 1]])
    (segment,) = cache._stores[counting.identity].segments
    descriptor = segment.descriptor
    assert descriptor is not None
    for shard in (tmp_path / "emb").rglob("*.vec.npy"):
        shard.unlink()
    assert np.array_equal(cache.held(keys, counting)[1], expected[[3, 1]])
    del cache, segment  # the segment's file goes with it
    with pytest.raises(OSError):
        os.fstat(descriptor)


def test_rows_put_in_order_or_scattered_hold_the_same_vectors(
    encoder: encoders.Encoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = list(FACTS)
    texts = [FACTS[k] for k in keys]
    embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(texts, encoder)
    in_order = vector_rows.VectorRows(encoder, embedding_cache.EmbeddingCache(tmp_path / "emb"))
    in_order.preload()  # room made, memory touched, nothing valid yet
    assert in_order.codes.shape[1] >= len(keys) and not in_order.valid.any()
    in_order.put(range(len(keys)), texts)
    scattered = vector_rows.VectorRows(encoder, embedding_cache.EmbeddingCache(tmp_path / "emb"))
    order = list(reversed(range(len(keys))))
    monkeypatch.setattr(vector_rows, "FILL_ROWS", 3)  # read from the cache 3 rows at a time
    scattered.put(order, [texts[i] for i in order])
    n = len(keys)
    assert np.array_equal(in_order.codes[:, :n], scattered.codes[:, :n])
    assert np.array_equal(in_order.scale[:n], scattered.scale[:n])
    assert in_order.valid[:n].all() and scattered.valid[:n].all()
    assert in_order.top("who fixes our pipes", 1, np.ones(n, bool))[0][0] == keys.index("plumber")


def test_vectors_are_read_from_the_shards_as_they_were_encoded(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    """The cache keeps only keys in memory and reads vectors from its shards: row by row
    for a few, block by block for many, over several shards; each is what was encoded
    (rounded to float16), whichever way it is read."""
    texts = [
        f"Fact number {i} about the {('boiler', 'garden', 'roof')[i % 3]}." for i in range(600)
    ]
    counting = Counting(encoder)
    first = embedding_cache.EmbeddingCache(tmp_path / "emb")
    expected = first.get_or_encode(texts[:400], counting)
    expected = np.vstack([expected, first.get_or_encode(texts[400:], counting)])
    assert counting.encoded == 600
    reopened = embedding_cache.EmbeddingCache(tmp_path / "emb")
    assert reopened.preload(counting) == 600 and len(reopened) == 600
    order = np.random.default_rng(5).permutation(600)
    many = reopened.get_or_encode([texts[i] for i in order], counting)  # blocks, 2 shards
    assert np.array_equal(many, expected[order])
    few = reopened.get_or_encode([texts[599], texts[3], texts[3]], counting)  # row by row
    assert np.array_equal(few, expected[[599, 3, 3]])
    assert counting.encoded == 600
    direct = encoder.encode(texts[:400])  # the same call as the cache's first: same batches
    assert (direct * expected[:400]).sum(axis=1).min() > 0.9999  # float16 on disk


def test_the_model_hash_is_remembered_between_processes(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 4}')
    memo = embedding_model.default_cache_dir() / "fingerprints.json"
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text("{}")
    first = embedding_model.model_fingerprint(folder)
    remembered = json.loads(memo.read_text())
    assert list(remembered.values()) == [first]
    # what a new process sees: no memory of its own, only the file (here made to differ,
    # to prove it is what answers)
    embedding_model._fingerprint.cache_clear()
    key = next(k for k, v in remembered.items() if v == first)
    memo.write_text(json.dumps({**remembered, key: "0" * 64}))
    assert embedding_model.model_fingerprint(folder) == "0" * 64
    embedding_model._fingerprint.cache_clear()
    (folder / "config.json").write_text('{"hidden_size": 16}')  # new size: hashed again
    assert embedding_model.model_fingerprint(folder) not in (first, "0" * 64)


def test_another_identity_never_reuses_vectors(encoder: encoders.Encoder, tmp_path: Path) -> None:
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb")
    cache.get_or_encode(TEXTS, Counting(encoder))
    other = Counting(encoder, identity=encoder.identity.replace("onnxruntime", "other"))
    cache.get_or_encode(TEXTS, other)
    assert other.encoded == len(TEXTS)
    assert len([p for p in (tmp_path / "emb").iterdir() if p.is_dir()]) == 2


def test_a_corrupt_or_pickled_cache_is_rebuilt_with_a_notice(
    encoder: encoders.Encoder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    counting = Counting(encoder)
    embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS, counting)
    folder = embedding_cache.EmbeddingCache(tmp_path / "emb").identity_dir(encoder.identity)
    (vec,) = folder.glob("*.vec.npy")
    vec.write_bytes(vec.read_bytes()[:1000])  # truncated
    with caplog.at_level(logging.WARNING):
        rebuilt = embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS, counting)
    assert counting.encoded == 2 * len(TEXTS)
    assert "unreadable" in caplog.text
    assert (rebuilt * encoder.encode(TEXTS)).sum(axis=1).min() > 0.9999
    # a shard holding pickled objects is refused, never unpickled
    (key,) = folder.glob("*.key.npy")
    np.save(key, np.array([object()] * len(TEXTS), dtype=object), allow_pickle=True)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS, counting)
    assert counting.encoded == 3 * len(TEXTS)
    assert "unreadable" in caplog.text
    # a foreign identity.json empties the folder
    (folder / "identity.json").write_text('{"format": "something else"}')
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS, counting)
    assert counting.encoded == 4 * len(TEXTS)
    assert "emptied" in caplog.text
    files = {p.suffix for p in folder.iterdir() if p.is_file()} - {""}
    assert files <= {".npy", ".json", ".lock"}


def test_shards_are_appended_then_merged_and_compacted(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb", max_shards=3)
    folder = cache.identity_dir(encoder.identity)
    for text in TEXTS[:6]:
        cache.get_or_encode([text], counting)
        assert len(list(folder.glob("*.key.npy"))) <= 3
    assert counting.encoded == 6
    vectors = cache.get_or_encode(TEXTS[:6], counting)
    assert counting.encoded == 6
    reopened = embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS[:6], counting)
    assert counting.encoded == 6 and np.array_equal(reopened, vectors)
    cache.compact(encoder.identity, keep=TEXTS[:2])
    (key,) = folder.glob("*.key.npy")
    assert np.load(key, allow_pickle=False).shape == (2,)
    assert np.load(str(key).replace(".key.", ".vec."), allow_pickle=False).dtype == np.float16
    fresh = embedding_cache.EmbeddingCache(tmp_path / "emb")
    fresh.get_or_encode(TEXTS[:3], counting)
    assert counting.calls[-1] == [TEXTS[2]]


def test_a_merge_reads_and_writes_its_shards_block_by_block(
    encoder: encoders.Encoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge streams its rows (blocks of two here, so every shard spans several) and
    gives back every vector as it was, with `keep` only those asked for; a shard that
    turns out corrupt is left out of it (deleted: its texts are encoded again)."""
    monkeypatch.setattr(embedding_cache, "_BLOCK_ROWS", 2)
    counting = Counting(encoder)
    cache = embedding_cache.EmbeddingCache(tmp_path / "emb", max_shards=100)
    folder = cache.identity_dir(encoder.identity)
    for part in (TEXTS[:5], TEXTS[5:6], TEXTS[6:9]):
        cache.get_or_encode(part, counting)
    before = cache.get_or_encode(TEXTS[:9], counting)
    assert counting.encoded == 9 and len(list(folder.glob("*.key.npy"))) == 3
    cache.compact(encoder.identity)
    (key,) = folder.glob("*.key.npy")
    merged = np.load(str(key).replace(".key.", ".vec."), allow_pickle=False)
    assert merged.shape == (9, encoder.dimension) and merged.dtype == np.float16
    reopened = embedding_cache.EmbeddingCache(tmp_path / "emb").get_or_encode(TEXTS[:9], counting)
    assert counting.encoded == 9 and np.array_equal(reopened, before)
    cache.get_or_encode(TEXTS[9:10], counting)
    (newest,) = (k for k in folder.glob("*.key.npy") if k != key)
    vec = Path(str(newest).replace(".key.", ".vec."))
    vec.write_bytes(vec.read_bytes()[:-4])  # truncated: its last row is short
    cache.compact(encoder.identity, keep=[TEXTS[1], TEXTS[7], TEXTS[9]])
    (key,) = folder.glob("*.key.npy")
    assert np.load(key, allow_pickle=False).shape == (2,)  # TEXTS[9]'s shard was dropped
    fresh = embedding_cache.EmbeddingCache(tmp_path / "emb")
    again = fresh.get_or_encode([TEXTS[1], TEXTS[7], TEXTS[9]], counting)
    assert counting.calls[-1] == [TEXTS[9]]
    assert np.array_equal(again[:2], before[[1, 7]])


# -------------------------------------------------------------------- the index


def fact_rows(encoder: encoders.Encoder, folder: Path) -> tuple[vector_rows.VectorRows, list[str]]:
    """Rows holding FACTS in their order (cached in `folder`), and FACTS' keys."""
    rows = vector_rows.VectorRows(encoder, embedding_cache.EmbeddingCache(folder))
    keys = list(FACTS)
    rows.put(range(len(keys)), [FACTS[k] for k in keys])
    return rows, keys


def test_rows_find_the_plumber_for_who_fixes_our_pipes(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    rows, keys = fact_rows(encoder, tmp_path / "emb")
    everything = np.ones(len(keys), dtype=bool)

    def top(query: str, k: int, allowed: np.ndarray = everything) -> list[tuple[str, float]]:
        return [(keys[r], score) for r, score in rows.top(query, k, allowed)]

    hits = top("who fixes our pipes", 3)
    assert hits[0][0] == "plumber" and len(hits) == 3
    assert hits[0][1] > hits[1][1] > hits[2][1]
    assert top("when is the next visit to the dentist", 1)[0][0] == "dentist"
    some = np.array([k in ("garden", "router") for k in keys])
    assert {key for key, _ in top("water the plants", 5, some)} == {"garden", "router"}
    rows.drop([keys.index("plumber")])
    assert "plumber" not in {key for key, _ in top("who fixes our pipes", 10)}
    rows.put([keys.index("plumber")], [FACTS["plumber"]])
    assert top("who fixes our pipes", 1)[0][0] == "plumber"


def test_rows_top_k_matches_brute_force_through_drops_and_growth() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((5000, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = vector_rows.VectorRows(dimension=16)
    rows.put_vectors(range(5000), vectors)  # grows from 1,024 rows
    dropped = set(rng.choice(5000, 1500, replace=False).tolist())
    rows.drop(sorted(dropped))
    live = [i for i in range(5000) if i not in dropped]
    query = vectors[0]
    everything = np.ones(5000, dtype=bool)
    # the ranking of the vectors as held (int8 codes, re-scored without the query's
    # rounding: these rows did not come from an embedding cache)
    held = rows.vectors(range(5000)) @ query
    expected = [live[i] for i in np.argsort(-held[live], kind="stable")[:10]]
    assert [r for r, _ in rows.top(query, 10, everything)] == expected
    allowed = np.zeros(5000, dtype=bool)
    chosen = rng.choice(live, 50, replace=False)
    allowed[chosen] = True
    few = sorted(((int(r), float(held[r])) for r in chosen), key=lambda h: (-h[1], h[0]))
    assert [r for r, _ in rows.top(query, 5, allowed)] == [r for r, _ in few[:5]]
    assert rows.top(query, 0, everything) == []
    assert len(rows.top(query, 10_000, everything)) == len(live)
    with pytest.raises(ValueError, match="encoder"):
        rows.top("a text needs an encoder", 3, everything)


def test_no_pickle_anywhere_in_the_search_package() -> None:
    assert os.path.basename(semantic.__file__) == "semantic.py"
    modules = sorted(Path(semantic.__file__).parent.glob("*.py"))
    assert {"embedding_cache.py", "vector_rows.py", "onnx_export.py"} <= {m.name for m in modules}
    for module in modules:
        source = module.read_text()
        assert "allow_pickle=True" not in source and "import pickle" not in source, module.name


def test_the_last_query_scores_are_reused_until_a_row_changes(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    rows, keys = fact_rows(encoder, tmp_path / "emb")
    first = rows.scores("who fixes our pipes", len(keys))
    assert rows.scores("who fixes our pipes", len(keys)) is first  # a hybrid query's 2nd ask
    assert rows.scores("the dentist", len(keys)) is not first
    again = rows.scores("who fixes our pipes", len(keys))
    rows.put([keys.index("plumber")], ["The garden hose is in the shed"])
    changed = rows.scores("who fixes our pipes", len(keys))
    assert changed is not again
    assert changed[keys.index("plumber")] < again[keys.index("plumber")]


def test_queries_prepared_outside_the_lock_find_their_scores_ready(
    encoder: encoders.Encoder, tmp_path: Path
) -> None:
    """`prepare` encodes and scores a query before the engine's lock (on every core at
    once); the query then finds its scores ready, equal to its own product's. A product
    that ran while the rows changed is thrown away, and the query is scored again."""
    rows = vector_rows.VectorRows(encoder, embedding_cache.EmbeddingCache(tmp_path / "emb"))
    rows.put(range(len(TEXTS)), TEXTS)
    n = len(TEXTS)
    queries = ["who fixes the pipes", "the roof quote", "dentist appointment"]
    alone = {q: rows.scores(encoders.query_vector(encoder, q), n) for q in queries}
    threads = [threading.Thread(target=rows.prepare, args=(q,)) for q in queries]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(rows._scored) == set(queries) and set(rows._waiting) == set(queries)
    for query in queries:
        ready = rows._scored[query]
        scores = rows.scores(query, n)
        assert np.array_equal(scores, alone[query]) and np.shares_memory(scores, ready)
    assert not rows._scored and not rows._waiting
    rows.prepare("a quote")
    rows.put([0], [TEXTS[0]])  # a row changes: scores computed before are stale
    assert not rows._scored and set(rows._waiting) == {"a quote"}  # the vector still waits
    with rows._changing():  # scoring while rows change keeps nothing
        rows.prepare("the plumber")
    assert "the plumber" not in rows._scored
    assert np.array_equal(
        rows.scores("the plumber", n), rows.scores(encoders.query_vector(encoder, "the plumber"), n)
    )
