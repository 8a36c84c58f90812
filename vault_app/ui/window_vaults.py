"""Opening, creating and switching vaults, the settings dialog, the theme and About: the
File and Help menus' window-level commands (`menus.add_window_commands` calls them).

Switching vaults opens a fresh window of the same class on the new vault (with the same
search and heartbeat choices), then closes this one after asking about unsaved edits.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtWidgets

from vault_app.core import errors, layout, vault
from vault_app.ui import dialogs, settings

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow


def choose_vault(window: MainWindow) -> None:
    chosen = QtWidgets.QFileDialog.getExistingDirectory(window, "Open a vault")
    if chosen:
        window.switch_vault(Path(chosen))


def new_vault(window: MainWindow) -> None:
    dialog = dialogs.NewVaultDialog(window)
    if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
        return
    path = dialog.path()
    try:
        if dialog.demo.isChecked():
            from vault_app.core import demo

            path.mkdir(parents=True, exist_ok=True)
            demo.create_demo(path)
        else:
            vault.Vault.create(path)
    except (errors.VaultError, OSError) as exc:
        window.session.report(exc)
        return
    window.switch_vault(path)


def switch_vault(window: MainWindow, path: Path) -> MainWindow | None:
    root = layout.find_vault(path) or path
    if not layout.is_vault(root):
        window.message_bar.show_message(
            "Not a vault", f"{path} holds no global/life folder. Use File › New vault."
        )
        return None
    if not window._confirm_discard():
        return None
    try:
        target = vault.Vault(root, actor="gui")
    except errors.VaultError as exc:
        window.session.report(exc)
        return None
    fresh = type(window)(
        target,
        window.store,
        search=window._search_enabled,
        heartbeat=window.heartbeat is not None,
    )
    settings.AppSettings.load(window.store).apply(fresh.session, None)
    fresh.show()
    fresh.start()
    window.vaultSwitched.emit(fresh)
    window._discard_ok = True
    window.close()
    return fresh


def open_settings(window: MainWindow) -> None:
    dialog = settings.SettingsDialog(window.session, window.store, window)
    dialog.applied.connect(window.session.rescan)
    dialog.applied.connect(window.dashboard.update_schedule)
    dialog.open()


def set_theme(window: MainWindow, name: str) -> None:
    app_settings = settings.AppSettings.load(window.store)
    app_settings.theme = name
    app_settings.save(window.store)
    app = QtWidgets.QApplication.instance()
    app_settings.apply(window.session, app if isinstance(app, QtWidgets.QApplication) else None)


def about(window: MainWindow) -> None:
    QtWidgets.QMessageBox.about(
        window,
        "About vault-app",
        "<b>vault-app</b><br>See, search and curate what AI agents remember.<br><br>"
        f"Vault: {window.session.vault.root}",
    )
