"""The command palette (Ctrl+Shift+P) and the keyboard-shortcuts sheet (issue 16): both
made from the window's menus, so a command added later appears in both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import open_window

from vault_app.ui import app, themes
from vault_app.ui.dialogs import palette

Key = QtCore.Qt.Key


@pytest.fixture
def window(qtbot: QtBot, root: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, root, store)
    yield main
    main.session.wait()


def open_palette(qtbot: QtBot, window: app.MainWindow) -> palette.CommandPalette:
    qtbot.keyClick(
        window.sidebar,
        Key.Key_P,
        QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.ShiftModifier,
    )
    found = window.findChild(palette.CommandPalette)
    assert found is not None and found.isVisible()
    return found


def test_the_palette_lists_every_menu_command_with_its_menu_and_key(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    dialog = open_palette(qtbot, window)
    shown = {(e.text, e.path, e.keys) for e in dialog.shown()}
    assert ("Decay dashboard", "Go", "Ctrl+Shift+D") in shown
    assert ("Dark", "View › Theme", "") in shown
    every = {id(a) for _p, a in palette.walk(window.menuBar())}
    assert {id(e.action) for e in dialog.shown()} == every
    dialog.reject()


def test_a_command_added_later_is_in_the_palette_and_the_sheet(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    ran: list[bool] = []
    window.commands.add(
        "later", "&Graph of the vault", lambda: ran.append(True), "Ctrl+Alt+G", "", "Go"
    )
    dialog = open_palette(qtbot, window)
    qtbot.keyClicks(dialog.query_edit, "graph vault")
    assert dialog.shown()[0].text == "Graph of the vault"
    qtbot.keyClick(dialog.query_edit, Key.Key_Return)
    qtbot.waitUntil(lambda: ran == [True])
    assert not shiboken6.isValid(dialog) or not dialog.isVisible()
    sheet = palette.ShortcutsSheet(window)
    qtbot.addWidget(sheet)
    assert ("Graph of the vault", "Ctrl+Alt+G") in sheet.by_menu(window)["Go"]


def test_fuzzy_filter_and_disabled_commands_are_shown_but_not_run(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    window.show_dashboard()  # no entity: Edit fact is off
    dialog = open_palette(qtbot, window)
    qtbot.keyClicks(dialog.query_edit, "edfact")  # letters in order are enough
    first = dialog.shown()[0]
    assert first.text == "Edit fact" and not first.action.isEnabled()
    item = dialog.list.topLevelItem(0)
    assert not item.flags() & QtCore.Qt.ItemFlag.ItemIsEnabled
    assert "not available here" in item.toolTip(0)
    dialog._run(item)  # a click on it
    assert dialog.isVisible() and "not available here" in dialog.hint.text()
    assert window.entity_view.fact_dialog is None
    dialog.query_edit.setText("zzqqxx")
    assert dialog.shown() == [] and dialog.hint.text() == "No command matches"
    dialog.reject()


def test_enter_runs_the_first_runnable_match(qtbot: QtBot, window: app.MainWindow) -> None:
    dialog = open_palette(qtbot, window)
    qtbot.keyClicks(dialog.query_edit, "decay dash")
    qtbot.keyClick(dialog.query_edit, Key.Key_Return)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.dashboard)


@pytest.fixture
def theme_kept(qapp: QtWidgets.QApplication) -> Iterator[None]:
    """The application's theme as it was before the test (a theme is process-wide)."""
    style, colours, sheet = qapp.style().name(), QtGui.QPalette(qapp.palette()), qapp.styleSheet()
    applied = themes.applied_theme(qapp)
    yield
    qapp.setStyle(style)
    qapp.setPalette(colours)
    qapp.setStyleSheet(sheet)
    qapp.setProperty(themes._THEME_PROPERTY, applied)


def test_one_enter_runs_a_theme_and_the_theme_in_use_is_ticked(
    qtbot: QtBot, window: app.MainWindow, theme_kept: None
) -> None:
    dialog = open_palette(qtbot, window)
    qtbot.keyClicks(dialog.query_edit, "dark")
    qtbot.keyClick(dialog.query_edit, Key.Key_Return)  # once
    qtbot.waitUntil(lambda: window.commands["theme_dark"].isChecked())
    qtbot.waitUntil(lambda: themes.is_dark(QtWidgets.QApplication.palette()))
    # the window has its activation and focus back: the next keys reach it
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window)
    assert QtWidgets.QApplication.focusWidget() is not None
    dialog = open_palette(qtbot, window)
    qtbot.keyClicks(dialog.query_edit, "theme")
    rows = {dialog.list.topLevelItem(r).text(0) for r in range(dialog.list.topLevelItemCount())}
    assert "Dark  ✓" in rows and "Light" in rows
    qtbot.keyClicks(dialog.query_edit, " light")
    qtbot.keyClick(dialog.query_edit, Key.Key_Return)
    qtbot.waitUntil(lambda: not themes.is_dark(QtWidgets.QApplication.palette()))


def test_the_shortcuts_sheet_is_made_from_the_actions(qtbot: QtBot, window: app.MainWindow) -> None:
    window.commands["shortcuts"].trigger()
    sheet = window.findChild(palette.ShortcutsSheet)
    assert sheet is not None and sheet.isVisible()
    groups = sheet.by_menu(window)
    listed = {(text, keys) for rows in groups.values() for text, keys in rows}
    with_keys = {
        (palette.plain(a.text()), palette.keys_text(a))
        for _p, a in palette.walk(window.menuBar())
        if palette.keys_text(a)
    }
    assert listed == with_keys
    assert ("Command palette", "Ctrl+Shift+P") in groups["Go"]
    assert sheet.table.topLevelItemCount() == len(listed) + len(groups)
    sheet.reject()
