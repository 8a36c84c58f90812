"""The decay outlook: facts per tier and scope, the facts going cold soon, the next
scheduled synthesis and a preview of what a synthesis would change.

What the decay dashboard shows, and what a CLI or an agent may ask; no Qt here, every
function takes the vault (and the moment) it reads.

* `tier_rows(scan)`: Hot, Warm, Cold and Superseded facts per scope (Global, then each
  agent), summed from a `VaultScan` at no cost.
* `going_cold(vault, days, now)`: the active facts that are Hot or Warm now and Cold
  `days` later, each with the date it turns cold. Every fact file is read once: raw
  entries are tested with `decay.RawTierCounter` at both moments, and only those that
  turn cold are validated into `Fact`s and checked again with `DecayPolicy.tier`. On the
  200,000-fact benchmark vault that is about 4 s (12,000 rows), so a window runs it on a
  worker, with `cancelled` to stop it.
* `next_synthesis(settings, now)` and `describe_next_synthesis`: the next weekly
  synthesis of the vault's `[synthesis]` settings.
* `preview_synthesis(vault, at)`: `Vault.synthesize(dry_run=True)` over every entity,
  batch by batch so that it reports progress and can be cancelled; nothing is written.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from typing import Any

from vault_app.core import config, decay, errors, formats, layout, models, vault

GOING_COLD_DAYS = 7
TIERS = ("hot", "warm", "cold", "superseded")  # the tiers of `TierRow`, in chart order
SYNTHESIS_BATCH = 25  # entities per dry-run call: progress and cancel between batches
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


# -- facts per tier and scope -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TierRow:
    """One scope and its facts per tier (one bar of the dashboard's chart)."""

    label: str  # "Global" or "Agent ID"
    scope: str  # "global" or "agent:ID"
    hot: int = 0
    warm: int = 0
    cold: int = 0
    superseded: int = 0

    @property
    def total(self) -> int:
        return self.hot + self.warm + self.cold + self.superseded

    def count(self, tier: str) -> int:
        """The count of one of `TIERS`."""
        return int(getattr(self, tier))


def tier_rows(scan: vault.VaultScan) -> list[TierRow]:
    """Global first, then every agent (with no facts too), summed from the scan."""
    sums: dict[str, list[int]] = {layout.GLOBAL_SCOPE: [0, 0, 0, 0]}
    for agent in sorted(scan.agents):
        sums[f"agent:{agent}"] = [0, 0, 0, 0]
    for entity in scan.entities:
        counts = sums.setdefault(entity.scope, [0, 0, 0, 0])
        counts[0] += entity.hot
        counts[1] += entity.warm
        counts[2] += entity.cold
        counts[3] += entity.superseded
    return [TierRow(scope_title(scope), scope, *counts) for scope, counts in sums.items()]


def scope_title(scope: str) -> str:
    """ "Global" or "Agent ID": a scope as people read it."""
    return "Global" if scope == layout.GLOBAL_SCOPE else f"Agent {scope.split(':', 1)[1]}"


# -- going cold -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ColdFact:
    """An active fact that is Hot or Warm now and turns Cold within the report's days."""

    address: str  # the entity's address, e.g. "areas/people/jane"
    fact_id: str
    text: str  # the fact on one line
    tier: models.DecayTier  # now: HOT or WARM
    days: int  # whole days since the last access (or creation)
    access_count: int
    cold_on: dt.date  # the local date on which it turns cold, unless accessed before


@dataclasses.dataclass
class ColdReport:
    """The facts going cold between `at` and `until`, by the date they turn cold."""

    facts: list[ColdFact]
    at: dt.datetime
    until: dt.datetime
    problems: list[models.Problem]  # fact files or entries that could not be read

    @property
    def unreadable(self) -> int:
        """How many files or facts were left out because they could not be read."""
        return len(self.problems)


def going_cold(
    target: vault.Vault,
    days: int = GOING_COLD_DAYS,
    now: dt.datetime | None = None,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> ColdReport | None:
    """Active facts Hot or Warm at `now` (default: the vault's clock) and Cold `days` later.

    Sorted by the date they turn cold, then entity and text. None if `cancelled()` turns
    true (it is asked before each entity). Raises ValueError if `days` is negative.
    """
    if days < 0:
        raise ValueError(f"days must be 0 or more, not {days}")
    moment = decay.as_aware(now) if now else target.now()
    later = moment + dt.timedelta(days=days)
    policy = target.config.decay
    counters = decay.RawTierCounter(policy, moment), decay.RawTierCounter(policy, later)
    found: list[ColdFact] = []
    problems: list[models.Problem] = []
    for folder in target.storage.entities():  # what the actor may read
        if cancelled is not None and cancelled():
            return None
        if folder.facts_file is None:
            continue
        try:
            data = target.read_bytes(folder.facts_file)
            raw, time_key = formats.decode_entries(folder.facts_file, data or b"")
        except errors.CorruptFileError as exc:
            problems.append(_problem(target, exc))
            continue
        facts, bad = _turning_cold(folder, raw, time_key, counters, policy, (moment, later))
        found += facts
        problems += (_problem(target, exc) for exc in bad)
    found.sort(key=lambda f: (f.cold_on, f.address, f.text))
    return ColdReport(found, moment, later, problems)


def _problem(target: vault.Vault, exc: errors.CorruptFileError) -> models.Problem:
    return models.Problem(
        path=target.paths.relative(exc.path), location=exc.location, message=exc.reason
    )


def _turning_cold(
    folder: layout.EntityFolder,
    raw: list[Any],
    time_key: str,
    counters: tuple[decay.RawTierCounter, decay.RawTierCounter],
    policy: decay.DecayPolicy,
    moments: tuple[dt.datetime, dt.datetime],
) -> tuple[list[ColdFact], list[errors.CorruptFileError]]:
    """The facts of one file that turn cold between the two moments; and the bad entries."""
    assert folder.facts_file is not None
    file = formats.FactFile(folder.facts_file, raw)
    successor, _ = file.lineage()
    cold = models.DecayTier.COLD
    found: list[ColdFact] = []
    bad: list[errors.CorruptFileError] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or formats.is_superseded_raw(entry, successor):
            continue
        if counters[0].tier(entry, time_key) is cold or counters[1].tier(entry, time_key) != cold:
            continue
        try:
            fact = file.fact_at(index)
        except errors.CorruptFileError as exc:
            bad.append(exc)
            continue
        tier = policy.tier(fact, moments[0])
        if not fact.is_active or tier is cold or policy.tier(fact, moments[1]) is not cold:
            continue
        found.append(
            ColdFact(
                address=str(folder.ref),
                fact_id=fact.id,
                text=" ".join(fact.fact.split()),
                tier=tier,
                days=decay.days_since(fact.last_touched, moments[0]),
                access_count=fact.access_count,
                cold_on=cold_date(fact, policy),
            )
        )
    return found, bad


def cold_date(fact: models.Fact, policy: decay.DecayPolicy) -> dt.date:
    """The local date on which an untouched fact turns cold (warm limit + 1 whole days)."""
    touched = fact.last_touched
    assert touched is not None  # a fact with no time at all is cold already
    _, warm = policy.thresholds(fact.access_count)
    moment = touched + dt.timedelta(days=warm + 1)
    return moment.date() if moment.tzinfo is None else moment.astimezone().date()


# -- the schedule -----------------------------------------------------------------------------


def next_synthesis(settings: config.SynthesisSettings, now: dt.datetime) -> dt.datetime:
    """The next local time (strictly after `now`) of the weekly synthesis."""
    local = decay.as_aware(now).astimezone()
    hour, minute = (int(part) for part in settings.time.split(":"))
    days_ahead = (WEEKDAYS.index(settings.weekday) - local.weekday()) % 7
    day = local.date() + dt.timedelta(days=days_ahead)
    when = dt.datetime.combine(day, dt.time(hour, minute)).astimezone()
    if when <= local:
        when = dt.datetime.combine(day + dt.timedelta(days=7), dt.time(hour, minute)).astimezone()
    return when


def describe_next_synthesis(settings: config.SynthesisSettings, now: dt.datetime) -> str:
    """ "Next scheduled synthesis: Sunday 19 July at 00:00 (tomorrow); every Sunday at 00:00"."""
    when = next_synthesis(settings, now)
    local = decay.as_aware(now).astimezone()
    days = (when.date() - local.date()).days
    soon = {0: "today", 1: "tomorrow"}.get(days, f"in {days} days")
    return (
        f"Next scheduled synthesis: {when:%A} {when.day} {when:%B} at {when:%H:%M} ({soon}); "
        f"every {settings.weekday.capitalize()} at {settings.time}"
    )


# -- synthesis preview ------------------------------------------------------------------------


@dataclasses.dataclass
class SynthesisPreview:
    """What a synthesis at `at` would change; nothing of it is written."""

    at: dt.datetime
    changes: list[vault.SynthesisResult]  # only the summaries that would change
    problems: list[models.Problem]
    checked: int  # entities looked at


def preview_synthesis(
    target: vault.Vault,
    at: dt.datetime | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    batch: int = SYNTHESIS_BATCH,
) -> SynthesisPreview | None:
    """`Vault.synthesize(dry_run=True)` over every entity, in batches (None if cancelled).

    `progress(done, total)` is called after each batch, `cancelled()` asked before each.
    """
    moment = decay.as_aware(at) if at else target.now()
    refs = target.entity_refs()
    changes: list[vault.SynthesisResult] = []
    problems: list[models.Problem] = []
    for start in range(0, len(refs), batch):
        if cancelled is not None and cancelled():
            return None
        results, found = target.synthesize(refs[start : start + batch], dry_run=True, at=moment)
        changes += [r for r in results if r.changed and r.ref is not None]
        problems += found
        if progress is not None:
            progress(min(start + batch, len(refs)), len(refs))
    return SynthesisPreview(moment, changes, problems, len(refs))
