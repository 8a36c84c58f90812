"""`VaultWatcher`: follow every change agents and editors make to a vault, as change batches.

Design
------
One watchdog observer watches the vault: the root folder itself (not recursive: it only
has to see `global/` or `agents/` appear, vanish or be replaced) and `global/` and
`agents/` recursively. `.vault/` (locks, audit log, backups, caches: half the folders of
a big vault) is never watched, so the app's own bookkeeping makes no events at all.
(What is watched and followed is the `layouts.Layout` given: a PARA vault's by default;
a neighbour's folder's, `foreign.layout`, watches its memory folder and keeps the
snapshot in vault-app's state folder, never in the neighbour's.)
Only creations, modifications, closes after writing, deletions and moves are asked for:
reads make no events either.

The observer's thread turns each event into hints (`events.Coalescer`); the watcher's own
thread ("vault-watch") waits until a burst is over (quiet for `quiet_ms`, or only
`atomic_quiet_ms` after a file renamed into place, which is whole at once; at most
`max_latency_ms` after its first event), compares the hinted files and folders with the
snapshot (`snapshots.Snapshot.reconcile`, which hashes what changed), and calls
`on_batch(ChangeBatch)`. The app's own writes are recognised by content: a `core.vault.Vault`
given to the watcher has a storage listener that notes the hash of every write before the
file is replaced, and a changed file with such a hash is not reported. A different
content written later, by anyone, is.

On `start`, the watcher compares the whole vault with the snapshot saved by the last
session (`.vault/cache/watch/<snapshot>.json`) and reports what changed while it was
closed, through the same `on_batch` (reason "open"); with no saved snapshot the batch says
`everything`. The snapshot is saved after that and on `stop` (when it changed). With
`snapshot=None` nothing is persisted and the first listing is only the baseline.

Health: every `health_s` the watcher checks that the observer and its emitters are alive,
and that the vault folder is still the same folder. If the folder disappears it waits
(status "missing"); when it comes back, or when the observer died, or when the kernel
dropped events (queue overflow, which watchdog only logs), it starts a new observer and
compares the whole vault with its snapshot: a batch with reason "restarted" or
"overflow" (sent even when nothing changed) and an `on_status` call say so. When the
vault has more folders than the system lets a user watch (Linux
`fs.inotify.max_user_watches`), or no observer can be started at all, it falls back to a
full comparison every `poll_s` seconds (status "degraded").

Everything is thread-safe: `on_batch` and `on_status` are called on the watcher's thread
(a Qt app relays them to the GUI thread with a queued signal); `rescan` may be called from
any thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from watchdog import events as wd_events
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from vault_app.core import errors, storage
from vault_app.core import vault as vault_module
from vault_app.watch import events, layouts, sync_copies
from vault_app.watch import snapshot as snapshots

log = logging.getLogger(__name__)

BatchCallback = Callable[[events.ChangeBatch], None]
StatusCallback = Callable[["WatchStatus"], None]

_TREE_EVENTS: list[type[wd_events.FileSystemEvent]] = [
    wd_events.FileCreatedEvent,
    wd_events.FileModifiedEvent,
    wd_events.FileClosedEvent,
    wd_events.FileDeletedEvent,
    wd_events.FileMovedEvent,
    wd_events.DirCreatedEvent,
    wd_events.DirDeletedEvent,
    wd_events.DirMovedEvent,
]
_ROOT_EVENTS: list[type[wd_events.FileSystemEvent]] = [
    wd_events.DirCreatedEvent,
    wd_events.DirDeletedEvent,
    wd_events.DirMovedEvent,
]
_KINDS = {
    "created": "created",
    "modified": "modified",
    "closed": "modified",
    "deleted": "deleted",
    "moved": "moved",
}
RETRY_OBSERVER_S = 30.0


@dataclass(frozen=True)
class WatchStatus:
    """The watcher's state in plain words.

    `state` is one of "starting", "watching", "degraded" (changes are found by periodic
    rescans), "missing" (the vault folder is gone; waiting for it), "stopped", "error".
    """

    state: str
    message: str
    time: float = 0.0


class VaultWatcher:
    """Watches one vault and reports coalesced `ChangeBatch`es to `on_batch`.

    `vault` is a `core.vault.Vault` (its writes are then recognised as the app's own) or
    a folder. `snapshot` names the saved snapshot (one per consumer: the app's index and
    a `vault-app watch --snapshot NAME` must not share one); it records what was
    *reported*, so a consumer should have taken in a batch when `on_batch` returns.
    Changes the app makes outside `core.storage` writes (archiving = a folder move, the
    folders of a new agent) are reported like anyone else's.

    `start()` returns at once; `wait_ready()` waits for the first comparison; `stop()`
    ends it (also as a context manager). `rescan()` compares the whole vault on demand.
    """

    def __init__(
        self,
        vault: vault_module.Vault | Path | str,
        on_batch: BatchCallback,
        *,
        quiet_ms: float = 100,
        max_latency_ms: float = 500,
        atomic_quiet_ms: float = 20,
        on_status: StatusCallback | None = None,
        snapshot: str | None = "app",
        health_s: float = 1.0,
        poll_s: float = 5.0,
        layout: layouts.Layout = layouts.PARA,
    ) -> None:
        self.layout = layout
        self._storage: storage.Storage | None = None
        if isinstance(vault, vault_module.Vault):
            self.root = vault.root
            self._storage = vault.storage
        else:
            self.root = Path(vault).expanduser().resolve()
        self.on_batch = on_batch
        self.on_status = on_status
        self.quiet_ms = quiet_ms
        self.max_latency_ms = max_latency_ms
        self.atomic_quiet_ms = min(atomic_quiet_ms, quiet_ms)
        self.snapshot_name = snapshot
        self.health_s = health_s
        self.poll_s = poll_s
        self._wake = threading.Condition(threading.Lock())  # guards the fields below it
        self._coalescer = events.Coalescer(
            quiet=quiet_ms / 1000,
            max_latency=max_latency_ms / 1000,
            atomic_quiet=atomic_quiet_ms / 1000,
            classify=layout.classify,
            tracks_folder=layout.tracks_folder,
        )
        self._requests: list[_Request] = []
        self._copies = sync_copies.SyncCopies(self.root, layout)
        self._overflow = False
        self._resync = False  # the last work failed: compare the whole vault at the next check
        self._stopping = False
        self._state = threading.Lock()  # guards the snapshot and the observer
        self._snapshot: snapshots.Snapshot | None = None
        self._own = snapshots.OwnWrites()
        self._moves = events.MoveMatcher()  # moves that reach the watcher in two halves
        self._observer: BaseObserver | None = None
        self._watches: dict[str, tuple[ObservedWatch, tuple[int, int]]] = {}
        self._root_id: tuple[int, int] | None = None
        self._handler = _Handler(self)
        self._log_hook = _OverflowHook(self._note_overflow)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._status = WatchStatus("stopped", "not started", time.time())
        self._degraded: str | None = None  # why changes are found by polling, if they are
        self._observer_error: str | None = None
        self._last_poll = 0.0
        self._last_attempt = 0.0

    # -- public API -----------------------------------------------------------------------

    @property
    def status(self) -> WatchStatus:
        return self._status

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def observer(self) -> BaseObserver | None:
        """The current watchdog observer (replaced when the watcher restarts it)."""
        return self._observer

    def start(self) -> None:
        """Start watching, in the background: returns at once (see `wait_ready`)."""
        if self._thread is not None:
            raise RuntimeError("a VaultWatcher starts once")
        if self._storage is not None:
            self._storage.add_listener(self.note_write)
        logging.getLogger("watchdog").addHandler(self._log_hook)
        self._thread = threading.Thread(target=self._run, name="vault-watch", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the first comparison with the snapshot is done (or the vault is missing)."""
        return self._ready.wait(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop watching, and save the snapshot (what was reported so far)."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        logging.getLogger("watchdog").removeHandler(self._log_hook)
        if self._storage is not None:
            self._storage.remove_listener(self.note_write)
        with self._state:
            self._stop_observer()
            self._save()
        with self._wake:
            for request in self._requests:
                request.done.set()
            self._requests.clear()
        self._set_status("stopped", "not watching")

    def rescan(
        self, *, wait: bool = True, timeout: float | None = None
    ) -> events.ChangeBatch | None:
        """Compare the whole vault with the snapshot now; report and return the changes.

        Runs on the watcher's thread when it is running (`wait=False` returns at once,
        None), else on the caller's. A non-empty batch also goes to `on_batch`.
        """
        if not self.running:
            return self._rescan("rescan")
        request = _Request("rescan")
        with self._wake:
            self._requests.append(request)
            self._wake.notify_all()
        if not wait:
            return None
        request.done.wait(timeout)
        return request.result

    def note_write(self, path: Path, digest: str) -> None:
        """Note that the app writes `digest` to `path` (a `core.storage` write listener)."""
        rel = self._relative(os.fspath(path))
        if rel is not None and self.layout.classify(rel) is not None:  # not .vault/ files
            self._own.note(rel, digest)

    def __enter__(self) -> VaultWatcher:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- events (observer thread) ---------------------------------------------------------

    def _relative(self, path: str) -> str | None:
        root = os.fspath(self.root)
        if path.startswith(root + os.sep):
            return path[len(root) + 1 :].replace(os.sep, "/")
        return "" if path == root else None

    def _on_event(self, event: wd_events.FileSystemEvent) -> None:
        kind = _KINDS.get(event.event_type)
        if kind is None:
            return
        path = self._relative(os.fsdecode(event.src_path))
        dest = self._relative(os.fsdecode(event.dest_path)) if event.dest_path else None
        if path is None and dest is None:
            return
        if path is None:  # moved in from outside the vault
            kind, path, dest = "created", dest, None
        assert path is not None
        raw = events.RawEvent(kind, path, dest, event.is_directory)
        found = self._copies.is_copy
        copies = [] if event.is_directory else [p for p in (path, dest) if p and found(p)]
        with self._wake:
            hinted = self._coalescer.add(raw)
            for copy in copies:  # merged once the disk is quiet (the copy is whole then)
                original = self._copies.arrived(copy)
                hinted |= self._coalescer.add(events.RawEvent("modified", original, None, False))
            if hinted:
                self._wake.notify_all()

    def _note_overflow(self) -> None:
        with self._wake:
            self._overflow = True
            self._wake.notify_all()

    # -- the watcher's thread -------------------------------------------------------------

    def _run(self) -> None:
        try:
            try:
                self._begin()
            except Exception:  # e.g. an unreadable folder: keep trying at each health check
                log.exception("the vault watcher could not start; it tries again")
                self._resync = True
            self._ready.set()
            self._loop()
        except BaseException as exc:  # never die silently
            log.exception("the vault watcher stopped")
            self._set_status("error", f"the watcher stopped: {exc}")
        finally:
            self._ready.set()

    def _begin(self) -> None:
        self._set_status("starting", f"looking for changes in {self.root}")
        if _identity(self.root) is None:
            self._set_status("missing", f"the vault folder {self.root} is missing; waiting for it")
            self._ready.set()
            return
        with self._state:
            self._start_observer()
        self._rescan("open")
        waiting = self._copies.waiting()  # copies that arrived while nobody watched
        if waiting:
            self._merge_copies(waiting)
        self._announce(f"watching {self.root}")
        self._ready.set()

    def _loop(self) -> None:
        next_health = time.monotonic() + self.health_s
        while True:
            with self._wake:
                while True:
                    if self._stopping:
                        return
                    now = time.monotonic()
                    due = self._coalescer.due_in()
                    if self._requests or self._overflow or now >= next_health:
                        break
                    if due is not None and due <= 0:
                        break
                    wait = next_health - now if due is None else min(due, next_health - now)
                    self._wake.wait(wait)
                requests, self._requests = self._requests, []
                overflow, self._overflow = self._overflow, False
                pending = self._coalescer.take()
                copies = self._copies.take() if pending else []  # whole by now
            health = now >= next_health
            if health:
                next_health = now + self.health_s
            try:
                if health:
                    self._check_health()
                if copies:
                    self._merge_copies(copies)
                if overflow:
                    self._rescan("overflow", deliver_empty=True)
                for request in requests:
                    request.result = self._rescan(request.reason)
                    request.done.set()
                if pending is not None:
                    self._flush(pending)
            except Exception:  # a bug or a disk error must not end live sync
                log.exception("the vault watcher failed; it compares the whole vault next")
                self._resync = True
            finally:
                for request in requests:
                    request.done.set()

    def _merge_copies(self, copies: list[str]) -> None:
        """Merge Syncthing conflict copies (`sync_copies`); report those left for a person."""
        unmerged = self._copies.merge(copies)
        if unmerged:
            self._deliver(events.ChangeBatch(self.root, reason="sync", unmerged=unmerged))

    def _flush(self, pending: events.Pending) -> None:
        """Compare the hinted files and folders with the snapshot; report what changed."""
        layout = self.layout
        with self._state:
            if self._snapshot is None or not self._root_is_watched():
                return  # the health check restarts and compares everything
            trees = set(pending.trees) | self._ensure_watches()
            snap = self._snapshot
            gone: dict[str, snapshots.Stat] = {}
            changes = snap.refresh(
                self.root, pending.files, trees, own=self._own, gone=gone, scan=layout.scan_tree
            )
            agents_before = snap.agents
            if trees:
                snap.agents = layout.agent_ids(self.root)
            self._own.expire()
            batch = layout.build_batch(
                self.root,
                changes,
                snap.stats,
                moves=pending.moves,
                agents_before=agents_before,
                agents_after=snap.agents,
            )
            batch = self._moves.pair(batch, changes, snap.stats, gone)
        if not batch.empty:
            self._deliver(batch)

    def _rescan(self, reason: str, *, deliver_empty: bool = False) -> events.ChangeBatch | None:
        """Compare the whole vault with the snapshot (the saved one if none in memory)."""
        with self._state:
            batch = self._compare_all(reason)
        if batch is not None and (deliver_empty or not batch.empty):
            self._deliver(batch)
        return batch

    def _compare_all(self, reason: str) -> events.ChangeBatch | None:
        if _identity(self.root) is None:
            return None
        listing = self.layout.scan_tree(self.root, "")
        agents = self.layout.agent_ids(self.root)
        self._check_watch_limit(listing.folders)
        snap = self._snapshot
        if snap is None and self.snapshot_name is not None:
            snap = snapshots.Snapshot.load(self._snapshot_path(), self._state_root())
            if snap is None:  # nothing to compare with
                self._snapshot = snapshots.Snapshot(listing.stats, agents=agents)
                self._save()
                return events.ChangeBatch(self.root, reason, rescan=True, everything=True)
        if snap is None:  # in memory only: the first listing is the baseline
            self._snapshot = snapshots.Snapshot(listing.stats, agents=agents)
            return events.ChangeBatch(self.root, reason, rescan=True)
        self._snapshot = snap
        gone: dict[str, snapshots.Stat] = {}
        changes = snap.reconcile(self.root, listing.stats, None, own=self._own, gone=gone)
        agents_before, snap.agents = snap.agents, agents
        self._save()
        batch = self.layout.build_batch(
            self.root,
            changes,
            snap.stats,
            agents_before=agents_before,
            agents_after=agents,
            reason=reason,
            rescan=True,
        )
        return self._moves.pair(batch, changes, snap.stats, gone)

    def _deliver(self, batch: events.ChangeBatch) -> None:
        try:
            self.on_batch(batch)
        except Exception:
            log.exception("on_batch failed for a change batch (%s)", batch.reason)

    # -- health ---------------------------------------------------------------------------

    def _check_health(self) -> None:
        state = self._status.state
        identity = _identity(self.root)
        if identity is None:
            if state != "missing":
                with self._state:
                    self._stop_observer()
                self._set_status(
                    "missing", f"the vault folder {self.root} is gone; waiting for it to come back"
                )
            return
        why = None
        if state == "missing":
            why = "the vault folder is back"
        elif self._observer is None:
            if time.monotonic() - self._last_attempt >= RETRY_OBSERVER_S:
                why = "trying to watch again"
        elif identity != self._root_id:
            why = "the vault folder was replaced"
        elif not _observer_alive(self._observer):
            why = "the observer thread stopped"
        elif not self._root_is_watched():
            why = "the vault folder's watch stopped"
        if why is not None:
            self._restart(why)
            return
        with self._state:
            trees = self._ensure_watches()
        if trees:
            with self._wake:
                for tree in trees:
                    self._coalescer.add(events.RawEvent("created", tree, is_dir=True))
        if self._resync:
            self._resync = False
            self._rescan("rescan")
        if self._degraded is not None and time.monotonic() - self._last_poll >= self.poll_s:
            self._last_poll = time.monotonic()
            self._rescan("poll")
            self._announce(f"watching {self.root}")

    def _restart(self, why: str) -> None:
        log.info("restarting the vault watcher: %s", why)
        with self._state:
            self._stop_observer()
            self._start_observer()
            started = self._observer is not None
        with self._wake:  # the comparison below covers whatever was pending
            self._coalescer.take(force=True)
        self._rescan("restarted", deliver_empty=started)
        self._announce(f"watching {self.root} again ({why})")
        self._ready.set()

    def _check_watch_limit(self, folders: int) -> None:
        """Fall back to polling if the vault has more folders than can be watched."""
        limit = _inotify_watch_limit()
        if self._observer is None:
            self._degraded = self._observer_error or "the vault cannot be watched"
        elif limit is not None and folders >= int(limit * 0.9):
            self._degraded = (
                f"the vault has {folders:,} folders and the system lets a user watch "
                f"{limit:,} (fs.inotify.max_user_watches)"
            )
        else:
            self._degraded = None

    def _announce(self, message: str) -> None:
        """Say whether the watcher is watching, or degraded to polling and why."""
        if self._degraded is None:
            self._set_status("watching", message)
            return
        if self._status.state != "degraded":
            self._last_poll = time.monotonic()
        self._set_status(
            "degraded",
            f"{self._degraded}: changes are found by comparing the vault every {self.poll_s:g} s",
        )

    def _set_status(self, state: str, message: str) -> None:
        status = WatchStatus(state, message, time.time())
        changed = (status.state, status.message) != (self._status.state, self._status.message)
        self._status = status
        if changed and self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:
                log.exception("on_status failed")

    # -- the observer (callers hold self._state) ------------------------------------------

    def _start_observer(self) -> None:
        self._last_attempt = time.monotonic()
        self._root_id = _identity(self.root)
        observer = Observer()
        try:
            observer.schedule(
                self._handler, os.fspath(self.root), recursive=False, event_filter=_ROOT_EVENTS
            )
            observer.start()
        except OSError as exc:
            log.warning("cannot watch %s: %s", self.root, exc)
            self._observer = None
            self._observer_error = f"the vault cannot be watched ({exc.strerror or exc})"
            return
        self._observer_error = None
        self._observer = observer
        self._watches = {}
        self._ensure_watches()

    def _stop_observer(self) -> None:
        observer, self._observer = self._observer, None
        self._watches = {}
        if observer is not None:
            observer.stop()
            if observer.is_alive() and observer is not threading.current_thread():
                observer.join(5)

    def _ensure_watches(self) -> set[str]:
        """(Re)schedule the recursive watches of `global/` and `agents/`; the ones renewed.

        A folder that appeared, was replaced or whose watch died gets a new watch; the
        caller compares it with the snapshot, which covers anything made before the watch.
        """
        renewed: set[str] = set()
        observer = self._observer
        if observer is None:
            return renewed
        alive = {e.watch for e in observer.emitters if e.is_alive()}
        for name in self.layout.watched:
            path = self.root / name
            identity = _identity(path)
            current = self._watches.get(name)
            if current is not None and (identity != current[1] or current[0] not in alive):
                del self._watches[name]
                with contextlib.suppress(KeyError, OSError):
                    observer.unschedule(current[0])
                renewed.add(name)
                current = None
            if current is None and identity is not None:
                try:
                    watch = observer.schedule(
                        self._handler, os.fspath(path), recursive=True, event_filter=_TREE_EVENTS
                    )
                except OSError as exc:
                    log.warning("cannot watch %s: %s", path, exc)
                    continue
                self._watches[name] = (watch, identity)
                renewed.add(name)
        return renewed

    def _root_is_watched(self) -> bool:
        observer = self._observer
        if observer is None or _identity(self.root) != self._root_id:
            return False
        if not _observer_alive(observer):
            return False
        return any(e.is_alive() and e.watch.path == os.fspath(self.root) for e in observer.emitters)

    # -- the persisted snapshot -----------------------------------------------------------

    def _snapshot_path(self) -> Path:
        assert self.snapshot_name is not None
        return self.layout.snapshot_path(self.root, self.snapshot_name)

    def _state_root(self) -> Path | None:
        """The root no symlink may lead out of on the way to the snapshot (when inside)."""
        return self.root if self.layout.state_inside else None

    def _save(self) -> None:
        if self.snapshot_name is None or self._snapshot is None or not self._snapshot.dirty:
            return
        if _identity(self.root) is None:
            return
        try:
            self._snapshot.save(self._snapshot_path(), self._state_root())
        except (OSError, errors.VaultError) as exc:  # a symlink on the way: refused
            log.warning("cannot save the watch snapshot: %s", exc)


@dataclass
class _Request:
    reason: str
    done: threading.Event = field(default_factory=threading.Event)
    result: events.ChangeBatch | None = None


class _Handler(wd_events.FileSystemEventHandler):
    """Hands every watchdog event to the watcher; never raises into the observer."""

    def __init__(self, watcher: VaultWatcher) -> None:
        self._watcher = watcher

    def dispatch(self, event: wd_events.FileSystemEvent) -> None:
        try:
            self._watcher._on_event(event)
        except Exception:
            log.exception("cannot take in %r", event)


class _OverflowHook(logging.Handler):
    """watchdog only logs a kernel queue overflow: hear it, and rescan."""

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self._on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            return
        if "overflow" in message.lower():
            self._on_overflow()


def _observer_alive(observer: BaseObserver) -> bool:
    """The observer's thread, and on Linux the thread reading its inotify queue, are alive.

    The reader (`_inotify_fd`, a watchdog internal looked up defensively) can die alone,
    e.g. of an exception in a callback; events then stop while every other thread lives.
    """
    reader = getattr(observer, "_inotify_fd", None)
    if isinstance(reader, threading.Thread) and not reader.is_alive():
        return False
    return observer.is_alive()


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a folder, None if it is not a folder (any more)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _inotify_watch_limit() -> int | None:
    """Linux's per-user limit of inotify watches, None elsewhere."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None
