"""The quick switcher on the demo vault: fuzzy ranking, days listed off-thread, choosing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.ui import session as session_module
from vault_app.ui.dialogs import switcher


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "v"
    demo.create_demo(root)
    return root


@pytest.fixture
def session(qtbot: QtBot, demo_root: Path) -> Iterator[session_module.Session]:
    s = session_module.Session(vault.Vault(demo_root))
    with qtbot.waitSignal(s.scanned, timeout=30_000):
        s.rescan()
    yield s
    s.close()


@pytest.fixture
def popup(qtbot: QtBot, session: session_module.Session) -> switcher.QuickSwitcher:
    widget = switcher.QuickSwitcher(session)
    qtbot.addWidget(widget)
    widget.popup()
    qtbot.waitUntil(lambda: bool(widget.days), timeout=10_000)
    return widget


def shown(popup: switcher.QuickSwitcher) -> list[switcher.SwitcherItem]:
    return [popup.model.item(row) for row in range(popup.model.rowCount())]


def test_ranking_prefers_prefix_then_word_start_then_subsequence() -> None:
    items = [
        switcher.SwitcherItem("entity", title, f"areas/{title.lower().replace(' ', '-')}", title)
        for title in ("Tall Cable", "Garden Table", "Tabletop Games", "Table Saw", "Stable")
    ]
    ranked = [m.item.label for m in switcher.rank("tabl", items)]
    # Two prefixes (the shorter first), a word start, then the subsequences: a mid-word
    # run ("sTABLe") before letters scattered over two words ("TAll caBLe").
    assert ranked == ["Table Saw", "Tabletop Games", "Garden Table", "Stable", "Tall Cable"]
    found = switcher.fuzzy_match("mbell", "Marcus Bell")
    assert found is not None and found[1] == (0, 7, 8, 9, 10)  # word starts preferred
    found = switcher.fuzzy_match("roof", "Basement Waterproofing")
    assert found is not None and found[1] == (15, 16, 17, 18)  # the run, not "wateR…oof"
    assert switcher.fuzzy_match("xyz", "Marcus Bell") is None
    assert switcher.fuzzy_match("", "anything") == (0.0, ())


def test_the_switcher_lists_entities_agents_documents_and_days(
    session: session_module.Session, popup: switcher.QuickSwitcher, qtmodeltester: Any
) -> None:
    qtmodeltester.check(popup.model)
    kinds = {item.kind for item in shown(popup)}
    assert kinds == {"entity", "agent", "daily", "document"}
    assert session.scan is not None
    days = [item.payload for item in popup.days]
    assert ("global", session.vault.daily_dates()[0]) in days
    agent = session.scan.agents[0]
    assert (f"agent:{agent}", session.vault.daily_dates(agent)[-1]) in days
    assert len(popup.days) == sum(
        len(session.vault.daily_dates(a)) for a in (None, *session.scan.agents)
    )
    documents = {item.payload for item in shown(popup) if item.kind == "document"}
    assert ("AGENTS.md", None) in documents and ("TACIT.md", agent) in documents


def test_fuzzy_text_finds_an_entity_and_enter_chooses_it(
    qtbot: QtBot, popup: switcher.QuickSwitcher, qtmodeltester: Any
) -> None:
    qtbot.keyClicks(popup.query_edit, "mbell")
    first = shown(popup)[0]
    assert (first.kind, first.payload) == ("entity", "areas/people/marcus-bell")
    qtmodeltester.check(popup.model)
    with qtbot.waitSignal(popup.chosen) as chosen:
        qtbot.keyClick(popup.query_edit, QtCore.Qt.Key.Key_Return)
    assert chosen.args == ["entity", "areas/people/marcus-bell"]
    assert not popup.isVisible()


def test_arrow_keys_move_and_escape_closes(qtbot: QtBot, popup: switcher.QuickSwitcher) -> None:
    qtbot.keyClicks(popup.query_edit, "finance")
    items = shown(popup)
    assert items[0].kind == "agent" and items[0].payload == "finance"
    qtbot.keyClick(popup.query_edit, QtCore.Qt.Key.Key_Down)
    qtbot.keyClick(popup.query_edit, QtCore.Qt.Key.Key_Down)
    qtbot.keyClick(popup.query_edit, QtCore.Qt.Key.Key_Up)
    assert popup.view.currentIndex().row() == 1
    with qtbot.waitSignal(popup.chosen) as chosen:
        qtbot.keyClick(popup.query_edit, QtCore.Qt.Key.Key_Enter)
    assert chosen.args == [items[1].kind, items[1].payload]

    popup.popup()
    assert popup.isVisible() and popup.query_edit.text() == ""
    with qtbot.assertNotEmitted(popup.chosen):
        qtbot.keyClick(popup.query_edit, QtCore.Qt.Key.Key_Escape)
    assert not popup.isVisible()


def test_a_day_is_found_by_its_date(qtbot: QtBot, popup: switcher.QuickSwitcher) -> None:
    day = popup.days[0].payload[1]
    assert isinstance(day, dt.date)
    qtbot.keyClicks(popup.query_edit, day.isoformat())
    first = shown(popup)[0]
    assert first.kind == "daily" and first.payload[1] == day
    with qtbot.waitSignal(popup.chosen) as chosen:
        qtbot.mouseClick(
            popup.view.viewport(),
            QtCore.Qt.MouseButton.LeftButton,
            pos=popup.view.visualRect(popup.model.index(0, 0)).center(),
        )
    assert chosen.args == ["daily", first.payload]


def test_opened_over_a_window_it_lists_everything_and_sits_on_top(
    qtbot: QtBot, session: session_module.Session
) -> None:
    window = QtWidgets.QWidget()
    qtbot.addWidget(window)
    window.resize(900, 600)
    window.show()
    dialog = switcher.QuickSwitcher(session, window)
    dialog.open()  # how the main window shows it
    qtbot.waitUntil(lambda: bool(dialog.days), timeout=10_000)
    assert dialog.isVisible() and dialog.query_edit.hasFocus()
    assert dialog.width() <= window.width()
    qtbot.keyClicks(dialog.query_edit, "principles")
    with qtbot.waitSignal(dialog.chosen) as chosen:
        qtbot.keyClick(dialog.query_edit, QtCore.Qt.Key.Key_Return)
    assert chosen.args == ["document", ("AGENTS.md", None)]
