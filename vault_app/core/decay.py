"""Memory decay: the Hot / Warm / Cold tier of a fact from recency and access count.

Exactly the design's `calculate_decay_tier`: whole days since `lastAccessed`
(`(now - lastAccessed).days`, so 7 days 23 hours is 7 days), hot ≤ 7 / warm ≤ 30 / else
cold; more than 10 accesses stretch that to 10 / 45, more than 20 to 14 / 60. The
thresholds are settings (`DecayPolicy`), the clock is injected, and timestamps without a
zone are local time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence, Set
from typing import Any, NamedTuple

from pydantic import BaseModel, Field, model_validator

from vault_app.core import formats, models

Clock = Callable[[], dt.datetime]


def system_clock() -> dt.datetime:
    """Now, as an aware datetime in the local zone."""
    return dt.datetime.now().astimezone()


def fixed_clock(moment: dt.datetime) -> Clock:
    aware = as_aware(moment)
    return lambda: aware


def as_aware(moment: dt.datetime) -> dt.datetime:
    """Honour a zone when there is one; a naive time is local time."""
    return moment if moment.tzinfo is not None else moment.astimezone()


class DecayLevel(BaseModel):
    """Thresholds that apply once a fact has been accessed more than `min_access` times."""

    min_access: int = Field(ge=0)
    hot_days: int = Field(ge=0)
    warm_days: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> DecayLevel:
        if self.warm_days < self.hot_days:
            raise ValueError("warm_days must be at least hot_days")
        return self


class ThresholdTable(NamedTuple):
    """A decay policy as one table, the form every tier computation reads.

    Level 0 (the lowest) always applies; level `i + 1` once a fact's access count
    exceeds `above[i]` (ascending): applying the levels in order, the last whose `above`
    the count exceeds wins, as in `DecayPolicy.thresholds`. The search engine's numpy
    tier column reads this table; the demo generator reads `thresholds`.
    """

    above: list[int]
    hot_days: list[int]  # per level, the lowest first
    warm_days: list[int]


class DecayPolicy(BaseModel):
    """Frequency-resistant thresholds; the defaults are the design's."""

    levels: list[DecayLevel] = Field(
        default_factory=lambda: [
            DecayLevel(min_access=0, hot_days=7, warm_days=30),
            DecayLevel(min_access=10, hot_days=10, warm_days=45),
            DecayLevel(min_access=20, hot_days=14, warm_days=60),
        ],
        min_length=1,
    )

    @model_validator(mode="after")
    def _sorted(self) -> DecayPolicy:
        self.levels.sort(key=lambda level: level.min_access)
        return self

    def threshold_table(self) -> ThresholdTable:
        """The levels as one `ThresholdTable`, for readers that vectorise (the engine)."""
        return ThresholdTable(
            [level.min_access for level in self.levels[1:]],
            [level.hot_days for level in self.levels],
            [level.warm_days for level in self.levels],
        )

    def thresholds(self, access_count: int) -> tuple[int, int]:
        """The lowest level always applies; a higher one once access_count exceeds it.

        The scalar reading of `threshold_table` (kept a plain loop: it runs per fact).
        """
        chosen = self.levels[0]
        for level in self.levels[1:]:
            if access_count > level.min_access:
                chosen = level
        return chosen.hot_days, chosen.warm_days

    def tier_for_days(self, days: int, access_count: int) -> models.DecayTier:
        hot, warm = self.thresholds(access_count)
        if days <= hot:
            return models.DecayTier.HOT
        if days <= warm:
            return models.DecayTier.WARM
        return models.DecayTier.COLD

    def tier(self, fact: models.Fact, now: dt.datetime) -> models.DecayTier:
        return self.tier_for_days(days_since(fact.last_touched, now), fact.access_count)


NEVER = 10**9  # "days since" a fact with no time at all: always cold


def days_since(moment: dt.datetime | None, now: dt.datetime) -> int:
    """Whole days from `moment` to `now` (floor, like `timedelta.days`).

    A naive `moment` is local time and is compared, as the design's naive subtraction
    does, with `now` on the local wall clock: a day across a daylight-saving change is
    still one day. An aware `moment` is compared with `now` as instants.
    """
    if moment is None:
        return NEVER
    if moment.tzinfo is None:
        return (local_wall_clock(now) - moment).days
    return (as_aware(now) - moment).days


def local_wall_clock(moment: dt.datetime) -> dt.datetime:
    """`moment` as a naive local time (unchanged if it is naive already)."""
    return moment if moment.tzinfo is None else moment.astimezone().replace(tzinfo=None)


