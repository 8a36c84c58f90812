"""One runner per vault: the lease `.vault/heartbeat/lease.lock`.

A runner (`serve`, the desktop app, a `heartbeat --once` from cron) runs the heartbeat
and the synthesis only while it holds the lease: an exclusive, non-blocking lock on
`lease.lock` (filelock: `flock` on POSIX, `LockFileEx` on Windows), taken once and kept
for as long as the runner lives. The operating system drops such a lock when its
process ends however it ends, so a SIGKILLed holder never blocks the next runner, and
no stale-lock guessing (pids, ages) is needed.

Beside it, `lease.json` says who took it (holder, pid, host, since) for `--status` and
for a runner that finds the lease taken. It is only a label: `holder()` trusts it only
while the lock is really held (it probes the lock), so a label left by a dead holder
reads as "nobody".
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import filelock

from vault_app.core import errors, safe_fs, storage
from vault_app.heartbeat import state

LOCK_NAME = "lease.lock"
INFO_NAME = "lease.json"
LABEL_WAIT_S = 2.0  # how long `holder` waits for the label of a holder that just took it


class Lease:
    """The vault's runner lease for this process, as `holder` ("serve", "app", "cli")."""

    def __init__(self, root: Path, holder: str) -> None:
        self.root = Path(root)
        self.holder = holder
        self._path = state.path(self.root, LOCK_NAME)
        # thread_local=False: the tick thread acquires, another thread may release
        self._lock = filelock.FileLock(self._path, blocking=False, thread_local=False)
        self._guard = threading.Lock()
        self._since: dt.datetime | None = None

    @property
    def held(self) -> bool:
        return self._since is not None

    def acquire(self, store: storage.Storage | None = None) -> bool:
        """Take the lease if nobody holds it (never waits); True if this process holds it
        now. `store` (the vault's) writes `lease.json`; one is opened when not given."""
        with self._guard:
            if self._since is not None:
                return True
            safe_fs.make_dirs(self.root, self._path.parent)  # no symlink on the way
            safe_fs.check_tree(self.root, self._path, safe_fs.STATE_READ)
            try:
                self._lock.acquire()
            except filelock.Timeout:
                return False
            since = dt.datetime.now(dt.UTC)
            try:
                self._label(store, since)
            except BaseException:
                self._lock.release()
                raise
            self._since = since
            return True

    def release(self) -> None:
        """Give the lease up (a no-op when not held). `lease.json` stays: without the lock
        it names nobody."""
        with self._guard:
            if self._since is None:
                return
            self._since = None
            self._lock.release()

    def _label(self, store: storage.Storage | None, since: dt.datetime) -> None:
        if store is None:
            from vault_app.core import vault

            store = vault.Vault(self.root, actor="heartbeat").storage
        info = {
            "holder": self.holder,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": since.isoformat(timespec="seconds"),
        }
        state.write(store, INFO_NAME, info, "heartbeat.lease")


def holder(root: Path) -> dict[str, Any] | None:
    """Who holds the vault's lease now (`lease.json`: holder, pid, host, since), None when
    nobody does. A holder whose label is missing or unreadable (after `LABEL_WAIT_S`:
    it may have just taken the lock) reads as {"holder": "unknown"}; a label naming a
    process of this host that is gone is waited on the same way, then given as it is.

    The probe takes the lock for an instant when it is free; a runner trying at that very
    instant finds it taken and tries again at its next tick.
    """
    root = Path(root)
    lock_path = state.path(root, LOCK_NAME)
    safe_fs.check_tree(root, lock_path, safe_fs.STATE_READ)
    if not lock_path.exists():
        return None
    probe = filelock.FileLock(lock_path, blocking=False, thread_local=False)
    try:
        probe.acquire()
    except filelock.Timeout:
        pass
    else:
        probe.release()
        return None
    # The holder writes its label just after taking the lock: a label missing, or left by
    # a holder that is gone, is waited for a moment rather than reported.
    deadline = time.monotonic() + LABEL_WAIT_S
    while True:
        info = _label(root)
        if info is not None and _alive(info):
            return info
        if time.monotonic() >= deadline:
            return info if info is not None else {"holder": "unknown"}
        time.sleep(0.02)


def _label(root: Path) -> dict[str, Any] | None:
    try:
        info = state.read(root, INFO_NAME)
    except errors.CorruptFileError:
        return None
    return info if info is not None and "holder" in info else None


def _alive(info: dict[str, Any]) -> bool:
    """Whether the label's process may be the holder: another host's, or a live pid here
    (POSIX only: Windows has no harmless probe of a pid, so its labels are trusted)."""
    pid = info.get("pid")
    if os.name != "posix" or info.get("host") != socket.gethostname():
        return True
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


def describe(info: dict[str, Any]) -> str:
    """ "serve (pid 4242 on host, since 2026-11-24T05:00:00+00:00)": a holder for people."""
    parts = [f"pid {info['pid']}" if "pid" in info else None]
    if "host" in info:
        parts.append(f"on {info['host']}")
    words = " ".join(p for p in parts if p)
    since = f"since {info['since']}" if "since" in info else ""
    detail = ", ".join(x for x in (words, since) if x)
    return f"{info.get('holder', 'unknown')}" + (f" ({detail})" if detail else "")
