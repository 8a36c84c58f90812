"""Daily notes in the window: a calendar marking days with notes, a day's entries, an append box.

Design
------
A `DailyView` shows one scope's daily notes: the global ones (`agent=None`) or an agent's.

* The calendar marks every day that has a note (bold on a tint of the palette's highlight
  colour, so it reads in light and dark themes). The list of days is read off-thread
  (`Vault.daily_dates`) and read again whenever `Session.dailyChanged` names this scope.
* Selecting a day (mouse, or the arrow keys in the calendar) reads that day's note
  off-thread and shows each `## HH:MM:SS` entry as a card: its time, then its rendered
  text. A load that finishes after the user moved on is dropped.
* The append box writes through `commands.append_daily` (one undoable step): the entry is
  stamped by the writer's clock, goes to today's note, and the view moves to that day.
  If the write is refused the text stays in the box and the reason is shown in words.
"""

from __future__ import annotations

import datetime as dt
import html

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import errors, layout, models
from vault_app.ui import commands
from vault_app.ui.pages import documents
from vault_app.ui.session import Session, describe

APPEND_KEY = "Ctrl+Return"  # appends the entry typed (Ctrl+Enter on the keypad too)


def scope_of(agent: str | None) -> str:
    """The scope name `Session.dailyChanged` uses for these notes."""
    return layout.GLOBAL_SCOPE if agent is None else f"agent:{agent}"


def qdate(day: dt.date) -> QtCore.QDate:
    return QtCore.QDate(day.year, day.month, day.day)


def pydate(day: QtCore.QDate) -> dt.date:
    return dt.date(day.year(), day.month(), day.day())


class WrappedLabel(QtWidgets.QLabel):
    """A word-wrapped label exactly as tall as its text at the width it actually has.

    QLabel guesses its minimum height at a narrower width than it gets, which leaves
    blank space under the text in a scroll area (which sizes by minimum size, not by
    height-for-width). This label re-measures itself whenever its width changes.
    """

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._height: int | None = None

    def minimumSizeHint(self) -> QtCore.QSize:
        hint = super().minimumSizeHint()
        return hint if self._height is None else QtCore.QSize(hint.width(), self._height)

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        return hint if self._height is None else QtCore.QSize(hint.width(), self._height)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        height = self.heightForWidth(self.width())
        if height > 0 and height != self._height:
            self._height = height
            self.updateGeometry()


def card_column(
    name: str,
) -> tuple[QtWidgets.QWidget, QtWidgets.QVBoxLayout, QtWidgets.QScrollArea]:
    """A scrolling column of cards (the day's entries, the context's blocks): the inner
    widget, its layout (cards go before the final stretch) and the scroll area."""
    inner = QtWidgets.QWidget()
    box = QtWidgets.QVBoxLayout(inner)
    box.setContentsMargins(0, 0, 6, 0)
    box.setSpacing(8)
    box.addStretch(1)
    area = QtWidgets.QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(inner)
    area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    area.setAccessibleName(name)
    return inner, box, area


def clear_cards(box: QtWidgets.QVBoxLayout) -> None:
    """Remove the cards of a `card_column`'s layout (its final stretch stays)."""
    while box.count() > 1:
        item = box.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is not None:
            widget.deleteLater()


def cards_in(box: QtWidgets.QVBoxLayout) -> list[EntryCard]:
    """The entry cards of a `card_column`'s layout, in order."""
    items = (box.itemAt(i) for i in range(box.count()))
    return [w for item in items if item and isinstance(w := item.widget(), EntryCard)]


def day_calendar(tip: str) -> QtWidgets.QCalendarWidget:
    """The calendar of a daily-notes view (no week numbers; `mark_days` marks its days)."""
    calendar = QtWidgets.QCalendarWidget()
    calendar.setGridVisible(False)
    calendar.setVerticalHeaderFormat(
        QtWidgets.QCalendarWidget.VerticalHeaderFormat.NoVerticalHeader
    )
    calendar.setToolTip(tip)
    calendar.setAccessibleName("Daily notes calendar")
    return calendar


def mark_days(
    calendar: QtWidgets.QCalendarWidget,
    days: list[dt.date],
    palette: QtGui.QPalette,
    tip: str | None = None,
) -> None:
    """Mark `days` in the calendar (bold on a tint of the palette's highlight colour, so
    it reads in light and dark themes), clearing the marks it had."""
    calendar.setDateTextFormat(QtCore.QDate(), QtGui.QTextCharFormat())  # clear all
    marked = QtGui.QTextCharFormat()
    marked.setFontWeight(QtGui.QFont.Weight.Bold)
    tint = palette.color(QtGui.QPalette.ColorRole.Highlight)
    tint.setAlpha(60)
    marked.setBackground(tint)
    if tip is not None:
        marked.setToolTip(tip)
    for day in days:
        calendar.setDateTextFormat(qdate(day), marked)


