"""`vault-app serve` runs the heartbeat: a real server process on 127.0.0.1 ticks at
start, holds the lease (a cron run leaves the vault to it), and SIGTERM stops it cleanly,
a heartbeat in progress included."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson

from tests.cli_process import REPO, run_cli
from tests.heartbeat.backlog import backlog_vault, heartbeat_count, written
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import lease, runlog

MARIA = layout.EntityRef.parse("areas/people/maria")


class Serve:
    """`vault-app serve --port 0 --bm25` on `root`, its stderr drained on a thread."""

    def __init__(self, root: Path) -> None:
        command = [sys.executable, "-m", "vault_app", "--vault", str(root)]
        self.process = subprocess.Popen(
            [*command, "serve", "--port", "0", "--bm25"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"},
        )
        assert self.process.stderr is not None
        self.lines: list[str] = []
        for line in self.process.stderr:
            self.lines.append(line)
            if re.search(r"serving .* at http://127\.0\.0\.1:\d+/mcp", line):
                break
        else:
            raise AssertionError("serve did not start: " + "".join(self.lines))
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(60)
        self._drain.join(10)
        assert self.process.stderr is not None
        self.process.stderr.close()
        return code


def wait_for(condition: object, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_serve_ticks_at_start_and_holds_the_vault(vault: Vault) -> None:
    vault.create_entity(MARIA)
    vault.append_daily(
        "Maria prefers oat milk in her coffee.", at=dt.datetime(2026, 11, 20, 9).astimezone()
    )
    serve = Serve(vault.root)
    try:
        wait_for(lambda: runlog.read(vault.root), "the first heartbeat")
        [record] = runlog.read(vault.root)
        assert (record.runner, record.trigger, record.written) == ("serve", "schedule", 1)
        info = lease.holder(vault.root)
        assert info is not None and info["holder"] == "serve"
        assert info["pid"] == serve.process.pid
        cron = run_cli(vault.root, "heartbeat", "--once")
        assert cron.returncode == 0 and "is run by serve" in cron.stdout
    finally:
        code = serve.stop()
    assert code == 0, "".join(serve.lines)
    assert lease.holder(vault.root) is None  # released on the way out
    assert len(runlog.read(vault.root)) == 1


def test_sigterm_during_a_heartbeat_stops_it_cleanly_and_loses_nothing(tmp_path: Path) -> None:
    backlog_vault(tmp_path / "base")
    clean, served = tmp_path / "clean", tmp_path / "served"
    shutil.copytree(tmp_path / "base", clean)
    shutil.copytree(tmp_path / "base", served)
    assert run_cli(clean, "heartbeat", "--once").returncode == 0
    items = served / "global/life/areas/people/maria/items.json"
    serve = Serve(served)
    try:
        wait_for(lambda: heartbeat_count(items) > 0, "the first facts")
    finally:
        code = serve.stop()
    assert code == 0, "".join(serve.lines)
    [stopped] = runlog.read(served)  # the run ended early and said what it did
    assert stopped.runner == "serve" and stopped.error is None
    rest = run_cli(served, "heartbeat", "--once", "--json")
    assert rest.returncode == 0, rest.stderr
    assert written(served) == written(clean)
    assert orjson.loads(rest.stdout)["runs"][0]["entries"] > 0 or stopped.written == len(
        written(clean)
    )
