"""An agent's memory blocks, in the manner of Letta's ADE: agent notes, user profile and
the key–value profile, each editable in place with its meter.

A notes block shows its `§` entries as one text (entries separated by a line `§`), and
a meter counting characters as Hermes counts them (`42% — 924/2,200 chars`), updated as
one types; past the budget the meter turns red and says by how much, and Save is refused
with the reason (the core refuses it too: `notes.validate`, then `agent_memory.
write_notes` against the hash read, so that someone else's write meanwhile is never
overwritten). The profile is a two-column table, saved whole the same way. A store
switched off in the config is shown read-only with the key that turns it on.

Reads and writes run on the session's workers, through a `memory_store.MemoryStore`: a
PARA vault's agent, or a neighbour's folder in its owner's format. A write announces the
file through `documentChanged`, and a block reloads when its file changes; if it holds
unsaved edits and the file on disk really differs, it shows the conflict bar instead
(Reload theirs, or Keep mine: write the edits over the new version), so neither side is
lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import agent_memory, errors, notes, profile
from vault_app.ui import session, themes
from vault_app.ui.models import memory_store
from vault_app.ui.widgets import conflicts

Role = QtGui.QPalette.ColorRole

HINTS = {
    "memory": "What the agent keeps for itself: facts about its environment, conventions, lessons.",
    "user": "What the agent knows of the user: preferences, habits, how they like answers.",
}


def set_meter(bar: QtWidgets.QProgressBar, usage: notes.Usage, name: str) -> None:
    """Show `usage` on `bar`: the fill, Hermes' meter text, red past the limit."""
    bar.setRange(0, max(usage.limit, 1))
    bar.setValue(min(usage.used, usage.limit))
    over = f" — {usage.used - usage.limit:,} over" if usage.over else ""
    bar.setFormat(usage.meter() + over)
    bar.setToolTip(f"{name}: {usage.used:,} of the {usage.limit:,} characters allowed")
    bar.setProperty("over", usage.over)
    parent = bar.parentWidget()
    palette = parent.palette() if parent is not None else bar.palette()
    fill = themes.error_colour(palette) if usage.over else palette.color(Role.Highlight)
    own = QtGui.QPalette(bar.palette())
    own.setColor(Role.Highlight, fill)
    # the meter's text over the fill: readable on red in both themes (light pink in dark)
    # (styles draw it in Text or HighlightedText: over, the bar is full, so both are set)
    for role in (Role.Text, Role.HighlightedText):
        own.setColor(role, themes.text_on(fill) if usage.over else palette.color(role))
    bar.setPalette(own)


def button_row(reason: QtWidgets.QLabel, *buttons: QtWidgets.QPushButton) -> QtWidgets.QHBoxLayout:
    """The reason (when shown) on the left, the buttons at their own width on the right."""
    row = QtWidgets.QHBoxLayout()
    row.addWidget(reason, 10)
    row.addStretch(1)
    for button in buttons:
        row.addWidget(button)
    return row


def _reason_label() -> QtWidgets.QLabel:
    label = QtWidgets.QLabel()
    label.setProperty("inlineError", True)
    label.setWordWrap(True)
    label.hide()
    return label


def _notice_label() -> QtWidgets.QLabel:
    label = QtWidgets.QLabel()
    label.setProperty("notice", True)
    label.setWordWrap(True)
    return label


def store_of(
    s: session.Workers, store: memory_store.MemoryStore | None
) -> memory_store.MemoryStore:
    """The store given, else the vault's of a PARA session."""
    if store is not None:
        return store
    if not isinstance(s, session.Session):
        raise TypeError("a memory block on a neighbour's folder needs its store")
    return memory_store.ParaMemory(s.vault)


