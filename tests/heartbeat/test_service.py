"""The runner with an injected clock: ticks run what is due and record the schedule; a
missed Sunday is caught up once; another holder means no work; the ticker stops."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from vault_app.core import config, layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import lease, runlog, schedule, state
from vault_app.heartbeat import runner as service

WEDNESDAY = dt.datetime(2026, 11, 18, 10, 0).astimezone()
SUNDAY = dt.datetime(2026, 11, 22, 0, 0).astimezone()  # the default [synthesis] moment
MARIA = layout.EntityRef.parse("areas/people/maria")


class Clock:
    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@pytest.fixture
def runner(vault: Vault) -> Iterator[service.Runner]:
    vault.create_entity(MARIA)
    vault.add_fact(MARIA, "Maria prefers oat milk.", "preference")
    made = service.Runner(vault.root, runner="serve", clock=Clock(WEDNESDAY))
    yield made
    made.close()


def jobs(records: list[runlog.RunRecord]) -> list[tuple[str, str]]:
    return [(r.job, r.trigger) for r in records]


def test_ticks_run_the_heartbeat_every_interval(runner: service.Runner, vault: Vault) -> None:
    clock = runner.clock
    assert isinstance(clock, Clock)
    vault.append_daily("Maria prefers green tea at night.", at=WEDNESDAY - dt.timedelta(hours=1))
    first = runner.tick()
    assert jobs(first) == [("heartbeat", "schedule")] and first[0].written == 1
    assert runner.holds_lease
    clock.advance(minutes=14)
    assert runner.tick() == []
    clock.advance(minutes=1)
    assert jobs(runner.tick()) == [("heartbeat", "schedule")]
    saved = schedule.ScheduleState.load(vault.root)
    assert saved.since == WEDNESDAY and saved.last_heartbeat == clock.now
    assert saved.last_synthesis is None


def test_the_synthesis_runs_on_sunday_and_catches_up_once(
    runner: service.Runner, vault: Vault
) -> None:
    clock = runner.clock
    assert isinstance(clock, Clock)
    runner.tick()  # Wednesday: the schedule starts
    clock.now = SUNDAY + dt.timedelta(seconds=20)
    assert jobs(runner.tick()) == [("heartbeat", "schedule"), ("synthesis", "schedule")]
    assert "oat milk" in (vault.paths.entity_dir(MARIA) / "summary.md").read_text()
    # the machine sleeps through the next two Sundays
    clock.now = SUNDAY + dt.timedelta(days=15, hours=9)
    assert jobs(runner.tick()) == [("heartbeat", "schedule"), ("synthesis", "catch-up")]
    clock.advance(minutes=15)
    assert jobs(runner.tick()) == [("heartbeat", "schedule")]  # caught up once only
    assert [r.trigger for r in runlog.read(vault.root, job="synthesis")] == [
        "catch-up",
        "schedule",
    ]


def test_a_disabled_heartbeat_still_runs_the_synthesis(vault: Vault) -> None:
    off = config.VaultConfig(heartbeat=config.HeartbeatSettings(enabled=False))
    (vault.paths.state_dir / config.CONFIG_NAME).write_text(
        "[heartbeat]\nenabled = false\n", encoding="utf-8"
    )
    assert not off.heartbeat.enabled
    clock = Clock(WEDNESDAY)
    runner = service.Runner(vault.root, runner="app", clock=clock)
    try:
        assert runner.tick() == []
        clock.now = SUNDAY + dt.timedelta(minutes=1)
        assert jobs(runner.tick()) == [("synthesis", "schedule")]
    finally:
        runner.close()


def test_another_holder_means_no_work_until_it_lets_go(
    runner: service.Runner, vault: Vault
) -> None:
    other = lease.Lease(vault.root, "app")
    assert other.acquire()
    assert runner.tick() == [] and not runner.holds_lease
    assert runner.once() is None
    assert runlog.read(vault.root) == []
    other.release()
    assert jobs(runner.tick()) == [("heartbeat", "schedule")]
    assert lease.holder(vault.root) is not None
    runner.close()
    assert lease.holder(vault.root) is None


def test_a_corrupt_schedule_stops_ticks_and_is_left_alone(
    runner: service.Runner, vault: Vault
) -> None:
    path = state.path(vault.root, schedule.STATE_NAME)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[1, 2]")
    assert runner.tick() == []
    assert path.read_text() == "[1, 2]"


def test_the_ticker_ticks_at_once_and_stops_cleanly(vault: Vault) -> None:
    vault.append_daily("Hello there.", at=WEDNESDAY)
    runner = service.Runner(vault.root, runner="serve", clock=Clock(WEDNESDAY))
    ticker = service.Ticker(runner, every_s=3600)
    ticker.start()
    deadline = dt.datetime.now() + dt.timedelta(seconds=60)
    while not runlog.read(vault.root) and dt.datetime.now() < deadline:
        runner.stopping.wait(0.05)
    assert [r.job for r in runlog.read(vault.root)] == ["heartbeat"]
    assert ticker.stop() is True
    assert not runner.holds_lease and lease.holder(vault.root) is None
    assert runner.tick() == []  # a stopped runner does nothing


def test_the_embed_provider_is_asked_at_each_heartbeat_and_used_by_dedup(vault: Vault) -> None:
    """`serve` hands the runner its loaded model this way: asked at every heartbeat (None
    while no model is loaded), and what it gives is what dedup compares facts with."""
    import numpy as np

    vault.create_entity(MARIA)
    vault.add_fact(MARIA, "Maria prefers oat milk.", "preference")
    embedded: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        rows = np.array([[len(t), t.count(" ") + 1, 1.0] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    given: list[object] = [None, embed]
    asked: list[object] = []

    def provider() -> object:
        asked.append(given[len(asked)])
        return asked[-1]

    clock = Clock(WEDNESDAY)
    runner = service.Runner(vault.root, runner="serve", clock=clock, embed=provider)  # type: ignore[arg-type]
    try:
        vault.append_daily("Maria prefers green tea at night.", at=WEDNESDAY)
        runner.tick()
        assert asked == [None] and embedded == []
        clock.advance(minutes=15)
        vault.append_daily("Maria prefers black coffee in the morning.", at=clock.now)
        runner.tick()
        assert asked == [None, embed] and embedded  # the entity's facts and the new one
    finally:
        runner.close()
