"""The synthesis preview: the summaries a synthesis would change, each with its diff.

`SynthesisPreviewDialog` shows a `core.outlook.SynthesisPreview` (a dry run: nothing is
written): the summaries that would change, ticked by default, and a coloured unified diff
(`DiffView`) of the one selected. Its owner writes the ticked ones when it is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models, outlook
from vault_app.ui import session, themes

Qt = QtCore.Qt
Role = Qt.ItemDataRole


def diff_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed by a unified diff (headers excluded)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


class DiffView(QtWidgets.QPlainTextEdit):
    """A read-only unified diff: added lines green, removed red, whole lines tinted."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.setAccessibleName("Changes to the summary")

    def line_colours(self) -> dict[str, tuple[QtGui.QColor, QtGui.QColor]]:
        """(text, background) per kind of line, for the current palette."""
        palette = self.palette()
        dark = themes.is_dark(palette)
        pick = lambda d, light: QtGui.QColor(d if dark else light)  # noqa: E731
        return {
            "+": (pick("#8ce99a", "#116329"), pick("#1f3b2a", "#e6ffec")),
            "-": (pick("#ffa8a8", "#a40e26"), pick("#4a2328", "#ffebe9")),
            "@": (palette.color(QtGui.QPalette.ColorRole.Link), pick("#262d3b", "#eef4ff")),
        }

    def set_diff(self, diff: str) -> None:
        self.setPlainText(diff)
        colours = self.line_colours()
        selections = []
        block = self.document().firstBlock()
        while block.isValid():
            line = block.text()
            kind = None
            if line.startswith(("+++", "---")):
                kind = "header"
            elif line[:1] in colours:
                kind = line[:1]
            if kind is not None:
                selection = QtWidgets.QTextEdit.ExtraSelection()
                selection.cursor = QtGui.QTextCursor(block)
                fmt = QtGui.QTextCharFormat()
                if kind == "header":
                    fmt.setFontWeight(QtGui.QFont.Weight.Bold)
                else:
                    fg, bg = colours[kind]
                    fmt.setForeground(fg)
                    fmt.setBackground(bg)
                fmt.setProperty(QtGui.QTextFormat.Property.FullWidthSelection, True)
                selection.format = fmt
                selections.append(selection)
            block = block.next()
        self.setExtraSelections(selections)


