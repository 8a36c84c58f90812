"""The entity page's header: who it is, how many facts, and what can be done with it.

Design
------
`EntityHeader` shows the entity's title, its address (a muted second name, " · archived"
when it is) and its tier counts, and on the right its actions as buttons. The names come
first: the action row takes the width they leave, and what does not fit folds, from the
last action back, into a "More" button (⋯) at the row's end whose menu holds the folded
actions (the pattern of VS Code's editor title bar and GNOME's header bars). The actions
are the page's own `QAction`s, so a folded one keeps its key, its tooltip and its enabled
state; an action that is not `isVisible()` (Unarchive on a live entity) takes no room.

The folding is done in `ActionRow.resizeEvent` from each button's size hint: no timer, no
extra layout pass, and a resize never makes the row ask for more room than it was given.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models
from vault_app.ui import models as qt_models

Qt = QtCore.Qt
SPACING = 4  # between two buttons of the row
NAMES_GAP = 10  # between the title and the address, and the names and the actions


class ActionRow(QtWidgets.QWidget):
    """Buttons for `actions`, right-aligned; those that do not fit go into the More menu."""

    def __init__(
        self, actions: Iterable[QtGui.QAction], parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.actions_shown = list(actions)
        self.buttons: dict[QtGui.QAction, QtWidgets.QToolButton] = {}
        for action in self.actions_shown:
            button = QtWidgets.QToolButton(self)
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            self.buttons[action] = button
            action.changed.connect(self._refit)
        self.more_menu = QtWidgets.QMenu(self)
        self.more = QtWidgets.QToolButton(self)
        self.more.setText("⋯")
        self.more.setToolTip("More actions for this entity")
        self.more.setAccessibleName("More actions")
        self.more.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more.setMenu(self.more_menu)
        self.more.setStyleSheet("QToolButton::menu-indicator { image: none; }")  # ⋯ says it
        self.folded: list[QtGui.QAction] = []
        policy = QtWidgets.QSizePolicy.Policy
        self.setSizePolicy(policy.Preferred, policy.Fixed)

    def _wanted(self) -> list[QtGui.QAction]:
        return [a for a in self.actions_shown if a.isVisible()]

    def sizeHint(self) -> QtCore.QSize:
        widths = [self.buttons[a].sizeHint().width() for a in self._wanted()]
        height = max([b.sizeHint().height() for b in self.buttons.values()] or [0])
        return QtCore.QSize(sum(widths) + SPACING * max(0, len(widths) - 1), height)

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(self.more.sizeHint().width(), self.sizeHint().height())

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit(event.size().width())

    def _refit(self) -> None:
        self.updateGeometry()  # an action shown or hidden: the row's wish changed
        self._fit(self.width())

    def _fit(self, width: int) -> None:
        """Place the buttons that fit in `width`, right-aligned; fold the rest."""
        wanted = self._wanted()
        sizes = [self.buttons[a].sizeHint() for a in wanted]
        need = sum(s.width() for s in sizes) + SPACING * max(0, len(sizes) - 1)
        kept = len(wanted)
        if need > width:  # room for the More button too, then as many as fit
            room = width - self.more.sizeHint().width() - SPACING
            kept, used = 0, 0
            for size in sizes:
                if used + size.width() > room:
                    break
                used += size.width() + SPACING
                kept += 1
        self.folded = wanted[kept:]
        self.more_menu.clear()
        self.more_menu.addActions(self.folded)
        self.more.setVisible(bool(self.folded))
        x = width
        placed = [(self.more, self.more.sizeHint())] if self.folded else []
        placed += [(self.buttons[a], s) for a, s in zip(wanted[:kept], sizes, strict=False)][::-1]
        for button, size in placed:
            x -= size.width()
            button.setGeometry(x, 0, size.width(), size.height())
            button.show()
            x -= SPACING
        shown = set(wanted[:kept])
        for action, button in self.buttons.items():
            if action not in shown:
                button.hide()


class EntityHeader(QtWidgets.QWidget):
    """Title, address and tier counts of an entity, with its action row (`ActionRow`)."""

    def __init__(
        self, actions: Iterable[QtGui.QAction], parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.title_label = QtWidgets.QLabel()
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.address_label = QtWidgets.QLabel()
        self.address_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.address_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.address_label.setToolTip("The entity's address in the vault")
        self.address_label.setMinimumWidth(60)  # cut rather than widen a squeezed page
        self.counts_label = QtWidgets.QLabel()
        self.counts_label.setTextFormat(Qt.TextFormat.RichText)
        self.counts_label.setMinimumWidth(120)  # cut, not wrapped (wrapping would make the
        # page ask the scroll area for its height by width) nor widening a squeezed page
        self.counts_label.setToolTip("Active facts by tier: how recently they were used")
        self.actions_row = ActionRow(actions)

        names = QtWidgets.QVBoxLayout()
        names.setSpacing(2)
        first = QtWidgets.QHBoxLayout()
        first.addWidget(self.title_label)
        first.addSpacing(NAMES_GAP)
        first.addWidget(self.address_label, 0, Qt.AlignmentFlag.AlignBottom)
        first.addStretch(1)
        names.addLayout(first)
        names.addWidget(self.counts_label)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addLayout(names, 1)
        row.addWidget(self.actions_row, 0, Qt.AlignmentFlag.AlignTop)

    def button(self, action: QtGui.QAction) -> QtWidgets.QToolButton:
        return self.actions_row.buttons[action]

    def show_names(self, title: str, address: str) -> None:
        self.title_label.setText(title)
        self.address_label.setText(address)
        self._share(self.width())

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._share(event.size().width())

    def _share(self, width: int) -> None:
        """The names keep the width their text needs and the action row gets the rest
        (it folds what it cannot hold); only when even its More button would not fit is the
        address cut. The header never asks for more than it is given: a squeezed page
        does not widen."""
        metrics = self.address_label.fontMetrics()
        address = metrics.horizontalAdvance(self.address_label.text()) + 4
        title = self.title_label.sizeHint().width()
        names = max(title + NAMES_GAP + address, self.counts_label.sizeHint().width())
        row = self.actions_row
        room = width - names - NAMES_GAP
        fitted = max(row.minimumSizeHint().width(), min(room, row.sizeHint().width()))
        if row.width() != fitted or row.minimumWidth() != fitted:
            row.setFixedWidth(fitted)

    def show_counts(self, tiers: Iterable[models.DecayTier] | None, superseded: int = 0) -> None:
        """The active facts by tier (`tiers`: one per active fact), or that they cannot be
        read (None)."""
        if tiers is None:
            self.counts_label.setText("The facts cannot be read (see below)")
            return
        counts = {tier: 0 for tier in models.DecayTier}
        for tier in tiers:
            counts[tier] += 1
        parts = [f"<b>{sum(counts.values())}</b> active facts"]
        for tier, count in counts.items():
            colour = qt_models.TIER_COLOURS[tier]
            parts.append(f"<span style='color:{colour}'>●</span> {count} {tier.value}")
        if superseded:
            parts.append(f"{superseded} superseded")
        self.counts_label.setText(" &nbsp;·&nbsp; ".join(parts))
