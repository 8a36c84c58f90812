"""A neighbour's daily notes in the window: a calendar of the days with a note, the day's
note as its owner wrote it (plain text: the agents read it so), and an append box that
writes in the owner's way.

PicoClaw's `memory/YYYYMM/YYYYMMDD.md` starts `# YYYY-MM-DD` and gains a paragraph per
append; MicroClaw's `groups/<chat>/memory/YYYY-MM-DD.md` is a log of appended lines. Neither
has the `## HH:MM:SS` entries of a vault's daily note, so the day is shown as its
paragraphs, each a card (`daily.EntryCard`, the vault's daily view's card), under the
heading the owner gave it. Reads run on the workers through the `ForeignFolder`
(`daily_dates`, `daily_note`); the append box calls `daily_append`, which appends in the
owner's format under vault-app's lock. The view reloads when live sync (or a write here)
announces a file of its folder (`documentChanged`).
"""

from __future__ import annotations

import datetime as dt
import html
import re
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models, neighbours
from vault_app.ui import session
from vault_app.ui.pages import daily

_DAY_NAME = re.compile(r"^(\d{8}|\d{4}-\d{2}-\d{2})\.md$")  # PicoClaw's, MicroClaw's


def paragraphs(text: str, day: dt.date) -> list[str]:
    """The note's paragraphs (blank-line separated), without its `# YYYY-MM-DD` title."""
    body = text.strip()
    title = f"# {day.isoformat()}"
    if body.startswith(title):
        body = body[len(title) :].strip()
    return [p.strip() for p in body.split("\n\n") if p.strip()]


