"""The windows' command tables: every command of a vault's window (`WINDOW`) and of a
neighbour's folder's window (`NEIGHBOUR`), menu by menu in the order they show, with the
few functions they run that belong to no page, and the `Made` entries whose QActions code
makes (undo and redo, a dock's toggle, the sidebar's, the themes). `menus` is the
machinery that makes them QActions (see its docstring); `add_window_commands` and
`add_neighbour_commands` declare a window's table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6 import QtCore, QtGui

from vault_app.ui import themes
from vault_app.ui.dialogs import palette, settings
from vault_app.ui.menus import Command, Commands, Entry, Made, Separator
from vault_app.ui.pages import context_view, daily, graph_view, review_page
from vault_app.ui.window import chat_import, recent_vaults, window_vaults

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow
    from vault_app.ui.pages.neighbour_window import NeighbourWindow

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


def _names_waiting(w: MainWindow) -> None:
    """On the dashboard, whose button counts them."""
    w.show_dashboard()
    w.dashboard.show_waiting()


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
        "import_chats",
        "&Import conversations…",
        "File",
        chat_import.choose_file,
        None,
        "Your ChatGPT or Claude export (its zip or conversations.json), or chat lines, "
        "into the daily notes",
    ),
    Command(
        "import_chats_folder",
        "Import conversations from a &folder…",
        "File",
        chat_import.choose_folder,
        None,
        "The folder a ChatGPT or Claude export unzips to, into the daily notes",
    ),
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
        "names_waiting",
        "Names &waiting for their entity…",
        "Go",
        _names_waiting,
        None,
        "Names the heartbeat met but made no entity of yet, with their facts; keep one now",
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