class BlockPane:
    """What the memory blocks and the tiers editor share: a refused save said under the
    buttons (and signalled), an edit taking that back, a reload when the file changes on
    disk while nothing here is unsaved, and the conflict bar when something is. The block
    gives `reason`, `refused`, `_saving`, `_watched()` (its file), `_read()` (its state,
    on a worker), `_differs(state)` (the disk moved on from what it was read as),
    `_fresh_base(state)` (take that state as the base, keeping the edits), `is_dirty`,
    `reload`, `save` and `_update`."""

    reason: QtWidgets.QLabel
    _saving: bool
    session: session.Workers
    conflict_bar: conflicts.ConflictBar

    def _make_conflict_bar(self) -> conflicts.ConflictBar:
        bar = conflicts.ConflictBar()
        bar.merge_button.hide()  # a block is merged by hand: both versions are short
        bar.reload_button.setToolTip("Show the version on disk here; your edits are dropped")
        bar.keep_button.setText("&Keep mine")
        bar.keep_button.setToolTip(
            "Write your version over the one on disk (it is kept in the backups)"
        )
        bar.reloadTheirs.connect(self._reload_theirs)
        bar.keepMine.connect(self._keep_mine)
        self.conflict_bar = bar
        self._theirs: Any = None
        return bar

    def _refuse(self, exc: BaseException) -> None:
        reason = str(exc) if isinstance(exc, errors.VaultError) else session.describe(exc)[1]
        self.reason.setText(reason)
        self.reason.show()
        self._update()
        self.refused.emit(reason)  # type: ignore[attr-defined]  # each block's Signal(str)

    def _changed(self, *_: Any) -> None:
        self.reason.hide()
        self._update()

    def _on_document_changed(self, path: str) -> None:
        mine = self._watched() is not None and Path(path) == self._watched()
        if not mine or self._saving:
            return
        if not self.is_dirty():
            self.reload()
            return
        self.session.run(self._read, self._check_theirs, lambda _exc: None)

    def _check_theirs(self, state: Any) -> None:
        """The file changed while edits are unsaved: the bar, if the disk really differs."""
        if not self.is_dirty():
            self._loaded(state)
        elif self._differs(state):
            self._theirs = state
            self.conflict_bar.show_conflict(mergeable=False)

    def _reload_theirs(self) -> None:
        self.conflict_bar.hide()
        if self._theirs is not None:
            self._loaded(self._theirs)
        self._theirs = None

    def _keep_mine(self) -> None:
        self.conflict_bar.hide()
        if self._theirs is not None:
            self._fresh_base(self._theirs)  # their hash: the save now goes over their version
        self._theirs = None
        self.save()

    def _saved(self, state: Any) -> None:
        self._saving = False
        self._loaded(state)
        self.saved.emit()  # type: ignore[attr-defined]  # each block's Signal()

    if TYPE_CHECKING:  # what each block gives

        def _watched(self) -> Path | None: ...
        def _read(self) -> Any: ...
        def _differs(self, state: Any) -> bool: ...
        def _fresh_base(self, state: Any) -> None: ...
        def is_dirty(self) -> bool: ...
        def reload(self) -> None: ...
        def save(self) -> None: ...
        def _update(self) -> None: ...
        def _loaded(self, state: Any) -> None: ...


