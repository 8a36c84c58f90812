"""Banners, and the ways out of a conflict with the disk, shared by the editors.

`Banner` is a frame tinted over the theme's window colour (errors, conflicts, notes), also
under the fact dialog's `FactChangedBar`. For a document edited while its file changed on
disk (`documents.DocumentPane`): the `ConflictBar` (Merge, Reload theirs, Keep mine; it
says who changed the file and when, from the audit log: `changed_by`), the `MergeNote`
that counts the conflicts a merge left, and the `ConflictHighlighter` that marks them in
the editor. The side-by-side diff and the per-hunk merge dialogs are `diff_view`'s.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import activity, merge


def changed_by(
    line: dict[str, Any] | None,
    digest: str | None,
    now: dt.datetime,
    agent_ids: Iterable[str] = (),
) -> str:
    """Who made the version on disk, in words: the audit log's newest write of the file
    (`core.activity.last_write`) if it wrote exactly this version (its `after` hash),
    else "outside vault-app" (another editor, a sync tool, a script)."""
    if digest is None:  # deleted: the bar says it is gone; no write of ours deletes
        return ""
    if line is None or line.get("after") != digest:
        return "It was changed outside vault-app (another program, not an agent or this app)."
    actor = str(line.get("actor", ""))
    kind = activity.actor_kind(actor, agent_ids)
    who = activity.actor_title(actor, agent_ids)
    named = {"agent": f"agent {who}", "heartbeat": "the heartbeat"}.get(kind, who)
    if kind == "person" and actor.strip().casefold() == "gui":
        named = "vault-app (another window)"
    elif kind == "person" and actor.strip().casefold() == "cli":
        named = "the command line"
    when = activity.moment(line)
    at = "at an unknown time" if when is None else _when(when, now)
    return f"Changed by {named} {at}."


def _when(when: dt.datetime, now: dt.datetime) -> str:
    local, today = when.astimezone(), now.astimezone().date()
    if local.date() == today:
        return f"today at {local:%H:%M}"
    if local.date() == today - dt.timedelta(days=1):
        return f"yesterday at {local:%H:%M}"
    return f"on {local:%Y-%m-%d} at {local:%H:%M}"


class Banner(QtWidgets.QFrame):
    """A frame tinted with `colour` over the theme's window colour (light or dark).

    The tint is mixed again whenever the palette changes, so a theme switch keeps it
    readable.
    """

    def __init__(self, colour: str, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.colour = QtGui.QColor(colour)
        self._tinting = False
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self._tint()

    def set_colour(self, colour: str) -> None:
        if QtGui.QColor(colour) != self.colour:
            self.colour = QtGui.QColor(colour)
            self._tint()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.PaletteChange and not self._tinting:
            self._tint()

    def _tint(self) -> None:
        base = QtWidgets.QApplication.palette().color(QtGui.QPalette.ColorRole.Window)
        tint = self.colour
        mixed = QtGui.QColor(
            (base.red() * 4 + tint.red()) // 5,
            (base.green() * 4 + tint.green()) // 5,
            (base.blue() * 4 + tint.blue()) // 5,
        )
        palette = self.palette()
        palette.setColor(QtGui.QPalette.ColorRole.Window, mixed)
        self._tinting = True
        try:
            self.setPalette(palette)
        finally:
            self._tinting = False


class ConflictBar(Banner):
    """The bar saying the file changed on disk while editing, with the three ways out."""

    mergeRequested = QtCore.Signal()
    reloadTheirs = QtCore.Signal()
    keepMine = QtCore.Signal()

    MESSAGE = "This file changed on disk while you were editing."

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("#e8a200", parent)
        self.label = QtWidgets.QLabel(self.MESSAGE)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.author_label = QtWidgets.QLabel()
        self.author_label.setWordWrap(True)
        self.author_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.author_label.hide()
        self.merge_button = QtWidgets.QPushButton("&Merge…")
        self.merge_button.setToolTip(
            "Combine their changes with yours (Alt+M): choose, change by change, yours, "
            "theirs or both. Nothing is saved until you press Save."
        )
        self.reload_button = QtWidgets.QPushButton("&Reload theirs")
        self.reload_button.setToolTip(
            "Put the version on disk in the editor (Alt+R). Your text is not lost: "
            "Undo (Ctrl+Z) in the editor brings it back."
        )
        self.keep_button = QtWidgets.QPushButton("&Keep mine…")
        self.keep_button.setToolTip(
            "Compare the version on disk with yours, then write yours over it (Alt+K)"
        )
        self.merge_button.clicked.connect(self.mergeRequested)
        self.reload_button.clicked.connect(self.reloadTheirs)
        self.keep_button.clicked.connect(self.keepMine)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        icon = QtWidgets.QLabel()
        warning = self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MessageBoxWarning)
        icon.setPixmap(warning.pixmap(20, 20))
        row.addWidget(icon)
        words = QtWidgets.QVBoxLayout()
        words.setSpacing(2)
        words.addWidget(self.label)
        words.addWidget(self.author_label)
        row.addLayout(words, 1)
        for button in (self.merge_button, self.reload_button, self.keep_button):
            button.setAutoDefault(False)
            row.addWidget(button)
        self.setAccessibleName("File changed on disk")
        self.hide()

    def show_conflict(
        self, detail: str | None = None, *, reloadable: bool = True, mergeable: bool = True
    ) -> None:
        """Show the bar. Reload needs a readable disk version; Merge also needs one that
        exists (a file deleted on disk has nothing to merge with)."""
        self.label.setText(self.MESSAGE if not detail else f"{self.MESSAGE} {detail}")
        self.author_label.hide()  # until the audit log is read (`show_author`)
        self.reload_button.setEnabled(reloadable)
        self.merge_button.setEnabled(mergeable and reloadable)
        self.merge_button.setText("&Merge…")
        self.keep_button.setEnabled(True)
        self.show()

    def show_author(self, text: str) -> None:
        """Who changed the file and when (`changed_by`), under the message."""
        self.author_label.setText(text)
        self.author_label.setVisible(bool(text))

    def set_merging(self, merging: bool) -> None:
        """While a merge runs (off-thread) its button says so and nothing else is pressed."""
        self.merge_button.setText("Merging…" if merging else "&Merge…")
        for button in (self.merge_button, self.reload_button, self.keep_button):
            button.setEnabled(not merging)


class MergeNote(Banner):
    """After a merge: what it did, how many conflicts are left, and a way to the next one."""

    nextConflict = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(self.INFO, parent)
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.next_button = QtWidgets.QPushButton("Next conflict")
        self.next_button.setToolTip("Move the cursor to the next conflict in the text (F8)")
        self.next_button.setAutoDefault(False)
        self.next_button.clicked.connect(self.nextConflict)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        row.addWidget(self.label, 1)
        row.addWidget(self.next_button)
        self.setAccessibleName("Merge result")
        self.hide()

    INFO, REFUSED = "#4a7fb5", "#d9480f"

    def show_result(self, conflicts: int, merged: bool = True, refused: bool = False) -> None:
        """Say what is left to do: `conflicts` still marked (after a merge when `merged`;
        after a refused save when `refused`, tinted as an error)."""
        self.set_colour(self.REFUSED if refused and conflicts else self.INFO)
        if conflicts:
            if refused:
                head = f"Not saved: {_conflicts(conflicts)} still marked in the text."
            elif merged:
                head = f"Merged, with {_conflicts(conflicts)} to resolve."
            else:
                head = f"{_conflicts(conflicts).capitalize()} still to resolve."
            text = (
                f"{head} In each, keep the lines you want between “{merge.MINE_MARKER}” and "
                f"“{merge.THEIRS_MARKER}” and delete the marker lines, then save."
            )
        elif merged:
            text = (
                "Merged their changes with yours — review and save. "
                "Undo (Ctrl+Z) in the editor takes the merge back."
            )
        else:
            text = "Every conflict is resolved — review and save."
        self.label.setText(text)
        self.next_button.setVisible(conflicts > 0)
        self.show()


class ConflictHighlighter(QtGui.QSyntaxHighlighter):
    """Marks the lines of a conflict block in the editor so that they stand out.

    Only a whole block counts: "=======" alone is a markdown heading underline.
    """

    OUTSIDE, MINE, THEIRS = -1, 1, 2

    def highlightBlock(self, text: str) -> None:
        state = self.previousBlockState()
        marker = QtGui.QTextCharFormat()
        marker.setFontWeight(QtGui.QFont.Weight.Bold)
        marker.setBackground(QtGui.QColor(232, 162, 0, 110))  # the conflict amber, see-through
        if text == merge.MINE_MARKER:
            self.setFormat(0, len(text), marker)
            self.setCurrentBlockState(self.MINE)
        elif text == merge.MIDDLE_MARKER and state == self.MINE:
            self.setFormat(0, len(text), marker)
            self.setCurrentBlockState(self.THEIRS)
        elif text == merge.THEIRS_MARKER and state in (self.MINE, self.THEIRS):
            self.setFormat(0, len(text), marker)
            self.setCurrentBlockState(self.OUTSIDE)
        else:
            self.setCurrentBlockState(state if state in (self.MINE, self.THEIRS) else self.OUTSIDE)


def _conflicts(count: int) -> str:
    return "1 conflict" if count == 1 else f"{count} conflicts"
