"""The vault's search engine: BM25 always, semantic when available, hybrid of both.

`SearchEngine(vault).open()` loads the persisted index from `.vault/cache/search/`,
checks it against the files (a per-source signature: size and mtime of the entity's
fact file and summary, or of the daily note) and re-indexes only the sources that
changed, appeared or vanished; a first open builds everything. After that,
`refresh_entity` / `refresh_daily` (or `refresh()` to re-check every signature) keep it
current at the cost of the changed documents only.

Filters (`Filters`) become one vectorised mask over a columnar table of document
metadata (kind, scope, PARA category, tier inputs, status, fact category, agent, times),
applied inside the BM25 and semantic top-k, never after it. Tiers are computed at query
time with the vault's decay policy.

Hybrid: both rankings give their top candidates; each score is scaled to [0, 1] over
the candidates (BM25 by its maximum, cosine by min-max) and the two are blended,
`w * bm25 + (1 - w) * semantic` (w = `bm25_weight`, 0.2 by default, chosen on the
evaluation set in `benchmarks/eval/`). Every hit carries these parts for `--explain`.

A floor on the raw scores keeps noise out: min-max scaling stretches any cosines to
[0, 1], so a nonsense query (`zzqxv`, `?!`, stopwords only) would otherwise get ten hits
scored near 1.0 — and an agent's search marks its hits accessed. A semantic or hybrid
hit must contain a query term (BM25 finds it) or have a raw cosine of at least
`min_cosine` (0.32 for all-MiniLM-L6-v2, `[search] min_cosine`); whatever falls below
is not returned, so it is never marked accessed. On the evaluation set the floor keeps
hit@5 and lifts hit@10 (`benchmarks/search_quality.py`), while 96% of random strings
and punctuation queries get no semantic hit at all.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import datetime as dt
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt
import orjson

from vault_app.core import decay, errors, formats, layout, memory, safe_fs, storage, vault
from vault_app.search import bm25, documents, tokenizer

if TYPE_CHECKING:  # the semantic modules are imported when semantic search is turned on
    from vault_app.search.vector_rows import VectorRows

MODES = ("bm25", "semantic", "hybrid")
INDEX_VERSION = 6  # 6: one document per line, read lazily; text keys in the columns
_CHUNK = 8192  # keys and sources per line of docs.jsonl (and per step of loading it)
Progress = Callable[[int, int], None]
BoolArray = npt.NDArray[np.bool_]

_KIND = {k: i for i, k in enumerate(documents.KINDS)}
_STATUS = {"active": 0, "superseded": 1}
_TIER_NAMES = ("hot", "warm", "cold")
log = logging.getLogger(__name__)


@dataclass
class Filters:
    """What a search may return; None means "any". Status is active by default."""

    kinds: frozenset[str] = frozenset(documents.KINDS)
    scope: str | frozenset[str] | None = None  # "global", "agent:<id>", or a set of them
    para: str | None = None  # projects / areas / resources / archives
    tiers: frozenset[str] | None = None  # hot / warm / cold (facts)
    status: str | None = "active"  # "active", "superseded" or None for both
    categories: frozenset[str] | None = None  # fact categories
    agent: str | None = None  # the fact's agentId, or the daily note's agent
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    date_field: str = "timestamp"  # or "lastAccessed"


@dataclass
class Hit:
    key: str
    kind: str
    scope: str
    text: str
    score: float
    parts: dict[str, float | int | None]
    path: str
    entity: str | None = None
    fact_id: str | None = None
    tier: str | None = None
    status: str | None = None
    category: str | None = None
    agent: str | None = None
    source: str | None = None
    date: dt.date | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "scope": self.scope,
            "entity": self.entity,
            "id": self.fact_id,
            "key": self.key,
            "text": self.text,
            "score": round(self.score, 6),
            "parts": self.parts,
            "tier": self.tier,
            "status": self.status,
            "category": self.category,
            "agentId": self.agent,
            "source": self.source,
            "date": self.date.isoformat() if self.date else None,
            "path": str(self.path),
        }


@dataclass
class SearchResult:
    hits: list[Hit]
    mode: str  # the mode actually used
    notice: str | None = None  # e.g. why semantic search fell back to BM25
    seconds: float = 0.0


@dataclass
class OpenReport:
    loaded: bool  # a persisted index was used
    reindexed_sources: int
    removed_sources: int
    documents: int
    seconds: float
    notice: str | None = None


class _Columns:
    """Document metadata as numpy columns, one row per document ever added."""

    GROW = 1024

    def __init__(self) -> None:
        self.row: dict[str, int] = {}
        self.keys: list[str] = []  # key of each row
        self.size = 0
        self.version = 0  # changes with every put/drop (keys the engine's mask caches)
        self._alloc(self.GROW)

    def _alloc(self, n: int) -> None:
        def grown(old: npt.NDArray[Any] | None, dtype: Any, fill: Any) -> npt.NDArray[Any]:
            new = np.full(n, fill, dtype=dtype)
            if old is not None:
                new[: old.size] = old
            return new

        old = getattr(self, "live", None)
        get = (lambda name: getattr(self, name)) if old is not None else (lambda name: None)
        self.live = grown(get("live"), np.bool_, False)
        self.kind = grown(get("kind"), np.int8, -1)
        self.status = grown(get("status"), np.int8, 0)
        self.timestamp = grown(get("timestamp"), np.float64, np.nan)
        self.last = grown(get("last"), np.float64, np.nan)
        self.access = grown(get("access"), np.int64, 0)
        # small vocabularies: codes into per-column lists
        self.scope = grown(get("scope"), np.int32, -1)
        self.para = grown(get("para"), np.int32, -1)
        self.category = grown(get("category"), np.int32, -1)
        self.agent = grown(get("agent"), np.int32, -1)
        self.text_key = grown(get("text_key"), np.uint64, 0)  # documents.text_key(text)
        if old is None:
            self.codes: dict[str, dict[str | None, int]] = {
                name: {} for name in ("scope", "para", "category", "agent")
            }

    def code(self, column: str, value: str | None) -> int:
        if value is None:
            return -1
        table = self.codes[column]
        if value not in table:
            table[value] = len(table)
        return table[value]

    def lookup(self, column: str, value: str | None) -> int:
        """The code of `value`, or -2 when no document has it (matches nothing)."""
        if value is None:
            return -1
        return self.codes[column].get(value, -2)

    def put_many(self, docs: Sequence[documents.SearchDoc]) -> None:
        """Write the rows of `docs` (new keys get new rows), column by column."""
        if not docs:
            return
        self.version += 1
        rows = []
        for doc in docs:
            row = self.row.get(doc.key)
            if row is None:
                row = self.row[doc.key] = self.size
                self.keys.append(doc.key)
                self.size += 1
            rows.append(row)
        if self.size > self.live.size:
            self._alloc(max(self.size, self.live.size * 2))
        index = np.asarray(rows, dtype=np.int64)
        nan = float("nan")
        self.live[index] = True
        self.kind[index] = [_KIND[d.kind] for d in docs]
        self.status[index] = [_STATUS[d.status] for d in docs]
        self.timestamp[index] = [nan if d.timestamp is None else d.timestamp for d in docs]
        self.last[index] = [nan if d.last_accessed is None else d.last_accessed for d in docs]
        self.access[index] = [d.access_count for d in docs]
        for column in ("scope", "para", "category", "agent"):
            getattr(self, column)[index] = [self.code(column, getattr(d, column)) for d in docs]
        self.text_key[index] = documents.text_keys(d.text for d in docs)

    def drop(self, key: str) -> None:
        row = self.row.get(key)
        if row is not None:
            self.live[row] = False
            self.version += 1

    _ARRAYS = (
        "live", "kind", "status", "timestamp", "last", "access",
        "scope", "para", "category", "agent", "text_key",
    )  # fmt: skip

    def arrays(self, keys: Sequence[str]) -> dict[str, npt.NDArray[Any]]:
        """The columns of `keys`' rows, in that order (dead rows left out): for saving."""
        order = np.fromiter((self.row[k] for k in keys), dtype=np.int64, count=len(keys))
        return {name: getattr(self, name)[order] for name in self._ARRAYS}

    @classmethod
    def from_arrays(
        cls,
        keys: list[str],
        arrays: dict[str, npt.NDArray[Any]],
        codes: dict[str, dict[str | None, int]],
    ) -> _Columns:
        """Columns as `arrays` saved them: row i is `keys[i]`; no per-row Python work."""
        columns = cls.__new__(cls)
        columns.keys = keys
        columns.row = {k: i for i, k in enumerate(keys)}
        columns.size = len(keys)
        columns.version = 0
        for name in cls._ARRAYS:
            array = arrays[name]
            if array.shape != (len(keys),):
                raise ValueError(f"column {name} has {array.shape}, expected ({len(keys)},)")
            setattr(columns, name, array.copy())
        columns.codes = {name: dict(table) for name, table in codes.items()}
        return columns

    def tiers(self, policy: decay.DecayPolicy, now: float) -> npt.NDArray[np.int8]:
        """0 hot, 1 warm, 2 cold for every row (by days since last touch and accesses)."""
        n = self.size
        last = self.last[:n]
        days = np.where(np.isnan(last), decay.NEVER, np.floor((now - np.nan_to_num(last)) / 86400))
        # the policy's table, vectorised by its rule: level i + 1 once access > above[i]
        # (ascending, so the last that holds wins; as fast as the search ever was)
        table = policy.threshold_table()
        hot = np.full(n, table.hot_days[0], dtype=np.float64)
        warm = np.full(n, table.warm_days[0], dtype=np.float64)
        for index, floor in enumerate(table.above, start=1):
            above = self.access[:n] > floor
            hot[above] = table.hot_days[index]
            warm[above] = table.warm_days[index]
        return np.where(days <= hot, 0, np.where(days <= warm, 1, 2)).astype(np.int8)

    def mask(self, filters: Filters, tiers: npt.NDArray[np.int8] | None) -> BoolArray:
        n = self.size
        keep = self.live[:n].copy()
        kinds = [_KIND[k] for k in filters.kinds]
        keep &= np.isin(self.kind[:n], kinds)
        if filters.scope is not None:
            scopes = [filters.scope] if isinstance(filters.scope, str) else filters.scope
            keep &= np.isin(self.scope[:n], [self.lookup("scope", s) for s in scopes])
        if filters.para is not None:
            keep &= self.para[:n] == self.lookup("para", filters.para)
        if filters.status is not None:
            keep &= self.status[:n] == _STATUS[filters.status]
        if filters.categories is not None:
            codes = [self.lookup("category", c) for c in filters.categories]
            keep &= np.isin(self.category[:n], codes)
        if filters.agent is not None:
            keep &= self.agent[:n] == self.lookup("agent", filters.agent)
        if filters.tiers is not None and tiers is not None:
            wanted = [_TIER_NAMES.index(t) for t in filters.tiers]
            is_fact = self.kind[:n] == _KIND[documents.FACT]
            keep &= ~is_fact | np.isin(tiers, wanted)
        if filters.since is not None or filters.until is not None:
            values = self.last[:n] if filters.date_field == "lastAccessed" else self.timestamp[:n]
            with np.errstate(invalid="ignore"):
                if filters.since is not None:
                    keep &= values >= decay.as_aware(filters.since).timestamp()
                if filters.until is not None:
                    keep &= values <= decay.as_aware(filters.until).timestamp()
        return keep


