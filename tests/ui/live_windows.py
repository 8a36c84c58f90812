"""The main window as the live-sync and soak tests open it."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import app


def open_live_window(
    qtbot: QtBot, home: vault.Vault, tmp_path: Path, *, timeout: int = 30_000
) -> app.MainWindow:
    """The main window on `home`, shown and started, once live sync watches and BM25
    search answers (settings in tmp_path)."""
    store = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    main = app.MainWindow(home, store, search=True, semantic=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    assert main.live is not None
    qtbot.waitUntil(lambda: main.live_label.text() == "live", timeout=timeout)
    qtbot.waitUntil(lambda: main.session.engine is not None, timeout=60_000)
    return main
