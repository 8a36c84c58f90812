"""The search engine's life in an open workspace: BM25 first, semantic later, a notice
meanwhile.

Opening must not wait for the index: `start()` opens the engine on a background thread,
BM25 first (a saved index loads in a fraction of a second; a first build takes longer),
then the semantic model, added to the running engine (`SearchEngine.enable_semantic`)
while BM25 keeps answering. A search waits for BM25 only (`search_engine`). While the
semantic side is loading, off or unavailable, the engine's own fallback answers a
semantic or hybrid search with BM25 and says why: the reason is the engine's
`semantic_notice`, which this class sets as the life goes on (`LOADING`, `OFF`, or the
failure), so that every face reads the same notice and there is one fallback, in
`SearchEngine.search`.

The two steps are functions every face calls, so that the notices and the handling of a
broken model are written once: `open_bm25(source, semantic)` opens the engine without
the model, its notice saying what comes (`LOADING`, or `OFF`), and
`add_semantic(search, progress)` loads the model into the running engine (a broken
model leaves BM25 answering, the reason as the notice). `EngineLife` runs them on a
thread of its own for the workspaces; the window runs them on its session's workers,
where their progress and results become Qt signals.

`EngineLife` is what a vault's workspace (`VaultWorkspace`) and a neighbour's folder's
(`FolderWorkspace`) share; each opens its own engine (`_open_engine`) and catches up
once it is open (`_engine_opened`). The search engine (numpy, scipy, the model) is
imported by the background thread, never with this module: `vault-app mcp` answers its
handshake after the interpreter, the CLI and the MCP SDK alone.
"""

from __future__ import annotations

import abc
import logging
import threading
from typing import TYPE_CHECKING

from vault_app.core import errors

if TYPE_CHECKING:
    from vault_app.core import vault
    from vault_app.core.neighbours.folder import ForeignFolder
    from vault_app.search import engine, sources

log = logging.getLogger(__name__)
BM25_WAIT = 600.0  # seconds a search waits for a first index build before giving up
LOADING = "semantic search is loading"  # the engine adds "; showing BM25 results"
OFF = "semantic search is off"


class Cancelled(Exception):
    """Raised by a progress callback to stop a load (the window it works for closed)."""


def open_bm25(
    source: vault.Vault | ForeignFolder | sources.DocumentSource,
    semantic: bool,
    progress: engine.Progress | None = None,
) -> tuple[engine.SearchEngine, engine.OpenReport]:
    """The search engine over `source` without the model (BM25: a saved index loads in a
    fraction of a second), its `semantic_notice` saying what comes: `LOADING` when
    `semantic` will follow, else `OFF` (or the engine's own reason)."""
    from vault_app.search import engine as engine_module  # numpy, scipy: off the caller's path

    search, report = engine_module.open_engine(source, semantic=False, progress=progress)
    search.semantic_notice = LOADING if semantic else search.semantic_notice or OFF
    return search, report


def add_semantic(
    search: engine.SearchEngine, progress: engine.Progress | None = None
) -> str | None:
    """Load the model into the running `search` (BM25 answers meanwhile); returns the
    engine's notice, None when hybrid search is on. A model that fails to load leaves
    BM25 answering, with the reason as the notice; an exception `progress` raises (the
    caller cancelling) goes through."""
    try:
        return search.enable_semantic(progress=progress)  # sets the notice when it cannot
    except Cancelled:
        raise
    except Exception as exc:  # a broken model: BM25 goes on
        log.exception("semantic search could not be loaded")
        search.semantic_notice = f"semantic search is not available: {exc}"
        return search.semantic_notice


class EngineLife(abc.ABC):
    """The search engine opened on a background thread: see the module docstring."""

    THREAD_NAME = "vault-app-index"
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
        self._thread: threading.Thread | None = None
        self._closed = False

    @abc.abstractmethod
    def _open_engine(
        self, semantic: bool = False, progress: engine.Progress | None = None
    ) -> tuple[engine.SearchEngine, engine.OpenReport]:
        """The engine (BM25 only unless `semantic`: `open_bm25` with `self.semantic`)
        and its open report."""

    @abc.abstractmethod
    def _engine_opened(self, search: engine.SearchEngine, background: bool) -> None:
        """Catch up once the engine is open (called with the lock held); `background`:
        opened for a process that stays (work done now saves its first requests)."""

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
            search, _ = self._open_engine()
            with self._lock:
                self._engine = search
                self._engine_opened(search, background=True)
                self._state = "bm25"
        except Exception as exc:  # the faces keep answering; search says why it cannot
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

    def open_now(self, progress: engine.Progress | None = None) -> engine.OpenReport:
        """Open the engine on the calling thread, the semantic side with it when asked
        (a one-shot command's way: it has nothing to answer meanwhile, and the model
        loads beside BM25); returns the engine's open report (its notice)."""
        with self._lock:
            if self._thread is not None or self._opened.is_set():
                raise errors.VaultError("the search engine is already opening")
        try:
            search, report = self._open_engine(self.semantic, progress)
            if not self.semantic:  # (the engine may say why: [search] semantic = false)
                search.semantic_notice = search.semantic_notice or OFF
            with self._lock:
                self._engine = search
                self._engine_opened(search, background=False)
                self._state = "hybrid" if search.semantic is not None else "bm25"
        finally:
            self._opened.set()
            self._settled.set()
        return report

    def _enable_semantic(self, search: engine.SearchEngine) -> None:
        add_semantic(search)
        if search.semantic is not None:
            with self._lock:
                self._state = "hybrid"

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
        if self._thread is None and not self._opened.is_set():
            self.start()
        if not self._opened.wait(self.bm25_wait):
            raise errors.VaultError(self.STILL_OPENING)
        with self._lock:
            if self._engine is None:
                raise errors.VaultError(f"search is unavailable: {self._state}")
            return self._engine

    def loaded_engine(self) -> engine.SearchEngine | None:
        """The engine if it is open, without waiting (None while it opens or failed)."""
        with self._lock:
            return self._engine

    def close(self) -> None:
        """Stop using the engine (a semantic load in progress ends on its own)."""
        self._closed = True
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self._opened.wait(self.bm25_wait)
