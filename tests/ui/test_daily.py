"""The daily-notes view: calendar marks, a day's entries, keyboard navigation, appending."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import session
from vault_app.ui.pages import daily

Key = QtCore.Qt.Key
MARCH_4 = dt.date(2026, 3, 4)
MARCH_6 = dt.date(2026, 3, 6)


def at(day: dt.date, hh: int, mm: int, ss: int) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hh, mm, ss)).astimezone()  # local time


@pytest.fixture
def live(tmp_path: Path) -> Iterator[session.Session]:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("finance")
    v.append_daily("Called **Jane** about the leak.", at=at(MARCH_4, 9, 15, 0))
    v.append_daily("Jane fixed it.", at=at(MARCH_4, 16, 40, 5))
    v.append_daily("Paid the plumber.", at=at(MARCH_6, 8, 0, 0))
    v.append_daily("Budget review.", agent="finance", at=at(dt.date(2026, 3, 5), 10, 0, 0))
    s = session.Session(v)
    yield s
    s.close()


def make_view(qtbot: QtBot, s: session.Session, agent: str | None = None) -> daily.DailyView:
    view = daily.DailyView(s, agent)
    qtbot.addWidget(view)
    view.resize(900, 520)
    view.show()
    qtbot.waitUntil(lambda: bool(view.dates) and view.legend.text() != "")
    return view


def show(qtbot: QtBot, view: daily.DailyView, day: dt.date) -> None:
    with qtbot.waitSignal(view.dayShown) as shown:
        view.show_day(day)
    assert shown.args == [day]


def plain(html: str) -> str:
    return QtGui.QTextDocumentFragment.fromHtml(html).toPlainText()


def entries(view: daily.DailyView) -> list[tuple[str, str]]:
    """(time, text) of each entry card shown."""
    return [(card.time_label.text(), plain(card.text_label.text())) for card in view.cards()]


def test_calendar_marks_days_with_notes(qtbot: QtBot, live: session.Session) -> None:
    view = make_view(qtbot, live)
    assert view.dates == [MARCH_4, MARCH_6]
    bold = QtGui.QFont.Weight.Bold
    for day in (MARCH_4, MARCH_6):
        fmt = view.calendar.dateTextFormat(QtCore.QDate(day.year, day.month, day.day))
        assert fmt.fontWeight() == bold and fmt.background().style() != QtCore.Qt.BrushStyle.NoBrush
    plain = view.calendar.dateTextFormat(QtCore.QDate(2026, 3, 5))  # only finance wrote then
    assert plain.fontWeight() != bold
    assert "2 days of global daily notes" in view.legend.text()

    finance = make_view(qtbot, live, "finance")
    assert finance.dates == [dt.date(2026, 3, 5)]


def test_selecting_a_day_shows_its_entries(qtbot: QtBot, live: session.Session) -> None:
    view = make_view(qtbot, live)
    show(qtbot, view, MARCH_4)
    assert entries(view) == [
        ("09:15:00", "Called Jane about the leak."),
        ("16:40:05", "Jane fixed it."),
    ]
    assert 'font-weight:700;">Jane</span>' in view.cards()[0].text_label.text()  # rendered
    assert view.count_label.text() == "2 entries"
    assert view.pages.currentWidget() is view.entries_area

    show(qtbot, view, dt.date(2026, 3, 5))
    assert view.cards() == [] and view.pages.currentWidget() is view.empty_label
    assert view.empty_label.text() == "No notes on this day."

    view.later_button.click()  # the next day with notes
    qtbot.waitUntil(lambda: view.day == MARCH_6 and len(view.cards()) == 1)
    assert entries(view) == [("08:00:00", "Paid the plumber.")]


def test_days_can_be_walked_with_the_keyboard(qtbot: QtBot, live: session.Session) -> None:
    view = make_view(qtbot, live)
    show(qtbot, view, MARCH_4)
    view.calendar.activateWindow()
    view.calendar.setFocus()
    qtbot.waitUntil(lambda: view.calendar.focusWidget() is not None)
    target = view.calendar.focusWidget() or view.calendar
    with qtbot.waitSignal(view.dayShown):
        qtbot.keyClick(target, Key.Key_Right)
    assert view.day == dt.date(2026, 3, 5) and view.cards() == []
    with qtbot.waitSignal(view.dayShown):
        qtbot.keyClick(target, Key.Key_Right)
    assert view.day == MARCH_6 and entries(view) == [("08:00:00", "Paid the plumber.")]


def test_append_entry_is_written_and_shown(qtbot: QtBot, live: session.Session) -> None:
    view = make_view(qtbot, live, "finance")
    assert not view.append_button.isEnabled()
    view.append_box.setFocus()
    qtbot.keyClicks(view.append_box, "Moved $200 to savings.")
    assert view.append_button.isEnabled()
    with qtbot.waitSignal(view.appended) as appended:
        qtbot.keyClick(view.append_box, Key.Key_Return, QtCore.Qt.KeyboardModifier.ControlModifier)
    entry = appended.args[0]
    today = live.vault.now().astimezone().date()
    assert entry.date == today
    text = live.vault.paths.daily_file(today, "finance").read_text()
    assert re.search(r"\n## \d{2}:\d{2}:\d{2}\n\nMoved \$200 to savings\.\n$", text)
    assert f"## {entry.time}\n" in text
    assert view.append_box.toPlainText() == ""
    qtbot.waitUntil(lambda: view.day == today and len(view.cards()) == 1)
    assert entries(view) == [(entry.time, "Moved $200 to savings.")]
    qtbot.waitUntil(lambda: today in view.dates)  # the calendar marks the new day
    assert live.undo_stack.count() == 1


def test_refused_append_keeps_the_text(qtbot: QtBot, live: session.Session) -> None:
    view = make_view(qtbot, live)
    ghost = daily.DailyView(live, "ghost")  # an agent that does not exist (any more)
    qtbot.addWidget(ghost)
    ghost.append_box.setPlainText("Lost?")
    ghost.append_button.click()
    qtbot.waitUntil(lambda: not ghost.append_error.isHidden())
    assert "Not found" in ghost.append_error.text()
    assert ghost.append_box.toPlainText() == "Lost?" and ghost.append_button.isEnabled()
    assert view.dates == [MARCH_4, MARCH_6]


def test_reloads_on_daily_changed_for_its_scope(qtbot: QtBot, live: session.Session) -> None:
    view = make_view(qtbot, live)
    show(qtbot, view, MARCH_6)
    live.vault.append_daily("Receipt filed.", at=at(MARCH_6, 9, 30, 0))  # e.g. an agent
    with qtbot.assertNotEmitted(view.dayShown, wait=50):
        live.dailyChanged.emit("agent:finance", MARCH_6)  # another scope: ignored
    with qtbot.waitSignal(view.dayShown):
        live.dailyChanged.emit("global", MARCH_6)
    assert [t for t, _ in entries(view)] == ["08:00:00", "09:30:00"]
