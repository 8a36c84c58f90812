"""The fact editor: add a fact, or edit one (an edit supersedes; the old fact stays).

Design
------
`FactDialog` is one form for both jobs. `FactDialog.add(session, address, parent)` and
`FactDialog.supersede(session, address, fact, parent)` build it, open it window-modal
(`open()`, never a nested event loop) and return it. The form checks itself as the user
types: each problem is shown in words next to its field and OK stays disabled until
there is none (empty text, entity addresses that are malformed or not in the vault — all
of them named at once, their chips and the field outlined — an edit that changes
nothing). Related entities are chips (`related_chips.RelatedChipsEdit`): typing `[[`
completes over every entity of the last scan, by title or address.

On OK the dialog hands the write to `commands.add_fact` / `commands.supersede_fact` (one
undoable step on the writer thread) and stays open, its fields disabled, until the write is
done: then it emits `factSaved(new fact id)` and closes. A refused write is shown in the
dialog in plain words (`session.describe`) and the user's text is kept.

Live sync. While an edit is open, `Session.entityChanged` for its entity (and a refused
save) re-reads the fact's lineage off-thread (`read_lineage`). If the fact was superseded,
withdrawn, or its text, category, related entities, source or confidence changed on disk,
a `FactChangedBar` in the dialog shows their version and OK waits for a choice:

* "Use theirs" fills the form from the active version on disk (the fact text as one
  undoable change: Ctrl+Z in the field brings the user's back) and edits that version;
  with no active version left the dialog closes, and the message names the user's text.
* "Keep mine" keeps the form; saving supersedes the active version on disk (the one the
  bar showed), or, with none left, adds the user's text as a new fact.

Either way every version stays on disk; nothing typed is dropped without a word.

The disk side of the live sync (`read_lineage`, `DiskFact`) and the bar are in
`fact_changes`; the related-entities field's helpers in `related_entities`.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout, models
from vault_app.ui import commands, themes
from vault_app.ui.session import Session, describe
from vault_app.ui.widgets.related_chips import RelatedChipsEdit
from vault_app.ui.widgets.related_entities import (
    entity_titles,
    known_addresses,
    problems_text,
    related_problems,
)
from vault_app.ui.window.fact_changes import DiskFact, FactChangedBar, read_lineage

Qt = QtCore.Qt

FACT_LINES = (5, 10)  # the fact field's lines: at least, and at most for a long fact
CATEGORY_TIPS = {
    models.FactCategory.RELATIONSHIP: "Who or what this entity is connected to",
    models.FactCategory.MILESTONE: "Something that happened (an event, a date reached)",
    models.FactCategory.STATUS: "The current state of things; likely to change",
    models.FactCategory.PREFERENCE: "What someone likes, wants or avoids",
    models.FactCategory.CONTEXT: "Background worth knowing",
}


def _wrapping(label: QtWidgets.QLabel) -> None:
    """A word-wrapped label that takes the width it is given (not its narrow hint)."""
    label.setWordWrap(True)
    label.setSizePolicy(
        QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred
    )


def _with_error(field: QtWidgets.QWidget, error: QtWidgets.QLabel) -> QtWidgets.QWidget:
    """A field with its inline error message right below it, at the field's width."""
    holder = QtWidgets.QWidget()
    box = QtWidgets.QVBoxLayout(holder)
    box.setContentsMargins(0, 0, 0, 0)
    box.setSpacing(2)
    box.addWidget(field)
    box.addWidget(error)
    return holder


