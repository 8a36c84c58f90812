"""The runner: the heartbeat and the synthesis, run when due, by whoever holds the lease.

`Runner(root, runner=...)` is what `serve`, the desktop app and `heartbeat --once` share.
Its `tick()` takes the vault's lease if it can (another process holding it: nothing to
do, `[]`), reads the schedule (`schedule.due`) with the vault's current settings, runs
the heartbeat and then the synthesis when due, saves the schedule and returns the run
records. `once()` is `heartbeat --once`: a heartbeat now, due or not (trigger "once"),
and the synthesis if due; None when another process holds the lease. The lease, once
taken, is kept until `close()` (or the process's end), so the runner that started first
keeps running the vault. `stopping` (an Event) asks a heartbeat in progress to end after
its current entry; `close()` sets it, waits for the tick, and releases the lease.

`Ticker` calls a runner's `tick()` every `every_s` seconds on a worker thread, the first
tick `first_after` seconds after `start()` (at once by default; `serve` waits a few
seconds, so a client's first handshake and the index's load come first). `stop()` asks
a heartbeat in progress to end after its current entry (everything done so far saved:
see `run`), waits for it a bounded time, then releases the lease; a tick that still does
not end in time is abandoned safely - every write it makes is atomic, and the lease goes
with the process. `serve_service(root)` wraps a ticker as the async context manager
`serve`'s app runs for as long as it serves.

Times come from `clock` (default: the system's), so tests drive the schedule by hand.
`embed`, when given, is asked at each heartbeat for the sentence encoder's `embed`
(None while no model is loaded), so dedup compares by cosine once one is. The pipeline
(`run`: the extractors, routing, dedup) is imported at the first run, not with this
module: `serve` imports this one before it answers anything.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vault_app.core import config, decay, errors
from vault_app.core.vault import Vault
from vault_app.heartbeat import lease, runlog, schedule
from vault_app.heartbeat.extraction import ACTOR, Extractor

if TYPE_CHECKING:
    from vault_app.heartbeat.dedup import Embed


TICK_S = 30.0
STOP_WAIT_S = 20.0  # how long `stop` waits for a tick in progress

log = logging.getLogger(__name__)


class Runner:
    """Runs what is due in the vault at `root` while holding its lease (as `runner`)."""

    def __init__(
        self,
        root: Path,
        *,
        runner: str,
        clock: Callable[[], dt.datetime] | None = None,
        extractor: Extractor | None = None,
        embed: Callable[[], Embed | None] | None = None,
    ) -> None:
        self.root = Path(root)
        self.embed = embed
        self.runner = runner
        self.clock = clock or decay.system_clock
        self.extractor = extractor  # None: the vault's settings choose at each run
        self.lease = lease.Lease(self.root, runner)
        self.stopping = threading.Event()
        self._busy = threading.Lock()
        self._schedule_error: str | None = None

    @property
    def holds_lease(self) -> bool:
        return self.lease.held

    def tick(self) -> list[runlog.RunRecord]:
        """Run what is due now; [] when another process holds the lease or nothing is."""
        return self._run(None) or []

    def once(self, trigger: str = "once") -> list[runlog.RunRecord] | None:
        """A heartbeat now, due or not, then the synthesis if it is due (`heartbeat
        --once`); None when another process holds the lease."""
        return self._run(trigger)

    def _run(self, forced: str | None) -> list[runlog.RunRecord] | None:
        with self._busy:
            if self.stopping.is_set():
                return []
            vault = Vault(self.root, actor=ACTOR)
            if not self.lease.acquire(vault.storage):
                return None if forced else []
            now = decay.as_aware(self.clock())
            try:
                state = schedule.ScheduleState.load(self.root)
            except errors.CorruptFileError as exc:
                if forced:
                    raise
                self._report_once(str(exc))  # never overwritten; a person fixes it
                return []
            self._schedule_error = None
            settings = self._settings(vault)
            state = state.started(now)
            due = schedule.due(settings, state, now)
            records = []
            if forced or due.heartbeat:
                records.append(self.heartbeat(now, trigger=forced or "schedule"))
                state = schedule.ScheduleState(state.since, now, state.last_synthesis)
            if due.synthesis and not self.stopping.is_set():
                from vault_app.heartbeat import runs

                records.append(
                    runs.run_synthesis(
                        self.root, runner=self.runner, trigger=due.synthesis_trigger, now=now
                    )
                )
                state = schedule.ScheduleState(state.since, state.last_heartbeat, now)
            state.save(vault.storage)
            return records

    def heartbeat(self, now: dt.datetime, *, trigger: str) -> runlog.RunRecord:
        """One heartbeat now (the caller holds the lease)."""
        from vault_app.heartbeat import runs

        return runs.run_heartbeat(
            self.root,
            runner=self.runner,
            trigger=trigger,
            extractor=self.extractor,
            now=now,
            embed=self.embed() if self.embed is not None else None,
            cancelled=self.stopping.is_set,
        )

    def _settings(self, vault: Vault) -> config.VaultConfig:
        if vault.config_error is not None:
            self._report_once(f"{vault.config_error}; running on the default settings")
        return vault.config

    def _report_once(self, message: str) -> None:
        if message != self._schedule_error:
            log.error("heartbeat: %s", message)
            self._schedule_error = message

    def close(self) -> None:
        """Stop ticking and release the lease (after a tick in progress has ended)."""
        self.stopping.set()
        with self._busy:
            self.lease.release()


class Ticker:
    """Calls `runner.tick()` every `every_s` seconds on a worker thread until `stop()`."""

    def __init__(self, runner: Runner, every_s: float = TICK_S, first_after: float = 0.0) -> None:
        self.runner = runner
        self.every_s = every_s
        self.first_after = first_after
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="vault-heartbeat", daemon=True)
        self.ticks = 0
        self._failure: str | None = None  # the last tick's failure, logged once

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        if self.first_after > 0:
            self._wake.wait(self.first_after)
        while not self.runner.stopping.is_set():
            try:
                for record in self.runner.tick():
                    log.info(
                        "heartbeat: %s (%s) %.2f s%s",
                        record.job,
                        record.trigger,
                        record.duration_s,
                        f", error: {record.error}" if record.error else "",
                    )
            except Exception as exc:  # a tick's failure must not end the service
                message = f"{type(exc).__name__}: {exc}"
                if message != self._failure:  # said once, not every 30 s
                    log.exception("heartbeat: the tick failed (retried every %g s)", self.every_s)
                    self._failure = message
            else:
                self._failure = None
            self.ticks += 1
            self._wake.wait(self.every_s)

    def stop(self, wait_s: float = STOP_WAIT_S) -> bool:
        """Stop ticking; True if the worker ended (and the lease was released) in time."""
        self.runner.stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(wait_s)
        if self._thread.is_alive():
            log.warning("heartbeat: a run did not end within %g s; abandoned", wait_s)
            return False
        self.runner.close()
        return True


def serve_service(
    root: Path,
    *,
    runner: str = "serve",
    every_s: float = TICK_S,
    first_after: float = 0.0,
    clock: Callable[[], dt.datetime] | None = None,
    embed: Callable[[], Embed | None] | None = None,
) -> Callable[[], contextlib.AbstractAsyncContextManager[None]]:
    """The heartbeat as a service of `serve` (`mcp.http.BackgroundService`): ticking from
    `first_after` seconds after the app's start to its shutdown."""

    @contextlib.asynccontextmanager
    async def service() -> AsyncIterator[None]:
        import asyncio

        made = Runner(root, runner=runner, clock=clock, embed=embed)
        ticker = Ticker(made, every_s, first_after)
        ticker.start()
        try:
            yield
        finally:
            await asyncio.to_thread(ticker.stop)

    return service
