"""The main window end to end: open the demo vault, search, open a hit, edit, undo."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.ui import app, main_window
from vault_app.ui.window import recent_vaults


def test_qt_bindings_keep_none_alive(qtbot: QtBot) -> None:
    """PySide6 6.12.0 on Python 3.11 dropped a reference to None on every void call, so a
    long session aborted (`none_dealloc`); pyproject excludes it, this proves it."""
    application = QtCore.QCoreApplication.instance()
    assert application is not None
    before = sys.getrefcount(None)
    for _ in range(2000):
        application.processEvents()
    assert sys.getrefcount(None) - before > -100


@pytest.fixture
def demo_vault(tmp_path: Path) -> vault.Vault:
    root = tmp_path / "demo"
    demo.create_demo(root)
    return vault.Vault(root, actor="gui")


@pytest.fixture
def window(
    qtbot: QtBot, demo_vault: vault.Vault, store: QtCore.QSettings
) -> Iterator[app.MainWindow]:
    main = app.MainWindow(demo_vault, store, search=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: bool(main.sidebar_model.addresses()), timeout=20_000)
    yield main
    main.session.wait()


def items(v: vault.Vault, address: str) -> dict[str, dict[str, object]]:
    view = v.entity(address)
    return {e["id"]: e for e in json.loads(view.facts_path.read_bytes())}


def test_window_opens_on_the_vault_and_shows_an_entity(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    assert "54 entities" in window.counts_label.text()
    # the listing comes first ("54 entities · counting facts…"), the scan's counts after
    qtbot.waitUntil(lambda: "active fact" in window.counts_label.text(), timeout=20_000)
    # the figures add up: hot + warm + cold = active, and the superseded are named
    scan = window.session.scan
    assert scan is not None
    totals = scan.tier_totals()
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", window.counts_label.text())]
    assert numbers[1] == totals["hot"] + totals["warm"] + totals["cold"] == sum(numbers[2:5])
    assert numbers[5] == totals["superseded"] > 0
    assert numbers[1] + numbers[5] == scan.fact_count
    assert (
        "areas/people/jordan-lee" in window.sidebar_model.addresses()
        or len(window.sidebar_model.addresses()) == 54
    )
    address = window.sidebar_model.addresses()[0]
    window.sidebar.setCurrentIndex(window.sidebar_model.index_for_address(address))
    qtbot.waitUntil(lambda: window.entity_view.address == address, timeout=10_000)
    assert window.pages.currentWidget() is window.entity_view


def test_search_open_hit_supersede_keeps_both_facts_with_lineage(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    window.session.open_search(semantic=False)
    qtbot.waitUntil(lambda: window.session.engine is not None, timeout=60_000)
    window.search_action.trigger()
    assert window.search_dock.isVisible()
    window.search.query_edit.setText("plumber")
    results = window.search.results.model()
    qtbot.waitUntil(lambda: results.rowCount() > 0, timeout=20_000)
    row = next(r for r in range(results.rowCount()) if results.hit(r).fact_id)
    hit = results.hit(row)
    assert hit.fact_id and "lumber" in hit.text.lower()
    window.search.results.setCurrentIndex(results.index(row))
    window.search.open_index(window.search.results.currentIndex())
    qtbot.waitUntil(lambda: window.entity_view.selected_fact_id() == hit.fact_id, timeout=10_000)
    assert window.pages.currentWidget() is window.entity_view

    dialog = window.entity_view.supersede_selected()
    assert dialog is not None
    dialog.text_edit.setPlainText(hit.text + " (now retired)")
    dialog.submit()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    window.session.wait()
    address = window.entity_view.address
    assert address is not None
    on_disk = items(window.session.vault, address)
    old = on_disk[hit.fact_id]
    assert old["status"] == "superseded"
    new = on_disk[str(old["supersededBy"])]
    assert new["fact"] == hit.text + " (now retired)" and new["status"] == "active"

    window.undo_action.trigger()  # undo: the old fact is active again, nothing deleted
    window.session.wait()
    on_disk = items(window.session.vault, address)
    assert on_disk[hit.fact_id]["status"] == "active"
    assert str(old["supersededBy"]) in on_disk


def test_a_corrupt_file_is_reported_and_the_rest_stays_usable(
    qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings
) -> None:
    v = vault.Vault.create(tmp_path / "v", actor="gui")
    v.create_entity("areas/people/jane", "Jane is the family plumber.")
    v.add_fact("areas/people/jane", "Jane fixed the kitchen leak", "milestone")
    broken = v.paths.life_dir / "projects/roof"
    broken.mkdir(parents=True)
    (broken / "items.json").write_text("[{")
    main = app.MainWindow(v, store, search=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: main.message_bar.isVisible(), timeout=10_000)
    assert "could not be read" in main.message_bar.title.text()
    assert "doctor --repair" in main.message_bar.text.text()
    main.open_entity("areas/people/jane")
    qtbot.waitUntil(lambda: main.entity_view.address == "areas/people/jane", timeout=10_000)
    main.session.wait()
    assert (broken / "items.json").read_text() == "[{"


def test_quick_switcher_jumps_to_an_entity(qtbot: QtBot, window: app.MainWindow) -> None:
    window.switcher_action.trigger()
    dialog = window.findChild(QtWidgets.QDialog, "quickSwitcher")
    assert dialog is not None and dialog.isVisible()
    target = window.sidebar_model.addresses()[-1]
    dialog.query_edit.setText(target)
    qtbot.keyClick(dialog.query_edit, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.entity_view.address == target, timeout=10_000)


def test_geometry_and_recent_vaults_are_remembered(
    qtbot: QtBot, window: app.MainWindow, store: QtCore.QSettings
) -> None:
    window.resize(760, 520)  # the offscreen screen is 800 wide
    size = window.size()  # as the (small) offscreen screen allows
    root = str(window.session.vault.root)
    window.close()
    assert store.value(main_window.LAST_KEY) == root
    assert store.value("window/geometry") is not None
    again = app.MainWindow(vault.Vault(root), store, search=False)
    qtbot.addWidget(again)
    # restored, except that Qt keeps a restored window inside the (800 px) offscreen screen
    assert again.height() == size.height()
    screen = again.screen().availableGeometry().width()
    assert min(size.width(), screen) - 10 <= again.width() <= size.width()
    assert recent_vaults.recent(store)[0] == root


def test_every_action_has_a_label_and_the_main_ones_have_shortcuts(
    window: app.MainWindow,
) -> None:
    menus = [a.menu() for a in window.menuBar().actions()]
    assert [m.title() for m in menus] == ["&File", "&Edit", "&Go", "&View", "&Help"]
    for menu in menus:
        for action in menu.actions():
            assert action.isSeparator() or action.text().strip(), f"unlabelled in {menu.title()}"
    for action in (window.switcher_action, window.search_action, window.dashboard_action):
        assert not action.shortcut().isEmpty()


def test_new_entity_and_new_vault_dialogs_validate_before_creating(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from vault_app.ui.dialogs import new_items as dialogs

    entity = dialogs.NewEntityDialog(["finance"])
    qtbot.addWidget(entity)
    create = entity.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
    assert not create.isEnabled() and "name" in entity.problem.text()
    entity.scope.setCurrentIndex(entity.scope.findData("finance"))
    entity.path.setText("people/jane")
    assert create.isEnabled() and entity.address() == "agent:finance:areas/people/jane"
    entity.path.setText("../escape")
    assert not create.isEnabled() and ".." in entity.problem.text()

    folder = dialogs.NewVaultDialog()
    qtbot.addWidget(folder)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file.txt").write_text("x")
    folder.folder.setText(str(tmp_path / "taken"))
    assert "not an empty folder" in folder.problem.text()
    folder.folder.setText(str(tmp_path / "new"))
    assert folder.problem.text() == ""


def test_the_shown_entity_follows_the_watchers_moves_and_offers_to_restore_a_deletion(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    """The window takes the watcher's word (relayed by live sync): a move is followed at
    once, a removal is a deletion; no guessing from what else changed meanwhile."""
    rosa, elsewhere = "areas/people/rosa-mendes", "archives/people/rosa-mendes"
    window.open_entity(rosa)
    qtbot.waitUntil(lambda: window.entity_view.address == rosa, timeout=10_000)
    window.session.entityRemoved.emit("areas/people/someone-else")  # not shown: no message
    assert not window.message_bar.isVisible()

    moved = vault.Vault(window.session.vault.root).archive_entity(rosa)
    assert str(moved) == elsewhere
    window.session.entityMoved.emit(rosa, elsewhere)
    assert window.entity_view.address == elsewhere
    assert window.message_bar.title.text() == "Moved outside the app"

    window.session.entityRemoved.emit(elsewhere)
    assert window.message_bar.title.text() == "Deleted outside the app"
    assert window.message_bar.action.text() == "Restore"
