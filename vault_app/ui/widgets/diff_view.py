"""Two versions of a document side by side, and a merge chosen hunk by hunk: the dialogs
behind the conflict bar's "Keep mine…" and "Merge…".

Design
------
`SideBySide` shows two texts in two read-only, numbered panes whose rows are aligned
(`core.text_diff.side_by_side`): a line only on one side leaves a hatched, unnumbered gap
on the other, so equal lines always face each other; changed rows are tinted (the disk's side
red, yours green) and the words that differ are tinted deeper (`text_diff.changed_spans`).
The panes scroll as one; F8 / Shift+F8 (the Next and Previous change buttons) move both to
the next run of changes. Tints are see-through over the theme's base colour, so they
read in light and dark alike (in a merge, yours blue and the disk's amber: neither side
is the one "removed").

`DiffDialog` is "Keep mine…": what the disk holds against what you wrote, then "Overwrite
with mine" or "Back to editing". `MergeDialog` is "Merge…": the three-way merge cut into
hunks (`core.merge.plan`); each hunk that changed shows your lines and theirs side by
side with a choice — mine, theirs, both, or (for a conflict) leave it marked — preset to
what a plain merge would do, and the result is previewed below as choices change. The
result (`MergeDialog.merged`, a `core.merge.MergeResult`) is what the pane puts in the
editor.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import merge, text_diff
from vault_app.ui import themes

Qt = QtCore.Qt

# see-through tints over the base colour: (line, words) for each side
_REMOVED = (QtGui.QColor(224, 49, 49, 46), QtGui.QColor(224, 49, 49, 120))
_ADDED = (QtGui.QColor(47, 158, 68, 46), QtGui.QColor(47, 158, 68, 120))
# in a merge neither side is "removed": yours blue, the disk's amber (the conflict bar's)
_MINE = (QtGui.QColor(28, 126, 214, 46), QtGui.QColor(28, 126, 214, 120))
_THEIRS = (QtGui.QColor(232, 162, 0, 56), QtGui.QColor(232, 162, 0, 140))
CHOICE_TITLES = {
    merge.MINE: "Mine",
    merge.THEIRS: "Theirs",
    merge.BOTH: "Both",
    merge.MARK: "Leave marked",
}
CHOICE_TIPS = {
    merge.MINE: "Keep your lines here",
    merge.THEIRS: "Take the lines on disk here",
    merge.BOTH: "Keep your lines, then theirs (lines you both have are kept once)",
    merge.MARK: "Put both in the text between conflict markers, to resolve by hand",
}
KIND_TITLES = {
    "mine": "changed by you",
    "theirs": "changed on disk",
    "conflict": "changed by both — a conflict",
}


def _mono() -> QtGui.QFont:
    return QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)


def _pane(name: str) -> QtWidgets.QPlainTextEdit:
    pane = QtWidgets.QPlainTextEdit()
    pane.setReadOnly(True)
    pane.setFont(_mono())
    pane.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
    pane.setAccessibleName(name)
    pane.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse
        | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    return pane


def _gap_brush(palette: QtGui.QPalette) -> QtGui.QBrush:
    colour = QtGui.QColor(palette.color(QtGui.QPalette.ColorRole.Text))
    colour.setAlpha(40)
    return QtGui.QBrush(colour, Qt.BrushStyle.BDiagPattern)


def fill(
    pane: QtWidgets.QPlainTextEdit,
    lines: list[tuple[str | None, str, list[tuple[int, int]]]],
    tints: tuple[QtGui.QColor, QtGui.QColor],
) -> None:
    """Write `lines` into `pane`: each is (text or None for a gap, kind, changed spans)."""
    pane.clear()
    cursor = QtGui.QTextCursor(pane.document())
    gap = _gap_brush(pane.palette())
    for number, (text, kind, spans) in enumerate(lines):
        if number:
            cursor.insertBlock()
        block = QtGui.QTextBlockFormat()
        if text is None:
            block.setBackground(gap)
        elif kind != text_diff.EQUAL:
            block.setBackground(tints[0])
        cursor.setBlockFormat(block)
        plain = QtGui.QTextCharFormat()
        if text is None:
            cursor.insertText("", plain)
            continue
        strong = QtGui.QTextCharFormat()
        strong.setBackground(tints[1])
        at = 0
        for start, end in spans:
            cursor.insertText(text[at:start], plain)
            cursor.insertText(text[start:end], strong)
            at = end
        cursor.insertText(text[at:], plain)
    pane.moveCursor(QtGui.QTextCursor.MoveOperation.Start)


class NumberedPane(QtWidgets.QPlainTextEdit):
    """A read-only pane with a gutter of line numbers: each row's number in its own text
    (a gap row has none), so the two panes' numbers say which lines face each other."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.numbers: list[int | None] = []
        self.gutter = _Gutter(self)
        self.setReadOnly(True)
        self.setFont(_mono())
        self.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.setAccessibleName(name)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.updateRequest.connect(lambda _rect, _dy: self.gutter.update())

    def set_numbers(self, numbers: list[int | None]) -> None:
        self.numbers = numbers
        digits = len(str(max((n for n in numbers if n is not None), default=1)))
        self.setViewportMargins(self.fontMetrics().horizontalAdvance("9" * digits) + 12, 0, 0, 0)
        self.gutter.update()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        rect = self.contentsRect()
        self.gutter.setGeometry(
            rect.left(), rect.top(), self.viewportMargins().left(), rect.height()
        )

    def paint_gutter(self) -> None:
        painter = QtGui.QPainter(self.gutter)
        colour = QtGui.QColor(self.palette().color(QtGui.QPalette.ColorRole.Text))
        colour.setAlpha(150)  # quieter than the text, still readable
        painter.setPen(colour)
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        width = self.gutter.width() - 6
        while block.isValid():
            top = self.blockBoundingGeometry(block).translated(offset).top()
            if top > self.gutter.height():
                break
            number = block.blockNumber()
            if number < len(self.numbers) and self.numbers[number] is not None:
                height = self.fontMetrics().height()
                painter.drawText(0, int(top), width, height, Qt.AlignmentFlag.AlignRight,
                                 str(self.numbers[number]))  # fmt: skip
            block = block.next()
        painter.end()


