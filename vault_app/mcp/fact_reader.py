"""Facts of entity files read for agents' queries, each file parsed once per version.

MicroClaw's `memory_query` turns search hits into memories, and a memory needs what only
the fact file holds (confidence, metadata, the archive note, lineage). Reading a hit's
entity through `Vault.entity` validates every fact of the file and reads its summary
too; for a search answering ten memories out of ten entities that was most of the
query's time. `FactReader` gives the same facts at a fraction of the cost:

- a file is read and decoded once per version: the decoded file is kept under its
  signature (device, inode, size, mtime in ns) taken *before* the read, and reused only
  while a `stat` of the path still gives that signature. Every vault write replaces a
  file atomically (a new inode), so a kept version can never be served stale: at worst a
  change between the stat and the read costs one more read;
- one fact is validated on its own (`FactFile.fact`), not the whole file: the answer is
  the fact `{f.id: f for f in entity.facts}` would give (the last valid entry with that
  id), or None;
- `facts` gives `Vault.entity(ref).facts` (every valid fact, in file order), kept too;
- the text shown to agents (`injection.shown_to_agents`, a pure function of the text) is
  remembered for recent texts (`shown_to_agents`).

What is refused stays refused: the entity folder is found through the vault's layout
(inside-the-vault check) and the file read through its storage (size limit, regular
file, symlinks) on every (re)read; a file that fails to read or decode, or is blank, has
no facts, as `Vault.entity` says, and is not kept.
A kept version is used only while it is still the folder's fact file (an `items.json`
appearing beside a `facts.json` takes over, as in `Vault.entity`) and reached by the
same path: a path that now leads elsewhere (a folder swapped for a symlink) gives
another signature, hence a full read and its checks.

One reader per `Vault` (`reader_for`): a vault reopened with new settings (the size
limit lives there) gets a new reader. At most `KEEP` files are kept, least recently
used dropped first. Thread-safe.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import os
import threading
import weakref
from pathlib import Path

from vault_app.core import errors, formats, injection, layout, models
from vault_app.core.vault import Vault

KEEP = 64  # fact files kept decoded per vault (an entity of 20 facts: some 70 kB in memory)
SHOWN_KEEP, SHOWN_MAX_CHARS = 4096, 1024  # texts whose shown form is remembered

Signature = tuple[int, int, int, int]


@dataclasses.dataclass
class _Version:
    """One version of one fact file: decoded, its facts validated as asked."""

    path: Path
    signature: Signature
    file: formats.FactFile
    by_id: dict[str, models.Fact | None] = dataclasses.field(default_factory=dict)
    every: list[models.Fact] | None = None

    def fact(self, fact_id: str) -> models.Fact | None:
        if fact_id not in self.by_id:
            self.by_id[fact_id] = self.file.fact(fact_id)
        return self.by_id[fact_id]

    def facts(self) -> list[models.Fact]:
        if self.every is None:
            self.every = self.file.facts()[0]
        return self.every


def signature(path: Path) -> Signature | None:
    """What tells two versions of a file apart, or None when it cannot be read."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class FactReader:
    """Facts of one vault's entities, decoded once per file version (module docstring)."""

    def __init__(self, vault: Vault, keep: int = KEEP) -> None:
        self.vault = vault
        self.keep = keep
        self._lock = threading.Lock()
        self._versions: collections.OrderedDict[layout.EntityRef, _Version] = (
            collections.OrderedDict()
        )

    def facts(self, ref: layout.EntityRef) -> list[models.Fact]:
        """`Vault.entity(ref).facts`; [] when the entity does not exist (yet)."""
        version = self._version(ref)
        return [] if version is None else version.facts()

    def fact(self, ref: layout.EntityRef, fact_id: str) -> models.Fact | None:
        """The fact `fact_id` of entity `ref` as `Vault.entity(ref)` reads it, or None."""
        version = self._version(ref)
        return None if version is None else version.fact(fact_id)

    def _version(self, ref: layout.EntityRef) -> _Version | None:
        with self._lock:
            kept = self._versions.get(ref)
            if kept is not None:
                self._versions.move_to_end(ref)
        if kept is not None and self._current(kept):
            return kept
        return self._read(ref)

    def _current(self, kept: _Version) -> bool:
        """Whether `kept` is what a read would give: the same file version, and still the
        file the folder's facts are read from (an `items.json` beside a `facts.json`
        takes over)."""
        return (
            signature(kept.path) == kept.signature
            and self.vault.paths.facts_file(kept.path.parent) == kept.path
        )

    def _read(self, ref: layout.EntityRef) -> _Version | None:
        try:
            folder = self.vault.paths.existing_entity_dir(ref)
        except errors.NotFoundError:
            self._forget(ref)
            return None  # a chat with no memory yet: its entity comes with the first write
        path = self.vault.paths.facts_path(folder)
        stamp = signature(path)  # before the read: a change after it only costs a re-read
        try:
            data = self.vault.read_bytes(path)
            if data is None or formats.is_blank(data):
                # no facts, as Vault.entity says (a blank file whose backups hold facts
                # is an error there, which has no facts either)
                self._forget(ref)
                return None
            file = formats.decode(path, data)
        except errors.CorruptFileError:
            self._forget(ref)
            return None
        file.lineage()  # (computed once, shared by every fact validated)
        version = _Version(path, stamp or (-1, -1, -1, -1), file)
        if stamp is not None:  # a file that cannot be stat'ed is read again each time
            with self._lock:
                self._versions[ref] = version
                self._versions.move_to_end(ref)
                while len(self._versions) > self.keep:
                    self._versions.popitem(last=False)
        return version

    def _forget(self, ref: layout.EntityRef) -> None:
        with self._lock:
            self._versions.pop(ref, None)


@functools.lru_cache(maxsize=SHOWN_KEEP)
def _shown(text: str) -> str:
    return injection.shown_to_agents(text)


def shown_to_agents(text: str) -> str:
    """`injection.shown_to_agents(text)`, remembered for the last `SHOWN_KEEP` texts up to
    `SHOWN_MAX_CHARS` long (the scan is a pure function of the text: nothing to go stale)."""
    return _shown(text) if len(text) <= SHOWN_MAX_CHARS else injection.shown_to_agents(text)


_READERS: weakref.WeakKeyDictionary[Vault, FactReader] = weakref.WeakKeyDictionary()
_READERS_LOCK = threading.Lock()


def reader_for(vault: Vault) -> FactReader:
    """The `FactReader` of `vault` (made on first use, gone with the vault)."""
    with _READERS_LOCK:
        reader = _READERS.get(vault)
        if reader is None:
            reader = _READERS[vault] = FactReader(vault)
        return reader
