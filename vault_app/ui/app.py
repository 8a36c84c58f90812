"""The composition root of the desktop app: the QApplication, the settings, the vault and
the first `main_window.MainWindow` (`run`), and the files shipped with the package."""

from __future__ import annotations

import importlib.resources
import sys
from importlib.resources.abc import Traversable
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import errors, memory, vault
from vault_app.ui import quit_signals, settings
from vault_app.ui.main_window import APPLICATION, ORGANIZATION, MainWindow

__all__ = ["MainWindow", "app_icon", "open_or_create_demo", "resource", "run", "tune_process"]


def resource(name: str) -> Traversable:
    """A file shipped with the package (`vault_app/resources/NAME`, package data: in a
    checkout and in an installed wheel alike)."""
    return importlib.resources.files("vault_app").joinpath("resources", *name.split("/"))


def app_icon() -> QtGui.QIcon:
    """The application's icon (scalable from the SVG file; empty if it is missing)."""
    icon = resource("icons/vault-app.svg")
    if not icon.is_file():
        return QtGui.QIcon()
    if isinstance(icon, Path):  # an ordinary install: Qt renders the SVG at every size
        return QtGui.QIcon(str(icon))
    pixmap = QtGui.QPixmap()  # inside a zip: no path Qt could open later
    pixmap.loadFromData(icon.read_bytes(), "SVG")
    return QtGui.QIcon(pixmap)


def open_or_create_demo(path: Path | None, demo: bool) -> Path:
    """The vault to open: the given one, else the demo vault (created on first use), as
    the command line does (`demo.ensure_demo_vault`)."""
    if path is not None and not demo:
        return path
    from vault_app.core import demo as demo_content

    return demo_content.ensure_demo_vault()[0]


def tune_process() -> None:
    """The app owns its process: the process-wide tunings the library leaves alone.

    Bulk loads pause the garbage collector and freeze their long-lived results
    (`core.memory`); workers hand the interpreter over every 1 ms instead of 5 ms, so
    the GUI thread never waits long for it while a scan or an index load runs. (Live
    sync silences watchdog's benign double-watch warning when it starts: `live`.)"""
    memory.tune_process()
    sys.setswitchinterval(min(sys.getswitchinterval(), 0.001))


def run(path: Path | None, *, demo: bool = False) -> int:
    tune_process()  # the composition root: once, before anything is loaded
    QtCore.QCoreApplication.setOrganizationName(ORGANIZATION)
    QtCore.QCoreApplication.setApplicationName(APPLICATION)
    existing = QtWidgets.QApplication.instance()
    app = (
        existing
        if isinstance(existing, QtWidgets.QApplication)
        else QtWidgets.QApplication(sys.argv)
    )
    app.setWindowIcon(app_icon())
    store = QtCore.QSettings(ORGANIZATION, APPLICATION)
    settings.AppSettings.load(store).apply(None, app)
    try:
        target = vault.Vault(open_or_create_demo(path, demo), actor="gui")
    except errors.VaultError as exc:
        QtWidgets.QMessageBox.critical(None, "vault-app", f"Cannot open the vault:\n{exc}")
        return 1
    windows: list[MainWindow] = []

    def keep(window: MainWindow) -> None:  # a switched-to window must outlive its opener
        windows.append(window)
        window.vaultSwitched.connect(keep)

    window = MainWindow(target, store, heartbeat=True)  # runs the schedule if nothing else does
    settings.AppSettings.load(store).apply(window.session, app)
    keep(window)
    window.show()
    QtCore.QTimer.singleShot(0, window.start)
    with quit_signals.quit_on_signals(app):  # SIGTERM, Ctrl+C: the windows close, exit 0
        return app.exec()
