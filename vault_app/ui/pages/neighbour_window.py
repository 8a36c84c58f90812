"""The window on a neighbour's memory folder — a Hermes home, a PicoClaw workspace or a
MicroClaw runtime — opened as it is, in its owner's format.

The composition root (`app.window_for`) opens this window instead of `main_window.
MainWindow` when `core.neighbours` recognises the folder. It shows only what that format
holds: a banner naming the format and how it is written; a sidebar listing the folder's
agent(s) (MicroClaw: one per persona, and the runtime's principles) and, under each, its
pages (`neighbour_pages.PAGES`: notes, user profile, profile, long-term memory, daily
notes, tiers); on the right the page chosen, in the editors of a PARA agent's page (the
memory blocks with their meters and refusals, the tiers' three panes, the key–value
table) and the neighbours' daily-note reader. Every read and write goes through the
folder's `ForeignFolder` adapter, on the session's workers.

Below the agents, the **Review queue** (Go › Review queue, Ctrl+Shift+R): the writes of the
folder's agents that the injection scan held back (`vault-app serve`/`mcp` in the folder),
kept in vault-app's state folder, never in the folder. It is the PARA window's
`review_page.ReviewPage` over `review_store.FolderReviews`: approve applies the write as
the agent through the folder's adapter, in its owner's format. The page is made with the
window, since its count is the badge: on the sidebar's item (bold while something waits),
on the Go menu's command and in the banner; the page watches the queue folder, so a new
proposal shows at once. Below it, **Activity** (Go › Activity, Ctrl+Shift+L): who wrote
what in the folder — its agents, this window, the review queue's decisions — from the
audit log vault-app keeps for it (`activity_page.ActivityPage` over `FolderActivity`).

What only a PARA vault has — facts, the decay dashboard, synthesis, the heartbeat,
links — is not in this window's menus or pages at all. With `search` (the
composition root's choice), the search dock (`neighbour_search`) searches the folder's
entries and a hit opens its page; without it there is no dock. Live sync
(`neighbour_live.FolderLiveSync`) follows the agent's own writes: the page shown reloads,
or shows its conflict bar when it holds unsaved edits.
"""

from __future__ import annotations

import datetime as dt
import html
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import neighbours
from vault_app.ui import keyboard, menu_tables, session
from vault_app.ui.dialogs import new_items as dialogs
from vault_app.ui.models import review_store
from vault_app.ui.pages import (
    activity_page,
    neighbour_daily,
    neighbour_pages,
    neighbour_search,
    review_page,
)
from vault_app.ui.widgets import conflicts
from vault_app.ui.window import neighbour_live, recent_vaults, window_vaults

PageKey = tuple[str, str | None]  # (page kind, agent); principles: (kind, None)
KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole
REVIEW: PageKey = ("review", None)
ACTIVITY: PageKey = ("activity", None)
# the folder's pages below its agents' (kept by vault-app about the folder, not in it)
STATE_PAGES = {"review": "Review queue", "activity": "Activity"}


