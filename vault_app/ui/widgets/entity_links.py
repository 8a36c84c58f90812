"""Beside an entity's facts: its links both ways, by title — the entities its active facts
name ("Links to") and the entities whose active facts name it ("Linked from", backlinks).

Read from the window's `LinkKeeper` (no disk access here), refreshed when it changes.
Clicking (or Enter on) an entity emits `openEntity(address)`. Until the keeper's first
build is done the panel says that links are being read.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import errors, layout, links
from vault_app.ui.window.link_keeper import LinkKeeper

Qt = QtCore.Qt
ADDRESS_ROLE = Qt.ItemDataRole.UserRole + 1


def title_of(address: str) -> str:
    """An entity's title from its address ("areas/people/jane-doe" → "Jane Doe")."""
    try:
        ref = layout.EntityRef.parse(address)
    except errors.InvalidIdError:
        return address
    scope = f" ({ref.agent})" if ref.agent else ""
    archived = " · archived" if ref.category == "archives" else ""
    return f"{ref.title}{scope}{archived}"


class EntityLinksPanel(QtWidgets.QWidget):
    """Outgoing links and backlinks of one entity (see the module docstring)."""

    openEntity = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.keeper: LinkKeeper | None = None
        self.address: str | None = None
        self.label = QtWidgets.QLabel("Links")
        font = self.label.font()
        font.setBold(True)
        self.label.setFont(font)
        self.label.setSizePolicy(  # cut in a narrow pane rather than widen it
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.label.setMinimumWidth(40)
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(12)
        self.tree.setAccessibleName("Links to and from this entity")
        self.tree.setToolTip("Click an entity to open it")
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        self.label.setBuddy(self.tree)
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(0, 4, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.label)
        box.addWidget(self.tree, 1)

    def set_keeper(self, keeper: LinkKeeper | None) -> None:
        if self.keeper is not None:
            self.keeper.changed.disconnect(self.refresh)
        self.keeper = keeper
        if keeper is not None:
            keeper.changed.connect(self.refresh)
        self.refresh()

    def show_entity(self, address: str | None) -> None:
        self.address = address
        self.refresh()

    def refresh(self) -> None:
        self.tree.clear()
        index = self.keeper.index if self.keeper is not None else None
        if self.address is None:
            self.label.setText("Links")
            return
        if index is None:
            self.label.setText("Links: reading the vault's links…")
            return
        outgoing = index.links_from(self.address)
        incoming = index.backlinks(self.address)
        unknown = index.unresolved(self.address)
        self.label.setText(f"Links ({len(outgoing)} to, {len(incoming)} from)")
        self._group(f"Links to ({len(outgoing)})", outgoing, lambda link: link.target)
        self._group(f"Linked from ({len(incoming)})", incoming, lambda link: link.source)
        if unknown:
            group = QtWidgets.QTreeWidgetItem([f"Not in this vault ({len(unknown)})"])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for name in unknown:
                item = QtWidgets.QTreeWidgetItem([name])
                item.setToolTip(0, f"{name} names no entity of this vault")
                item.setForeground(
                    0, self.palette().brush(QtGui.QPalette.ColorRole.PlaceholderText)
                )
                group.addChild(item)
            self.tree.addTopLevelItem(group)
            group.setExpanded(True)

    def _group(self, title: str, found: list[links.Link], end: Callable[[links.Link], str]) -> None:
        group = QtWidgets.QTreeWidgetItem([title])
        group.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = group.font(0)
        font.setBold(True)
        group.setFont(0, font)
        for link in sorted(found, key=lambda item: title_of(end(item)).casefold()):
            address = end(link)
            count = len(link.fact_ids)
            item = QtWidgets.QTreeWidgetItem([title_of(address)])
            item.setData(0, ADDRESS_ROLE, address)
            item.setToolTip(0, f"Open {address} ({count} fact{'s' if count != 1 else ''} name it)")
            group.addChild(item)
        if not found:
            none = QtWidgets.QTreeWidgetItem(["none"])
            none.setFlags(Qt.ItemFlag.NoItemFlags)
            group.addChild(none)
        self.tree.addTopLevelItem(group)
        group.setExpanded(True)

    def addresses(self, group: int) -> list[str]:
        """The addresses listed under group `group` (0: links to, 1: linked from)."""
        top = self.tree.topLevelItem(group)
        if top is None:
            return []
        children = (top.child(i) for i in range(top.childCount()))
        return [a for c in children if c is not None and (a := c.data(0, ADDRESS_ROLE))]

    def _clicked(self, item: QtWidgets.QTreeWidgetItem, _column: int = 0) -> None:
        address = item.data(0, ADDRESS_ROLE)
        if address:
            self.openEntity.emit(address)
