"""Where a search engine takes its documents from: a PARA vault, or a neighbour's folder.

The engine (`engine.SearchEngine`) indexes, ranks and filters `documents.SearchDoc`s; a
`DocumentSource` is everything it asks of the folder those documents come from:

    root            the folder searched (the documents' paths are saved relative to it)
    index_dir       where the index is saved between runs; None: kept in memory only
    embeddings_dir  where the embedding cache lives (`embedding_cache.EmbeddingCache`),
    cache_root      and the folder trusted above it (no symlink below it is followed)
    settings        the `[search]` settings (semantic on/off, model, hybrid weight, floor)
    decay           the decay policy that tiers facts at query time
    now()           the clock the filters' times and the tiers are read with
    current_sources()   every source on disk now: id -> (kind, locator, signature)
    read_source(kind, locator)   that source's documents as on disk now
    vault           the `vault.Vault` for what only a PARA vault has (marking facts
                    accessed, re-indexing one entity); None for a neighbour's folder
    problems        files left out at the last listing, and why (a face shows them)

Two sources exist. `VaultSource(vault)` is the PARA vault as the engine always read it
(`catch_up`: an entity or a daily note per source; index and embeddings under
`.vault/cache/`). `FolderSource(folder)` is a Hermes home, a PicoClaw workspace or a
MicroClaw runtime opened as it is (`core.neighbours.ForeignFolder`); its documents are
the folder's entries (`core.neighbours.entries`), one source per file:

==============================  ========  ==========================================
entry                           kind      key
==============================  ========  ==========================================
Hermes § entry (MEMORY, USER)   fact      notes:memory:3, notes:user:1
tier entry of a tiered MEMORY   fact      tiers:-1001234567890/1:2:1
profile.json key                fact      profile:picoclaw:city
free-form MEMORY.md block       summary   memory:picoclaw:2
principles block, SOUL.md       summary   principles:groups/AGENTS.md:1, document:SOUL.md:1
daily note paragraph            daily     daily:picoclaw:2026-11-22:2
==============================  ========  ==========================================

Their `fact_id` is None (they are not the vault's facts: no tier, nothing is marked
accessed); `source_ref` is where the entry is, for people (`memories/MEMORY.md § entry
3`), and `metadata["origin"]` the same as JSON (format, structure, agent, file, index,
target / tier / key / date), which a `Hit` carries as `origin` so that a face can open
the entry. A neighbour's folder is its owner's: nothing is written into it. The index is
kept in memory (a memory folder is kilobytes: it is rebuilt in milliseconds on open);
the embeddings are cached in the user's cache folder, keyed by the folder's resolved
path (`core.neighbours.files.cache_dir`), so a second run does not encode them again.

To search a neighbour's folder (the window's search dock, the CLI, a library user)::

    folder = neighbours.open_folder(path)            # a ForeignFolder, or None: a vault
    search, report = engine.open_engine(folder)      # as with a Vault: BM25 + semantic
    result = search.search("porto trip", mode="hybrid")
    for hit in result.hits: hit.origin["file"], hit.origin["where"], hit.text
    search.refresh()  # after the folder changed (a watcher's event): re-reads what did
    search.source.problems  # the files left out (unreadable), to show

What only a vault has (the engine's `vault`, `mark_accessed`, `refresh_entity`,
`refresh_daily`) raises `errors.VaultError` over a neighbour's folder; `refresh()` is
its catch-up (a file's signature is a digest of its documents: cheap, and exact).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from vault_app.core import config, decay, errors
from vault_app.core.neighbours import entries as neighbour_entries
from vault_app.core.neighbours import files as neighbour_files
from vault_app.core.neighbours import folder as neighbour_folder
from vault_app.search import catch_up, documents

if TYPE_CHECKING:
    from vault_app.core import vault
    from vault_app.search.vector_rows import VectorRows


class DocumentSource(Protocol):
    """What a search engine asks of the folder it searches (see the module docstring)."""

    @property
    def root(self) -> Path: ...
    @property
    def index_dir(self) -> Path | None: ...
    @property
    def embeddings_dir(self) -> Path: ...
    @property
    def cache_root(self) -> Path: ...
    @property
    def settings(self) -> config.SearchSettings: ...
    @property
    def decay(self) -> decay.DecayPolicy: ...
    @property
    def vault(self) -> vault.Vault | None: ...
    @property
    def problems(self) -> list[str]: ...

    def now(self) -> dt.datetime: ...
    def current_sources(self) -> dict[str, catch_up.Source]: ...
    def read_source(self, kind: str, locator: Any) -> list[documents.SearchDoc]: ...


class VaultSource:
    """A PARA vault's facts, summaries and daily entries (`catch_up`), cached in
    `.vault/cache/search/` and `.vault/cache/embeddings/`."""

    def __init__(self, target: vault.Vault) -> None:
        self._vault = target

    @property
    def vault(self) -> vault.Vault:
        return self._vault

    @property
    def problems(self) -> list[str]:
        return []  # an unreadable fact file is doctor's: its documents are left out

    @property
    def root(self) -> Path:
        return self._vault.root

    @property
    def index_dir(self) -> Path:
        return self._vault.paths.state_dir / "cache" / "search"

    @property
    def embeddings_dir(self) -> Path:
        return self._vault.paths.state_dir / "cache" / "embeddings"

    @property
    def cache_root(self) -> Path:
        return self._vault.root

    @property
    def settings(self) -> config.SearchSettings:
        return self._vault.config.search

    @property
    def decay(self) -> decay.DecayPolicy:
        return self._vault.config.decay

    def now(self) -> dt.datetime:
        return self._vault.now()

    def current_sources(self) -> dict[str, catch_up.Source]:
        return catch_up.current_sources(self._vault)

    def read_source(self, kind: str, locator: Any) -> list[documents.SearchDoc]:
        return catch_up.read_source(self._vault, kind, locator)


_HEADED = (neighbour_entries.MEMORY, neighbour_entries.PRINCIPLES)


def _signature(docs: list[documents.SearchDoc]) -> list[int]:
    """The documents' count and a 56-bit digest of what they hold."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(repr((doc.key, doc.text, doc.index_text, doc.timestamp)).encode())
    return [len(docs), int.from_bytes(digest.digest()[:7], "little")]


