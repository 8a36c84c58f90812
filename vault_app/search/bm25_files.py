"""The BM25 index on disk: two plain files, written atomically and checked when read back.

`bm25.json` holds the format, version, parameters, keys, vocabulary and the caller's
metadata; `bm25.npz` the main segment's CSC arrays (read with `allow_pickle=False`). Both
carry a random save id, so that a half-written pair is refused. `BM25Index.save` and
`BM25Index.load` use `write` and `read`; what is read is checked (`_checked_segment`)
before the index trusts it: a corrupt, foreign or other-version index is an
`IndexFormatError`, never a crash or a wrong score.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import scipy.sparse as sp

from vault_app.core import errors, safe_fs

FORMAT = "vault-app-bm25"
FORMAT_VERSION = 1
HEADER_FILE = "bm25.json"
ARRAYS_FILE = "bm25.npz"


class IndexFormatError(ValueError):
    """A persisted BM25 index that is corrupt, foreign, or of another format version."""


def write(
    folder: str | os.PathLike[str],
    main: Any,
    keys: list[str | None],
    terms: list[str],
    parameters: Mapping[str, float],
    meta: Mapping[str, Any],
) -> None:
    """Write a compacted index (`main`, the CSC matrix of slots x terms, its `keys` and
    `terms`, its k1, b and epsilon in `parameters`, the caller's `meta`) into `folder`.

    The arrays are written first and the header last, each through a temporary file and
    `os.replace`, both carrying the same random save id.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_id = secrets.token_hex(16)
    header = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "save_id": save_id,
        "k1": parameters["k1"],
        "b": parameters["b"],
        "epsilon": parameters["epsilon"],
        "documents": main.shape[0],
        "terms": main.shape[1],
        "postings": int(main.nnz),
        "keys": keys,
        "vocabulary": terms,
        "meta": meta,
    }
    header_text = json.dumps(header, ensure_ascii=False)  # fails early if meta is not JSON
    # temporary files made new (O_EXCL, O_NOFOLLOW): nothing already at that name, a
    # symlink least of all, is written through
    arrays_tmp = folder / f".{ARRAYS_FILE}.{save_id[:8]}.tmp"
    try:
        with os.fdopen(safe_fs.create(arrays_tmp), "wb") as stream:
            np.savez(
                stream,
                save_id=np.frombuffer(bytes.fromhex(save_id), dtype=np.uint8),
                indptr=main.indptr.astype(np.int64),
                indices=main.indices.astype(np.int32),
                data=main.data.astype(np.int32),
            )
        os.replace(arrays_tmp, folder / ARRAYS_FILE)
        header_tmp = folder / f".{HEADER_FILE}.{save_id[:8]}.tmp"
        safe_fs.write_new(header_tmp, header_text.encode("utf-8"))
        os.replace(header_tmp, folder / HEADER_FILE)
    finally:
        for temp in (arrays_tmp, folder / f".{HEADER_FILE}.{save_id[:8]}.tmp"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)


def read(folder: str | os.PathLike[str]) -> tuple[dict[str, Any], Any, list[str], list[str]]:
    """The header, main segment, keys and vocabulary of the index in `folder`, checked.

    FileNotFoundError when `folder` holds no index; IndexFormatError when its files are
    corrupt, inconsistent, foreign, or of another format version.
    """
    folder = Path(folder)
    header_path = folder / HEADER_FILE
    try:
        # orjson: the header lists every key (~10 MB at 200,000 documents), and a parse
        # holds the interpreter; json would hold it 5x longer, stalling other threads
        raw = safe_fs.read_file(header_path)  # a regular file, no symlink followed
        if raw is None:
            raise FileNotFoundError(header_path)
        header = orjson.loads(raw)
    except FileNotFoundError:
        raise
    except (OSError, orjson.JSONDecodeError, errors.CorruptFileError) as error:
        raise IndexFormatError(f"{header_path}: not a readable BM25 index: {error}") from error
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise IndexFormatError(f"{header_path}: not a {FORMAT} index")
    if header.get("version") != FORMAT_VERSION:
        raise IndexFormatError(
            f"{header_path}: format version {header.get('version')!r}, "
            f"this program reads version {FORMAT_VERSION}"
        )
    arrays_path = folder / ARRAYS_FILE
    try:
        with safe_fs.reading(arrays_path) as stream:
            arrays = np.load(stream, allow_pickle=False)
            if not isinstance(arrays, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            with arrays:
                names = ("save_id", "indptr", "indices", "data")
                stored = {name: arrays[name] for name in names}
    except (
        OSError,
        ValueError,
        KeyError,
        EOFError,
        zipfile.BadZipFile,
        errors.CorruptFileError,
    ) as error:
        raise IndexFormatError(f"{arrays_path}: not readable: {error}") from error
    try:
        main, keys, terms = _checked_segment(header, stored)
    except (KeyError, TypeError, ValueError) as error:
        raise IndexFormatError(f"{folder}: inconsistent BM25 index: {error}") from error
    if not isinstance(header.get("meta", {}), dict):
        raise IndexFormatError(f"{header_path}: meta is not an object")
    return header, main, keys, terms

    # --------------------------------------------------------------- compaction


def _checked_segment(
    header: Mapping[str, Any], stored: Mapping[str, npt.NDArray[Any]]
) -> tuple[Any, list[str], list[str]]:
    """The main segment, keys and vocabulary of a loaded index, after checking them."""
    if bytes(stored["save_id"].astype(np.uint8)).hex() != header["save_id"]:
        raise ValueError("the arrays file belongs to another save (a half-written index)")
    keys, terms = header["keys"], header["vocabulary"]
    if not (isinstance(keys, list) and all(isinstance(key, str) for key in keys)):
        raise ValueError("keys are not a list of strings")
    if not (isinstance(terms, list) and all(isinstance(term, str) for term in terms)):
        raise ValueError("vocabulary is not a list of strings")
    if len(set(keys)) != len(keys) or len(set(terms)) != len(terms):
        raise ValueError("duplicate keys or terms")
    for name in ("k1", "b", "epsilon"):
        if not isinstance(header[name], int | float) or not math.isfinite(header[name]):
            raise ValueError(f"{name} is not a number")
    indptr, indices, data = stored["indptr"], stored["indices"], stored["data"]
    n_docs, n_terms = len(keys), len(terms)
    for name, array in (("indptr", indptr), ("indices", indices), ("data", data)):
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise ValueError(f"{name} is not a 1-d integer array")
    nnz = indices.shape[0]
    if indptr.shape[0] != n_terms + 1 or data.shape[0] != nnz or header["postings"] != nnz:
        raise ValueError("array lengths do not match the header")
    if (n_docs, n_terms) != (header["documents"], header["terms"]):
        raise ValueError("keys or vocabulary do not match the header's counts")
    if indptr[0] != 0 or indptr[-1] != nnz or np.any(np.diff(indptr) < 0):
        raise ValueError("indptr is not a valid column pointer")
    if nnz and (indices.min() < 0 or indices.max() >= n_docs or data.min() <= 0):
        raise ValueError("a posting is out of range")
    ascending = np.diff(indices.astype(np.int64)) > 0
    column_starts = indptr[1:-1]
    ascending[column_starts[(column_starts > 0) & (column_starts < nnz)] - 1] = True
    if not ascending.all():
        raise ValueError("a column's rows are not strictly increasing")
    main = sp.csc_matrix(
        (data.astype(np.int32), indices.astype(np.int32), indptr.astype(np.int64)),
        shape=(n_docs, n_terms),
    )
    return main, keys, terms
