"""The command palette (Ctrl+Shift+P) and the keyboard-shortcuts sheet (Help).

Both are made, each time they open, from the window's menus (`walk`): every command
any part of the window added is there, with its menu path and its shortcut, and nothing
is written twice. The palette matches what is typed with the quick switcher's fuzzy
matching (`switcher.fuzzy_match`) against the command's text and its menu path; Up/Down
choose, Enter runs the command chosen (after the palette closes, so a dialog the command
opens is not under it), Escape closes. A disabled command is listed greyed with "not
available here" and cannot be run; a toggle that is on (the theme in use, the sidebar
shown) carries a ✓, so running it again is seen to change nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui.dialogs import switcher

Qt = QtCore.Qt
ACTION_ROLE = Qt.ItemDataRole.UserRole + 1
NATIVE = QtGui.QKeySequence.SequenceFormat.NativeText


def plain(text: str) -> str:
    """A menu text without its mnemonic marks and trailing ellipsis: "&Save…" -> "Save"."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def keys_text(action: QtGui.QAction) -> str:
    """Every shortcut of `action`, as the platform writes them ("Ctrl+Z, Ctrl+Y")."""
    return ", ".join(k.toString(NATIVE) for k in action.shortcuts() if not k.isEmpty())


def walk(bar: QtWidgets.QMenuBar) -> Iterator[tuple[str, QtGui.QAction]]:
    """Every command of the menus, depth first, with its menu path ("View › Theme")."""

    def visit(menu: QtWidgets.QMenu, path: str) -> Iterator[tuple[str, QtGui.QAction]]:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QtWidgets.QMenu):
                yield from visit(sub, f"{path} › {plain(sub.title())}")
            elif not action.isSeparator() and action.text().strip():
                yield path, action

    for top in bar.actions():
        menu = top.menu()
        if isinstance(menu, QtWidgets.QMenu):
            yield from visit(menu, plain(menu.title()))


@dataclass(frozen=True)
class Entry:
    """One command as the palette and the sheet show it."""

    action: QtGui.QAction
    text: str  # without mnemonics: "Add fact"
    path: str  # its menu: "Edit", "View › Theme"
    keys: str  # "Ctrl+N", "" without one


def entries(window: QtWidgets.QMainWindow) -> list[Entry]:
    """Every command of the window's menus, in menu order (each action once)."""
    seen: set[int] = set()
    found = []
    for path, action in walk(window.menuBar()):
        if id(action) in seen:
            continue
        seen.add(id(action))
        found.append(Entry(action, plain(action.text()), path, keys_text(action)))
    return found


def rank(query: str, items: list[Entry]) -> list[Entry]:
    """The entries matching `query`, best first; all in menu order without a query."""
    if not query.strip():
        return list(items)
    scored = []
    for order, entry in enumerate(items):
        text = switcher.fuzzy_match(query, entry.text)
        where = switcher.fuzzy_match(query, f"{entry.path} {entry.text}")
        scores = [m[0] for m in (text, where) if m is not None]
        if scores:
            scored.append((-max(scores), not entry.action.isEnabled(), order, entry))
    scored.sort(key=lambda row: row[:3])
    return [row[3] for row in scored]


