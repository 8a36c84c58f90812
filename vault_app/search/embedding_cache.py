"""The embedding cache: sentence vectors on disk per model identity, keyed by text hash.

`EmbeddingCache.get_or_encode()` encodes only the texts it has not seen, keyed by the first
64 bits of sha256(text) (`documents.text_keys`), and keeps each model identity's vectors
(`embedding_model.model_identity`) apart. Plain `.npy` shards, no pickle: see the class for
the format, its merges, and how it keeps working in memory when it cannot write.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import secrets
import stat
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import filelock
import numpy as np
import numpy.typing as npt

from vault_app.core import errors, safe_fs
from vault_app.search import embedding_model, encoders
from vault_app.search.documents import text_keys

log = logging.getLogger(__name__)

CACHE_FORMAT = "vault-app-embeddings"
CACHE_VERSION = 1


_BLOCK_ROWS = 8192  # rows read from a shard at once (6 MB of float16 at 384 dimensions)
_FEW_ROWS = 256  # a gather of fewer rows reads each row where it is
_PREADV = hasattr(os, "preadv")


@dataclass
class _Segment:
    """A run of the store's rows: a shard file's vectors, read from disk when asked
    for (`path` and the `offset` of its data), or vectors held in memory (`array`: those
    a read-only cache could not write)."""

    start: int
    count: int
    path: Path | None = None
    offset: int = 0
    array: npt.NDArray[Any] | None = None
    descriptor: int | None = None  # the shard file kept open for re-scoring (POSIX)

    def open_descriptor(self) -> int | None:
        """The shard file opened once and kept open while this segment lives (closed
        when it is dropped), where a deleted file stays readable (POSIX), else None: a
        query's re-scoring reads rows from a dozen shards, and opening each cost as
        much as reading its rows."""
        if self.descriptor is None and self.path is not None and os.name == "posix":
            fd, _ = safe_fs.open_read(self.path)
            if self.descriptor is None:  # two readers at once: the first one's is kept
                self.descriptor = fd
                weakref.finalize(self, os.close, fd)
            else:
                os.close(fd)
        return self.descriptor


class _Store:
    """The vectors of one identity: their keys in memory, the vectors themselves on disk.

    A key maps to a row through a sorted array of the distinct keys (`np.searchsorted`:
    one vectorised lookup for 200,000 keys, and 16 bytes a key where a dict of Python ints
    took 100). Rows are runs (`_Segment`), one per shard file: the vectors are read from
    the file, in blocks, when a caller asks for them (under the identity's lock, so no
    merge removes a file meanwhile), so the cache holds no copy of the search engine's
    matrix (it held 150 MB of float16 at 200,000 vectors).
    """

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
        self.count = 0
        self.sorted_keys = np.zeros(0, dtype=np.uint64)  # distinct keys, ascending
        self.sorted_rows = np.zeros(0, dtype=np.int64)  # the row of each (the last copy's)
        self.segments: list[_Segment] = []
        self.shards: set[str] = set()

    def __len__(self) -> int:
        return int(self.sorted_keys.size)

    def add(self, keys: npt.NDArray[np.uint64], segment: _Segment) -> None:
        """Add `segment`'s rows, whose keys are `keys`; a later copy of a key wins (same
        text, same vector)."""
        segment.start = self.count
        self.segments.append(segment)
        rows = np.arange(self.count, self.count + keys.size, dtype=np.int64)
        self.count += keys.size
        # the last copy of each key within the segment, then over the keys held before
        _, last = np.unique(keys[::-1], return_index=True)
        chosen = keys.size - 1 - last
        keys, rows = keys[chosen], rows[chosen]
        at = np.searchsorted(self.sorted_keys, keys)
        held = at < self.sorted_keys.size
        held[held] = self.sorted_keys[at[held]] == keys[held]
        self.sorted_rows[at[held]] = rows[held]
        new = ~held
        self.sorted_keys = np.insert(self.sorted_keys, at[new], keys[new])
        self.sorted_rows = np.insert(self.sorted_rows, at[new], rows[new])

    def rows(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        """The row of each key, -1 for a key not held."""
        if self.sorted_keys.size == 0:
            return np.full(keys.size, -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), self.sorted_keys.size - 1)
        return np.where(self.sorted_keys[at] == keys, self.sorted_rows[at], -1)

    def gather(self, rows: npt.NDArray[np.int64], out: npt.NDArray[np.float32]) -> None:
        """`out[i]` = the vector in row `rows[i]` (every row held), converted to float32."""
        starts = np.array([segment.start for segment in self.segments], dtype=np.int64)
        which = np.searchsorted(starts, rows, side="right") - 1
        for number in np.unique(which).tolist():
            segment = self.segments[number]
            places = np.flatnonzero(which == number)
            local = rows[places] - segment.start
            if segment.array is not None:
                out[places] = segment.array[local]
            else:
                self._read(segment, local, places, out)

    def _read(
        self,
        segment: _Segment,
        local: npt.NDArray[np.int64],
        places: npt.NDArray[np.int64],
        out: npt.NDArray[np.float32],
    ) -> None:
        """Rows `local` of a shard file into `out[places]`: row by row when they are few,
        else block by block through one small buffer."""
        assert segment.path is not None
        width = self.dimension * self.dtype.itemsize
        if local.size < _FEW_ROWS and _PREADV:  # one read a row, straight into place
            fd = segment.open_descriptor()
            if fd is not None:
                rows = np.empty((local.size, self.dimension), dtype=self.dtype)
                for row, index in zip(rows, (segment.offset + local * width).tolist(), strict=True):
                    if os.preadv(fd, [row], index) != width:
                        raise ValueError("the shard file is shorter than its header says")
                out[places] = rows
                return
        with safe_fs.reading(segment.path) as stream:
            if local.size < _FEW_ROWS:  # one pread a row, no buffering in between
                fd = stream.fileno()
                for place, index in zip(places.tolist(), local.tolist(), strict=True):
                    data = os.pread(fd, width, segment.offset + index * width)
                    if len(data) != width:
                        raise ValueError("the shard file is shorter than its header says")
                    out[place] = np.frombuffer(data, dtype=self.dtype)
                return
            order = np.argsort(local, kind="stable")
            local, places = local[order], places[order]
            block = np.empty((_BLOCK_ROWS, self.dimension), dtype=self.dtype)
            bounds = np.searchsorted(local, np.arange(0, segment.count + _BLOCK_ROWS, _BLOCK_ROWS))
            for first, (lo, hi) in enumerate(itertools.pairwise(bounds.tolist())):
                if lo == hi:
                    continue
                base = first * _BLOCK_ROWS
                n = min(_BLOCK_ROWS, segment.count - base)
                stream.seek(segment.offset + base * width)
                _read_exactly(stream, block[:n])
                out[places[lo:hi]] = block[local[lo:hi] - base]


def _read_exactly(stream: BinaryIO, array: npt.NDArray[Any]) -> None:
    """Fill `array` (contiguous) from `stream`; ValueError when the file is too short."""
    flat = array.reshape(-1).view(np.uint8)
    data = stream.read(flat.size)
    if len(data) != flat.size:
        raise ValueError("the shard file is shorter than its header says")
    flat[:] = np.frombuffer(data, dtype=np.uint8)


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
        return self.folder / f"{embedding_model.slug(identity.split('|', 1)[0])}-{digest}"

    def __len__(self) -> int:
        """How many vectors are held in memory, over all identities loaded so far."""
        return sum(len(store) for store in self._stores.values())

    def get_or_encode(
        self,
        texts: Sequence[str],
        encoder: encoders.Encoder,
        progress: encoders.Progress | None = None,
        *,
        batch_size: int = encoders.DEFAULT_BATCH_SIZE,
        out: encoders.FloatMatrix | None = None,
        keys: npt.NDArray[np.uint64] | None = None,
    ) -> encoders.FloatMatrix:
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
        identity = encoder.identity
        if out is None:
            out = np.empty((len(texts), encoder.dimension), dtype=np.float32)
        for _ in range(3):  # a round encodes what is missing; one more reads it all
            with self._locked(identity):
                store = self._store(identity, encoder.dimension)
                rows = store.rows(keys)
                if (rows >= 0).all():
                    try:
                        store.gather(rows, out)  # converted to float32 while copied
                        return out
                    except (OSError, ValueError) as error:
                        # a shard changed under a reader that had no lock (a read-only
                        # cache): read the folder again, encode what is gone
                        log.info("embedding cache %s re-read: %s", store.folder, error)
                        self._stores.pop(identity, None)
                        continue
            missing = np.flatnonzero(rows < 0)
            _, first = np.unique(keys[missing], return_index=True)
            picked = missing[np.sort(first)]
            fresh = encoder.encode([texts[i] for i in picked.tolist()], batch_size, progress)
            if fresh.shape != (picked.size, encoder.dimension):
                wanted = (picked.size, encoder.dimension)
                raise ValueError(f"the encoder returned {fresh.shape}, not {wanted}")
            with self._locked(identity):
                store = self._store(identity, encoder.dimension)
                self._keep(store, keys[picked], fresh.astype(self.dtype))
        raise ValueError(f"the embedding cache {self.identity_dir(identity)} cannot be read")

    def held(
        self, keys: npt.NDArray[np.uint64], encoder: encoders.Encoder
    ) -> tuple[npt.NDArray[np.bool_], encoders.FloatMatrix]:
        """The vectors the cache holds for `keys` (float32; zero where it holds none) and
        which it holds. Encodes nothing, writes nothing: for re-scoring a few rows."""
        out = np.zeros((keys.size, encoder.dimension), dtype=np.float32)
        # No lock and no look for new shards: the store as loaded holds every vector this
        # process put in its rows (`get_or_encode` refreshed it), and shard files are
        # never written in place (a merge renames new ones in, and an open file outlives
        # its deletion). A shard gone before it was opened raises OSError: the caller
        # falls back to what it has.
        store = self._stores.get(encoder.identity)
        if store is None or store.dimension != encoder.dimension:
            return np.zeros(keys.size, dtype=np.bool_), out
        rows = store.rows(keys)
        found = rows >= 0
        if found.any():
            part = np.empty((int(found.sum()), encoder.dimension), dtype=np.float32)
            store.gather(rows[found], part)
            out[found] = part
        return found, out

    def _keep(self, store: _Store, keys: npt.NDArray[np.uint64], vectors: npt.NDArray[Any]) -> None:
        """Add newly encoded vectors (distinct keys, in the cache's dtype) as a shard
        written to disk, or in memory when the cache cannot write (lock held)."""
        if self._writable(store):
            try:
                name = self._write_shard(store, keys, vectors)
                store.add(keys, _Segment(0, keys.size, *self._data_start(store, name)))
                self._maybe_merge(store)
                return
            except OSError as error:
                self._stop_writing(error)
            if store.rows(keys).min() >= 0:
                return  # written, only the merge failed
        store.add(keys, _Segment(0, keys.size, array=vectors))

    def _data_start(self, store: _Store, name: str) -> tuple[Path, int]:
        """The path of a shard's vectors and where their data starts in it."""
        path = store.folder / f"{name}.vec.npy"
        with safe_fs.reading(path) as stream:
            _npy_header(stream)
            return path, stream.tell()

    def preload(self, encoder: encoders.Encoder) -> int:
        """Read the vectors held for `encoder` now (rather than on the first
        `get_or_encode`); how many there are."""
        with self._locked(encoder.identity):
            return len(self._store(encoder.identity, encoder.dimension))

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
                            embedding_model.remove_path(path)
                    embedding_model.write_atomic(
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
            checked = self._check_shard(store, name)
            if checked is not None:
                keys, segment = checked
                store.add(keys, segment)
                store.shards.add(name)

    def _check_shard(
        self, store: _Store, name: str
    ) -> tuple[npt.NDArray[np.uint64], _Segment] | None:
        """A shard's keys and its rows as a segment read from disk, after its checks (the
        shapes, the dtype, every value finite), done block by block (its vectors are not
        kept in memory); None (and the shard deleted) when it fails them."""
        vec_path = store.folder / f"{name}.vec.npy"
        key_path = store.folder / f"{name}.key.npy"
        try:
            with safe_fs.reading(key_path) as stream:
                keys = np.load(stream, allow_pickle=False)
            with safe_fs.reading(vec_path) as stream:
                shape, dtype = _npy_header(stream)
                offset = stream.tell()
                problem = _problem(shape, dtype, keys, store.dimension, self.dtype)
                if not problem:
                    block = np.empty((_BLOCK_ROWS, store.dimension), dtype=self.dtype)
                    for start, stop in encoders.chunks(shape[0], _BLOCK_ROWS):
                        _read_exactly(stream, block[: stop - start])
                        if not _finite(block[: stop - start]):
                            problem = "vectors that are not finite"
                            break
            if problem:
                raise ValueError(problem)
        except FileNotFoundError:
            return None  # merged away by another process since the listing
        except Exception as error:  # truncated, pickled, wrong shape: all mean "rebuild"
            self._drop_shard(vec_path, key_path, error)
            return None
        return keys.astype(np.uint64), _Segment(0, int(shape[0]), vec_path, offset)

    @staticmethod
    def _drop_shard(vec_path: Path, key_path: Path, error: Exception) -> None:
        log.warning(
            "embedding cache shard %s is unreadable (%s): deleted, its texts will be encoded again",
            vec_path,
            error,
        )
        with contextlib.suppress(OSError):  # a read-only cache keeps it, unread
            embedding_model.remove_path(vec_path)
            embedding_model.remove_path(key_path)

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
        """Replace shards `names` by one holding their distinct keys (lock held).

        Read and written block by block, as `_check_shard` reads: merging the whole
        cache of 210,000 vectors (161 MB) holds one block of them, not the three copies
        a merge in memory held (an insert in `serve` peaked at 1.08 GB)."""
        if not names:
            return
        checked = [(name, found) for name in names if (found := self._check_shard(store, name))]
        if checked:
            keys = np.concatenate([found[0] for _, found in checked])
            # the last copy of a key wins: flip, take firsts, restore the order
            _, last = np.unique(keys[::-1], return_index=True)
            chosen = np.sort(keys.size - 1 - last)
            if wanted is not None:
                chosen = chosen[np.isin(keys[chosen], np.fromiter(wanted, dtype=np.uint64))]
            # keep the merged shard sorting where the oldest merged one was
            target = f"{names[0]}m{secrets.token_hex(2)}"
            segments = [found[1] for _, found in checked]
            self._write_chosen(store.folder / f"{target}.vec.npy", segments, chosen, store)
            _save_npy(store.folder / f"{target}.key.npy", np.ascontiguousarray(keys[chosen], "<u8"))
            store.shards.add(target)
        for name in names:
            embedding_model.remove_path(store.folder / f"{name}.key.npy")
            embedding_model.remove_path(store.folder / f"{name}.vec.npy")
            store.shards.discard(name)
        # the store's rows named the merged files: read the surviving files again
        self._stores.pop(store.identity, None)
        self._store(store.identity, store.dimension)

    def _write_chosen(
        self, path: Path, segments: list[_Segment], chosen: npt.NDArray[np.int64], store: _Store
    ) -> None:
        """Write to `path` (atomically) the rows `chosen` of `segments` taken end to end."""
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        width = store.dimension * self.dtype.itemsize
        block = np.empty((_BLOCK_ROWS, store.dimension), dtype=self.dtype)
        header = {
            "descr": np.lib.format.dtype_to_descr(self.dtype),
            "fortran_order": False,
            "shape": (int(chosen.size), store.dimension),
        }
        try:
            with os.fdopen(safe_fs.create(temporary), "wb") as handle:  # new, no symlink
                np.lib.format.write_array_header_1_0(handle, header)
                start = 0
                for segment in segments:
                    assert segment.path is not None
                    at = chosen[
                        np.searchsorted(chosen, start) : np.searchsorted(
                            chosen, start + segment.count
                        )
                    ]
                    local = at - start
                    start += segment.count
                    with safe_fs.reading(segment.path) as stream:
                        for base in range(0, segment.count, _BLOCK_ROWS):
                            lo, hi = np.searchsorted(local, [base, base + _BLOCK_ROWS]).tolist()
                            if lo == hi:
                                continue
                            n = min(_BLOCK_ROWS, segment.count - base)
                            stream.seek(segment.offset + base * width)
                            _read_exactly(stream, block[:n])
                            handle.write(block[local[lo:hi] - base].tobytes())
            os.replace(temporary, path)
        finally:
            embedding_model.remove_path(temporary)


def _npy_header(stream: BinaryIO) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype of the .npy file open in `stream`, which is left at its data."""
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    if fortran:
        raise ValueError("vectors in Fortran order")
    return shape, dtype


def _problem(
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    keys: npt.NDArray[Any],
    dimension: int,
    wanted: np.dtype[Any],
) -> str:
    """What is wrong with a shard of vectors of `shape` and `dtype` and its `keys`, or ""."""
    if dtype != wanted or len(shape) != 2:
        return f"vectors are {dtype} {shape}"
    if shape[1] != dimension:
        return f"vectors have {shape[1]} dimensions, not {dimension}"
    if keys.dtype != np.dtype("<u8") or keys.shape != (shape[0],):
        return f"keys are {keys.dtype} {keys.shape} for {shape[0]} vectors"
    return ""


def _finite(vectors: npt.NDArray[Any]) -> bool:
    """Whether every value is finite: a row sums to inf or nan when it holds one (unit
    vectors cannot overflow a float32 sum), at a fraction of isfinite's cost on float16."""
    return bool(np.isfinite(vectors.sum(axis=1, dtype=np.float32)).all())


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
        embedding_model.remove_path(temporary)
