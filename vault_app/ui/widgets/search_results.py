"""The search dock's results: display rows built on the worker, their list model, and the
delegate that paints them (`search_panel` holds the dock itself).

* **What is highlighted is what matched.** The worker turns each hit into a display row
  (`run_search`, `build_rows`): the text without markdown marks, cut around the first
  match, and the spans of the words whose token (the engine's own `search.tokenizer`,
  stemming included) is one of the query's tokens. The delegate paints those spans; it
  computes nothing.

`SearchResultsModel` is a plain list model of `ResultRow`s (the hit in `HIT_ROLE`, the
highlight spans in `SPANS_ROLE`); `ResultDelegate` draws a row as two lines of text then a
line with the tier badge, entity, kind and score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout
from vault_app.search import kinds, tokenizer

if TYPE_CHECKING:  # the engine pulls numpy and scipy: imported when first searched
    from vault_app.search import engine as search_engine
from vault_app.ui import models as qt_models
from vault_app.ui import themes

Role = QtCore.Qt.ItemDataRole
HIT_ROLE = Role.UserRole + 1  # search.engine.Hit
SPANS_ROLE = Role.UserRole + 2  # [(start, end)] of highlighted words in the display text
META_ROLE = Role.UserRole + 3  # "Entity · kind · scope" line
TIER_ROLE = Role.UserRole + 4  # "hot" / "warm" / "cold" / None

LIMIT = 50
SNIPPET_CHARS = 320
KIND_TITLES = {kinds.FACT: "fact", kinds.SUMMARY: "summary", kinds.DAILY: "daily note"}

# A word as the tokenizer sees it: a number with inner dots or commas, or letters and
# digits (with combining marks) possibly joined by apostrophes.
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0900-\u0dff"
_WORD = re.compile(rf"\d+(?:[.,]\d+)+|[\w{_MARKS}]+(?:['’][\w{_MARKS}]+)*")
_MARKDOWN_LEAD = re.compile(r"^\s*(?:#+|[-*+]|\d+[.)]|>)\s+")
_HEADING = re.compile(r"^\s*#+\s+")


# -- display rows (built on the worker) -------------------------------------------------------


@dataclass(frozen=True)
class ResultRow:
    """One hit as the list shows it."""

    hit: search_engine.Hit
    text: str  # the display text (markdown marks dropped, cut around the first match)
    spans: tuple[tuple[int, int], ...]  # highlighted words in `text`
    meta: str  # entity or day, kind, scope


def plain_text(text: str) -> str:
    """One line of prose: list marks dropped, a heading ended by a dash, spaces collapsed."""
    lines = []
    for line in text.splitlines():
        words = " ".join(_MARKDOWN_LEAD.sub("", line).split())
        if words:
            lines.append(words + " —" if _HEADING.match(line) else words)
    return " ".join(lines).removesuffix(" —")


def highlight_spans(
    text: str, query_tokens: set[str], tokens: tokenizer.Tokenizer
) -> list[tuple[int, int]]:
    """Spans of the words of `text` whose token is one of `query_tokens`."""
    if not query_tokens:
        return []
    return [
        match.span()
        for match in _WORD.finditer(text)
        if not query_tokens.isdisjoint(tokens.tokenize(match.group()))
    ]


def snippet(
    text: str, query_tokens: set[str], tokens: tokenizer.Tokenizer, size: int = SNIPPET_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`text` as one line cut to about `size` characters around its first match, and the
    spans to highlight in it."""
    line = plain_text(text)
    spans = highlight_spans(line, query_tokens, tokens)
    start = 0
    if spans and spans[0][0] > size // 4:
        start = line.rfind(" ", 0, spans[0][0] - size // 8) + 1
    end = len(line) if len(line) - start <= size else line.rfind(" ", start, start + size)
    if end <= start:
        end = min(len(line), start + size)
    prefix = "… " if start > 0 else ""
    shown = prefix + line[start:end] + (" …" if end < len(line) else "")
    shift = len(prefix) - start
    kept = tuple((a + shift, b + shift) for a, b in spans if a >= start and b <= end)
    return shown, kept


def scope_title(scope: str) -> str:
    return "global" if scope == layout.GLOBAL_SCOPE else scope.replace("agent:", "agent ", 1)


def meta_line(hit: search_engine.Hit) -> str:
    """Where a hit comes from, in words: entity (or day), kind, scope."""
    parts: list[str] = []
    if hit.kind == kinds.DAILY and hit.date is not None:
        parts.append(f"{hit.date:%a} {hit.date.day} {hit.date:%b %Y}")
    elif hit.entity:
        parts.append(layout.EntityRef.parse(hit.entity).title)
    kind = KIND_TITLES.get(hit.kind, hit.kind)
    if hit.kind == kinds.FACT and hit.category:
        kind += f" · {hit.category}"
    if hit.status == "superseded":
        kind += " · superseded"
    parts += [kind, scope_title(hit.scope)]
    return " · ".join(parts)


def build_rows(
    result: search_engine.SearchResult, query: str, tokens: tokenizer.Tokenizer
) -> list[ResultRow]:
    query_tokens = set(tokens.tokenize(query))
    rows = []
    for hit in result.hits:
        text, spans = snippet(hit.text, query_tokens, tokens)
        rows.append(ResultRow(hit, text, spans, meta_line(hit)))
    return rows


@dataclass(frozen=True)
class SearchOutcome:
    rows: list[ResultRow]
    result: search_engine.SearchResult


def run_search(
    engine: search_engine.SearchEngine,
    query: str,
    mode: str,
    filters: search_engine.Filters,
    *,
    explain: bool = False,
) -> SearchOutcome:
    """The worker's job: search (no agent, so nothing is marked accessed), then rows.
    A query that was only a date ("last week") lists what was written then."""
    from vault_app.search import engine as search_engine

    if not query.strip() and (filters.since or filters.until):
        hits = engine.ranked_without_query(filters, LIMIT)
        result = search_engine.SearchResult(hits, mode)
    else:
        result = engine.search(query, mode=mode, filters=filters, limit=LIMIT, explain=explain)
    return SearchOutcome(build_rows(result, query, engine.tokens), result)


def explain_hit(hit: search_engine.Hit) -> str:
    """The parts of a hit's score, as `vault-app search --explain` prints them."""
    from vault_app.search import results

    return f"score {hit.score:.3f} — {results.explain_text(hit.parts)}"


def no_match_text(result: search_engine.SearchResult) -> str:
    """What an empty result says: no good matches, and why when it is known."""
    lines = ["No good matches."]
    if result.unknown:
        words = ", ".join(f"“{w}”" for w in result.unknown)
        lines.append(f"The vault never mentions {words}.")
    if result.below_floor:
        weak = result.below_floor
        lines.append(f"{weak} weak match{'es' if weak != 1 else ''} left out.")
    return " ".join(lines)


# -- the model ---------------------------------------------------------------------------------


class SearchResultsModel(qt_models.RowListModel):
    """The hits of the last search shown, best first."""

    def row_data(self, row: ResultRow, role: int) -> Any:
        if role == Role.DisplayRole:
            return row.text
        if role == Role.ToolTipRole:
            return f"{row.hit.text}\n\n{row.meta}\n{row.hit.path}"
        if role == Role.AccessibleTextRole:
            tier = f"{row.hit.tier}, " if row.hit.tier else ""
            return f"{row.text}. {tier}{row.meta}"
        if role == HIT_ROLE:
            return row.hit
        if role == SPANS_ROLE:
            return list(row.spans)
        if role == META_ROLE:
            return row.meta
        if role == TIER_ROLE:
            return row.hit.tier
        return None

    def hit(self, row: int) -> search_engine.Hit:
        return self._rows[row].hit


# -- the delegate ------------------------------------------------------------------------------


class ResultDelegate(QtWidgets.QStyledItemDelegate):
    """Two lines of text with the matched words marked, then badge · entity · kind · score."""

    PAD = 6
    TEXT_LINES = 2

    def sizeHint(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> QtCore.QSize:
        metrics = option.fontMetrics
        small = QtGui.QFontMetrics(self._small_font(option.font))
        height = 2 * self.PAD + self.TEXT_LINES * metrics.lineSpacing() + 4 + small.height() + 4
        return QtCore.QSize(200, height)

    @staticmethod
    def _small_font(font: QtGui.QFont) -> QtGui.QFont:
        small = QtGui.QFont(font)
        if small.pointSizeF() > 0:
            small.setPointSizeF(max(7.0, small.pointSizeF() * 0.88))
        return small

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> None:
        opt, text = qt_models.draw_item_frame(self, painter, option, index)

        state = opt.state
        palette: QtGui.QPalette = opt.palette
        selected = bool(state & QtWidgets.QStyle.StateFlag.State_Selected)
        group = (
            QtGui.QPalette.ColorGroup.Active
            if state & QtWidgets.QStyle.StateFlag.State_Active
            else QtGui.QPalette.ColorGroup.Inactive
        )
        ink = palette.color(
            group,
            QtGui.QPalette.ColorRole.HighlightedText if selected else QtGui.QPalette.ColorRole.Text,
        )
        muted = ink if selected else palette.color(group, QtGui.QPalette.ColorRole.PlaceholderText)
        rect: QtCore.QRect = opt.rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        font: QtGui.QFont = opt.font

        painter.save()
        painter.setClipRect(opt.rect)
        painter.setPen(ink)
        spans = index.data(SPANS_ROLE) or []
        text_layout = self._text_layout(text, spans, font, rect.width(), palette, selected)
        text_layout.draw(painter, QtCore.QPointF(rect.left(), rect.top()))
        metrics = QtGui.QFontMetrics(font)
        meta_top = rect.top() + self.TEXT_LINES * metrics.lineSpacing() + 4
        self._paint_meta(
            painter, index, QtCore.QRect(rect.left(), meta_top, rect.width(), 0), font, muted
        )
        painter.restore()

    def _text_layout(
        self,
        text: str,
        spans: Sequence[tuple[int, int]],
        font: QtGui.QFont,
        width: int,
        palette: QtGui.QPalette,
        selected: bool,
    ) -> QtGui.QTextLayout:
        """`text` laid out in at most TEXT_LINES lines, ending in "…" when cut."""
        marked = QtGui.QTextCharFormat()
        marked.setFontWeight(QtGui.QFont.Weight.Bold)
        if selected:
            marked.setFontUnderline(True)
        else:
            glow = QtGui.QColor(palette.color(QtGui.QPalette.ColorRole.Highlight))
            glow.setAlpha(70)
            marked.setBackground(glow)

        def laid_out(shown: str, kept: int) -> tuple[QtGui.QTextLayout, int]:
            """Lay out `shown`, whose first `kept` characters are those of `text`."""
            text_layout = QtGui.QTextLayout(shown, font)
            ranges = []
            for start, end in spans:
                if end <= kept:
                    part = QtGui.QTextLayout.FormatRange()
                    part.start, part.length, part.format = start, end - start, marked
                    ranges.append(part)
            text_layout.setFormats(ranges)
            text_layout.beginLayout()
            y = 0.0
            used = 0
            for _ in range(self.TEXT_LINES):
                line = text_layout.createLine()
                if not line.isValid():
                    break
                line.setLineWidth(max(10, width))
                line.setPosition(QtCore.QPointF(0, y))
                y += line.height()
                used = line.textStart() + line.textLength()
            text_layout.endLayout()
            return text_layout, used

        text_layout, used = laid_out(text, len(text))
        cut = used
        while used < len(text) and cut > 0:  # drop words until "…" fits
            cut = text.rfind(" ", 0, cut)
            if cut <= 0:
                break
            kept = text[:cut].rstrip(" …")
            shown = kept + " …"
            text_layout, used_now = laid_out(shown, len(kept))
            if used_now >= len(shown):
                break
        return text_layout

    def _paint_meta(
        self,
        painter: QtGui.QPainter,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
        rect: QtCore.QRect,
        font: QtGui.QFont,
        muted: QtGui.QColor,
    ) -> None:
        small = self._small_font(font)
        metrics = QtGui.QFontMetrics(small)
        painter.setFont(small)
        line = QtCore.QRect(rect.left(), rect.top(), rect.width(), metrics.height() + 2)
        x = line.left()
        tier = index.data(TIER_ROLE)
        if tier:
            label = tier.title()
            badge_font = QtGui.QFont(small)
            badge_font.setBold(True)
            badge_metrics = QtGui.QFontMetrics(badge_font)
            badge = QtCore.QRect(
                x, line.top(), badge_metrics.horizontalAdvance(label) + 10, line.height()
            )
            fill = themes.tier_colour(tier)
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            painter.drawRoundedRect(badge, 4, 4)
            painter.setPen(themes.text_on(fill))
            painter.setFont(badge_font)
            painter.drawText(badge, QtCore.Qt.AlignmentFlag.AlignCenter, label)
            painter.setFont(small)
            x = badge.right() + 7
        hit: search_engine.Hit = index.data(HIT_ROLE)
        score = f"{hit.score:.3f}" if hit.score < 10 else f"{hit.score:.1f}"
        score_width = metrics.horizontalAdvance(score)
        painter.setPen(muted)
        painter.drawText(
            QtCore.QRect(line.right() - score_width, line.top(), score_width, line.height()),
            QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignRight,
            score,
        )
        room = line.right() - score_width - 10 - x
        meta = metrics.elidedText(index.data(META_ROLE), QtCore.Qt.TextElideMode.ElideRight, room)
        painter.drawText(
            QtCore.QRect(x, line.top(), max(0, room), line.height()),
            QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignLeft,
            meta,
        )
