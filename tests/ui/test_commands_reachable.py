"""Every command reachable (issue 16): each in a menu with its key shown, no two on one
key, the keys of the view shown routed by the window (F2, Ctrl+Shift+A, Ctrl+F, Ctrl+E,
Ctrl+S, F8, F5), Ctrl+N anywhere, F5 runs exactly one thing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import JANE, open_window, select_active_fact, show_entity

from vault_app.ui import app, menu_tables, menus
from vault_app.ui.dialogs import palette
from vault_app.ui.pages import context_view, links_window
from vault_app.ui.widgets import context_menus, search_results
from vault_app.ui.window import agent_activity, vault_states

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot: QtBot, root: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, root, store)
    yield main
    main.session.wait()


def menu_keys(window: app.MainWindow) -> dict[str, str]:
    return {
        palette.plain(a.text()): palette.keys_text(a) for _p, a in palette.walk(window.menuBar())
    }


def test_the_commands_of_the_views_are_in_menus_with_their_keys(window: app.MainWindow) -> None:
    keys = menu_keys(window)
    wanted = {
        "Add fact": "Ctrl+N",
        "Edit fact": "F2",
        "Archive entity": "Ctrl+Shift+A",
        "Filter facts": "Ctrl+F",
        "Edit document": "Ctrl+E",
        "Save document": "Ctrl+S",
        "Next conflict": "F8",
        "Refresh": "F5",
        "Rescan the vault": "Ctrl+F5",
        "Command palette": "Ctrl+Shift+P",
        "Back": "Alt+Left",
        "Forward": "Alt+Right",
        "Earlier note": "Alt+PgUp",
        "Later note": "Alt+PgDown",
    }
    for text, key in wanted.items():
        assert keys.get(text) == key, text


def test_no_two_window_actions_share_a_key(qtbot: QtBot, window: app.MainWindow) -> None:
    show_entity(qtbot, window)
    window.show_agent("finance", "context")  # every kind of page made once
    window.show_dashboard()
    window.show_activity()
    window_keys: list[str] = [
        k.toString() for a in window.actions() for k in a.shortcuts() if not k.isEmpty()
    ]
    assert len(window_keys) == len(set(window_keys))  # no two window-wide on one key
    local = [a for a in window.findChildren(QtGui.QAction) if a not in window.actions()]
    local_keys = {k.toString() for a in local for k in a.shortcuts()}
    local_keys |= {s.key().toString() for s in window.findChildren(QtGui.QShortcut)}
    assert not local_keys & set(window_keys)  # a page's key never shadows a command's


def press(
    qtbot: QtBot, window: app.MainWindow, key: Key, modifiers=QtCore.Qt.KeyboardModifier.NoModifier
) -> None:
    target = QtWidgets.QApplication.focusWidget() or window
    qtbot.keyClick(target, key, modifiers)


def test_edit_fact_archive_and_filter_reach_the_entity_from_anywhere(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    show_entity(qtbot, window)
    assert not window.commands["edit_fact"].isEnabled()  # nothing selected yet
    select_active_fact(window)
    assert window.commands["edit_fact"].isEnabled()
    window.sidebar.setFocus()  # the key works with the focus outside the page
    press(qtbot, window, Key.Key_F2)
    dialog = window.entity_view.fact_dialog
    assert (
        dialog is not None and dialog.isVisible() and "old version is kept" in dialog.windowTitle()
    )
    dialog.reject()
    press(qtbot, window, Key.Key_F, CTRL)
    assert window.entity_view.filter_edit.hasFocus()
    window.sidebar.setFocus()
    press(qtbot, window, Key.Key_A, CTRL | SHIFT)
    prompt = window.entity_view.archive_prompt
    assert prompt is not None and prompt.isVisible()
    prompt.reject()
    window.show_dashboard()  # the entity page hidden: its commands are off
    assert not window.commands["edit_fact"].isEnabled()
    assert not window.commands["archive"].isEnabled()


def test_ctrl_n_adds_to_the_entity_shown_from_anywhere_in_the_window(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    show_entity(qtbot, window)
    window.sidebar.setFocus()
    press(qtbot, window, Key.Key_N, CTRL)
    dialog = window.entity_view.fact_dialog
    assert dialog is not None and dialog.isVisible() and "Marcus" in dialog.windowTitle()
    dialog.reject()


def test_ctrl_n_away_from_an_entity_asks_which_entity_then_adds(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    window.show_dashboard()
    press(qtbot, window, Key.Key_N, CTRL)
    switcher = window.switcher
    assert switcher is not None and switcher.isVisible()
    assert switcher.query_edit.placeholderText() == "Add a fact to which entity?"
    qtbot.keyClicks(switcher.query_edit, "marcus bell")
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        qtbot.keyClick(switcher.query_edit, Key.Key_Return)
    qtbot.waitUntil(lambda: window.entity_view.fact_dialog is not None, timeout=10_000)
    dialog = window.entity_view.fact_dialog
    assert dialog.isVisible() and window.entity_view.address == JANE
    dialog.reject()
    window.quick_switch()  # the next plain Ctrl+P goes, without adding
    assert switcher.query_edit.placeholderText().startswith("Go to")
    switcher.reject()


def test_f5_runs_exactly_one_thing(qtbot: QtBot, window: app.MainWindow) -> None:
    page = window.show_agent("finance", "context")
    preview = page.preview
    preview.query_edit.setFocus()
    rescans: list[object] = []
    window.session.scanned.connect(rescans.append)
    preview.status_label.clear()
    press(qtbot, window, Key.Key_F5)  # Qt warns (and the test fails) if ambiguous
    assert preview.status_label.text() == context_view.PREPARING  # (no search index here)
    window.session.wait()
    QtWidgets.QApplication.processEvents()
    assert rescans == []  # the preview ran, not a rescan
    window.show_principles()  # no refresh of its own: F5 rescans the vault
    with qtbot.waitSignal(window.session.scanned, timeout=20_000):
        press(qtbot, window, Key.Key_F5)
    with qtbot.waitSignal(window.session.scanned, timeout=20_000):
        press(qtbot, window, Key.Key_F5, CTRL)


def test_document_keys_reach_the_document_shown(qtbot: QtBot, window: app.MainWindow) -> None:
    window.show_principles()
    qtbot.waitUntil(lambda: window.principles.stack.currentWidget() is window.principles.browser)
    window.sidebar.setFocus()
    press(qtbot, window, Key.Key_E, CTRL)
    assert window.principles.is_editing()
    window.principles.editor.moveCursor(QtGui.QTextCursor.MoveOperation.End)
    window.principles.editor.insertPlainText("\nAsk before buying anything over 500.")
    window.sidebar.setFocus()
    with qtbot.waitSignal(window.principles.saved, timeout=10_000):
        press(qtbot, window, Key.Key_S, CTRL)
    assert "over 500" in (window.session.vault.root / "global" / "AGENTS.md").read_text()
    page = window.show_agent("finance", "TACIT.md")  # a page made later: its keys taken too
    qtbot.waitUntil(lambda: page.tacit.document is not None)
    window.sidebar.setFocus()
    press(qtbot, window, Key.Key_E, CTRL)
    assert page.tacit.is_editing() and not page.context_doc.is_editing()


def test_tab_leaves_the_facts_table(qtbot: QtBot, window: app.MainWindow) -> None:
    show_entity(qtbot, window)
    table = window.entity_view.table
    table.setFocus()
    table.selectRow(0)
    qtbot.keyClick(table, Key.Key_Tab)
    assert not table.hasFocus()
    assert QtWidgets.QApplication.focusWidget() is not None


def test_context_menus_offer_the_relevant_commands(qtbot: QtBot, window: app.MainWindow) -> None:
    show_entity(qtbot, window)
    select_active_fact(window)
    texts = [
        palette.plain(a.text())
        for a in context_menus.menu_for(window, window.entity_view.table).actions()
    ]
    assert {"Edit fact", "Add fact", "Copy fact"} <= set(texts)
    index = window.sidebar_model.index_for_address(JANE)
    window.sidebar.setCurrentIndex(index)
    texts = [
        palette.plain(a.text()) for a in context_menus.menu_for(window, window.sidebar).actions()
    ]
    assert {"Open", "Add fact", "Archive entity", "Copy address", "Show counts"} <= set(texts)
    window.show_search()
    window.search.model.set_rows([])  # (no index in this window: the menu of no row is empty)
    assert context_menus.menu_for(window, window.search.results).isEmpty()


def test_search_results_have_a_context_menu(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    from vault_app.core import vault

    main = app.MainWindow(vault.Vault(root, actor="gui"), store, semantic=False, live=False)
    qtbot.addWidget(main)
    main.resize(1280, 720)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: main.session.engine is not None, timeout=60_000)
    main.show_search()
    main.search.query_edit.setText("plumber")
    results = main.search.results
    qtbot.waitUntil(lambda: main.search.idle() and results.model().rowCount() > 0, timeout=20_000)
    row = next(
        r
        for r in range(results.model().rowCount())
        if results.model().index(r, 0).data(search_results.HIT_ROLE).entity
    )
    results.setCurrentIndex(results.model().index(row, 0))
    menu = context_menus.menu_for(main, results)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == ["Open", "Open entity", "Copy entity address", "Copy text"]
    hit = results.currentIndex().data(search_results.HIT_ROLE)
    with qtbot.waitSignal(main.entity_view.loaded, timeout=10_000):
        menu.actions()[1].trigger()
    assert main.entity_view.address == hit.entity
    menu.actions()[3].trigger()
    assert QtWidgets.QApplication.clipboard().text() == hit.text
    main.close()
    main.session.wait()


def test_the_daily_views_keys_are_commands_too(qtbot: QtBot, window: app.MainWindow) -> None:
    page = window.show_agent("maintenance", "daily")
    days = sorted(window.session.vault.daily_dates("maintenance"))
    page.daily.show_day(days[-1])
    qtbot.waitUntil(lambda: window.commands["earlier_note"].isEnabled())
    window.sidebar.setFocus()
    press(qtbot, window, Key.Key_PageUp, QtCore.Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: page.daily.calendar.selectedDate().toPython() == days[-2])
    window.show_dashboard()
    assert not window.commands["earlier_note"].isEnabled()


def test_synthesize_is_a_command_that_previews_on_the_dashboard(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    show_entity(qtbot, window)
    window.commands["synthesize"].trigger()
    assert window.pages.currentWidget() is window.dashboard
    assert not window.dashboard.synthesize_button.isEnabled()  # the dry run is under way
    qtbot.waitUntil(lambda: window.dashboard.synthesize_button.isEnabled(), timeout=30_000)
    dialog = window.dashboard.preview_dialog
    if dialog is not None:  # the summaries that would change, nothing written yet
        dialog.reject()


def test_each_menu_has_distinct_mnemonics(window: app.MainWindow) -> None:
    for top in window.menuBar().actions():
        menu = top.menu()
        letters = []
        for action in menu.actions():
            text = action.text().replace("&&", "")
            if "&" in text:
                letters.append(text[text.index("&") + 1].lower())
        assert len(letters) == len(set(letters)), f"{top.text()}: {sorted(letters)}"


def test_the_menus_are_made_from_the_command_tables(window: app.MainWindow) -> None:
    """Menus, the palette and F1 (all `palette.walk`) show each declared command where
    its record puts it, with its key; no menu command is undeclared but the ones code
    makes (`menus.Made`: undo, redo, toggles, themes)."""
    tables = (
        menu_tables.WINDOW,
        links_window.COMMANDS,
        vault_states.COMMANDS,
        agent_activity.COMMANDS,
    )
    declared = [e for table in tables for e in table if isinstance(e, menus.Command)]
    walked = {a.objectName(): (path, a) for path, a in palette.walk(window.menuBar())}
    for command in declared:
        path, action = walked.pop(command.name)
        assert path == " › ".join(palette.plain(p) for p in command.menu.split("/"))
        assert palette.plain(action.text()) == palette.plain(command.text)
        if isinstance(command.key, str):
            assert action.shortcut() == QtGui.QKeySequence(command.key), command.name
    made = {"undo", "redo", "toggle_search", "toggle_sidebar", "sidebar_counts"} & set(walked)
    themes = {name for name in walked if name.startswith("theme_")}
    assert set(walked) == made | themes
