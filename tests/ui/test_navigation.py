"""Back/Forward over the views visited (Alt+Left/Right, the mouse's side buttons), and
the focus in the opened view after the quick switcher (issue 16)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import JANE, PLUMBER, open_window, show_entity

from vault_app.ui import app
from vault_app.ui.window import navigation

Key = QtCore.Qt.Key
ALT = QtCore.Qt.KeyboardModifier.AltModifier


@pytest.fixture
def window(qtbot: QtBot, root: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, root, store)
    yield main
    main.session.wait()


def test_history_drops_the_forward_part_on_a_new_visit() -> None:
    history = navigation.History(limit=3)
    for place in (("page", "a"), ("page", "b"), ("page", "b"), ("page", "c")):
        history.visit(place)
    assert history.places == [("page", "a"), ("page", "b"), ("page", "c")]
    assert history.back() == ("page", "b") and history.can_forward()
    history.visit(("page", "d"))
    assert history.places == [("page", "a"), ("page", "b"), ("page", "d")]
    assert not history.can_forward() and history.forward() is None
    history.visit(("page", "e"))
    assert history.places[0] == ("page", "b")  # the oldest goes past the limit


def test_alt_left_and_right_walk_back_and_forth_over_the_views(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    back, forward = window.commands["back"], window.commands["forward"]
    show_entity(qtbot, window, JANE)
    window.show_agent("finance", "daily")
    window.show_dashboard()
    show_entity(qtbot, window, PLUMBER)
    window.show_activity()
    window.sidebar.setFocus()
    assert back.isEnabled() and not forward.isEnabled()
    steps = [
        lambda: (
            window.entity_view.address == PLUMBER
            and window.pages.currentWidget() is window.entity_view
        ),
        lambda: window.pages.currentWidget() is window.dashboard,
        lambda: (
            window.pages.currentWidget() is window._agent_pages["finance"]
            and window._agent_pages["finance"].tabs.currentWidget()
            is window._agent_pages["finance"].daily
        ),
        lambda: (
            window.entity_view.address == JANE
            and window.pages.currentWidget() is window.entity_view
        ),
    ]
    for reached in steps:
        qtbot.keyClick(QtWidgets.QApplication.focusWidget(), Key.Key_Left, ALT)
        assert reached()
    assert not back.isEnabled()
    qtbot.keyClick(QtWidgets.QApplication.focusWidget(), Key.Key_Right, ALT)
    assert window.pages.currentWidget() is window._agent_pages["finance"]
    window.show_review()  # a new visit drops what was ahead
    assert not forward.isEnabled()
    assert window.navigator.history.places[-2:] == [
        ("agent", "finance", "daily"),
        ("page", "review"),
    ]


def test_the_mouse_back_and_forward_buttons(qtbot: QtBot, window: app.MainWindow) -> None:
    show_entity(qtbot, window, JANE)
    window.show_dashboard()
    qtbot.mouseClick(window.dashboard, QtCore.Qt.MouseButton.BackButton)
    assert window.pages.currentWidget() is window.entity_view
    qtbot.mouseClick(window.sidebar.viewport(), QtCore.Qt.MouseButton.ForwardButton)
    assert window.pages.currentWidget() is window.dashboard


def test_after_the_switcher_the_focus_is_in_the_opened_view(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    window.sidebar.setFocus()
    window.quick_switch()
    switcher = window.switcher
    assert switcher is not None
    qtbot.keyClicks(switcher.query_edit, "marcus bell")
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        qtbot.keyClick(switcher.query_edit, Key.Key_Return)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.focusWidget() is window.entity_view.table)
    window.quick_switch()
    qtbot.keyClicks(switcher.query_edit, "principles")
    qtbot.keyClick(switcher.query_edit, Key.Key_Return)
    qtbot.waitUntil(lambda: window.principles.isAncestorOf(QtWidgets.QApplication.focusWidget()))


def test_the_switcher_lists_where_you_were_last_first(qtbot: QtBot, window: app.MainWindow) -> None:
    """Nothing typed: the entities and agents visited lead, newest first (issue 30)."""
    for address in ("areas/people/marcus-bell", "areas/people/maya", "areas/pets"):
        with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
            window.open_entity(address)
    window.show_agent("finance", "context")
    window.quick_switch()
    switcher = window.switcher
    assert switcher is not None
    shown = [switcher.model.item(r) for r in range(4)]
    assert [(i.kind, i.payload) for i in shown] == [
        ("agent", "finance"),
        ("entity", "areas/pets"),
        ("entity", "areas/people/maya"),
        ("entity", "areas/people/marcus-bell"),
    ]
    qtbot.keyClicks(switcher.query_edit, "mar")  # typing ranks by the words again
    assert switcher.model.item(0).kind == "entity"
    switcher.reject()


def test_history_lists_recent_places_newest_first_each_once() -> None:
    history = navigation.History()
    for place in (("entity", "a"), ("entity", "b"), ("entity", "a"), ("page", "dashboard")):
        history.visit(place)
    assert history.recent() == [("page", "dashboard"), ("entity", "a"), ("entity", "b")]
    history.back()
    assert history.recent() == [("entity", "a"), ("entity", "b")]
