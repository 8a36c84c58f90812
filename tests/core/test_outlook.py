"""The decay outlook (core.outlook): tiers per scope, facts going cold, the next synthesis,
the synthesis preview."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from outlook_vaults import BUDGET, GOING_COLD, JANE, NOON, TODAY, at, demo_vault, small_vault

from vault_app.core import config, decay, models, outlook
from vault_app.core import vault as vault_module


@pytest.fixture
def small(tmp_path: Path) -> vault_module.Vault:
    return small_vault(tmp_path / "v")


@pytest.fixture
def household(tmp_path: Path) -> vault_module.Vault:
    return demo_vault(tmp_path / "demo")


# -- tiers per scope ---------------------------------------------------------------------------


def test_tier_rows_add_up_to_the_scan(household: vault_module.Vault) -> None:
    scan = household.scan()
    rows = outlook.tier_rows(scan)
    assert [r.label for r in rows] == ["Global"] + [f"Agent {a}" for a in sorted(scan.agents)]
    totals = scan.tier_totals()
    for tier in outlook.TIERS:
        assert sum(r.count(tier) for r in rows) == totals[tier]
    for row in rows:
        mine = [e for e in scan.entities if e.scope == row.scope]
        assert row.hot == sum(e.hot for e in mine)
        assert row.superseded == sum(e.superseded for e in mine)
        assert row.total == sum(e.active + e.superseded for e in mine)


def test_an_agent_without_facts_has_a_row_of_zeros(small: vault_module.Vault) -> None:
    small.create_agent("idle")
    rows = {r.scope: r for r in outlook.tier_rows(small.scan())}
    assert list(rows) == ["global", "agent:finance", "agent:idle"]
    assert rows["agent:idle"] == outlook.TierRow("Agent idle", "agent:idle")
    assert rows["agent:idle"].total == 0
    assert rows["global"].superseded == 1


# -- going cold --------------------------------------------------------------------------------


def test_going_cold_takes_exactly_the_facts_that_cross_the_line(
    small: vault_module.Vault,
) -> None:
    report = outlook.going_cold(small)
    assert report is not None
    found = {f.text: f for f in report.facts}
    assert set(found) == GOING_COLD
    week = (NOON + dt.timedelta(days=7)).date()
    assert found["exactly 24 days"].cold_on == week  # cold at the very end of the window
    assert found["exactly 24 days"].days == 24
    assert found["exactly 30 days"].cold_on == TODAY + dt.timedelta(days=1)
    assert found["often, 39 days"].cold_on == TODAY + dt.timedelta(days=7)
    assert found["often, 39 days"].access_count == 11
    assert found["agent fact, 26 days"].address == BUDGET
    assert all(f.tier is models.DecayTier.WARM for f in report.facts)
    assert [f.cold_on for f in report.facts] == sorted(f.cold_on for f in report.facts)
    assert report.unreadable == 0 and report.problems == []
    assert (report.at, report.until) == (NOON, NOON + dt.timedelta(days=7))


def test_going_cold_agrees_with_the_core_decay_report(household: vault_module.Vault) -> None:
    now_rows, _ = household.decay_report()
    later_rows, _ = household.decay_report(NOON + dt.timedelta(days=7))
    cold = models.DecayTier.COLD
    later = {r.fact.id: r.tier for r in later_rows}
    expected = {r.fact.id for r in now_rows if r.tier is not cold and later[r.fact.id] is cold}
    report = outlook.going_cold(household)
    assert report is not None
    assert expected and {f.fact_id for f in report.facts} == expected


def test_the_window_is_days_long(small: vault_module.Vault) -> None:
    def texts(days: int) -> set[str]:
        report = outlook.going_cold(small, days)
        assert report is not None
        return {f.text for f in report.facts}

    assert texts(0) == set()
    assert texts(1) == {"exactly 30 days"}
    assert texts(7) == GOING_COLD
    assert texts(30) > GOING_COLD
    with pytest.raises(ValueError, match="days must be 0 or more"):
        outlook.going_cold(small, -1)


def test_going_cold_from_another_moment(small: vault_module.Vault) -> None:
    """`now` moves the window: a day earlier, "exactly 31 days" is still Warm."""
    earlier = NOON - dt.timedelta(days=1)
    report = outlook.going_cold(small, 7, earlier)
    assert report is not None
    assert (report.at, report.until) == (earlier, NOON + dt.timedelta(days=6))
    assert {f.text for f in report.facts} == {
        "exactly 30 days",
        "exactly 31 days",
        "agent fact, 26 days",
    }
    assert {f.text: f.days for f in report.facts}["exactly 31 days"] == 30


def test_a_hot_fact_can_go_cold_within_the_week(small: vault_module.Vault) -> None:
    quick = config.VaultConfig(
        decay=decay.DecayPolicy(levels=[decay.DecayLevel(min_access=0, hot_days=5, warm_days=6)])
    )
    report = outlook.going_cold(at(small.root, NOON, quick))
    assert report is not None
    found = {f.text: f.tier for f in report.facts}
    assert found["hot 3 days"] is models.DecayTier.HOT
    assert found["the replacement, new today"] is models.DecayTier.HOT


def test_going_cold_stops_when_cancelled(small: vault_module.Vault) -> None:
    assert outlook.going_cold(small, cancelled=lambda: True) is None


def test_going_cold_reports_unreadable_files(small: vault_module.Vault) -> None:
    broken = small.paths.life_dir / "projects" / "roof"
    broken.mkdir(parents=True)
    (broken / "items.json").write_text("[{", encoding="utf-8")
    report = outlook.going_cold(small)
    assert report is not None
    assert report.unreadable == 1 and len(report.facts) == 4
    assert report.problems[0].path == "global/life/projects/roof/items.json"


def test_going_cold_reports_a_bad_fact_and_keeps_the_rest_of_its_file(
    small: vault_module.Vault,
) -> None:
    items = small.paths.life_dir / JANE / "items.json"
    entries = json.loads(items.read_bytes())
    stamp = (NOON - dt.timedelta(days=26)).isoformat()
    entries.append({"id": "fact-bad", "fact": "", "category": "context", "timestamp": stamp})
    items.write_text(json.dumps(entries), encoding="utf-8")
    report = outlook.going_cold(small)
    assert report is not None
    assert {f.text for f in report.facts} == GOING_COLD
    assert report.unreadable == 1
    assert report.problems[0].path.endswith(f"{JANE}/items.json")
    assert report.problems[0].location is not None


# -- the schedule ------------------------------------------------------------------------------


def test_next_synthesis_is_strictly_after_now() -> None:
    sunday = config.SynthesisSettings(weekday="sunday", time="00:00")
    saturday_noon = dt.datetime(2026, 7, 18, 12).astimezone()
    sunday_midnight = dt.datetime(2026, 7, 19, 0, 0).astimezone()
    assert outlook.next_synthesis(sunday, saturday_noon) == sunday_midnight
    assert outlook.next_synthesis(sunday, sunday_midnight) == sunday_midnight + dt.timedelta(days=7)
    evening = config.SynthesisSettings(weekday="wednesday", time="18:30")
    assert outlook.next_synthesis(evening, NOON) == dt.datetime(2026, 7, 15, 18, 30).astimezone()
    text = outlook.describe_next_synthesis(sunday, saturday_noon)
    assert text == (
        "Next scheduled synthesis: Sunday 19 July at 00:00 (tomorrow); every Sunday at 00:00"
    )
    assert "(today)" in outlook.describe_next_synthesis(evening, NOON)
    morning = config.SynthesisSettings(weekday="wednesday", time="09:00")
    assert "Wednesday 22 July at 09:00 (in 7 days)" in outlook.describe_next_synthesis(
        morning, NOON
    )


def test_a_naive_now_is_local_time() -> None:
    sunday = config.SynthesisSettings(weekday="sunday", time="00:00")
    naive = dt.datetime(2026, 7, 18, 12)
    assert outlook.next_synthesis(sunday, naive) == dt.datetime(2026, 7, 19).astimezone()


# -- synthesis preview -------------------------------------------------------------------------


def test_preview_equals_the_core_dry_run(household: vault_module.Vault) -> None:
    later = NOON + dt.timedelta(days=12)
    results, _ = household.synthesize(dry_run=True, at=later)
    expected = {str(r.ref): r.diff for r in results if r.changed and r.ref is not None}
    steps: list[tuple[int, int]] = []
    preview = outlook.preview_synthesis(household, later, progress=lambda *p: steps.append(p))
    assert preview is not None
    assert {str(r.ref): r.diff for r in preview.changes} == expected
    assert preview.checked == 54 and preview.at == later
    assert steps[-1] == (54, 54) and [d for d, _ in steps] == sorted(d for d, _ in steps)
    assert len(steps) == 3  # batches of 25
    assert outlook.preview_synthesis(household, cancelled=lambda: True) is None


def test_a_preview_writes_nothing(small: vault_module.Vault) -> None:
    def files() -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in small.root.rglob("*") if p.is_file()}

    before = files()
    preview = outlook.preview_synthesis(small, NOON + dt.timedelta(days=40), batch=1)
    assert preview is not None and preview.checked == 2
    assert {str(r.ref) for r in preview.changes} == {JANE, BUDGET}
    assert files() == before
