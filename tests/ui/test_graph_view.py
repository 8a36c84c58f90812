"""The graph view: an entity's neighbourhood at depth 1 and 2, the whole of a small vault
(refused above the limit, in words), "+N more" when capped, and a click that opens."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot
from window_helpers import open_window, scanned

from vault_app.core import vault
from vault_app.ui import session
from vault_app.ui.pages import graph_view
from vault_app.ui.widgets.entity_links import title_of
from vault_app.ui.window import link_keeper

HUB = "projects/hub"
FAR = "resources/far"
SPOKES = [f"areas/people/p{i:02}" for i in range(6)]


@pytest.fixture
def s(qtbot: QtBot, vault: vault.Vault) -> Iterator[session.Session]:
    vault.create_entity(HUB)
    for address in SPOKES:
        vault.create_entity(address)
        vault.add_fact(address, "knows the hub", "relationship", related=[HUB])
    vault.create_entity(FAR)
    vault.add_fact(FAR, "knows p00", "relationship", related=[SPOKES[0]])
    vault.create_entity("areas/alone")
    with scanned(qtbot, vault) as live:
        yield live


@pytest.fixture
def view(qtbot: QtBot, s: session.Session) -> graph_view.GraphView:
    keeper = link_keeper.LinkKeeper(s)
    qtbot.waitUntil(lambda: keeper.ready, timeout=10_000)
    widget = graph_view.GraphView(keeper)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    return widget


def draw(qtbot: QtBot, view: graph_view.GraphView, action: object) -> None:
    with qtbot.waitSignal(view.drawn, timeout=10_000):
        action()  # type: ignore[operator]


def test_neighbourhood_by_depth_and_a_click_opens(qtbot: QtBot, view: graph_view.GraphView) -> None:
    draw(qtbot, view, lambda: view.show_entity(HUB))
    assert set(view.nodes) == {HUB, *SPOKES}
    assert view.graph is not None and view.graph.more == {SPOKES[0]: 1}
    assert "6 links" in view.status.text() and view.title.text() == "Hub"
    draw(qtbot, view, lambda: view.depth_combo.setCurrentIndex(1))  # 2 links away
    assert FAR in view.nodes and view.graph is not None and view.graph.more == {}
    node = view.nodes[FAR]
    point = view.canvas.mapFromScene(node.scenePos())
    with qtbot.waitSignal(view.openEntity) as opened:
        qtbot.mouseClick(view.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=point)
    assert opened.args == [FAR]


def test_alone_and_capped(qtbot: QtBot, view: graph_view.GraphView) -> None:
    draw(qtbot, view, lambda: view.show_entity("areas/alone"))
    assert list(view.nodes) == ["areas/alone"]
    assert "nothing links to or from this entity" in view.status.text()
    view.limit = 3  # the cap a big vault meets
    draw(qtbot, view, lambda: view.show_entity(HUB))
    assert len(view.nodes) == 3
    assert "4 more within 1 link not drawn" in view.status.text()
    marks = [text for text in view.labels.texts() if text.startswith("+")]
    assert sorted(marks) == ["+1 more", "+4 more"]
    assert "Hub" in view.labels.texts()


def test_whole_vault_and_its_limit(qtbot: QtBot, view: graph_view.GraphView) -> None:
    draw(qtbot, view, lambda: view.whole_check.setChecked(True))
    assert len(view.nodes) == 9 and not view.depth_combo.isEnabled()
    view.whole_limit = 5
    draw(qtbot, view, view.refresh)
    assert view.nodes == {}
    assert "holds 9 entities: the whole-vault graph is drawn for up to 5" in view.status.text()


def test_the_keyboard_steps_through_entities_and_opens_one(
    qtbot: QtBot, view: graph_view.GraphView
) -> None:
    draw(qtbot, view, lambda: view.show_entity(HUB))
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, QtCore.Qt.Key.Key_PageDown)
    assert view.marked == HUB  # the centre first
    qtbot.keyClick(view.canvas, QtCore.Qt.Key.Key_PageDown)
    second = list(view.nodes)[1]
    assert view.marked == second and "Enter opens it" in view.status.text()
    qtbot.keyClick(view.canvas, QtCore.Qt.Key.Key_PageUp)
    qtbot.keyClick(view.canvas, QtCore.Qt.Key.Key_PageUp)  # wraps round to the last
    assert view.marked == list(view.nodes)[-1]
    with qtbot.waitSignal(view.openEntity) as opened:
        qtbot.keyClick(view.canvas, QtCore.Qt.Key.Key_Return)
    assert opened.args == [list(view.nodes)[-1]]


@pytest.mark.parametrize("key", ["Right", "Left", "Up", "Down"])
def test_an_arrow_marks_the_entity_that_way_on_screen(
    qtbot: QtBot, view: graph_view.GraphView, key: str
) -> None:
    """Right goes right (issue 30: the arrows walked a list, not the picture)."""
    draw(qtbot, view, lambda: view.show_entity(HUB))
    view.canvas.setFocus()
    qtbot.keyClick(view.canvas, getattr(QtCore.Qt.Key, f"Key_{key}"))
    assert view.marked == HUB  # the first press marks the centre
    centre = view.nodes[HUB].pos()
    qtbot.keyClick(view.canvas, getattr(QtCore.Qt.Key, f"Key_{key}"))
    assert view.marked != HUB
    moved = view.nodes[str(view.marked)].pos() - centre
    dx, dy = {"Right": (1, 0), "Left": (-1, 0), "Up": (0, -1), "Down": (0, 1)}[key]
    along = moved.x() * dx + moved.y() * dy
    assert along > 0 and abs(moved.x() * dy - moved.y() * dx) <= along * 1.8


def test_a_graph_that_cannot_be_drawn_says_why_in_the_canvas(
    qtbot: QtBot, view: graph_view.GraphView
) -> None:
    draw(qtbot, view, lambda: view.whole_check.setChecked(True))
    assert "the entity" not in view.legend.text() and "1 link away" in view.legend.text()
    view.whole_limit = 5
    draw(qtbot, view, view.refresh)
    said = [i for i in view.scene.items() if hasattr(i, "toPlainText")]
    assert said and "drawn for up to 5" in said[0].toPlainText()
    assert not view.whole_check.isChecked() and view.depth_combo.isEnabled()  # unticked
    draw(qtbot, view, lambda: view.show_entity(None))
    said = [i for i in view.scene.items() if hasattr(i, "toPlainText")]
    assert said and "Select an entity" in said[0].toPlainText()


def test_labels_never_collide_at_two_links_on_the_demo(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    window = open_window(qtbot, root, store)
    view = window.graph_view
    qtbot.waitUntil(lambda: window.link_keeper.ready)
    window.open_entity("areas/people/marcus-bell")
    view.depth_combo.setCurrentIndex(view.depth_combo.findData(2))
    with qtbot.waitSignal(view.drawn):
        window.commands["graph"].trigger()
    labels = view.labels
    rects = labels.rects
    assert len(view.nodes) > 20 and len(rects) > 20  # the crowded case of issue 30
    for i, one in enumerate(rects):
        assert not any(one.intersects(other) for other in rects[i + 1 :]), labels.texts()[i]
    dots = [node.sceneBoundingRect() for node in view.nodes.values()]
    inner = [dot.adjusted(1.5, 1.5, -1.5, -1.5) for dot in dots]  # (the pen's width)
    assert not any(r.intersects(d) for r in rects for d in inner)
    centre_and_near = [a for a, d in view.graph.depth.items() if d <= 1]
    shown = set(labels.texts())
    for address in centre_and_near:  # the nearer entities always keep their names
        title = title_of(address)
        assert title in shown or title[:11] + "…" in shown or title[:21] + "…" in shown
