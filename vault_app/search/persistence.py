"""The engine's index on disk: saved under `.vault/cache/search/`, loaded back lazily.

Plain files, safe to delete (the next open rebuilds them): docs.jsonl holds a header line,
lines with every document's key and source, then one line per document in that order
(path relative to the vault; BM25's text is not kept, the BM25 index has it), of which a
reopen keeps only where each starts, reading a document back when it is needed
(`LazyDocs`, `DocFile`); columns.npz their metadata columns in the same order, bm25/ the
index; all three carry the hash of docs.jsonl, so a set written half-way is recognised
and rebuilt.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import hashlib
import itertools
import os
import secrets
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt
import orjson

from vault_app.core import errors, safe_fs, storage
from vault_app.search import bm25, columns, documents
from vault_app.search.documents import text_key

INDEX_VERSION = 10  # 7: a fact document holds its confidence and metadata; 8: owners;
# 9: turn ids and facts' origins; 10: the adjacent token pairs' signatures
_T = TypeVar("_T")
_CHUNK = 8192  # keys and sources per line of docs.jsonl (and per step of loading it)


class StaleDocuments(OSError):
    """docs.jsonl no longer holds a document as this process loaded it: another process
    saved the index again meanwhile, without it or with it changed."""


def _identity(info: os.stat_result) -> tuple[int, ...]:
    """What tells one docs.jsonl from the next: a save replaces the file (a new inode)."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class DocFile:
    """The docs.jsonl a process loaded (or saved), for reading saved lines back by offset.

    Never held open (Windows cannot replace an open file): each batch of reads opens it,
    checks that it is still the same file, and reads its lines.
    """

    def __init__(self, path: Path, info: os.stat_result) -> None:
        self.path = path
        self.identity = _identity(info)

    def read(self, offsets: Sequence[int]) -> list[bytes] | None:
        """The lines at `offsets` (b"" for a negative one), in one opening; None when
        docs.jsonl is gone or is another file than this one."""
        try:
            fd, info = safe_fs.open_read(self.path)
        except (OSError, errors.VaultError):
            return None
        try:
            if _identity(info) != self.identity:
                return None
            return [_line_at(fd, offset) if offset >= 0 else b"" for offset in offsets]
        except OSError:
            return None
        finally:
            os.close(fd)

    def is_current(self) -> bool:
        try:
            return _identity(os.stat(self.path, follow_symlinks=False)) == self.identity
        except OSError:
            return False


def _line_at(fd: int, offset: int) -> bytes:
    """The line starting at `offset` of the file open as `fd`, its newline included (none
    at the end of the file). Plain reads, no buffered file: a document is about 500 bytes
    and a query reads ten of them."""
    size = 2048
    while True:
        os.lseek(fd, offset, os.SEEK_SET)
        data = os.read(fd, size)
        end = data.find(b"\n")
        if end >= 0:
            return data[: end + 1]
        if len(data) < size:
            return data
        size *= 4


def _is_line_of(line: bytes, key: str) -> bool:
    """Whether `line` is a whole saved document line of `key` (its first field)."""
    return line.endswith(b"\n") and line.startswith(b"[" + orjson.dumps(key) + b",")


_NONE = -3  # a row without a document (dropped, or not one yet)
_HELD = -2  # a row whose document is held built (`LazyDocs.held`)
_GONE = -1  # a saved document that the docs.jsonl there now no longer has


