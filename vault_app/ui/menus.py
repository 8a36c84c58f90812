"""The window's commands: every one a QAction in a menu (its shortcut shown there), in the
toolbar if asked, and so in the command palette and the keyboard-shortcuts sheet.

Design
------
`Commands` owns the menu bar's top menus (`MENUS`, in that order) and the main toolbar.
There is one way to add a command, from anywhere that holds the window:

    window.commands.add("graph", "&Graph view", self.show_graph, "Ctrl+Shift+G",
                        "The selected entity's neighbourhood", menu="Go")

`add` makes a QAction named `name` (its objectName: unique, found again with
`commands["graph"]`), puts it in `menu` ("File", "Edit", "Go", "View", "Help"; a submenu
as "View/Theme", made on first use) and on the toolbar with `toolbar=True`. The window
itself holds the action, so its shortcut works wherever the focus is in the window.

A command that acts on what the current view shows (Edit fact, Archive, Filter...) is added
with `add_view(name, text, shortcut, tip, menu, target)`: `target()` returns the view's own
QAction when that view is the one shown (else None); the window action triggers it, and is
enabled exactly when it is. `refresh()` re-reads every target (the window calls it when the
page changes; a target action's own `changed` signal re-reads it too).

The palette and the shortcuts sheet never keep a list of their own: `walk(menu_bar)` lists
every action of the menus with its menu path, so commands added later by any part of the
window appear in both.

The commands of the window itself (open a vault, undo, go to a page...) are added by
`add_window_commands`, the one table of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui import recent_vaults, review_page, settings, themes

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow

Shortcut = str | QtGui.QKeySequence | QtGui.QKeySequence.StandardKey | None
MENUS = ("File", "Edit", "Go", "View", "Help")
_MNEMONICS = {"File": "&File", "Edit": "&Edit", "Go": "&Go", "View": "&View", "Help": "&Help"}
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
        self._targets: dict[str, Callable[[], QtGui.QAction | None]] = {}

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
                (a.menu() for a in menu.actions() if a.menu() and plain(a.text()) == plain(title)),
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
        target: Callable[[], QtGui.QAction | None],
    ) -> QtGui.QAction:
        """A command acting on the current view through the view's own action `target()`."""
        action = self._make(name, text, shortcut, tip)
        self._targets[name] = target
        action.triggered.connect(lambda _checked=False: self._trigger(name))
        self._place(action, menu, False)
        self._update(name)
        return action

    def separator(self, menu: str) -> None:
        self.menu(menu).addSeparator()

    def refresh(self) -> None:
        """Enable each view command exactly when the view shown can run it."""
        for name in self._targets:
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

    def _trigger(self, name: str) -> None:
        target = self._targets[name]()
        if target is not None and target.isEnabled():
            target.trigger()

    def _update(self, name: str) -> None:
        target = self._targets[name]()
        action = self._actions[name]
        action.setEnabled(target is not None and target.isEnabled())
        if target is not None and not target.property("_watched"):
            target.setProperty("_watched", True)
            target.changed.connect(self.refresh)


def add_window_commands(window: MainWindow) -> Commands:
    """The window's own commands, menu by menu (the order they show in)."""
    keys = QtGui.QKeySequence.StandardKey
    w = window
    c = Commands(w)

    c.add("new_vault", "&New vault…", w.new_vault, None, "Create a vault", "File")
    c.add("open_vault", "&Open vault…", w.choose_vault, keys.Open, "Open another vault", "File")
    recent = c.menu("File/Open &recent")
    recent.aboutToShow.connect(lambda: recent_vaults.fill_menu(recent, w.store, w.switch_vault))
    c.separator("File")
    c.add(
        "settings",
        "&Settings…",
        w.open_settings,
        "Ctrl+,",
        "Decay, synthesis, search, theme",
        "File",
    )
    c.separator("File")
    c.add("quit", "&Quit", w.close, keys.Quit, "Close the window", "File")

    undo = w.session.undo_stack.createUndoAction(w, "&Undo")
    undo.setShortcut(QtGui.QKeySequence(keys.Undo))
    redo = w.session.undo_stack.createRedoAction(w, "&Redo")
    redo.setShortcuts([QtGui.QKeySequence(keys.Redo), QtGui.QKeySequence("Ctrl+Y")])
    c.add_action("undo", undo, "Edit", toolbar=True)
    c.add_action("redo", redo, "Edit", toolbar=True)
    c.toolbar.addSeparator()
    c.separator("Edit")
    c.add(
        "add_fact",
        "Add &fact…",
        w.add_fact,
        "Ctrl+N",
        "Add a fact to the entity shown, or choose the entity first",
        "Edit",
    )
    c.add(
        "new_entity",
        "New &entity…",
        w.new_entity,
        "Ctrl+Shift+N",
        "Create an entity",
        "Edit",
        toolbar=True,
    )
    c.separator("Edit")
    c.add(
        "quick_switcher",
        "&Quick switcher…",
        w.quick_switch,
        "Ctrl+P",
        "Jump to an entity, agent or day",
        "Go",
        toolbar=True,
    )
    c.add(
        "search",
        "&Search…",
        w.show_search,
        "Ctrl+Shift+F",
        "Search facts, summaries, daily notes",
        "Go",
        toolbar=True,
    )
    c.add(
        "dashboard",
        "&Decay dashboard",
        w.show_dashboard,
        "Ctrl+Shift+D",
        "Tiers, facts going cold",
        "Go",
        toolbar=True,
    )
    c.add(
        "review",
        "&Review queue",
        w.show_review,
        "Ctrl+Shift+R",
        "Agent writes held back by the scan",
        "Go",
        toolbar=True,
    )
    review_page.show_badge(c["review"], None)
    c.add(
        "activity",
        "&Activity",
        w.show_activity,
        "Ctrl+Shift+L",
        "Heartbeat runs; who wrote what",
        "Go",
        toolbar=True,
    )
    c.add("principles", "&Principles", w.show_principles, None, "global/AGENTS.md", "Go")
    c.add(
        "global_daily",
        "Global &daily notes",
        lambda: w.open_daily("global", None),
        None,
        "The daily notes every agent shares",
        "Go",
    )
    c.separator("Go")
    c.add("focus_sidebar", "Focus the &sidebar", w.sidebar.setFocus, "Ctrl+1", "", "Go")

    c.add_action("toggle_search", w.search_dock.toggleViewAction(), "View")
    group = QtGui.QActionGroup(w)
    current = settings.AppSettings.load(w.store).theme
    for name in themes.THEMES:
        action = c.add(
            f"theme_{name}",
            name.title(),
            lambda n=name: w.set_theme(n),
            None,
            f"The {name} theme",
            "View/&Theme",
        )
        action.setCheckable(True)
        action.setChecked(name == current)
        group.addAction(action)
    c.add(
        "rescan",
        "&Rescan the vault",
        w.session.rescan,
        keys.Refresh,
        "Read every file again",
        "View",
    )

    c.add("about", "&About vault-app", w.about, None, "", "Help")
    return c