class _Gutter(QtWidgets.QWidget):
    def __init__(self, pane: NumberedPane) -> None:
        super().__init__(pane)
        self.pane = pane

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        self.pane.paint_gutter()


class SideBySide(QtWidgets.QWidget):
    """Two texts in aligned, tinted, jointly scrolled panes (see the module doc)."""

    def __init__(
        self,
        left_title: str,
        right_title: str,
        parent: QtWidgets.QWidget | None = None,
        *,
        tints: tuple[tuple[QtGui.QColor, QtGui.QColor], ...] = (_REMOVED, _ADDED),
    ) -> None:
        super().__init__(parent)
        self.tints = tints
        self.rows: list[text_diff.Row] = []
        self.starts: list[int] = []
        self.left = NumberedPane(left_title)
        self.right = NumberedPane(right_title)
        self.left_title = QtWidgets.QLabel(f"<b>{left_title}</b>")
        self.right_title = QtWidgets.QLabel(f"<b>{right_title}</b>")
        self.summary = QtWidgets.QLabel()
        self.previous_button = QtWidgets.QPushButton("Previous change")
        self.previous_button.setToolTip("Show the change before this one (Shift+F8)")
        self.next_button = QtWidgets.QPushButton("Next change")
        self.next_button.setToolTip("Show the next change (F8)")
        for button, step, keys in ((self.previous_button, -1, "Shift+F8"),
                                   (self.next_button, 1, "F8")):  # fmt: skip
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, s=step: self.go(s))
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda s=step: self.go(s))
        self._current = -1
        self._syncing = False
        for one, other in ((self.left, self.right), (self.right, self.left)):
            one.verticalScrollBar().valueChanged.connect(
                lambda value, o=other: self._follow(o.verticalScrollBar(), value)
            )
            one.horizontalScrollBar().valueChanged.connect(
                lambda value, o=other: self._follow(o.horizontalScrollBar(), value)
            )
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.left_title, 0, 0)
        grid.addWidget(self.right_title, 0, 1)
        grid.addWidget(self.left, 1, 0)
        grid.addWidget(self.right, 1, 1)
        steps = QtWidgets.QHBoxLayout()
        steps.addWidget(self.summary, 1)
        steps.addWidget(self.previous_button)
        steps.addWidget(self.next_button)
        grid.addLayout(steps, 2, 0, 1, 2)

    def set_texts(self, left: str, right: str, first: tuple[int, int] = (1, 1)) -> None:
        """Show `left` and `right`; their first lines are numbered `first` (a part of a
        file is numbered as in the file)."""
        self.rows = text_diff.side_by_side(left, right)
        self.starts = text_diff.hunk_starts(self.rows)
        lefts: list[tuple[str | None, str, list[tuple[int, int]]]] = []
        rights: list[tuple[str | None, str, list[tuple[int, int]]]] = []
        for row in self.rows:
            spans: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
            if row.kind == text_diff.CHANGED and row.left is not None and row.right is not None:
                spans = text_diff.changed_spans(row.left, row.right)
            lefts.append((row.left, row.kind, spans[0]))
            rights.append((row.right, row.kind, spans[1]))
        fill(self.left, lefts, self.tints[0])
        fill(self.right, rights, self.tints[1])
        shift = (first[0] - 1, first[1] - 1)
        self.left.set_numbers(
            [None if r.left_no is None else r.left_no + shift[0] for r in self.rows]
        )
        self.right.set_numbers(
            [None if r.right_no is None else r.right_no + shift[1] for r in self.rows]
        )
        self.summary.setText(self._summary())
        for button in (self.previous_button, self.next_button):
            button.setEnabled(bool(self.starts))
        self._current = -1

    def _summary(self) -> str:
        counts = text_diff.counts(self.rows)
        if not self.starts:
            return "The two versions are the same."
        parts = [
            f"{counts[kind]} line{'' if counts[kind] == 1 else 's'} {word}"
            for kind, word in (
                (text_diff.CHANGED, "changed"),
                (text_diff.REMOVED, "only on the left"),
                (text_diff.ADDED, "only on the right"),
            )
            if counts[kind]
        ]
        places = len(self.starts)
        return f"{places} place{'' if places == 1 else 's'} differ: " + ", ".join(parts) + "."

    def go(self, step: int) -> int:
        """Show the next (`step` 1) or previous (-1) run of changes; its first row."""
        if not self.starts:
            return -1
        self._current = (self._current + step) % len(self.starts)
        row = self.starts[self._current]
        for pane in (self.left, self.right):
            block = pane.document().findBlockByNumber(row)
            pane.setTextCursor(QtGui.QTextCursor(block))
            pane.centerCursor()
        return row

    def _follow(self, bar: QtWidgets.QScrollBar, value: int) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            bar.setValue(value)
        finally:
            self._syncing = False


