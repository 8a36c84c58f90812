"""The engine's index on disk: saved under `.vault/cache/search/`, loaded back lazily.

Plain files, safe to delete (the next open rebuilds them): docs.jsonl holds a header line,
a line with every document's key and source, then one line per document in that order
(path relative to the vault; BM25's text is not kept, the BM25 index has it), which a
reopen keeps unparsed until the document is needed (`LazyDocs`); columns.npz their
metadata columns in the same order, bm25/ the index; all three carry the hash of
docs.jsonl, so a set written half-way is recognised and rebuilt.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import itertools
import os
import secrets
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np
import orjson

from vault_app.core import errors, safe_fs, storage
from vault_app.search import bm25, columns, documents

INDEX_VERSION = 6  # 6: one document per line, read lazily; text keys in the columns
_CHUNK = 8192  # keys and sources per line of docs.jsonl (and per step of loading it)


class LazyDocs(dict[str, Any]):
    """key -> SearchDoc, where a document loaded from the cache stays the line of JSON it
    was saved as until something asks for it: reopening 200,000 documents then parses
    none of them (only their keys). Only a hit's documents are ever built.
    """

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __getitem__(self, key: str) -> documents.SearchDoc:
        value = super().__getitem__(key)
        if isinstance(value, bytes):
            value = _doc_from_json(orjson.loads(value), self.root)
            super().__setitem__(key, value)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def docs(self) -> Iterator[documents.SearchDoc]:
        for key in self:
            yield self[key]

    def texts(self) -> _Texts:
        """The text of every document in order, read only when indexed (a snapshot:
        documents changed or dropped later do not change it)."""
        return _Texts(list(super().values()))

    def lines(self) -> Iterator[bytes]:
        """Every document as its line of docs.jsonl, in order (saved lines as they are),
        made one at a time: a list of them all would hold 4 KB a line (orjson's output
        buffers, 850 MB at 200,000 documents) where the file takes 500 bytes."""
        root = self.root
        for value in super().values():
            yield value if isinstance(value, bytes) else orjson.dumps(_doc_to_json(value, root))


class _Texts(Sequence[str]):
    """The texts of documents, each read from its saved line only when indexed: the
    embedding cache looks vectors up by the text keys kept in the columns and asks for
    the texts of new documents only."""

    def __init__(self, values: list[Any]) -> None:
        self._values = values  # SearchDocs, or saved lines

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._text(v) for v in self._values[index]]
        return self._text(self._values[index])

    @staticmethod
    def _text(value: Any) -> str:
        return str(orjson.loads(value)[_TEXT_FIELD]) if isinstance(value, bytes) else value.text


@dataclass
class IndexState:
    docs: LazyDocs
    by_source: dict[str, set[str]] = field(default_factory=dict)
    signatures: dict[str, list[int]] = field(default_factory=dict)


def header(tokenizer_fingerprint: str) -> dict[str, Any]:
    """What an index must have been saved with to be loaded: this format, this tokenizer."""
    return {"version": INDEX_VERSION, "tokenizer": tokenizer_fingerprint}


def save_index(
    folder: Path,
    root: Path,
    head: dict[str, Any],
    state: IndexState,
    table: columns.DocumentColumns,
    index: bm25.BM25Index,
) -> None:
    """Write the index into `folder` (`.vault/cache/search/` of the vault at `root`): the
    documents of `state`, their columns `table`, the BM25 `index`, all with `head`
    (`header()`). See the module docstring for the files.
    """
    # no symlink from the vault down to the index's files (errors.SymlinkError)
    safe_fs.make_dirs(root, folder / "bm25")
    keys = list(state.docs)
    source_of = {k: source for source, ks in state.by_source.items() for k in ks}
    head = {
        **head,
        "signatures": state.signatures,
        "codes": table.codes,
    }
    sources = [source_of[k] for k in keys]
    names = [
        orjson.dumps([keys[i : i + _CHUNK], sources[i : i + _CHUNK]])
        for i in range(0, len(keys), _CHUNK)
    ]
    head["name_lines"] = len(names)
    token = f"{os.getpid()}.{secrets.token_hex(4)}"
    docs_temp = folder / f".docs.jsonl.{token}.tmp"
    temp = folder / f".columns.{token}.tmp.npz"
    try:  # temporary files made new: nothing at their names is written through
        # docs.jsonl is streamed to its temporary file a chunk of lines at a time, hashed
        # on the way: the whole body in memory (and every line in a list) was most of a
        # first build's peak
        digest = hashlib.sha256()
        with os.fdopen(safe_fs.create(docs_temp), "wb") as stream:
            for chunk in _chunks(itertools.chain([orjson.dumps(head)], names, state.docs.lines())):
                piece = b"\n".join(chunk) + b"\n"
                digest.update(piece)
                stream.write(piece)
        save_id = digest.hexdigest()[:16]  # what storage.sha256 of the body gives
        arrays = table.arrays(keys)
        arrays["save_id"] = np.frombuffer(save_id.encode("ascii"), dtype=np.uint8)
        with os.fdopen(safe_fs.create(temp), "wb") as stream:
            np.savez(stream, allow_pickle=False, **arrays)
        os.replace(temp, folder / "columns.npz")
        index.save(folder / "bm25", meta={**head, "docs": save_id})
        os.replace(docs_temp, folder / "docs.jsonl")  # last: it names the set complete
    finally:
        for path in (temp, docs_temp):
            with contextlib.suppress(OSError):  # a full disk leaves no half file
                os.unlink(path)


def _chunks(lines: Iterable[bytes]) -> Iterator[list[bytes]]:
    """`lines` in lists of `_CHUNK`."""
    iterator = iter(lines)
    while chunk := list(itertools.islice(iterator, _CHUNK)):
        yield chunk


Loaded = tuple[IndexState, columns.DocumentColumns, bm25.BM25Index]


def load_index(folder: Path, root: Path, head: dict[str, Any]) -> tuple[Loaded | None, str | None]:
    """The index saved in `folder` if it was saved with `head` (`header()`), whole; else
    None, and why it is rebuilt (None when there was none). 10^6 small objects are made
    here: the engine calls it with the collector paused (`memory.paused`).
    """
    path = folder / "docs.jsonl"
    try:
        # regular files only (a FIFO there would block the open), no symlink followed
        safe_fs.check_tree(root, path, safe_fs.STATE_READ)
        body = safe_fs.read_file(path)
        if body is None:
            raise FileNotFoundError(path)
        save_id = storage.sha256(body)[:16]
        # in blocks of a megabyte, parsed a chunk at a time: no single call holds the
        # interpreter long (a split or a parse of the whole file held it for 50-130 ms,
        # and the window, which needs it too, froze that long)
        lines = [line for block in _blocks(body) for line in block.split(b"\n")]
        del body
        data = orjson.loads(lines[0])
        first = 1 + int(data.get("name_lines", 0)) if isinstance(data, dict) else 1
        names = [orjson.loads(line) for line in lines[1:first]]
        index = bm25.BM25Index.load(folder / "bm25")
        with (
            safe_fs.reading(folder / "columns.npz") as stream,
            np.load(stream, allow_pickle=False) as npz,
        ):
            arrays = {name: npz[name] for name in npz.files}
    except (FileNotFoundError, NotADirectoryError):  # no index (or no cache folder)
        return None, None
    except (
        orjson.JSONDecodeError,
        bm25.IndexFormatError,
        OSError,
        ValueError,
        errors.CorruptFileError,
    ) as exc:
        return None, f"search index cache was unreadable and is rebuilt ({exc})"
    if not isinstance(data, dict):
        return None, "search index cache was from another version; rebuilt"
    header_ok = {k: data.get(k) for k in head} == head
    meta = index.meta or {}
    saved_with = bytes(arrays.get("save_id", np.zeros(0, np.uint8))).decode("ascii", "replace")
    if not header_ok or meta.get("docs") != save_id or saved_with != save_id:
        return None, "search index cache was from another version or half-written; rebuilt"
    try:
        keys = [key for chunk_keys, _ in names for key in chunk_keys]
        sources = [source for _, chunk_sources in names for source in chunk_sources]
        rows = lines[first : first + len(keys)]
        if (
            len(rows) != len(keys)
            or len(sources) != len(keys)
            or lines[first + len(keys) :] != [b""]
        ):
            raise ValueError(f"{len(rows)} documents for {len(keys)} keys")
        docs = LazyDocs(root)
        for start in range(0, len(keys), _CHUNK):
            chunk = slice(start, start + _CHUNK)
            docs.update(zip(keys[chunk], rows[chunk], strict=True))
        by_source: dict[str, set[str]] = {}
        for key, source in zip(keys, sources, strict=True):
            by_source.setdefault(source, set()).add(key)
        table = columns.DocumentColumns.from_arrays(keys, arrays, data["codes"])
        index.share_keys(keys)  # one copy of 200,000 key strings in memory, not two
        signatures = {k: list(v) for k, v in data["signatures"].items()}
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        return None, f"search index cache did not fit this version and is rebuilt ({exc})"
    return (IndexState(docs, by_source, signatures), table, index), None


_DOC_FIELDS = [f.name for f in dataclasses.fields(documents.SearchDoc)]
_DATE_FIELD = _DOC_FIELDS.index("date")
_PATH_FIELD = _DOC_FIELDS.index("path")
_TEXT_FIELD = _DOC_FIELDS.index("text")
_INDEX_TEXT_FIELD = _DOC_FIELDS.index("index_text")


def _blocks(body: bytes, size: int = 1 << 20) -> Iterator[bytes]:
    """`body` in pieces of at least `size` bytes, cut at line ends (the newline dropped):
    splitting each piece gives the lines of `body.split(b"\\n")`, in bounded steps."""
    start = 0
    while True:
        end = body.find(b"\n", min(start + size, len(body)))
        if end < 0:
            yield body[start:]
            return
        yield body[start:end]
        start = end + 1


def _doc_to_json(doc: documents.SearchDoc, root: Path) -> list[Any]:
    """A document as saved: BM25's text left out (the index has it), path relative."""
    row = [getattr(doc, name) for name in _DOC_FIELDS]
    row[_DATE_FIELD] = doc.date.isoformat() if doc.date else None
    row[_INDEX_TEXT_FIELD] = ""
    path = Path(doc.path)
    if path.is_relative_to(root):
        row[_PATH_FIELD] = path.relative_to(root).as_posix()
    return row


def _doc_from_json(row: list[Any], root: Path) -> documents.SearchDoc:
    row = list(row)
    if row[_DATE_FIELD] is not None:
        row[_DATE_FIELD] = dt.date.fromisoformat(row[_DATE_FIELD])
    row[_PATH_FIELD] = str(root / row[_PATH_FIELD])
    return documents.SearchDoc(*row)
