"""Encoders: texts in, L2-normalised float32 vectors out (one row per text).

Two backends, neither imported with this module (that takes seconds; it happens only when
an encoder is made):

- ``"onnx"`` (`OnnxEncoder`, the default when available): the sentence-transformers
  pipeline (transformer, pooling, normalisation) exported once to ONNX (`onnx_export`) and
  run by ONNX Runtime with the model's own fast tokenizer; it loads in under a second
  without importing torch. Beside the float32 model (cosine 0.9999999 to
  sentence-transformers on every text measured) the export derives a dynamic-int8 copy
  with the MatMuls quantisation hurts most kept in float32 (`int8_calibration`), used for
  bulk batches of texts of 8 tokens or more, one batch per core: about twice
  sentence-transformers' throughput at a cosine of at least 0.99 to its vectors. Queries,
  small batches and short texts run in float32.
- ``"torch"`` (`TorchEncoder`): plain sentence-transformers, the fallback when ONNX
  Runtime is missing or the export fails (`semantic.load_encoder` says so).

`read_export_meta()` reads an export folder's `export.json`, the format both sides share.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from vault_app.search import embedding_model

Progress = Callable[[int, int], None]
"""Called as `progress(done, total)` after each encoded batch."""
FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]

ONNX_BACKEND = "onnxruntime-fp32"
TORCH_BACKEND = "torch-fp32"
DEFAULT_BATCH_SIZE = 32
_TOKENS_PER_TEXT = 48  # a batch holds at most batch_size * this many tokens, padding included
BULK_MIN_BATCH = 16  # smaller batches run on the float32 model (see OnnxEncoder)
EXPORT_FORMAT = "vault-app-onnx-export"


class Encoder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def identity(self) -> str:
        """`embedding_model.model_identity()` of the vectors: the embedding cache's key."""
        ...

    @property
    def dimension(self) -> int: ...

    @property
    def backend(self) -> str: ...

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress | None = None,
    ) -> FloatMatrix:
        """Vectors of `texts`, shape (len(texts), dimension); `progress` after each batch."""
        ...


def query_vector(encoder: Encoder, text: str) -> FloatVector:
    """The vector of one search query: the encoder's `encode_query` where it has one
    (`OnnxEncoder`: on its int8 model), else its `encode`."""
    method = getattr(encoder, "encode_query", None)
    return method(text) if method is not None else encoder.encode([text])[0]


def normalised(vectors: npt.NDArray[Any]) -> FloatMatrix:
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def chunks(count: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, count, size):
        yield start, min(start + size, count)