class DiffDialog(QtWidgets.QDialog):
    """Shows the disk version against the user's before "Keep mine" overwrites it."""

    def __init__(self, name: str, theirs: str, mine: str, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Keep your version of {name}?")
        self.resize(980, 560)
        intro = QtWidgets.QLabel(
            f"{name} was changed on disk while you were editing it. Left: the version on "
            "disk, which “Overwrite with mine” replaces; right: yours. Changed lines are "
            "tinted, the words that differ more deeply; a hatched row is a line the other "
            "side does not have."
        )
        intro.setWordWrap(True)
        self.view = SideBySide("On disk (theirs)", "Yours")
        self.view.set_texts(theirs, mine)
        buttons = QtWidgets.QDialogButtonBox()
        self.keep_button = buttons.addButton(
            "Overwrite with mine", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.keep_button.setToolTip("Write your text over the version shown on disk")
        back = buttons.addButton(
            "Back to editing", QtWidgets.QDialogButtonBox.ButtonRole.RejectRole
        )
        back.setToolTip("Write nothing; your text stays in the editor")
        back.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column = QtWidgets.QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.view, 1)
        column.addWidget(buttons)
        self.view.go(1)


class HunkChooser(QtWidgets.QFrame):
    """One changed hunk: yours and theirs side by side, and what to take."""

    chosen = QtCore.Signal()

    def __init__(
        self,
        number: int,
        total: int,
        hunk: merge.Hunk,
        first: tuple[int, int] = (1, 1),
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.hunk = hunk
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        title = QtWidgets.QLabel(f"<b>Change {number} of {total}</b>: {KIND_TITLES[hunk.kind]}")
        self.buttons: dict[str, QtWidgets.QRadioButton] = {}
        group = QtWidgets.QButtonGroup(self)
        head = QtWidgets.QHBoxLayout()
        head.addWidget(title, 1)
        for choice in hunk.choices:
            button = QtWidgets.QRadioButton(CHOICE_TITLES[choice])
            button.setToolTip(CHOICE_TIPS[choice])
            button.setChecked(choice == hunk.default)
            button.toggled.connect(self._toggled)
            group.addButton(button)
            head.addWidget(button)
            self.buttons[choice] = button
        view = SideBySide("Yours", "On disk (theirs)", tints=(_MINE, _THEIRS))
        view.summary.hide()
        view.previous_button.hide()
        view.next_button.hide()
        mine, theirs = "".join(hunk.mine), "".join(hunk.theirs)
        view.set_texts(mine, theirs, first)  # numbered as in your text and the disk's
        rows = max(len(view.rows), 1)
        height = view.left.fontMetrics().lineSpacing() * min(rows, 8) + 16
        for pane in (view.left, view.right):
            pane.setFixedHeight(height)
            if not pane.toPlainText():
                pane.setPlaceholderText("(nothing: these lines were removed)")
        column = QtWidgets.QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.addLayout(head)
        column.addWidget(view)
        self.view = view

    def _toggled(self, on: bool) -> None:
        if on:
            self.chosen.emit()

    def choice(self) -> str:
        return next((c for c, b in self.buttons.items() if b.isChecked()), self.hunk.default or "")


class MergeDialog(QtWidgets.QDialog):
    """Choose, per changed hunk, mine / theirs / both (or leave a conflict marked); the
    result is previewed as it is chosen."""

    def __init__(
        self,
        name: str,
        plan: merge.MergePlan,
        parent: QtWidgets.QWidget,
        *,
        why: str | None = None,
        apply_text: str = "Put in the editor",
        apply_tip: str = "Replace the editor's text with the merged text (unsaved)",
    ) -> None:
        super().__init__(parent)
        self.plan = plan
        self.setWindowTitle(f"Merge {name}")
        self.resize(1000, 620)
        changed = plan.changed
        conflicts = sum(plan.hunks[i].kind == "conflict" for i in changed)
        counted = (
            f"{len(changed)} change{'' if len(changed) == 1 else 's'}, {conflicts} of them "
            "made on both sides."
        )
        intro = QtWidgets.QLabel(
            f"{why} {counted}"
            if why
            else f"{name} changed on disk while you were editing it: {counted} Choose what "
            "to keep in each; the result goes in the editor (unsaved, one Undo away)."
        )
        intro.setWordWrap(True)
        self.choosers: dict[int, HunkChooser] = {}
        cards = QtWidgets.QWidget()
        stack = QtWidgets.QVBoxLayout(cards)
        starts, mine_at, theirs_at = {}, 1, 1
        for index, hunk in enumerate(plan.hunks):  # where each hunk starts in either text
            starts[index] = (mine_at, theirs_at)
            mine_at, theirs_at = mine_at + len(hunk.mine), theirs_at + len(hunk.theirs)
        for number, index in enumerate(changed, start=1):
            chooser = HunkChooser(number, len(changed), plan.hunks[index], starts[index])
            chooser.chosen.connect(self._preview)
            self.choosers[index] = chooser
            stack.addWidget(chooser)
        stack.addStretch(1)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(cards)
        scroll.setAccessibleName("Changes to choose from")
        self.preview = _pane("The merged text")
        self.preview_label = QtWidgets.QLabel()
        preview_box = QtWidgets.QWidget()
        preview_column = QtWidgets.QVBoxLayout(preview_box)
        preview_column.setContentsMargins(0, 0, 0, 0)
        preview_column.addWidget(self.preview_label)
        preview_column.addWidget(self.preview, 1)
        split = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        split.addWidget(scroll)
        split.addWidget(preview_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        buttons = QtWidgets.QDialogButtonBox()
        self.apply_button = buttons.addButton(
            apply_text, QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.apply_button.setToolTip(apply_tip)
        self.apply_button.setDefault(True)
        cancel = buttons.addButton("Cancel", QtWidgets.QDialogButtonBox.ButtonRole.RejectRole)
        cancel.setToolTip("Merge nothing; your text and the conflict bar stay")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column = QtWidgets.QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(split, 1)
        column.addWidget(buttons)
        self._preview()

    def choices(self) -> dict[int, str]:
        return {index: chooser.choice() for index, chooser in self.choosers.items()}

    def choose(self, index: int, choice: str) -> None:
        """Pick `choice` for hunk `index` (as a click on its button does)."""
        self.choosers[index].buttons[choice].setChecked(True)

    def merged(self) -> merge.MergeResult:
        return self.plan.resolve(self.choices())

    def _preview(self) -> None:
        result = self.merged()
        self.preview.setPlainText(result.text)
        left = result.conflicts
        warning = themes.error_colour(self.palette()).name()
        marked = (
            f' — <span style="color:{warning}">{left} conflict{"" if left == 1 else "s"} '
            "left marked</span>, to resolve in the editor"
            if left
            else ""
        )
        self.preview_label.setText(f"<b>Result</b>{marked}")
