"""An entity as of a past moment (facts active then, tiers then, the summary then from the
backup ring) and the word diff between versions of a fact."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.grants import let_write_global
from vault_app.core import decay, history, models, vault

JANE = "areas/people/jane"
T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


def day(n: int) -> dt.datetime:
    return T0 + dt.timedelta(days=n)


def at(root: Path, n: int) -> vault.Vault:
    """The vault opened with its clock at day `n`."""
    return vault.Vault(root, clock=decay.fixed_clock(day(n)), actor="test")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(day(0)))
    v.create_entity(JANE, "Jane is a plumber.")
    return v.root


def texts(view: history.AsOfView) -> list[str]:
    return sorted(item.fact.fact for item in view.facts)


def test_facts_active_then_superseded_later(root: Path) -> None:
    v = at(root, 0)
    old = v.add_fact(JANE, "Jane lives in Portland", "context", at=day(0))
    v.add_fact(JANE, "Jane owns a van", "context", at=day(5))
    v.supersede_fact(old.id, "Jane lives in Seattle", at=day(10))
    gone = v.add_fact(JANE, "Jane likes tea", "preference", at=day(2))
    at(root, 12).archive_fact(gone.id, reason="no longer true")

    before = v.as_of(JANE, day(3))
    assert texts(before) == ["Jane likes tea", "Jane lives in Portland"]
    assert before.later == 2  # the van and Seattle
    portland = next(i for i in before.facts if i.fact.id == old.id)
    assert portland.ended is not None and portland.ended.how == "superseded"
    assert portland.ended.at == day(10)
    tea = next(i for i in before.facts if i.fact.id == gone.id)
    assert tea.ended is not None and tea.ended.how == "archived" and tea.ended.at == day(12)

    assert texts(v.as_of(JANE, day(11))) == [
        "Jane likes tea",
        "Jane lives in Seattle",
        "Jane owns a van",
    ]
    assert texts(v.as_of(JANE, day(13))) == ["Jane lives in Seattle", "Jane owns a van"]
    assert v.as_of(JANE, day(-1)).facts == []


def test_a_date_means_its_end(root: Path) -> None:
    v = at(root, 0)
    v.add_fact(JANE, "Jane fixed the tap", "milestone", at=day(4))
    moment = history.moment_of(day(4).astimezone().date())
    assert moment.date() == day(4).astimezone().date() and moment.hour == 23
    assert texts(v.as_of(JANE, day(4).astimezone().date())) == ["Jane fixed the tap"]


def test_tiers_then_use_the_moment_as_now(root: Path) -> None:
    v = at(root, 0)
    fact = v.add_fact(JANE, "Jane fixed the tap", "milestone", at=day(0))
    assert [i.tier for i in v.as_of(JANE, day(3)).facts] == [models.DecayTier.HOT]
    assert [i.tier for i in v.as_of(JANE, day(20)).facts] == [models.DecayTier.WARM]
    assert [i.tier for i in v.as_of(JANE, day(40)).facts] == [models.DecayTier.COLD]
    for _ in range(12):  # accessed 12 times on day 35: stretched thresholds from then
        at(root, 35).mark_accessed([fact.id])
    assert [i.tier for i in v.as_of(JANE, day(40)).facts] == [models.DecayTier.HOT]
    # before that last access, the record cannot tell earlier ones: never accessed then
    assert [i.tier for i in v.as_of(JANE, day(34)).facts] == [models.DecayTier.COLD]
    counts = v.as_of(JANE, day(40)).tier_counts()
    assert counts[models.DecayTier.HOT] == 1 and counts[models.DecayTier.COLD] == 0


def test_superseded_without_a_trace_is_left_out_not_guessed(root: Path) -> None:
    v = at(root, 0)
    fact = v.add_fact(JANE, "Jane's old phone", "context", at=day(0))
    path = v.entity(JANE).facts_path
    path.write_text(path.read_text().replace('"active"', '"superseded"'))
    view = v.as_of(JANE, day(3))
    assert view.facts == [] and [f.id for f in view.uncertain] == [fact.id]


def _set_written(path: Path, moment: dt.datetime) -> None:
    os.utime(path, (moment.timestamp(), moment.timestamp()))


def test_summary_then_comes_from_the_backup_ring(root: Path) -> None:
    v = at(root, 0)
    folder = v.paths.entity_dir(v.entity(JANE).ref)
    summary = folder / "summary.md"
    for version in v.storage.backups(summary):
        _set_written(version, day(0))
    _set_written(summary, day(0))
    doc = v.summary(JANE)
    v.write_summary(JANE, "Jane is a plumber in Seattle.", expected=doc.digest)
    newest = v.storage.backups(summary)[0]
    _set_written(newest, day(10))
    _set_written(summary, day(10))

    then = v.as_of(JANE, day(5)).summary
    assert then.text is not None and then.text.endswith("Jane is a plumber.\n")
    assert then.written == day(0).astimezone()
    assert "backup ring" in then.note
    now = v.as_of(JANE, day(11)).summary
    assert now.text == "Jane is a plumber in Seattle."
    before = v.as_of(JANE, day(-3)).summary
    assert before.text is None and "no summary yet" in before.note


def test_summary_then_unknown_once_the_ring_was_trimmed(root: Path) -> None:
    v = at(root, 0)
    summary = v.paths.entity_dir(v.entity(JANE).ref) / "summary.md"
    keep = v.config.storage.backups_per_file
    for n in range(keep + 2):
        v.write_summary(JANE, f"Version {n}", expected=v.summary(JANE).digest)
    for version in v.storage.backups(summary):
        _set_written(version, day(10))
    _set_written(summary, day(10))
    then = v.as_of(JANE, day(1)).summary
    assert then.text is None and "unknown" in then.note and "oldest version kept" in then.note


def test_word_diff_marks_words() -> None:
    runs = history.word_diff("Jane lives in Portland now", "Jane lives in sunny Seattle now")
    assert runs == [
        ("same", "Jane lives in "),
        ("removed", "Portland"),
        ("added", "sunny Seattle"),
        ("same", " now"),
    ]
    assert history.word_diff("", "new") == [("added", "new")]
    assert history.word_diff("same", "same") == [("same", "same")]


@given(st.text(max_size=60), st.text(max_size=60))
def test_word_diff_joins_back_to_both_sides(old: str, new: str) -> None:
    runs = history.word_diff(old, new)
    assert "".join(t for k, t in runs if k != history.ADDED) == old
    assert "".join(t for k, t in runs if k != history.REMOVED) == new


def test_authors_come_from_the_audit_log(root: Path) -> None:
    v = at(root, 0)
    old = v.add_fact(JANE, "Jane lives in Portland", "context")
    let_write_global(root, "fin")
    agent = vault.Vault(root, actor="agent:fin")
    _, new = agent.supersede_fact(old.id, "Jane lives in Seattle")
    assert history.authors(root, [old.id, new.id, "fact-unknown"]) == {
        old.id: "test",
        new.id: "agent:fin",
    }
