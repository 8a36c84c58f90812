"""Live sync end to end: another process changes the vault, real inotify, the window follows."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_windows import open_live_window
from PySide6 import QtCore
from pytestqt.qtbot import QtBot
from vault_writer import Writer

from vault_app.core import vault
from vault_app.ui import app

JANE = "areas/people/jane"
WAIT = 20_000


@pytest.fixture
def home(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v", actor="gui")
    v.create_entity(JANE, "Jane is the family plumber.")
    v.add_fact(JANE, "Jane fixed the kitchen leak", "milestone")
    v.create_entity("projects/roof")
    v.create_agent("ops")
    v.append_daily("first note", agent="ops")
    return v


@pytest.fixture
def window(qtbot: QtBot, home: vault.Vault, tmp_path: Path) -> Iterator[app.MainWindow]:
    main = open_live_window(qtbot, home, tmp_path, timeout=WAIT)
    main.open_entity(JANE)
    qtbot.waitUntil(lambda: bool(facts_shown(main)), timeout=WAIT)
    yield main
    main.close()


def facts_shown(window: app.MainWindow) -> list[str]:
    return [f.fact for f in window.entity_view.model.facts()]


def sidebar_active(window: app.MainWindow, address: str) -> int:
    index = window.sidebar_model.index_for_address(address)
    return int(index.siblingAtColumn(1).data())


def test_an_external_atomic_write_reaches_the_view_the_sidebar_and_search(
    qtbot: QtBot, window: app.MainWindow, writer: Writer
) -> None:
    items = window.session.vault.paths.life_dir / JANE / "items.json"
    table = window.entity_view.table
    table.setCurrentIndex(table.model().index(0, 0))
    writer.do("fact", path=items, text="Jane now also fits boilers")
    qtbot.waitUntil(lambda: "Jane now also fits boilers" in facts_shown(window), timeout=WAIT)
    assert window.entity_view.selected_fact() is not None  # the selection survived
    qtbot.waitUntil(lambda: sidebar_active(window, JANE) == 2, timeout=WAIT)
    engine = window.session.engine
    qtbot.waitUntil(
        lambda: any("boilers" in h.text for h in engine.search("boilers", mode="bm25").hits),
        timeout=WAIT,
    )


def test_daily_notes_agents_and_moves_are_followed(
    qtbot: QtBot, window: app.MainWindow, writer: Writer, home: vault.Vault
) -> None:
    page = window.show_agent("ops", "daily")
    day = home.daily_dates("ops")[-1]
    page.daily.show_day(day)
    qtbot.waitUntil(lambda: len(page.daily.cards()) == 1, timeout=WAIT)
    writer.do("daily", path=home.paths.daily_file(day, "ops"), text="second note")
    qtbot.waitUntil(lambda: len(page.daily.cards()) == 2, timeout=WAIT)

    writer.do("agent", root=home.root, id="helper")
    qtbot.waitUntil(
        lambda: window.sidebar_model.index_for_node(
            lambda n: n.kind == "agent" and n.agent == "helper"
        ).isValid(),
        timeout=WAIT,
    )

    window.open_entity(JANE)
    qtbot.waitUntil(lambda: bool(facts_shown(window)), timeout=WAIT)
    source = home.paths.life_dir / JANE
    writer.do("move", source=source, target=home.paths.life_dir / "archives/people/jane")
    qtbot.waitUntil(lambda: window.entity_view.address == "archives/people/jane", timeout=WAIT)
    assert "Moved outside the app" in window.message_bar.title.text()
    qtbot.waitUntil(lambda: JANE not in window.sidebar_model.addresses(), timeout=WAIT)


def test_an_entity_deleted_outside_can_be_restored(
    qtbot: QtBot, window: app.MainWindow, writer: Writer, home: vault.Vault
) -> None:
    folder = home.paths.life_dir / JANE
    before = json.loads((folder / "items.json").read_bytes())
    writer.do("remove", path=folder)
    qtbot.waitUntil(lambda: window.message_bar.isVisible(), timeout=WAIT)
    assert window.message_bar.title.text() == "Deleted outside the app"
    window.message_bar.action.click()
    qtbot.waitUntil(lambda: (folder / "items.json").is_file(), timeout=WAIT)
    assert json.loads((folder / "items.json").read_bytes()) == before
    qtbot.waitUntil(lambda: "Jane fixed the kitchen leak" in facts_shown(window), timeout=WAIT)


def test_unsaved_edits_raise_the_conflict_bar_instead_of_being_overwritten(
    qtbot: QtBot, window: app.MainWindow, home: vault.Vault
) -> None:
    page = window.show_agent("ops", "TACIT.md")
    pane = page.tacit
    qtbot.waitUntil(lambda: pane.document is not None, timeout=WAIT)
    pane.start_edit()
    pane.editor.setPlainText("# Tacit\n\nMy unsaved thought\n")
    path = home.document_path("TACIT.md", "ops")
    path.write_text("# Tacit\n\nWritten by the agent\n")  # an editor saving in place
    qtbot.waitUntil(lambda: pane.conflict_bar.isVisible(), timeout=WAIT)
    assert pane.editor.toPlainText() == "# Tacit\n\nMy unsaved thought\n"
    assert path.read_text() == "# Tacit\n\nWritten by the agent\n"
    pane.reload_theirs()  # the user takes the agent's version: nothing left unsaved
    qtbot.waitUntil(lambda: not pane.is_dirty(), timeout=WAIT)


def test_what_changed_while_closed_is_picked_up_on_open(
    qtbot: QtBot, home: vault.Vault, tmp_path: Path
) -> None:
    store = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    first = app.MainWindow(home, store, search=False)
    qtbot.addWidget(first)
    first.start()
    qtbot.waitUntil(lambda: first.live_label.text() == "live", timeout=WAIT)
    first.close()  # the watcher saves its snapshot

    other = vault.Vault(home.root)  # another program, while the app is closed
    other.append_daily("written while closed", agent="ops", at=dt.datetime(2026, 1, 5, 9))
    again = app.MainWindow(vault.Vault(home.root, actor="gui"), store, search=False)
    qtbot.addWidget(again)
    assert again.live is not None
    seen: list[object] = []
    again.live.applied.connect(seen.append)
    again.start()
    qtbot.waitUntil(lambda: bool(seen), timeout=WAIT)
    batch = seen[0]
    assert batch.reason == "open"  # type: ignore[attr-defined]
    assert [(d.agent, d.date) for d in batch.daily] == [("ops", dt.date(2026, 1, 5))]  # type: ignore[attr-defined]
    again.close()


def test_a_stop_before_the_watcher_started_leaves_nothing_running(
    qtbot: QtBot, home: vault.Vault
) -> None:
    """The watcher starts on a worker: a window closed at once must not start it after."""
    from vault_app.ui import live, session

    s = session.Session(home)
    sync = live.LiveSync(s)
    blocker = threading.Event()
    for _ in range(s.pool.maxThreadCount()):  # every worker busy: the start waits
        s.run(blocker.wait)
    sync.start()
    sync.stop()
    blocker.set()
    assert s.pool.waitForDone(10_000)
    assert sync.watcher is not None and not sync.watcher.running
    assert sync.watcher.status.state == "stopped"
    sync.start()  # a second start is a no-op
    assert s.pool.waitForDone(10_000) and not sync.watcher.running


def test_an_agent_s_memory_writes_reach_its_blocks(
    qtbot: QtBot, window: app.MainWindow, home: vault.Vault
) -> None:
    from vault_app.core import agent_memory

    page = window.show_agent("ops", "memory")
    block, table = page.memory.notes_block, page.memory.profile_table
    qtbot.waitUntil(lambda: block.state is not None and table.state is not None, timeout=WAIT)
    as_agent = vault.Vault(home.root, actor="agent:ops")  # as the MCP server writes
    agent_memory.change_notes(as_agent, "ops", "memory", "add", content="Learnt from a run")
    agent_memory.set_profile(as_agent, "ops", "timezone", "Europe/Paris")
    qtbot.waitUntil(lambda: block.editor.toPlainText() == "Learnt from a run", timeout=WAIT)
    assert block.meter.format() == "0% — 17/2,200 chars"
    qtbot.waitUntil(lambda: table.rows() == [("timezone", "Europe/Paris")], timeout=WAIT)
    agent_memory.write_tier(as_agent, "ops", 3, "Busy week")
    qtbot.waitUntil(lambda: page.tiers.texts()[3] == "Busy week", timeout=WAIT)