class CommandPalette(QtWidgets.QDialog):
    """Type part of a command's name, Enter runs it (see the module docstring)."""

    def __init__(self, window: QtWidgets.QMainWindow) -> None:
        super().__init__(window, Qt.WindowType.Dialog | Qt.WindowType.FramelessWindowHint)
        self.window_ = window
        self.came_from = QtWidgets.QApplication.focusWidget()  # given the focus back on close
        self.setObjectName("commandPalette")
        self.setWindowTitle("Run a command")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.entries = entries(window)
        self.query_edit = QtWidgets.QLineEdit()
        self.query_edit.setPlaceholderText("Run a command…")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setAccessibleName("Command")
        self.list = QtWidgets.QTreeWidget()
        self.list.setColumnCount(3)
        self.list.setHeaderHidden(True)
        self.list.setRootIsDecorated(False)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setAccessibleName("Commands")
        self.list.setUniformRowHeights(True)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.hint = QtWidgets.QLabel()
        self.hint.setProperty("notice", True)
        frame = QtWidgets.QFrame()
        frame.setObjectName("paletteFrame")
        colours = self.palette()
        Role = QtGui.QPalette.ColorRole
        frame.setStyleSheet(  # a frameless popup: a thin border in the theme's colours
            f"QFrame#paletteFrame {{ border: 1px solid {colours.color(Role.Mid).name()};"
            f" border-radius: 6px; background: {colours.color(Role.Window).name()}; }}"
        )
        inner = QtWidgets.QVBoxLayout(frame)
        inner.setContentsMargins(8, 8, 8, 6)
        inner.addWidget(self.query_edit)
        inner.addWidget(self.list, 1)
        inner.addWidget(self.hint)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)
        width = min(640, max(360, window.width() - 40))
        self.resize(width, min(440, max(240, window.height() - 120)))
        self.move(window.mapToGlobal(QtCore.QPoint((window.width() - width) // 2, 48)))

        self.query_edit.textChanged.connect(self._refilter)
        self.query_edit.returnPressed.connect(self.run_current)
        self.query_edit.installEventFilter(self)
        self.list.itemClicked.connect(lambda item, _column: self._run(item))
        self._refilter()
        self.query_edit.setFocus(Qt.FocusReason.PopupFocusReason)

    def done(self, result: int) -> None:
        """Close, and give the window back its activation and the focus where it was: a
        frameless popup leaves neither behind it on every platform (offscreen, Xvfb
        without a window manager), and the next key would go nowhere."""
        super().done(result)
        self.window_.activateWindow()
        came_from = self.came_from
        if came_from is not None and shiboken6.isValid(came_from) and came_from.isVisible():
            came_from.setFocus(Qt.FocusReason.PopupFocusReason)

    def shown(self) -> list[Entry]:
        """The entries listed now, in order."""
        items = (self.list.topLevelItem(row) for row in range(self.list.topLevelItemCount()))
        return [item.data(0, ACTION_ROLE) for item in items if item is not None]

    def run_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._run(item)

    def _run(self, item: QtWidgets.QTreeWidgetItem) -> None:
        entry: Entry = item.data(0, ACTION_ROLE)
        if not entry.action.isEnabled():
            self.hint.setText(f"“{entry.text}” is not available here")
            return
        self.accept()
        QtCore.QTimer.singleShot(0, entry.action.trigger)  # once the palette is gone

    def _refilter(self) -> None:
        self.list.clear()
        matches = rank(self.query_edit.text(), self.entries)
        for entry in matches:
            on = entry.action.isCheckable() and entry.action.isChecked()  # the theme in use
            shown = f"{entry.text}  ✓" if on else entry.text
            item = QtWidgets.QTreeWidgetItem([shown, entry.path, entry.keys])
            item.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{entry.text}, on" if on else None)
            item.setData(0, ACTION_ROLE, entry)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setForeground(1, self.palette().brush(QtGui.QPalette.ColorRole.PlaceholderText))
            tip = entry.action.toolTip()
            item.setToolTip(0, tip if entry.action.isEnabled() else f"{tip} (not available here)")
            if not entry.action.isEnabled():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.list.addTopLevelItem(item)
        runnable = [row for row, e in enumerate(matches) if e.action.isEnabled()]
        first = self.list.topLevelItem(runnable[0]) if runnable else None
        if first is not None:
            self.list.setCurrentItem(first)
        self.hint.setText(
            f"{len(matches)} of {len(self.entries)} commands · Enter runs · Esc closes"
            if matches
            else "No command matches"
        )

    def _move(self, step: int) -> None:
        count = self.list.topLevelItemCount()
        items = [it for it in map(self.list.topLevelItem, range(count)) if it is not None]
        rows = [r for r, it in enumerate(items) if it.flags() & Qt.ItemFlag.ItemIsEnabled]
        current = self.list.currentItem()
        at = self.list.indexOfTopLevelItem(current) if current is not None else -1
        later = [r for r in rows if (r > at if step > 0 else r < at)]
        if later:
            self.list.setCurrentItem(items[later[0] if step > 0 else later[-1]])

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.query_edit and event.type() == QtCore.QEvent.Type.KeyPress:
            assert isinstance(event, QtGui.QKeyEvent)
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self._move(1 if event.key() == Qt.Key.Key_Down else -1)
                return True
        return super().eventFilter(watched, event)


class ShortcutsSheet(QtWidgets.QDialog):
    """Every command with a key, by menu: made from the actions, never written by hand."""

    def __init__(self, window: QtWidgets.QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        self.setObjectName("shortcutsSheet")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.table = QtWidgets.QTreeWidget()
        self.table.setColumnCount(2)
        self.table.setHeaderLabels(["Command", "Keys"])
        self.table.setRootIsDecorated(False)
        self.table.setAccessibleName("Keyboard shortcuts")
        for menu, rows in self.by_menu(window).items():
            head = QtWidgets.QTreeWidgetItem([menu, ""])
            font = head.font(0)
            font.setBold(True)
            head.setFont(0, font)
            head.setFirstColumnSpanned(False)
            self.table.addTopLevelItem(head)
            for text, keys in rows:
                self.table.addTopLevelItem(QtWidgets.QTreeWidgetItem([f"    {text}", keys]))
        self.table.resizeColumnToContents(0)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        box = QtWidgets.QVBoxLayout(self)
        box.addWidget(self.table, 1)
        box.addWidget(buttons)
        self.resize(520, min(620, max(300, window.height() - 80)))

    @staticmethod
    def by_menu(window: QtWidgets.QMainWindow) -> dict[str, list[tuple[str, str]]]:
        """The commands with a shortcut, grouped by menu path, in menu order."""
        groups: dict[str, list[tuple[str, str]]] = {}
        for entry in entries(window):
            if entry.keys:
                groups.setdefault(entry.path, []).append((entry.text, entry.keys))
        return groups
