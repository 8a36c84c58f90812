""" "Changed since you last looked" (issue 16): entities and facts that agents wrote since
the person last opened them are marked in the sidebar and the facts table; opening the
entity clears the mark; the last looks are kept per vault in the app's settings. Also
the window's side of the agents' features: Edit › Revert agent write, and "*" in the
title while a document has unsaved edits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from tests.grants import let_write_global
from vault_app.core import vault
from vault_app.ui import app
from vault_app.ui.models.base import CHANGED_ROLE
from vault_app.ui.window import agent_marks

RENT = "projects/rent"
BOILER = "areas/boiler"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "home")
    v.create_agent("finance")
    for address in (RENT, BOILER):
        v.create_entity(address)
    v.add_fact(RENT, "Rent is 900", "status")
    let_write_global(v.root, "finance")  # its writes to the global RENT are marked
    return v.root


def open_window(qtbot: QtBot, root: Path, store: QtCore.QSettings) -> app.MainWindow:
    main = app.MainWindow(vault.Vault(root, actor="gui"), store, search=False, live=False)
    qtbot.addWidget(main)
    main.resize(1280, 720)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: main.session.scan is not None, timeout=20_000)
    return main


@pytest.fixture
def window(qtbot: QtBot, home: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, home, store)
    yield main
    main.session.wait()


def mark_of(window: app.MainWindow, address: str) -> object:
    return window.sidebar_model.index_for_address(address).data(CHANGED_ROLE)


def test_an_agents_write_is_marked_until_the_entity_is_opened(
    qtbot: QtBot, window: app.MainWindow, home: Path
) -> None:
    marks = window.agent_marks
    with qtbot.waitSignal(marks.changed, timeout=10_000):
        marks.refresh()
    assert window.sidebar_model.marks == {}  # what was there before the first look is old
    fact_id = vault.Vault(home, actor="agent:finance").add_fact(RENT, "Rent is 950", "status").id
    vault.Vault(home, actor="gui").add_fact(BOILER, "Serviced in May", "milestone")  # a person
    with qtbot.waitSignal(marks.changed, timeout=10_000):
        window.session.entityChanged.emit(RENT)  # as live sync says it
    words = mark_of(window, RENT)
    assert isinstance(words, str) and words.startswith("Changed by finance since you last looked")
    index = window.sidebar_model.index_for_address(RENT)
    assert isinstance(index.data(QtCore.Qt.ItemDataRole.DecorationRole), QtGui.QImage)
    assert words in index.data(QtCore.Qt.ItemDataRole.ToolTipRole)
    assert mark_of(window, BOILER) is None  # people's writes are no news

    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        window.open_entity(RENT)
    assert mark_of(window, RENT) is None  # opened: the sidebar mark clears
    facts = window.entity_view.model
    row = facts.row_of(fact_id)
    changed = facts.index(row, facts.FACT)
    assert str(changed.data(CHANGED_ROLE)).startswith("Changed by finance")  # this visit
    assert isinstance(changed.data(QtCore.Qt.ItemDataRole.DecorationRole), QtGui.QImage)
    old = facts.index(facts.row_of(next(f.id for f in facts.facts() if f.fact == "Rent is 900")), 0)
    assert old.data(CHANGED_ROLE) is None
    ModelTester(None).check(facts)
    ModelTester(None).check(window.sidebar_model)

    # away from the entity, a new change marks it again; coming back clears it
    with qtbot.waitSignal(marks.changed, timeout=10_000):
        window.show_activity()  # leaving ends the visit
    assert marks.visit is None
    vault.Vault(home, actor="agent:finance").add_fact(RENT, "Rent is 975", "status")
    with qtbot.waitSignal(marks.changed, timeout=10_000):
        window.session.entityChanged.emit(RENT)
    assert str(mark_of(window, RENT)).startswith("Changed by finance")
    assert facts.index(facts.row_of(fact_id), 0).data(CHANGED_ROLE) is None  # seen before
    with qtbot.waitSignal(marks.changed, timeout=10_000):
        window.pages.setCurrentWidget(window.entity_view)  # back (as Back does)
    assert mark_of(window, RENT) is None


def test_the_last_look_is_kept_per_vault_in_the_settings(
    qtbot: QtBot, home: Path, store: QtCore.QSettings, tmp_path: Path
) -> None:
    first = open_window(qtbot, home, store)
    with qtbot.waitSignal(first.agent_marks.changed, timeout=10_000):
        first.agent_marks.refresh()
    vault.Vault(home, actor="heartbeat").add_fact(RENT, "The landlord is Mr Pike", "relationship")
    with qtbot.waitSignal(first.agent_marks.changed, timeout=10_000):
        first.agent_marks.refresh()
    assert str(mark_of(first, RENT)).startswith("Changed by the heartbeat")
    with qtbot.waitSignal(first.entity_view.loaded, timeout=10_000):
        first.open_entity(RENT)
    first.session.wait()
    first.close()

    again = open_window(qtbot, home, store)  # the same settings: RENT was looked at
    with qtbot.waitSignal(again.agent_marks.changed, timeout=10_000):
        again.agent_marks.refresh()
    assert mark_of(again, RENT) is None
    vault.Vault(home, actor="agent:finance").add_fact(BOILER, "Needs a new valve", "status")
    with qtbot.waitSignal(again.agent_marks.changed, timeout=10_000):
        again.agent_marks.refresh()
    assert str(mark_of(again, BOILER)).startswith("Changed by finance")
    again.session.wait()

    other = vault.Vault.create(tmp_path / "other")  # another vault: its own looks
    looked = agent_marks.LastLooked(store, other.root, dt.datetime.now(dt.UTC))
    assert looked.entities == {}


def test_last_looked_survives_damage_and_stays_bounded(
    store: QtCore.QSettings, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = dt.datetime(2026, 11, 24, 12, 0, tzinfo=dt.UTC)
    looked = agent_marks.LastLooked(store, home, now)
    assert looked.since == now
    store.setValue(looked.key, "{not json")
    again = agent_marks.LastLooked(store, home, now + dt.timedelta(hours=1))
    assert again.since == now + dt.timedelta(hours=1) and again.entities == {}
    monkeypatch.setattr(agent_marks, "MAX_ENTITIES", 3)
    for n in range(5):
        again.mark(f"projects/p{n}", now + dt.timedelta(minutes=n))
    kept = agent_marks.LastLooked(store, home, now)
    assert list(kept.entities) == ["projects/p2", "projects/p3", "projects/p4"]
    assert kept.since == again.since


def test_revert_is_in_the_edit_menu_and_routed_to_the_activity_page(
    qtbot: QtBot, window: app.MainWindow, home: Path
) -> None:
    fact_id = vault.Vault(home, actor="agent:finance").add_fact(RENT, "Rent is 990", "status").id
    action = window.commands["revert_write"]
    assert action.shortcut() == QtGui.QKeySequence("Ctrl+Alt+Z")
    page = window.activity
    with qtbot.waitSignal(page.refreshed, timeout=10_000):
        window.show_activity()
    window.commands.refresh()
    assert not action.isEnabled()  # nothing selected
    row = next(
        r for r in range(page.writes_model.rowCount())
        if (page.writes_model.line(r) or {}).get("factId") == fact_id
    )  # fmt: skip
    page.writes_table.selectRow(row)
    window.commands.refresh()
    assert action.isEnabled()
    action.trigger()
    window.session.wait()
    qtbot.waitUntil(lambda: "withdrawn" in page.revert_note.text(), timeout=10_000)
    fact = next(f for f in vault.Vault(home).entity(RENT).facts if f.id == fact_id)
    assert not fact.is_active


def test_unsaved_edits_put_a_star_in_the_title(qtbot: QtBot, window: app.MainWindow) -> None:
    assert window.windowTitle() == "home[*] — vault-app" and not window.isWindowModified()
    window.show_principles()
    pane = window.principles
    qtbot.waitUntil(lambda: pane.document is not None, timeout=10_000)
    pane.edit_button.click()
    pane.editor.appendPlainText("Be kind.")
    assert window.isWindowModified()
    pane.cancel()  # asks: discard
    assert pane.discard_prompt is not None
    discard = next(b for b in pane.discard_prompt.buttons() if b.text() == "Discard changes")
    discard.click()
    assert not window.isWindowModified()
