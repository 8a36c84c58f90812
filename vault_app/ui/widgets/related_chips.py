"""The fact editor's related-entities field: one chip per entity, with completion.

Design
------
`RelatedChipsEdit` is a frame holding a chip for each related entity (its title, the
address in the tooltip, × to remove it) and, after them, a borderless line edit to type
the next one. Typing `[[` starts completion over every entity of the last scan, by title
or address ("[[jan" offers Jane Doe — areas/people/jane-doe); Ctrl+Space starts it too;
choosing one makes its chip. A comma, Enter or `]]` turns the typed text into a chip as
it is; Backspace in the empty line edit removes the last chip.

The form checks the items (`related_entities.related_problems`) and hands the verdict
back with `set_problems`: every bad chip is outlined in the theme's error colour with its
reason as tooltip, and so is the whole field. Chips wrap onto new lines
(`flow_layout.FlowLayout`).

For the form, the field reads like the comma-separated line it replaces: `text()`,
`setText()`, `clear()`, `textChanged`; `items()` includes what is typed but not yet a chip
(not a `[[` completion under way, nor the first `[` of one: neither is scolded while it is
being typed).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui import themes
from vault_app.ui.widgets import flow_layout
from vault_app.ui.widgets.related_entities import split_related

Qt = QtCore.Qt
ADDRESS_ROLE = Qt.ItemDataRole.UserRole + 1


class Chip(QtWidgets.QFrame):
    """One related entity: its title, × to remove it; outlined when it is wrong."""

    removed = QtCore.Signal(str)

    def __init__(self, address: str, title: str, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.address = address
        self.problem: str | None = None
        self.label = QtWidgets.QLabel(title)
        self.close_button = QtWidgets.QToolButton()
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(f"Remove {address}")
        self.close_button.setAccessibleName(f"Remove {address}")
        self.close_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.close_button.clicked.connect(lambda: self.removed.emit(self.address))
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(8, 1, 2, 1)
        row.setSpacing(2)
        row.addWidget(self.label)
        row.addWidget(self.close_button)
        self.setAccessibleName(f"Related entity {address}")
        self.set_problem(None)

    def set_problem(self, problem: str | None) -> None:
        self.problem = problem
        self.setToolTip(self.address if problem is None else f"{self.address}: {problem}")
        self.update()

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        bad = self.problem is not None
        pen = QtGui.QPen(
            themes.error_colour(palette) if bad else palette.color(QtGui.QPalette.ColorRole.Mid),
            2 if bad else 1,
        )
        painter.setPen(pen)
        painter.setBrush(palette.color(QtGui.QPalette.ColorRole.Button))
        radius = self.height() / 2
        painter.drawRoundedRect(QtCore.QRectF(self.rect()).adjusted(1, 1, -1, -1), radius, radius)


class RelatedChipsEdit(QtWidgets.QFrame):
    """Related entities as chips, completed after `[[` (see the module docstring)."""

    textChanged = QtCore.Signal(str)

    def __init__(
        self, entities: Iterable[tuple[str, str]], parent: QtWidgets.QWidget | None = None
    ) -> None:
        """`entities`: (address, title) of every entity that may be named."""
        super().__init__(parent)
        self.titles = dict(entities)
        self.chips: list[Chip] = []
        self.problems: dict[str, str] = {}
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setBackgroundRole(QtGui.QPalette.ColorRole.Base)
        self.setAutoFillBackground(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)  # chips wrap: more of them, more lines
        self.setSizePolicy(policy)
        self.editor = QtWidgets.QLineEdit()
        self.editor.setFrame(False)
        self.editor.setMinimumWidth(160)
        self.editor.setPlaceholderText("Type [[ to pick an entity")
        self.editor.setAccessibleName("Related entity to add")
        self.setFocusProxy(self.editor)
        self.flow = flow_layout.FlowLayout(self, spacing=4)
        self.flow.setContentsMargins(4, 3, 4, 3)
        self.flow.add(self.editor, stretch=1)  # the typing room takes the row's rest
        self.completer = self._build_completer()
        self.editor.textEdited.connect(self._edited)
        self.editor.installEventFilter(self)

    def _build_completer(self) -> QtWidgets.QCompleter:
        model = QtGui.QStandardItemModel(self)
        for address, title in sorted(self.titles.items(), key=lambda p: (p[1].casefold(), p[0])):
            item = QtGui.QStandardItem(f"{title} — {address}")
            item.setData(address, ADDRESS_ROLE)
            model.appendRow(item)
        completer = QtWidgets.QCompleter(model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QtWidgets.QCompleter.CompletionMode.PopupCompletion)
        completer.setMaxVisibleItems(12)
        completer.setWidget(self.editor)  # not the editor's own: it must not rewrite the text
        completer.activated[QtCore.QModelIndex].connect(self._chosen)  # type: ignore[index]
        return completer

    # -- the form's side ------------------------------------------------------------------

    def items(self) -> list[str]:
        """The chips' addresses, then what is typed and not yet a chip (unless it is a
        `[[` completion under way, or its first `[`), without repeats."""
        typed = "" if self.editor.text().lstrip().startswith("[") else self._typed()
        return list(dict.fromkeys([c.address for c in self.chips] + ([typed] if typed else [])))

    def text(self) -> str:
        return ", ".join(self.items())

    def setText(self, text: str) -> None:
        for chip in self.chips:
            chip.deleteLater()
        self.chips = []
        self.editor.clear()
        for item in split_related(text):
            self._add_chip(item, announce=False)
        self._changed()

    def clear(self) -> None:
        self.setText("")

    def set_problems(self, problems: dict[str, str]) -> None:
        """Outline every chip in `problems` (item → reason), and the field if any."""
        self.problems = dict(problems)
        for chip in self.chips:
            chip.set_problem(self.problems.get(chip.address))
        self.update()

    # -- editing ----------------------------------------------------------------------------

    def _typed(self) -> str:
        text = self.editor.text().strip()
        if text.startswith("[["):
            text = text[2:]
        return text.removesuffix("]]").strip(" ,")

    def _add_chip(self, address: str, *, announce: bool = True) -> None:
        if address in (c.address for c in self.chips):
            return
        chip = Chip(address, self.titles.get(address, address), self)
        chip.removed.connect(self.remove)
        self.flow.removeWidget(self.editor)  # the chips first, the typing room last
        self.flow.addWidget(chip)
        self.flow.add(self.editor, stretch=1)
        self.chips.append(chip)
        chip.set_problem(self.problems.get(address))
        chip.show()
        if announce:
            self._changed()

    def remove(self, address: str) -> None:
        """Remove the chip of `address` (its ×, or Backspace after it)."""
        for chip in list(self.chips):
            if chip.address == address:
                self.chips.remove(chip)
                self.flow.removeWidget(chip)
                chip.deleteLater()
        self._changed()
        self.editor.setFocus()

    def commit_typed(self) -> bool:
        """Turn what is typed into a chip, as written; False if nothing was typed."""
        typed = self._typed()
        self.editor.clear()
        self._hide_popup()
        if not typed:
            return False
        for item in split_related(typed):
            self._add_chip(item, announce=False)
        self._changed()
        return True

    def _hide_popup(self) -> None:
        popup = self.completer.popup()
        if popup is not None:
            popup.hide()

    def start_completion(self) -> None:
        """Show the entities whose title or address holds what follows `[[`."""
        text = self.editor.text()
        prefix = text.split("[[", 1)[1] if "[[" in text else text
        self.completer.setCompletionPrefix(prefix.strip())
        self.completer.complete()

    def _edited(self, text: str) -> None:
        if "]]" in text or "," in text:
            self.commit_typed()
        elif "[[" in text:
            self.start_completion()
        else:
            self._hide_popup()
        self._changed()

    def _chosen(self, index: QtCore.QModelIndex) -> None:
        address = index.data(ADDRESS_ROLE)
        self.editor.clear()
        if address:
            self._add_chip(str(address))

    def _changed(self) -> None:
        self.updateGeometry()  # a chip more or less may take a line more or less
        self.textChanged.emit(self.text())

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if watched is self.editor and event.type() == QtCore.QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            mods = event.modifiers()  # type: ignore[attr-defined]
            if key == Qt.Key.Key_Space and mods & Qt.KeyboardModifier.ControlModifier:
                self.start_completion()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.editor.text().strip():
                return self.commit_typed()  # an empty one lets the dialog's Enter through
            if key == Qt.Key.Key_Backspace and not self.editor.text() and self.chips:
                self.remove(self.chips[-1].address)
                return True
        return super().eventFilter(watched, event)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        super().paintEvent(event)
        if self.has_error_outline():
            painter = QtGui.QPainter(self)
            painter.setPen(QtGui.QPen(themes.error_colour(self.palette()), 2))
            painter.drawRect(QtCore.QRectF(self.rect()).adjusted(1, 1, -1, -1))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.flow.heightForWidth(width)

    def sizeHint(self) -> QtCore.QSize:
        hint = self.editor.sizeHint()
        width = max(hint.width() * 2, 320)
        return QtCore.QSize(width, self.flow.heightForWidth(width))

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(self.editor.minimumWidth() + 12, self.editor.sizeHint().height() + 8)

    def has_error_outline(self) -> bool:
        """Whether the field is outlined in the error colour (some item is wrong)."""
        typed = self._typed()
        return any(chip.problem for chip in self.chips) or bool(typed and typed in self.problems)