class NotesBlock(BlockPane, QtWidgets.QFrame):
    """One `§` notes file of an agent (target `memory` or `user`) as an editable block."""

    loaded = QtCore.Signal()
    saved = QtCore.Signal()
    refused = QtCore.Signal(str)  # the reason a save was refused

    def __init__(
        self,
        s: session.Workers,
        agent: str,
        target: str,
        parent: QtWidgets.QWidget | None = None,
        *,
        store: memory_store.MemoryStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.session, self.agent, self.target = s, agent, target
        self.store = store_of(s, store)
        self.state: agent_memory.NotesState | None = None
        self.base_text = ""
        self._saving = False
        self.name = agent_memory.TARGET_NAMES[target].capitalize()
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.title_label = QtWidgets.QLabel(f"<b>{self.name}</b>")
        self.meter = QtWidgets.QProgressBar()
        self.meter.setTextVisible(True)
        self.meter.setMinimumWidth(220)
        self.meter.setMaximumWidth(340)
        self.meter.setAccessibleName(f"{self.name} budget used")
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.title_label, 1)
        top.addWidget(self.meter)
        self.hint = _notice_label()
        self.hint.setText(HINTS[target] + " Entries are separated by a line holding only §.")
        self.editor = QtWidgets.QPlainTextEdit()
        self.editor.setFont(
            QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        )
        self.editor.setAccessibleName(f"{self.name} entries")
        self.editor.setMinimumHeight(120)
        self.editor.textChanged.connect(self._changed)
        self.reason = _reason_label()
        self.save_button = QtWidgets.QPushButton("Save")
        self.save_button.setToolTip(f"Write the {self.name.lower()} (refused over the budget)")
        self.save_button.clicked.connect(self.save)
        self.revert_button = QtWidgets.QPushButton("Revert")
        self.revert_button.setToolTip("Back to the text on disk")
        self.revert_button.clicked.connect(self.revert)
        buttons = button_row(self.reason, self.revert_button, self.save_button)
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.addLayout(top)
        box.addWidget(self._make_conflict_bar())
        box.addWidget(self.hint)
        box.addWidget(self.editor, 1)
        box.addLayout(buttons)
        s.documentChanged.connect(self._on_document_changed)
        self._update()
        self.reload()

    # -- state ---------------------------------------------------------------------------

    @property
    def path(self) -> Path | None:
        return self.state.path if self.state is not None else None

    def limit(self) -> int:
        return self.state.limit if self.state is not None else 0

    def entries(self) -> list[str]:
        return notes.pieces(self.editor.toPlainText())  # a repeat typed is refused, not dropped

    def usage(self) -> notes.Usage:
        return notes.Usage(notes.usage(self.entries()), self.limit())

    def is_dirty(self) -> bool:
        return self.state is not None and self.editor.toPlainText() != self.base_text

    # -- actions -------------------------------------------------------------------------

    def _read(self) -> agent_memory.NotesState:
        return self.store.read_notes(self.agent, self.target)

    def reload(self) -> None:
        self.session.run(self._read, self._loaded, self._refuse)

    def save(self) -> None:
        state = self.state
        if state is None or self._saving or not state.enabled:
            return
        items = self.entries()
        try:  # the reason shown at once; the core checks the same again when writing
            notes.validate(items, state.limit, state.usage.used)
        except notes.NotesError as exc:
            self._refuse(exc)
            return
        self._saving = True
        self._update()
        agent, target, expected, store = self.agent, self.target, state.sha256, self.store
        self.session.write_files(
            lambda: store.write_notes(agent, target, items, expected=expected),
            self._saved,
            self._save_failed,
            documents=(state.path,),
        )

    def revert(self) -> None:
        self.editor.setPlainText(self.base_text)
        self.reason.hide()

    # -- callbacks -----------------------------------------------------------------------

    def _loaded(self, state: agent_memory.NotesState) -> None:
        self.state = state
        self.base_text = notes.join(state.entries)
        self.editor.blockSignals(True)
        self.editor.setPlainText(self.base_text)
        self.editor.blockSignals(False)
        self.editor.setReadOnly(not state.enabled)
        if not state.enabled:
            self.hint.setText(self.store.switched_off(self.agent, self.target))
        self.reason.hide()
        self.conflict_bar.hide()
        self._update()
        self.loaded.emit()

    def _saved(self, state: agent_memory.NotesState) -> None:
        self._saving = False
        typed = self.editor.toPlainText()
        self._loaded(state)
        if notes.entries(typed) != state.entries:  # typed on while the write ran
            self.editor.setPlainText(typed)
        self.saved.emit()

    def _save_failed(self, exc: BaseException) -> None:
        self._saving = False
        if isinstance(exc, errors.ConflictError):
            exc = errors.VaultError(
                f"{self.name} changed on disk since it was opened here; nothing was written. "
                "Revert to see the file's entries, then make your edit again."
            )
            # the new state, so that Revert shows the file's entries; the text stays
            self.session.run(self._read, self._fresh_base)
        self._refuse(exc)

    def _fresh_base(self, state: agent_memory.NotesState) -> None:
        self.state = state
        self.base_text = notes.join(state.entries)
        self._update()

    def _differs(self, state: agent_memory.NotesState) -> bool:
        return self.state is None or state.sha256 != self.state.sha256

    def _watched(self) -> Path | None:
        return self.path

    def _update(self) -> None:
        usage = self.usage()
        set_meter(self.meter, usage, self.name)
        enabled = self.state is not None and self.state.enabled
        self.save_button.setEnabled(enabled and self.is_dirty() and not self._saving)
        self.revert_button.setEnabled(self.is_dirty() and not self._saving)
        if usage.over and enabled and self.reason.isHidden():
            self.reason.setText(
                f"Over the budget by {usage.used - usage.limit:,} characters: "
                "saving is refused until it fits. Shorten or remove entries."
            )
            self.reason.show()


