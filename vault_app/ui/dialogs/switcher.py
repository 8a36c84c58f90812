"""The quick switcher (Ctrl+P): type a few letters, jump to an entity, agent, day or document.

Design
------
* **What it offers.** Entities (title and address, from the session's last scan), agents,
  the documents (Principles, each agent's TACIT and CONTEXT) and the days that have a daily
  note, global and per agent. The days are listed on a worker
  (`session.vault.daily_dates(agent)` per scope) each time the switcher opens; the rest is
  already in memory, so the list is usable at once and the days join when they arrive.
* **Fuzzy matching** (`fuzzy_match`, pure Python): the query must be a subsequence of an
  item's label or detail, case-insensitively. A prefix ranks first, then a match at the
  start of a word, then a scattered subsequence scored by how many of its letters start a
  word or follow the previous one, and how short the text is. The detail (the address,
  the day's date) counts only for a prefix or a word-start match, below the label's.
* **Recent first.** With nothing typed, the places the user visited last (the window's
  Back history: entities and agents, newest first) lead the list, then everything else.
* **Choosing.** Up/Down move in the list while typing, Enter (or a click) emits
  `chosen(kind, payload)` and closes, Escape closes. Payloads: an entity address (str), an
  agent id (str), `(scope, date)` for a day (scope "global" or "agent:ID"), and
  `(document name, agent id or None)` for a document, as `commands.save_document` takes it.

Filtering runs on the GUI thread: a few thousand items score in a few milliseconds.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout, vault
from vault_app.ui import models as qt_models
from vault_app.ui import session as session_module

Role = QtCore.Qt.ItemDataRole
ITEM_ROLE = Role.UserRole + 1  # SwitcherItem
LABEL_MARKS_ROLE = Role.UserRole + 2  # positions in the label that matched the query
DETAIL_MARKS_ROLE = Role.UserRole + 3  # positions in the detail that matched the query

ENTITY, AGENT, DAILY, DOCUMENT = "entity", "agent", "daily", "document"
KIND_TITLES = {ENTITY: "Entity", AGENT: "Agent", DAILY: "Day", DOCUMENT: "Document"}
KIND_ORDER = {AGENT: 0, DOCUMENT: 1, ENTITY: 2, DAILY: 3}
LIMIT = 200  # rows shown at most

PREFIX, WORD_START, SUBSEQUENCE = 3_000.0, 2_000.0, 1_000.0
SPREAD = 900.0  # a subsequence scores within SUBSEQUENCE ± SPREAD
DETAIL_PENALTY = 1_500.0  # a detail match ranks below the same kind of label match
_ROOT = QtCore.QModelIndex()


@dataclass(frozen=True)
class SwitcherItem:
    kind: str  # entity / agent / daily / document
    label: str
    detail: str
    payload: Any
    sort_key: tuple[Any, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Match:
    item: SwitcherItem
    score: float
    label_marks: tuple[int, ...] = ()
    detail_marks: tuple[int, ...] = ()


# -- matching ---------------------------------------------------------------------------------


def _word_starts(text: str) -> set[int]:
    return {
        i
        for i, ch in enumerate(text)
        if ch.isalnum()
        and (i == 0 or not text[i - 1].isalnum() or (ch.isupper() and text[i - 1].islower()))
    }


def fuzzy_match(query: str, text: str) -> tuple[float, tuple[int, ...]] | None:
    """How well `query` matches `text` (higher is better) and the matched positions, or
    None. Prefix > start of a word > scattered subsequence; shorter texts break ties."""
    needle = " ".join(query.lower().split())
    if not needle:
        return 0.0, ()
    hay = text.lower()
    if len(hay) != len(text):  # a letter whose lower case is longer: match the text itself
        hay = text
    brevity = -len(text) / 1_000
    if hay.startswith(needle):
        return PREFIX + brevity, tuple(range(len(needle)))
    starts = _word_starts(text)
    at = hay.find(needle)
    while at >= 0:
        if at in starts:
            return WORD_START - at / 100 + brevity, tuple(range(at, at + len(needle)))
        at = hay.find(needle, at + 1)
    scattered = _subsequence(needle.replace(" ", ""), hay, starts, brevity)
    inside = hay.find(needle)  # a run inside a word ("roof" in "waterproofing")
    if inside >= 0:
        run = tuple(range(inside, inside + len(needle)))
        score = _quality(run, starts) + brevity
        if scattered is None or score > scattered[0]:
            return score, run
    return scattered


def _subsequence(
    needle: str, hay: str, starts: set[int], brevity: float
) -> tuple[float, tuple[int, ...]] | None:
    """Letters of `needle` in order in `hay`, preferring word starts; None if absent."""
    positions: list[int] = []
    at = 0
    for i, ch in enumerate(needle):
        found = hay.find(ch, at)
        if found < 0:
            return None
        # Jump to a later word start with this letter when the next letters still fit.
        follows = bool(positions) and found == positions[-1] + 1
        if found not in starts and not follows:
            later = next((p for p in sorted(starts) if p > found and hay[p] == ch), None)
            if later is not None and _fits(needle[i + 1 :], hay, later + 1):
                found = later
        positions.append(found)
        at = found + 1
    return _quality(positions, starts) + brevity, tuple(positions)


def _quality(positions: Sequence[int], starts: set[int]) -> float:
    """A subsequence's score: letters at word starts or following each other count, gaps
    cost; it stays below a word-start match."""
    bonus = sum(5.0 for p in positions if p in starts)
    bonus += sum(3.0 for a, b in itertools.pairwise(positions) if b == a + 1)
    gaps = positions[-1] - positions[0] + 1 - len(positions)
    return SUBSEQUENCE + max(-SPREAD, min(SPREAD, bonus - gaps))


def _fits(needle: str, hay: str, at: int) -> bool:
    for ch in needle:
        at = hay.find(ch, at)
        if at < 0:
            return False
        at += 1
    return True


def match_item(query: str, item: SwitcherItem) -> Match | None:
    label = fuzzy_match(query, item.label)
    detail = fuzzy_match(query, item.detail)
    if detail is not None and detail[0] < SUBSEQUENCE + SPREAD + 1:
        detail = None  # letters scattered over an address or a date are noise
    if label is None and detail is None:
        return None
    if detail is None or (label is not None and label[0] >= detail[0] - DETAIL_PENALTY):
        assert label is not None
        return Match(item, label[0], label_marks=label[1])
    return Match(item, detail[0] - DETAIL_PENALTY, detail_marks=detail[1])


def rank(
    query: str,
    items: Iterable[SwitcherItem],
    limit: int = LIMIT,
    recent: Sequence[tuple[str, Any]] = (),
) -> list[Match]:
    """The items matching `query`, best first. Without one: the `recent` places first
    ((kind, payload), newest first: where the user was last), then every item in its own
    order."""
    if not query.strip():
        first = {key: n for n, key in enumerate(recent)}

        def order(it: SwitcherItem) -> tuple[Any, ...]:
            was = first.get((it.kind, it.payload), len(first))
            return (was, KIND_ORDER[it.kind], it.sort_key, it.label)

        ordered = sorted(items, key=order)
        return [Match(item, 0.0) for item in ordered[:limit]]
    found = [m for m in (match_item(query, item) for item in items) if m is not None]
    found.sort(key=lambda m: (-m.score, KIND_ORDER[m.item.kind], m.item.sort_key, m.item.label))
    return found[:limit]


# -- the items --------------------------------------------------------------------------------


def entity_items(scan: vault.VaultScan | None) -> list[SwitcherItem]:
    items = []
    for row in scan.entities if scan is not None else ():
        ref = layout.EntityRef.parse(row.address)
        items.append(SwitcherItem(ENTITY, ref.title, row.address, row.address, (row.address,)))
    return items


def agent_items(agents: Sequence[str]) -> list[SwitcherItem]:
    return [SwitcherItem(AGENT, agent, "agent", agent, (agent,)) for agent in agents]


def document_items(agents: Sequence[str]) -> list[SwitcherItem]:
    items = [
        SwitcherItem(DOCUMENT, "Principles", "global/AGENTS.md", (vault.PRINCIPLES, None), ("", 0))
    ]
    for agent in agents:
        for order, (name, words) in enumerate(
            (("TACIT.md", "tacit knowledge"), ("CONTEXT.md", "current context")), start=1
        ):
            items.append(
                SwitcherItem(
                    DOCUMENT,
                    f"{name.removesuffix('.md')} — {agent}",
                    f"{words} of agent {agent}",
                    (name, agent),
                    (agent, order),
                )
            )
    return items


def day_title(day: dt.date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"


def daily_items(days: dict[str | None, list[dt.date]]) -> list[SwitcherItem]:
    """One item per daily note; newest first when listed without a query."""
    items = []
    for agent, dates in days.items():
        scope = layout.GLOBAL_SCOPE if agent is None else f"agent:{agent}"
        whose = "global daily note" if agent is None else f"daily note of agent {agent}"
        for day in dates:
            items.append(
                SwitcherItem(
                    DAILY,
                    day_title(day),
                    f"{day.isoformat()} · {whose}",
                    (scope, day),
                    (-day.toordinal(), agent or ""),
                )
            )
    return items


def list_days(target: vault.Vault, agents: Sequence[str]) -> dict[str | None, list[dt.date]]:
    """The worker's job: the days with a daily note, global and per agent."""
    return {agent: target.daily_dates(agent) for agent in (None, *agents)}