class FactDialog(QtWidgets.QDialog):
    """Add a fact to an entity, or supersede one of its facts (see the module docstring)."""

    factSaved = QtCore.Signal(str)  # the id of the fact written (the new version on an edit)

    def __init__(
        self,
        session: Session,
        address: str,
        fact: models.Fact | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.ref = layout.EntityRef.parse(address)
        self.address = str(self.ref)
        self.old = fact
        self.known = set(known_addresses(session))
        self.saving = False
        self._typed = False
        self.result_value: Any = None
        self.pending: DiskFact | None = None  # a change on disk the user has not answered
        self.closing_notice: QtWidgets.QMessageBox | None = None
        self._lookup = 0  # bumped per lineage read: only the latest one counts
        self._build()
        self._fill()
        self.validate()
        if self.editing:
            session.entityChanged.connect(self._on_entity_changed)
            session.entityMoved.connect(self._on_entity_moved)

    # -- entry points ---------------------------------------------------------------------

    @classmethod
    def add(
        cls, session: Session, address: str, parent: QtWidgets.QWidget | None = None
    ) -> FactDialog:
        """Open (window-modal) the form that adds a fact to `address`; returns the dialog."""
        dialog = cls(session, address, None, parent)
        dialog.open()
        return dialog

    @classmethod
    def supersede(
        cls,
        session: Session,
        address: str,
        fact: models.Fact,
        parent: QtWidgets.QWidget | None = None,
    ) -> FactDialog:
        """Open the form that writes a new version of `fact` (which stays, superseded)."""
        dialog = cls(session, address, fact, parent)
        dialog.open()
        return dialog

    @property
    def editing(self) -> bool:
        return self.old is not None

    # -- building -------------------------------------------------------------------------

    def _build(self) -> None:
        self.setMinimumWidth(560)
        if self.editing:
            self.setWindowTitle(f"Edit a fact of {self.ref.title} — the old version is kept")
            intro = (
                "Saving writes a new version of this fact. The current one stays in the "
                "history, marked superseded; nothing is deleted."
            )
        else:
            self.setWindowTitle(f"Add a fact to {self.ref.title}")
            intro = (
                f"The fact is added to {self.address}. Facts are never deleted: to change "
                "one later, edit it and the old version stays in its history."
            )
        self.intro = QtWidgets.QLabel(intro)
        self.intro.setWordWrap(True)
        self.changed_bar = FactChangedBar()
        self.changed_bar.useTheirs.connect(self.use_theirs)
        self.changed_bar.keepMine.connect(self.keep_mine)

        self.text_edit = QtWidgets.QPlainTextEdit()
        self.text_edit.setTabChangesFocus(True)
        self.text_edit.setPlaceholderText("One atomic fact, e.g. “Jane fixed the kitchen leak”")
        self.text_edit.setToolTip("The fact itself: one short statement")
        self.text_edit.setFixedHeight(self.fontMetrics().lineSpacing() * FACT_LINES[0] + 12)
        self.text_error = self._error_label()

        self.category = QtWidgets.QComboBox()
        for value in models.FactCategory:
            self.category.addItem(value.value.capitalize(), value.value)
            self.category.setItemData(
                self.category.count() - 1, CATEGORY_TIPS[value], Qt.ItemDataRole.ToolTipRole
            )
        self.category.setToolTip("What kind of fact this is")

        self.related = RelatedChipsEdit(entity_titles(self.session))
        self.related.setToolTip(
            "Entities this fact is about. Type [[ and part of a name or address to pick one; "
            "a comma or Enter adds what is typed as it is."
        )
        self.completer = self.related.completer
        self.related_error = self._error_label()

        self.source = QtWidgets.QLineEdit()
        self.source.setPlaceholderText("Where this comes from, e.g. conversation, invoice")
        self.source.setToolTip("Optional: where the fact comes from")

        self.confidence = QtWidgets.QDoubleSpinBox()
        self.confidence.setRange(0.0, 1.0)
        self.confidence.setSingleStep(0.05)
        self.confidence.setDecimals(2)
        self.confidence.setValue(1.0)
        self.confidence.setToolTip("How sure you are: 1 is certain, 0.5 is a guess")

        self.agent = QtWidgets.QComboBox()
        self.agent.addItem("None (written by you)", None)
        for agent_id in self.session.known.agents if self.session.known else []:
            self.agent.addItem(agent_id, agent_id)
        self.agent.setToolTip("The agent this fact is recorded for, if any")

        form = QtWidgets.QFormLayout()
        self.form = form
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.current = QtWidgets.QLabel()
        if self.editing:
            assert self.old is not None
            current = self.current
            current.setText(self.old.fact)
            current.setTextFormat(Qt.TextFormat.PlainText)
            _wrapping(current)
            current.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            current.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
            current.setToolTip("The version that will be kept in the history")
        # a long current version scrolls in four lines: the editable field gets the room
        self.current_box = QtWidgets.QScrollArea()
        self.current_box.setWidget(self.current)
        self.current_box.setWidgetResizable(True)
        self.current_box.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.current_box.setMaximumHeight(self.fontMetrics().lineSpacing() * 4 + 8)
        self.current_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if self.editing:
            form.addRow("Current version:", self.current_box)
        form.addRow(
            self._label("&Fact:", self.text_edit), _with_error(self.text_edit, self.text_error)
        )
        form.addRow(self._label("&Category:", self.category), self.category)
        form.addRow(
            self._label("&Related entities:", self.related),
            _with_error(self.related, self.related_error),
        )
        form.addRow(self._label("&Source:", self.source), self.source)
        form.addRow(self._label("C&onfidence:", self.confidence), self.confidence)
        form.addRow(self._label("&Agent:", self.agent), self.agent)

        self.status = QtWidgets.QLabel()
        _wrapping(self.status)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Save new version" if self.editing else "Add fact")
        self.ok_button.setToolTip("Write the fact to the vault (Ctrl+Enter)")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        submit = QtGui.QShortcut(QtGui.QKeySequence("Ctrl+Return"), self)
        submit.activated.connect(self.submit)

        box = QtWidgets.QVBoxLayout(self)
        box.addWidget(self.intro)
        box.addWidget(self.changed_bar)
        box.addSpacing(4)
        box.addLayout(form)
        box.addWidget(self.status)
        box.addStretch(1)  # room the dialog keeps after a message goes stays at the bottom
        box.addWidget(self.buttons)

        self.text_edit.textChanged.connect(self.validate)
        self.related.textChanged.connect(self.validate)
        self.category.currentIndexChanged.connect(self.validate)
        self.source.textChanged.connect(self.validate)
        self.confidence.valueChanged.connect(self.validate)
        self.agent.currentIndexChanged.connect(self.validate)
        self.text_edit.setFocus()

    def _label(self, text: str, buddy: QtWidgets.QWidget) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel(text)
        label.setBuddy(buddy)
        return label

    def _error_label(self) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel()
        _wrapping(label)
        label.setProperty("inlineError", True)  # the theme's error colour (themes.stylesheet)
        label.hide()
        return label

    def _fill(self) -> None:
        """Start from the old fact on an edit; from the entity's agent on an add."""
        old = self.old
        if old is None:
            self._select_agent(self.ref.agent)
            return
        self.text_edit.setPlainText(old.fact)
        lines = min(FACT_LINES[1], max(FACT_LINES[0], len(old.fact) // 70 + 1))
        self.text_edit.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 12)
        self._fill_details(old)
        self._select_agent(old.agent_id)
        self.agent.setEnabled(False)
        self.agent.setToolTip("A new version keeps the agent of the old one")
        self.text_edit.selectAll()
        self._typed = False  # filling in the old version is no change of the user's
        self.validate()

    def _fill_details(self, old: models.Fact) -> None:
        self.category.setCurrentIndex(self.category.findData(old.category.value))
        self.related.setText(", ".join(old.related_entities))
        self.source.setText(old.source_text or "")
        self.confidence.setValue(float(old.confidence))

    def _select_agent(self, agent_id: str | None) -> None:
        if agent_id is not None and self.agent.findData(agent_id) < 0:
            self.agent.addItem(agent_id, agent_id)
        self.agent.setCurrentIndex(self.agent.findData(agent_id) if agent_id else 0)

    # -- validation -----------------------------------------------------------------------

    def text(self) -> str:
        return self.text_edit.toPlainText().strip()

    def related_items(self) -> list[str]:
        return self.related.items()

    def problems(self) -> dict[str, str]:
        """Field name → what is wrong with it, in plain words (empty when all is well)."""
        found: dict[str, str] = {}
        if not self.text():
            found["text"] = "Write the fact: it cannot be empty."
        related = self._related_problem()
        if related:
            found["related"] = related
        if self.editing and not found and not self._changed():
            found["text"] = "Change something to save a new version."
        return found

    def _related_problem(self) -> str | None:
        """Every bad item at once; their chips and the field are outlined too."""
        kept = self.old.related_entities if self.old is not None else ()
        found = related_problems(self.related_items(), self.ref.agent, self.known, kept)
        self.related.set_problems(found)
        return problems_text(found) or None

    def _changed(self) -> bool:
        old = self.old
        assert old is not None
        return (
            self.text() != old.fact.strip()
            or self.category.currentData() != old.category.value
            or self.related_items() != list(old.related_entities)
            or abs(self.confidence.value() - float(old.confidence)) > 1e-9
            or (self.source.text().strip() or None) != (old.source_text or None)
        )

    def validate(self) -> bool:
        """Show each problem next to its field and enable OK only when there is none.

        An empty fact is not scolded before the user has typed in it, nor an unchanged
        version before the user changed something (OK is disabled meanwhile).
        """
        found = self.problems()
        if self.editing:  # a version to edit: told off only once something was changed
            self._typed = self._typed or (self.old is not None and self._changed())
        elif self.text_edit.toPlainText():
            self._typed = True
        for name, label in (("text", self.text_error), ("related", self.related_error)):
            shown = name in found and (name != "text" or self._typed)
            label.setText(found.get(name, "") if shown else "")
            label.setVisible(shown)
        self.ok_button.setEnabled(not found and not self.saving and self.pending is None)
        self._fit_height()
        return not found

    def _fit_height(self) -> None:
        """Grow to show every line of the messages and chips (never shrink under the user)."""
        box = self.layout()
        if box is None or not self.isVisible():
            return
        box.activate()
        needed = box.totalHeightForWidth(self.width()) if box.hasHeightForWidth() else -1
        needed = max(needed, box.totalMinimumSize().height())
        if needed > self.height():
            self.resize(self.width(), needed)

    # -- saving ---------------------------------------------------------------------------

    def submit(self) -> None:
        """Validate, then queue the write; the dialog closes when it is done."""
        self._typed = True  # a refused OK says why, even before any typing
        if self.saving or not self.validate() or self.pending is not None:
            return
        self._lookup += 1  # a lineage read under way is about the version before this one
        self._set_saving(True)
        source = self.source.text().strip() or None
        category = str(self.category.currentData())
        if self.old is None:
            commands.add_fact(
                self.session,
                self.address,
                self.text(),
                category,
                related=self.related_items(),
                source=source,
                confidence=self.confidence.value(),
                agent_id=self.agent.currentData(),
                on_done=self._saved,
                on_error=self._failed,
            )
        else:
            commands.supersede_fact(
                self.session,
                self.address,
                self.old.id,
                self.text(),
                category=category,
                related=self.related_items(),
                confidence=self.confidence.value(),
                source=source,
                on_done=self._saved,
                on_error=self._failed,
            )

    def _set_saving(self, saving: bool) -> None:
        self.saving = saving
        for widget in (self.text_edit, self.category, self.related, self.source, self.confidence):
            widget.setEnabled(not saving)
        self.ok_button.setEnabled(not saving)
        self.status.setText("Saving…" if saving else "")

    def _saved(self, result: Any) -> None:
        self.result_value = result
        self._set_saving(False)
        fact = result[1] if isinstance(result, tuple) else result
        self.factSaved.emit(fact.id if isinstance(fact, models.Fact) else "")
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self._set_saving(False)
        self._show_error(exc)
        self.validate()
        if self.old is not None:  # refused, maybe because the fact moved on: look
            self.check_disk()

    def _show_error(self, exc: BaseException) -> None:
        title, message = describe(exc)
        self.status.setText(
            f"<span style='color:{themes.error_colour(self.palette()).name()}'>"
            f"<b>{html.escape(title)}.</b></span> "
            f"{html.escape(message)}"
        )

    # -- live sync ------------------------------------------------------------------------

    def check_disk(self) -> None:
        """Re-read the edited fact's lineage off-thread; raise the bar if it moved on."""
        old = self.old
        if old is None or self.saving:
            return
        self._lookup += 1
        lookup, address, v = self._lookup, self.address, self.session.vault
        self.session.run(
            lambda: read_lineage(v, address, old.id),
            lambda disk: self._looked_up(lookup, old, disk),
            lambda exc: self._lookup_failed(lookup, exc),
        )

    def use_theirs(self) -> None:
        """Edit the active version on disk, its fields in the form (or close: none left)."""
        disk = self.pending
        if disk is None or self.saving:
            return
        if disk.head is None:
            self._close_with_notice(disk)
            return
        self._settle(disk)
        cursor = QtGui.QTextCursor(self.text_edit.document())
        cursor.beginEditBlock()  # one undoable change: Ctrl+Z brings the user's text back
        cursor.select(QtGui.QTextCursor.SelectionType.Document)
        cursor.insertText(disk.head.fact)
        cursor.endEditBlock()
        self._fill_details(disk.head)
        self.status.setText(
            "Their version is in the form now. Ctrl+Z in the Fact field brings your text back."
        )
        self.validate()

    def keep_mine(self) -> None:
        """Keep the form; saving supersedes the active version on disk (or adds, if none)."""
        disk = self.pending
        if disk is None or self.saving:
            return
        if disk.head is None:
            self._become_add()
            self._hide_bar()
            self.status.setText("Saving adds your text as a new fact.")
        else:
            self._settle(disk)
            self.status.setText(
                f"Saving writes your text as the next version, after “{disk.head.fact}”."
            )
        self.validate()

    def _on_entity_changed(self, address: str) -> None:
        if layout.EntityRef.canonical(address) == self.address:
            self.check_disk()

    def _on_entity_moved(self, old_address: str, new_address: str) -> None:
        """Moved outside the app (archived, renamed): follow it, then look at the fact."""
        moved, to = (layout.EntityRef.canonical(a) for a in (old_address, new_address))
        if to is not None and moved == self.address and not self.saving:
            self.ref = layout.EntityRef.parse(to)
            self.address = to
            self.check_disk()

    def _looked_up(self, lookup: int, old: models.Fact, disk: DiskFact) -> None:
        if lookup != self._lookup or self.saving or self.old is not old:
            return  # a newer read, a save, or a choice came first
        if disk.error is not None:
            self._show_error(disk.error)
            return
        if disk.differs_from(old):
            self.pending = disk
            self.changed_bar.show_change(disk)
            if not self.status.text():  # a refused save's reason stays: the bar answers it
                self.status.setText("Choose “Use theirs” or “Keep mine” above to go on.")
        elif self.pending is not None:  # back as the form knew it
            self._hide_bar()
            self.status.clear()
        self.validate()

    def _lookup_failed(self, lookup: int, exc: BaseException) -> None:
        if lookup == self._lookup:
            self._show_error(exc)

    def _settle(self, disk: DiskFact) -> None:
        """The active version on disk becomes the one this form edits and supersedes."""
        assert disk.head is not None
        self.old = disk.head
        if disk.address != self.address:  # followed into archives or another entity
            self.ref = layout.EntityRef.parse(disk.address)
            self.address = disk.address
        self.current.setText(disk.head.fact)
        self._hide_bar()

    def _hide_bar(self) -> None:
        """Hide the bar and give its height back (the form keeps the user's width)."""
        self.pending = None
        self.changed_bar.hide()
        form = self.layout()
        if form is not None:
            form.activate()
        self.resize(self.width(), self.sizeHint().height())

    def _become_add(self) -> None:
        """No version left to supersede: the form now adds the user's text as a new fact."""
        self.old = None
        self.setWindowTitle(f"Add a fact to {self.ref.title}")
        self.intro.setText(
            "The fact you were editing was withdrawn on disk and has no newer version. "
            f"Saving adds your text to {self.address} as a new fact; nothing is deleted."
        )
        self.form.setRowVisible(self.current_box, False)
        self.ok_button.setText("Add fact")

    def _close_with_notice(self, disk: DiskFact) -> None:
        """Close (nothing left to edit), naming the text typed so that it is not lost."""
        typed = self.text()
        gone = "is no longer in the vault" if disk.fact is None else "was withdrawn on disk"
        old = self.old.fact if self.old is not None else ""
        box = QtWidgets.QMessageBox(
            QtWidgets.QMessageBox.Icon.Information,
            "Nothing left to edit",
            f"“{old}” {gone} and has no newer version, so the form was closed.",
            QtWidgets.QMessageBox.StandardButton.Ok,
            self.parentWidget(),
        )
        if typed and typed != old.strip():
            box.setInformativeText(f"Your text, not saved: “{typed}”")
            box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.closing_notice = box
        self.pending = None
        super().reject()
        box.open()

    def reject(self) -> None:
        if not self.saving:  # a write under way finishes first; then the dialog closes
            super().reject()