class LazyDocs:
    """key -> SearchDoc over the rows of the engine's document columns (`table`), whose
    key -> row map it shares: a document loaded from the cache stays the offset of its
    line in docs.jsonl (`file`), in an int64 array by row, until something asks for it;
    reopening 200,000 documents then parses none of them and keeps none of their text
    (100 MB as bytes objects), nor a dict of them (20 MB). Documents are kept in row
    order. Only a hit's documents are ever read back (`fetch`); built ones (added, or
    read back) are held in `held`. When another process saves the index again
    meanwhile, the lines are found again by key in the new file (a document it no longer
    has is gone: `fetch` leaves it out); a save of this process's own points every
    document at its new line.
    """

    def __init__(
        self, root: Path, table: columns.DocumentColumns, file: DocFile | None = None
    ) -> None:
        self.root = root
        self.table = table  # its rows only grow; a key keeps its row
        self.file = file
        self.foreign = False  # the offsets are in a file another process saved (_relocate)
        self.offset = np.full(table.size, _NONE, dtype=np.int64)  # by row
        self.held: dict[str, documents.SearchDoc] = {}
        self._count = 0

    @classmethod
    def loaded(
        cls, root: Path, table: columns.DocumentColumns, file: DocFile, offsets: npt.NDArray[Any]
    ) -> LazyDocs:
        """The documents of a loaded index: row i of `table` saved at `offsets[i]`."""
        docs = cls(root, table, file)
        docs.offset = offsets.astype(np.int64)
        docs._count = int(offsets.size)
        return docs

    def rows(self) -> list[int]:
        """The columns' row of every document, in order."""
        rows: list[int] = np.flatnonzero(self.offset != _NONE).tolist()
        return rows

    def _at(self, key: str) -> int:
        """What the row of `key` holds (`_NONE` when it has no row)."""
        row = self.table.row.get(key)
        return _NONE if row is None or row >= self.offset.size else int(self.offset[row])

    def __len__(self) -> int:
        return self._count

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._at(key) != _NONE

    def __iter__(self) -> Iterator[str]:
        keys = self.table.keys
        present = np.flatnonzero(self.offset != _NONE)
        return (keys[row] for row in present.tolist())  # a snapshot of the rows

    def unread(self) -> int:
        """How many documents are offsets still (never read back)."""
        return int(np.count_nonzero(self.offset >= _GONE))

    def __getitem__(self, key: str) -> documents.SearchDoc:
        doc = self.held.get(key)
        if doc is not None:
            return doc
        if self._at(key) == _NONE or not self.fetch([key]):
            raise KeyError(key)
        return self.held[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __setitem__(self, key: str, doc: documents.SearchDoc) -> None:
        """Hold `doc` (its key must have a row in the columns already)."""
        row = self.table.row[key]
        if row >= self.offset.size:
            grown = np.full(max(row + 1, 2 * self.offset.size, 1024), _NONE, dtype=np.int64)
            grown[: self.offset.size] = self.offset
            self.offset = grown
        if self.offset[row] == _NONE:
            self._count += 1
        self.offset[row] = _HELD
        self.held[key] = doc

    def pop(self, key: str, default: Any = None) -> Any:
        row = self.table.row.get(key)
        if row is None or row >= self.offset.size or self.offset[row] == _NONE:
            return default
        doc = self.held.pop(key, None)
        self.offset[row] = _NONE
        self._count -= 1
        return doc if doc is not None else default

    def fetch(self, keys: Iterable[str]) -> list[str]:
        """Read the documents of `keys` still on disk in one opening of docs.jsonl; the
        keys whose documents there are, in order (a document gone from a docs.jsonl
        saved again by another process is left out)."""
        keys = list(keys)
        wanted = [k for k in keys if k not in self.held and self._at(k) != _NONE]
        if wanted:
            for key, line in zip(wanted, self._lines(wanted), strict=True):
                if line is not None:
                    self.held[key] = _doc_from_json(orjson.loads(line), self.root)
                    self.offset[self.table.row[key]] = _HELD
        return [k for k in keys if k in self.held]

    def peek(self, keys: Iterable[str]) -> list[str | None]:
        """The text of each of `keys` (None for one it has not), in one opening of
        docs.jsonl, holding none of the documents it reads: a scan of many (the speakers
        of every daily entry, `intent.Names`) would hold them all (33 MB at 50,000)."""
        keys = list(keys)
        unread = [k for k in keys if k not in self.held and self._at(k) >= _GONE]
        lines = dict(zip(unread, self._lines(unread), strict=True)) if unread else {}
        texts: list[str | None] = []
        for key in keys:
            doc = self.held.get(key)
            line = lines.get(key)
            text = doc.text if doc is not None else None
            if line is not None:
                value = orjson.loads(line)[_TEXT_FIELD]
                text = value if isinstance(value, str) else None
            texts.append(text)
        return texts

    def _lines(self, keys: list[str]) -> list[bytes | None]:
        """The saved lines of `keys` (None for one no longer saved), found again by key
        if docs.jsonl was saved again since."""
        lines = self.file.read([self._at(k) for k in keys]) if self.file else None
        if lines is None and self._relocate():
            lines = self.file.read([self._at(k) for k in keys]) if self.file else None
        if lines is None:
            return [None] * len(keys)
        return [
            line if _is_line_of(line, k) and self._indexed_as(k, line) else None
            for k, line in zip(keys, lines, strict=True)
        ]

    def _indexed_as(self, key: str, line: bytes) -> bool:
        """Whether the text of a line read back is the one this index has: always in the
        file it loaded or saved, compared in a file another process saved."""
        if not self.foreign:
            return True
        text = orjson.loads(line)[_TEXT_FIELD]
        return isinstance(text, str) and self.table.text_key_of(key) == text_key(text)

    def _relocate(self) -> bool:
        """Point the saved documents at their lines in the docs.jsonl there now (-1 for
        those it does not have); False if it cannot be read as an index of this version."""
        if self.file is None:
            return False
        try:
            with safe_fs.reading(self.file.path) as stream:
                info = os.fstat(stream.fileno())
                body = stream.read()
            data, keys, _, offsets = _layout(body)
        except (OSError, errors.VaultError, ValueError, TypeError, KeyError, IndexError):
            return False
        if data.get("version") != INDEX_VERSION:
            return False
        found = dict(zip(keys, offsets.tolist(), strict=True))
        row_keys = self.table.keys
        for row in np.flatnonzero(self.offset >= _GONE).tolist():
            self.offset[row] = found.get(row_keys[row], _GONE)
        self.file = DocFile(self.file.path, info)
        self.foreign = True
        return True

    def saved(self, file: DocFile, offsets: npt.NDArray[np.int64]) -> None:
        """Every document (in order) was just saved at `offsets` of `file`: keep those."""
        self.file, self.foreign = file, False
        present = np.flatnonzero(self.offset != _NONE)
        self.offset[present] = offsets
        self.held = {}

    def _saved_chunks(self) -> Iterator[list[tuple[str, Any]]]:
        """(key, held document or None) of every document in order, a chunk at a time,
        with the saved lines of each chunk read in one opening of docs.jsonl (None for
        a line gone or changed)."""
        row_keys, held = self.table.keys, self.held
        # offsets may be replaced meanwhile (`_relocate`), never added: the rows are walked
        for rows in _chunks(np.flatnonzero(self.offset != _NONE).tolist()):
            keys = [row_keys[row] for row in rows]
            saved = [key for key in keys if key not in held]
            lines = dict(zip(saved, self._lines(saved), strict=True)) if saved else {}
            yield [(key, held[key] if key in held else lines[key]) for key in keys]

    def docs(self) -> Iterator[documents.SearchDoc]:
        """Every document, saved ones read back a chunk of lines per opening of
        docs.jsonl and not kept (reading all of them keeps none of them)."""
        root = self.root
        for chunk in self._saved_chunks():
            for _, value in chunk:
                if isinstance(value, documents.SearchDoc):
                    yield value
                elif value is not None:
                    yield _doc_from_json(orjson.loads(value), root)

    def texts(self, text_keys: npt.NDArray[np.uint64]) -> _Texts:
        """The text of every document in order, read only when indexed (a snapshot:
        documents changed or dropped later do not change it). `text_keys` are their
        `documents.text_key`s: a text read back must have it (`StaleDocuments`)."""
        if self.file is not None and not self.file.is_current():
            self._relocate()
        rows = np.flatnonzero(self.offset != _NONE)
        keys = [self.table.keys[row] for row in rows.tolist()]
        return _Texts(keys, self.offset[rows], self.held, self.file, text_keys)

    def lines(self) -> Iterator[bytes]:
        """Every document as its line of docs.jsonl, in order (saved lines as they are,
        read back a chunk at a time), made one at a time: a list of them all would hold
        4 KB a line (orjson's output buffers, 850 MB at 200,000 documents) where the file
        takes 500 bytes. A line gone from docs.jsonl, or changed there by another
        process, is not written: `StaleDocuments`."""
        root = self.root
        for chunk in self._saved_chunks():
            for key, value in chunk:
                if isinstance(value, documents.SearchDoc):
                    yield orjson.dumps(_doc_to_json(value, root))
                    continue
                if value is None:
                    raise StaleDocuments(
                        errno.ESTALE,
                        f"document {key} changed on disk under this process",
                        str(self.file.path if self.file else "docs.jsonl"),
                    )
                yield value[:-1]


class _Texts(Sequence[str]):
    """The texts of documents, each read from its saved line only when indexed (a window
    of lines per opening of docs.jsonl): the embedding cache looks vectors up by the text
    keys kept in the columns and asks for the texts of new documents only."""

    _WINDOW = 256

    def __init__(
        self,
        keys: list[str],
        offsets: npt.NDArray[np.int64],
        held: dict[str, documents.SearchDoc],
        file: DocFile | None,
        text_keys: npt.NDArray[np.uint64],
    ) -> None:
        self._keys = keys
        self._offsets = offsets  # of saved lines, or `_HELD`
        # the held documents' texts (a snapshot: the held dict changes with the index)
        self._held = {i: held[keys[i]].text for i in np.flatnonzero(offsets == _HELD).tolist()}
        self._file = file
        self._text_keys = text_keys
        self._window: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]
        held = self._held.get(index)
        if held is not None:
            return held
        if index not in self._window:
            self._read_window(index)
        return self._window[index]

    def _read_window(self, start: int) -> None:
        stop = min(start + self._WINDOW, len(self._keys))
        picked = [i for i in range(start, stop) if i not in self._held]
        offsets = self._offsets[picked].tolist()
        lines = self._file.read(offsets) if self._file is not None else None
        self._window = {}
        for i, line in zip(picked, lines or [b""] * len(picked), strict=True):
            key = self._keys[i]
            text = str(orjson.loads(line)[_TEXT_FIELD]) if _is_line_of(line, key) else None
            if text is None or text_key(text) != int(self._text_keys[i]):
                where = str(self._file.path) if self._file else "docs.jsonl"
                raise StaleDocuments(errno.ESTALE, f"document {key} changed on disk", where)
            self._window[i] = text


