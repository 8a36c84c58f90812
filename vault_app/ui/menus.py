"""The window's commands: every one a QAction in a menu (its shortcut shown there), in the
toolbar if asked, and so in the command palette and the keyboard-shortcuts sheet.

Design
------
Commands are declared as data, where they act: a `Command(name, text, menu, run, key,
tip, toolbar, fallback)` record each, in tables — `menu_tables.WINDOW` (a vault's window,
menu by menu, in the order they show), `menu_tables.NEIGHBOUR` (a neighbour's folder's
window), and the `COMMANDS` of the modules that add pages or marks to the window
(`links_window`, `vault_states`, `agent_activity`) beside the functions they run:

    Command("graph", "Grap&h view", "Go", show_graph, "Ctrl+Shift+G",
            "The selected entity's neighbourhood")

`Commands.declare(table)` makes each one a QAction named `name` (its objectName: unique,
found again with `commands["graph"]`) in `menu` ("File", "Edit", "Go", "View", "Help"; a
submenu as "View/Theme", made on first use), on the toolbar with `toolbar=True`;
`run(window)` runs it. The window itself holds the action, so its shortcut works
wherever the focus is in the window. A `Separator(menu)` draws a line; a `Made(make)`
entry is a command code must make (undo and redo from the undo stack, a dock's toggle,
the checkable theme group) in its place in the table. `Commands` owns the menu bar's top
menus (`MENUS`, in that order) and the main toolbar.

A command that acts on what the view shown holds (Edit fact, Archive, Filter, Save
document, Refresh...) is a `Command` without `run` (`add_view`).
The pages keep their own QAction or QShortcut for that key (so a page also works alone,
as in its tests), but `take_keys(page)` — run on every page the window shows — clears
the key on them and records them as the command's handlers: two shortcuts on one key
would be ambiguous to Qt, and neither would run. The window's action then routes the key
to one handler: the one holding the focus, else one visible on the page shown; with none,
`fallback` runs (if given). `refresh()` enables each view command exactly when it has
somewhere to go (run when the page or the focus changes, and when a handler's widget is
shown or hidden: a tab of a page).

The palette and the shortcuts sheet never keep a list of their own: `palette.walk(menu_bar)` lists
every action of the menus with its menu path, so commands added later by any part of the
window appear in both.

This module is the machinery (`Commands`, the records); `menu_tables` holds the windows'
tables and `add_window_commands` / `add_neighbour_commands`, which declare them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui.dialogs import palette

Shortcut = str | QtGui.QKeySequence | QtGui.QKeySequence.StandardKey | None
MENUS = ("File", "Edit", "Go", "View", "Help")
_MNEMONICS = {"File": "&File", "Edit": "&Edit", "Go": "&Go", "View": "&View", "Help": "&Help"}
Handler = QtGui.QAction | QtGui.QShortcut


class Commands(QtCore.QObject):
    """The window's menus, toolbar and named actions (see the module docstring)."""

    def __init__(self, window: QtWidgets.QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        bar = window.menuBar()
        self.menus: dict[str, QtWidgets.QMenu] = {}
        for name in MENUS:
            self.menus[name] = bar.addMenu(_MNEMONICS[name])
        self.toolbar = window.addToolBar("Main")
        self.toolbar.setObjectName("mainToolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._actions: dict[str, QtGui.QAction] = {}
        self._later = QtCore.QTimer(self)  # one refresh for a burst of shows and hides
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self.refresh)
        # view commands: their key, fallback, and (handler, owner) pairs taken from pages
        self._routes: dict[
            str,
            tuple[
                QtGui.QKeySequence,
                Callable[[], Any] | None,
                list[tuple[Handler, QtWidgets.QWidget]],
            ],
        ] = {}

    def __getitem__(self, name: str) -> QtGui.QAction:
        return self._actions[name]

    def __contains__(self, name: object) -> bool:
        return name in self._actions

    def menu(self, path: str) -> QtWidgets.QMenu:
        """The menu at `path` ("Go", "View/Theme"); submenus are made on first use."""
        top, *rest = path.split("/")
        menu = self.menus[top]
        for title in rest:
            found = next(
                (
                    a.menu()
                    for a in menu.actions()
                    if a.menu() and palette.plain(a.text()) == palette.plain(title)
                ),
                None,
            )
            menu = found if isinstance(found, QtWidgets.QMenu) else menu.addMenu(title)
        return menu

    def add(
        self,
        name: str,
        text: str,
        slot: Callable[..., Any],
        shortcut: Shortcut | list[Shortcut] = None,
        tip: str = "",
        menu: str = "Go",
        *,
        toolbar: bool = False,
    ) -> QtGui.QAction:
        """A window-wide command `name` in `menu` (see the module docstring)."""
        action = self._make(name, text, shortcut, tip)
        action.triggered.connect(lambda _checked=False: slot())
        self._place(action, menu, toolbar)
        return action

    def add_action(
        self, name: str, action: QtGui.QAction, menu: str, *, toolbar: bool = False
    ) -> QtGui.QAction:
        """Put an action made elsewhere (undo, a dock's toggle) in `menu` under `name`."""
        if name in self._actions:
            raise ValueError(f"two commands named {name!r}")
        action.setObjectName(name)
        self._actions[name] = action
        if action.parent() is self.window or action.parent() is None:
            self.window.addAction(action)
        self._place(action, menu, toolbar)
        return action

    def add_view(
        self,
        name: str,
        text: str,
        shortcut: Shortcut,
        tip: str,
        menu: str,
        fallback: Callable[[], Any] | None = None,
    ) -> QtGui.QAction:
        """A command routed to the view shown (see the module docstring)."""
        action = self._make(name, text, shortcut, tip)
        self._routes[name] = (action.shortcut(), fallback, [])
        action.triggered.connect(lambda _checked=False: self.route(name))
        self._place(action, menu, False)
        self._update(name)
        return action

    def take_keys(self, root: QtWidgets.QWidget | None) -> None:
        """Clear the view commands' keys on `root`'s actions and shortcuts; record them as
        the commands' handlers."""
        if root is None:
            return
        routes = {key.toString(): handlers for key, _fallback, handlers in self._routes.values()}
        actions = {*root.actions(), *root.findChildren(QtGui.QAction)}
        for action in actions:
            handlers = routes.get(action.shortcut().toString())
            owner = _owner(action)
            if handlers is not None and owner is not None and not action.shortcut().isEmpty():
                handlers.append((action, owner))
                action.setShortcuts([])
                action.changed.connect(self.refresh)
                owner.installEventFilter(self)
        for shortcut in root.findChildren(QtGui.QShortcut):
            handlers = routes.get(shortcut.key().toString())
            parent = shortcut.parent()
            if handlers is not None and isinstance(parent, QtWidgets.QWidget):
                handlers.append((shortcut, parent))
                shortcut.setKey(QtGui.QKeySequence())
                parent.installEventFilter(self)
        self.refresh()

    def handler(self, name: str) -> Handler | None:
        """Where the view command `name` goes now: the handler holding the focus, else the
        first one visible."""
        _key, _fallback, handlers = self._routes[name]
        handlers[:] = [(h, o) for h, o in handlers if shiboken6.isValid(h) and shiboken6.isValid(o)]
        shown = [(h, o) for h, o in handlers if o.isVisible() and h.isEnabled()]
        focus = QtWidgets.QApplication.focusWidget()
        held = [
            (h, o) for h, o in shown if focus is not None and (o is focus or o.isAncestorOf(focus))
        ]
        if held:  # the innermost owner: a summary's Save inside the entity page
            return max(held, key=lambda pair: _depth(pair[1]))[0]
        return shown[0][0] if shown else None

    def route(self, name: str) -> None:
        """Run the view command `name` where it goes now (or its fallback)."""
        handler = self.handler(name)
        fallback = self._routes[name][1]
        if isinstance(handler, QtGui.QAction):
            handler.trigger()
        elif isinstance(handler, QtGui.QShortcut):
            handler.activated.emit()
        elif fallback is not None:
            fallback()

    def declare(self, entries: Iterable[Entry]) -> None:
        """Make the commands of a table (`Command`, `Separator`, `Made`), in order."""
        w = self.window
        for e in entries:
            if isinstance(e, Separator):
                self.separator(e.menu)
            elif isinstance(e, Made):
                e.make(self, w)
            elif e.run is None:
                assert not isinstance(e.key, list), "a routed command has one key"
                back = e.fallback
                fallback = None if back is None else (lambda f=back: f(w))
                self.add_view(e.name, e.text, e.key, e.tip, e.menu, fallback)
            else:
                run = e.run
                self.add(
                    e.name, e.text, lambda r=run: r(w), e.key, e.tip, e.menu, toolbar=e.toolbar
                )

    def separator(self, menu: str) -> None:
        self.menu(menu).addSeparator()

    def refresh(self, *_args: Any) -> None:
        """Enable each view command exactly when it has somewhere to go."""
        for name in self._routes:
            self._update(name)

    def _make(
        self, name: str, text: str, shortcut: Shortcut | list[Shortcut], tip: str
    ) -> QtGui.QAction:
        if name in self._actions:
            raise ValueError(f"two commands named {name!r}")
        action = QtGui.QAction(text, self.window)
        action.setObjectName(name)
        sequences = shortcut if isinstance(shortcut, list) else [shortcut]
        action.setShortcuts([QtGui.QKeySequence(s) for s in sequences if s is not None])
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        self.window.addAction(action)  # the shortcut works wherever the focus is
        self._actions[name] = action
        return action

    def _place(self, action: QtGui.QAction, menu: str, toolbar: bool) -> None:
        self.menu(menu).addAction(action)
        if toolbar:
            self.toolbar.addAction(action)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        """A handler's widget shown or hidden (a tab, a page): where the keys go changed."""
        if event.type() in (QtCore.QEvent.Type.Show, QtCore.QEvent.Type.Hide):
            self._later.start()
        return False

    def _update(self, name: str) -> None:
        if not shiboken6.isValid(self):
            return
        fallback = self._routes[name][1]
        self._actions[name].setEnabled(fallback is not None or self.handler(name) is not None)


def _owner(action: QtGui.QAction) -> QtWidgets.QWidget | None:
    """The widget an action works in (not a menu it is also listed in)."""
    for obj in action.associatedObjects():
        if isinstance(obj, QtWidgets.QWidget) and not isinstance(obj, QtWidgets.QMenu):
            return obj
    parent = action.parent()
    return parent if isinstance(parent, QtWidgets.QWidget) else None


def _depth(widget: QtWidgets.QWidget) -> int:
    depth = 0
    parent = widget.parentWidget()
    while parent is not None:
        depth, parent = depth + 1, parent.parentWidget()
    return depth


# -- the tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """One command as data: `Commands.declare` makes its QAction. `run(window)` runs it;
    without `run` it is routed to the view shown (`Commands.add_view`: a page's own
    action for `key`), or to `fallback(window)` when no view takes it."""

    name: str
    text: str
    menu: str
    run: Callable[[Any], Any] | None = None
    key: Shortcut | list[Shortcut] = None
    tip: str = ""
    toolbar: bool = False
    fallback: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Separator:
    """A line between groups of a menu."""

    menu: str


@dataclass(frozen=True)
class Made:
    """Commands whose QActions code makes, in their place in the table (undo and redo
    from the undo stack, a dock's toggle, the themes' group): `make(commands, window)`."""

    make: Callable[[Commands, Any], Any]


Entry = Command | Separator | Made