class _Docs(dict[str, Any]):
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

    def lines(self) -> list[bytes]:
        """Every document as its line of docs.jsonl, in order (saved lines as they are)."""
        root = self.root
        return [
            v if isinstance(v, bytes) else orjson.dumps(_doc_to_json(v, root))
            for v in super().values()
        ]


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
class _State:
    docs: _Docs
    by_source: dict[str, set[str]] = field(default_factory=dict)
    signatures: dict[str, list[int]] = field(default_factory=dict)


class SearchEngine:
    """Search over one vault. Thread-safe: one lock serialises changes and queries."""

    def __init__(
        self,
        target: vault.Vault,
        *,
        tokens: tokenizer.Tokenizer | None = None,
        semantic: VectorRows | None = None,
        semantic_notice: str | None = None,
        bm25_weight: float = 0.2,
        candidates: int = 100,
        min_cosine: float = 0.32,
    ) -> None:
        self.vault = target
        self.min_cosine = min_cosine  # the raw cosine a hit needs without a query term
        self.tokens = tokens or tokenizer.Tokenizer()
        self.semantic = semantic
        self.semantic_notice = semantic_notice
        self.bm25_weight = bm25_weight
        self.candidates = candidates
        self.folder = target.paths.state_dir / "cache" / "search"
        self.bm25 = bm25.BM25Index()
        self.columns = _Columns()
        self.state = _State(_Docs(target.root))
        self._lock = threading.RLock()
        self._slot_cache: tuple[int, npt.NDArray[np.int64]] | None = None
        self._masks: dict[Any, tuple[BoolArray, npt.NDArray[np.int8]]] = {}
        self._allowed: dict[Any, BoolArray] = {}
        # why the index lives in memory only (its folder cannot be written), if it does
        self.save_notice: str | None = None

    def cache_notice(self) -> str | None:
        """Why a cache under `.vault/cache/` is kept in memory only (a read-only vault, a
        full disk), or None: searching works the same, the next open rebuilds it."""
        notices = [self.save_notice]
        if self.semantic is not None and self.semantic.cache is not None:
            notices.append(self.semantic.cache.memory_only)
        return "; ".join(n for n in notices if n) or None

    # -- sources ------------------------------------------------------------------------

    @staticmethod
    def _entity_signature(folder: layout.EntityFolder) -> list[int]:
        """(size, mtime) of the entity's fact file and of its summary; -1s when absent."""
        sig: list[int] = []
        base = os.fspath(folder.folder)
        facts = folder.facts_file.name if folder.facts_file is not None else None
        for name in (facts, layout.SUMMARY_NAME):
            try:
                info = os.stat(f"{base}/{name}") if name else None
            except FileNotFoundError:
                info = None
            sig += [info.st_size, info.st_mtime_ns] if info else [-1, -1]
        return sig

    @staticmethod
    def _file_signature(path: Path) -> list[int]:
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return [-1, -1]
        return [info.st_size, info.st_mtime_ns]

    def _current_sources(self) -> dict[str, tuple[str, Any, list[int]]]:
        """Every source on disk now: source id -> (kind, locator, signature).

        The folders are listed ahead by two threads (on a cold disk their waits overlap)
        while this one stats the files: with more threads, or the stats spread over them
        too, a warm walk of 10,000 entities takes twice as long (0.97 s against 0.59 s),
        the threads mostly waiting for each other's turn at the interpreter.
        """
        found: dict[str, tuple[str, Any, list[int]]] = {}
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for folder in self.vault.paths.iter_all_entities(pool=pool):
                signature = self._entity_signature(folder)
                found[documents.entity_source(folder.ref)] = ("entity", folder, signature)
        for agent in self.vault.paths.scopes():
            scope = documents.scope_of(agent)
            for day in self.vault.paths.daily_dates(agent):
                path = self.vault.paths.daily_file(day, agent)
                found[documents.daily_source(scope, day)] = (
                    "daily",
                    (agent, day),
                    self._file_signature(path),
                )
        return found

    def _read_source(self, kind: str, locator: Any) -> list[documents.SearchDoc]:
        """The documents of one source as on disk now (unreadable files give none)."""
        if kind == "entity":
            folder: layout.EntityFolder = locator
            file = None
            summary = None
            try:
                if folder.facts_file is not None:
                    data = self.vault.storage.read(folder.facts_file)
                    file = formats.decode(folder.facts_file, data or b"")
            except errors.CorruptFileError:
                file = None
            try:
                doc = self.vault.storage.read_text(folder.folder / "summary.md")
                summary = doc[0] if doc else None
            except errors.CorruptFileError:
                summary = None
            return list(documents.entity_documents(folder.ref, file, summary, folder.folder))
        agent, day = locator
        try:
            note = self.vault.daily_note(day, agent)
        except (errors.NotFoundError, errors.CorruptFileError):
            return []
        return list(documents.daily_documents(note))

    def _apply(
        self,
        changed: dict[str, tuple[list[documents.SearchDoc], list[int]]],
        removed: Iterable[str],
        progress: Progress | None = None,
    ) -> None:
        """Replace the documents of changed sources and drop removed sources."""
        state = self.state
        dropped: list[str] = []
        for source in [*removed, *changed]:
            for key in state.by_source.pop(source, ()):
                dropped.append(key)
            state.signatures.pop(source, None)
        added: list[documents.SearchDoc] = []
        for source, (docs, signature) in changed.items():
            state.by_source[source] = {d.key for d in docs}
            state.signatures[source] = signature
            added += docs
        fresh = {d.key for d in added}
        gone = [k for k in dropped if k not in fresh]
        for key in gone:
            state.docs.pop(key, None)
            self.columns.drop(key)
        self.bm25.remove_many(gone)
        for doc in added:
            state.docs[doc.key] = doc
        self.columns.put_many(added)
        texts = self.tokens.tokenize_many(d.index_text for d in added)
        self.bm25.add_many(zip((d.key for d in added), texts, strict=True))
        if self.semantic is not None:
            rows = self.columns.row
            self.semantic.drop([rows[k] for k in gone if k in rows])
            self.semantic.put([rows[d.key] for d in added], [d.text for d in added], progress)

    # -- opening and refreshing -------------------------------------------------------------

    def open(
        self,
        progress: Progress | None = None,
        *,
        semantic: Callable[[], tuple[VectorRows | None, str | None]] | None = None,
    ) -> OpenReport:
        """Load the persisted index if it is ours, then catch up with the files.

        `semantic`, when given, loads the semantic side (`_semantic_component`): it runs
        on a helper thread while the index is read, as does the listing of the vault that
        the catch-up compares with; both mostly wait on the kernel or run outside the
        interpreter (model files, inference session), which a reopen then hides.
        """
        started = time.perf_counter()
        with (
            self._lock,
            concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="vault-app-open") as aid,
        ):
            sources = aid.submit(self._current_sources)
            component = aid.submit(semantic) if semantic is not None else None
            loaded, notice = self._load()
            if component is not None:
                self.semantic, self.semantic_notice = component.result()
            if loaded and self.semantic is not None:
                rows = [self.columns.row[key] for key in self.state.docs]
                keys = self.columns.text_key[rows]
                self.semantic.put(rows, self.state.docs.texts(), progress, keys=keys)
            report = self._catch_up(progress, sources.result())
            if report[0] or report[1] or not loaded:
                self._save_if_possible()
        return OpenReport(
            loaded=loaded,
            reindexed_sources=report[0],
            removed_sources=report[1],
            documents=len(self.state.docs),
            seconds=time.perf_counter() - started,
            notice=notice,
        )

    def enable_semantic(
        self, model: str | None = None, progress: Progress | None = None
    ) -> str | None:
        """Add semantic search to an engine opened without it, while it keeps serving.

        Loads the model and embeds every document (cached embeddings cost a lookup) outside
        the engine's lock, so BM25 queries go on meanwhile; documents that changed during
        the encoding are caught up before semantic search is switched on. Returns the
        notice (why semantic search is unavailable, or a note on the model), as
        `semantic_notice` then says too.
        """
        settings = self.vault.config.search
        if not settings.semantic:
            self.semantic_notice = (
                "semantic search is off ([search] semantic = false in .vault/config.toml)"
            )
            return self.semantic_notice
        component, notice = _semantic_component(self.vault, model or settings.model)
        if component is None:
            self.semantic_notice = notice
            return notice
        while True:
            with self._lock:
                version = self.columns.version
                rows = [self.columns.row[key] for key in self.state.docs]
                texts = self.state.docs.texts()
                keys = self.columns.text_key[rows]
            component.put(rows, texts, progress, keys=keys)
            with self._lock:
                if self.columns.version == version:
                    self.semantic, self.semantic_notice = component, notice
                    return notice

    def _catch_up(
        self,
        progress: Progress | None = None,
        current: dict[str, tuple[str, Any, list[int]]] | None = None,
    ) -> tuple[int, int]:
        """Re-index the sources whose signature changed since the index was saved (and
        drop the removed ones); `current` is `_current_sources()` if already listed."""
        if current is None:
            current = self._current_sources()
        known = self.state.signatures
        changed: dict[str, tuple[list[documents.SearchDoc], list[int]]] = {}
        # The documents made here live as long as the engine: as in `_load`, without the
        # collector (re-indexing 2,000 entities set off full collections of 85-90 ms, each
        # holding the interpreter while the window waited).
        with memory.paused(freeze=True):
            for source, (kind, locator, signature) in current.items():
                if known.get(source) != signature:
                    changed[source] = (self._read_source(kind, locator), signature)
            removed = [s for s in known if s not in current]
            if changed or removed:
                self._apply(changed, removed, progress)
        return len(changed), len(removed)

    def refresh(self) -> tuple[int, int]:
        """Re-check every source's signature; re-index what changed. (changed, removed)"""
        with self._lock:
            return self._catch_up()

    def refresh_entity(self, ref: layout.EntityRef | str) -> int:
        """Re-index one entity's documents (it may have vanished); returns their count."""
        ref = ref if isinstance(ref, layout.EntityRef) else layout.EntityRef.parse(ref)
        source = documents.entity_source(ref)
        folder_path = self.vault.paths.entity_dir(ref)
        with self._lock, memory.paused(freeze=True):  # as in `_catch_up`
            if not folder_path.is_dir():
                self._apply({}, [source])
                return 0
            folder = layout.EntityFolder(
                ref,
                folder_path,
                self.vault.paths.facts_file(folder_path),
                (folder_path / "summary.md").is_file(),
            )
            docs = self._read_source("entity", folder)
            self._apply({source: (docs, self._entity_signature(folder))}, [])
            return len(docs)

    def mark_accessed(self, fact_ids: Iterable[str]) -> dict[str, int]:
        """Count one access of each fact and re-index the entities holding them.

        The one call every face uses for "these facts were read" (the CLI's `search
        --agent`, the context builder): `Vault.mark_accessed` writes the counts (one
        batched write per entity), then each touched entity is re-indexed so that tiers
        and ranking see the new counts at once. Returns the new counts by fact id.
        """
        marked = self.vault.mark_accessed(fact_ids)
        entities = {
            doc.entity
            for fid in marked
            if (doc := self.document(f"fact:{fid}")) is not None and doc.entity is not None
        }
        for entity in sorted(entities):
            self.refresh_entity(entity)
        return marked

    def refresh_daily(self, day: dt.date, agent: str | None = None) -> int:
        source = documents.daily_source(documents.scope_of(agent), day)
        path = self.vault.paths.daily_file(day, agent)
        with self._lock, memory.paused(freeze=True):  # as in `_catch_up`
            if not path.is_file():
                self._apply({}, [source])
                return 0
            docs = self._read_source("daily", (agent, day))
            self._apply({source: (docs, self._file_signature(path))}, [])
            return len(docs)

    # -- persistence ------------------------------------------------------------------------

    def _header(self) -> dict[str, Any]:
        return {"version": INDEX_VERSION, "tokenizer": self.tokens.fingerprint}

    def save(self) -> None:
        """Persist the index (plain files; safe to delete: it is rebuilt on open).

        docs.jsonl holds a header line, a line with every document's key and source, then
        one line per document in that order (path relative to the vault; BM25's text is
        not kept, the BM25 index has it), which a reopen keeps unparsed until the
        document is needed; columns.npz their metadata columns in the same order, bm25/
        the index; all three carry the hash of docs.jsonl, so a set written half-way is
        recognised and rebuilt.
        """
        with self._lock:
            # no symlink from the vault down to the index's files (errors.SymlinkError)
            safe_fs.make_dirs(self.vault.root, self.folder / "bm25")
            keys = list(self.state.docs)
            source_of = {k: source for source, ks in self.state.by_source.items() for k in ks}
            head = {
                **self._header(),
                "signatures": self.state.signatures,
                "codes": self.columns.codes,
            }
            sources = [source_of[k] for k in keys]
            names = [
                orjson.dumps([keys[i : i + _CHUNK], sources[i : i + _CHUNK]])
                for i in range(0, len(keys), _CHUNK)
            ]
            head["name_lines"] = len(names)
            lines = [orjson.dumps(head), *names, *self.state.docs.lines()]
            body = b"\n".join(lines) + b"\n"
            save_id = storage.sha256(body)[:16]
            arrays = self.columns.arrays(keys)
            arrays["save_id"] = np.frombuffer(save_id.encode("ascii"), dtype=np.uint8)
            token = f"{os.getpid()}.{secrets.token_hex(4)}"
            temp = self.folder / f".columns.{token}.tmp.npz"
            try:  # temporary files made new: nothing at their names is written through
                with os.fdopen(safe_fs.create(temp), "wb") as stream:
                    np.savez(stream, allow_pickle=False, **arrays)
                os.replace(temp, self.folder / "columns.npz")
                self.bm25.save(self.folder / "bm25", meta={**self._header(), "docs": save_id})
                temp = self.folder / f".docs.jsonl.{token}.tmp"
                safe_fs.write_new(temp, body)
                os.replace(temp, self.folder / "docs.jsonl")
            finally:
                with contextlib.suppress(OSError):  # a full disk leaves no half file
                    os.unlink(temp)

    def _save_if_possible(self) -> None:
        """`save`, or, when the cache folder cannot be written (a read-only vault, a full
        disk) or a name is not UTF-8, keep the index in memory and say so in
        `save_notice`: reading a vault never needs writing to it."""
        try:
            self.save()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.save_notice = (
                f"the search index is kept in memory only: cannot write "
                f"{exc.filename or self.folder} ({reason})"
            )
            log.info("%s", self.save_notice)
        except errors.CorruptFileError as exc:  # a symlink or a file on the way: not written
            self.save_notice = f"the search index is kept in memory only: {exc}"
            log.info("%s", self.save_notice)
        except orjson.JSONEncodeError as exc:  # a file or folder name that is not UTF-8
            self.save_notice = (
                f"the search index is kept in memory only: it cannot be saved as JSON ({exc}; "
                "`vault-app doctor` names the file or folder)"
            )
            log.info("%s", self.save_notice)
        else:
            self.save_notice = None

    def _load(self) -> tuple[bool, str | None]:
        # 10^6 small objects are made here and live as long as the engine: the collector
        # stays off meanwhile (it would be most of the cost, and a full collection holds
        # the interpreter long enough to freeze the window), then they are frozen out of
        # its reach
        with memory.paused(freeze=True):
            return self._load_uncollected()

    def _load_uncollected(self) -> tuple[bool, str | None]:
        path = self.folder / "docs.jsonl"
        try:
            # regular files only (a FIFO there would block the open), no symlink followed
            safe_fs.check_tree(self.vault.root, path, safe_fs.STATE_READ)
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
            index = bm25.BM25Index.load(self.folder / "bm25")
            with (
                safe_fs.reading(self.folder / "columns.npz") as stream,
                np.load(stream, allow_pickle=False) as npz,
            ):
                arrays = {name: npz[name] for name in npz.files}
        except (FileNotFoundError, NotADirectoryError):  # no index (or no cache folder)
            return False, None
        except (
            orjson.JSONDecodeError,
            bm25.IndexFormatError,
            OSError,
            ValueError,
            errors.CorruptFileError,
        ) as exc:
            return False, f"search index cache was unreadable and is rebuilt ({exc})"
        if not isinstance(data, dict):
            return False, "search index cache was from another version; rebuilt"
        header_ok = {k: data.get(k) for k in self._header()} == self._header()
        meta = index.meta or {}
        saved_with = bytes(arrays.get("save_id", np.zeros(0, np.uint8))).decode("ascii", "replace")
        if not header_ok or meta.get("docs") != save_id or saved_with != save_id:
            return False, "search index cache was from another version or half-written; rebuilt"
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
            docs = _Docs(self.vault.root)
            for start in range(0, len(keys), _CHUNK):
                chunk = slice(start, start + _CHUNK)
                docs.update(zip(keys[chunk], rows[chunk], strict=True))
            by_source: dict[str, set[str]] = {}
            for key, source in zip(keys, sources, strict=True):
                by_source.setdefault(source, set()).add(key)
            columns = _Columns.from_arrays(keys, arrays, data["codes"])
            signatures = {k: list(v) for k, v in data["signatures"].items()}
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            return False, f"search index cache did not fit this version and is rebuilt ({exc})"
        self.state = _State(docs, by_source, signatures)
        self.columns = columns
        self.bm25 = index
        return True, None

    # -- searching -------------------------------------------------------------------------

    def _slot_rows(self) -> npt.NDArray[np.int64]:
        """Column row of every BM25 slot (-1 for dead slots), cached per index generation."""
        cached = self._slot_cache
        if cached is not None and cached[0] == self.bm25.generation:
            return cached[1]
        rows = self.columns.row
        keys = self.bm25.slot_keys()
        mapped = np.fromiter(
            (rows.get(k, -1) if k is not None else -1 for k in keys),
            dtype=np.int64,
            count=len(keys),
        )
        self._slot_cache = (self.bm25.generation, mapped)
        return mapped

    def _row_mask(
        self, filters: Filters, now: dt.datetime
    ) -> tuple[BoolArray, npt.NDArray[np.int8]]:
        """Rows passing `filters`, and every row's tier; cached until the rows change
        (or the minute does: tiers move with the clock)."""
        key = (repr(filters), self.columns.version, int(now.timestamp() // 60))
        cached = self._masks.get(key)
        if cached is None:
            if len(self._masks) > 32:
                self._masks.clear()
            tiers = self.columns.tiers(self.vault.config.decay, now.timestamp())
            cached = self._masks[key] = (self.columns.mask(filters, tiers), tiers)
        return cached

    def _allowed_slots(self, filters: Filters, rows: BoolArray, now: dt.datetime) -> BoolArray:
        """`rows` as a mask over BM25 slots; cached per index generation."""
        key = (
            repr(filters),
            self.columns.version,
            int(now.timestamp() // 60),
            self.bm25.generation,
        )
        allowed = self._allowed.get(key)
        if allowed is None:
            if len(self._allowed) > 32:
                self._allowed.clear()
            slot_rows = self._slot_rows()
            allowed = np.zeros(slot_rows.size, dtype=np.bool_)
            valid = slot_rows >= 0
            allowed[valid] = rows[slot_rows[valid]]
            self._allowed[key] = allowed
        return allowed

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        filters: Filters | None = None,
        limit: int = 10,
        explain: bool = False,
    ) -> SearchResult:
        """The `limit` best documents for `query`; hybrid falls back to BM25 if needed."""
        started = time.perf_counter()
        if mode not in MODES:
            raise errors.VaultError(f"unknown search mode {mode!r}: use {', '.join(MODES)}")
        filters = filters or Filters()
        notice = None
        if mode != "bm25" and self.semantic is None:
            notice = self.semantic_notice or "semantic search is not available"
            notice += "; showing BM25 results"
            mode = "bm25"
        now = self.vault.now()
        with self._lock:
            rows, tiers = self._row_mask(filters, now)
            k = max(limit, self.candidates) if mode == "hybrid" else limit
            lexical: list[tuple[str, float]] = []
            semantic: list[tuple[str, float]] = []
            tokens = self.tokens.tokenize(query)
            if mode in ("bm25", "hybrid") and tokens:
                lexical = self.bm25.top(tokens, k, self._allowed_slots(filters, rows, now))
            if mode in ("semantic", "hybrid") and self.semantic is not None and query.strip():
                keys = self.columns.keys
                semantic = [(keys[r], c) for r, c in self.semantic.top(query, k, rows)]
            ranked = self._fuse(query, tokens, mode, lexical, semantic, limit)
            hits = [self._hit(key, score, parts, tiers, explain) for key, score, parts in ranked]
        return SearchResult(hits, mode, notice, time.perf_counter() - started)

    def _fuse(
        self,
        query: str,
        tokens: list[str],
        mode: str,
        lexical: list[tuple[str, float]],
        semantic: list[tuple[str, float]],
        limit: int,
    ) -> list[tuple[str, float, dict[str, float | int | None]]]:
        if mode == "bm25":
            return [
                (k, s, {"bm25": s, "bm25Rank": i + 1}) for i, (k, s) in enumerate(lexical[:limit])
            ]
        floor = self.min_cosine
        if mode == "semantic":
            kept = [(k, s) for k, s in semantic if s >= floor]
            return [
                (k, s, {"semantic": s, "semanticRank": i + 1})
                for i, (k, s) in enumerate(kept[:limit])
            ]
        lex = dict(lexical)
        sem = dict(semantic)
        union = list(dict.fromkeys([*lex, *sem]))
        if self.semantic is not None:
            missing = [k for k in union if k not in sem]
            if missing:
                all_scores = self.semantic.scores(query, self.columns.size)
                sem.update({k: float(all_scores[self.columns.row[k]]) for k in missing})
        missing_lex = [k for k in union if k not in lex]
        if missing_lex and tokens:
            scores = self.bm25.scores(tokens)
            for key in missing_lex:
                slot = self.bm25.slot(key) if key in self.bm25 else -1
                lex[key] = float(scores[slot]) if slot >= 0 else 0.0
        top_lex = max(lex.values(), default=0.0)
        sem_values = [sem[k] for k in union if k in sem]
        lo, hi = (min(sem_values), max(sem_values)) if sem_values else (0.0, 0.0)
        lex_rank = {k: i + 1 for i, (k, _) in enumerate(lexical)}
        sem_rank = {k: i + 1 for i, (k, _) in enumerate(semantic)}
        w = self.bm25_weight
        fused = []
        for key in union:
            b = lex.get(key, 0.0)
            s = sem.get(key, lo)
            if key not in lex_rank and b <= 0.0 and s < floor:
                continue  # no query term in it and a cosine of noise: not a hit
            nb = b / top_lex if top_lex > 0 else 0.0
            ns = (s - lo) / (hi - lo) if hi > lo else (1.0 if sem_values else 0.0)
            score = w * nb + (1 - w) * ns
            fused.append(
                (
                    key,
                    score,
                    {
                        "bm25": b,
                        "bm25Norm": nb,
                        "bm25Rank": lex_rank.get(key),
                        "semantic": s,
                        "semanticNorm": ns,
                        "semanticRank": sem_rank.get(key),
                        "bm25Weight": w,
                    },
                )
            )
        fused.sort(key=lambda item: (-item[1], item[0]))
        return fused[:limit]

    def _hit(
        self,
        key: str,
        score: float,
        parts: dict[str, float | int | None],
        tiers: npt.NDArray[np.int8],
        explain: bool,
    ) -> Hit:
        doc = self.state.docs[key]
        tier = None
        if doc.kind == documents.FACT and doc.status == "active":
            tier = _TIER_NAMES[int(tiers[self.columns.row[key]])]
        return Hit(
            key=key,
            kind=doc.kind,
            scope=doc.scope,
            text=doc.text,
            score=score,
            parts=parts
            if explain
            else {k: v for k, v in parts.items() if k in ("bm25", "semantic")},
            path=doc.path,
            entity=doc.entity,
            fact_id=doc.fact_id,
            tier=tier,
            status=doc.status if doc.kind == documents.FACT else None,
            category=doc.category,
            agent=doc.agent,
            source=doc.source_ref,
            date=doc.date,
        )

    def document(self, key: str) -> documents.SearchDoc | None:
        return self.state.docs.get(key)

    def ranked_without_query(self, filters: Filters, limit: int) -> list[Hit]:
        """Documents passing `filters` with no query: facts hot first then by
        accessCount, other documents newest first."""
        with self._lock:
            rows, tiers = self._row_mask(filters, self.vault.now())
            chosen = np.flatnonzero(rows)
            if chosen.size == 0:
                return []
            stamp = np.nan_to_num(self.columns.timestamp[chosen], nan=0.0)
            is_fact = self.columns.kind[chosen] == _KIND[documents.FACT]
            tier = np.where(is_fact, tiers[chosen], 0)
            access = np.where(is_fact, self.columns.access[chosen], 0)
            order = np.lexsort((-stamp, -access, tier))[:limit]
            keys = self.columns.keys
            return [self._hit(keys[chosen[i]], 0.0, {}, tiers, False) for i in order]


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


def open_engine(
    target: vault.Vault,
    *,
    semantic: bool = True,
    model: str | None = None,
    progress: Progress | None = None,
) -> tuple[SearchEngine, OpenReport]:
    """A ready engine for `target`: semantic search too when asked for and available.

    Settings come from the vault's `[search]` table (semantic on/off, model, hybrid
    weight); `model` overrides the configured model.

    Without torch, sentence-transformers or the model, the engine runs on BM25 and says
    why (`SearchEngine.semantic_notice`), never failing.
    """
    settings = target.config.search
    notice = None
    load: Callable[[], tuple[VectorRows | None, str | None]] | None = None
    if not settings.semantic:
        notice = "semantic search is off ([search] semantic = false in .vault/config.toml)"
    elif semantic:
        wanted = model or settings.model

        def load() -> tuple[VectorRows | None, str | None]:
            return _semantic_component(target, wanted)

    search = SearchEngine(
        target,
        semantic_notice=notice,
        bm25_weight=settings.bm25_weight,
        min_cosine=settings.min_cosine,
    )
    return search, search.open(progress, semantic=load)


def _semantic_component(
    target: vault.Vault, model: str | None
) -> tuple[VectorRows | None, str | None]:
    """The semantic side for `target`, or None and the reason it is not available."""
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
    cache = embedding_cache.EmbeddingCache(
        target.paths.state_dir / "cache" / "embeddings", root=target.root
    )
    component = vector_rows.VectorRows(encoder, cache)
    try:
        component.preload()
    except errors.SymlinkError as exc:  # the cache's folders are checked first
        return None, f"semantic search is not available: {exc}"
    return component, "; ".join(notices) or None
