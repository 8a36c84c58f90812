"""The tier badge: a tier column (`TIER_ROLE`) painted as a coloured pill, in every table
that has one (the facts table, the dashboard's going-cold list)."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models
from vault_app.ui.models.base import TIER_COLOURS, TIER_ROLE, draw_item_frame

Qt = QtCore.Qt
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex


def badge_text_colour(background: QtGui.QColor) -> QtGui.QColor:
    """Dark text on light pills, white on dark ones (relative luminance)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    lum = (
        0.2126 * channel(background.redF())
        + 0.7152 * channel(background.greenF())
        + 0.0722 * channel(background.blueF())
    )
    return QtGui.QColor("#1a1a1a") if lum > 0.3 else QtGui.QColor("#ffffff")


def tier_dot(colour: str, size: int = 10) -> QtGui.QIcon:
    """A small filled circle: the tier's colour next to its toggle."""
    pixmap = QtGui.QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(pixmap)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QtGui.QColor(colour))
    painter.drawEllipse(0, 0, size, size)
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
