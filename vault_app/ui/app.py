"""The composition root of the desktop app: the QApplication, the settings, the folder
opened and its first window (`run`), and the files shipped with the package.

`window_for` is the one place that decides which window a folder opens in: a PARA vault
opens in `main_window.MainWindow`; a neighbour's memory folder (a Hermes home, a PicoClaw
workspace, a MicroClaw runtime: `core.neighbours`) in `neighbour_window.NeighbourWindow`,
which shows only what that format holds. File › Open goes through it too."""

from __future__ import annotations

import importlib.resources
import sys
from importlib.resources.abc import Traversable
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import errors, neighbours, process_tuning, vault
from vault_app.ui import session
from vault_app.ui.dialogs import settings
from vault_app.ui.main_window import APPLICATION, ORGANIZATION, MainWindow
from vault_app.ui.pages import neighbour_window
from vault_app.ui.pages.neighbour_window import NeighbourWindow
from vault_app.ui.window import quit_signals

__all__ = [
    "MainWindow",
    "NeighbourWindow",
    "app_icon",
    "open_or_create_demo",
    "resource",
    "run",
    "tune_process",
    "window_for",
]
AnyWindow = MainWindow | NeighbourWindow


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
    (`core.process_tuning`); workers hand the interpreter over every 1 ms instead of 5 ms, so
    the GUI thread never waits long for it while a scan or an index load runs. (Live
    sync silences watchdog's benign double-watch warning when it starts: `live`.)"""
    process_tuning.tune_process()
    sys.setswitchinterval(min(sys.getswitchinterval(), 0.001))


def window_for(
    path: Path,
    store: QtCore.QSettings,
    *,
    search: bool = True,
    heartbeat: bool = False,
    live: bool = True,
) -> AnyWindow:
    """The window for the folder at `path`, by its format (`errors.VaultError`: a folder
    of no known format, or of two): a neighbour's folder opens as it is, in its owner's
    format; anything else is a PARA vault (an empty folder becomes one, as always)."""
    folder = neighbours.open_folder(path, actor="gui")
    if folder is not None:
        # its search engine over the folder's entries (`search.sources`), when searching
        return neighbour_window.NeighbourWindow(
            folder, store, live=live, search=search, semantic=search
        )
    target = vault.Vault(path, actor="gui")
    return MainWindow(target, store, search=search, live=live, heartbeat=heartbeat)


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
    try:  # a vault runs the heartbeat's schedule if nothing else does
        here = settings.AppSettings.load(store).run_heartbeat  # per device (docs/sync.md)
        window = window_for(open_or_create_demo(path, demo), store, heartbeat=here)
    except errors.VaultError as exc:
        QtWidgets.QMessageBox.critical(None, "vault-app", f"Cannot open the vault:\n{exc}")
        return 1
    windows: list[AnyWindow] = []

    def keep(window: AnyWindow) -> None:  # a switched-to window must outlive its opener
        windows.append(window)
        window.vaultSwitched.connect(keep)

    opened = window.session if isinstance(window.session, session.Session) else None
    settings.AppSettings.load(store).apply(opened, app)
    keep(window)
    window.show()
    QtCore.QTimer.singleShot(0, window.start)
    with quit_signals.quit_on_signals(app):  # SIGTERM, Ctrl+C: the windows close, exit 0
        return app.exec()
