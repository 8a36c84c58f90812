"""The sidebar filters as you type and hides for room (issue 30): the rows whose title
holds every word typed stay with their groups, Enter opens the first, Esc clears; View ›
Sidebar (Ctrl+B) hides the whole panel, Ctrl+1 brings it back with the focus."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import open_window

from vault_app.ui import app

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
MARCUS = "areas/people/marcus-bell"


@pytest.fixture
def window(qtbot: QtBot, root: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, root, store)
    yield main
    main.session.wait()


def shown_titles(window: app.MainWindow) -> list[str]:
    view, model = window.sidebar, window.sidebar_model
    titles: list[str] = []

    def visit(parent: QtCore.QModelIndex) -> None:
        for row in range(model.rowCount(parent)):
            if not view.isRowHidden(row, parent):
                index = model.index(row, 0, parent)
                titles.append(str(index.data()))
                visit(index)

    visit(QtCore.QModelIndex())
    return titles


def test_typing_keeps_the_matching_rows_and_enter_opens_the_first(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    everything = shown_titles(window)
    panel = window.sidebar_panel
    window.commands["filter_sidebar"].trigger()
    assert panel.filter_edit.hasFocus()
    qtbot.keyClicks(panel.filter_edit, "marcus BEL")
    qtbot.waitUntil(lambda: len(shown_titles(window)) < len(everything) // 5)  # a pause
    kept = shown_titles(window)
    assert "Marcus Bell" in kept and len(kept) < len(everything) // 5
    assert "Dana Whitaker" not in kept  # another person: hidden
    assert {"Global", "Areas", "People"} <= set(kept)  # its groups stay, open
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        qtbot.keyClick(panel.filter_edit, Key.Key_Return)
    assert window.entity_view.address == MARCUS and window.sidebar.hasFocus()
    panel.filter_edit.setFocus()
    qtbot.keyClick(panel.filter_edit, Key.Key_Escape)
    assert panel.filter_edit.text() == ""
    qtbot.waitUntil(lambda: shown_titles(window) == everything)
    # the model's rows change under a filter (a scan): the filter holds, rows stay in step
    qtbot.keyClicks(panel.filter_edit, "bell")
    qtbot.waitUntil(lambda: "Dana Whitaker" not in shown_titles(window))
    window.sidebar_model.layoutChanged.emit()
    qtbot.waitUntil(lambda: not panel._later.isActive())
    assert "Marcus Bell" in shown_titles(window) and "Dana Whitaker" not in shown_titles(window)


def test_ctrl_b_hides_the_sidebar_and_ctrl_1_brings_it_back(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    toggle = window.commands["toggle_sidebar"]
    assert toggle.shortcut().toString() == "Ctrl+B" and window.sidebar_panel.isVisible()
    toggle.trigger()
    assert not window.sidebar_panel.isVisible()
    qtbot.waitUntil(lambda: window.pages_scroll.width() > 1000)  # the room goes to the page
    window.commands["focus_sidebar"].trigger()
    assert window.sidebar_panel.isVisible() and window.sidebar.hasFocus()
    assert QtWidgets.QApplication.focusWidget() is window.sidebar


def test_counts_read_as_everywhere_and_five_digits_fit_in_bold(window: app.MainWindow) -> None:
    """One number format ("10,579", as the status bar writes it), and the widest count a
    group shows, five digits in bold, fits its column (issue 30: "301…")."""
    from PySide6 import QtGui

    delegate = window.sidebar.itemDelegate()
    assert delegate.displayText(10579, QtCore.QLocale()) == "10,579"
    bold = QtGui.QFont(window.sidebar.font())
    bold.setBold(True)
    needed = QtGui.QFontMetrics(bold).horizontalAdvance("88,888")
    assert all(window.sidebar.columnWidth(c) >= needed + 6 for c in range(1, 5))


def test_a_group_selected_shows_its_overview(qtbot: QtBot, window: app.MainWindow) -> None:
    """Global, Areas, People: the group's counts and what it holds, each entity a link
    (issue 30: "Select an entity" said nothing of the group chosen)."""
    model = window.sidebar_model
    people = model.index_for_node(lambda n: n.kind in ("category", "group") and n.name == "People")
    assert people.isValid()
    counted = model.index(people.row(), 1, people.parent())
    qtbot.waitUntil(lambda: isinstance(counted.data(), int), timeout=20_000)  # scan's counts
    window.sidebar.setCurrentIndex(people)
    assert window.pages.currentWidget() is window.welcome
    text = window.welcome.text()
    assert "<h2>People</h2>" in text and "active facts:" in text and "hot" in text
    assert '<a href="areas/people/marcus-bell">Marcus Bell</a>' in text
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        window.welcome.label.linkActivated.emit("areas/people/marcus-bell")
    assert window.entity_view.address == MARCUS
