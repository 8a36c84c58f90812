"""An agent's tiered MEMORY.md as three panes: long, mid and short term, side by side.

Each pane edits one tier's text; Save writes the tiers that changed, each through
`agent_memory.write_tier` with the text it was read as (`was`), so a tier someone
changed meanwhile is refused rather than overwritten, and every other byte of the file
(other tiers, a title, notes between sections) is kept. A line starting with `## ` would
end a tier: Save is refused with that reason before anything is written.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import agent_memory, errors, tiers
from vault_app.ui import session
from vault_app.ui.models import memory_store
from vault_app.ui.widgets import memory_blocks

HINTS = {
    1: "Principles-like; changed on an explicit ask or a long-term pattern.",
    2: "Active projects and goals.",
    3: "Recent focus and mood; updated often.",
}


class TiersEditor(memory_blocks.BlockPane, QtWidgets.QWidget):
    """Tier 1, 2 and 3 of an agent's MEMORY.md as three editable panes (a vault's
    `agents/<id>/MEMORY.md`, or a MicroClaw persona's, through the store given)."""

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
        self.store = memory_blocks.store_of(s, store)
        self.path: Path | None = None
        self.read_as: dict[int, str] = dict.fromkeys(tiers.TIERS, "")
        self._saving = False
        self.editors: dict[int, QtWidgets.QPlainTextEdit] = {}
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        fixed = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        for number, heading in tiers.TIER_HEADINGS.items():
            pane = QtWidgets.QFrame()
            pane.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
            title = QtWidgets.QLabel(f"<b>{heading.removeprefix('## ')}</b>")
            hint = QtWidgets.QLabel(HINTS[number])
            hint.setProperty("notice", True)
            hint.setWordWrap(True)
            # two lines for every hint, so that the three editors start level
            hint.setMinimumHeight(2 * hint.fontMetrics().lineSpacing())
            hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
            editor = QtWidgets.QPlainTextEdit()
            editor.setFont(fixed)
            editor.setAccessibleName(f"Tier {number} text")
            editor.setMinimumWidth(160)
            editor.textChanged.connect(self._changed)
            box = QtWidgets.QVBoxLayout(pane)
            box.setContentsMargins(8, 6, 8, 8)
            box.addWidget(title)
            box.addWidget(hint)
            box.addWidget(editor, 1)
            splitter.addWidget(pane)
            self.editors[number] = editor
        self.where = QtWidgets.QLabel()
        self.where.setProperty("notice", True)
        self.reason = QtWidgets.QLabel()
        self.reason.setProperty("inlineError", True)
        self.reason.setWordWrap(True)
        self.reason.hide()
        self.save_button = QtWidgets.QPushButton("Save")
        self.save_button.setToolTip("Write the tiers you changed; the rest of the file is kept")
        self.save_button.clicked.connect(self.save)
        self.revert_button = QtWidgets.QPushButton("Revert")
        self.revert_button.clicked.connect(self.revert)
        buttons = memory_blocks.button_row(self.reason, self.revert_button, self.save_button)
        column = QtWidgets.QVBoxLayout(self)
        column.setContentsMargins(0, 4, 0, 4)
        column.addWidget(self.where)
        column.addWidget(self._make_conflict_bar())
        column.addWidget(splitter, 1)
        column.addLayout(buttons)
        s.documentChanged.connect(self._on_document_changed)
        self._update()
        self.reload()

    def texts(self) -> dict[int, str]:
        return {n: e.toPlainText() for n, e in self.editors.items()}

    def changed(self) -> dict[int, str]:
        """The tiers whose text differs (beyond surrounding blank lines) from the file's."""
        return {n: t for n, t in self.texts().items() if t.strip() != self.read_as[n]}

    def is_dirty(self) -> bool:
        return bool(self.changed())

    def _read(self) -> agent_memory.TiersState:
        return self.store.read_tiers(self.agent)

    def reload(self) -> None:
        self.session.run(self._read, self._loaded, self._refuse)

    def save(self) -> None:
        changed = self.changed()
        if not changed or self._saving or self.path is None:
            return
        try:
            for body in changed.values():
                tiers.check_body(body)
        except errors.VaultError as exc:
            self._refuse(exc)
            return
        self._saving = True
        self._update()
        agent, was, store = self.agent, dict(self.read_as), self.store

        def work() -> agent_memory.TiersState:
            states = [
                store.write_tier(agent, number, body, was=was[number])
                for number, body in changed.items()
            ]
            return states[-1]  # the file after the last one

        self.session.write_files(work, self._saved, self._save_failed, documents=(self.path,))

    def revert(self) -> None:
        for number, editor in self.editors.items():
            editor.setPlainText(self.read_as[number])
        self.reason.hide()

    def _loaded(self, state: agent_memory.TiersState) -> None:
        self.path = state.path
        self.read_as = state.memory.tiers()
        for number, editor in self.editors.items():
            editor.blockSignals(True)
            editor.setPlainText(self.read_as[number])
            editor.blockSignals(False)
        where = self.store.where(state.path)
        self.where.setText(where if state.text is not None else f"{where} (created on first save)")
        self.reason.hide()
        self.conflict_bar.hide()
        self._update()
        self.loaded.emit()

    def _save_failed(self, exc: BaseException) -> None:
        self._saving = False
        if isinstance(exc, errors.ConflictError):
            exc = errors.VaultError(
                "A tier you changed was changed on disk since it was opened here; it was not "
                "overwritten. Revert to see it, then make your edit again."
            )
            self.session.run(self._read, self._fresh_base)
        self._refuse(exc)

    def _fresh_base(self, state: agent_memory.TiersState) -> None:
        self.read_as = state.memory.tiers()
        self._update()

    def _differs(self, state: agent_memory.TiersState) -> bool:
        return state.memory.tiers() != self.read_as

    def _watched(self) -> Path | None:
        return self.path

    def _update(self) -> None:
        dirty = self.is_dirty()
        self.save_button.setEnabled(dirty and not self._saving and self.path is not None)
        self.revert_button.setEnabled(dirty and not self._saving)
