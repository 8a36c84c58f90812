"""Links and time reached from the window: Go › Graph view (Ctrl+Shift+G) on the entity
shown, a click in the graph opens an entity, View › As of… on the entity page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.ui import app

PLUMBER = "areas/people/marcus-bell"


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    demo.create_demo(tmp_path / "demo")
    main = app.MainWindow(vault.Vault(tmp_path / "demo", actor="gui"), store, search=False)
    qtbot.addWidget(main)
    main.resize(1280, 720)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: main.link_keeper.ready, timeout=30_000)
    yield main
    main.session.wait()


def test_graph_view_from_the_menu_and_back_to_an_entity(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        window.open_entity(PLUMBER)
    links = window.entity_view.lineage.links
    assert links.addresses(1)  # the demo's plumber is named by other entities' facts
    graph = window.graph_view
    action = window.commands["graph"]
    assert action.shortcut().toString() == "Ctrl+Shift+G"
    with qtbot.waitSignal(graph.drawn, timeout=10_000):
        qtbot.keyClick(window, QtCore.Qt.Key.Key_G, QtCore.Qt.KeyboardModifier.ControlModifier
                       | QtCore.Qt.KeyboardModifier.ShiftModifier)  # fmt: skip
    assert window.pages.currentWidget() is graph and graph.address == PLUMBER
    other = next(a for a in graph.nodes if a != PLUMBER)
    point = graph.canvas.mapFromScene(graph.nodes[other].scenePos())
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        qtbot.mouseClick(graph.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=point)
    assert window.pages.currentWidget() is window.entity_view
    assert window.entity_view.address == other


def test_as_of_from_the_view_menu(qtbot: QtBot, window: app.MainWindow) -> None:
    as_of = window.commands["as_of"]
    assert not as_of.isEnabled()  # no entity open yet
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        window.open_entity(PLUMBER)
    qtbot.waitUntil(as_of.isEnabled)
    with qtbot.waitSignal(window.entity_view.as_of.loaded, timeout=10_000):
        as_of.trigger()
    assert window.entity_view.body.currentWidget() is window.entity_view.as_of
    # the past view fits 1280x720 as the page does: no scroll bar for its wrapped banner
    qtbot.waitUntil(lambda: not window.pages_scroll.verticalScrollBar().isVisible())
    assert window.pages.height() <= window.pages_scroll.viewport().height()
    assert not window.add_fact_action.isEnabled() or not window.entity_view.add_action.isEnabled()
