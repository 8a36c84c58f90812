"""The agent page's memory blocks and tiers, driven as a person would in the window."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import agent_memory, notes, vault
from vault_app.ui import session, themes
from vault_app.ui.pages import agent_page
from vault_app.ui.widgets import memory_blocks, tiers_editor

AGENT = "household"
NOTES = Path("agents/household/memories/MEMORY.md")


@pytest.fixture
def v(tmp_path: Path) -> vault.Vault:
    made = vault.Vault.create(tmp_path / "v")
    made.create_agent(AGENT)
    config = made.root / ".vault/config.toml"
    config.write_text(config.read_text() + "\n[agents.memory.household]\nmemory_chars = 40\n")
    reopened = vault.Vault(made.root)
    agent_memory.change_notes(reopened, AGENT, "memory", "add", content="Uses vim")
    return reopened


@pytest.fixture
def live(v: vault.Vault) -> Iterator[session.Session]:
    s = session.Session(v)
    yield s
    s.close()


def loaded(qtbot: QtBot, widget: memory_blocks.NotesBlock) -> memory_blocks.NotesBlock:
    qtbot.addWidget(widget)
    qtbot.waitUntil(lambda: widget.state is not None, timeout=10_000)
    return widget


def test_a_block_shows_its_entries_and_meter(qtbot: QtBot, live: session.Session) -> None:
    block = loaded(qtbot, memory_blocks.NotesBlock(live, AGENT, "memory"))
    assert block.editor.toPlainText() == "Uses vim"
    assert block.meter.format() == "20% — 8/40 chars"
    assert not block.save_button.isEnabled()
    block.editor.setPlainText("Uses vim\n§\nLikes tea")
    assert block.meter.format() == "50% — 20/40 chars" and block.save_button.isEnabled()
    with qtbot.waitSignal(block.saved, timeout=10_000):
        block.save_button.click()
    assert (live.vault.root / NOTES).read_text() == "Uses vim\n§\nLikes tea"
    assert not block.is_dirty()


def test_over_budget_turns_red_and_save_is_refused(qtbot: QtBot, live: session.Session) -> None:
    block = loaded(qtbot, memory_blocks.NotesBlock(live, AGENT, "memory"))
    normal = block.meter.palette().color(QtGui.QPalette.ColorRole.Highlight)
    block.editor.setPlainText("Uses vim\n§\n" + "x" * 30)  # 41 of 40
    assert block.meter.property("over") is True
    assert block.meter.format() == "100% — 41/40 chars — 1 over"
    red = themes.error_colour(block.palette())
    assert block.meter.palette().color(QtGui.QPalette.ColorRole.Highlight) == red != normal
    assert not block.reason.isHidden() and "Over the budget by 1 " in block.reason.text()
    with qtbot.waitSignal(block.refused, timeout=5_000) as refused:
        block.save_button.click()
    assert "over budget" in refused.args[0] and "41/40" in refused.args[0]
    assert (live.vault.root / NOTES).read_text() == "Uses vim"
    block.editor.setPlainText("Uses vim\n§\n" + "x" * 29)  # exactly 40
    assert block.meter.property("over") is False
    with qtbot.waitSignal(block.saved, timeout=10_000):
        block.save()


def test_a_duplicate_and_a_conflict_are_refused(qtbot: QtBot, live: session.Session) -> None:
    block = loaded(qtbot, memory_blocks.NotesBlock(live, AGENT, "memory"))
    block.editor.setPlainText("Uses vim\n§\nUses vim")
    with qtbot.waitSignal(block.refused, timeout=5_000) as refused:
        block.save()
    assert "already there" in refused.args[0]
    other = vault.Vault(live.vault.root, actor="agent:household")
    agent_memory.change_notes(other, AGENT, "memory", "add", content="agent wrote")
    block.editor.setPlainText("Mine")
    with qtbot.waitSignal(block.refused, timeout=10_000) as refused:
        block.save()
    assert "changed on disk" in refused.args[0]
    assert (live.vault.root / NOTES).read_text() == "Uses vim\n§\nagent wrote"
    assert block.editor.toPlainText() == "Mine"  # nothing typed is lost
    qtbot.waitUntil(lambda: block.base_text == "Uses vim\n§\nagent wrote", timeout=10_000)


def test_a_switched_off_store_is_read_only(qtbot: QtBot, v: vault.Vault) -> None:
    config = v.root / ".vault/config.toml"
    config.write_text(config.read_text() + "profile = false\n")
    s = session.Session(vault.Vault(v.root))
    try:
        block = loaded(qtbot, memory_blocks.NotesBlock(s, AGENT, "user"))
        assert block.editor.isReadOnly() and "profile = true" in block.hint.text()
        assert not block.save_button.isEnabled()
    finally:
        s.close()


def test_tiers_as_three_panes(qtbot: QtBot, live: session.Session) -> None:
    path = live.vault.root / "agents/household/MEMORY.md"
    path.write_text(
        "# Memory\n\n## Tier 1 — Long term\n\nOne\n\n<!-- x -->\n## Tier 3 — Short term\n\nThree\n"
    )
    editor = tiers_editor.TiersEditor(live, AGENT)
    qtbot.addWidget(editor)
    qtbot.waitUntil(lambda: editor.path is not None, timeout=10_000)
    assert editor.texts() == {1: "One\n\n<!-- x -->", 2: "", 3: "Three"}
    editor.editors[2].setPlainText("Kitchen")
    with qtbot.waitSignal(editor.saved, timeout=10_000):
        editor.save_button.click()
    assert path.read_text() == (
        "# Memory\n\n## Tier 1 — Long term\n\nOne\n\n<!-- x -->\n"
        "## Tier 2 — Mid term\n\nKitchen\n\n## Tier 3 — Short term\n\nThree\n"
    )
    editor.editors[3].setPlainText("a\n## b")
    with qtbot.waitSignal(editor.refused, timeout=5_000) as refused:
        editor.save_button.click()
    assert "would end the tier" in refused.args[0]


def test_profile_as_a_key_value_table(qtbot: QtBot, live: session.Session) -> None:
    agent_memory.set_profile(live.vault, AGENT, "name", "Zoé")
    table = memory_blocks.ProfileTable(live, AGENT)
    qtbot.addWidget(table)
    qtbot.waitUntil(lambda: table.state is not None, timeout=10_000)
    assert table.rows() == [("name", "Zoé")]
    table.add_row()  # a new row, its key cell open for typing
    table.table.item(1, 0).setText("city")
    table.table.setItem(1, 1, QtWidgets.QTableWidgetItem("Lyon"))
    with qtbot.waitSignal(table.saved, timeout=10_000):
        table.save_button.click()
    profile_file = live.vault.root / "agents/household/profile.json"
    assert json.loads(profile_file.read_text()) == {"name": "Zoé", "city": "Lyon"}
    table.table.item(1, 0).setText("name")
    with qtbot.waitSignal(table.refused, timeout=5_000) as refused:
        table.save_button.click()
    assert "row 2" in refused.args[0] and "already used" in refused.args[0]


def test_the_agent_page_has_the_tabs(qtbot: QtBot, live: session.Session) -> None:
    page = agent_page.AgentPage(live, AGENT)
    qtbot.addWidget(page)
    labels = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert labels == ["TACIT", "CONTEXT", "Memory", "Tiers", "Daily notes", "Context preview"]
    page.show_tab("tiers")
    assert page.tabs.currentWidget() is page.tiers
    page.show_tab("memory")
    qtbot.waitUntil(lambda: page.memory.notes_block.state is not None, timeout=10_000)
    page.memory.notes_block.editor.setPlainText("changed")
    assert page.dirty()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_red_meter_reads_in_both_themes(qtbot: QtBot, theme: str) -> None:
    holder = QtWidgets.QWidget()
    qtbot.addWidget(holder)
    holder.setPalette(themes.palette_for(theme))
    bar = QtWidgets.QProgressBar(holder)
    memory_blocks.set_meter(bar, notes.Usage(124, 120), "User profile")
    fill = bar.palette().color(QtGui.QPalette.ColorRole.Highlight)
    text = bar.palette().color(QtGui.QPalette.ColorRole.HighlightedText)
    assert fill == themes.error_colour(holder.palette())
    assert themes.contrast(fill, text) >= 4.5
    memory_blocks.set_meter(bar, notes.Usage(12, 120), "User profile")
    assert bar.palette().color(QtGui.QPalette.ColorRole.Highlight) != fill
