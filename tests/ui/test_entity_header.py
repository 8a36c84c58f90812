"""The entity page's header (issue 30): actions that fold into More instead of covering the
address, and an entity's history from its header.

Variants thought of: the window at 1280×720 with the search dock open (the page narrowest
in normal use) and without it; a long title and address; the folded actions are the
page's own (a folded Add fact still adds, with its key); an archived entity's Unarchive
takes Archive's place in the row; the page never grows a horizontal scroll bar for its
header; History (the button, or View › Entity history, Ctrl+Shift+H) opens Activity with
every change to this entity, of all time, and nothing about another entity.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import open_window, show_entity

from vault_app.ui import app

PLUMBING = "areas/companies/bell-and-sons-plumbing"


def _scroll_area(widget: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QtWidgets.QScrollArea):
        parent = parent.parentWidget()
    assert parent is not None
    return parent


def _right_of_names(window: app.MainWindow) -> int:
    header = window.entity_view.header
    names = [header.title_label, header.address_label, header.counts_label]
    return max(w.mapTo(header, QtCore.QPoint(w.width(), 0)).x() for w in names)


def _shown_buttons(window: app.MainWindow) -> list[QtWidgets.QToolButton]:
    row = window.entity_view.header.actions_row
    return [b for b in [*row.buttons.values(), row.more] if b.isVisible()]


def test_actions_fold_into_more_rather_than_cover_the_names(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    window = open_window(qtbot, root, store)
    show_entity(qtbot, window, PLUMBING)
    page, header = window.entity_view, window.entity_view.header
    row = header.actions_row
    assert not row.folded and not row.more.isVisible()  # 1280 px: every action shown
    assert [b.text() for b in _shown_buttons(window)] == [
        "Add fact",
        "Edit fact",
        "Archive",
        "As of",
        "History",
    ]  # (a button drops the menu item's "…")

    window.search_dock.show()
    scroll = _scroll_area(page)
    # no sideways scrolling for it: the page is as wide as the room it is shown in
    qtbot.waitUntil(lambda: page.width() == scroll.viewport().width() < 600)
    assert row.folded and row.more.isVisible()
    left = min(b.mapTo(header, QtCore.QPoint(0, 0)).x() for b in _shown_buttons(window))
    assert left >= _right_of_names(window)  # nothing drawn over the title or address
    assert row.more_menu.actions() == row.folded
    assert not scroll.horizontalScrollBar().isVisible()

    add = next(a for a in row.folded if a is page.add_action)
    add.trigger()  # the folded action is the page's own
    assert page.fact_dialog is not None and page.fact_dialog.isVisible()
    page.fact_dialog.reject()

    window.search_dock.hide()
    qtbot.waitUntil(lambda: not row.folded)
    assert not row.more.isVisible()


def test_history_shows_every_change_to_the_entity_in_activity(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    window = open_window(qtbot, root, store)
    show_entity(qtbot, window, PLUMBING)
    activity = window.activity
    with qtbot.waitSignal(activity.refreshed):
        window.entity_view.history_button.click()
    assert window.pages.currentWidget() is activity
    assert activity.entity_edit.text() == PLUMBING
    assert activity.span_combo.currentData() == "all"
    assert activity.actor_combo.currentData() == ""
    lines = activity.writes_model.lines()
    assert lines and all(PLUMBING in str(line.get("target", "")) for line in lines)

    show_entity(qtbot, window, "areas/people/maya")
    with qtbot.waitSignal(activity.refreshed):
        window.commands["entity_history"].trigger()  # View › Entity history, Ctrl+Shift+H
    assert activity.entity_edit.text() == "areas/people/maya"
    assert window.commands["entity_history"].shortcut().toString() == "Ctrl+Shift+H"