def step_from(days: list[dt.date], day: dt.date, direction: int) -> dt.date | None:
    """The closest of the (sorted) `days` before `day` (direction < 0) or after it."""
    if direction < 0:
        earlier = [d for d in days if d < day]
        return earlier[-1] if earlier else None
    later = [d for d in days if d > day]
    return later[0] if later else None


def day_heading() -> QtWidgets.QLabel:
    """The label naming the day shown: bold, a little larger than the text."""
    label = QtWidgets.QLabel()
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.15)
    label.setFont(font)
    return label


def side_by_side(
    owner: QtWidgets.QWidget, left: QtWidgets.QWidget, right: QtWidgets.QWidget
) -> None:
    """Lay out a daily-notes view: the calendar's side `left`, the day's side `right`
    (which takes the width to spare), in a splitter filling `owner`."""
    split = QtWidgets.QSplitter()
    split.addWidget(left)
    split.addWidget(right)
    split.setStretchFactor(1, 1)
    split.setChildrenCollapsible(False)
    box = QtWidgets.QHBoxLayout(owner)
    box.setContentsMargins(6, 6, 6, 6)
    box.addWidget(split)


def empty_pages(
    area: QtWidgets.QScrollArea,
) -> tuple[QtWidgets.QLabel, QtWidgets.QStackedWidget]:
    """The day's side: a stack of the cards' scroll `area` and a centred, muted label for
    a day without cards (the label, the stack)."""
    empty = QtWidgets.QLabel()
    empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
    empty.setWordWrap(True)
    empty.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
    pages = QtWidgets.QStackedWidget()
    pages.addWidget(area)
    pages.addWidget(empty)
    return empty, pages


class EntryCard(QtWidgets.QFrame):
    """One daily-note entry: its time, then its text rendered as markdown."""

    def __init__(self, entry: models.DailyEntry, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setBackgroundRole(QtGui.QPalette.ColorRole.Base)
        self.setAutoFillBackground(True)
        self.time_label = QtWidgets.QLabel(entry.time)
        font = self.time_label.font()
        font.setBold(True)
        self.time_label.setFont(font)
        self.time_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.time_label.setAccessibleName(f"Entry at {entry.time}")
        self.text_label = WrappedLabel()
        self.text_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.text_label.setText(_rendered(entry.text or "*(empty entry)*"))
        self.text_label.setWordWrap(True)
        self.text_label.setAlignment(
            QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft
        )
        self.text_label.setOpenExternalLinks(False)
        self.text_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
            | QtCore.Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.text_label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred
        )
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(10, 6, 10, 8)
        box.setSpacing(2)
        box.addWidget(self.time_label)
        box.addWidget(self.text_label)