class NeighbourWindow(QtWidgets.QMainWindow):
    """A neighbour's folder: the banner, the sidebar of its agents' pages, the page shown."""

    vaultSwitched = QtCore.Signal(object)  # the new window (File › Open)

    def __init__(
        self,
        folder: neighbours.ForeignFolder,
        store: QtCore.QSettings,
        *,
        live: bool = True,
        search: bool = False,
        semantic: bool = False,
    ) -> None:
        super().__init__()
        self.folder = folder
        self.store = store
        self.session = session.FolderSession(folder, self)
        self.format_name = folder.name  # "Hermes home"...
        self.setWindowTitle(f"{self.format_name} — {folder.root.name} — vault-app")
        self.setObjectName("neighbourWindow")
        window_vaults.first_size(self)  # within the screen
        self.agents: list[str] = []
        self.pages: dict[PageKey, QtWidgets.QWidget] = {}
        self.review_count: int | None = None  # pending proposals, once read
        self._discard_ok = False
        self.live = neighbour_live.FolderLiveSync(self.session, self) if live else None
        self._build()
        self.search: neighbour_search.NeighbourSearch | None = None
        self.search_dock: QtWidgets.QDockWidget | None = None
        if search:
            self._build_search_dock(semantic)
        self.commands = menu_tables.add_neighbour_commands(self)
        self.commands.take_keys(self.review)  # Approve and Reject: the page's own keys
        keyboard.install()  # Tab leaves a table; entering one selects a row
        self.review_action = self.commands["review"]
        self.session.error.connect(self.message_bar.show_message)
        if self.live is not None:
            self.live.status.connect(self._on_live_status)
            self.live.agentsChanged.connect(self.list_agents)
            if self.search is not None:
                self.live.applied.connect(lambda _batch: self._refresh_search())
        recent_vaults.remember(store, folder.root)

    # -- construction ---------------------------------------------------------------------

    def _build(self) -> None:
        self.banner = conflicts.Banner(conflicts.MergeNote.INFO)
        self.banner.setObjectName("formatBanner")
        self.banner_label = QtWidgets.QLabel()
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        words = html.escape(neighbour_pages.FORMAT_WORDS[self.folder.format])
        self._banner_text = (
            f"<b>{html.escape(self.format_name)}</b> — {html.escape(str(self.folder.root))}"
            f"<br>Opened as it is: {words}. Nothing is converted; vault-app keeps its own "
            "backups and log of these writes outside the folder."
        )
        self.banner_label.setText(self._banner_text)
        self.banner_label.linkActivated.connect(lambda _link: self.show_review())
        row = QtWidgets.QHBoxLayout(self.banner)
        row.setContentsMargins(10, 6, 10, 6)
        row.addWidget(self.banner_label, 1)
        self.banner.setAccessibleName(f"{self.format_name}: the folder's format")

        self.sidebar = QtWidgets.QTreeWidget()
        self.sidebar.setHeaderHidden(True)
        self.sidebar.setAccessibleName("What the folder holds")
        self.sidebar.setMinimumWidth(220)
        self.sidebar.currentItemChanged.connect(self._on_sidebar_current)

        self.placeholder = QtWidgets.QLabel("Reading the folder…")
        self.placeholder.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.stack = QtWidgets.QStackedWidget()
        self.stack.addWidget(self.placeholder)
        reviews = review_store.FolderReviews(self.session)
        self.review = review_page.ReviewPage(reviews, heading=False)  # made now: the badge
        self.review.pending.connect(self._show_review_count)
        self.pages[REVIEW] = self.review
        self.stack.addWidget(self.review)
        self.activity_source = activity_page.FolderActivity(self.session)
        self.activity = activity_page.ActivityPage(self.activity_source, heading=False)
        self.activity.openReview.connect(self.open_review_item)
        self.pages[ACTIVITY] = self.activity
        self.stack.addWidget(self.activity)
        self.page_title = QtWidgets.QLabel()
        font = self.page_title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.page_title.setFont(font)
        self.page_file = QtWidgets.QLabel()
        self.page_file.setProperty("notice", True)
        self.page_file.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        self.message_bar = dialogs.MessageBar()
        right = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(right)
        column.setContentsMargins(8, 4, 8, 4)
        column.addWidget(self.page_title)
        column.addWidget(self.page_file)
        column.addWidget(self.stack, 1)
        self.splitter = QtWidgets.QSplitter()
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([280, 1000])
        central = QtWidgets.QWidget()
        outer = QtWidgets.QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.banner)
        outer.addWidget(self.message_bar)
        outer.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.path_label = QtWidgets.QLabel(f"{self.format_name}: {self.folder.root}")
        self.live_label = QtWidgets.QLabel("Live sync: off" if self.live is None else "")
        self.statusBar().addWidget(self.path_label, 1)
        self.statusBar().addPermanentWidget(self.live_label)

    def _build_search_dock(self, semantic: bool) -> None:
        self.search = neighbour_search.NeighbourSearch(self.session, semantic=semantic)
        self.search.openOrigin.connect(self.open_origin)
        dock = self.search_dock = QtWidgets.QDockWidget("Search", self)
        dock.setObjectName("searchDock")
        dock.setWidget(self.search)
        self.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()

    # -- loading ----------------------------------------------------------------------------

    def start(self) -> None:
        """List the folder's agents (off the GUI thread), read the review queue (the
        badge), open the search index, then start live sync."""
        self.list_agents()
        self.review.refresh()
        if self.search is not None:
            self.search.open()
        if self.live is not None:
            self.live.start()
            self.live_label.setText("Live sync: starting")

    def list_agents(self) -> None:
        self.session.run(self.folder.agents, self._show_agents)

    def _show_agents(self, agents: list[str]) -> None:
        current = self.current_key()
        self.agents = agents
        self.activity_source.agents = tuple(agents)  # "agent:ID" read as the agent
        blocker = QtCore.QSignalBlocker(self.sidebar)
        self.sidebar.clear()
        fmt = self.folder.format
        for kind in neighbour_pages.FOLDER_PAGES.get(fmt, ()):
            self.sidebar.addTopLevelItem(self._item(kind, None, neighbour_pages.TITLES[kind]))
        for agent in agents:
            top = QtWidgets.QTreeWidgetItem([neighbour_pages.agent_title(fmt, agent)])
            top.setToolTip(0, f"Agent {agent}")
            flags = top.flags() & ~QtCore.Qt.ItemFlag.ItemIsSelectable
            top.setFlags(flags)
            bold = top.font(0)
            bold.setBold(True)
            top.setFont(0, bold)
            for kind in neighbour_pages.PAGES[fmt]:
                top.addChild(self._item(kind, agent, neighbour_pages.TITLES[kind]))
            self.sidebar.addTopLevelItem(top)
        for kind, title in STATE_PAGES.items():
            self.sidebar.addTopLevelItem(self._item(kind, None, title))
        self._show_review_count(self.review_count)
        self.sidebar.expandAll()
        del blocker
        if not agents and fmt != neighbours.detect.MICROCLAW:
            self.placeholder.setText("This folder holds no agent yet.")
        wanted = current if current is not None and self._find(current) else None
        if wanted is None:  # the first page of the folder's own (not the review queue)
            first = next((k for k in self._keys() if k[0] not in STATE_PAGES), None)
            wanted = first
        if wanted is not None:
            self.open_page(*wanted)
        elif not agents:
            self.placeholder.setText(
                f"This {self.format_name} holds no persona with a MEMORY.md yet."
            )

    def _item(self, kind: str, agent: str | None, title: str) -> QtWidgets.QTreeWidgetItem:
        item = QtWidgets.QTreeWidgetItem([title])
        item.setData(0, KEY_ROLE, (kind, agent))
        where = neighbour_pages.FILES.get((self.folder.format, kind), "")
        if kind == "review":
            where = "Agent writes the injection scan held back, for you to decide"
        elif kind == "activity":
            where = "Who wrote what in the folder: its agents, you, the review queue"
        item.setToolTip(0, where)
        return item

    def _keys(self) -> list[PageKey]:
        found = []
        iterator = QtWidgets.QTreeWidgetItemIterator(self.sidebar)
        while iterator.value() is not None:
            key = iterator.value().data(0, KEY_ROLE)
            if key is not None:
                found.append(tuple(key))
            iterator += 1
        return found

    def _find(self, key: PageKey) -> QtWidgets.QTreeWidgetItem | None:
        iterator = QtWidgets.QTreeWidgetItemIterator(self.sidebar)
        while iterator.value() is not None:
            item = iterator.value()
            if item.data(0, KEY_ROLE) is not None and tuple(item.data(0, KEY_ROLE)) == key:
                return item
            iterator += 1
        return None

    # -- pages ----------------------------------------------------------------------------

    def page_keys(self) -> list[PageKey]:
        """Every page the sidebar lists, in its order."""
        return self._keys()

    def current_key(self) -> PageKey | None:
        item = self.sidebar.currentItem()
        key = item.data(0, KEY_ROLE) if item is not None else None
        return None if key is None else (key[0], key[1])

    def open_page(self, kind: str, agent: str | None = None) -> QtWidgets.QWidget:
        """Show page `kind` of `agent` (made on first use), in step with the sidebar."""
        key = (kind, agent)
        page = self.pages.get(key)
        if page is None:
            page = self.pages[key] = neighbour_pages.make_page(self.session, kind, agent)
            self.stack.addWidget(page)
        self.stack.setCurrentWidget(page)
        title = STATE_PAGES.get(kind) or neighbour_pages.TITLES[kind]
        fmt = self.folder.format
        owner = "" if agent is None else f" — {neighbour_pages.agent_title(fmt, agent)}"
        self.page_title.setText(f"{title}{owner}")
        where = neighbour_pages.FILES.get((fmt, kind), "")  # tiers: the editor says it
        if kind == "review":
            where = f"Kept by vault-app in {self.review.store.queue()}, not in the folder"
        elif kind == "activity":
            log = self.activity_source.logs()[0]
            where = f"vault-app's log of the writes to this folder: {log}"
        self.page_file.setText(where)
        self.page_file.setVisible(bool(where))
        item = self._find(key)
        if item is not None and self.sidebar.currentItem() is not item:
            blocker = QtCore.QSignalBlocker(self.sidebar)
            self.sidebar.setCurrentItem(item)
            del blocker
        return page

    def current_page(self) -> QtWidgets.QWidget | None:
        page = self.stack.currentWidget()
        return None if page is self.placeholder else page

    def _on_sidebar_current(self, item: QtWidgets.QTreeWidgetItem | None, *_: Any) -> None:
        key = item.data(0, KEY_ROLE) if item is not None else None
        if key is not None:
            self.open_page(key[0], key[1])

    # -- commands -------------------------------------------------------------------------

    def save_page(self) -> None:
        page = self.current_page()
        save = getattr(page, "save", None)
        if callable(save):
            save()

    def refresh_page(self) -> None:
        """Read the page shown again (a page with unsaved edits keeps them)."""
        page = self.current_page()
        if page is None:
            self.list_agents()
            return
        if page is self.review or page is self.activity:
            page.refresh()
            return
        dirty = getattr(page, "is_dirty", None)
        reload = getattr(page, "reload", None)
        if callable(reload) and not (callable(dirty) and dirty()):
            reload()

    def show_review(self) -> QtWidgets.QWidget:
        """The review queue (Go › Review queue)."""
        return self.open_page(*REVIEW)

    def open_review_item(self, review_id: str) -> None:
        """The review queue with one proposal selected (a held-back write's line)."""
        self.show_review()
        self.review.show_item(review_id)

    def show_activity(self) -> QtWidgets.QWidget:
        """Who wrote what in the folder (Go › Activity)."""
        return self.open_page(*ACTIVITY)

    def _show_review_count(self, count: int | None) -> None:
        """The pending count: on the sidebar's item, the Go menu's command, the banner."""
        self.review_count = count
        review_page.show_badge(self.review_action, count)
        item = self._find(REVIEW)
        if item is not None:
            item.setText(0, review_page.badge(count))
            font = item.font(0)
            font.setBold(bool(count))
            item.setFont(0, font)
        waits = ""
        if count:
            writes = session.plural(count, "agent write")
            verb = "waits" if count == 1 else "wait"
            waits = (
                f"<br><b>{writes} {verb} for your review</b> — "
                '<a href="review">open the Review queue</a>'
            )
        self.banner_label.setText(self._banner_text + waits)

    def show_search(self) -> None:
        if self.search_dock is not None and self.search is not None:
            if self.search_dock.isHidden():  # room for a hit's text and where it is
                self.resizeDocks([self.search_dock], [420], QtCore.Qt.Orientation.Horizontal)
            self.search_dock.show()
            self.search_dock.raise_()
            self.search.focus_query()

    def _refresh_search(self) -> None:
        if self.search is not None:
            self.search.refresh()

    def open_origin(self, origin: dict[str, Any]) -> QtWidgets.QWidget | None:
        """The page of a search hit's entry (`origin`: structure, agent, target, date)."""
        structure, agent = origin.get("structure"), origin.get("agent")
        if structure == "notes":
            structure = "notes" if origin.get("target") == "memory" else "user"
        if structure == "principles":
            agent = None
        elif agent not in self.agents:  # a chat's shared log: its first persona's page
            chat = f"{origin.get('chat') or agent}/"
            agent = next((a for a in self.agents if a.startswith(chat)), None)
        if structure is None or self._find((structure, agent)) is None:
            self.statusBar().showMessage(f"{origin.get('where', '')}: not a page here", 10_000)
            return None
        page = self.open_page(structure, agent)
        day = origin.get("date")
        if isinstance(page, neighbour_daily.NeighbourDaily) and day:
            page.show_day(dt.date.fromisoformat(day))
        return page

    def switch_vault(self, path: Path) -> QtWidgets.QMainWindow | None:
        return window_vaults.switch_vault(self, path)

    def _on_live_status(self, state: str, message: str) -> None:
        self.live_label.setText(f"Live sync: {state}")
        self.live_label.setToolTip(message)
        if state in ("missing", "error", "degraded"):
            self.message_bar.show_message("Live sync: " + state, message)

    # -- closing ----------------------------------------------------------------------------

    def _dirty_pages(self) -> list[str]:
        fmt = self.folder.format
        dirty = []
        for (kind, agent), page in self.pages.items():
            is_dirty = getattr(page, "is_dirty", None)
            if callable(is_dirty) and is_dirty():
                owner = "" if agent is None else f" ({neighbour_pages.agent_title(fmt, agent)})"
                dirty.append(neighbour_pages.TITLES.get(kind, kind) + owner)
        return dirty

    def _confirm_discard(self) -> bool:
        return window_vaults.confirm_discard(self, self._dirty_pages())

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if not self._confirm_discard():
            event.ignore()
            return
        if self.live is not None:
            self.live.stop()
        self.session.close()
        event.accept()