@dataclass
class IndexState:
    docs: LazyDocs
    # a tuple per source, not a set: a set of 20 keys takes 2 KB (20 MB at 10,000 entities)
    by_source: dict[str, Collection[str]] = field(default_factory=dict)
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
        starts: list[npt.NDArray[np.int64]] = []  # where each line starts
        position = 0
        with os.fdopen(safe_fs.create(docs_temp), "wb") as stream:
            for chunk in _chunks(itertools.chain([orjson.dumps(head)], names, state.docs.lines())):
                ends = np.cumsum([len(line) + 1 for line in chunk], dtype=np.int64) + position
                starts.append(ends - np.array([len(line) + 1 for line in chunk], np.int64))
                piece = b"\n".join(chunk) + b"\n"
                digest.update(piece)
                stream.write(piece)
                position += len(piece)
        written = os.stat(docs_temp, follow_symlinks=False)  # a rename keeps inode and times
        save_id = digest.hexdigest()[:16]  # what storage.sha256 of the body gives
        arrays = table.arrays(keys)
        arrays["save_id"] = np.frombuffer(save_id.encode("ascii"), dtype=np.uint8)
        with os.fdopen(safe_fs.create(temp), "wb") as stream:
            np.savez(stream, allow_pickle=False, **arrays)
        os.replace(temp, folder / "columns.npz")
        index.save(folder / "bm25", meta={**head, "docs": save_id})
        os.replace(docs_temp, folder / "docs.jsonl")  # last: it names the set complete
        offsets = np.concatenate(starts)[1 + len(names) :]
        file = DocFile(folder / "docs.jsonl", written)
        state.docs.saved(file, offsets)
    finally:
        for path in (temp, docs_temp):
            with contextlib.suppress(OSError):  # a full disk leaves no half file
                os.unlink(path)