class DailyView(QtWidgets.QWidget):
    """The daily notes of one scope (None: global; else an agent id)."""

    dayShown = QtCore.Signal(object)  # dt.date, once its entries (or their absence) are shown
    datesLoaded = QtCore.Signal()  # the calendar's marks are up to date
    appended = QtCore.Signal(object)  # models.DailyEntry written by the append box

    def __init__(
        self,
        session: Session,
        agent: str | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.agent = agent
        self.dates: list[dt.date] = []
        self.note: models.DailyNote | None = None
        self.day: dt.date = self.today()
        self._day_generation = 0
        self._dates_generation = 0
        self._appending = False
        self._build()
        session.dailyChanged.connect(self._on_daily_changed)
        self.reload_dates()
        self.show_day(self.day)

    # -- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.calendar = day_calendar(
            "Days in bold have notes. Arrow keys move between days, "
            "Page Up / Page Down between months."
        )
        self.calendar.selectionChanged.connect(self._on_selection)

        self.earlier_button = self._button(
            "◀ Earlier note", "Go to the closest earlier day with notes (Alt+PgUp)", "Alt+PgUp"
        )
        self.later_button = self._button(
            "Later note ▶", "Go to the closest later day with notes (Alt+PgDown)", "Alt+PgDown"
        )
        self.today_button = self._button("Today", "Go to today (Alt+Home)", "Alt+Home")
        self.earlier_button.clicked.connect(lambda: self._step(-1))
        self.later_button.clicked.connect(lambda: self._step(+1))
        self.today_button.clicked.connect(lambda: self.show_day(self.today()))
        steps = QtWidgets.QHBoxLayout()
        steps.addWidget(self.earlier_button)
        steps.addWidget(self.today_button)
        steps.addWidget(self.later_button)

        self.legend = QtWidgets.QLabel()
        self.legend.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.legend.setWordWrap(True)

        self.append_label = QtWidgets.QLabel("New entry for &today")
        self.append_box = QtWidgets.QPlainTextEdit()
        self.append_box.setPlaceholderText("What happened? Markdown is fine. Ctrl+Enter appends.")
        self.append_box.setToolTip(
            "The entry goes to today's note, stamped with the current time (Ctrl+Enter)"
        )
        self.append_box.setAccessibleName("New daily entry")
        self.append_box.setTabChangesFocus(True)
        self.append_box.setMaximumHeight(110)
        self.append_box.textChanged.connect(self._update_append_button)
        self.append_label.setBuddy(self.append_box)
        self.append_button = QtWidgets.QPushButton("Append entry")
        self.append_button.setToolTip("Add this text to today's note with the time (Ctrl+Enter)")
        self.append_button.setAutoDefault(False)
        self.append_button.clicked.connect(self.append)
        # the box's own keys; the window routes Edit › Append entry (APPEND_KEY) to them
        for keys in (APPEND_KEY, "Ctrl+Enter"):
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(keys), self.append_box)
            shortcut.setContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(self.append)
        self.append_error = QtWidgets.QLabel()
        self.append_error.setWordWrap(True)
        self.append_error.setForegroundRole(QtGui.QPalette.ColorRole.Text)
        self.append_error.hide()
        append_row = QtWidgets.QHBoxLayout()
        append_row.addStretch(1)
        append_row.addWidget(self.append_button)

        left = QtWidgets.QWidget()
        left_box = QtWidgets.QVBoxLayout(left)
        left_box.setContentsMargins(0, 0, 0, 0)
        left_box.addWidget(self.calendar)
        left_box.addLayout(steps)
        left_box.addWidget(self.legend)
        left_box.addSpacing(8)
        left_box.addWidget(self.append_label)
        left_box.addWidget(self.append_box)
        left_box.addLayout(append_row)
        left_box.addWidget(self.append_error)
        left_box.addStretch(1)

        self.day_label = day_heading()
        self.count_label = QtWidgets.QLabel()
        self.count_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        heading = QtWidgets.QHBoxLayout()
        heading.addWidget(self.day_label)
        heading.addWidget(self.count_label, 1)

        self.entries, self.entries_box, self.entries_area = card_column(
            "Entries of the selected day"
        )
        self.empty_label, self.pages = empty_pages(self.entries_area)

        right = QtWidgets.QWidget()
        right_box = QtWidgets.QVBoxLayout(right)
        right_box.setContentsMargins(0, 0, 0, 0)
        right_box.addLayout(heading)
        right_box.addWidget(self.pages, 1)

        side_by_side(self, left, right)
        self._update_append_button()

    def _button(self, text: str, tip: str, keys: str) -> QtWidgets.QPushButton:
        button = QtWidgets.QPushButton(text)
        button.setToolTip(tip)
        button.setAutoDefault(False)
        shortcut = QtGui.QShortcut(QtGui.QKeySequence(keys), self)
        shortcut.setContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(button.click)
        return button

    # -- public -----------------------------------------------------------------------------

    def today(self) -> dt.date:
        """Today in local time: the day an appended entry goes to."""
        return self.session.vault.now().astimezone().date()

    @property
    def scope(self) -> str:
        return scope_of(self.agent)

    def show_day(self, day: dt.date) -> None:
        """Select `day` in the calendar and show its entries (read off-thread)."""
        self.day = day
        if self.calendar.selectedDate() != qdate(day):
            self.calendar.setSelectedDate(qdate(day))  # -> _on_selection -> _load_day
        else:
            self._load_day(day)

    def reload_dates(self) -> None:
        """Read which days have notes (off-thread) and mark them in the calendar."""
        self._dates_generation += 1
        generation = self._dates_generation
        agent = self.agent
        self.session.run(
            lambda: self.session.vault.daily_dates(agent),
            lambda dates: self._dates_loaded(generation, dates),
        )

    def append(self) -> None:
        """Append the box's text to today's note (one undoable step)."""
        text = self.append_box.toPlainText()
        if self._appending or not text.strip():
            return
        self._appending = True
        self.append_error.hide()
        self._update_append_button()
        commands.append_daily(
            self.session, text, agent=self.agent, on_done=self._appended, on_error=self._refused
        )

    # -- loading ----------------------------------------------------------------------------

    def _on_selection(self) -> None:
        day = pydate(self.calendar.selectedDate())
        self.day = day
        self._load_day(day)

    def _load_day(self, day: dt.date) -> None:
        self._day_generation += 1
        generation = self._day_generation
        agent = self.agent
        self.day_label.setText(
            QtCore.QLocale().toString(qdate(day), QtCore.QLocale.FormatType.LongFormat)
        )
        self.session.run(
            lambda: self.session.vault.daily_note(day, agent),
            lambda note: self._day_loaded(generation, day, note),
            lambda exc: self._day_failed(generation, day, exc),
        )

    def _day_loaded(self, generation: int, day: dt.date, note: models.DailyNote) -> None:
        if generation != self._day_generation:
            return
        self.note = note
        self._clear_cards()
        preamble = _preamble(note)
        if preamble:
            card = EntryCard(
                models.DailyEntry(date=day, time="Before the first entry", text=preamble, index=-1)
            )
            self.entries_box.insertWidget(self.entries_box.count() - 1, card)
        for entry in note.entries:
            self.entries_box.insertWidget(self.entries_box.count() - 1, EntryCard(entry))
        count = len(note.entries)
        self.count_label.setText(f"{count} entr{'y' if count == 1 else 'ies'}")
        if not note.entries and not preamble:
            self._show_empty("This day's note has no entries yet.")
        else:
            self.pages.setCurrentWidget(self.entries_area)
        self.dayShown.emit(day)

    def _day_failed(self, generation: int, day: dt.date, exc: BaseException) -> None:
        if generation != self._day_generation:
            return
        self.note = None
        self._clear_cards()
        self.count_label.setText("")
        if isinstance(exc, errors.NotFoundError):
            self._show_empty("No notes on this day.")
        else:
            title, message = describe(exc)
            self._show_empty(f"{title}\n\n{message}")
        self.dayShown.emit(day)

    def _dates_loaded(self, generation: int, dates: list[dt.date]) -> None:
        if generation != self._dates_generation:
            return
        self.dates = sorted(dates)
        self._mark_dates()
        count = len(self.dates)
        where = "global daily notes" if self.agent is None else f"{self.agent}'s daily notes"
        if count:
            days = f"{count} day{'s' if count != 1 else ''}"
            self.legend.setText(f"Days in bold have notes ({days} of {where}).")
        else:
            self.legend.setText(f"No {where} yet. Days with notes will be shown in bold.")
        self._update_steps()
        self.datesLoaded.emit()

    def _mark_dates(self) -> None:
        mark_days(self.calendar, self.dates, self.palette(), "Has notes")

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.PaletteChange and self.dates:
            self._mark_dates()  # the tint follows the theme

    def _on_daily_changed(self, scope: str, day: object) -> None:
        if scope != self.scope:
            return
        self.reload_dates()
        if day == self.day:
            self._load_day(self.day)

    # -- appending --------------------------------------------------------------------------

    def _appended(self, entry: models.DailyEntry) -> None:
        self._appending = False
        self.append_box.clear()
        self._update_append_button()
        self.appended.emit(entry)
        self.show_day(entry.date)

    def _refused(self, exc: BaseException) -> None:
        self._appending = False
        title, message = describe(exc)
        message = html.escape(message).replace("\n\n", "<br>").replace("\n", "<br>")
        self.append_error.setText(f"<b>{html.escape(title)}</b>: {message}")
        self.append_error.show()
        self._update_append_button()

    def _update_append_button(self) -> None:
        has_text = bool(self.append_box.toPlainText().strip())
        self.append_button.setEnabled(has_text and not self._appending)

    # -- helpers ----------------------------------------------------------------------------

    def _step(self, direction: int) -> None:
        day = step_from(self.dates, self.day, direction)
        if day is not None:
            self.show_day(day)

    def _update_steps(self) -> None:
        self.earlier_button.setEnabled(any(d < self.day for d in self.dates))
        self.later_button.setEnabled(any(d > self.day for d in self.dates))

    def _clear_cards(self) -> None:
        clear_cards(self.entries_box)
        self._update_steps()

    def _show_empty(self, text: str) -> None:
        self.empty_label.setText(text)
        self.pages.setCurrentWidget(self.empty_label)

    def cards(self) -> list[EntryCard]:
        """The entry cards shown, in order (the preamble's card first, if any)."""
        return cards_in(self.entries_box)


def _rendered(markdown: str) -> str:
    """Markdown as the HTML a QLabel shows (same dialect as the document panes)."""
    doc = QtGui.QTextDocument()
    doc.setMarkdown(markdown, documents.MARKDOWN)
    for block, side in ((doc.firstBlock(), "top"), (doc.lastBlock(), "bottom")):
        cursor = QtGui.QTextCursor(block)  # no gap above the first line or below the last
        fmt = block.blockFormat()
        if side == "top":
            fmt.setTopMargin(0)
        else:
            fmt.setBottomMargin(0)
        cursor.setBlockFormat(fmt)
    return doc.toHtml()


def _preamble(note: models.DailyNote) -> str:
    """The note's text before its first entry, minus the usual `# YYYY-MM-DD` heading."""
    text = note.preamble.strip()
    heading = f"# {note.date.isoformat()}"
    if text.startswith(heading):
        text = text[len(heading) :].strip()
    return text
