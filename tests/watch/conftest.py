"""Fixtures for the watcher tests: a small vault, a writer process, a batch collector."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vault_app.core import vault
from vault_app.watch import events, watcher


class Batches:
    """Collects what a watcher reports (batches and statuses); waits for one by polling."""

    def __init__(self) -> None:
        self.items: list[events.ChangeBatch] = []
        self.statuses: list[watcher.WatchStatus] = []
        self._changed = threading.Condition()

    def __call__(self, batch: events.ChangeBatch) -> None:
        with self._changed:
            self.items.append(batch)
            self._changed.notify_all()

    def status(self, status: watcher.WatchStatus) -> None:
        with self._changed:
            self.statuses.append(status)
            self._changed.notify_all()

    def wait_for(
        self, check: Callable[[events.ChangeBatch], bool], timeout: float = 20.0
    ) -> events.ChangeBatch:
        """The first batch (since the start) for which `check` holds, waiting for it."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for batch in self.items:
                    if check(batch):
                        return batch
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = "\n".join(b.describe() for b in self.items) or "(none)"
                    raise AssertionError(f"no such batch within {timeout} s; seen:\n{seen}")
                self._changed.wait(left)

    def wait_status(self, state: str, contains: str = "", timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not any(s.state == state and contains in s.message for s in self.statuses):
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [f"{s.state}: {s.message}" for s in self.statuses]
                    raise AssertionError(f"no status {state!r} ({contains!r}); seen {seen}")
                self._changed.wait(left)

    def everything_reported(self) -> set[str]:
        """Every entity address named as changed in any batch so far."""
        with self._changed:
            return {str(r) for b in self.items for r in b.entities}


@pytest.fixture
def batches() -> Batches:
    return Batches()


@pytest.fixture
def home(tmp_path: Path) -> vault.Vault:
    """A small vault: two global entities (one nested), an agent with one, a daily note."""
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("areas/people/jane", "Jane is the family plumber.")
    v.create_entity("projects/house")
    v.create_entity("projects/house/kitchen")
    v.create_agent("ops")
    v.create_entity("agent:ops:projects/budget")
    v.append_daily("first note")
    return v


@pytest.fixture
def watching(home: vault.Vault, batches: Batches) -> Iterator[watcher.VaultWatcher]:
    """A running watcher on `home` (in-memory snapshot), its own writes recognised."""
    watch = watcher.VaultWatcher(
        home, batches, on_status=batches.status, snapshot=None, health_s=0.2
    )
    watch.start()
    assert watch.wait_ready(30)
    yield watch
    watch.stop()
