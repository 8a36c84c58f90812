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

The engine's parts live beside it: `columns` (that table, `DocumentColumns`, and `Filters`),
`persistence` (the index's files: save, and a load that parses documents lazily), `catch_up`
(the sources on disk, their signatures, what changed), `bm25`, and `vector_rows`.

Hybrid: both rankings give their top candidates; each score is scaled to [0, 1] over
the candidates (BM25 by its maximum, cosine by min-max) and the two are blended,
`w * bm25 + (1 - w) * semantic` (w = `bm25_weight`, 0.2 by default, chosen on the
evaluation sets in `benchmarks/eval/`; `fusion.LEXICAL_BM25` when one candidate holds most of
the query's words, `fusion.LEXICAL_COVER`); `intent` then weighs the names and days a query
mentions. Every hit carries these parts for `--explain`.

A floor on the raw scores keeps noise out: min-max scaling stretches any cosines to
[0, 1], so a nonsense query (`zzqxv`, `?!`, stopwords only) would otherwise get ten hits
scored near 1.0 — and an agent's search marks its hits accessed. A semantic or hybrid
hit must contain a query term (BM25 finds it) or have a raw cosine of at least
`min_cosine` (0.32 for all-MiniLM-L6-v2, `[search] min_cosine`); whatever falls below
is not returned, so it is never marked accessed (96% of random strings and punctuation
queries get no semantic hit at all). A hit holding a query term must also be a match
(`relevance`: enough meaning, or enough of the query's weight), so one common word of a
nonsense query does not bring every document that has it; each result says which query
words no document holds (`SearchResult.unknown`). Results (`Hit`, `SearchResult`): `results`.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import orjson

from vault_app.core import errors, layout, process_tuning, vault
from vault_app.search import (
    bm25,
    catch_up,
    columns,
    documents,
    engine_lock,
    fusion,
    intent,
    persistence,
    proximity,
    relevance,
    results,
    sources,
    tokenizer,
)
from vault_app.search.columns import Filters as Filters  # what every face passes to search

if TYPE_CHECKING:  # the semantic modules are imported when semantic search is turned on
    from vault_app.core.neighbours.folder import ForeignFolder
    from vault_app.search.vector_rows import VectorRows

MODES = ("bm25", "semantic", "hybrid")
Progress = Callable[[int, int], None]
BoolArray = columns.BoolArray
VaultType = vault.Vault  # (inside the class, `vault` is the engine's property)

log = logging.getLogger(__name__)


Hit = results.Hit  # what a search returns, under the names the faces know them by
SearchResult = results.SearchResult
OpenReport = results.OpenReport


class SearchEngine:
    """Search over one vault, or one neighbour's folder: `target` is a `vault.Vault`, a
    `core.neighbours.ForeignFolder` or any `sources.DocumentSource` (what the engine
    reads its documents from, and where it keeps its caches: see `sources`).
    Thread-safe: one lock serialises changes and queries."""

    def __init__(
        self,
        target: vault.Vault | ForeignFolder | sources.DocumentSource,
        *,
        tokens: tokenizer.Tokenizer | None = None,
        semantic: VectorRows | None = None,
        semantic_notice: str | None = None,
        bm25_weight: float = 0.2,
        candidates: int = 100,
        min_cosine: float = 0.32,
    ) -> None:
        self.source = sources.source_of(target)
        self.min_cosine = min_cosine  # the raw cosine a hit needs without a query term
        self.floor = relevance.Floor(min_cosine)  # what a hit with a query term needs
        self.tokens = tokens or tokenizer.Tokenizer()
        self.semantic = semantic
        self.semantic_notice = semantic_notice
        self.bm25_weight = bm25_weight
        self.candidates = candidates
        self.names = intent.Names()  # the names its documents mention, read as queries come
        self.folder = self.source.index_dir  # None: the index is kept in memory only
        self.bm25 = bm25.BM25Index()
        self.columns = columns.DocumentColumns()
        self.state = persistence.IndexState(persistence.LazyDocs(self.source.root, self.columns))
        self._lock = engine_lock.EngineLock()  # changes alone, queries shared
        self._slot_cache: tuple[int, npt.NDArray[np.int64]] | None = None
        self._masks: dict[Any, tuple[BoolArray, npt.NDArray[np.int8]]] = {}
        self._allowed: dict[Any, BoolArray] = {}
        self.save_notice: str | None = None  # why the index is in memory only, if it is

    @property
    def vault(self) -> VaultType:
        """The PARA vault searched (what only a vault has: marking facts accessed,
        re-indexing one entity or daily note); `errors.VaultError` over a neighbour's
        folder, whose changes `refresh()` catches up with."""
        found = self.source.vault
        if found is None:
            raise errors.VaultError(
                f"{self.source.root} is a neighbour's memory folder, not a PARA vault: "
                "it has no facts to mark accessed or entities to re-index"
            )
        return found

    def cache_notice(self) -> str | None:
        """Why a cache under `.vault/cache/` is kept in memory only (a read-only vault, a
        full disk), or None: searching works the same, the next open rebuilds it."""
        notices = [self.save_notice]
        if self.semantic is not None and self.semantic.cache is not None:
            notices.append(self.semantic.cache.memory_only)
        return "; ".join(n for n in notices if n) or None

    # -- changes -------------------------------------------------------------------------

    def _apply(
        self,
        changed: catch_up.Changed,
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
            state.by_source[source] = tuple(dict.fromkeys(d.key for d in docs))
            state.signatures[source] = signature
            added += docs
        fresh = {d.key for d in added}
        gone = [k for k in dropped if k not in fresh]
        for key in gone:
            state.docs.pop(key, None)
            self.columns.drop(key)
        self.bm25.remove_many(gone)
        self.columns.put_many(added)  # first: the documents are held by their rows
        for doc in added:
            state.docs[doc.key] = doc
        texts = self.tokens.tokenize_many(d.index_text for d in added)
        self.bm25.add_many(zip((d.key for d in added), texts, strict=True))
        self.columns.put_pairs([d.key for d in added], proximity.signatures(texts))
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

        `semantic`, when given, loads the semantic side (`sources.semantic_component`): it runs
        on a helper thread while the index is read, as does the listing of the vault that
        the catch-up compares with; both mostly wait on the kernel or run outside the
        interpreter (model files, inference session), which a reopen then hides.
        """
        started = time.perf_counter()
        with (
            self._lock,
            concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="vault-app-open") as aid,
        ):
            listed = aid.submit(self.source.current_sources)
            component = aid.submit(semantic) if semantic is not None else None
            loaded, notice = self._load()
            vectors = None
            if component is not None:
                vectors, self.semantic_notice = component.result()
            if loaded and vectors is not None:
                self.semantic = vectors
                self._fill_vectors(vectors, progress)
            report = self._catch_up(progress, listed.result())
            del listed  # its paths cached strings amid the build: they would pin its memory
            if report[0] or report[1] or not loaded:
                self._save_if_possible()
            if not loaded and self.save_notice is None and self.folder is not None:
                self._reload()
            if not loaded and vectors is not None:
                # a first build fills the vectors once BM25 is built and saved and the
                # build's temporaries are given back: the 300 MB matrix is not resident
                # during the build's peak
                process_tuning.release()
                self.semantic = vectors
                self._fill_vectors(vectors, progress)
        process_tuning.release()  # the load's temporaries, in a tuned process (150 MB on a build)
        return OpenReport(
            loaded=loaded,
            reindexed_sources=report[0],
            removed_sources=report[1],
            documents=len(self.state.docs),
            seconds=time.perf_counter() - started,
            notice=notice,
        )

    def _reload(self) -> None:
        """Drop a first build's index and load back what it saved: the build's 10^6 freed
        objects left 1 MB arenas pinned by one live object each (190 MB at 200,000
        documents); loaded back, the same index is as compact as a reopen's. Should the
        files go meanwhile, the vault is indexed again."""
        self.columns = columns.DocumentColumns()
        self.bm25 = bm25.BM25Index()
        self.state = persistence.IndexState(persistence.LazyDocs(self.source.root, self.columns))
        self._slot_cache = None
        self._masks.clear()
        self._allowed.clear()
        self.tokens.clear_cache()
        process_tuning.release()
        if not self._load()[0]:
            self._catch_up()

    def _fill_vectors(self, vectors: VectorRows, progress: Progress | None) -> None:
        """Put every document into `vectors`, row for row with the columns."""
        rows = self.state.docs.rows()
        keys = self.columns.text_key[rows]
        vectors.put(rows, self.state.docs.texts(keys), progress, keys=keys)

    def enable_semantic(
        self, model: str | None = None, progress: Progress | None = None
    ) -> str | None:
        """Add semantic search to an engine opened without it, while it keeps serving.

        Loads the model and embeds every document (cached embeddings cost a lookup) outside
        the engine's lock, so BM25 queries go on meanwhile, and on a large vault builds the
        first stage of its queries (`coarse`); documents that changed during the encoding
        are caught up before semantic search is switched on. Returns the
        notice (why semantic search is unavailable, or a note on the model), as
        `semantic_notice` then says too.
        """
        settings = self.source.settings
        if not settings.semantic:
            self.semantic_notice = (
                "semantic search is off ([search] semantic = false in .vault/config.toml)"
            )
            return self.semantic_notice
        component, notice = sources.semantic_component(self.source, model or settings.model)
        if component is None:
            self.semantic_notice = notice
            return notice
        while True:
            with self._lock:
                version = self.columns.version
                rows = self.state.docs.rows()
                keys = self.columns.text_key[rows]
                texts = self.state.docs.texts(keys)
            try:
                component.put(rows, texts, progress, keys=keys)
            except persistence.StaleDocuments:  # another process saved changed documents
                self.refresh()
                continue
            component.index_coarse()  # a process that stays: a first stage pays
            with self._lock:
                if self.columns.version == version:
                    self.semantic, self.semantic_notice = component, notice
                    return notice

    def _catch_up(
        self,
        progress: Progress | None = None,
        current: dict[str, catch_up.Source] | None = None,
    ) -> tuple[int, int]:
        """Re-index the sources whose signature changed since the index was saved (and
        drop the removed ones); `current` is `catch_up.current_sources()` if listed."""
        if current is None:
            current = self.source.current_sources()
        # The documents made here live as long as the engine: as in `_load`, without the
        # collector (re-indexing 2,000 entities set off full collections of 85-90 ms, each
        # holding the interpreter while the window waited).
        with process_tuning.paused(freeze=True):
            changed, removed = catch_up.changes(
                self.source.read_source, self.state.signatures, current
            )
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
        with self._lock, process_tuning.paused(freeze=True):  # as in `_catch_up`
            if not folder_path.is_dir():
                self._apply({}, [source])
                return 0
            folder = layout.EntityFolder(
                ref,
                folder_path,
                self.vault.paths.facts_file(folder_path),
                (folder_path / "summary.md").is_file(),
            )
            docs = catch_up.read_source(self.vault, "entity", folder)
            self._apply({source: (docs, catch_up.entity_signature(folder))}, [])
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
        with self._lock, process_tuning.paused(freeze=True):  # as in `_catch_up`
            if not path.is_file():
                self._apply({}, [source])
                return 0
            docs = catch_up.read_source(self.vault, "daily", (agent, day))
            self._apply({source: (docs, catch_up.file_signature(path))}, [])
            return len(docs)

    # -- persistence ------------------------------------------------------------------------

    def _header(self) -> dict[str, Any]:
        return persistence.header(self.tokens.fingerprint)

    def save(self) -> None:
        """Persist the index (plain files; safe to delete: it is rebuilt on open); see
        `persistence` for the files. An index kept in memory (a neighbour's folder) is not
        saved."""
        if self.folder is None:
            return
        with self._lock:
            persistence.save_index(
                self.folder, self.source.root, self._header(), self.state, self.columns, self.bm25
            )

    def _save_if_possible(self) -> None:
        """`save`, or, when the cache folder cannot be written (a read-only vault, a full
        disk) or a name is not UTF-8, keep the index in memory and say so in
        `save_notice`: reading a vault never needs writing to it. A source kept in
        memory by design (a neighbour's folder) is not saved, and says nothing."""
        if self.folder is None:
            return
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
        # stays off meanwhile (most of the cost, and a full collection holds the
        # interpreter long enough to freeze the window), then they are frozen out of reach
        with process_tuning.paused(freeze=True):
            if self.folder is None:
                return False, None
            loaded, notice = persistence.load_index(self.folder, self.source.root, self._header())
            if loaded is None:
                return False, notice
            self.state, self.columns, self.bm25 = loaded
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
            tiers = self.columns.tiers(self.source.decay, now.timestamp())
            mask = self.columns.mask(filters, tiers)
            if filters.sources is not None:
                mask &= self._source_rows(filters.sources)
            cached = self._masks[key] = (mask, tiers)
        return cached

    def _source_rows(self, sources: frozenset[str]) -> BoolArray:
        """The rows of the documents of `sources` (an entity's facts and summary, a day)."""
        rows = np.zeros(self.columns.size, dtype=np.bool_)
        row, by_source = self.columns.row, self.state.by_source
        rows[[row[k] for s in sources for k in by_source.get(s, ()) if k in row]] = True
        return rows

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
        now = self.source.now()
        # in hybrid, the names a query mentions are matched apart from its meaning
        names = intent.named(query, self) if mode == "hybrid" else []
        meaning = intent.meaning(query, names, self)
        if mode != "bm25" and (rows_now := self.semantic) is not None:
            rows_now.prepare(meaning)  # encoded before the lock; scored with the others
        with self._lock.shared():  # other queries too; a change waits for them
            rows, tiers = self._row_mask(filters, now)
            k = max(limit, self.candidates) if mode == "hybrid" else limit
            lexical: list[tuple[str, float]] = []
            semantic: list[tuple[str, float]] = []
            tokens = self.tokens.tokenize(query)
            if mode in ("bm25", "hybrid") and tokens:
                lexical = self.bm25.top(tokens, k, self._allowed_slots(filters, rows, now))
            if mode in ("semantic", "hybrid") and self.semantic is not None and query.strip():
                keys = self.columns.keys
                semantic = [(keys[r], c) for r, c in self.semantic.top(meaning, k, rows)]
            cover = relevance.Coverage(self.bm25, tokens)
            ranked, below = fusion.fuse(
                self,
                (query, meaning, names),
                tokens,
                mode,
                (lexical, semantic),
                limit,
                cover,
                explain,
                filters.scope,
            )
            present = set(self.state.docs.fetch(key for key, _, _ in ranked))  # one read
            hits = [self._hit(k, s, p, tiers, explain) for k, s, p in ranked if k in present]
            unknown = relevance.unknown_terms(self.bm25, tokens)
        took = time.perf_counter() - started
        return SearchResult(hits, mode, notice, took, unknown=unknown, below_floor=below)

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
        if doc.kind == documents.FACT and doc.status == "active" and doc.fact_id is not None:
            tier = columns.TIER_NAMES[int(tiers[self.columns.row[key]])]
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
            origin=None if doc.fact_id is not None else sources.origin_of(doc),
        )

    def document(self, key: str) -> documents.SearchDoc | None:
        return self.state.docs.get(key)

    def ranked_without_query(self, filters: Filters, limit: int) -> list[Hit]:
        """Documents passing `filters` with no query: facts hot first then by
        accessCount, other documents newest first."""
        with self._lock:
            rows, tiers = self._row_mask(filters, self.source.now())
            chosen = np.flatnonzero(rows)
            if chosen.size == 0:
                return []
            stamp = np.nan_to_num(self.columns.timestamp[chosen], nan=0.0)
            is_fact = self.columns.kind[chosen] == columns.KIND_CODE[documents.FACT]
            tier = np.where(is_fact, tiers[chosen], 0)
            access = np.where(is_fact, self.columns.access[chosen], 0)
            order = np.lexsort((-stamp, -access, tier))[:limit]
            keys = self.columns.keys
            picked = self.state.docs.fetch(keys[chosen[i]] for i in order)  # one read
            return [self._hit(key, 0.0, {}, tiers, False) for key in picked]


def open_engine(
    target: vault.Vault | ForeignFolder | sources.DocumentSource,
    *,
    semantic: bool = True,
    model: str | None = None,
    progress: Progress | None = None,
) -> tuple[SearchEngine, OpenReport]:
    """A ready engine for `target` (a vault, a neighbour's `ForeignFolder` or a
    `sources.DocumentSource`): semantic search too when asked for and available.

    Settings come from the vault's `[search]` table (semantic on/off, model, hybrid
    weight; a neighbour's folder has the defaults); `model` overrides the configured
    model.

    Without torch, sentence-transformers or the model, the engine runs on BM25 and says
    why (`SearchEngine.semantic_notice`), never failing.
    """
    source = sources.source_of(target)
    settings = source.settings
    notice = None
    load: Callable[[], tuple[VectorRows | None, str | None]] | None = None
    if not settings.semantic:
        notice = "semantic search is off ([search] semantic = false in .vault/config.toml)"
    elif semantic:
        wanted = model or settings.model

        # the matrix's memory is touched ahead (on the helper thread) when an index is
        # cached, to be filled at once; a first build fills it only after its own peak
        cached = sources.has_saved_index(source)

        def load() -> tuple[VectorRows | None, str | None]:
            return sources.semantic_component(source, wanted, touch=cached)

    search = SearchEngine(
        source,
        semantic_notice=notice,
        bm25_weight=settings.bm25_weight,
        min_cosine=settings.min_cosine,
    )
    return search, search.open(progress, semantic=load)