class ProfileTable(BlockPane, QtWidgets.QFrame):
    """The agent's profile.json as a key–value table, saved whole against the hash read."""

    loaded = QtCore.Signal()
    saved = QtCore.Signal()
    refused = QtCore.Signal(str)

    def __init__(
        self,
        s: session.Workers,
        agent: str,
        parent: QtWidgets.QWidget | None = None,
        *,
        store: memory_store.MemoryStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.session, self.agent = s, agent
        self.store = store_of(s, store)
        self.state: agent_memory.ProfileState | None = None
        self._saving = False
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        title = QtWidgets.QLabel("<b>Profile</b>")
        self.hint = _notice_label()
        self.hint.setText("Key–value facts about the user (profile.json), one string each.")
        self.table = QtWidgets.QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Key", "Value"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().resizeSection(0, 200)
        self.table.verticalHeader().hide()
        self.table.setAccessibleName("Profile keys and values")
        self.table.setMinimumHeight(140)
        self.table.itemChanged.connect(self._changed)
        self.add_button = QtWidgets.QPushButton("Add key")
        self.add_button.clicked.connect(self.add_row)
        self.remove_button = QtWidgets.QPushButton("Remove key")
        self.remove_button.clicked.connect(self.remove_row)
        self.reason = _reason_label()
        self.save_button = QtWidgets.QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.revert_button = QtWidgets.QPushButton("Revert")
        self.revert_button.clicked.connect(self.revert)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addLayout(button_row(self.reason, self.revert_button, self.save_button), 1)
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.addWidget(title)
        box.addWidget(self._make_conflict_bar())
        box.addWidget(self.hint)
        box.addWidget(self.table, 1)
        box.addLayout(buttons)
        s.documentChanged.connect(self._on_document_changed)
        self._update()
        self.reload()

    def rows(self) -> list[tuple[str, str]]:
        """The table's rows, as typed (a row with neither key nor value left out)."""
        out = []
        for row in range(self.table.rowCount()):
            key, value = (self.table.item(row, c) for c in (0, 1))
            pair = (key.text() if key else "", value.text() if value else "")
            if pair != ("", ""):
                out.append(pair)
        return out

    def values(self) -> dict[str, str]:
        """The table as a profile; VaultError naming the row for a bad or repeated key."""
        result: dict[str, str] = {}
        for number, (key, value) in enumerate(self.rows(), 1):
            if key in result:
                raise errors.VaultError(f"row {number}: key {key!r} is already used above")
            try:
                profile.check_key(key)
            except errors.VaultError as exc:
                raise errors.VaultError(f"row {number}: {exc}") from None
            result[key] = value
        return result

    def is_dirty(self) -> bool:
        return self.state is not None and self.rows() != list(self.state.values.items())

    def _read(self) -> agent_memory.ProfileState:
        return self.store.read_profile(self.agent)

    def reload(self) -> None:
        self.session.run(self._read, self._loaded, self._refuse)

    def add_row(self) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setCurrentCell(row, 0)
        self.table.editItem(self.table.item(row, 0) or self._item(row, 0, ""))

    def remove_row(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)
            self._changed()

    def save(self) -> None:
        state = self.state
        if state is None or self._saving or not state.enabled:
            return
        try:
            values = self.values()
            profile.dumps(values)
        except errors.VaultError as exc:
            self._refuse(exc)
            return
        self._saving = True
        self._update()
        agent, expected, store = self.agent, state.sha256, self.store
        self.session.write_files(
            lambda: store.write_profile(agent, values, expected=expected),
            self._saved,
            self._save_failed,
            documents=(state.path,),
        )

    def revert(self) -> None:
        if self.state is not None:
            self._fill(self.state.values)

    def _item(self, row: int, column: int, text: str) -> QtWidgets.QTableWidgetItem:
        item = QtWidgets.QTableWidgetItem(text)
        self.table.setItem(row, column, item)
        return item

    def _fill(self, values: dict[str, str]) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for row, (key, value) in enumerate(values.items()):
            self.table.insertRow(row)
            self._item(row, 0, key)
            self._item(row, 1, value)
        self.table.blockSignals(False)
        self.reason.hide()
        self._update()

    def _loaded(self, state: agent_memory.ProfileState) -> None:
        self.state = state
        self._fill(state.values)
        readonly = QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers
        editable = QtWidgets.QAbstractItemView.EditTrigger.AllEditTriggers
        self.table.setEditTriggers(editable if state.enabled else readonly)
        if not state.enabled:
            self.hint.setText(self.store.switched_off(self.agent, "profile"))
        self.conflict_bar.hide()
        self.loaded.emit()

    def _save_failed(self, exc: BaseException) -> None:
        self._saving = False
        if isinstance(exc, errors.ConflictError):
            exc = errors.VaultError(
                "profile.json changed on disk since it was opened here; nothing was written. "
                "Revert to see the file's keys, then make your edit again."
            )
            self.session.run(self._read, self._fresh_base)
        self._refuse(exc)

    def _fresh_base(self, state: agent_memory.ProfileState) -> None:
        self.state = state
        self._update()

    def _differs(self, state: agent_memory.ProfileState) -> bool:
        return self.state is None or state.sha256 != self.state.sha256

    def _watched(self) -> Path | None:
        return None if self.state is None else self.state.path

    def _update(self) -> None:
        enabled = self.state is not None and self.state.enabled
        dirty = self.is_dirty()
        self.save_button.setEnabled(enabled and dirty and not self._saving)
        self.revert_button.setEnabled(dirty and not self._saving)
        self.add_button.setEnabled(enabled)
        self.remove_button.setEnabled(enabled)


class MemoryBlocks(QtWidgets.QScrollArea):
    """The agent page's Memory tab: agent notes, user profile, key–value profile."""

    def __init__(
        self, s: session.Session, agent: str, parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.notes_block = NotesBlock(s, agent, "memory")
        self.user_block = NotesBlock(s, agent, "user")
        self.profile_table = ProfileTable(s, agent)
        inner = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(inner)
        column.setContentsMargins(0, 4, 4, 4)
        for block in self.blocks():
            column.addWidget(block, 1)
        self.setWidget(inner)
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)

    def blocks(self) -> list[QtWidgets.QWidget]:
        return [self.notes_block, self.user_block, self.profile_table]

    def is_dirty(self) -> bool:
        return any(b.is_dirty() for b in (self.notes_block, self.user_block, self.profile_table))
