"""The MCP server's resident state: the vault, one Vault per agent, the search engine and
the numeric-id map, shared by every tool and every client of one server process.

Start-up must not wait for the index: `start()` opens the search engine on a background
thread, BM25 first (a saved index loads in a fraction of a second; a first build takes
longer), then the semantic model, which is added to the running engine
(`SearchEngine.enable_semantic`) while BM25 keeps answering. The handshake and every
tool that does not search answer at once; `search` waits for BM25 only and says in
its `notice` when the semantic side is still loading or unavailable (`search_state`).
That part (`BackgroundEngine`) is shared with a neighbour's folder's runtime
(`folder_runtime.FolderRuntime`), which subclasses it.

Every agent acts through its own `Vault`, opened with actor `agent:<id>`, so every write
is audited with the agent as actor. The engine's own vault reads only (actor `mcp`).

The numeric ids MicroClaw needs (`numeric_ids.fact_number`) have no stored map: the map
from number to fact id is built from the index (every fact, active and superseded) once
BM25 is open, and kept current by `after_write`; a number this process has not seen
(another process wrote the fact) re-checks the index against the disk once before
answering "unknown".

Writes from outside the server (the window, the CLI, other agents, an editor: `serve`
runs for hours beside them) reach the index through a `watch.VaultWatcher`: its
change batches re-index the entities and daily notes they name (`after_write`,
`after_daily`), a new or removed agent re-checks the whole index. The watcher is chosen
over the engine's catch-up walk (`SearchEngine.refresh`) because a walk stats every
entity (0.6 s at 10,000 entities) for each check, where inotify costs nothing until a
file changes, and a change is indexed within the watcher's coalescing delay (0.1-0.5 s)
without any search paying for it. The watcher takes its baseline listing before the
index catches up with the disk, so a write lands in one or the other, never in between.
The agents' own writes through this runtime are told to the watcher (their storage
listener), so they are not indexed twice.

Texts stored in the vault reach agents through `injection.shown_to_agents`: a stored
text that matches the injection scan is shown as `[BLOCKED: …]`, kept on disk as it is.

Nothing heavy is imported with this module: the search engine (numpy, scipy, the model)
is imported by the background thread, so that `vault-app mcp` answers the handshake
after the interpreter, the CLI and the MCP SDK alone (benchmarks/bench_mcp_handshake.py).
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as dt
import logging
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import config, decay, errors, injection, layout, numeric_ids, vault

if TYPE_CHECKING:
    from vault_app.search import engine, vector_rows
    from vault_app.watch import events, watcher

    Filters = engine.Filters
else:

    def __getattr__(name: str) -> Any:
        """`Filters`, the engine's search filters, imported when first asked for."""
        if name == "Filters":
            from vault_app.search import engine

            return engine.Filters
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


log = logging.getLogger(__name__)
READER_ACTOR = "mcp"  # the engine's vault: reads and its own index cache, never facts
BM25_WAIT = 600.0  # seconds a search waits for a first index build before giving up
REFRESH_GAP = 2.0  # seconds between two whole-index re-checks forced by unknown numbers
WATCH_READY = 120.0  # seconds the index waits for the watcher's baseline listing


