"""`vault-app watch` in a real process: one line per batch, Ctrl+C exits cleanly."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.grants import let_write_global
from vault_app.core import vault


def iter_queue(lines: queue.Queue[str]) -> list[str]:
    taken = []
    while not lines.empty():
        taken.append(lines.get_nowait())
    return taken


class Command:
    """`vault-app watch` running in a child process, its output read line by line."""

    def __init__(self, root: Path, *options: str, pump: bool = True) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vault_app", "watch", "--vault", str(root), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # SIGABRT prints every stack
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        self.errors: list[str] = []
        streams = [(self.process.stderr, self.err)]
        if pump:
            streams.append((self.process.stdout, self.out))
        for stream, lines in streams:
            threading.Thread(target=self._pump, args=(stream, lines), daemon=True).start()

    @staticmethod
    def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))
        stream.close()

    def line(self, timeout: float = 20.0) -> str:
        return self.out.get(timeout=timeout)

    def wait_stderr(self, text: str, timeout: float = 20.0) -> None:
        while not any(text in line for line in self.errors):
            self.errors.append(self.err.get(timeout=timeout))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(20)

    def interrupt(self, sig: int = signal.SIGINT) -> int:
        """Ctrl+C (or `sig`); the exit status. A child still running after a minute is
        made to print its threads' stacks, for the failure to say where it hung (it
        once ignored Ctrl+C: started by a background shell with SIGINT ignored)."""
        self.process.send_signal(sig)
        try:
            return self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)
            self.process.wait(20)
            time.sleep(0.5)  # the pump threads drain stderr
            stacks = "\n".join([*self.errors, *iter_queue(self.err)])
            raise AssertionError(f"vault-app watch ignored Ctrl+C for 60 s:\n{stacks}") from None


Start = Callable[..., Command]


@pytest.fixture
def start() -> Iterator[Start]:
    """Start `vault-app watch`; whatever is still running at the end is killed."""
    started: list[Command] = []

    def run(root: Path, *options: str, pump: bool = True) -> Command:
        started.append(Command(root, *options, pump=pump))
        return started[-1]

    yield run
    for command in started:
        command.stop()


def test_watch_json_prints_one_line_per_batch_and_exits_0_on_ctrl_c(
    home: vault.Vault, start: Start
) -> None:
    command = start(home.root, "--json")
    command.wait_stderr("watching")
    let_write_global(home.root, "ops")
    other = vault.Vault(home.root, actor="agent:ops")  # this process: another writer
    other.add_fact("areas/people/jane", "Jane charges 80 an hour", "status")
    batch = json.loads(command.line())
    assert batch["entities"] == ["areas/people/jane"]
    assert batch["paths"] == ["global/life/areas/people/jane/items.json"]
    assert batch["reason"] == "events" and batch["everything"] is False
    other.append_daily("a note", agent="ops")
    batch = json.loads(command.line())
    assert batch["daily"][0]["scope"] == "agent:ops"
    assert command.interrupt() == 0
    command.wait_stderr("stopped")


def test_watch_with_a_snapshot_reports_what_changed_between_runs(
    home: vault.Vault, start: Start
) -> None:
    first = start(home.root, "--snapshot", "cli")
    assert "everything may have changed" in first.line()  # nothing to compare with yet
    first.wait_stderr("watching")
    assert first.interrupt() == 0
    vault.Vault(home.root).add_fact("projects/house", "The roof was fixed", "milestone")
    second = start(home.root, "--snapshot", "cli")
    line = second.line()
    assert line.endswith("open: changed projects/house"), line
    assert second.interrupt(signal.SIGTERM) == 0  # a service manager's stop, the same


def test_watch_stops_quietly_when_its_reader_goes_away(home: vault.Vault, start: Start) -> None:
    command = start(home.root, "--json", pump=False)
    command.wait_stderr("watching")
    let_write_global(home.root, "ops")
    other = vault.Vault(home.root, actor="agent:ops")
    other.add_fact("areas/people/jane", "first", "status")
    assert command.process.stdout is not None
    json.loads(command.process.stdout.readline())
    command.process.stdout.close()  # like `vault-app watch --json | head -1`
    other.add_fact("areas/people/jane", "second", "status")
    assert command.process.wait(20) == 0


def test_a_signal_while_the_watcher_starts_ends_it_with_0(
    home: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM may come while the watcher is still starting (a busy machine): the handler
    is in place then, and the command ends as on any other stop, exit status 0."""
    import argparse

    from vault_app.cli import watch as watch_command
    from vault_app.watch import watcher

    stopped: list[bool] = []

    def start(self: watcher.VaultWatcher) -> None:
        signal.raise_signal(signal.SIGTERM)  # arrives before start returns

    monkeypatch.setattr(watcher.VaultWatcher, "start", start)
    monkeypatch.setattr(watcher.VaultWatcher, "stop", lambda self: stopped.append(True))
    args = argparse.Namespace(vault=str(home.root), json=True, snapshot=None, quiet_ms=100)
    before = signal.getsignal(signal.SIGTERM)
    assert watch_command.cmd_watch(args) == 0
    assert stopped == [True]
    assert signal.getsignal(signal.SIGTERM) is before  # the previous handler is back
