"""The window's first-run and error states (issue 16), driven in a real MainWindow.

Variants thought of: an empty vault shows the empty state (Create entity, Create agent,
Open the demo vault), a vault with content shows how to find things; Create agent makes
`agents/<id>/` with its PARA workspace, TACIT.md and CONTEXT.md exactly as `vault-app agent
create` does, and refuses a taken or malformed id in the dialog; the demo vault opens in
a new window; one unreadable file is one bar ("1 file could not be read", Open), taken
back when the entity page shows the file's own banner; Unarchive is in the Edit menu.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import layout, vault
from vault_app.ui import app
from vault_app.ui.dialogs import new_items as dialogs
from vault_app.ui.window import vault_states as states


def open_window(qtbot: QtBot, v: vault.Vault, store: QtCore.QSettings) -> app.MainWindow:
    window = app.MainWindow(v, store, search=False, live=False)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: window.session.scan is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window._first_scan, timeout=20_000)
    return window


@pytest.fixture
def empty(qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    window = open_window(qtbot, vault.Vault.create(tmp_path / "v", actor="gui"), store)
    yield window
    window.session.wait()


def test_an_empty_vault_offers_what_to_do_first(empty: app.MainWindow) -> None:
    page = empty.welcome
    assert empty.pages.currentWidget() is page
    assert "This vault is empty" in page.text()
    assert page.buttons.isVisible()
    titles = [b.text() for b in (page.entity_button, page.agent_button, page.demo_button)]
    assert titles == ["Create e&ntity…", "Create &agent…", "Open the &demo vault"]
    assert not empty.message_bar.isVisible()


def test_create_agent_makes_its_workspace_as_the_cli_does(
    qtbot: QtBot, empty: app.MainWindow
) -> None:
    empty.welcome.agent_button.click()
    dialog = empty.findChild(dialogs.NewAgentDialog)
    assert dialog is not None and dialog.isVisible()
    ok = dialog.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
    dialog.name.setText("../x")
    assert not ok.isEnabled() and "invalid agent id" in dialog.problem.text()
    dialog.name.setText("finance")
    assert ok.isEnabled()
    ok.click()
    root = empty.session.vault.root
    qtbot.waitUntil(lambda: (root / "agents/finance/CONTEXT.md").is_file(), timeout=10_000)
    folder = root / "agents/finance"
    for category in layout.PARA_CATEGORIES:
        assert (folder / "workspace" / category).is_dir()
    assert (folder / "daily").is_dir() and (folder / "TACIT.md").is_file()
    qtbot.waitUntil(lambda: "finance" in (empty.session.scan.agents if empty.session.scan else []))
    assert "New a&gent…" in [a.text() for a in empty.menuBar().actions()[1].menu().actions()]

    empty.commands["new_agent"].trigger()  # a taken id is refused in the dialog
    again = [d for d in empty.findChildren(dialogs.NewAgentDialog) if d.isVisible()][-1]
    again.name.setText("Finance")
    assert "already exists" in again.problem.text()
    again.reject()


def test_open_the_demo_vault(qtbot: QtBot, empty: app.MainWindow, tmp_path: Path) -> None:
    opened: list[app.MainWindow] = []
    empty.vaultSwitched.connect(opened.append)
    states.open_demo(empty, tmp_path / "demo-here")
    assert opened, "no window opened on the demo vault"
    window = opened[0]
    qtbot.addWidget(window)
    assert window.session.vault.root == (tmp_path / "demo-here").resolve()
    qtbot.waitUntil(lambda: window.session.scan is not None, timeout=30_000)
    assert len(window.session.scan.entities) == 54
    window.session.wait()
    window.close()


def test_one_unreadable_file_is_one_bar(
    qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings
) -> None:
    v = vault.Vault.create(tmp_path / "v", actor="gui")
    v.create_entity("projects/roof", "The roof.")
    v.add_fact("projects/roof", "The roof leaks", "status")
    (v.paths.life_dir / "projects/roof/items.json").write_text("[{")
    window = open_window(qtbot, v, store)
    bar = window.message_bar
    assert bar.isVisible() and bar.title.text() == "1 file could not be read"
    assert bar.action.text() == "Open" and "Select an entity" in window.welcome.text()
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        bar.action.click()  # Open: the entity page shows the file's banner, with its fixes
    banner = window.entity_view.banner
    assert banner.isVisible() and banner.restore_button.isVisible()
    assert not bar.isVisible()  # one bar, not two
    assert window.entity_view.address == "projects/roof"
    window.session.wait()


def test_unarchive_is_in_the_edit_menu(
    qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings
) -> None:
    v = vault.Vault.create(tmp_path / "v", actor="gui")
    v.create_entity("areas/people/bob")
    v.archive_entity("areas/people/bob")
    window = open_window(qtbot, v, store)
    command = window.commands["unarchive"]
    assert command.shortcut().toString() == "Ctrl+Shift+U"
    assert not command.isEnabled()  # nothing archived is shown
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        window.open_entity("archives/people/bob")
    window.commands.refresh()
    assert command.isEnabled()
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        command.trigger()
    assert window.entity_view.address == "areas/people/bob"
    window.session.wait()
