"""The Activity page (issue 14): the heartbeat's runs and the recent writes of agents, the
heartbeat and people, filterable, kept current, opening what a write changed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from tests.grants import let_write_global
from vault_app.core import vault
from vault_app.heartbeat import runlog
from vault_app.ui import app, themes
from vault_app.ui.models import activity as model
from vault_app.ui.pages import activity_page

NOW = dt.datetime.now(dt.UTC)
BATHROOM = "projects/bathroom-remodel"
BUDGET = "agent:finance:projects/budget-review"
ERROR = "endpoint http://127.0.0.1:9/v1 unreachable: connection refused"


def ago(minutes: float) -> dt.timedelta:
    """`minutes` back from now, or, for a run of the last hour that would be yesterday
    (the tests run just after midnight), as far back in the same order within today:
    "today" must not depend on the hour the tests run at."""
    back, today = dt.timedelta(minutes=minutes), NOW.astimezone()
    if minutes > 60:
        return back  # a run of days ago stays there
    since_midnight = today - today.replace(hour=0, minute=0, second=0, microsecond=0)
    return min(back, since_midnight * (minutes / 60))


def run(minutes_ago: float, **fields: object) -> runlog.RunRecord:
    values: dict[str, object] = {
        "job": "heartbeat",
        "started": NOW - ago(minutes_ago),
        "duration_s": 0.5,
        "runner": "app",
        "trigger": "schedule",
        "extractor": "rules",
    }
    values.update(fields)
    return runlog.RunRecord.model_validate(values)


def log_run(root: Path, record: runlog.RunRecord) -> None:
    runlog.append(vault.Vault(root, actor="heartbeat").storage, record)


@pytest.fixture
def activity(root: Path) -> Path:
    """Three runs (one failed) and writes by an agent, the heartbeat and a person, made
    through the vault as each of them; one write ten days old."""
    log_run(root, run(45, entries=7, written=3, deduped=1))
    log_run(root, run(30, entries=8, failed=8, extractor="llm:qwen", error=ERROR))
    log_run(root, run(15, entries=2, written=1, deferred=1))
    log_run(root, run(60 * 24 * 10, job="synthesis", runner="serve", summaries=12))
    vault.Vault(root, actor="agent:finance").add_fact(BUDGET, "Rent is due on the 1st", "status")
    vault.Vault(root, actor="heartbeat").add_fact(
        BATHROOM, "The tiler starts after 9 am", "status", source="heartbeat"
    )
    vault.Vault(root, actor="jane").append_daily("Called the plumber.")
    old = vault.Vault(root, actor="agent:maintenance", clock=lambda: NOW - dt.timedelta(days=10))
    old.append_daily("Boiler serviced.", agent="maintenance")
    return root


@pytest.fixture
def window(qtbot: QtBot, activity: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = app.MainWindow(vault.Vault(activity, actor="gui"), store, search=False, live=False)
    qtbot.addWidget(main)
    main.resize(1440, 900)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: main.session.scan is not None, timeout=20_000)
    yield main
    main.session.wait()


def shown(qtbot: QtBot, window: app.MainWindow) -> activity_page.ActivityPage:
    page = window.activity
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        window.activity_action.trigger()  # Go › Activity
    assert window.pages.currentWidget() is page
    return page


def settle(qtbot: QtBot, page: activity_page.ActivityPage, change: Callable[[], object]) -> None:
    """Make a filter change and wait for the read it starts."""
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        change()


def choose(combo: QtWidgets.QComboBox, data: str) -> None:
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def column(page: activity_page.ActivityPage, number: int) -> list[str]:
    m = page.writes_model
    return [m.index(r, number).data() for r in range(m.rowCount())]


def run_texts(page: activity_page.ActivityPage) -> list[list[str]]:
    m = page.runs_model
    return [[m.index(r, c).data() for c in range(m.columnCount())] for r in range(m.rowCount())]


def double_click(qtbot: QtBot, table: QtWidgets.QTableView, where: QtCore.QPoint) -> None:
    """As a mouse does it: a click (the view remembers the pressed row), then the double."""
    qtbot.mouseClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=where)
    qtbot.mouseDClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=where)


# -- what the page shows ---------------------------------------------------------------


def test_go_activity_shows_the_runs_and_the_writes_by_kind_of_actor(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    assert window.activity_action.shortcut() == QtGui.QKeySequence("Ctrl+Shift+L")
    shortcuts = [
        a.shortcut() for a in window.findChildren(QtGui.QAction) if not a.shortcut().isEmpty()
    ]
    assert shortcuts.count(QtGui.QKeySequence("Ctrl+Shift+L")) == 1  # no clash
    page = shown(qtbot, window)
    runs = run_texts(page)
    assert len(runs) == 3  # the synthesis of ten days ago is outside the last 7 days
    assert [r[1] for r in runs] == ["Heartbeat", "⚠ Heartbeat failed", "Heartbeat"]
    newest = dict(zip(page.runs_model.COLUMNS, runs[0], strict=True))
    assert newest["Runner"] == "app" and newest["Trigger"] == "schedule"
    assert newest["Extractor"] == "rules" and newest["Entries"] == "2"
    assert newest["Written"] == "1" and newest["Deferred"] == "1" and newest["Error"] == ""
    assert newest["Duration"] == "500 ms"

    writes = {(who, kind, what, where) for who, kind, what, where in zip(
        column(page, 1), column(page, 2), column(page, 3), column(page, 4), strict=True
    )}  # fmt: skip
    # who did what, with the fact's own text, where: the entity's title (issue 30)
    added = ("finance", "Agent", "Added “Rent is due on the 1st”", "Budget Review (finance)")
    assert added in writes
    tiler = "Added “The tiler starts after 9 am”"
    assert ("heartbeat", "Heartbeat", tiler, "Bathroom Remodel") in writes
    assert any(w[:3] == ("jane", "Person", "Wrote an entry") for w in writes)
    assert not any(w[0] in ("gui", "cli") for w in writes)  # the app's faces are "You"
    assert not any(w[0] == "maintenance" for w in writes)  # ten days old
    assert column(page, 1)[0] == "jane"  # newest first
    assert "Last heartbeat today" in page.summary.text()
    assert "1 fact written" in page.summary.text()
    ModelTester(None).check(page.runs_model)
    ModelTester(None).check(page.writes_model)


def test_a_failed_run_is_marked_and_its_error_is_spelled_out(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    page = shown(qtbot, window)
    m = page.runs_model
    failed = m.index(1, 0)
    palette = QtGui.QGuiApplication.palette()
    assert m.data(failed, QtCore.Qt.ItemDataRole.ForegroundRole).color() == themes.error_colour(
        palette
    )
    tint = m.data(failed, QtCore.Qt.ItemDataRole.BackgroundRole).color()
    assert tint == themes.warning_background(palette)
    assert m.data(m.index(0, 0), QtCore.Qt.ItemDataRole.BackgroundRole) is None
    assert m.index(1, m.ERROR).data() == ERROR
    assert m.index(1, m.FIRST_COUNT + 6).data() == "8"  # the entries that failed
    # folded (issue 30): the newest run, then the newest failure spelled out
    assert page.run_detail.isVisible() and not page.runs_table.isVisible()
    detail = page.run_detail.text()
    assert detail.startswith("Latest run: ") and "1 fact written" in detail
    assert "Latest failure" in detail and "connection refused" in detail and "llm:qwen" in detail
    assert page.runs_toggle.text() == "All runs (3)"
    page.runs_toggle.click()  # unfolded, nothing selected: the newest failure alone
    assert page.runs_table.isVisible()
    assert page.run_detail.text().startswith('<span style="color:')
    assert "Latest failure" in page.run_detail.text()
    page.runs_table.selectRow(0)
    assert "1 fact written" in page.run_detail.text()
    assert "Latest failure" not in page.run_detail.text()


def test_each_filter_narrows_the_writes(qtbot: QtBot, window: app.MainWindow) -> None:
    page = shown(qtbot, window)
    everyone = len(column(page, 1))

    settle(qtbot, page, lambda: choose(page.actor_combo, "kind:agent"))
    assert set(column(page, 2)) == {"Agent"} and "finance" in column(page, 1)
    settle(qtbot, page, lambda: choose(page.actor_combo, "kind:heartbeat"))
    assert set(column(page, 1)) == {"heartbeat"} and column(page, 4) == ["Bathroom Remodel"]
    settle(qtbot, page, lambda: choose(page.actor_combo, "kind:person"))
    assert set(column(page, 2)) == {"Person"} and "jane" in column(page, 1)
    settle(qtbot, page, lambda: choose(page.actor_combo, "jane"))  # one person, offered by name
    assert set(column(page, 1)) == {"jane"}
    settle(qtbot, page, lambda: choose(page.actor_combo, "agent:finance"))  # one agent
    assert set(column(page, 1)) == {"finance"}
    settle(qtbot, page, lambda: choose(page.actor_combo, ""))
    assert len(column(page, 1)) == everyone

    settle(qtbot, page, lambda: choose(page.family_combo, "daily"))
    assert set(column(page, 3)) == {"Wrote an entry"}
    settle(qtbot, page, lambda: choose(page.family_combo, "fact"))
    facts = {"Added “Rent is due on the 1st”", "Added “The tiler starts after 9 am”"}
    assert set(column(page, 3)) == facts and len(column(page, 3)) == 2
    settle(qtbot, page, lambda: choose(page.family_combo, ""))

    settle(qtbot, page, lambda: page.entity_edit.setText("bathroom"))  # after a typing pause
    assert column(page, 4) and all("bathroom" in w.lower() for w in column(page, 4))
    settle(qtbot, page, lambda: page.entity_edit.setText("no-such-entity"))
    assert column(page, 4) == [] and page.writes_empty.isVisible()
    settle(qtbot, page, lambda: page.entity_edit.clear())

    settle(qtbot, page, lambda: choose(page.span_combo, "30d"))
    assert "maintenance" in column(page, 1)  # ten days old
    assert [r[1] for r in run_texts(page)][-1] == "Synthesis"
    assert run_texts(page)[-1][6] == "12"  # a synthesis's summaries, under Written
    settle(qtbot, page, lambda: choose(page.span_combo, "today"))
    assert "maintenance" not in column(page, 1) and len(run_texts(page)) == 3

    # between two days: the days' fields show, and the range reads both tables
    assert not page.first_date.isVisible()
    ten_days_ago = (NOW - dt.timedelta(days=10)).astimezone().date()
    page.first_date.setDate(QtCore.QDate(ten_days_ago))
    page.last_date.setDate(QtCore.QDate(ten_days_ago))
    settle(qtbot, page, lambda: choose(page.span_combo, "range"))
    assert page.first_date.isVisible() and page.last_date.isVisible()
    assert column(page, 1) == ["maintenance"]  # only that day's write
    assert [r[1] for r in run_texts(page)] == ["Synthesis"]
    yesterday = ten_days_ago + dt.timedelta(days=9)
    settle(qtbot, page, lambda: page.last_date.setDate(QtCore.QDate(yesterday)))
    assert "maintenance" in column(page, 1) and "jane" not in column(page, 1)
    settle(qtbot, page, lambda: choose(page.span_combo, "all"))
    assert not page.first_date.isVisible()


def test_double_click_on_a_fact_write_opens_the_entity_at_that_fact(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    page = shown(qtbot, window)
    row = column(page, 4).index("Budget Review (finance)")
    line = page.writes_model.line(row)
    assert line is not None and line["factId"]
    table = page.writes_table
    rect = table.visualRect(page.writes_model.index(row, page.writes_model.WHERE))
    double_click(qtbot, table, rect.center())
    assert window.pages.currentWidget() is window.entity_view
    qtbot.waitUntil(lambda: window.entity_view.address == BUDGET, timeout=10_000)
    # a write that is no entity's (a daily note) opens nothing
    shown(qtbot, window)
    daily = column(page, 3).index("Wrote an entry")
    rect = table.visualRect(page.writes_model.index(daily, 0))
    double_click(qtbot, table, rect.center())
    assert window.pages.currentWidget() is page


def test_a_new_run_and_a_new_write_show_up_without_a_click(
    qtbot: QtBot, window: app.MainWindow, activity: Path
) -> None:
    page = shown(qtbot, window)
    before = page.runs_model.rowCount()
    page.writes_table.selectRow(1)
    chosen = page.writes_model.line(1)
    # the page watches .vault/heartbeat.jsonl itself (the vault watcher skips .vault/)
    log_run(activity, run(0, entries=4, written=4))
    qtbot.waitUntil(lambda: page.runs_model.rowCount() == before + 1, timeout=10_000)
    assert "4 facts written" in page.summary.text()
    vault.Vault(activity, actor="agent:security").append_daily("Door locked.", agent="security")
    qtbot.waitUntil(lambda: column(page, 1)[:1] == ["security"], timeout=10_000)
    # the row the user had selected stays selected, one row further down
    assert page.writes_table.currentIndex().row() == 2
    assert page.writes_model.line(2) == chosen


def test_the_logs_appearing_in_a_new_vault_are_picked_up(
    qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings
) -> None:
    target = vault.Vault.create(tmp_path / "fresh")
    (target.paths.state_dir / "audit.jsonl").unlink(missing_ok=True)
    main = app.MainWindow(vault.Vault(target.root, actor="gui"), store, search=False, live=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    page = shown(qtbot, main)
    assert page.runs_model.rowCount() == 0 and page.runs_empty.isVisible()
    assert "No heartbeat or synthesis has run in the last 7 days" in page.runs_empty.text()
    log_run(target.root, run(1, written=2))  # the log file is created now
    qtbot.waitUntil(lambda: page.runs_model.rowCount() == 1, timeout=10_000)
    assert not page.runs_empty.isVisible()
    main.session.wait()


# -- the pieces ------------------------------------------------------------------------


def test_entity_of_reads_the_target_path() -> None:
    def line(target: str) -> dict[str, str]:
        return {"target": target}

    assert model.entity_of(line("global/life/areas/people/jane/items.json")) == "areas/people/jane"
    assert model.entity_of(line("global/life/projects/x/summary.md")) == "projects/x"
    assert (
        model.entity_of(line("agents/finance/workspace/projects/budget-review/facts.json"))
        == BUDGET
    )
    assert model.entity_of(line("global/daily/2026-11-20.md")) is None
    assert model.entity_of(line("agents/finance/TACIT.md")) is None
    assert model.entity_of(line("global/life/../../etc/items.json")) is None
    assert model.entity_of({}) is None


def test_actor_kinds_and_filters() -> None:
    """The page's choices become the core's query (`core.activity.Query` filters)."""
    assert model.actor_kind("agent:finance") == "agent"
    assert model.actor_kind("finance", ["finance"]) == "agent"  # naming an agent is being it
    assert model.actor_kind("Heartbeat") == "heartbeat"
    assert model.actor_kind("gui") == model.actor_kind("jane") == "person"
    assert model.actor_kind("agent:") == "person"  # a damaged actor is nobody's agent
    assert model.actor_title("agent:finance") == "finance"
    line = {"actor": "finance", "action": "fact.add", "target": "global/life/areas/x/items.json"}

    def keeps(chosen: model.Filter, agent_ids: tuple[str, ...] = ()) -> bool:
        return chosen.query(NOW, agent_ids).keeps({**line, "time": NOW.isoformat()})

    assert keeps(model.Filter(actor="agent:finance"), ("finance",))
    assert not keeps(model.Filter(actor="agent:finance"))  # no such agent: a person
    assert keeps(model.Filter(actor="kind:person"))
    assert keeps(model.Filter(family="fact", entity="AREAS X"))
    assert not keeps(model.Filter(family="daily"))
    bookkeeping = {"actor": "heartbeat", "action": "heartbeat.cursor", "target": ".vault/x"}
    assert not model.Filter(span="all").query(NOW).keeps(bookkeeping)  # not unless asked
    assert model.Filter(family="heartbeat", span="all").query(NOW).keeps(bookkeeping)
    days = model.Filter(span="range", first=dt.date(2026, 3, 1), last=dt.date(2026, 3, 31))
    start, end = days.bounds(NOW)
    assert start is not None and end is not None
    assert start.date() == dt.date(2026, 3, 1) and end.date() == dt.date(2026, 4, 1)
    assert start.hour == end.hour == 0  # local midnights: the last day is included
    assert model.revertible(line, ["finance"]) is False  # no factId
    assert model.revertible({**line, "factId": "fact-1"}, ["finance"])
    assert not model.revertible({**line, "factId": "fact-1"})  # a person's write


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_kind_colours_read_well_in_both_themes(theme: str) -> None:
    palette = themes.palette_for(theme)
    base = palette.color(QtGui.QPalette.ColorRole.Base)
    alternate = palette.color(QtGui.QPalette.ColorRole.AlternateBase)
    for kind in model.KINDS:
        colour = model.kind_colour(kind, palette)
        assert themes.contrast(colour, base) >= 4.5, (theme, kind)
        assert themes.contrast(colour, alternate) >= 4.5, (theme, kind)
    error = themes.error_colour(palette)
    assert themes.contrast(error, themes.warning_background(palette)) >= 4.5


def test_a_read_is_bounded_on_a_long_log(activity: Path) -> None:
    """The page asks for the log's tail only: at most LIMIT writes, `more` says so."""
    writer = vault.Vault(activity, actor="agent:finance")
    for number in range(activity_page.LIMIT + 20):
        writer.storage.audit("fact.access", writer.paths.life_dir / "x" / "items.json", n=number)
    snapshot = activity_page.read(activity, model.Filter(), NOW)
    assert len(snapshot.writes) == activity_page.LIMIT and snapshot.more
    assert snapshot.writes[0]["n"] == activity_page.LIMIT + 19  # the newest
    narrowed = activity_page.read(activity, model.Filter(actor="kind:heartbeat"), NOW)
    assert [w["actor"] for w in narrowed.writes] == ["heartbeat"]  # found behind 520 others
    assert not narrowed.more


