"""The window's commands: every one a QAction in a menu (its shortcut shown there), in the
toolbar if asked, and so in the command palette and the keyboard-shortcuts sheet.

Design
------
Commands are declared as data, where they act: a `Command(name, text, menu, run, key,
tip, toolbar, fallback)` record each, in tables — `WINDOW` (a vault's window, menu by
menu, in the order they show), `NEIGHBOUR` (a neighbour's folder's window), and the
`COMMANDS` of the modules that add pages or marks to the window (`links_window`,
`vault_states`, `agent_activity`) beside the functions they run:

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

`add_window_commands` and `add_neighbour_commands` declare a window's table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui import themes
from vault_app.ui.dialogs import palette, settings
from vault_app.ui.pages import context_view, daily, graph_view, review_page
from vault_app.ui.window import recent_vaults, window_vaults

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow
    from vault_app.ui.pages.neighbour_window import NeighbourWindow

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
KEYS = QtGui.QKeySequence.StandardKey


def _undo_redo(c: Commands, w: MainWindow) -> None:
    undo = w.session.undo_stack.createUndoAction(w, "&Undo")
    undo.setShortcut(QtGui.QKeySequence(KEYS.Undo))
    redo = w.session.undo_stack.createRedoAction(w, "&Redo")
    redo.setShortcuts([QtGui.QKeySequence("Ctrl+Shift+Z"), QtGui.QKeySequence("Ctrl+Y")])
    c.add_action("undo", undo, "Edit")
    c.add_action("redo", redo, "Edit")
    for source, text in ((undo, "Undo"), (redo, "Redo")):
        c.toolbar.addAction(_steady(source, text, w))
    c.toolbar.addSeparator()


def _steady(source: QtGui.QAction, text: str, parent: QtCore.QObject) -> QtGui.QAction:
    """A toolbar twin of `source` whose text stays `text` ("Undo"): the description the
    stack gives ("Undo Edit fact in Marcus Bell") goes to its tooltip and stays in the Edit
    menu, so the button never grows and shifts the others."""
    twin = QtGui.QAction(text, parent)
    twin.setObjectName(f"toolbar_{source.objectName() or text.lower()}")
    twin.triggered.connect(source.trigger)

    def follow() -> None:
        if not (shiboken6.isValid(twin) and shiboken6.isValid(source)):
            return  # the window is being taken down
        twin.setEnabled(source.isEnabled())
        keys = source.shortcut().toString(QtGui.QKeySequence.SequenceFormat.NativeText)
        twin.setToolTip(palette.plain(source.text()) + (f" ({keys})" if keys else ""))

    source.changed.connect(follow)
    follow()
    return twin


def _synthesize(w: MainWindow) -> None:
    """On the dashboard, where its progress and preview show."""
    w.show_dashboard()
    w.dashboard.synthesize_now()


def _review_badge(c: Commands, _w: Any) -> None:
    review_page.show_badge(c["review"], None)


def _back_forward(c: Commands, w: MainWindow) -> None:
    w.navigator.set_actions(c["back"], c["forward"])


def _search_toggle(c: Commands, w: MainWindow) -> None:
    c.add_action("toggle_search", w.search_dock.toggleViewAction(), "View")


def _folder_search(c: Commands, w: NeighbourWindow) -> None:
    """Search and its panel's toggle, when the window was given a search engine."""
    if w.search_dock is not None:
        c.declare([NEIGHBOUR_SEARCH])
        c.add_action("toggle_search", w.search_dock.toggleViewAction(), "View")


def _focus_sidebar(w: MainWindow) -> None:
    w.sidebar_panel.show()
    w.sidebar.setFocus()


def _filter_sidebar(w: MainWindow) -> None:
    w.sidebar_panel.show()
    w.sidebar_panel.filter_edit.setFocus()
    w.sidebar_panel.filter_edit.selectAll()


def _sidebar_toggle(c: Commands, w: MainWindow) -> None:
    """View › Sidebar (Ctrl+B): the sidebar panel hidden or shown, for room to read."""
    shown = c.add(
        "toggle_sidebar",
        "Side&bar",
        lambda: w.sidebar_panel.setVisible(shown.isChecked()),
        "Ctrl+B",
        "Show or hide the sidebar",
        "View",
    )
    shown.setCheckable(True)
    shown.setChecked(True)


def _sidebar_counts(c: Commands, w: MainWindow) -> None:
    counts = c.add(
        "sidebar_counts",
        "Sidebar &counts",
        lambda: w.sidebar.set_counts_shown(counts.isChecked()),
        None,
        "The Active, Hot, Warm and Cold columns of the sidebar",
        "View",
    )
    counts.setCheckable(True)
    counts.setChecked(w.sidebar.counts_shown())
    w.sidebar.countsShown.connect(counts.setChecked)  # also from the header's menu