class NeighbourDaily(QtWidgets.QWidget):
    """One agent's (or MicroClaw chat's) daily notes in a neighbour's folder."""

    dayShown = QtCore.Signal(object)  # dt.date, once its note (or its absence) is shown
    datesLoaded = QtCore.Signal()
    appended = QtCore.Signal(object)  # the `folder.DailyText` after an append

    def __init__(
        self,
        s: session.FolderSession,
        agent: str,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session, self.folder, self.agent = s, s.folder, agent
        self.dates: list[dt.date] = []
        self.day = self.folder.today()
        self.note: neighbours.folder.DailyText | None = None
        self._generation = 0
        self._appending = False
        self._build()
        s.documentChanged.connect(self._on_document_changed)
        self.reload()

    def _build(self) -> None:
        self.calendar = daily.day_calendar("Days in bold have a note.")
        self.calendar.selectionChanged.connect(self._on_selection)
        self.earlier_button = QtWidgets.QPushButton("◀ Earlier note")
        self.earlier_button.clicked.connect(lambda: self._step(-1))
        self.later_button = QtWidgets.QPushButton("Later note ▶")
        self.later_button.clicked.connect(lambda: self._step(+1))
        steps = QtWidgets.QHBoxLayout()
        steps.addWidget(self.earlier_button)
        steps.addWidget(self.later_button)
        self.legend = QtWidgets.QLabel()
        self.legend.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.legend.setWordWrap(True)
        self.append_label = QtWidgets.QLabel("Append to &today's note")
        self.append_box = QtWidgets.QPlainTextEdit()
        self.append_box.setPlaceholderText("A paragraph, as the agent would append it.")
        self.append_box.setAccessibleName("Text to append")
        self.append_box.setTabChangesFocus(True)
        self.append_box.setMaximumHeight(100)
        self.append_box.textChanged.connect(self._update_append)
        self.append_label.setBuddy(self.append_box)
        self.append_button = QtWidgets.QPushButton("Append")
        self.append_button.setToolTip("Append the text to today's note, in the owner's format")
        self.append_button.clicked.connect(self.append)
        self.append_error = QtWidgets.QLabel()
        self.append_error.setProperty("inlineError", True)
        self.append_error.setWordWrap(True)
        self.append_error.hide()
        row = QtWidgets.QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.append_button)
        left = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        for part in (self.calendar, steps, self.legend, self.append_label, self.append_box, row):
            if isinstance(part, QtWidgets.QLayout):
                column.addLayout(part)
            else:
                column.addWidget(part)
        column.addWidget(self.append_error)
        column.addStretch(1)

        self.day_label = daily.day_heading()
        self.where_label = QtWidgets.QLabel()
        self.where_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.where_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.paragraphs, self.paragraphs_box, self.area = daily.card_column("The day's note")
        self.empty_label, self.stack = daily.empty_pages(self.area)
        right = QtWidgets.QWidget()
        right_box = QtWidgets.QVBoxLayout(right)
        right_box.setContentsMargins(0, 0, 0, 0)
        right_box.addWidget(self.day_label)
        right_box.addWidget(self.where_label)
        right_box.addWidget(self.stack, 1)
        daily.side_by_side(self, left, right)
        self._update_append()

    # -- reading --------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the days with a note, then show the one selected (the latest at first)."""
        folder, agent = self.folder, self.agent
        self.session.run(lambda: folder.daily_dates(agent), self._dates_loaded)

    def show_day(self, day: dt.date) -> None:
        self.day = day
        if self.calendar.selectedDate() != daily.qdate(day):
            self.calendar.setSelectedDate(daily.qdate(day))  # -> _on_selection -> _load
        else:
            self._load(day)

    def _dates_loaded(self, dates: list[dt.date]) -> None:
        first = not self.dates and self.note is None
        self.dates = sorted(dates)
        daily.mark_days(self.calendar, self.dates, self.palette())
        count = len(self.dates)
        self.legend.setText(
            f"Days in bold have a note ({count} day{'s' if count != 1 else ''})."
            if count
            else "No daily notes yet."
        )
        self.datesLoaded.emit()
        if first and self.dates:
            self.show_day(self.dates[-1])
        else:
            self._load(self.day)

    def _on_selection(self) -> None:
        self.day = daily.pydate(self.calendar.selectedDate())
        self._load(self.day)

    def _load(self, day: dt.date) -> None:
        self._generation += 1
        generation = self._generation
        folder, agent = self.folder, self.agent
        self.day_label.setText(
            QtCore.QLocale().toString(daily.qdate(day), QtCore.QLocale.FormatType.LongFormat)
        )
        self.session.run(
            lambda: folder.daily_note(agent, day),
            lambda note: self._shown(generation, note),
            lambda exc: self._failed(generation, exc),
        )

    def _shown(self, generation: int, note: neighbours.folder.DailyText) -> None:
        if generation != self._generation:
            return
        self.note = note
        self._clear()
        self.where_label.setText(self.folder.files.relative(note.path))
        parts = paragraphs(note.text or "", note.date)
        for number, text in enumerate(parts, 1):
            entry = models.DailyEntry(date=note.date, time=f"¶ {number}", text=text, index=number)
            card = daily.EntryCard(entry)
            card.text_label.setTextFormat(QtCore.Qt.TextFormat.PlainText)  # as it was written
            card.text_label.setText(text)
            self.paragraphs_box.insertWidget(self.paragraphs_box.count() - 1, card)
        if note.text is None:
            self._empty("No note on this day.")
        elif not parts:
            self._empty("This day's note is empty.")
        else:
            self.stack.setCurrentWidget(self.area)
        self._update_steps()
        self.dayShown.emit(note.date)

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self._clear()
        title, message = session.describe(exc)
        self._empty(f"{title}\n\n{message}")
        self.dayShown.emit(self.day)

    def _on_document_changed(self, path: str) -> None:
        """A daily note beside the one shown changed (created, appended to): reload."""
        changed, shown = Path(path), self.note.path if self.note is not None else None
        if shown is None or not _DAY_NAME.match(changed.name):
            return
        if changed.parent == shown.parent or changed.parent.parent == shown.parent.parent:
            self.reload()

    # -- appending ------------------------------------------------------------------------

    def append(self) -> None:
        text = self.append_box.toPlainText()
        if self._appending or not text.strip():
            return
        self._appending = True
        self.append_error.hide()
        self._update_append()
        folder, agent = self.folder, self.agent
        self.session.run(
            lambda: folder.daily_append(agent, text), self._appended, self._refused, writer=True
        )

    def _appended(self, note: neighbours.folder.DailyText) -> None:
        self._appending = False
        self.append_box.clear()
        self._update_append()
        self.appended.emit(note)
        self.session.documentChanged.emit(str(note.path))
        self.show_day(note.date)

    def _refused(self, exc: BaseException) -> None:
        self._appending = False
        title, message = session.describe(exc)
        self.append_error.setText(f"<b>{html.escape(title)}</b>: {html.escape(message)}")
        self.append_error.show()
        self._update_append()

    def _update_append(self) -> None:
        self.append_button.setEnabled(
            bool(self.append_box.toPlainText().strip()) and not self._appending
        )

    # -- helpers --------------------------------------------------------------------------

    def _step(self, direction: int) -> None:
        day = daily.step_from(self.dates, self.day, direction)
        if day is not None:
            self.show_day(day)

    def _update_steps(self) -> None:
        self.earlier_button.setEnabled(any(d < self.day for d in self.dates))
        self.later_button.setEnabled(any(d > self.day for d in self.dates))

    def _clear(self) -> None:
        daily.clear_cards(self.paragraphs_box)

    def _empty(self, text: str) -> None:
        self.empty_label.setText(text)
        self.stack.setCurrentWidget(self.empty_label)

    def cards(self) -> list[daily.EntryCard]:
        return daily.cards_in(self.paragraphs_box)
