"""The recent vaults, kept in QSettings: the last one opened (reopened at start) and the
few before it (File › Open recent)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

RECENT_KEY = "vaults/recent"
LAST_KEY = "vaults/last"
MAX_RECENT = 8


def recent(store: QtCore.QSettings) -> list[str]:
    """The recent vaults' paths, the last opened first."""
    value = store.value(RECENT_KEY, [])
    if isinstance(value, str):  # QSettings hands a one-item list back as its item
        value = [value]
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def remember(store: QtCore.QSettings, root: Path) -> None:
    """`root` is the last vault opened, first of the recent ones."""
    paths = [str(root), *(p for p in recent(store) if p != str(root))][:MAX_RECENT]
    store.setValue(RECENT_KEY, paths)
    store.setValue(LAST_KEY, str(root))


def fill_menu(
    menu: QtWidgets.QMenu, store: QtCore.QSettings, open_vault: Callable[[Path], Any]
) -> None:
    """The Open recent menu: one item per recent vault (disabled when its folder is gone)."""
    menu.clear()
    for path in recent(store):
        action = menu.addAction(path)
        action.setEnabled(Path(path).is_dir())
        action.triggered.connect(lambda _=False, p=path: open_vault(Path(p)))
    if menu.isEmpty():
        menu.addAction("(none)").setEnabled(False)
