"""Live sync on a neighbour's folder: the agent (another process) writes its memory, real
inotify events reach the window, the page shown follows — or, with unsaved edits, shows
the conflict bar and loses neither side."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import neighbours, notes
from vault_app.ui import app
from vault_app.ui.pages import neighbour_daily, neighbour_window
from vault_app.ui.widgets import memory_blocks, tiers_editor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"
AGENT = Path(__file__).with_name("_neighbour_agent.py")
WAIT = 20_000

Opener = Callable[[str], neighbour_window.NeighbourWindow]


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def agent(root: Path, op: str, **fields: Any) -> None:
    """The neighbour's agent writes, in a process of its own."""
    command = json.dumps({"root": str(root), "op": op, **fields})
    subprocess.run([sys.executable, str(AGENT), command], check=True, timeout=60)


@pytest.fixture
def live_window(qtbot: QtBot, store: QtCore.QSettings, tmp_path: Path) -> Iterator[Opener]:
    windows: list[neighbour_window.NeighbourWindow] = []

    def open_(name: str) -> neighbour_window.NeighbourWindow:
        root = Path(shutil.copytree(FIXTURES / name, tmp_path / name))
        window = app.window_for(root, store)
        assert isinstance(window, neighbour_window.NeighbourWindow)
        qtbot.addWidget(window)
        window.show()
        window.start()
        qtbot.waitUntil(lambda: window.live_label.text() == "Live sync: watching", timeout=WAIT)
        windows.append(window)
        return window

    yield open_
    for window in windows:
        window._discard_ok = True
        window.close()


def notes_block(qtbot: QtBot, window: neighbour_window.NeighbourWindow, kind: str) -> Any:
    block = window.open_page(kind, "hermes")
    assert isinstance(block, memory_blocks.NotesBlock)
    qtbot.waitUntil(lambda: block.state is not None, timeout=WAIT)
    return block


def test_the_agent_adds_a_note_and_the_block_reloads(qtbot: QtBot, live_window: Opener) -> None:
    window = live_window("hermes")
    block = notes_block(qtbot, window, "notes")
    agent(window.folder.root, "notes_add", target="memory", text="Deploys on Fridays are banned.")
    qtbot.waitUntil(lambda: "Deploys on Fridays are banned." in block.entries(), timeout=WAIT)
    assert not block.is_dirty() and block.conflict_bar.isHidden()
    used = notes.usage(block.entries())
    assert block.meter.format().endswith(f"{used:,}/2,200 chars")


def test_unsaved_edits_raise_the_conflict_bar_then_reload_theirs(
    qtbot: QtBot, live_window: Opener
) -> None:
    window = live_window("hermes")
    block = notes_block(qtbot, window, "user")
    mine = block.editor.toPlainText() + "\n§\nMy unsaved line."
    block.editor.setPlainText(mine)
    agent(window.folder.root, "notes_add", target="user", text="Lives in Lyon.")
    qtbot.waitUntil(block.conflict_bar.isVisible, timeout=WAIT)
    assert block.editor.toPlainText() == mine  # nothing of the person's edit is lost
    assert block.conflict_bar.merge_button.isHidden()
    block.conflict_bar.reload_button.click()
    assert "Lives in Lyon." in block.entries() and not block.is_dirty()
    assert block.conflict_bar.isHidden()


def test_keep_mine_writes_the_edit_over_the_agent_version(
    qtbot: QtBot, live_window: Opener
) -> None:
    window = live_window("hermes")
    block = notes_block(qtbot, window, "user")
    block.editor.setPlainText("Name: Jane Doe.")
    agent(window.folder.root, "notes_add", target="user", text="Lives in Lyon.")
    qtbot.waitUntil(block.conflict_bar.isVisible, timeout=WAIT)
    with qtbot.waitSignal(block.saved, timeout=WAIT):
        block.conflict_bar.keep_button.click()
    path = window.folder.root / "memories" / "USER.md"
    assert path.read_text() == "Name: Jane Doe."
    assert block.conflict_bar.isHidden()


def test_picoclaw_profile_and_daily_notes_follow_the_agent(
    qtbot: QtBot, live_window: Opener
) -> None:
    window = live_window("picoclaw")
    table = window.open_page("profile", "picoclaw")
    assert isinstance(table, memory_blocks.ProfileTable)
    qtbot.waitUntil(lambda: table.state is not None, timeout=WAIT)
    agent(window.folder.root, "profile_set", key="language", value="Portuguese")
    qtbot.waitUntil(lambda: ("language", "Portuguese") in table.rows(), timeout=WAIT)
    view = window.open_page("daily", "picoclaw")
    assert isinstance(view, neighbour_daily.NeighbourDaily)
    qtbot.waitUntil(lambda: view.note is not None, timeout=WAIT)
    agent(window.folder.root, "daily_append", text="Checked the train times.")
    today = window.folder.today()
    qtbot.waitUntil(lambda: today in view.dates, timeout=WAIT)
    view.show_day(today)
    qtbot.waitUntil(
        lambda: [c.text_label.text() for c in view.cards()] == ["Checked the train times."],
        timeout=WAIT,
    )
    agent(window.folder.root, "daily_append", text="Bought the tickets.")  # the day shown
    qtbot.waitUntil(lambda: len(view.cards()) == 2, timeout=WAIT)


def test_microclaw_tier_written_by_the_agent_reaches_the_editor(
    qtbot: QtBot, live_window: Opener
) -> None:
    window = live_window("microclaw")
    persona = "-1001234567890/1"
    editor = window.open_page("tiers", persona)
    assert isinstance(editor, tiers_editor.TiersEditor)
    qtbot.waitUntil(lambda: editor.path is not None, timeout=WAIT)
    agent(window.folder.root, "tier", agent=persona, tier=3, text="Back from holiday.")
    qtbot.waitUntil(lambda: editor.editors[3].toPlainText() == "Back from holiday.", timeout=WAIT)
    assert "Planning the Porto trip" in editor.editors[2].toPlainText()


def test_the_search_dock_finds_what_the_agent_just_wrote(
    qtbot: QtBot, store: QtCore.QSettings, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(FIXTURES / "hermes", tmp_path / "hermes"))
    folder = neighbours.open_folder(root, actor="gui")
    assert folder is not None
    window = neighbour_window.NeighbourWindow(folder, store, search=True)
    qtbot.addWidget(window)
    window.show()
    window.start()
    search = window.search
    assert search is not None
    qtbot.waitUntil(lambda: window.live_label.text() == "Live sync: watching", timeout=WAIT)
    qtbot.waitUntil(lambda: search.engine is not None, timeout=30_000)
    search.query_edit.setText("kayak")
    with qtbot.waitSignal(search.searched, timeout=WAIT):
        search.run_query()
    assert search.results.count() == 0
    agent(root, "notes_add", target="memory", text="Keeps the kayak in the garage.")
    qtbot.waitUntil(lambda: search.results.count() == 1, timeout=WAIT)  # refreshed, run again
    assert "kayak" in search.results.item(0).text()
    window.close()