def _seconds(moment: dt.datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def entry_document(entry: neighbour_entries.Entry, format_: str) -> documents.SearchDoc:
    """The search document of a neighbour's entry (see the module's table)."""
    if entry.atomic:
        kind = documents.FACT
    elif entry.structure == neighbour_entries.DAILY:
        kind = documents.DAILY
    else:
        kind = documents.SUMMARY
    timestamp = _seconds(entry.modified)
    if entry.day is not None:  # a paragraph of a day's note: that day
        timestamp = dt.datetime.combine(entry.day, dt.time(), dt.UTC).timestamp()
    # a block's heading is context for BM25 (`## User Information`), not part of its text
    heading = entry.part if entry.structure in _HEADED else None
    return documents.SearchDoc(
        key=entry.key,
        kind=kind,
        source=f"file:{entry.file}",
        scope=documents.scope_of(None if entry.shared else entry.agent),
        text=entry.text,
        index_text=f"{entry.text} {heading}" if heading else entry.text,
        path=str(entry.path),
        agent=entry.agent,
        timestamp=timestamp,
        source_ref=entry.where,
        date=entry.day,
        metadata={"origin": entry.origin(format_)},
    )


class FolderSource:
    """A neighbour's folder (Hermes, PicoClaw, MicroClaw) searched as it is: one source
    per file, its entries' documents; the index in memory, the embeddings in the user's
    cache folder. `problems` says which files could not be read (left out)."""

    def __init__(
        self,
        target: neighbour_folder.ForeignFolder,
        *,
        settings: config.SearchSettings | None = None,
        policy: decay.DecayPolicy | None = None,
    ) -> None:
        self.folder = target
        self._settings = settings or config.SearchSettings()
        self._decay = policy or decay.DecayPolicy()
        self.problems: list[str] = []
        self._listed: dict[str, list[documents.SearchDoc]] = {}

    @property
    def vault(self) -> None:
        return None

    @property
    def root(self) -> Path:
        return self.folder.root

    @property
    def index_dir(self) -> None:
        return None  # in memory: rebuilt in milliseconds, and never in the owner's folder

    @property
    def cache_root(self) -> Path:
        return neighbour_files.cache_dir(self.folder.root)

    @property
    def embeddings_dir(self) -> Path:
        return self.cache_root / "embeddings"

    @property
    def settings(self) -> config.SearchSettings:
        return self._settings

    @property
    def decay(self) -> decay.DecayPolicy:
        return self._decay

    def now(self) -> dt.datetime:
        return decay.as_aware(self.folder.clock())

    def current_sources(self) -> dict[str, catch_up.Source]:
        """Every file holding entries; the documents are made now, from this reading
        (`read_source` hands them out). A file's signature is a digest of its documents,
        not its size and mtime: a file written while it was read is then re-read by the
        next refresh, never kept stale behind a signature taken after the write."""
        problems: list[str] = []
        listed: dict[str, list[documents.SearchDoc]] = {}
        for entry in neighbour_entries.entries(self.folder, problems):
            doc = entry_document(entry, self.folder.format)
            listed.setdefault(doc.source, []).append(doc)
        self.problems = problems
        self._listed = listed
        return {source: ("file", source, _signature(docs)) for source, docs in listed.items()}

    def read_source(self, kind: str, locator: Any) -> list[documents.SearchDoc]:
        return list(self._listed.get(locator, ()))


def origin_of(doc: documents.SearchDoc) -> dict[str, Any] | None:
    """Where a neighbour's entry is (its `metadata["origin"]`), None for other documents."""
    found = (doc.metadata or {}).get("origin")
    return found if isinstance(found, dict) else None


def source_of(
    target: vault.Vault | neighbour_folder.ForeignFolder | DocumentSource,
) -> DocumentSource:
    """The documents source of `target`: a `vault.Vault`, a `ForeignFolder`, or a
    `DocumentSource` already."""
    from vault_app.core import vault as vault_module

    if isinstance(target, vault_module.Vault):
        return VaultSource(target)
    if isinstance(target, neighbour_folder.ForeignFolder):
        return FolderSource(target)
    return target


def has_saved_index(source: DocumentSource) -> bool:
    """Whether an index was saved for `source` (its embeddings are then loaded ahead)."""
    folder = source.index_dir
    return folder is not None and os.path.isfile(folder / "docs.jsonl")


def semantic_component(
    source: DocumentSource, model: str | None, *, touch: bool = True
) -> tuple[VectorRows | None, str | None]:
    """The semantic side for `source` (its embeddings cached where the source says), or
    None and the reason it is not available; `touch`: fault the matrix's memory in now
    (`VectorRows.preload`)."""
    from vault_app.search import embedding_cache, embedding_model, semantic, vector_rows

    available, reason = semantic.semantic_available(model)
    if not available:
        return None, f"semantic search is not available: {reason}"
    notices: list[str] = []
    try:
        encoder = semantic.load_encoder(model, notice=notices.append)
    except embedding_model.SemanticUnavailable as exc:
        return None, f"semantic search is not available: {exc}"
    except OSError as exc:  # the model cache cannot be written (a read-only home, a full disk)
        where = f"{exc.filename}: " if exc.filename else ""
        return None, f"semantic search is not available: {where}{exc.strerror or exc}"
    with contextlib.suppress(OSError):  # the user's cache folder, for a neighbour's:
        source.cache_root.mkdir(parents=True, exist_ok=True)  # unwritable: kept in memory
    cache = embedding_cache.EmbeddingCache(source.embeddings_dir, root=source.cache_root)
    component = vector_rows.VectorRows(encoder, cache)
    try:
        component.preload(touch=touch)
    except errors.SymlinkError as exc:  # the cache's folders are checked first
        return None, f"semantic search is not available: {exc}"
    return component, "; ".join(notices) or None
