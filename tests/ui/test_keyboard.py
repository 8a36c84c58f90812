"""The keyboard the same everywhere (issue 30, `vault_app.ui.keyboard`): Tab moves between
widgets and never walks a table's cells, so what sits under a table (Revert, Approve,
Reject, the reason box) is reached; entering a view from the keyboard selects a row, so
the commands of a selection are ready."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import JANE, open_window, show_entity

from tests.ui.test_activity_page import activity as activity
from tests.ui.test_activity_page import shown
from tests.ui.test_review_page import add_fact, propose
from vault_app.ui import app

Key = QtCore.Qt.Key
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot: QtBot, activity: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, activity, store)
    yield main
    main.session.wait()


def focus() -> QtWidgets.QWidget | None:
    return QtWidgets.QApplication.focusWidget()


def tab(qtbot: QtBot, backwards: bool = False) -> QtWidgets.QWidget | None:
    before = focus()
    assert before is not None
    if backwards:
        qtbot.keyClick(before, Key.Key_Backtab, SHIFT)
    else:
        qtbot.keyClick(before, Key.Key_Tab)
    return focus()


def walk(qtbot: QtBot, start: QtWidgets.QWidget, steps: int, backwards: bool = False) -> list:
    start.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
    assert focus() is start
    return [tab(qtbot, backwards) for _ in range(steps)]


def test_tab_leaves_the_activity_tables_and_reaches_revert(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    page = shown(qtbot, window)
    qtbot.waitUntil(lambda: page.writes_model.rowCount() > 0, timeout=10_000)
    page.runs_toggle.setChecked(True)  # the runs unfolded: their table takes the focus
    for table in (page.runs_table, page.writes_table):
        for backwards in (False, True):
            seen = walk(qtbot, table, 1, backwards)
            assert seen[0] is not table  # one Tab: out of the table, not to its next cell
    lines = page.writes_model.lines()
    agent_write = next(i for i, line in enumerate(lines) if line.get("actor") == "agent:finance")
    page.writes_table.selectRow(agent_write)  # Revert is enabled for an agent's write
    assert page.revert_button.isEnabled()
    seen = walk(qtbot, page.writes_table, 12)
    assert page.revert_button in seen


def test_tab_reaches_the_reason_reject_and_approve_under_the_queue(
    qtbot: QtBot,
    window: app.MainWindow,
    activity: Path,
) -> None:
    propose(activity, add_fact())
    window.show_review()
    page = window.review
    qtbot.waitUntil(lambda: page.model.rowCount() > 0, timeout=10_000)
    page.table.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(page.table.selectionModel().hasSelection)  # entering it selected one
    seen = walk(qtbot, page.table, 12)
    assert {page.reason, page.reject_button, page.approve_button} <= set(seen)


def test_entering_the_facts_table_selects_a_row_so_f2_works(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    show_entity(qtbot, window, JANE)
    table = window.entity_view.table
    assert not table.selectionModel().hasSelection()
    assert not window.commands["edit_fact"].isEnabled()
    table.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(table.selectionModel().hasSelection, timeout=5_000)
    assert table.currentIndex().row() == 0
    qtbot.waitUntil(lambda: window.commands["edit_fact"].isEnabled(), timeout=5_000)


MENU_LETTERS = {"F", "E", "G", "V", "H"}  # File, Edit, Go, View, Help: Alt+letter opens them


def mnemonics(root: QtWidgets.QWidget, shown: bool = False) -> list[tuple[str, str]]:
    """(letter, text) of every mnemonic under `root`: a label's with a buddy, a button's,
    a group box's, a tab's; what Alt+letter reaches in the window. `shown`: only those
    shown now (two banners' buttons that never show together may share a letter)."""
    found: list[tuple[str, str]] = []

    def take(text: str, widget: QtWidgets.QWidget) -> None:
        if shown and not widget.isVisibleTo(root):
            return
        plain = text.replace("&&", "")
        at = plain.find("&")
        if 0 <= at < len(plain) - 1:
            found.append((plain[at + 1].upper(), text))

    for label in root.findChildren(QtWidgets.QLabel):
        if label.buddy() is not None:
            take(label.text(), label)
    for button in root.findChildren(QtWidgets.QAbstractButton):
        take(button.text(), button)
    for box in root.findChildren(QtWidgets.QGroupBox):
        take(box.title(), box)
    for bar in root.findChildren(QtWidgets.QTabBar):
        for i in range(bar.count()):
            take(bar.tabText(i), bar)
    return found


def every_page(qtbot: QtBot, window: app.MainWindow) -> list[QtWidgets.QWidget]:
    show_entity(qtbot, window, JANE)
    window.show_agent("finance", "context")
    window.show_dashboard()
    window.show_review()
    window.show_activity()
    window.open_daily("global", None)
    return [window.pages.widget(i) for i in range(window.pages.count())]


def test_no_label_or_button_takes_a_menu_letter_and_none_share_one(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    """Alt+F, E, G, V, H always open the menus; on a page, one letter is one control."""
    clashes: list[str] = []
    for page in every_page(qtbot, window):
        letters = mnemonics(page)
        name = type(page).__name__
        clashes += [f"{name}: {text!r} takes Alt+{c}" for c, text in letters if c in MENU_LETTERS]
        seen: dict[str, str] = {}
        for c, text in mnemonics(page, shown=True):
            if c in seen and seen[c] != text:
                clashes.append(f"{name}: {seen[c]!r} and {text!r} share Alt+{c}")
            seen.setdefault(c, text)
    assert clashes == [], "\n".join(clashes)


def test_every_button_a_page_shows_is_a_command(qtbot: QtBot, window: app.MainWindow) -> None:
    """What a page offers as a button is also a command (menu, palette, F1, a key): a
    command whose text opens with the button's verb ("Approve…" / "Approve proposal…")."""
    from vault_app.ui.dialogs import palette

    verbs = {palette.plain(a.text()).split()[0] for _p, a in palette.walk(window.menuBar())}
    missing: list[str] = []
    for page in every_page(qtbot, window):
        window.pages.setCurrentWidget(page)
        for button in page.findChildren(QtWidgets.QAbstractButton):
            words = [w for w in palette.plain(button.text()).split() if w.isalpha()]
            shown = button.isVisibleTo(page) and isinstance(button, QtWidgets.QPushButton)
            if shown and words and words[0] not in verbs:  # "◀ Earlier note": Earlier note
                missing.append(f"{type(page).__name__}: {button.text()!r}")
    assert missing == [], "\n".join(missing)


def test_a_page_command_is_on_exactly_while_its_page_shows(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    fit, append = window.commands["fit_graph"], window.commands["append_entry"]
    show_entity(qtbot, window, JANE)
    window.commands["graph"].trigger()
    qtbot.waitUntil(fit.isEnabled, timeout=5_000)
    assert not append.isEnabled()
    window.open_daily("global", None)
    qtbot.waitUntil(lambda: append.isEnabled() and not fit.isEnabled(), timeout=5_000)


Binding = tuple[str, QtCore.Qt.ShortcutContext, QtWidgets.QWidget, str]


def bindings(window: app.MainWindow) -> list[Binding]:
    """Every key live now: (key, context, the widget it works in, what it is), enabled and
    on a widget shown."""
    found: list[Binding] = []
    for action in window.findChildren(QtGui.QAction):
        owner = next(
            (
                o
                for o in action.associatedObjects()
                if isinstance(o, QtWidgets.QWidget) and not isinstance(o, QtWidgets.QMenu)
            ),
            action.parent(),
        )
        if not action.isEnabled() or not isinstance(owner, QtWidgets.QWidget):
            continue
        for key in action.shortcuts():
            if not key.isEmpty() and owner.isVisible():
                found.append((key.toString(), action.shortcutContext(), owner, action.text()))
    for shortcut in window.findChildren(QtGui.QShortcut):
        owner = shortcut.parent()
        live = shortcut.isEnabled() and not shortcut.key().isEmpty()
        if live and isinstance(owner, QtWidgets.QWidget) and owner.isVisible():
            found.append((shortcut.key().toString(), shortcut.context(), owner, "a shortcut"))
    return found


def clash(a: Binding, b: Binding) -> bool:
    """Whether the two could be live at once for one focus: Qt then runs neither."""
    ctx = QtCore.Qt.ShortcutContext
    wide = (ctx.WindowShortcut, ctx.ApplicationShortcut)
    if a[1] in wide or b[1] in wide:
        return True  # window-wide: live wherever the other is
    if a[1] == ctx.WidgetShortcut or b[1] == ctx.WidgetShortcut:
        return a[2] is b[2]
    return a[2] is b[2] or a[2].isAncestorOf(b[2]) or b[2].isAncestorOf(a[2])


def test_no_key_is_bound_twice_where_both_would_be_live(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    """A shortcut scan over the live window, page by page (the As-of panel open on an
    entity): no two enabled bindings of one key can be live for one focus."""
    found: list[str] = []

    def scan(where: str) -> None:
        live = bindings(window)
        for i, a in enumerate(live):
            for b in live[i + 1 :]:
                if a[0] == b[0] and clash(a, b):
                    found.append(f"{where}: {a[0]} — {a[3]!r} and {b[3]!r}")

    show_entity(qtbot, window, JANE)
    scan("entity")
    window.commands["as_of"].trigger()
    qtbot.waitUntil(
        lambda: window.entity_view.as_of is not None and window.entity_view.as_of.isVisible(),
        timeout=5_000,
    )
    scan("as of")
    for page in every_page(qtbot, window):
        window.pages.setCurrentWidget(page)
        scan(type(page).__name__)
    assert found == [], "\n".join(sorted(set(found)))


def test_a_page_never_binds_a_key_window_wide(qtbot: QtBot, window: app.MainWindow) -> None:
    """Window-wide keys are the window's commands; a page's own key works inside the page
    (a window-wide Esc of the As-of panel took Esc from the search field beside it)."""
    ctx = QtCore.Qt.ShortcutContext
    wide = (ctx.WindowShortcut, ctx.ApplicationShortcut)
    found: list[str] = []
    for page in every_page(qtbot, window):
        for s in page.findChildren(QtGui.QShortcut):
            if s.context() in wide and not s.key().isEmpty():
                found.append(f"{type(page).__name__}: {s.key().toString()}")
        for a in page.findChildren(QtGui.QAction):
            if a.shortcutContext() in wide and a.shortcuts():
                found.append(f"{type(page).__name__}: {a.text()!r}")
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_focus_shows_as_a_ring_on_every_kind_of_control(qtbot: QtBot, theme: str) -> None:
    """A clear ring in the accent (3:1 on the window) around whatever holds the focus: a
    button, a line edit, a rendered text, a tree (issue 30: a faint 1-px line on buttons,
    nothing on the summary, History or Related); none around the others."""
    from PySide6 import QtGui

    from vault_app.ui import themes

    application = QtWidgets.QApplication.instance()
    assert isinstance(application, QtWidgets.QApplication)
    before = themes.current_theme(application)
    themes.apply_theme(application, theme)
    try:
        page = QtWidgets.QWidget()
        qtbot.addWidget(page)
        column = QtWidgets.QVBoxLayout(page)
        text = QtWidgets.QTextBrowser()
        text.setHtml("<h3>Summary</h3>")
        tree = QtWidgets.QTreeWidget()
        tree.addTopLevelItem(QtWidgets.QTreeWidgetItem(["a fact"]))
        controls = [QtWidgets.QPushButton("Approve…"), QtWidgets.QLineEdit("why"), text, tree]
        for control in controls:
            column.addWidget(control)
        page.resize(320, 420)
        page.show()
        page.activateWindow()
        qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is page)
        ring = themes.focus_colour(page.palette()).name()
        assert (
            themes.contrast(
                QtGui.QColor(ring), page.palette().color(QtGui.QPalette.ColorRole.Window)
            )
            >= 3
        )

        def ringed(widget: QtWidgets.QWidget) -> int:
            image = widget.grab().toImage()
            return sum(
                QtGui.QColor(image.pixel(x, y)).name() == ring
                for y in range(image.height())
                for x in (0, 1, 2, image.width() - 3, image.width() - 2, image.width() - 1)
            )

        for control in controls:
            control.setFocus()
            qtbot.waitUntil(control.hasFocus)
            others = [c for c in controls if c is not control]
            assert ringed(control) >= control.height(), type(control).__name__
            assert all(ringed(other) < other.height() // 2 for other in others)
    finally:
        themes.apply_theme(application, before)
