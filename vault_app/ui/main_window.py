"""The main window: sidebar, pages, search dock, menus; it opens what the user picks.

Layout: the sidebar tree (`models.SidebarModel`) on the left; on the right a stack of
pages, one shown at a time — an entity (`entity_page.EntityPage`), a document
(`documents.DocumentPane`: principles), an agent (`agent_page.AgentPage`: TACIT,
CONTEXT, daily notes, context preview), the global daily notes, the decay dashboard
(`dashboard.DecayDashboard`), the review queue (`review_page.ReviewPage`, Ctrl+Shift+R:
agent writes the injection scan held back; the toolbar shows how many wait), the activity
(`activity_page.ActivityPage`, Ctrl+Shift+L: the heartbeat's runs, who wrote what); the search
panel in a dock (Ctrl+Shift+F); the quick switcher on Ctrl+P. A message bar under the
toolbar says what went wrong in plain words; the status bar (`status_bar.VaultStatusBar`)
shows the vault, its counts, live sync and the state of the search index.

Commands: `menus.Commands` builds the menu bar and toolbar (one way to add a command;
the keys of the pages' own actions are routed by the window to the view shown), the
command palette (Ctrl+Shift+P) and Help › Keyboard shortcuts read the menus (`palette`),
`navigation.Navigator` keeps Back/Forward (Alt+Left/Right, the mouse's side buttons),
`context_menus` gives the sidebar, the facts table and the search results their right-click
menus. Sizes: the pages sit in a scroll area and the stack asks only for the room of the
page shown, so the search dock fits inside the window instead of widening it; the facts
table wraps and gives way to the fact (`facts_table`); the sidebar is `sidebar_view`.

The window follows the watcher (relayed by `live.LiveSync`): an entity moved outside the
app is opened at its new place, one deleted is offered for restoring from the backups.

Start-up is built for a window that shows at once: the window appears on an empty
sidebar, the vault is scanned on a worker, and the search index is opened after that;
every page loads its data off the GUI thread (see `session`).

Window geometry, the last vault and the recent vaults live in QSettings; switching vaults
opens a fresh window on the new vault and closes this one.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout, vault
from vault_app.ui import commands, heartbeat_runner, keyboard, menu_tables, models, session
from vault_app.ui import (
    live as live_module,
)
from vault_app.ui.dialogs import new_items as dialogs
from vault_app.ui.dialogs import switcher
from vault_app.ui.models import review_store
from vault_app.ui.pages import (
    activity_page,
    agent_page,
    daily,
    dashboard,
    documents,
    entity_page,
    graph_view,
    links_window,
    review_page,
    search_panel,
    welcome,
)
from vault_app.ui.widgets import context_menus, facts_table, page_area, sidebar_view, status_bar
from vault_app.ui.window import (
    agent_activity,
    link_keeper,
    navigation,
    recent_vaults,
    sync_conflicts,
    window_vaults,
)
from vault_app.ui.window import vault_states as states
from vault_app.ui.window.recent_vaults import LAST_KEY, MAX_RECENT, RECENT_KEY

ORGANIZATION = "vault-app"
APPLICATION = "vault-app"
__all__ = ["APPLICATION", "LAST_KEY", "MAX_RECENT", "ORGANIZATION", "RECENT_KEY", "MainWindow"]


class MainWindow(QtWidgets.QMainWindow):
    vaultSwitched = QtCore.Signal(object)  # the new MainWindow
    link_keeper: link_keeper.LinkKeeper  # set by `links_window.install`
    sync_merge_dialog: Any = None  # the merge of a sync conflict, while open
    graph_view: graph_view.GraphView

    def __init__(
        self,
        target: vault.Vault,
        store: QtCore.QSettings | None = None,
        *,
        search: bool = True,
        semantic: bool | None = None,
        live: bool = True,
        heartbeat: bool = False,
    ) -> None:
        super().__init__()
        self.store = store if store is not None else QtCore.QSettings(ORGANIZATION, APPLICATION)
        self.session = session.Session(target, self)
        self.setWindowTitle(f"{target.root.name} — vault-app")
        self.setObjectName("mainWindow")
        window_vaults.first_size(self)  # within the screen
        self._agent_pages: dict[str, agent_page.AgentPage] = {}
        self._global_daily: daily.DailyView | None = None
        self._first_scan = True
        self._discard_ok = False  # set when switching vaults: the question was asked
        self._expanded = False
        self._search_enabled = search
        self._semantic = target.config.search.semantic if semantic is None else semantic
        self.switcher: switcher.QuickSwitcher | None = None
        self.live = live_module.LiveSync(self.session, parent=self) if live else None
        # the app runs the heartbeat when nothing else does (`heartbeat_runner`); off in tests
        self.heartbeat = heartbeat_runner.for_session(self.session, self) if heartbeat else None

        self._build_sidebar()
        self._build_pages()
        self._build_search_dock()
        self.navigator = navigation.Navigator(self, self.open_place)
        self._add_fact_next = False  # Ctrl+N away from an entity: add once one is chosen
        self.commands = menu_tables.add_window_commands(self)
        self._name_actions()
        self._route_page_keys()
        context_menus.install(self)
        self.agent_marks = agent_activity.install(self)  # marks, Revert, the title's "*"
        links_window.install(self)  # the link index, the graph page, Graph view and As of…
        states.install(self)  # New agent, Unarchive, the welcome page's buttons
        sync_conflicts.install(self)  # Syncthing conflicts left for a person: Merge…
        self.status = status_bar.VaultStatusBar(target.root)
        self.setStatusBar(self.status)
        # the labels the status bar shows (read by tests and benchmarks)
        self.counts_label, self.live_label = self.status.counts_label, self.status.live_label
        self.path_label, self.index_label = self.status.path_label, self.status.index_label

        self.session.scanned.connect(self._on_scan)
        self.session.listed.connect(self._on_listed)
        self.session.error.connect(self.message_bar.show_message)
        self.session.notice.connect(self.message_bar.show_notice)
        self.session.searchReady.connect(self._on_search_ready)
        self.session.searchProgress.connect(self.status.show_search_progress)
        self.session.busy.connect(self._on_busy)
        self.session.entityRemoved.connect(self._on_entity_removed)
        self.session.entityMoved.connect(self._on_entity_moved)
        self.session.liveStatus.connect(self._on_live_status)
        self.session.undo_stack.cleanChanged.connect(self._update_title)
        recent_vaults.remember(self.store, target.root)
        self._restore_geometry()
        if target.config_error is not None:
            self.session.report(target.config_error)

    # -- construction -------------------------------------------------------------------

    def _build_sidebar(self) -> None:
        self.sidebar_model = models.SidebarModel(parent=self)
        self.sidebar = sidebar_view.SidebarView(self.sidebar_model, self.store)
        self.sidebar.selectionModel().currentChanged.connect(self._on_sidebar_current)
        self.sidebar.activated.connect(self._on_sidebar_current)

    def _name_actions(self) -> None:
        """The window's actions as attributes (read by tests, benchmarks and other parts)."""
        c = self.commands
        self.recent_menu = c.menu("File/Open &recent")
        self.settings_action, self.undo_action, self.redo_action = (
            c["settings"],
            c["undo"],
            c["redo"],
        )
        self.add_fact_action, self.new_entity_action = c["add_fact"], c["new_entity"]
        self.switcher_action, self.search_action = c["quick_switcher"], c["search"]
        self.dashboard_action, self.review_action = c["dashboard"], c["review"]
        self.activity_action = c["activity"]

    def _route_page_keys(self) -> None:
        """The window owns the keys of the view commands (`menus.Commands.add_view`)."""
        for number in range(self.pages.count()):
            self.commands.take_keys(self.pages.widget(number))
        self.pages.widgetAdded.connect(lambda n: self.commands.take_keys(self.pages.widget(n)))
        self.pages.currentChanged.connect(self.commands.refresh)
        app = QtWidgets.QApplication.instance()
        if isinstance(app, QtWidgets.QApplication):
            app.focusChanged.connect(self.commands.refresh)
        keyboard.install()  # Tab leaves a table; entering one selects a row

    def _build_pages(self) -> None:
        self.pages = QtWidgets.QStackedWidget()
        self.welcome = welcome.WelcomePage()  # loading, then the empty state or a hint
        self.welcome.openEntity.connect(self.open_entity)
        self.entity_view = entity_page.EntityPage(self.session)
        self.entity_view.openEntity.connect(self.open_entity)
        self.entity_view.entityMoved.connect(lambda _old, new: self.open_entity(new))
        self.principles = documents.DocumentPane(
            self.session, documents.DocumentTarget.document(vault.PRINCIPLES)
        )
        self.principles.entityRequested.connect(self.open_entity)
        self.dashboard = dashboard.DecayDashboard(self.session)
        self.dashboard.openFact.connect(self.open_fact)
        self.dashboard.namesKept.connect(self._keep_name)
        self.review = review_page.ReviewPage(review_store.VaultReviews(self.session))  # the badge
        self.review.pending.connect(self._show_review_count)
        self.facts_table = facts_table.FactsTable(self.entity_view.table, self.store)
        facts_table.show_rows(self.entity_view.history_list, 3)  # a fact's history at 720 px
        self.activity = activity_page.ActivityPage(activity_page.VaultActivity(self.session))
        self.activity.openEntity.connect(self.open_entity)
        self.activity.openFact.connect(self.open_fact)
        self.activity.openReview.connect(self.open_review_item)
        pages = (self.welcome, self.entity_view, self.principles, self.dashboard, self.review)
        for page in (*pages, self.activity):
            self.pages.addWidget(page)

        self.message_bar = dialogs.MessageBar()
        right = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.message_bar)
        self.pages_scroll = page_area.scrolling(self.pages)  # the dock never widens the window
        column.addWidget(self.pages_scroll, 1)

        self.splitter = QtWidgets.QSplitter()
        self.sidebar_panel = sidebar_view.SidebarPanel(self.sidebar)  # the filter box above
        self.splitter.addWidget(self.sidebar_panel)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([400, 880])  # room for "Household Budget" beside 4 counts
        self.setCentralWidget(self.splitter)

    def _build_search_dock(self) -> None:
        self.search = search_panel.SearchPanel(self.session)
        self.search.openFact.connect(self.open_fact)
        self.search.openEntity.connect(self.open_entity)
        self.search.openDaily.connect(self.open_daily)
        self.search_dock = QtWidgets.QDockWidget("Search", self)
        self.search_dock.setObjectName("searchDock")
        self.search_dock.setWidget(self.search)
        self.search_dock.setAllowedAreas(
            QtCore.Qt.DockWidgetArea.RightDockWidgetArea
            | QtCore.Qt.DockWidgetArea.LeftDockWidgetArea
            | QtCore.Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, self.search_dock)
        self.search_dock.hide()

    # -- loading ------------------------------------------------------------------------

    def start(self) -> None:
        """List the vault (browsable at once), scan it (counts), then open the search index;
        all off the GUI thread."""
        self.session.list_entities(then_scan=True)

    def _on_listed(self, listing: vault.VaultScan) -> None:
        if self.session.scan is not None:  # the full scan came first: nothing to add
            return
        self.session.run(
            lambda: models.SidebarModel.build(listing),
            lambda tree: self._show_listing(listing, tree),
        )
        self.status.show_listing(listing)

    def _show_listing(self, listing: vault.VaultScan, tree: Any) -> None:
        if self.session.scan is None:
            self.sidebar_model.update(listing, tree=tree)
            self._expand_top_once()

    def _expand_top_once(self) -> None:
        if not self._expanded:
            self._expanded = True
            self.sidebar.expandToDepth(0)  # Global and Agents open; one layout pass

    def _on_scan(self, scan: vault.VaultScan) -> None:
        # the tree of a 10,000-entity vault is built on a worker; only the merge runs here
        against = self.sidebar_model.tree  # so the worker also finds the rows that changed
        self.session.run(
            lambda: models.SidebarModel.build(scan, against=against),
            lambda tree: self._show_scan(scan, tree),
        )

    def _show_scan(self, scan: vault.VaultScan, tree: Any) -> None:
        if scan is not self.session.scan:  # a newer scan is on its way
            return
        self.sidebar_model.update(scan, tree=tree)
        self._expand_top_once()
        self.status.show_scan(scan)
        if self._first_scan:
            self._first_scan = False
            states.first_scan(self, scan)  # the empty state; one bar for unreadable files
            # one load at a time: the index, then live sync (its start walks the vault
            # and registers 10,000 folders; run beside the index load, both made the
            # window wait). Nothing is missed meanwhile: live sync starts by comparing
            # the vault with the snapshot it saved last time.
            self.review.refresh()  # the badge's count (a few small files, on a worker)
            if self.live is not None:
                self.live.prepare()  # beside the index load, not the first listing
            if self.heartbeat is not None:
                self.heartbeat.ran.connect(self._on_heartbeat)
                self.heartbeat.failed.connect(lambda text: self.status.showMessage(text, 30_000))
                self.heartbeat.start()
            if self._search_enabled:
                self.status.show_search_preparing()
                self.session.open_search(semantic=self._semantic, then=self._start_live)
            else:
                self._start_live()

    def _start_live(self) -> None:
        if self.live is not None and not self.session.closed:
            self.live.start()
            self.status.show_live_status("starting", "")

    def _on_search_ready(self, engine: Any) -> None:
        self.status.show_search_ready(engine, self.session.engine_notice)

    def _on_heartbeat(self, records: list[Any]) -> None:
        text = heartbeat_runner.message(records)
        if text:
            self.status.showMessage(text, 30_000)
        self.dashboard.update_heartbeat()
        if self.live is None and any(r.written or r.superseded or r.summaries for r in records):
            self.session.rescan()  # live sync would have seen the files change

    def _keep_name(self, name: str) -> None:
        """A waiting name asked to be kept: its request is in the notes; run a heartbeat
        now when this app runs them, else the runner that does keeps it next time."""
        ran = self.heartbeat is not None and self.heartbeat.run_now("keep")
        self.status.showMessage(
            f"Keeping {name}: the heartbeat makes its entity now."
            if ran
            else f"Keeping {name}: the heartbeat makes its entity on its next run.",
            30_000,
        )

    def _on_live_status(self, state: str, message: str) -> None:
        self.status.show_live_status(state, message)
        if state in ("missing", "error", "degraded"):
            self.message_bar.show_message("Live sync: " + state, message)

    def _on_entity_removed(self, address: str) -> None:
        """The shown entity was deleted outside the app (a move comes as `entityMoved`:
        the watcher pairs moves, also those it sees as a removal and a creation)."""
        if self.entity_view.address == address:
            self._offer_restore(address)

    def _offer_restore(self, address: str) -> None:
        def restore() -> None:
            self.session.write(
                lambda v: v.restore_deleted(address),
                lambda _paths: self.open_entity(address),
                entities=(address,),
                rescan=True,
            )

        self.message_bar.show_message(
            "Deleted outside the app",
            f"{address} was deleted by another program. Its last version is kept in the "
            "backup ring: restore it, or dismiss this message.",
            ("Restore", restore),
        )

    def _on_entity_moved(self, old: str, new: str) -> None:
        if self.entity_view.address == old:
            self.open_entity(new)
            self.message_bar.show_message(
                "Moved outside the app", f"{old} was moved to {new} by another program."
            )

    def _on_busy(self, busy: bool) -> None:
        cursor = QtCore.Qt.CursorShape.BusyCursor if busy else QtCore.Qt.CursorShape.ArrowCursor
        self.pages.setCursor(cursor)

    # -- navigation ---------------------------------------------------------------------

    def _on_sidebar_current(self, index: QtCore.QModelIndex) -> None:
        node = self.sidebar_model.node(index)
        if node is None:
            return
        if node.kind == "entity" and node.address:
            self._show_entity(node.address)
        elif node.kind == "principles":
            self.show_principles()
        elif node.kind == "daily":
            self.open_daily(node.scope, None, select=False)
        elif node.kind in ("agent", "workspace") and node.agent:
            tab = "context" if node.kind == "agent" else ""
            self._agent_page(node.agent).show_tab(tab)
            self.navigator.visit(("agent", node.agent, tab))
        elif node.kind == "document" and node.agent and node.document:
            self._agent_page(node.agent).show_tab(node.document)
            self.navigator.visit(("agent", node.agent, node.document))
        elif node.kind in ("scope", "category", "group"):
            self._show_group(index, node.name)

    def _show_group(self, index: QtCore.QModelIndex, title: str) -> None:
        """A group of the sidebar: its overview (counts, what it holds), not "Select"."""
        model = self.sidebar_model

        def counts(at: QtCore.QModelIndex) -> tuple[int, int, int, int] | None:
            a, h, w, c = (model.index(at.row(), n, at.parent()).data() for n in range(1, 5))
            numbers = all(isinstance(v, int) for v in (a, h, w, c))
            return (a, h, w, c) if numbers else None

        children = []
        for row in range(model.rowCount(index)):
            child = model.node(model.index(row, 0, index))
            if child is not None:
                children.append((child.name, child.address if child.kind == "entity" else None))
        self.welcome.show_group(title, counts(index), children)
        self.pages.setCurrentWidget(self.welcome)

    def _select_in_sidebar(self, address: str) -> None:
        self._select_index(self.sidebar_model.index_for_address(address))

    def _select_node(self, predicate: Any) -> None:
        self._select_index(self.sidebar_model.index_for_node(predicate))

    def _select_index(self, index: QtCore.QModelIndex) -> None:
        """Point the sidebar at what the page shows, without re-opening it."""
        blocker = QtCore.QSignalBlocker(self.sidebar.selectionModel())
        if index.isValid():
            self.sidebar.setCurrentIndex(index)
            self.sidebar.scrollTo(index)
        else:
            self.sidebar.selectionModel().clear()
        del blocker

    def show_agent(self, agent: str, tab: str) -> agent_page.AgentPage:
        """An agent's page on `tab` (a document name, "daily" or "context"), in step with
        the sidebar."""
        page = self._agent_page(agent)
        page.show_tab(tab)
        self.navigator.visit(("agent", agent, tab))
        kinds = {"daily": ("daily", None), "context": ("agent", None)}
        kind, document = kinds.get(tab, ("document", tab))
        self._select_node(lambda n: n.kind == kind and n.agent == agent and n.document == document)
        return page

    def _show_entity(self, address: str, fact_id: str | None = None) -> None:
        self.entity_view.show_entity(address, select_fact=fact_id)
        self.pages.setCurrentWidget(self.entity_view)
        self.navigator.visit(("entity", address))

    def open_entity(self, address: str) -> None:
        self._select_in_sidebar(address)
        self._show_entity(address)

    def open_fact(self, address: str, fact_id: str) -> None:
        self._select_in_sidebar(address)
        self._show_entity(address, fact_id)

    def open_daily(self, scope: str, day: dt.date | None, *, select: bool = True) -> None:
        if scope == layout.GLOBAL_SCOPE:
            if select:
                self._select_node(lambda n: n.kind == "daily" and n.agent is None)
            if self._global_daily is None:
                self._global_daily = daily.DailyView(self.session, None)
                self.pages.addWidget(self._global_daily)
            view = self._global_daily
            self.pages.setCurrentWidget(view)
            self.navigator.visit(("daily", layout.GLOBAL_SCOPE))
        else:
            view = self.show_agent(scope.removeprefix("agent:"), "daily").daily
        if day is not None:
            view.show_day(day)

    def _agent_page(self, agent: str) -> agent_page.AgentPage:
        page = self._agent_pages.get(agent)
        if page is None:
            page = self._agent_pages[agent] = agent_page.AgentPage(self.session, agent)
            page.tabs.currentChanged.connect(  # each tab is a place of the history
                lambda n, a=agent: self.navigator.visit(("agent", a, agent_page.AgentPage.TABS[n]))
            )
            self.pages.addWidget(page)
        self.pages.setCurrentWidget(page)
        return page

    def show_principles(self) -> None:
        self._select_node(lambda n: n.kind == "principles")
        self.pages.setCurrentWidget(self.principles)
        self.navigator.visit(("page", "principles"))

    def show_dashboard(self) -> None:
        self._select_index(QtCore.QModelIndex())
        self.pages.setCurrentWidget(self.dashboard)
        self.navigator.visit(("page", "dashboard"))

    def show_review(self) -> None:
        self._select_index(QtCore.QModelIndex())
        self.pages.setCurrentWidget(self.review)
        self.navigator.visit(("page", "review"))

    def open_review_item(self, review_id: str) -> None:
        """The review queue with one proposal selected (a held-back write's line)."""
        self.show_review()
        self.review.show_item(review_id)

    def show_activity(self) -> None:
        self._select_index(QtCore.QModelIndex())
        self.pages.setCurrentWidget(self.activity)
        self.navigator.visit(("page", "activity"))

    def open_place(self, place: navigation.Place) -> None:
        """Reopen a place of the history (Back/Forward): ("entity", address), ("agent",
        agent, tab), ("daily", scope), ("page", name) calls `show_<name>`."""
        kind, *rest = place
        if kind == "entity":
            self.open_entity(rest[0])
        elif kind == "agent":
            self.show_agent(rest[0], rest[1])
        elif kind == "daily":
            self.open_daily(rest[0], None)
        elif kind == "page":
            getattr(self, f"show_{rest[0]}")()

    def _show_review_count(self, count: int) -> None:
        review_page.show_badge(self.review_action, count)

    def show_search(self) -> None:
        self.search_dock.show()
        self.search_dock.raise_()
        self.search.focus_query()

    def quick_switch(self) -> None:
        if self.switcher is None:
            self.switcher = switcher.QuickSwitcher(self.session, self, self.navigator.recent)
            self.switcher.chosen.connect(self._on_switch)
        self.switcher.popup()

    def _on_switch(self, kind: str, payload: Any) -> None:
        add_fact, self._add_fact_next = self._add_fact_next, False
        self.switcher_for_fact(False)
        if kind == "entity":
            if add_fact:  # the dialog once the entity is read (its Add fact is enabled)
                self.entity_view.loaded.connect(
                    lambda _address: self.entity_view.add_fact(),
                    QtCore.Qt.ConnectionType.SingleShotConnection,
                )
            self.open_entity(str(payload))
        elif kind == "agent":
            self.show_agent(str(payload), "context")
        elif kind == "daily":
            scope, day = payload
            self.open_daily(scope, day)
        elif kind == "document":
            name, agent = payload
            if agent is None:
                self.show_principles()
            else:
                self.show_agent(agent, name)
        self.activateWindow()  # back from the switcher's popup, keys to the page shown
        self.focus_page()

    def focus_page(self) -> None:
        """Put the keyboard in the page shown (after the switcher): the facts table of an
        entity, else the page's first field that takes the focus."""
        page = self.pages.currentWidget()
        if page is self.entity_view:
            self.entity_view.table.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
        elif page is not None:
            navigation.focus_first(page)

    def switcher_for_fact(self, on: bool) -> None:
        """Ask for the entity a new fact goes to (Ctrl+N away from an entity) or not."""
        if self.switcher is not None:
            text = (
                "Add a fact to which entity?" if on else "Go to an entity, agent, day or document…"
            )
            self.switcher.query_edit.setPlaceholderText(text)

    # -- edits --------------------------------------------------------------------------

    def add_fact(self) -> None:
        """Add a fact (Ctrl+N): to the entity shown, else to one the user picks first."""
        self.commands.route("add_fact")

    def add_fact_elsewhere(self) -> None:
        """Ctrl+N with no entity shown: the quick switcher asks which entity, then the
        Add fact dialog opens on it (what Ctrl+N in the entity view does)."""
        self.quick_switch()
        assert self.switcher is not None
        self._add_fact_next = True
        self.switcher_for_fact(True)
        self.switcher.rejected.connect(
            self._cancel_add_fact, QtCore.Qt.ConnectionType.SingleShotConnection
        )

    def _cancel_add_fact(self) -> None:
        self._add_fact_next = False
        self.switcher_for_fact(False)

    def new_entity(self) -> None:
        agents = self.session.known.agents if self.session.known else []
        dialog = dialogs.NewEntityDialog(agents, self)
        if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
            return
        address = dialog.address()
        summary = dialog.summary.toPlainText().strip() or None
        commands.create_entity(
            self.session,
            address,
            summary,
            on_done=lambda _folder: self.session.rescan(lambda _scan: self.open_entity(address)),
        )

    # -- vaults and settings ---------------------------------------------------------------

    def switch_vault(self, path: Path) -> QtWidgets.QMainWindow | None:
        """A fresh window on the folder at `path` (this one closes); None if refused: a
        vault's, or a neighbour's folder's (`app.window_for` decides)."""
        return window_vaults.switch_vault(self, path)

    def _update_title(self) -> None:
        agent_activity.update_title(self)

    # -- closing ------------------------------------------------------------------------

    def _dirty_panes(self) -> list[str]:
        dirty = []
        if self.principles.is_dirty():
            dirty.append("AGENTS.md")
        if self.entity_view.summary.is_dirty():
            dirty.append("the summary")
        dirty += [f"{a}'s documents" for a, page in self._agent_pages.items() if page.dirty()]
        return dirty

    def _confirm_discard(self) -> bool:
        return window_vaults.confirm_discard(self, self._dirty_panes())

    def _restore_geometry(self) -> None:
        geometry = self.store.value("window/geometry")
        if isinstance(geometry, QtCore.QByteArray | bytes):
            self.restoreGeometry(geometry)
        state = self.store.value("window/state")
        if isinstance(state, QtCore.QByteArray | bytes):
            self.restoreState(state)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if not self._confirm_discard():
            event.ignore()
            return
        self.store.setValue("window/geometry", self.saveGeometry())
        self.store.setValue("window/state", self.saveState())
        self.store.sync()
        if self.live is not None:
            self.live.stop()
        if self.heartbeat is not None:
            self.heartbeat.close()  # the lease goes back: serve or another window may run it
        self.session.close()
        event.accept()
