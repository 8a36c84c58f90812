"""The lease: one runner per vault, across real processes; a killed holder blocks no one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import filelock

from tests.cli_process import REPO
from vault_app.core.vault import Vault
from vault_app.heartbeat import lease, state

HOLD = """
import sys, time
from pathlib import Path
from vault_app.heartbeat import lease
held = lease.Lease(Path(sys.argv[1]), sys.argv[2])
print("held" if held.acquire() else "busy", flush=True)
time.sleep(600)
"""


def holder_process(root: Path, name: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root), name],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "held"
    return process


def test_one_holder_at_a_time_within_a_process(vault: Vault) -> None:
    first, second = lease.Lease(vault.root, "serve"), lease.Lease(vault.root, "app")
    assert lease.holder(vault.root) is None
    assert first.acquire() and first.acquire()  # again: still ours
    assert not second.acquire()
    info = lease.holder(vault.root)
    assert info is not None and info["holder"] == "serve" and info["pid"] == os.getpid()
    first.release()
    assert lease.holder(vault.root) is None  # the label stays, but names nobody
    assert state.read(vault.root, lease.INFO_NAME) is not None
    assert second.acquire()
    second.release()


def test_another_process_holding_it_is_named_and_its_death_frees_it(vault: Vault) -> None:
    process = holder_process(vault.root, "serve")
    try:
        mine = lease.Lease(vault.root, "cli")
        assert not mine.acquire()
        info = lease.holder(vault.root)
        assert info is not None and info["holder"] == "serve" and info["pid"] == process.pid
        assert lease.describe(info).startswith(f"serve (pid {process.pid} on ")
        process.send_signal(signal.SIGKILL)  # no clean-up of any kind
        process.wait(30)
        assert lease.holder(vault.root) is None
        assert mine.acquire()
        mine.release()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
        assert process.stdout is not None
        process.stdout.close()


def test_an_unreadable_label_still_says_someone_holds_it(vault: Vault) -> None:
    held = lease.Lease(vault.root, "app")
    assert held.acquire()
    state.path(vault.root, lease.INFO_NAME).write_bytes(b"{torn")
    assert lease.holder(vault.root) == {"holder": "unknown"}
    held.release()


def test_a_holder_caught_before_its_label_is_waited_for(vault: Vault) -> None:
    """Between taking the lock and writing lease.json the holder has no label yet (or
    an old holder's, naming a process that is gone): `holder` waits for the new one."""
    stale = {"holder": "serve", "pid": 2**22 + 1, "host": socket.gethostname()}
    state.write(vault.storage, lease.INFO_NAME, stale, "test")
    taken = filelock.FileLock(state.path(vault.root, lease.LOCK_NAME), blocking=False)
    taken.acquire()
    label = {"holder": "cli", "pid": os.getpid(), "host": socket.gethostname()}
    writer = threading.Timer(0.3, state.write, (vault.storage, lease.INFO_NAME, label, "test"))
    writer.start()
    try:
        assert lease.holder(vault.root) == label
    finally:
        writer.join()
        taken.release()
