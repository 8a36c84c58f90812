"""Under the facts table of an entity page: the selected fact's history (old → new,
superseded versions greyed, each with its time and author, and a word diff of the chosen
version against the one before), the fact's related entities, and the entity's links both
ways (`entity_links.EntityLinksPanel`, from the window's link index).

Authors come from the audit log (`core.history.authors`, on a worker); the diff from
`core.history.word_diff`.

The history comes from the facts the page shows when the whole lineage is in the entity
(`local_history`); when a link leads outside (archived, moved), `Vault.fact_history` is
asked on a worker, and a lookup that finishes after a newer selection is dropped.
Activating a version in this entity emits `factRequested(fact id)` (the page selects it);
a version elsewhere, or a related entity that is in the vault, emits `openEntity(address)`.

The panel is the page's bottom panel (VS Code's): shown when there is something to show —
a fact selected — and the person wants it (`set_wanted`: View › Fact details, Ctrl+J);
otherwise hidden, and the facts table above it has the room (issue 30: a third of the
page stood empty until a fact was selected).
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import feed, history, layout, models
from vault_app.ui import models as qt_models
from vault_app.ui import themes
from vault_app.ui.session import Session, describe
from vault_app.ui.widgets.entity_links import EntityLinksPanel, title_of
from vault_app.ui.widgets.related_entities import known_addresses, resolve_related
from vault_app.ui.window.link_keeper import LinkKeeper

Qt = QtCore.Qt


def _narrowable(label: QtWidgets.QLabel) -> None:
    """A heading that may be cut in a narrow pane rather than widen it (a page squeezed
    by the search dock must not need a scroll bar for a label's sake)."""
    label.setSizePolicy(
        QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
    )
    label.setMinimumWidth(40)


def local_history(fact: models.Fact, by_id: dict[str, models.Fact]) -> list[models.Fact] | None:
    """The fact's lineage (old → new) within its entity, or None if a link leads outside."""
    walk = models.walk_lineage(fact, by_id.get)
    return walk.chain if walk.complete else None


class FactLineagePanel(QtWidgets.QSplitter):
    """The history and the related entities of one fact, side by side (resizable)."""

    openEntity = QtCore.Signal(str)  # a related entity, or a version in another entity
    factRequested = QtCore.Signal(str)  # a version in the shown entity: select it

    HISTORY_ROLE = Qt.ItemDataRole.UserRole + 1

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.session = session
        self.address: str | None = None  # the entity whose fact is shown
        self._history_generation = 0
        self.wanted = True  # the person's choice (View › Fact details)
        self._has_fact = False  # a fact is shown: something to show
        self._build()
        self.setVisible(False)

    def set_wanted(self, wanted: bool) -> None:
        """Show the panel whenever a fact is selected (True), or never (False)."""
        self.wanted = wanted
        self._update_shown()

    def _update_shown(self) -> None:
        self.setVisible(self.wanted and self._has_fact)

    def _build(self) -> None:
        self.history_label = QtWidgets.QLabel("History (old → new)")
        self.history_label.setWordWrap(True)  # a narrow column: two lines, never cut
        self.history_list = QtWidgets.QTreeWidget()
        self.history_list.setHeaderLabels(["Written", "By", "Status", "Fact"])
        self.history_list.setRootIsDecorated(False)
        self.history_list.setUniformRowHeights(True)
        self.history_list.setAccessibleName("History of the selected fact")
        self.history_list.setToolTip(
            "Every version of the selected fact, oldest first. Enter or double-click "
            "selects that version."
        )
        self.history_list.header().setStretchLastSection(True)
        metrics = self.fontMetrics()
        bold = QtGui.QFont(self.font())
        bold.setBold(True)  # the selected version's row is bold
        stamp = QtGui.QFontMetrics(bold).horizontalAdvance("2026-01-31 14:05")
        self.history_list.setColumnWidth(0, stamp + 16)
        self.history_list.setColumnWidth(1, metrics.horizontalAdvance("agent:finan") + 12)
        self.history_list.setColumnWidth(2, metrics.horizontalAdvance("Superseded") + 16)
        # the fact takes what is left; its whole text is in the tooltip, never a scroll bar
        self.history_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.history_list.itemActivated.connect(self._history_activated)
        self.history_list.currentItemChanged.connect(self._show_diff)
        self.history_label.setBuddy(self.history_list)
        self.diff_view = QtWidgets.QTextBrowser()
        self.diff_view.setAccessibleName("Changes from the version before")
        self.diff_view.setMaximumHeight(metrics.lineSpacing() * 4 + 12)
        self.diff_view.setOpenLinks(False)
        self.diff_view.hide()

        self.related_label = QtWidgets.QLabel("Related entities")
        self.related_label.setWordWrap(True)
        self.related_list = QtWidgets.QListWidget()
        self.related_list.setAccessibleName("Entities related to the selected fact")
        self.related_list.setToolTip("Enter or double-click opens the entity")
        self.related_list.itemActivated.connect(self._related_activated)
        self.related_label.setBuddy(self.related_list)

        def column(
            label: QtWidgets.QLabel, widget: QtWidgets.QWidget, *more: QtWidgets.QWidget
        ) -> QtWidgets.QWidget:
            holder = QtWidgets.QWidget()
            box = QtWidgets.QVBoxLayout(holder)
            box.setContentsMargins(0, 4, 0, 0)
            box.setSpacing(2)
            label.setForegroundRole(QtGui.QPalette.ColorRole.WindowText)
            _narrowable(label)
            font = label.font()
            font.setBold(True)
            label.setFont(font)
            box.addWidget(label)
            box.addWidget(widget, 1)
            for extra in more:
                box.addWidget(extra)
            return holder

        self.links = EntityLinksPanel()
        self.links.openEntity.connect(self.openEntity)
        self.setChildrenCollapsible(False)
        self.addWidget(column(self.history_label, self.history_list, self.diff_view))
        self.addWidget(column(self.related_label, self.related_list))
        self.addWidget(self.links)
        self.setStretchFactor(0, 5)
        self.setStretchFactor(1, 2)
        self.setStretchFactor(2, 3)
        self.setSizes([500, 200, 300])  # scaled to the real width when shown

    # -- showing -------------------------------------------------------------------------

    def clear(self) -> None:
        """Show nothing; a history lookup under way is dropped."""
        self._history_generation += 1
        self.history_list.clear()
        self.related_list.clear()
        self.diff_view.hide()
        self.history_label.setText("History (old → new)")

    def show_fact(
        self,
        fact: models.Fact | None,
        address: str | None,
        agent: str | None,
        facts: Iterable[models.Fact],
    ) -> None:
        """Show `fact` of the entity at `address` (of `agent`, or global), whose shown
        facts are `facts`; None asks the user to select one."""
        self.clear()
        if address != self.links.address:
            self.links.show_entity(address)
        self.address = address
        self._has_fact = fact is not None
        self._update_shown()
        if fact is None:
            self.history_label.setText("History (old → new): select a fact")
            return
        self._show_related(fact, agent)
        by_id = {f.id: f for f in facts}
        chain = local_history(fact, by_id)
        if chain is not None:
            self._fill_history(fact.id, [(self.address or "", step) for step in chain])
            return
        self.history_label.setText("History (old → new): looking it up…")
        generation = self._history_generation
        fact_id = fact.id

        def done(found: list[tuple[layout.EntityRef, models.Fact]]) -> None:
            if generation == self._history_generation:
                self._fill_history(fact_id, [(str(ref), step) for ref, step in found])

        def failed(exc: BaseException) -> None:
            if generation == self._history_generation:
                self.history_label.setText(f"History (old → new): {describe(exc)[1]}")

        self.session.run(lambda: self.session.vault.fact_history(fact_id), done, failed)

    def _fill_history(self, selected: str, chain: list[tuple[str, models.Fact]]) -> None:
        self.history_list.clear()
        versions = len(chain)
        self.history_label.setText(
            "History (old → new): no other versions"
            if versions == 1
            else f"History (old → new): {versions} versions"
        )
        grey = QtGui.QBrush(qt_models.disabled_text())
        previous: models.Fact | None = None
        chosen: QtWidgets.QTreeWidgetItem | None = None
        for address, fact in chain:
            when = fact.timestamp.astimezone().strftime("%Y-%m-%d %H:%M") if fact.timestamp else ""
            elsewhere = f"  (in {address})" if address and address != self.address else ""
            item = QtWidgets.QTreeWidgetItem(
                [when, "…", qt_models.status_text(fact), fact.fact + elsewhere]
            )
            item.setData(0, self.HISTORY_ROLE, (address, fact.id))
            item.setData(3, self.HISTORY_ROLE, (previous, fact))
            item.setToolTip(3, fact.fact)
            if not fact.is_active:
                for column in range(4):
                    item.setForeground(column, grey)
            if fact.id == selected:
                chosen = item
                font = item.font(0)
                font.setBold(True)
                for column in range(4):
                    item.setFont(column, font)
            self.history_list.addTopLevelItem(item)
            previous = fact
        if chosen is not None:
            self.history_list.setCurrentItem(chosen)
        self._look_up_authors([fact for _address, fact in chain])

    def _versions(self) -> list[QtWidgets.QTreeWidgetItem]:
        rows = (
            self.history_list.topLevelItem(r) for r in range(self.history_list.topLevelItemCount())
        )
        return [item for item in rows if item is not None]

    def _look_up_authors(self, versions: list[models.Fact]) -> None:
        """Fill the By column from the audit log, off the GUI thread."""
        generation = self._history_generation
        root = self.session.vault.root

        def done(found: dict[str, str]) -> None:
            if generation != self._history_generation:
                return
            for item in self._versions():
                _address, fact_id = item.data(0, self.HISTORY_ROLE)
                fact = item.data(3, self.HISTORY_ROLE)[1]
                author = found.get(fact_id) or (f"agent:{fact.agent_id}" if fact.agent_id else "")
                known = self.session.known
                agents = known.agents if known is not None else ()
                item.setText(1, feed.who(author, agents) if author else "unknown")  # "You"
                item.setToolTip(
                    1,
                    f"Written by {author}"
                    if fact_id in found
                    else "Not in the audit log (written by hand, or before the log's window)",
                )

        def failed(_exc: BaseException) -> None:
            if generation == self._history_generation:
                for item in self._versions():
                    item.setText(1, "unknown")

        ids = [fact.id for fact in versions]
        self.session.run(lambda: history.authors(root, ids), done, failed)

    def _show_diff(self, item: QtWidgets.QTreeWidgetItem | None, *_args: object) -> None:
        """The chosen version against the one before it, word by word."""
        pair = item.data(3, self.HISTORY_ROLE) if item is not None else None
        if not pair or pair[0] is None:
            self.diff_view.setVisible(
                pair is not None and self.history_list.topLevelItemCount() > 1
            )
            self.diff_view.setHtml("<i>The first version: nothing before it.</i>")
            return
        previous, fact = pair
        self.diff_view.setHtml(diff_html(previous.fact, fact.fact, self.palette()))
        self.diff_view.show()

    def _show_related(self, fact: models.Fact, agent: str | None) -> None:
        known = set(known_addresses(self.session))
        grey = QtGui.QBrush(qt_models.disabled_text())
        for reference in fact.related_entities:
            target = resolve_related(reference, agent, known)
            item = QtWidgets.QListWidgetItem(reference if target is None else title_of(target))
            item.setData(Qt.ItemDataRole.UserRole, target)
            if target is None:
                item.setForeground(grey)
                item.setToolTip(f"{reference} is not in this vault")
            else:
                item.setToolTip(f"Open {target}")
            self.related_list.addItem(item)
        count = len(fact.related_entities)
        self.related_label.setText(
            f"Related entities ({count})" if count else "Related entities: none"
        )

    def set_link_keeper(self, keeper: LinkKeeper) -> None:
        """The window's `link_keeper.LinkKeeper`, for the links column."""
        self.links.set_keeper(keeper)

    def _history_activated(self, item: QtWidgets.QTreeWidgetItem, _column: int) -> None:
        address, fact_id = item.data(0, self.HISTORY_ROLE)
        if address and address != self.address:
            self.openEntity.emit(address)
        else:
            self.factRequested.emit(fact_id)

    def _related_activated(self, item: QtWidgets.QListWidgetItem) -> None:
        target = item.data(Qt.ItemDataRole.UserRole)
        if target:
            self.openEntity.emit(target)


def diff_html(old: str, new: str, palette: QtGui.QPalette) -> str:
    """`core.history.word_diff` as HTML: removed words struck through in the error colour,
    added ones underlined in the accent colour (both readable in either theme)."""
    removed = themes.error_colour(palette).name()
    added = palette.color(QtGui.QPalette.ColorRole.Link).name()
    parts = ["<b>Changes from the version before:</b> "]
    for kind, text in history.word_diff(old, new):
        body = html.escape(text)
        if kind == history.REMOVED:
            parts.append(f"<s style='color:{removed}'>{body}</s>")
        elif kind == history.ADDED:
            parts.append(f"<u style='color:{added}'><b>{body}</b></u>")
        else:
            parts.append(body)
    return "".join(parts)
