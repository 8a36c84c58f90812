"""The tier badge: a tier column (`TIER_ROLE`) painted as a coloured pill, in every table
that has one (the facts table, the dashboard's going-cold list)."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models
from vault_app.ui import themes
from vault_app.ui.models.base import TIER_COLOURS, TIER_ROLE, draw_item_frame

Qt = QtCore.Qt
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex


def badge_text_colour(background: QtGui.QColor) -> QtGui.QColor:
    """Near-black or white on a pill, whichever contrasts more (`themes.text_on`)."""
    return themes.text_on(background)


def tier_dot(colour: str, size: int = 10) -> QtGui.QIcon:
    """A small filled circle: the tier's colour next to its toggle."""
    pixmap = QtGui.QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(pixmap)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setPen(QtGui.QPen(QtGui.QColor("#ffffff"), 1))  # seen on a filled toggle too
    painter.setBrush(QtGui.QColor(colour))
    painter.drawEllipse(QtCore.QRectF(0.5, 0.5, size - 1, size - 1))
    painter.end()
    return QtGui.QIcon(pixmap)


class TierBadgeDelegate(QtWidgets.QStyledItemDelegate):
    """Paints the tier (`TIER_ROLE`) as a coloured rounded pill: Hot, Warm, Cold."""

    PADDING = 8
    MARGIN = 4

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionViewItem,
        index: Index,
    ) -> None:
        tier = index.data(TIER_ROLE)
        if tier is None:
            super().paint(painter, option, index)
            return
        opt, _ = draw_item_frame(self, painter, option, index)
        label = models.DecayTier(tier).value.capitalize()
        colour = QtGui.QColor(TIER_COLOURS[models.DecayTier(tier)])
        metrics = opt.fontMetrics
        width = metrics.horizontalAdvance(label) + 2 * self.PADDING
        height = min(metrics.height() + 4, opt.rect.height() - 2)
        pill = QtCore.QRectF(
            opt.rect.left() + self.MARGIN,
            opt.rect.top() + (opt.rect.height() - height) / 2,
            width,
            height,
        )
        painter.save()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(pill, height / 2, height / 2)
        painter.setPen(badge_text_colour(colour))
        font = QtGui.QFont(opt.font)
        font.setBold(True)
        painter.setFont(font)
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, label)
        painter.restore()

    def sizeHint(self, option: QtWidgets.QStyleOptionViewItem, index: Index) -> QtCore.QSize:
        base = super().sizeHint(option, index)
        tier = index.data(TIER_ROLE)
        if tier is None:
            return base
        font = QtGui.QFont(option.font)
        font.setBold(True)
        metrics = QtGui.QFontMetrics(font)
        label = models.DecayTier(tier).value.capitalize()
        width = metrics.horizontalAdvance(label) + 2 * self.PADDING + 2 * self.MARGIN
        return QtCore.QSize(max(base.width(), width), max(base.height(), metrics.height() + 6))
