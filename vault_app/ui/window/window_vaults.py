"""Opening, creating and switching vaults, the settings dialog, the theme and About: the
File and Help menus' window-level commands (`menu_tables.add_window_commands` calls them).

Switching vaults opens a fresh window on the folder chosen — the composition root says
which kind (`app.window_for`: a PARA vault's, or a neighbour's folder's), with the same
search and heartbeat choices — then closes this one after asking about unsaved edits.
The neighbour's window (`neighbour_window`) uses Open, the theme and About from here too,
and both windows their first size (`first_size`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from PySide6 import QtGui, QtWidgets

from vault_app.core import errors, layout, neighbours, vault
from vault_app.ui import session
from vault_app.ui.dialogs import new_items as dialogs
from vault_app.ui.dialogs import settings

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow
    from vault_app.ui.pages.neighbour_window import NeighbourWindow

    AnyWindow: TypeAlias = MainWindow | NeighbourWindow


FIRST_SIZE = (1280, 800)  # a window's size on first run, when the screen has the room
FRAME = (16, 48)  # what a window manager's frame and title bar take around it, about


def first_size(window: QtWidgets.QMainWindow) -> None:
    """Size a window never opened before: `FIRST_SIZE`, within the screen's available area
    (its panels and docks aside) with room for the frame, so a 1280×720 screen shows all
    of it; a saved geometry restored afterwards wins."""
    screen = window.screen() or QtGui.QGuiApplication.primaryScreen()
    width, height = FIRST_SIZE
    if screen is not None:
        room = screen.availableGeometry()
        width = min(width, room.width() - FRAME[0])
        height = min(height, room.height() - FRAME[1])
    window.resize(max(width, 640), max(height, 480))


def choose_vault(window: AnyWindow) -> None:
    chosen = QtWidgets.QFileDialog.getExistingDirectory(
        window, "Open a vault, or a Hermes, PicoClaw or MicroClaw folder"
    )
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


def switch_vault(window: AnyWindow, path: Path) -> QtWidgets.QMainWindow | None:
    """A fresh window on the folder at `path` (this one closes); None if refused."""
    from vault_app.ui import app  # the composition root decides the window's kind

    try:
        kind = neighbours.format_of(path)
    except errors.VaultError as exc:  # none of the formats, or two at once
        window.message_bar.show_message("Cannot open that folder", str(exc))
        return None
    if kind == neighbours.detect.PARA:
        path = layout.find_vault(path) or path
        if not layout.is_vault(path):
            window.message_bar.show_message(
                "Not a vault", f"{path} holds no global/life folder. Use File › New vault."
            )
            return None
    if not window._confirm_discard():
        return None
    para = isinstance(window.session, session.Session)
    try:
        fresh = app.window_for(
            path,
            window.store,
            search=getattr(window, "_search_enabled", True),
            heartbeat=para
            and getattr(window, "heartbeat", None) is not None
            and settings.AppSettings.load(window.store).run_heartbeat,
        )
    except errors.VaultError as exc:
        window.message_bar.show_message("Cannot open that folder", str(exc))
        return None
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


def set_theme(window: AnyWindow, name: str) -> None:
    app_settings = settings.AppSettings.load(window.store)
    app_settings.theme = name
    app_settings.save(window.store)
    app = QtWidgets.QApplication.instance()
    opened = window.session if isinstance(window.session, session.Session) else None
    app_settings.apply(opened, app if isinstance(app, QtWidgets.QApplication) else None)


def about(window: AnyWindow) -> None:
    QtWidgets.QMessageBox.about(
        window,
        "About vault-app",
        "<b>vault-app</b><br>See, search and curate what AI agents remember.<br><br>"
        f"Vault: {window_root(window)}",
    )


def confirm_discard(window: AnyWindow, dirty: list[str]) -> bool:
    """True when the window may close: nothing unsaved (`dirty` names the panes holding
    edits), discarding was already agreed, or the user agrees to discard the edits now."""
    if not dirty or window._discard_ok:
        return True
    answer = QtWidgets.QMessageBox.question(
        window,
        "Unsaved changes",
        f"You have unsaved edits in {', '.join(dirty)}. Close without saving them?",
        QtWidgets.QMessageBox.StandardButton.Discard | QtWidgets.QMessageBox.StandardButton.Cancel,
    )
    return answer == QtWidgets.QMessageBox.StandardButton.Discard


def window_root(window: AnyWindow) -> Path:
    """The folder a window shows (a vault's root, or a neighbour's folder)."""
    opened = window.session
    return opened.vault.root if isinstance(opened, session.Session) else opened.folder.root