class SynthesisPreviewDialog(QtWidgets.QDialog):
    """The summaries a synthesis would change, each with its diff; Apply writes the ticked."""

    ADDRESS_ROLE = Role.UserRole + 1

    def __init__(self, preview: outlook.SynthesisPreview, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.preview = preview
        self.diffs = {str(r.ref): r.diff for r in preview.changes}
        self.setWindowTitle("Synthesize summaries — preview")
        self.resize(980, 620)

        count = len(preview.changes)
        intro = QtWidgets.QLabel(
            f"<b>{count} of {preview.checked} summaries would change.</b> Nothing has been "
            "written yet. Each summary is rewritten from its Hot and Warm facts; text you wrote "
            "outside the generated block is kept. Untick what should stay as it is, then Apply."
        )
        intro.setWordWrap(True)

        self.list = QtWidgets.QTreeWidget()
        self.list.setHeaderLabels(["Summary", "Lines"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAccessibleName("Summaries that would change")
        self.list.setToolTip("Ticked summaries are rewritten by Apply; select one to see its diff")
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self._items: list[QtWidgets.QTreeWidgetItem] = []
        for result in preview.changes:
            added, removed = diff_counts(result.diff)
            item = QtWidgets.QTreeWidgetItem([str(result.ref), f"+{added} −{removed}"])
            item.setData(0, self.ADDRESS_ROLE, str(result.ref))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            tip = (
                f"{result.path}\n{result.hot} hot and {result.warm} warm facts listed, "
                f"{result.cold} cold left out; {added} lines added, {removed} removed"
            )
            item.setToolTip(0, tip)
            item.setToolTip(1, tip)
            self._items.append(item)
        self.list.addTopLevelItems(self._items)
        self.list.currentItemChanged.connect(self._show_diff)
        self.list.itemChanged.connect(self._update_apply)

        tick_all = QtWidgets.QPushButton("Tick &all")
        tick_all.setToolTip("Apply every change")
        tick_all.clicked.connect(lambda: self._tick_all(Qt.CheckState.Checked))
        tick_none = QtWidgets.QPushButton("Tick &none")
        tick_none.setToolTip("Apply no change")
        tick_none.clicked.connect(lambda: self._tick_all(Qt.CheckState.Unchecked))
        list_box = QtWidgets.QWidget()
        list_layout = QtWidgets.QVBoxLayout(list_box)
        list_layout.setContentsMargins(0, 0, 0, 0)
        list_label = QtWidgets.QLabel("&Summaries")
        list_label.setBuddy(self.list)
        list_layout.addWidget(list_label)
        list_layout.addWidget(self.list)
        ticks = QtWidgets.QHBoxLayout()
        ticks.addWidget(tick_all)
        ticks.addWidget(tick_none)
        ticks.addStretch()
        list_layout.addLayout(ticks)

        self.diff_view = DiffView()
        diff_box = QtWidgets.QWidget()
        diff_layout = QtWidgets.QVBoxLayout(diff_box)
        diff_layout.setContentsMargins(0, 0, 0, 0)
        self.diff_label = QtWidgets.QLabel("Changes")
        self.diff_label.setBuddy(self.diff_view)
        diff_layout.addWidget(self.diff_label)
        diff_layout.addWidget(self.diff_view)

        split = QtWidgets.QSplitter()
        split.addWidget(list_box)
        split.addWidget(diff_box)
        split.setStretchFactor(1, 1)
        split.setSizes([320, 660])

        self.problems = QtWidgets.QLabel(self._problems_text(preview.problems))
        self.problems.setWordWrap(True)
        self.problems.setProperty("inlineError", True)
        self.problems.setVisible(bool(preview.problems))

        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Apply
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.apply_button = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Apply)
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(split, 1)
        layout.addWidget(self.problems)
        layout.addWidget(self.buttons)
        if self._items:
            self.list.setCurrentItem(self._items[0])
        self._update_apply()

    @staticmethod
    def _problems_text(problems: Sequence[models.Problem]) -> str:
        if not problems:
            return ""
        shown = "\n".join(f"• {p.path}: {p.message}" for p in problems[:5])
        more = f"\n…and {len(problems) - 5} more" if len(problems) > 5 else ""
        verb = "is" if len(problems) == 1 else "are"
        return f"{session.unreadable(len(problems))} and {verb} left out:\n{shown}{more}"

    def items(self) -> list[QtWidgets.QTreeWidgetItem]:
        """One item per summary that would change, in vault order."""
        return list(self._items)

    def selected_addresses(self) -> list[str]:
        return [
            item.data(0, self.ADDRESS_ROLE)
            for item in self.items()
            if item.checkState(0) == Qt.CheckState.Checked
        ]

    def _tick_all(self, state: Qt.CheckState) -> None:
        for item in self.items():
            item.setCheckState(0, state)

    def _update_apply(self) -> None:
        chosen = len(self.selected_addresses())
        self.apply_button.setEnabled(chosen > 0)
        self.apply_button.setText(f"&Apply {chosen} change{'s' if chosen != 1 else ''}")
        self.apply_button.setToolTip("Rewrite the ticked summaries now (Ctrl+Z undoes it)")

    def _show_diff(self, item: QtWidgets.QTreeWidgetItem | None) -> None:
        address = item.data(0, self.ADDRESS_ROLE) if item is not None else None
        self.diff_view.set_diff(self.diffs.get(address, "") if address else "")
        self.diff_label.setText(f"Changes to {address}" if address else "Changes")