# -- revert ------------------------------------------------------------------------------


def test_revert_an_agents_change_from_the_page_and_undo_it(
    qtbot: QtBot, window: app.MainWindow, activity: Path
) -> None:
    """Select an agent's write, Revert: the fact goes back to its version before (a
    supersede, nothing deleted); Ctrl+Z undoes it; a fact changed since is refused."""
    person = vault.Vault(activity, actor="gui")
    let_write_global(activity, "finance")
    first = person.add_fact(BATHROOM, "The tiler charges 40 an hour", "status")
    _, changed = vault.Vault(activity, actor="agent:finance").supersede_fact(
        first.id, "The tiler charges 55 an hour"
    )
    before = len(person.entity(BATHROOM).facts)
    page = shown(qtbot, window)
    row = next(
        r for r in range(page.writes_model.rowCount())
        if (page.writes_model.line(r) or {}).get("factId") == changed.id
    )  # fmt: skip
    page.writes_table.selectRow(row)
    assert page.revert_button.isEnabled()
    tip = page.writes_model.index(row, 3).data(QtCore.Qt.ItemDataRole.ToolTipRole)
    assert "Revert (Ctrl+Alt+Z) takes it back" in tip
    jane = column(page, 1).index("jane")
    page.writes_table.selectRow(jane)  # a person's daily note: nothing to revert
    assert not page.revert_button.isEnabled()
    page.writes_table.selectRow(row)
    with qtbot.waitSignal(page.refreshed, timeout=10_000):  # the revert's own audit line
        page.revert_button.click()
    window.session.wait()
    qtbot.waitUntil(lambda: "back to its version before" in page.revert_note.text())
    active = [f for f in person.entity(BATHROOM).facts if f.is_active]
    texts = [f.fact for f in active]
    assert "The tiler charges 40 an hour" in texts and "The tiler charges 55 an hour" not in texts
    assert len(person.entity(BATHROOM).facts) == before + 1  # nothing removed, one added
    assert window.undo_action.text().startswith("&Undo Revert finance's change to Bathroom Remodel")
    # the toolbar's button keeps its one word; the description is in its tooltip (issue 30)
    twin = next(a for a in window.commands.toolbar.actions() if a.objectName() == "toolbar_undo")
    button = window.commands.toolbar.widgetForAction(twin)
    assert button is not None and button.text() == "Undo" and button.isEnabled()
    assert twin.toolTip().startswith("Undo Revert finance's change to Bathroom Remodel")

    window.undo_action.trigger()  # the agent's version is current again
    window.session.wait()
    assert [f.fact for f in person.entity(BATHROOM).facts if f.is_active][-1].endswith("55 an hour")
    window.redo_action.trigger()
    window.session.wait()
    assert "The tiler charges 55 an hour" not in [
        f.fact for f in person.entity(BATHROOM).facts if f.is_active
    ]

    # reverted: the agent's write is marked so, and Revert is off on it (issue 30)
    def row_of(fact_id: str) -> int:
        return next(r for r in range(page.writes_model.rowCount())
                    if (page.writes_model.line(r) or {}).get("factId") == fact_id)  # fmt: skip

    qtbot.waitUntil(lambda: page.writes_model.told_at(row_of(changed.id)).reverted)
    page.writes_table.selectRow(row_of(changed.id))
    assert column(page, 3)[row_of(changed.id)].endswith("— since reverted")
    assert not page.revert_button.isEnabled() and not page.revert_action.isEnabled()

    # an agent's write changed since by someone else: refused, in words, no fact id
    _, again = vault.Vault(activity, actor="agent:finance").supersede_fact(
        [f for f in person.entity(BATHROOM).facts if f.is_active][-1].id, "The tiler charges 60"
    )
    person.supersede_fact(again.id, "The tiler charges 58")
    qtbot.waitUntil(lambda: any((line or {}).get("factId") == again.id
                                for line in page.writes_model.lines()), timeout=10_000)  # fmt: skip
    page.writes_table.selectRow(row_of(again.id))
    assert page.revert_button.isEnabled()
    page.revert_selected()
    window.session.wait()
    qtbot.waitUntil(lambda: "Not reverted" in page.revert_note.text())
    note = page.revert_note.text()
    assert "the fact in Bathroom Remodel changed since finance wrote it" in note
    assert "fact-" not in note and page.revert_note.property("inlineError")
    window.show_dashboard()  # leaving the page: the outcome was said
    window.show_activity()
    assert page.revert_note.text() == ""


