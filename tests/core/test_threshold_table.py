"""`DecayPolicy.threshold_table`: the one form of the decay policy that the scalar tier
(`DecayPolicy.thresholds`), the search engine's numpy tier column and the demo's
generator all read.

Variants: the default policy's table; every access count around each level's
`min_access` (scalar rule against the levels read by hand); custom policies with
equal `min_access` levels and a single level; the engine's vectorised column against
`tier_for_days` for the same counts and days.
"""

from __future__ import annotations

import hypothesis
import numpy as np
from hypothesis import strategies as st

from vault_app.core import decay, models
from vault_app.search import columns as search_columns


def _by_hand(policy: decay.DecayPolicy, count: int) -> tuple[int, int]:
    chosen = policy.levels[0]
    for level in policy.levels[1:]:
        if count > level.min_access:
            chosen = level
    return chosen.hot_days, chosen.warm_days


levels = st.lists(
    st.builds(
        lambda m, h, extra: decay.DecayLevel(min_access=m, hot_days=h, warm_days=h + extra),
        st.integers(0, 40),
        st.integers(0, 90),
        st.integers(0, 90),
    ),
    min_size=1,
    max_size=5,
)


def test_the_default_table() -> None:
    table = decay.DecayPolicy().threshold_table()
    assert table == decay.ThresholdTable([10, 20], [7, 10, 14], [30, 45, 60])
    policy = decay.DecayPolicy()
    assert [policy.thresholds(c) for c in (0, 10, 11, 20, 21)] == [
        (7, 30),
        (7, 30),
        (10, 45),
        (10, 45),
        (14, 60),
    ]


@hypothesis.given(levels)
def test_the_table_and_thresholds_say_the_same(given: list[decay.DecayLevel]) -> None:
    policy = decay.DecayPolicy(levels=given)
    table = policy.threshold_table()
    for count in range(0, 45):
        level = sum(count > floor for floor in table.above)  # the table's documented rule
        assert policy.thresholds(count) == (table.hot_days[level], table.warm_days[level])
        assert policy.thresholds(count) == _by_hand(policy, count)


@hypothesis.settings(deadline=None, max_examples=50)
@hypothesis.given(
    levels, st.lists(st.tuples(st.integers(0, 50), st.integers(0, 200)), min_size=1, max_size=200)
)
def test_the_engine_column_is_the_policy(
    given: list[decay.DecayLevel], rows: list[tuple[int, int]]
) -> None:
    policy = decay.DecayPolicy(levels=given)
    now = 1_000_000_000.0
    columns = search_columns.DocumentColumns()  # room for 1,024 rows
    columns.size = len(rows)
    columns.access[: len(rows)] = [count for count, _ in rows]
    columns.last[: len(rows)] = [now - days * 86400 - 3600 for _, days in rows]
    names = {0: models.DecayTier.HOT, 1: models.DecayTier.WARM, 2: models.DecayTier.COLD}
    got = [names[int(t)] for t in columns.tiers(policy, now)]
    assert got == [policy.tier_for_days(days, count) for count, days in rows]
    assert np.all(columns.tiers(policy, now) >= 0)
