"""The first window: it opens on a vault and shows its entities and their facts."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import app


def make_vault(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("areas/people/jane", "Jane is the family plumber.")
    v.add_fact("areas/people/jane", "Jane fixed the kitchen leak", "milestone")
    v.create_agent("finance")
    v.create_entity("agent:finance:projects/budget")
    broken = v.paths.life_dir / "projects/roof"
    broken.mkdir(parents=True)
    (broken / "items.json").write_text("[{")
    return v


def items_by_address(window: app.MainWindow) -> dict[str, QtWidgets.QTreeWidgetItem]:
    found = {}
    pending = [window.tree.topLevelItem(i) for i in range(window.tree.topLevelItemCount())]
    while pending:
        item = pending.pop()
        if item.data(0, app.REF_ROLE):
            found[item.data(0, app.REF_ROLE)] = item
        pending += [item.child(i) for i in range(item.childCount())]
    return found


def test_window_lists_entities_and_shows_facts(qtbot: QtBot, tmp_path: Path) -> None:
    window = app.MainWindow(make_vault(tmp_path))
    qtbot.addWidget(window)
    window.show()
    items = items_by_address(window)
    assert set(items) == {"areas/people/jane", "projects/roof", "agent:finance:projects/budget"}
    jane = items["areas/people/jane"]
    assert [jane.text(c) for c in range(5)] == ["jane", "1", "1", "0", "0"]
    assert [jane.parent().text(0), jane.parent().parent().text(0)] == ["people", "Areas"]
    budget = items["agent:finance:projects/budget"]
    assert budget.parent().parent().text(0) == "finance"
    assert "invalid JSON" in items["projects/roof"].toolTip(0)

    window.tree.setCurrentItem(jane)
    assert window.facts.rowCount() == 1
    assert window.facts.item(0, 0).text() == "Jane fixed the kitchen leak"
    assert window.facts.item(0, 2).text() == "hot"
    assert "family plumber" in window.summary.toPlainText()

    window.tree.setCurrentItem(items["projects/roof"])  # corrupt: an error, not a crash
    assert "Cannot read the facts" in window.summary.toPlainText()
    assert "problems" in window.statusBar().currentMessage()