def _open_recent(c: Commands, w: MainWindow | NeighbourWindow) -> None:
    """File › Open recent, filled each time it opens."""
    recent = c.menu("File/Open &recent")
    recent.aboutToShow.connect(lambda: recent_vaults.fill_menu(recent, w.store, w.switch_vault))


def _themes(c: Commands, w: MainWindow | NeighbourWindow) -> None:
    """View › Theme: one checkable command per theme, the saved one checked."""
    group = QtGui.QActionGroup(w)
    current = settings.AppSettings.load(w.store).theme
    for name in themes.THEMES:
        action = c.add(
            f"theme_{name}",
            name.title(),
            lambda n=name: window_vaults.set_theme(w, n),
            None,
            f"The {name} theme",
            "View/&Theme",
        )
        action.setCheckable(True)
        action.setChecked(name == current)
        group.addAction(action)


def _open(tip: str) -> tuple[Entry, ...]:
    return (
        Command("open_vault", "&Open vault…", "File", window_vaults.choose_vault, KEYS.Open, tip),
        Made(_open_recent),
    )


HELP: tuple[Entry, ...] = (
    Command(
        "shortcuts",
        "&Keyboard shortcuts",
        "Help",
        lambda w: palette.ShortcutsSheet(w).open(),
        "F1",
        "Every key",
    ),
    Command("about", "&About vault-app", "Help", window_vaults.about),
)

REVIEW: tuple[Entry, ...] = (  # routed to the review page's own actions
    Command(
        "approve",
        "Appr&ove proposal…",
        "Edit",
        None,
        review_page.APPROVE_KEY,
        "Write the proposal selected in the review queue, as its agent (asks first)",
    ),
    Command(
        "reject",
        "Re&ject proposal…",
        "Edit",
        None,
        review_page.REJECT_KEY,
        "Keep the proposal selected in the review queue as rejected (asks first)",
    ),
)
DAY = "Go/Daily &notes"  # the daily view's own keys, routed to the one shown

WINDOW: tuple[Entry, ...] = (
    Command("new_vault", "&New vault…", "File", window_vaults.new_vault, None, "Create a vault"),
    *_open("Open another vault"),
    Separator("File"),
    Command(
        "settings",
        "&Settings…",
        "File",
        window_vaults.open_settings,
        "Ctrl+,",
        "Decay, synthesis, search, theme",
    ),
    Separator("File"),
    Command("quit", "&Quit", "File", lambda w: w.close(), "Ctrl+Q", "Close the window"),
    Made(_undo_redo),
    Separator("Edit"),
    Command(
        "add_fact",
        "Add &fact…",
        "Edit",
        key="Ctrl+N",
        tip="Add a fact to the entity shown; elsewhere, choose the entity first",
        fallback=lambda w: w.add_fact_elsewhere(),
    ),
    Command(
        "new_entity",
        "New &entity…",
        "Edit",
        lambda w: w.new_entity(),
        "Ctrl+Shift+N",
        "Create an entity",
        toolbar=True,
    ),
    Command("edit_fact", "Edi&t fact…", "Edit", None, "F2", "A new version of the selected fact"),
    Command("archive", "&Archive entity…", "Edit", None, "Ctrl+Shift+A", "Move it to archives/"),
    Command("filter", "F&ilter facts", "Edit", None, KEYS.Find, "Filter the facts shown"),
    Separator("Edit"),
    Command("edit_document", "Edit &document", "Edit", None, "Ctrl+E", "Edit the text shown"),
    Command("save_document", "&Save document", "Edit", None, "Ctrl+S", "Save the text edited"),
    Command("next_conflict", "&Next conflict", "Edit", None, "F8", "The next conflict of a merge"),
    Command(
        "append_entry",
        "A&ppend entry",
        "Edit",
        None,
        daily.APPEND_KEY,
        "Add the text typed under a daily note to today's note, with the time",
    ),
    Command(
        "copy_context",
        "Copy conte&xt",
        "Edit",
        None,
        context_view.COPY_KEY,
        "Copy the agent's context previewed, headers included, to the clipboard",
    ),
    Separator("Edit"),
    *REVIEW,
    Separator("Edit"),
    Command(
        "synthesize",
        "S&ynthesize summaries now…",
        "Edit",
        _synthesize,
        None,
        "Rewrite the summaries from Hot and Warm facts; the changes are shown first",
    ),
    Separator("Edit"),
    Command(
        "palette",
        "&Command palette…",
        "Go",
        lambda w: palette.CommandPalette(w).open(),
        "Ctrl+Shift+P",
        "Run any command",
    ),
    Command(
        "quick_switcher",
        "&Quick switcher…",
        "Go",
        lambda w: w.quick_switch(),
        "Ctrl+P",
        "Jump to an entity, agent or day",
        toolbar=True,
    ),
    Command(
        "search",
        "&Search…",
        "Go",
        lambda w: w.show_search(),
        "Ctrl+Shift+F",
        "Search facts, summaries, daily notes",
        toolbar=True,
    ),
    Command(
        "dashboard",
        "&Decay dashboard",
        "Go",
        lambda w: w.show_dashboard(),
        "Ctrl+Shift+D",
        "Tiers, facts going cold",
        toolbar=True,
    ),
    Command(
        "review",
        "&Review queue",
        "Go",
        lambda w: w.show_review(),
        "Ctrl+Shift+R",
        "Agent writes held back by the scan",
        toolbar=True,
    ),
    Made(_review_badge),
    Command(
        "activity",
        "&Activity",
        "Go",
        lambda w: w.show_activity(),
        "Ctrl+Shift+L",
        "Heartbeat runs; who wrote what",
        toolbar=True,
    ),
    Command(
        "principles", "&Principles", "Go", lambda w: w.show_principles(), None, "global/AGENTS.md"
    ),
    Command(
        "global_daily",
        "&Global daily notes",
        "Go",
        lambda w: w.open_daily("global", None),
        None,
        "The daily notes every agent shares",
    ),
    Command("earlier_note", "&Earlier note", DAY, None, "Alt+PgUp", "The closest earlier day"),
    Command("later_note", "&Later note", DAY, None, "Alt+PgDown", "The closest later day"),
    Command("today_note", "&Today", DAY, None, "Alt+Home", "Today's note"),
    Separator("Go"),
    Command(
        "back", "&Back", "Go", lambda w: w.navigator.back(), "Alt+Left", "The view shown before"
    ),
    Command("forward", "&Forward", "Go", lambda w: w.navigator.forward(), "Alt+Right"),
    Made(_back_forward),
    Command("focus_sidebar", "Foc&us the sidebar", "Go", _focus_sidebar, "Ctrl+1"),
    Command(
        "filter_sidebar",
        "F&ilter the sidebar",
        "Go",
        _filter_sidebar,
        "Ctrl+Shift+B",
        "Type part of a title: the sidebar keeps what matches",
    ),
    Made(_search_toggle),
    Made(_sidebar_toggle),
    Made(_sidebar_counts),
    Made(_themes),
    Command(
        "refresh",
        "Re&fresh",
        "View",
        None,
        "F5",
        "Read the view shown again",
        fallback=lambda w: w.session.rescan(),
    ),
    Command("fit_graph", "F&it the graph", "View", None, graph_view.FIT_KEY, "Zoom to it all"),
    Command(
        "rescan",
        "&Rescan the vault",
        "View",
        lambda w: w.session.rescan(),
        "Ctrl+F5",
        "Read every file",
    ),
    *HELP,
)
"""A vault's window: its commands, menu by menu, in the order they show."""