def _chunks(items: Iterable[_T]) -> Iterator[list[_T]]:
    """`items` in lists of `_CHUNK`."""
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, _CHUNK)):
        yield chunk


Loaded = tuple[IndexState, columns.DocumentColumns, bm25.BM25Index]


def load_index(folder: Path, root: Path, head: dict[str, Any]) -> tuple[Loaded | None, str | None]:
    """The index saved in `folder` if it was saved with `head` (`header()`), whole; else
    None, and why it is rebuilt (None when there was none). 10^6 small objects are made
    here: the engine calls it with the collector paused (`process_tuning.paused`).
    """
    path = folder / "docs.jsonl"
    try:
        # regular files only (a FIFO there would block the open), no symlink followed
        safe_fs.check_tree(root, path, safe_fs.STATE_READ)
        with safe_fs.reading(path) as stream:
            info = os.fstat(stream.fileno())  # the file the documents' offsets are in
            body = stream.read()
        save_id = storage.sha256(body)[:16]
        data, keys, sources, offsets = _layout(body)
        del body
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
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        return None, f"search index cache did not fit this version and is rebuilt ({exc})"
    header_ok = {k: data.get(k) for k in head} == head
    meta = index.meta or {}
    saved_with = bytes(arrays.get("save_id", np.zeros(0, np.uint8))).decode("ascii", "replace")
    if not header_ok or meta.get("docs") != save_id or saved_with != save_id:
        return None, "search index cache was from another version or half-written; rebuilt"
    try:
        grouped: dict[str, list[str]] = {}
        for key, source in zip(keys, sources, strict=True):
            grouped.setdefault(source, []).append(key)
        by_source: dict[str, Collection[str]] = {s: tuple(ks) for s, ks in grouped.items()}
        del grouped
        table = columns.DocumentColumns.from_arrays(keys, arrays, data["codes"])
        docs = LazyDocs.loaded(root, table, DocFile(path, info), offsets)
        index.share_keys(keys, table.row)  # one copy of the keys and of key -> row, not two
        signatures = {k: list(v) for k, v in data["signatures"].items()}
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        return None, f"search index cache did not fit this version and is rebuilt ({exc})"
    return (IndexState(docs, by_source, signatures), table, index), None