class BackgroundEngine(abc.ABC):
    """The search engine opened on a background thread, BM25 first, then the semantic
    model added to the running engine: what a vault's `Runtime` and a neighbour's
    folder's `folder_runtime.FolderRuntime` share (see the module docstring). A subclass
    opens its engine (`_open_engine`) and catches up once it is open (`_engine_opened`)."""

    THREAD_NAME = "vault-app-mcp-index"
    INDEX_NAME = "the search index"  # in the log, when it cannot be opened
    STILL_OPENING = f"the search index is still being built after {BM25_WAIT:.0f} s; try again"
    bm25_wait = BM25_WAIT  # seconds a search waits for BM25
    _log = log

    def __init__(self, semantic: bool) -> None:
        self.semantic = semantic
        self._lock = threading.RLock()
        self._engine: engine.SearchEngine | None = None
        self._opened = threading.Event()  # BM25 ready, or failed
        self._settled = threading.Event()  # and the semantic side loaded, off or failed
        self._state = "loading"
        self._semantic_notice: str | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    @abc.abstractmethod
    def _open_engine(self) -> engine.SearchEngine:
        """The engine, BM25 only (called on the background thread)."""

    @abc.abstractmethod
    def _engine_opened(self, search: engine.SearchEngine) -> None:
        """Catch up once the engine is open (called with the lock held)."""

    def start(self) -> None:
        """Open the search engine on a background thread; returns at once."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._open, name=self.THREAD_NAME)
            self._thread.daemon = True  # a stdio server ends with its client
            self._thread.start()

    def _open(self) -> None:
        try:
            search = self._open_engine()
            with self._lock:
                self._engine = search
                self._engine_opened(search)
                self._state = "bm25"
                self._semantic_notice = (
                    "semantic search is loading: these are BM25 results"
                    if self.semantic
                    else "semantic search is off: these are BM25 results"
                )
        except Exception as exc:  # the server keeps answering; search says why it cannot
            self._log.exception("%s could not be opened", self.INDEX_NAME)
            with self._lock:
                self._state = f"failed: {exc}"
            self._settled.set()
            return
        finally:
            self._opened.set()
        try:
            if self.semantic and not self._closed:
                self._enable_semantic(search)
        finally:
            self._settled.set()

    def _enable_semantic(self, search: engine.SearchEngine) -> None:
        try:
            notice = search.enable_semantic()
        except Exception as exc:  # a broken model: BM25 goes on
            self._log.exception("semantic search could not be loaded")
            notice = f"semantic search is not available: {exc}"
        with self._lock:
            if search.semantic is not None:
                self._state, self._semantic_notice = "hybrid", None
            else:
                reason = notice or "semantic search is not available"
                self._semantic_notice = f"{reason}; these are BM25 results"

    def wait_settled(self, timeout: float | None = None) -> str:
        """Wait until the engine is open and the semantic side loaded (or off, or
        failed); returns `search_state`."""
        self._settled.wait(timeout)
        return self._state

    @property
    def search_state(self) -> str:
        """Where search stands: loading, bm25, hybrid, or failed: <reason>."""
        return self._state

    def search_engine(self) -> engine.SearchEngine:
        """The open engine, waiting for BM25 (a first build) when it is still opening."""
        if self._thread is None:
            self.start()
        if not self._opened.wait(self.bm25_wait):
            raise errors.VaultError(self.STILL_OPENING)
        with self._lock:
            if self._engine is None:
                raise errors.VaultError(f"search is unavailable: {self._state}")
            return self._engine

    def _mode_for(self, search: engine.SearchEngine, mode: str) -> tuple[str, str | None]:
        """The mode a search runs in and why, if not as asked: BM25 for a semantic or
        hybrid search while the semantic side is loading, off or unavailable."""
        if mode in ("semantic", "hybrid") and search.semantic is None:
            return "bm25", self._semantic_notice
        return mode, None

    def close(self) -> None:
        """Stop using the engine (a semantic load in progress ends on its own)."""
        self._closed = True
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self._opened.wait(self.bm25_wait)


@dataclasses.dataclass
class SearchAnswer:
    """A search's hits (texts as shown to agents), the mode used and why, if not asked."""

    hits: list[engine.Hit]
    mode_used: str
    notice: str | None = None

    def to_json(self) -> dict[str, Any]:
        hits = []
        for hit in self.hits:
            data = hit.to_json()
            data.pop("path", None)  # where the file sits on the server is not the agent's
            if hit.fact_id:
                data["number"] = numeric_ids.fact_number(hit.fact_id)
            hits.append(data)
        return {"mode": self.mode_used, "notice": self.notice, "hits": hits}


