"""The decay dashboard's chart: one horizontal stacked bar of facts per tier for each scope.

`TierChart` paints Hot, Warm and Cold active facts, and Superseded ones in grey, with
counts, a legend and a tooltip per segment, from the rows of `core.outlook.tier_rows`.
QtCharts is not in PySide6-Essentials; the chart is painted by hand in palette colours,
so it reads in the light and the dark theme. `set_shares(True)` scales every bar to 100 %.

Otherwise a bar's length compares it with its own group: Global with Global, each agent
with the largest agent (issue 30: beside the vault's hundreds of facts, an agent's twenty
were slivers with no room for their numbers). The totals beside the bars say the sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import outlook
from vault_app.ui import themes

Qt = QtCore.Qt

TIER_TITLES = {"hot": "Hot", "warm": "Warm", "cold": "Cold", "superseded": "Superseded"}
TIER_MEANINGS = {
    "hot": "accessed recently",
    "warm": "not accessed for a while",
    "cold": "left out of summaries, still searchable",
    "superseded": "old versions, kept for their history",
}


def _tier_fill(tier: str) -> QtGui.QColor:
    return themes.SUPERSEDED_COLOUR if tier == "superseded" else themes.tier_colour(tier)


class TierChart(QtWidgets.QWidget):
    """Horizontal stacked bars of facts per tier, one per scope, painted in palette colours."""

    MARGIN = 10
    GAP = 10

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[outlook.TierRow] = []
        self.shares = False
        self.placeholder = "Counting facts…"
        self._segments: list[tuple[QtCore.QRectF, outlook.TierRow, str]] = []
        self.setMouseTracking(True)
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed
        )
        self.setAccessibleName("Facts per tier")

    def set_rows(self, rows: Sequence[outlook.TierRow]) -> None:
        self.rows = list(rows)
        self.setAccessibleDescription(
            "; ".join(
                f"{row.label}: "
                + ", ".join(f"{row.count(t)} {TIER_TITLES[t].lower()}" for t in outlook.TIERS)
                for row in self.rows
            )
        )
        self._segments = []
        self.updateGeometry()
        self.update()

    def set_shares(self, shares: bool) -> None:
        self.shares = shares
        self._segments = []
        self.update()

    # -- geometry -------------------------------------------------------------------------

    def _bar_height(self) -> int:
        return max(self.fontMetrics().height() + 10, 24)

    def _legend_height(self) -> int:
        return self.fontMetrics().height() + 12

    def sizeHint(self) -> QtCore.QSize:
        rows = max(len(self.rows), 1)
        height = 2 * self.MARGIN + self._legend_height() + rows * (self._bar_height() + self.GAP)
        return QtCore.QSize(520, height)

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(320, self.sizeHint().height())

    def _geometry(self) -> tuple[float, float, float]:
        """(left edge of the bars, their full width, top of the first bar)."""
        metrics = self.fontMetrics()
        label_width = max((metrics.horizontalAdvance(r.label) for r in self.rows), default=0)
        total_width = metrics.horizontalAdvance(self._total_text(999_999))
        left = self.MARGIN + label_width + 12
        width = max(self.width() - left - total_width - 12 - self.MARGIN, 40)
        return float(left), float(width), float(self.MARGIN + self._legend_height())

    def _layout(self) -> list[tuple[QtCore.QRectF, outlook.TierRow, str]]:
        """Every segment's rectangle (widget coordinates), with its row and tier."""
        left, width, top = self._geometry()
        largest: dict[bool, int] = {}  # the largest total of each group: agents, or not
        for row in self.rows:
            agent = row.scope.startswith("agent:")
            largest[agent] = max(largest.get(agent, 0), row.total)
        segments = []
        for number, row in enumerate(self.rows):
            y = top + number * (self._bar_height() + self.GAP)
            scale = row.total if self.shares else largest[row.scope.startswith("agent:")]
            x = left
            for tier in outlook.TIERS:
                count = row.count(tier)
                if not count or not scale:
                    continue
                span = width * count / scale
                segments.append((QtCore.QRectF(x, y, span, self._bar_height()), row, tier))
                x += span
        return segments

    def segment_at(self, pos: QtCore.QPoint | QtCore.QPointF) -> tuple[outlook.TierRow, str] | None:
        point = QtCore.QPointF(pos)
        for rect, row, tier in self._segments or self._layout():
            if rect.contains(point):
                return row, tier
        return None

    def tooltip_at(self, pos: QtCore.QPoint | QtCore.QPointF) -> str | None:
        hit = self.segment_at(pos)
        if hit is None:
            return None
        row, tier = hit
        count = row.count(tier)
        share = 100 * count / row.total if row.total else 0
        return (
            f"<b>{row.label} — {TIER_TITLES[tier]}</b><br>{count:,} "
            f"fact{'s' if count != 1 else ''} ({share:.0f} % of {row.total:,})<br>"
            f"<i>{TIER_MEANINGS[tier]}</i>"
        )

    def event(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:
            assert isinstance(event, QtGui.QHelpEvent)
            text = self.tooltip_at(event.pos())
            if text:
                QtWidgets.QToolTip.showText(event.globalPos(), text, self)
            else:
                QtWidgets.QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self._segments = []
        super().resizeEvent(event)

    # -- painting -------------------------------------------------------------------------

    @staticmethod
    def _total_text(total: int) -> str:
        return f"{total:,} fact{'s' if total != 1 else ''}"

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QtGui.QPalette.ColorRole.WindowText)
        if not any(row.total for row in self.rows):
            painter.setPen(palette.color(QtGui.QPalette.ColorRole.PlaceholderText))
            message = self.placeholder if not self.rows else "No facts in this vault yet."
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, message)
            painter.end()
            return
        self._paint_legend(painter, text)
        self._segments = self._layout()
        self._paint_bars(painter, palette, text)
        painter.end()

    def _paint_legend(self, painter: QtGui.QPainter, text: QtGui.QColor) -> None:
        metrics = self.fontMetrics()
        x = float(self.MARGIN)
        y = float(self.MARGIN)
        swatch = metrics.height() - 4
        for tier in outlook.TIERS:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_tier_fill(tier))
            painter.drawRoundedRect(QtCore.QRectF(x, y + 2, swatch, swatch), 3, 3)
            x += swatch + 6
            painter.setPen(text)
            label = TIER_TITLES[tier]
            painter.drawText(
                QtCore.QRectF(x, y, metrics.horizontalAdvance(label) + 2, metrics.height()),
                Qt.AlignmentFlag.AlignVCenter,
                label,
            )
            x += metrics.horizontalAdvance(label) + 20

    def _paint_bars(
        self, painter: QtGui.QPainter, palette: QtGui.QPalette, text: QtGui.QColor
    ) -> None:
        metrics = self.fontMetrics()
        height = self._bar_height()
        left, width, top = self._geometry()
        track = palette.color(QtGui.QPalette.ColorRole.Mid)
        track.setAlphaF(0.3)
        for number, row in enumerate(self.rows):
            y = top + number * (height + self.GAP)
            painter.setPen(text)
            label_rect = QtCore.QRectF(self.MARGIN, y, left - self.MARGIN - 12, height)
            painter.drawText(label_rect, Qt.AlignmentFlag.AlignVCenter, row.label)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(track)
            painter.drawRoundedRect(QtCore.QRectF(left, y, width, height), 4, 4)
            painter.setPen(text)
            total_rect = QtCore.QRectF(left + width + 12, y, self.width(), height)
            painter.drawText(total_rect, Qt.AlignmentFlag.AlignVCenter, self._total_text(row.total))
        for rect, row, tier in self._segments:
            fill = _tier_fill(tier)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRect(rect)
            label = f"{row.count(tier):,}"
            if metrics.horizontalAdvance(label) + 8 <= rect.width():
                painter.setPen(themes.text_on(fill))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