def _token_batches(lengths: npt.NDArray[np.int64], size: int) -> Iterator[tuple[int, int]]:
    """Batches of at most `size` texts and about `size` * 48 tokens, padding included.

    `lengths` are sorted longest first, so a batch pads to its first text: a few long
    texts (a daily entry of 256 tokens) go in small batches instead of padding 31 facts.
    """
    budget = size * _TOKENS_PER_TEXT
    start, count = 0, int(lengths.size)
    while start < count:
        stop = min(count, start + max(1, min(size, budget // max(int(lengths[start]), 1))))
        yield start, stop
        start = stop


class TorchEncoder:
    """Plain sentence-transformers on torch (CPU): the reference and the fallback."""

    def __init__(self, source: embedding_model.ModelSource, *, threads: int | None = None) -> None:
        self.source = source
        try:
            import sentence_transformers
            import torch
        except ImportError as error:
            raise embedding_model.SemanticUnavailable(
                f"sentence-transformers and torch are needed to run {source.label} "
                f"without ONNX Runtime ({error})"
            ) from error
        if threads:
            torch.set_num_threads(threads)
        _no_progress_bars()
        try:
            self.model = sentence_transformers.SentenceTransformer(
                str(source.path), device="cpu", local_files_only=True
            )
        except Exception as error:
            raise embedding_model.SemanticUnavailable(
                f"cannot load {source.label}: {error}"
            ) from error
        self.model.eval()
        dimension = self.model.get_embedding_dimension()
        if not dimension:
            raise embedding_model.SemanticUnavailable(
                f"{source.label} does not say its embedding dimension"
            )
        self._dimension = int(dimension)
        self._identity = embedding_model.model_identity(source, TORCH_BACKEND)

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def backend(self) -> str:
        return TORCH_BACKEND

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress | None = None,
    ) -> FloatMatrix:
        """sentence-transformers' `encode`, one call per batch so that progress is reported."""
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        # Longest first, as sentence-transformers does inside a call: less padding.
        order = np.argsort([-len(text) for text in texts], kind="stable")
        for start, stop in chunks(len(texts), batch_size):
            rows = order[start:stop]
            batch = [texts[row] for row in rows.tolist()]
            vectors = self.model.encode(
                batch,
                batch_size=batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
            out[rows] = vectors
            if progress is not None:
                progress(stop, len(texts))
        return normalised(out)


class OnnxEncoder:
    """An exported sentence-transformers model run by ONNX Runtime, with its fast tokenizer.

    `export_dir` is what `export_onnx()` wrote: `model.onnx` (the whole pipeline: token ids
    in, sentence embedding out), `tokenizer.json`, `export.json`, and, when the export
    derived one, `model.int8.onnx`. Texts are tokenised in chunks, sorted by token count
    so that a batch pads to almost nothing, and run in batches; the output is
    L2-normalised (again: cheap, and exact for any model).

    Bulk batches (at least `bulk_min_batch` texts, each at least `INT8_MIN_TOKENS` tokens
    long) run on the int8 model, one batch per core on a shared session. Smaller batches
    (a query, a changed fact) and short texts run on the float32 model, whose vectors are
    exact: dynamic int8 quantisation is least accurate on a few texts or a few tokens, and
    short texts cost little anyway. `int8=False` never uses the int8 model.
    """

    def __init__(
        self,
        export_dir: Path,
        *,
        threads: int | None = None,
        int8: bool = True,
    ) -> None:
        try:
            import onnxruntime
            import tokenizers
        except ImportError as error:
            raise embedding_model.SemanticUnavailable(
                f"onnxruntime and tokenizers are needed ({error})"
            ) from error
        self.export_dir = export_dir
        self.meta = read_export_meta(export_dir)
        self.threads = threads or _physical_cores()
        self._ort: Any = onnxruntime
        self.session = self._session("model.onnx", self.threads)
        recipe = self.meta.get("int8") if int8 else None
        self.int8: dict[str, Any] | None = recipe if isinstance(recipe, dict) else None
        self.bulk_min_batch = int(self.int8["bulk_min_batch"]) if self.int8 else BULK_MIN_BATCH
        self.int8_min_tokens = int(self.int8["min_tokens"]) if self.int8 else 0
        self._bulk: Any = None  # the session of bulk batches, made on first use
        self._query: Any = None  # the session of search queries (int8), made on first use
        self._bulk_lock = threading.Lock()
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self.tokenizer = tokenizers.Tokenizer.from_file(str(export_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(int(self.meta["max_seq_length"]))
        self.input_names: list[str] = list(self.meta["input_names"])
        self.pad_id = int(self.meta["pad_id"])
        self.pad_type_id = int(self.meta.get("pad_type_id", 0))
        self._dimension = int(self.meta["dimension"])
        source = embedding_model.ModelSource(
            str(self.meta["model"]), export_dir, str(self.meta["fingerprint"])
        )
        self._identity = embedding_model.model_identity(source, self.backend)

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def backend(self) -> str:
        """`onnxruntime-fp32`, or `onnxruntime-int8-<recipe hash>` with the int8 model."""
        if self.int8 is None:
            return ONNX_BACKEND
        recipe = json.dumps(
            [self.int8["excluded"], self.int8["bulk_min_batch"], self.int8["min_tokens"]]
        )
        return f"onnxruntime-int8-{hashlib.sha256(recipe.encode()).hexdigest()[:8]}"

    def tokenize(self, texts: Sequence[str]) -> list[Any]:
        """The tokenizer's encodings of `texts` (unpadded, truncated like the model's)."""
        return list(self.tokenizer.encode_batch(list(texts)))

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = DEFAULT_BATCH_SIZE,
        progress: Progress | None = None,
    ) -> FloatMatrix:
        """Vectors of `texts`: tokenise a chunk, sort it by length, run it in batches."""
        total = len(texts)
        out = np.empty((total, self._dimension), dtype=np.float32)
        if total == 0:
            return out
        done = 0
        pending: collections.deque[tuple[npt.NDArray[np.int64], Any]] = collections.deque()

        def finish(rows: npt.NDArray[np.int64], vectors: npt.NDArray[Any]) -> None:
            nonlocal done
            out[rows] = vectors
            done += rows.size
            if progress is not None:
                progress(done, total)

        # Longest first over all texts (by characters), then exactly by tokens per chunk.
        order = np.argsort([-len(text) for text in texts], kind="stable")
        for start, stop in chunks(total, max(batch_size * 64, 1)):
            rows = order[start:stop]
            encodings = self.tokenize([texts[row] for row in rows.tolist()])
            lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64)
            by_length = np.argsort(-lengths, kind="stable")
            n_long = by_length.size - int(np.count_nonzero(lengths < self.int8_min_tokens))
            long_part, short_part = by_length[:n_long], by_length[n_long:]
            for part, bulk in ((long_part, True), (short_part, False)):
                for b_start, b_stop in _token_batches(lengths[part], batch_size):
                    picked = part[b_start:b_stop]
                    feeds = self.feeds([encodings[i] for i in picked.tolist()])
                    if not bulk or picked.size < self.bulk_min_batch:
                        finish(rows[picked], self._run(self.session, feeds))
                        continue
                    pending.append((rows[picked], self._submit(feeds)))
                    while len(pending) > 2 * self.threads:
                        done_rows, future = pending.popleft()
                        finish(done_rows, future.result())
        while pending:
            done_rows, future = pending.popleft()
            finish(done_rows, future.result())
        return normalised(out)

    def encode_query(self, text: str) -> FloatVector:
        """The vector of one search query: on the int8 model when the export has one.

        A query is a handful of tokens, so its cost is reading the model's weights, not
        computing: the int8 model's quarter-size weights stay in the cache, 2.4 ms a query
        instead of 4.3 (cosine 0.996 to the float32 vector). The evaluation set ranks the
        same (hybrid MRR 0.741 against 0.733 with float32 queries, hit@5 and hit@10 equal;
        semantic MRR 0.699 against 0.700). Stored texts keep the recipe above.

        On one thread: a query's few tokens do not split well (measured: 1.81 ms of wall
        and CPU on one thread, 1.90 ms of wall and 2.61 ms of CPU on two), and a server's
        queries run side by side on the cores anyway."""
        if self.int8 is None:
            return self.encode([text])[0]
        with self._bulk_lock:
            if self._query is None:
                self._query = self._session(str(self.int8["file"]), 1)
            session = self._query
        return normalised(self._run(session, self.feeds(self.tokenize([text]))))[0]

    def feeds(self, encodings: Sequence[Any]) -> dict[str, npt.NDArray[np.int64]]:
        """The model's inputs for a batch of encodings, padded to the longest."""
        count = len(encodings)
        width = max(len(encoding.ids) for encoding in encodings)
        ids = np.full((count, width), self.pad_id, dtype=np.int64)
        mask = np.zeros((count, width), dtype=np.int64)
        types = np.full((count, width), self.pad_type_id, dtype=np.int64)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = encoding.ids
            mask[row, :n] = 1
            types[row, :n] = encoding.type_ids
        available = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {name: available[name] for name in self.input_names}

    def close(self) -> None:
        """Stop the worker threads (they stop by themselves at exit too)."""
        with self._bulk_lock:
            if self._pool is not None:
                self._pool.shutdown()
                self._pool = None

    def _session(self, name: str, threads: int) -> Any:
        options = self._ort.SessionOptions()
        options.graph_optimization_level = self._ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        # Idle threads sleep instead of spinning: a query's threads would otherwise keep
        # the cores busy while numpy scores the matrix right after.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return self._ort.InferenceSession(
            str(self.export_dir / name), options, providers=["CPUExecutionProvider"]
        )

    @staticmethod
    def _run(session: Any, feeds: Mapping[str, npt.NDArray[np.int64]]) -> FloatMatrix:
        (vectors,) = session.run(["sentence_embedding"], dict(feeds))
        return np.asarray(vectors, dtype=np.float32)

    def _submit(self, feeds: Mapping[str, npt.NDArray[np.int64]]) -> Any:
        """Run a bulk batch on a worker: one single-threaded run per core, one session."""
        with self._bulk_lock:
            if self._pool is None:
                name = str(self.int8["file"]) if self.int8 else "model.onnx"
                self._bulk = self._session(name, 1)
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self.threads, thread_name_prefix="vault-app-encoder"
                )
            pool = self._pool
        return pool.submit(self._run, self._bulk, feeds)


def _physical_cores() -> int:
    count = os.cpu_count() or 1
    with contextlib.suppress(AttributeError, OSError):
        count = len(os.sched_getaffinity(0))
    return max(1, count)


def _no_progress_bars() -> None:
    """No "Loading weights" bar from transformers on stderr: a switch of transformers'
    own, for the whole process (it has no other); warnings are left alone."""
    if "transformers" in sys.modules:
        with contextlib.suppress(Exception):
            sys.modules["transformers"].utils.logging.disable_progress_bar()


def read_export_meta(export_dir: Path) -> dict[str, Any]:
    try:
        meta = json.loads((export_dir / "export.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise embedding_model.ExportError(f"unreadable export in {export_dir}: {error}") from error
    if not isinstance(meta, dict) or meta.get("format") != EXPORT_FORMAT:
        raise embedding_model.ExportError(f"{export_dir} is not an ONNX export of vault-app")
    for name in ("model.onnx", "tokenizer.json"):
        if not (export_dir / name).is_file():
            raise embedding_model.ExportError(f"{export_dir} has no {name}")
    return meta
