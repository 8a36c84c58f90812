"""The schedule with an injected clock: the heartbeat every interval, the weekly synthesis
on its weekday and time, a missed Sunday caught up once, several missed weeks too."""

from __future__ import annotations

import datetime as dt

import pytest

from vault_app.core import config, errors
from vault_app.core.vault import Vault
from vault_app.heartbeat import schedule, state

SETTINGS = config.VaultConfig.model_validate(
    {"heartbeat": {"interval_minutes": 15}, "synthesis": {"weekday": "sunday", "time": "03:00"}}
)
SUNDAY = dt.datetime(2026, 11, 22, 3, 0).astimezone()  # a Sunday, local time
WEDNESDAY = SUNDAY - dt.timedelta(days=4)


def minutes(n: float) -> dt.timedelta:
    return dt.timedelta(minutes=n)


def test_the_heartbeat_is_due_at_once_then_every_interval() -> None:
    fresh = schedule.ScheduleState()
    assert schedule.due(SETTINGS, fresh, WEDNESDAY).heartbeat
    beat = schedule.ScheduleState(since=WEDNESDAY, last_heartbeat=WEDNESDAY)
    assert not schedule.due(SETTINGS, beat, WEDNESDAY + minutes(14)).heartbeat
    assert schedule.due(SETTINGS, beat, WEDNESDAY + minutes(15)).heartbeat
    assert schedule.next_times(SETTINGS, beat, WEDNESDAY + minutes(5))[0] == (
        WEDNESDAY + minutes(15)
    )


def test_a_disabled_heartbeat_is_never_due() -> None:
    off = SETTINGS.model_copy(update={"heartbeat": config.HeartbeatSettings(enabled=False)})
    assert not schedule.due(off, schedule.ScheduleState(), WEDNESDAY).heartbeat
    assert schedule.next_times(off, schedule.ScheduleState(), WEDNESDAY)[0] is None


def test_a_vault_first_seen_midweek_waits_for_sunday() -> None:
    fresh = schedule.ScheduleState().started(WEDNESDAY)
    assert not schedule.due(SETTINGS, schedule.ScheduleState(), WEDNESDAY).synthesis
    assert not schedule.due(SETTINGS, fresh, SUNDAY - minutes(1)).synthesis
    assert schedule.next_times(SETTINGS, fresh, WEDNESDAY)[1] == SUNDAY
    on_time = schedule.due(SETTINGS, fresh, SUNDAY + dt.timedelta(seconds=30))
    assert on_time.synthesis and on_time.synthesis_trigger == "schedule"


def test_after_a_synthesis_the_next_is_a_week_later() -> None:
    done = schedule.ScheduleState(since=WEDNESDAY, last_synthesis=SUNDAY + minutes(1))
    assert not schedule.due(SETTINGS, done, SUNDAY + dt.timedelta(days=6)).synthesis
    assert schedule.next_times(SETTINGS, done, SUNDAY + minutes(2))[1] == SUNDAY + dt.timedelta(
        days=7
    )
    assert schedule.due(SETTINGS, done, SUNDAY + dt.timedelta(days=7)).synthesis


def test_a_missed_sunday_is_caught_up_at_the_next_tick() -> None:
    slept = schedule.ScheduleState(since=WEDNESDAY, last_synthesis=SUNDAY - dt.timedelta(days=7))
    monday = SUNDAY + dt.timedelta(days=1, hours=6)  # the machine slept through Sunday
    due = schedule.due(SETTINGS, slept, monday)
    assert due.synthesis and due.synthesis_trigger == "catch-up"
    assert schedule.next_times(SETTINGS, slept, monday)[1] == monday  # due now
    after = schedule.ScheduleState(slept.since, None, monday)
    assert not schedule.due(SETTINGS, after, monday + minutes(1)).synthesis


def test_several_missed_weeks_make_one_run() -> None:
    off = schedule.ScheduleState(since=WEDNESDAY - dt.timedelta(days=60))
    later = SUNDAY + dt.timedelta(days=3)
    assert schedule.due(SETTINGS, off, later).synthesis_trigger == "catch-up"
    ran = schedule.ScheduleState(off.since, later, later)
    for hours in (0.01, 1, 24, 24 * 3):
        assert not schedule.due(SETTINGS, ran, later + dt.timedelta(hours=hours)).synthesis


def test_the_state_is_saved_atomically_and_read_back(vault: Vault) -> None:
    saved = schedule.ScheduleState(WEDNESDAY, SUNDAY, None)
    saved.save(vault.storage)
    assert schedule.ScheduleState.load(vault.root) == saved


def test_a_corrupt_state_is_a_precise_error(vault: Vault) -> None:
    path = state.path(vault.root, schedule.STATE_NAME)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"last_heartbeat": "yesterday"}')
    with pytest.raises(errors.CorruptFileError, match=r"last_heartbeat.*not an ISO time"):
        schedule.ScheduleState.load(vault.root)