NEIGHBOUR: tuple[Entry, ...] = (
    *_open("Open a vault, or a Hermes, PicoClaw or MicroClaw folder"),
    Separator("File"),
    Command("quit", "&Quit", "File", lambda w: w.close(), "Ctrl+Q", "Close the window"),
    Command("save_page", "&Save", "Edit", lambda w: w.save_page(), "Ctrl+S", "Save the page shown"),
    Separator("Edit"),
    *REVIEW,
    Made(_folder_search),
    Command(
        "review",
        "&Review queue",
        "Go",
        lambda w: w.show_review(),
        "Ctrl+Shift+R",
        "The folder's agent writes held back by the scan",
    ),
    Made(_review_badge),
    Command(
        "activity",
        "&Activity",
        "Go",
        lambda w: w.show_activity(),
        "Ctrl+Shift+L",
        "Who wrote what in the folder: its agents, you, the review queue",
    ),
    Command("focus_sidebar", "Foc&us the sidebar", "Go", lambda w: w.sidebar.setFocus(), "Ctrl+1"),
    Made(_themes),
    Command(
        "refresh", "Re&fresh", "View", lambda w: w.refresh_page(), "F5", "Read the page shown again"
    ),
    *HELP,
)
"""A neighbour's folder's window: opening folders, saving the page shown, the review
queue and the activity, the theme; none of a PARA vault's pages."""

NEIGHBOUR_SEARCH = Command(
    "search",
    "&Search…",
    "Go",
    lambda w: w.show_search(),
    "Ctrl+Shift+F",
    "Search the folder's entries",
)


def add_window_commands(window: MainWindow) -> Commands:
    """A vault's window's commands (`WINDOW`)."""
    c = Commands(window)
    c.declare(WINDOW)
    return c


def add_neighbour_commands(window: NeighbourWindow) -> Commands:
    """A neighbour's folder's window's commands (`NEIGHBOUR`)."""
    c = Commands(window)
    c.declare(NEIGHBOUR)
    c.toolbar.hide()  # a few commands: the menus hold them
    return c