class RawTierCounter:
    """Tier counts straight from raw JSON entries, without building `Fact` objects.

    Opening a vault must not validate 200,000 facts; this reads only `status`,
    `lastAccessed` (or the creation time) and `accessCount`. Timestamps are not cached:
    `fromisoformat` is cheaper than a lookup in a dict of 200,000 mostly unique strings.
    """

    def __init__(self, policy: DecayPolicy, now: dt.datetime) -> None:
        self.policy = policy
        self.now = as_aware(now)
        self._wall_now = local_wall_clock(now)
        self._limits: dict[int, _Limits] = {}  # by accessCount

    def _limits_for(self, access_count: int) -> _Limits:
        """The thresholds for this access count, in days and as the moments they fall on."""
        hot, warm = self.policy.thresholds(access_count)
        limits = self._limits[access_count] = _Limits(
            hot,
            warm,
            _days_before(self._wall_now, hot),
            _days_before(self._wall_now, warm),
            _days_before(self.now, hot),
            _days_before(self.now, warm),
        )
        return limits

    def days(self, value: Any) -> int:
        """Whole days from a time (a datetime or an ISO string) to now; NEVER if none."""
        if isinstance(value, str):
            try:
                value = dt.datetime.fromisoformat(value)
            except ValueError:
                return NEVER
        elif not isinstance(value, dt.datetime):
            return NEVER
        now = self._wall_now if value.tzinfo is None else self.now
        return (now - value).days

    def tier(self, entry: dict[str, Any], time_key: str) -> models.DecayTier:
        days = self.days(entry.get("lastAccessed") or entry.get(time_key))
        count = entry.get("accessCount", 0)
        if not isinstance(count, int) or isinstance(count, bool):
            count = 0
        return self.policy.tier_for_days(days, count)

    def count(self, tiers: formats.TierFile) -> TierCounts:
        """Tier counts of a file's facts (`formats.decode_tier_fields`) in one pass.

        The same answer as `formats.is_superseded_raw` and then `tier`, fact by fact (in a
        file whose ids are unique; of two facts with one id, `doctor` reports the second):
        opening a vault runs this over every fact, so the loop is inlined, thresholds are
        looked up once per access count and no `DecayTier` is made per fact. A fact that
        a newer one names in `supersedes` is superseded too; such back pointers are rare,
        so the file is counted again only when the first pass has seen one.
        """
        by_created = tiers.time_key == "created"
        counts, points_back = self._count(tiers.facts, by_created, frozenset())
        if points_back:
            replaced = {
                e.supersedes
                for e in tiers.facts
                if isinstance(e.supersedes, str) and e.supersedes and isinstance(e.id, str)
            }
            counts, _ = self._count(tiers.facts, by_created, replaced)
        return counts

    def _count(
        self, entries: Sequence[formats.TierFields], by_created: bool, replaced_ids: Set[str]
    ) -> tuple[TierCounts, bool]:
        days_of = self.days
        limits = self._limits
        replaced = formats.SUPERSEDED_WORDS
        datetime = dt.datetime
        hot = warm = cold = superseded = 0
        points_back = False
        for entry in entries:
            if entry.supersedes:
                points_back = True
            if entry.status in replaced or entry.supersededBy:
                superseded += 1
                continue
            if replaced_ids:
                fact_id = entry.id
                # the replaced ids are strings: another id type is never among them
                if isinstance(fact_id, str) and fact_id in replaced_ids:
                    superseded += 1
                    continue
            access = entry.accessCount
            if type(access) is not int:  # as `tier`: a bool or a non-integer counts 0
                access = access if isinstance(access, int) and not isinstance(access, bool) else 0
            limit = limits.get(access) or self._limits_for(access)
            stamp = entry.lastAccessed or (entry.created if by_created else entry.timestamp)
            if type(stamp) is datetime:  # as decoded: compared with the limits' moments
                if stamp.tzinfo is None:
                    is_hot, is_warm = stamp > limit.hot_wall, stamp > limit.warm_wall
                else:
                    is_hot, is_warm = stamp > limit.hot_at, stamp > limit.warm_at
            else:
                days = days_of(stamp)
                is_hot, is_warm = days <= limit.hot, days <= limit.warm
            if is_hot:
                hot += 1
            elif is_warm:
                warm += 1
            else:
                cold += 1
        return TierCounts(hot, warm, cold, superseded), points_back


class _Limits(NamedTuple):
    """A level's thresholds in days, and for a time read from a file, the moments after
    which it is within them: `(now - t).days <= n` exactly when `t > now - (n + 1) days`,
    compared without making a timedelta per fact (naive times against the wall clock)."""

    hot: int
    warm: int
    hot_wall: dt.datetime
    warm_wall: dt.datetime
    hot_at: dt.datetime
    warm_at: dt.datetime


def _days_before(now: dt.datetime, days: int) -> dt.datetime:
    """`now - (days + 1) days`: a time after it is within `days` whole days of now (the
    earliest time there is when that is before year 1)."""
    try:
        return now - dt.timedelta(days=days + 1)
    except OverflowError:
        return dt.datetime.min.replace(tzinfo=now.tzinfo)


class TierCounts(NamedTuple):
    """How many active facts of a file are in each tier, and how many are superseded."""

    hot: int
    warm: int
    cold: int
    superseded: int