# -- the model --------------------------------------------------------------------------------


class SwitcherModel(qt_models.RowListModel):
    """The matches of the current query, best first."""

    def row_data(self, match: Match, role: int) -> Any:
        item = match.item
        if role == Role.DisplayRole:
            return item.label
        if role in (Role.ToolTipRole, Role.AccessibleDescriptionRole):
            return f"{KIND_TITLES[item.kind]}: {item.detail}"
        if role == ITEM_ROLE:
            return item
        if role == LABEL_MARKS_ROLE:
            return list(match.label_marks)
        if role == DETAIL_MARKS_ROLE:
            return list(match.detail_marks)
        return None

    def set_matches(self, matches: Sequence[Match]) -> None:
        self.set_rows(matches)

    def item(self, row: int) -> SwitcherItem:
        return self._rows[row].item


class SwitcherDelegate(QtWidgets.QStyledItemDelegate):
    """Kind · label (matched letters bold) · detail (muted, elided)."""

    PAD = 5

    def sizeHint(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> QtCore.QSize:
        metrics = option.fontMetrics
        return QtCore.QSize(200, metrics.height() + 2 * self.PAD + 2)

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> None:
        opt, _ = qt_models.draw_item_frame(self, painter, option, index)

        item: SwitcherItem = index.data(ITEM_ROLE)
        palette: QtGui.QPalette = opt.palette
        selected = bool(opt.state & QtWidgets.QStyle.StateFlag.State_Selected)
        Colour = QtGui.QPalette.ColorRole
        ink = palette.color(Colour.HighlightedText if selected else Colour.Text)
        muted = ink if selected else palette.color(Colour.PlaceholderText)
        font: QtGui.QFont = opt.font
        rect: QtCore.QRect = opt.rect.adjusted(self.PAD + 2, 0, -self.PAD - 2, 0)
        metrics = QtGui.QFontMetrics(font)
        baseline = rect.top() + (rect.height() - metrics.height()) // 2 + metrics.ascent()

        painter.save()
        painter.setClipRect(opt.rect)
        kind_width = max(metrics.horizontalAdvance(t) for t in KIND_TITLES.values()) + 12
        painter.setPen(muted)
        painter.drawText(QtCore.QPoint(rect.left(), baseline), KIND_TITLES[item.kind])
        x = rect.left() + kind_width
        room = rect.right() - x
        x = self._draw_marked(
            painter, x, baseline, item.label, index.data(LABEL_MARKS_ROLE), font, ink, room * 2 // 3
        )
        detail_room = rect.right() - x - 14
        if detail_room > 30:
            detail = metrics.elidedText(
                item.detail, QtCore.Qt.TextElideMode.ElideMiddle, detail_room
            )
            marks = index.data(DETAIL_MARKS_ROLE) if detail == item.detail else []
            self._draw_marked(painter, x + 14, baseline, detail, marks, font, muted, detail_room)
        painter.restore()

    @staticmethod
    def _draw_marked(
        painter: QtGui.QPainter,
        x: int,
        baseline: int,
        text: str,
        marks: Sequence[int],
        font: QtGui.QFont,
        colour: QtGui.QColor,
        room: int,
    ) -> int:
        """Draw `text` with the letters at `marks` in bold; returns the x after it."""
        metrics = QtGui.QFontMetrics(font)
        text = metrics.elidedText(text, QtCore.Qt.TextElideMode.ElideRight, max(room, 10))
        bold = QtGui.QFont(font)
        bold.setBold(True)
        marked = set(marks)
        painter.setPen(colour)
        start = 0
        while start < len(text):
            is_marked = start in marked
            end = start + 1
            while end < len(text) and (end in marked) == is_marked:
                end += 1
            part = text[start:end]
            painter.setFont(bold if is_marked else font)
            painter.drawText(QtCore.QPoint(x, baseline), part)
            x += QtGui.QFontMetrics(bold if is_marked else font).horizontalAdvance(part)
            start = end
        painter.setFont(font)
        return x


# -- the popup --------------------------------------------------------------------------------


class QuickSwitcher(QtWidgets.QDialog):
    """A popup to jump anywhere in the vault by typing part of a name."""

    chosen = QtCore.Signal(str, object)  # kind, payload (see the module's docstring)

    def __init__(
        self,
        session: session_module.Session,
        parent: QtWidgets.QWidget | None = None,
        recent: Callable[[], Sequence[tuple[Any, ...]]] | None = None,
    ) -> None:
        super().__init__(
            parent, QtCore.Qt.WindowType.Dialog | QtCore.Qt.WindowType.FramelessWindowHint
        )
        self.session = session
        self.recent = recent  # the window's places visited, newest first (Back's history)
        self.setObjectName("quickSwitcher")
        self.setWindowTitle("Go to")
        self.setModal(True)
        self.resize(640, 420)
        self._items: list[SwitcherItem] = []
        self.days: list[SwitcherItem] = []  # the daily-note days, once listed
        self._load = 0  # bumped per day listing; older listings are dropped

        self.query_edit = QtWidgets.QLineEdit()
        self.query_edit.setPlaceholderText("Go to an entity, agent, day or document…")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setAccessibleName("Go to")
        self.query_edit.setToolTip(
            "Type part of a name: letters in order are enough (“mbell” finds Marcus Bell). "
            "Up/Down choose, Enter opens, Escape closes."
        )
        self.model = SwitcherModel(self)
        self.view = QtWidgets.QListView()
        self.view.setModel(self.model)
        self.view.setItemDelegate(SwitcherDelegate(self.view))
        self.view.setUniformItemSizes(True)
        self.view.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAccessibleName("Places")
        self.hint = QtWidgets.QLabel()
        self.hint.setProperty("notice", True)

        self.frame = frame = QtWidgets.QFrame()
        frame.setObjectName("switcherFrame")
        inner = QtWidgets.QVBoxLayout(frame)
        inner.setContentsMargins(8, 8, 8, 6)
        inner.setSpacing(6)
        inner.addWidget(self.query_edit)
        inner.addWidget(self.view, 1)
        inner.addWidget(self.hint)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)

        self.query_edit.textChanged.connect(self._refilter)
        self.query_edit.returnPressed.connect(self.choose_current)
        self.query_edit.installEventFilter(self)
        self.view.clicked.connect(self._choose_index)
        session.scanned.connect(self._scanned)

    # -- public ------------------------------------------------------------------------------

    def popup(self) -> None:
        """Show empty, with fresh lists (`open()` or `show()` do the same)."""
        self.query_edit.clear()
        self.show()

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        """Each time it opens: fresh lists, over the top of the parent, cursor in the box."""
        super().showEvent(event)
        self.reload()
        self._outline()
        parent = self.parentWidget()
        if parent is not None:
            width = min(640, max(360, parent.width() - 40))
            self.resize(width, self.height())
            self.move(parent.mapToGlobal(QtCore.QPoint((parent.width() - width) // 2, 48)))
        self.activateWindow()
        self.query_edit.setFocus(QtCore.Qt.FocusReason.PopupFocusReason)

    def _outline(self) -> None:
        """A thin border in the theme's colours, since the window has no frame of its own."""
        palette = self.palette()
        Colour = QtGui.QPalette.ColorRole
        self.frame.setStyleSheet(
            f"QFrame#switcherFrame {{ border: 1px solid {palette.color(Colour.Mid).name()};"
            f" border-radius: 6px; background: {palette.color(Colour.Window).name()}; }}"
        )

    def reload(self) -> None:
        """Take the entities and agents from the last scan; list the days on a worker."""
        scan = self.session.known
        agents = list(scan.agents) if scan is not None else []
        self._items = entity_items(scan) + agent_items(agents) + document_items(agents)
        self._refilter()
        self._load += 1
        load = self._load
        target = self.session.vault
        self.session.run(
            lambda: list_days(target, agents), lambda days: self._days_listed(load, days)
        )

    def choose_current(self) -> None:
        self._choose_index(self.view.currentIndex())

    # -- reacting ----------------------------------------------------------------------------

    def _scanned(self, _scan: vault.VaultScan) -> None:
        if self.isVisible():
            self.reload()

    def _days_listed(self, load: int, days: dict[str | None, list[dt.date]]) -> None:
        if load != self._load:
            return
        self.days = daily_items(days)
        self._refilter()

    def _refilter(self) -> None:
        query = self.query_edit.text()
        places = self.recent() if self.recent is not None and not query.strip() else ()
        # an entity or an agent visited: what the switcher offers for it
        keys = [(p[0], p[1]) for p in places if len(p) >= 2 and p[0] in ("entity", "agent")]
        matches = rank(query, [*self._items, *self.days], recent=keys)
        self.model.set_matches(matches)
        if matches:
            self.view.setCurrentIndex(self.model.index(0, 0))
        total = len(self._items) + len(self.days)
        if not query.strip():
            self.hint.setText(f"{total:,} places · ↑↓ to choose · Enter to open · Esc to close")
        elif matches:
            self.hint.setText(f"{len(matches):,} of {total:,} places match")
        else:
            self.hint.setText("Nothing matches: try fewer letters")

    def _choose_index(self, index: QtCore.QModelIndex) -> None:
        if not index.isValid():
            return
        item = self.model.item(index.row())
        self.accept()
        self.chosen.emit(item.kind, item.payload)

    def _move(self, step: int) -> None:
        count = self.model.rowCount()
        if count == 0:
            return
        row = self.view.currentIndex().row()
        row = min(count - 1, max(0, (row if row >= 0 else -1) + step))
        self.view.setCurrentIndex(self.model.index(row, 0))

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.query_edit and event.type() == QtCore.QEvent.Type.KeyPress:
            assert isinstance(event, QtGui.QKeyEvent)
            page = max(1, self.view.viewport().height() // max(1, self.view.sizeHintForRow(0)))
            Key = QtCore.Qt.Key
            steps = ((Key.Key_Down, 1), (Key.Key_Up, -1), (Key.Key_PageDown, page))
            for key, step in (*steps, (Key.Key_PageUp, -page)):
                if event.key() == key:
                    self._move(step)
                    return True
        return super().eventFilter(watched, event)