def _layout(
    body: bytes, step: int = 1 << 20
) -> tuple[dict[str, Any], list[str], list[str], npt.NDArray[np.int64]]:
    """docs.jsonl's header, keys, sources and where each document's line starts.

    Only the header and the key lines are parsed; the document lines are found by their
    newlines, a megabyte at a time (numpy over a view: no line is copied out, and no
    single call holds the interpreter long, which the window needs too)."""
    ends = np.concatenate(
        [np.zeros(0, np.int64)]
        + [
            start + np.flatnonzero(np.frombuffer(body, np.uint8, stop - start, start) == 10)
            for start, stop in _spans(len(body), step)
        ]
    )
    starts = np.concatenate([np.zeros(1, np.int64), ends + 1])
    if ends.size == 0:
        raise ValueError("no header line")
    data = orjson.loads(body[: ends[0]])
    if not isinstance(data, dict):
        raise ValueError("the header is not an object")
    first = 1 + int(data.get("name_lines", 0))
    names = [orjson.loads(body[starts[i] : ends[i]]) for i in range(1, first)]
    keys = [key for chunk_keys, _ in names for key in chunk_keys]
    sources = [source for _, chunk_sources in names for source in chunk_sources]
    if len(sources) != len(keys) or ends.size != first + len(keys) or ends[-1] + 1 != len(body):
        raise ValueError(f"{ends.size - first} documents for {len(keys)} keys")
    if not all(isinstance(key, str) for key in keys):
        raise ValueError("a key that is not a string")
    return data, keys, sources, starts[first:-1]


def _spans(size: int, step: int) -> Iterator[tuple[int, int]]:
    for start in range(0, size, step):
        yield start, min(start + step, size)


_DOC_FIELDS = [f.name for f in dataclasses.fields(documents.SearchDoc)]
_DATE_FIELD = _DOC_FIELDS.index("date")
_PATH_FIELD = _DOC_FIELDS.index("path")
_TEXT_FIELD = _DOC_FIELDS.index("text")
_INDEX_TEXT_FIELD = _DOC_FIELDS.index("index_text")


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
    path = row[_PATH_FIELD]
    if os.sep == "/" and isinstance(path, str) and path not in ("", "."):  # as pathlib, faster
        row[_PATH_FIELD] = os.path.join(root, path)  # (saved paths are normal: relative_to)
    else:
        row[_PATH_FIELD] = str(root / path)
    return documents.SearchDoc(*row)