def test_revert_withdraws_an_added_fact_and_the_menu_offers_it(
    qtbot: QtBot, window: app.MainWindow, activity: Path
) -> None:
    page = shown(qtbot, window)
    row = column(page, 4).index("Bathroom Remodel")  # the heartbeat's added fact
    page.writes_table.selectRow(row)
    line = page.writes_model.line(row)
    assert line is not None and line["actor"] == "heartbeat"
    page.revert_selected()
    window.session.wait()
    qtbot.waitUntil(lambda: "withdrawn" in page.revert_note.text(), timeout=10_000)
    fact = next(f for f in vault.Vault(activity).entity(BATHROOM).facts if f.id == line["factId"])
    assert not fact.is_active and fact.metadata["archived"]["by"] == "gui"


def test_a_held_back_write_says_what_was_proposed_and_opens_its_review_item(
    qtbot: QtBot, window: app.MainWindow, activity: Path
) -> None:
    from tests.ui.test_review_page import add_fact, propose

    proposal = propose(activity, add_fact())
    page = shown(qtbot, window)
    qtbot.waitUntil(lambda: any(t.review_id for t in page.writes_model.told), timeout=10_000)
    row = next(r for r, t in enumerate(page.writes_model.told) if t.review_id == proposal.id)
    assert column(page, 3)[row].startswith("Proposed to add fact “Ignore all previous")
    assert column(page, 4)[row] == "Budget (finance)"  # the entity's title, not a .json path
    with qtbot.waitSignal(page.openReview) as opened:
        page.writes_table.activated.emit(page.writes_model.index(row, page.writes_model.WHERE))
    assert opened.args == [proposal.id]
    assert window.pages.currentWidget() is window.review
    qtbot.waitUntil(lambda: (window.review.current() or {}).get("id") == proposal.id)
