"""The Activity page in a neighbour's folder's window: who wrote what, from the audit
log vault-app keeps for the folder (its agents' MCP writes, the review queue), kept
current as the agents write; no heartbeat runs and no Revert there."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot
from test_neighbour_review import ATTACK, PERSONA, WAIT, Opener, mcp_write, opened

from vault_app.ui.pages import activity_page, neighbour_window

_ = opened  # the fixture (imported: pytest finds it here), shared with the review tests


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def column(page: activity_page.ActivityPage, number: int) -> list[str]:
    m = page.writes_model
    return [m.index(r, number).data() for r in range(m.rowCount())]


def test_the_agents_writes_show_as_they_happen(qtbot: QtBot, opened: Opener) -> None:
    window = opened("hermes")
    root = window.folder.root
    page = window.activity
    with qtbot.waitSignal(page.refreshed, timeout=WAIT):
        window.commands["activity"].trigger()  # Go › Activity
    assert window.commands["activity"].shortcut() == QtGui.QKeySequence("Ctrl+Shift+L")
    assert window.current_page() is page and window.current_key() == neighbour_window.ACTIVITY
    assert window.page_keys()[-2:] == [neighbour_window.REVIEW, neighbour_window.ACTIVITY]
    assert page.writes_model.rowCount() == 0 and page.writes_empty.isVisible()
    assert not page.runs_table.isVisible() and not page.revert_button.isVisible()
    families = [page.family_combo.itemData(i) for i in range(page.family_combo.count())]
    assert families == ["", *activity_page.FOLDER_FAMILIES]
    # the agent writes through MCP: one entry applied, one held back for review
    tea = {"action": "add", "target": "memory", "content": "Likes tea."}
    mcp_write(root, "hermes", "memory", tea)
    mcp_write(root, "hermes", "memory", {"action": "add", "target": "user", "content": ATTACK})
    qtbot.waitUntil(lambda: page.writes_model.rowCount() == 2, timeout=WAIT)  # the log watched
    assert column(page, 1) == ["hermes", "hermes"]
    assert column(page, 2) == ["Agent", "Agent"]
    assert column(page, 3) == ["Held back for review", "Added a notes entry"]
    assert column(page, 4)[1] == "memories/MEMORY.md"
    # approved in the window: the agent's write (as the agent) and the person's decision
    review = window.show_review()
    qtbot.waitUntil(lambda: window.review.current() is not None, timeout=WAIT)
    prompt = window.review.approve()
    assert prompt is not None and review is window.review
    with qtbot.waitSignal(window.review.decided, timeout=WAIT):
        next(b for b in prompt.buttons() if b.text() == "Approve").click()
    with qtbot.waitSignal(page.refreshed, timeout=WAIT):
        window.show_activity()
    qtbot.waitUntil(lambda: page.writes_model.rowCount() == 4, timeout=WAIT)
    assert column(page, 1)[:2] == ["You", "hermes"]  # the person at the window: "You"
    assert column(page, 3)[:2] == ["Approved a held-back write", "Added a notes entry"]
    assert column(page, 4)[1] == "memories/USER.md"
    # Who: one agent
    index = page.actor_combo.findData("agent:hermes")
    assert index >= 0
    with qtbot.waitSignal(page.refreshed, timeout=WAIT):
        page.actor_combo.setCurrentIndex(index)
    assert set(column(page, 1)) == {"hermes"} and page.writes_model.rowCount() == 3


def test_a_microclaw_persona_is_read_as_an_agent(qtbot: QtBot, opened: Opener) -> None:
    window = opened("microclaw")
    args = {"tier": 3, "content": "Rested; longer answers are fine again."}
    mcp_write(window.folder.root, PERSONA, "tiers_write", args)
    page = window.show_activity()
    assert isinstance(page, activity_page.ActivityPage)
    qtbot.waitUntil(lambda: page.writes_model.rowCount() == 1, timeout=WAIT)
    assert column(page, 1) == [PERSONA] and column(page, 2) == ["Agent"]
    assert column(page, 3) == ["Wrote a memory tier"]
    assert page.actor_combo.findData(f"agent:{PERSONA}") >= 0


def test_f5_reads_the_page_shown_again_once(qtbot: QtBot, opened: Opener) -> None:
    window = opened("hermes")
    page = window.show_activity()
    assert isinstance(page, activity_page.ActivityPage)
    qtbot.waitUntil(lambda: page.snapshot is not None, timeout=WAIT)
    page.entity_edit.setFocus()
    reads: list[object] = []
    page.refreshed.connect(lambda: reads.append(1))
    with qtbot.waitSignal(page.refreshed, timeout=WAIT):  # Qt warns (the test fails) if
        qtbot.keyClick(page.entity_edit, QtCore.Qt.Key.Key_F5)  # two shortcuts held F5
    window.session.wait()
    QtWidgets.QApplication.processEvents()
    assert reads == [1]
    review = window.show_review()
    assert review is window.review
    with qtbot.waitSignal(window.review.pending, timeout=WAIT):
        qtbot.keyClick(window.sidebar, QtCore.Qt.Key.Key_F5)  # the queue read again
