"""A main window on the demo vault for the window's own tests (commands, palette,
navigation, sizes): shown at a given size, its first scan done; and for the pages' own
tests, a session with its first scan done and an entity page shown."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import app, session
from vault_app.ui.pages import entity_page

JANE = "areas/people/marcus-bell"
PLUMBER = "areas/companies/bell-and-sons-plumbing"


def open_window(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, size: tuple[int, int] = (1280, 720)
) -> app.MainWindow:
    main = app.MainWindow(vault.Vault(root, actor="gui"), store, search=False, live=False)
    qtbot.addWidget(main)
    main.resize(*size)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: bool(main.sidebar_model.addresses()), timeout=20_000)
    qtbot.waitUntil(lambda: main.session.scan is not None, timeout=20_000)
    main.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is main, timeout=5_000)
    return main


def show_entity(qtbot: QtBot, window: app.MainWindow, address: str = JANE) -> None:
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        window.open_entity(address)


def select_active_fact(window: app.MainWindow) -> str:
    """Select the shown entity's first active fact; its id."""
    fact = next(f for f in window.entity_view.model.facts() if f.is_active)
    assert window.entity_view.select_fact(fact.id)
    return fact.id


@contextlib.contextmanager
def scanned(qtbot: QtBot, v: vault.Vault) -> Iterator[session.Session]:
    """A session on `v` once its first scan has arrived; closed after."""
    live = session.Session(v)
    live.rescan()
    qtbot.waitUntil(lambda: live.scan is not None)
    try:
        yield live
    finally:
        live.close()


def shown_page(qtbot: QtBot, s: session.Session, height: int = 700) -> entity_page.EntityPage:
    """An entity page on `s`, 1000 px wide, shown."""
    widget = entity_page.EntityPage(s)
    qtbot.addWidget(widget)
    widget.resize(1000, height)
    widget.show()
    return widget