class Runtime(BackgroundEngine):
    """One vault served to agents: see the module docstring. Thread-safe."""

    def __init__(
        self,
        root: Path | str,
        *,
        semantic: bool | None = None,
        clock: decay.Clock = decay.system_clock,
        watch: bool = True,
    ) -> None:
        self.clock = clock
        self.watch = watch  # follow outside writes (see the module doc)
        self.reader = vault.Vault(root, clock=clock, actor=READER_ACTOR)
        self.quotas = self.reader.config.quotas  # what one agent may consume (`quotas`)
        self.root: Path = self.reader.root
        # None: as the vault's config says ([search] semantic)
        super().__init__(self.reader.config.search.semantic if semantic is None else semantic)
        self._vaults: dict[str, tuple[tuple[int, int], vault.Vault]] = {}
        self._numbers: dict[int, str] = {}
        self._pending: list[layout.EntityRef | tuple[dt.date, str | None]] = []
        self._watcher: watcher.VaultWatcher | None = None  # imported with the engine
        self._whole_pending = False  # a batch asked for a whole re-check before the index
        self._last_refresh = 0.0

    # -- agents -------------------------------------------------------------------------

    def vault_for(self, agent: str) -> vault.Vault:
        """The Vault `agent` acts through (actor `agent:<id>`), cached per agent and
        reopened when `.vault/config.toml` changes (permissions live there)."""
        layout.validate_agent_id(agent)
        if not self.reader.paths.agent_dir(agent).is_dir():
            known = ", ".join(self.reader.paths.agent_ids()) or "none"
            raise errors.NotFoundError(
                f"no agent {agent!r} in {self.root} (agents: {known}); create it with "
                f"`vault-app agent create {agent}`"
            )
        stamp = self._config_stamp()
        with self._lock:
            cached = self._vaults.get(agent)
            if cached is None or cached[0] != stamp:
                opened = vault.Vault(self.root, clock=self.clock, actor=f"agent:{agent}")
                if self._watcher is not None:  # its writes are indexed by after_write
                    opened.storage.add_listener(self._watcher.note_write)
                cached = self._vaults[agent] = (stamp, opened)
            return cached[1]

    def _config_stamp(self) -> tuple[int, int]:
        try:
            info = (self.reader.paths.state_dir / config.CONFIG_NAME).stat()
        except OSError:
            return (-1, -1)
        return (info.st_size, info.st_mtime_ns)

    # -- the search engine ----------------------------------------------------------------

    def _open_engine(self) -> engine.SearchEngine:
        from vault_app.search import engine  # numpy, scipy: off the handshake's path

        self._start_watcher()
        search, report = engine.open_engine(self.reader, semantic=False)
        if report.notice:
            log.info("search index: %s", report.notice)
        return search

    def _engine_opened(self, search: engine.SearchEngine) -> None:
        self._numbers = self._fact_numbers(search.state.by_source.values())
        self._catch_up_pending()
        if self._whole_pending:
            self._whole_pending = False
            search.refresh()

    def _start_watcher(self) -> None:
        """Watch the vault for outside writes; returns once the baseline is listed."""
        if not self.watch or self._closed:
            return
        from vault_app.watch import watcher as watch_module

        follower = watch_module.VaultWatcher(
            self.reader, self._on_batch, snapshot=None, on_status=self._on_watch_status
        )
        with self._lock:
            self._watcher = follower
            for _, agent_vault in self._vaults.values():
                agent_vault.storage.add_listener(follower.note_write)
        follower.start()
        if not follower.wait_ready(WATCH_READY):
            log.warning("the vault watcher's first listing is slow; the index opens anyway")

    def _on_batch(self, batch: events.ChangeBatch) -> None:
        """A watcher batch (outside writes): re-index what it names."""
        if batch.everything and batch.reason == "open":
            return  # the baseline: the index's own catch-up reads the disk next
        if batch.everything or batch.agents or batch.removed_agents:
            with self._lock:
                if self._engine is None:
                    self._whole_pending = True
                    return
            self.refresh()
            return
        self.after_write({*batch.entities, *batch.removed_entities})
        for note in batch.daily:
            self.after_daily(note.date, note.agent)

    @staticmethod
    def _on_watch_status(status: watcher.WatchStatus) -> None:
        if status.state not in ("starting", "watching", "stopped"):
            log.warning("vault watcher %s: %s", status.state, status.message)

    def vectors(self) -> vector_rows.VectorRows | None:
        """The loaded semantic rows (their encoder and embedding cache serve the
        heartbeat's dedup), None while semantic search is not loaded."""
        with self._lock:
            engine = self._engine
        return engine.semantic if engine is not None else None

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        limit: int = 10,
        filters: Filters | None = None,
    ) -> SearchAnswer:
        """The best `limit` documents for `query`, texts as shown to agents.

        Waits for BM25, never for the semantic model: until it is ready (or when it is
        off or unavailable) a semantic or hybrid search answers with BM25 and says so."""
        search = self.search_engine()
        mode, notice = self._mode_for(search, mode)
        result = search.search(query, mode=mode, filters=filters, limit=limit)
        hits = [dataclasses.replace(h, text=injection.shown_to_agents(h.text)) for h in result.hits]
        return SearchAnswer(hits, result.mode, notice or result.notice)

    def mark_accessed(self, agent: str, fact_ids: Iterable[str]) -> dict[str, int]:
        """Count one access of each fact, written as `agent`, and re-index their entities."""
        ids = list(dict.fromkeys(fact_ids))
        if not ids:
            return {}
        target = self.vault_for(agent)
        where = target.locate(ids)
        marked = target.mark_accessed(ids)
        self.after_write(set(where.values()))
        return marked

    # -- numbers --------------------------------------------------------------------------

    @staticmethod
    def _fact_numbers(key_sets: Iterable[Iterable[str]]) -> dict[int, str]:
        numbers: dict[int, str] = {}
        for keys in key_sets:
            for key in keys:
                if key.startswith("fact:"):
                    fact_id = key[5:]
                    numbers[numeric_ids.fact_number(fact_id)] = fact_id
        return numbers

    def fact_id_for_number(self, number: int) -> str | None:
        """The fact id whose `numeric_ids.fact_number` is `number` (any status), or None."""
        self.search_engine()  # the map is made when the index opens
        with self._lock:
            found = self._numbers.get(number)
            if found is not None or time.monotonic() - self._last_refresh < REFRESH_GAP:
                return found
        self.refresh()  # written by another process since this one indexed it?
        with self._lock:
            return self._numbers.get(number)

    # -- keeping fresh --------------------------------------------------------------------

    def refresh(self) -> None:
        """Re-check the whole index against the disk (writes by other processes)."""
        search = self.search_engine()
        search.refresh()
        with self._lock:
            self._last_refresh = time.monotonic()
            self._numbers.update(self._fact_numbers(search.state.by_source.values()))

    def after_write(self, changed_refs: Iterable[layout.EntityRef]) -> None:
        """Re-index the entities a write changed and learn their facts' numbers; before
        the index is open, they are caught up as soon as it is."""
        refs = [layout.as_ref(r) for r in changed_refs]
        with self._lock:
            if self._engine is None:
                self._pending.extend(refs)
                return
            self._refresh_refs(self._engine, refs)

    def after_daily(self, day: dt.date, agent: str | None) -> None:
        """Re-index the daily note of `day` (global when `agent` is None) after a write."""
        with self._lock:
            if self._engine is None:
                self._pending.append((day, agent))
                return
            self._engine.refresh_daily(day, agent)

    def _refresh_refs(self, search: engine.SearchEngine, refs: Iterable[layout.EntityRef]) -> None:
        from vault_app.search import documents

        for ref in refs:
            search.refresh_entity(ref)
            keys = search.state.by_source.get(documents.entity_source(ref), set())
            self._numbers.update(self._fact_numbers([keys]))

    def _catch_up_pending(self) -> None:
        assert self._engine is not None
        pending, self._pending = self._pending, []
        for item in pending:
            if isinstance(item, layout.EntityRef):
                self._refresh_refs(self._engine, [item])
            else:
                self._engine.refresh_daily(*item)

    def close(self) -> None:
        """Stop using the engine and the watcher."""
        super().close()
        with self._lock:
            follower, self._watcher = self._watcher, None
            for _, agent_vault in self._vaults.values():
                if follower is not None:
                    agent_vault.storage.remove_listener(follower.note_write)
        if follower is not None:
            follower.stop()
