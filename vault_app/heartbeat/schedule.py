"""When the heartbeat and the weekly synthesis are due: `.vault/heartbeat/schedule.json`.

The state is three moments: when this vault's schedule started (`since`: the first
runner that looked at it), the last heartbeat and the last synthesis. From them and the
vault's `[heartbeat]` and `[synthesis]` settings, `due(settings, state, now)` says what
to run now; nothing here reads a clock (every caller passes `now`), so tests move time
by hand.

- The heartbeat is due every `interval_minutes` after the last one (at once when there
  was none), while `[heartbeat] enabled`.
- The synthesis is due when its latest scheduled moment (`[synthesis]` weekday and
  time, local; `core.outlook.next_synthesis` is the one place that knows the rule) lies
  after the last synthesis - or after `since` when there was none, so a vault first
  seen on a Wednesday is not rewritten on the spot. Runs missed while the machine slept
  or no runner was up are caught up once at the next tick, however many weeks were
  missed; such a run's trigger is "catch-up", a run within `ON_TIME` of its moment
  "schedule".
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

from vault_app.core import config, decay, outlook, storage
from vault_app.heartbeat import state

STATE_NAME = "schedule.json"
WEEK = dt.timedelta(days=7)
# a synthesis started later than this after its moment is a catch-up
ON_TIME = dt.timedelta(minutes=15)
_FIELDS = ("since", "last_heartbeat", "last_synthesis")


@dataclasses.dataclass(frozen=True)
class ScheduleState:
    since: dt.datetime | None = None
    last_heartbeat: dt.datetime | None = None
    last_synthesis: dt.datetime | None = None

    @classmethod
    def load(cls, root: Path) -> ScheduleState:
        """The saved state (empty when there is none); CorruptFileError if unreadable."""
        data = state.read(root, STATE_NAME)
        if data is None:
            return cls()
        values: dict[str, dt.datetime | None] = {}
        for name in _FIELDS:
            raw = data.get(name)
            if raw is None:
                values[name] = None
                continue
            if not isinstance(raw, str):
                raise state.corrupt(root, STATE_NAME, "expected an ISO time or null", name)
            try:
                values[name] = decay.as_aware(dt.datetime.fromisoformat(raw))
            except ValueError:
                raise state.corrupt(root, STATE_NAME, f"not an ISO time: {raw!r}", name) from None
        return cls(**values)

    def save(self, store: storage.Storage) -> None:
        data: dict[str, Any] = {
            name: None if (v := getattr(self, name)) is None else v.isoformat() for name in _FIELDS
        }
        state.write(store, STATE_NAME, data, "heartbeat.schedule")

    def started(self, now: dt.datetime) -> ScheduleState:
        """This state with `since` set (to `now`) if it was not."""
        return self if self.since is not None else dataclasses.replace(self, since=now)


@dataclasses.dataclass(frozen=True)
class Due:
    heartbeat: bool
    synthesis: bool
    synthesis_trigger: str  # "schedule" | "catch-up"


def last_slot(settings: config.SynthesisSettings, now: dt.datetime) -> dt.datetime:
    """The latest scheduled synthesis moment at or before `now`."""
    return outlook.next_synthesis(settings, decay.as_aware(now) - WEEK)


def due(settings: config.VaultConfig, state: ScheduleState, now: dt.datetime) -> Due:
    """What is due at `now`."""
    now = decay.as_aware(now)
    beat = settings.heartbeat
    heartbeat = beat.enabled and (
        state.last_heartbeat is None
        or now >= state.last_heartbeat + dt.timedelta(minutes=beat.interval_minutes)
    )
    slot = last_slot(settings.synthesis, now)
    anchor = state.last_synthesis or state.since
    synthesis = anchor is not None and anchor < slot
    trigger = "schedule" if now - slot <= ON_TIME else "catch-up"
    return Due(heartbeat, synthesis, trigger)


def next_times(
    settings: config.VaultConfig, state: ScheduleState, now: dt.datetime
) -> tuple[dt.datetime | None, dt.datetime]:
    """(next heartbeat - None when the heartbeat is disabled -, next synthesis); a job due
    now is due at `now`."""
    now = decay.as_aware(now)
    beat = settings.heartbeat
    heartbeat: dt.datetime | None = None
    if beat.enabled:
        heartbeat = now
        if state.last_heartbeat is not None:
            heartbeat = max(now, state.last_heartbeat + dt.timedelta(minutes=beat.interval_minutes))
    is_due = due(settings, state, now).synthesis
    return heartbeat, now if is_due else outlook.next_synthesis(settings.synthesis, now)
