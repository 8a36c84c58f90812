"""Markdown documents in the window: a summary or an agent file, rendered, edited, saved.

Design
------
A `DocumentPane` shows one `DocumentTarget` (an entity's summary.md, an agent's TACIT.md
or CONTEXT.md, or the principles in global/AGENTS.md) in one of four pages: loading, the
rendered markdown, the plain-text editor, or an empty state offering to create the file.
A file that cannot be read gets a banner in plain words and cannot be edited here (the
core never overwrites a corrupt file).

* Reads run on a worker (`Session.run`); a load that finishes after a newer one started
  is dropped, so switching targets quickly never shows the wrong file.
* A save goes through `commands.save_summary` / `commands.save_document` (one undoable
  step) with the digest the text was read with. If the file changed on disk meanwhile the
  core refuses (`errors.ConflictError`) and the pane shows a `ConflictBar`: "Reload
  theirs" puts the disk version in the editor as one undoable change (Ctrl+Z brings the
  user's text back), "Keep mine" shows the two versions side by side first
  (`diff_view.DiffDialog`), then writes over the version it showed. The user's text is
  never dropped. The bar says who made the disk's version and when, from the audit log
  (`conflicts.changed_by`), or that it was changed outside vault-app.
* "Merge…" reads the disk version again (off-thread) and cuts a three-way merge with the
  editor's text into hunks (`core.merge.plan`), against `base_text`, the text the edit
  started from; `diff_view.MergeDialog` offers mine / theirs / both per hunk (preset to a
  plain merge). The result replaces the editor's text as one undoable edit and stays
  unsaved; `digest` and `base_text` become the disk version's, so Save writes over exactly
  what was merged against (and is refused again if the disk moved on). A `MergeNote` says
  what happened; conflicts are marked git-style (`<<<<<<< mine` / `=======` /
  `>>>>>>> on disk`), highlighted (`ConflictHighlighter`), counted down as the user
  resolves them (F8: next one), and Save is refused while any is left.
* `Session.documentChanged` for this file (and `entityChanged` for a summary's entity:
  synthesis rewrites summaries) reloads it when there is nothing unsaved; with unsaved
  edits it raises the conflict bar instead (only if the disk really differs).

Which file is shown, and how it is read and saved: `document_target` (its `DocumentTarget`
is also reached here, as `documents.DocumentTarget`). The banners, bars, highlighter and
diff dialog of a conflict: `conflicts`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import activity, errors, layout, merge, vault
from vault_app.core.merge import MergePlan, MergeResult  # `merge` is also a pane's method
from vault_app.ui.session import Session, describe
from vault_app.ui.widgets.conflicts import (
    ConflictBar,
    ConflictHighlighter,
    MergeNote,
    changed_by,
)
from vault_app.ui.widgets.diff_view import DiffDialog, MergeDialog
from vault_app.ui.widgets.entity_banner import ProblemBanner
from vault_app.ui.window.document_target import SUMMARY, DocumentTarget

_MD = QtGui.QTextDocument.MarkdownFeature
_UNDERLINE = 0x4000  # md4c's MD_FLAG_UNDERLINE: "_x_" is emphasis in notes, not underline
MARKDOWN = _MD(_MD.MarkdownDialectGitHub.value & ~_UNDERLINE)


class DocumentPane(QtWidgets.QWidget):
    """One markdown document: rendered, edited as plain text, saved over what was read."""

    loaded = QtCore.Signal()  # a load finished (the file, its absence or its error is shown)
    saved = QtCore.Signal(str)  # the digest of the text written
    dirtyChanged = QtCore.Signal(bool)
    entityRequested = QtCore.Signal(str)  # a link to an entity address was clicked

    LOADING, VIEW, EDIT, EMPTY = range(4)

    def __init__(
        self,
        session: Session,
        target: DocumentTarget | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.target: DocumentTarget | None = None
        self.document: vault.Document | None = None  # as last read from disk
        self.digest: str | None = None  # the version the editor's text is based on
        self.base_text = ""  # the text the edit started from
        self.theirs: vault.Document | None = None  # the disk version behind the conflict bar
        self.diff_dialog: DiffDialog | None = None
        self.merge_dialog: MergeDialog | None = None
        self.discard_prompt: QtWidgets.QMessageBox | None = None
        self._editing = False
        self._dirty = False
        self._saving = False
        self._merging = False
        self._recheck = False  # the disk changed again while a merge ran
        self._edit_id = 0  # bumped when an edit starts or stops: late merges are dropped
        self._generation = 0
        self._load_error: BaseException | None = None
        self._build()
        session.documentChanged.connect(self._on_document_changed)
        session.entityChanged.connect(self._on_entity_changed)
        if target is not None:
            self.set_target(target)
        else:
            self._show_state()

    # -- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.title_label = QtWidgets.QLabel()
        font = self.title_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title_label.setFont(font)
        self.title_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.title_label.setMinimumWidth(80)  # a long address is cut, never widens the page
        self.state_label = QtWidgets.QLabel()
        self.state_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)

        self.edit_button = self._button("Edit", "Edit this document as text (Ctrl+E)")
        self.save_button = self._button("Save", "Save your changes to disk (Ctrl+S)")
        self.cancel_button = self._button(
            "Cancel", "Stop editing; asks before dropping changes (Esc)"
        )
        self.edit_button.clicked.connect(self.start_edit)
        self.save_button.clicked.connect(self.save)
        self.cancel_button.clicked.connect(self.cancel)
        self._shortcut("Ctrl+E", self._edit_shortcut)
        self._shortcut("Ctrl+S", self.save)
        self._shortcut("Esc", self._escape)

        header = QtWidgets.QHBoxLayout()
        header.setContentsMargins(6, 2, 2, 2)
        header.addWidget(self.title_label)
        header.addSpacing(8)
        header.addWidget(self.state_label, 1)
        for button in (self.edit_button, self.save_button, self.cancel_button):
            header.addWidget(button)

        self.banner = ProblemBanner(self.session)  # an unreadable file: Restore, Show in folder
        self.banner_label = self.banner.label

        self.conflict_bar = ConflictBar()
        self.conflict_bar.reloadTheirs.connect(self.reload_theirs)
        self.conflict_bar.keepMine.connect(self.keep_mine)
        self.conflict_bar.mergeRequested.connect(self.merge)
        self.merge_note = MergeNote()
        self.merge_note.nextConflict.connect(self.next_conflict)
        self._shortcut("F8", self.next_conflict)

        self.browser = QtWidgets.QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.anchorClicked.connect(self._on_link)
        self.browser.setAccessibleName("Rendered document")
        self.browser.document().setDocumentMargin(10)
        self.editor = QtWidgets.QPlainTextEdit()
        self.editor.setFont(
            QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        )
        self.editor.setAccessibleName("Document text")
        self.editor.document().setDocumentMargin(8)
        self.editor.setToolTip("Markdown text. Ctrl+S saves, Esc stops editing.")
        self.editor.textChanged.connect(self._text_changed)
        self.highlighter = ConflictHighlighter(self.editor.document())

        self.empty_label = QtWidgets.QLabel()
        self.empty_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.create_button = self._button("Create", "Start this file and edit it")
        self.create_button.clicked.connect(self.create_document)
        empty = QtWidgets.QWidget()
        empty_box = QtWidgets.QVBoxLayout(empty)
        empty_box.addStretch(1)
        empty_box.addWidget(self.empty_label)
        empty_box.addWidget(self.create_button, 0, QtCore.Qt.AlignmentFlag.AlignHCenter)
        empty_box.addStretch(2)

        self.loading_label = QtWidgets.QLabel("Loading…")
        self.loading_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.loading_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)

        self.stack = QtWidgets.QStackedWidget()
        for page in (self.loading_label, self.browser, self.editor, empty):
            self.stack.addWidget(page)

        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(header)
        box.addWidget(self.banner)
        box.addWidget(self.conflict_bar)
        box.addWidget(self.merge_note)
        box.addWidget(self.stack, 1)

    def _button(self, text: str, tip: str) -> QtWidgets.QPushButton:
        button = QtWidgets.QPushButton(text)
        button.setToolTip(tip)
        button.setAutoDefault(False)
        return button

    def _shortcut(self, keys: str, slot: object) -> None:
        action = QtGui.QAction(self)
        action.setShortcut(QtGui.QKeySequence(keys))
        action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.addAction(action)

    # -- public -----------------------------------------------------------------------------

    def set_target(self, target: DocumentTarget | None) -> None:
        """Show `target` (loaded off-thread). Unsaved edits are dropped: ask `is_dirty` first."""
        self.target = target
        self.document = None
        self._load_error = None
        self.theirs = None
        self._stop_editing()
        self.conflict_bar.hide()
        self.banner.hide()
        self.title_label.setText(target.title if target else "")
        self.reload()

    def reload(self) -> None:
        """Read the file again (off-thread); the editor keeps unsaved text."""
        self._generation += 1
        generation = self._generation
        target = self.target
        if target is None:
            self._show_state()
            return
        if self.document is None:
            self.stack.setCurrentIndex(self.LOADING)
        self.session.run(
            lambda: target.read(self.session.vault),
            lambda doc: self._loaded(generation, doc),
            lambda exc: self._load_failed(generation, exc),
        )

    def is_dirty(self) -> bool:
        return self._dirty

    def is_editing(self) -> bool:
        return self._editing

    @property
    def path(self) -> Path | None:
        return None if self.document is None else self.document.path

    def start_edit(self) -> None:
        doc = self.document
        if self._editing or doc is None or doc.error is not None:
            return
        if not doc.exists:
            self.create_document()
            return
        self._begin(doc.text or "", doc.digest)

    def create_document(self) -> None:
        """Edit a new file (it is written, with no expected version, on Save)."""
        doc = self.document
        if self._editing or self.target is None or doc is None or doc.exists or doc.error:
            return
        self._begin(self.target.starter_text(), None, dirty=True)

    def save(self) -> None:
        if not self._editing or self._saving or self.target is None:
            return
        if not self._dirty and self.document is not None and self.document.exists:
            self._stop_editing()
            self._show_state()
            return
        text = self.editor.toPlainText()
        if self._refuse_conflicted(text):
            return
        self._saving = True
        self._show_state()
        self.target.save(
            self.session,
            text,
            self.digest,
            lambda digest: self._saved(text, digest),
            self._save_failed,
        )

    def cancel(self) -> None:
        """Stop editing; with unsaved changes, ask first (the question is not modal)."""
        if not self._editing:
            return
        if not self._dirty:
            self._stop_editing()
            self._show_state()
            return
        box = QtWidgets.QMessageBox(
            QtWidgets.QMessageBox.Icon.Question,
            "Discard your changes?",
            f"You changed {self.target.file_name if self.target else 'this file'} and have "
            "not saved it. Discard your changes?",
            QtWidgets.QMessageBox.StandardButton.NoButton,
            self,
        )
        discard = box.addButton("Discard changes", QtWidgets.QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("Keep editing", QtWidgets.QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)

        def answered(button: QtWidgets.QAbstractButton) -> None:
            self.discard_prompt = None
            if button is discard:
                self._stop_editing()
                self.conflict_bar.hide()
                self._show_state()

        box.buttonClicked.connect(answered)
        self.discard_prompt = box
        box.open()

    def reload_theirs(self) -> None:
        """Put the disk version in the editor as one undoable change; yours stays in undo."""
        theirs = self.theirs
        if theirs is None:
            return
        self.theirs = None
        self.conflict_bar.hide()
        self.merge_note.hide()
        self.document = theirs
        text = theirs.text or ""
        self.base_text = text
        self.digest = theirs.digest
        if self._editing:
            cursor = QtGui.QTextCursor(self.editor.document())
            cursor.beginEditBlock()
            cursor.select(QtGui.QTextCursor.SelectionType.Document)
            cursor.insertText(text)
            cursor.endEditBlock()
            self._update_dirty()
            self.state_label.setText("Showing the version on disk. Ctrl+Z brings back yours.")
        else:
            self._show_state()

    def keep_mine(self) -> None:
        """Show the disk version against the user's; write theirs over only if confirmed."""
        theirs = self.theirs
        if theirs is None or self.target is None:
            return
        dialog = DiffDialog(
            self.target.file_name, theirs.text or "", self.editor.toPlainText(), self
        )

        def confirmed() -> None:
            self.theirs = None
            self.conflict_bar.hide()
            self.digest = theirs.digest  # write over exactly the version that was shown
            self.save()

        dialog.accepted.connect(confirmed)
        dialog.finished.connect(lambda _result: setattr(self, "diff_dialog", None))
        self.diff_dialog = dialog
        dialog.open()

    def merge(self) -> None:
        """Merge the disk version (read again, off-thread) with the editor's text.

        The common ancestor is `base_text`. The result goes in the editor as one undoable
        edit and is not saved; `digest` becomes the merged-against version's, so Save
        writes over exactly that one (or is refused again if the disk moved on).
        """
        target = self.target
        if target is None or not self._editing or self._merging:
            return
        base, mine, edit_id = self.base_text, self.editor.toPlainText(), self._edit_id
        self._merging = True
        self.conflict_bar.set_merging(True)

        def work() -> tuple[vault.Document, MergePlan | None]:
            doc = target.read(self.session.vault)
            if not doc.exists or doc.error is not None:
                return doc, None
            return doc, merge.plan(base, mine, doc.text or "")

        self.session.run(
            work,
            lambda result: self._planned(edit_id, mine, *result),
            lambda exc: self._merge_failed(edit_id, exc),
        )

    def next_conflict(self, *, first: bool = False) -> bool:
        """Put the cursor on the next conflict's first marker after it (wrapping around),
        or on the first one in the text with `first`; False if there is none."""
        if not self._editing:
            return False
        document = self.editor.document()
        count = document.blockCount()
        here = count - 1 if first else self.editor.textCursor().blockNumber()
        for step in range(1, count + 1):
            block = document.findBlockByNumber((here + step) % count)
            if block.text() == merge.MINE_MARKER:
                cursor = QtGui.QTextCursor(block)
                self.editor.setTextCursor(cursor)
                self.editor.centerCursor()
                self.editor.setFocus()
                return True
        return False

    def conflicts_left(self) -> int:
        """Conflict blocks marked in the editor that the version edited did not have."""
        if not self._editing:
            return 0
        left = merge.count_conflicts(self.editor.toPlainText())
        return max(0, left - merge.count_conflicts(self.base_text))

    # -- loading ----------------------------------------------------------------------------

    def _loaded(self, generation: int, doc: vault.Document) -> None:
        if generation != self._generation:
            return
        self.document = doc
        self._load_error = None
        if doc.error is not None:
            self._show_banner(doc.error)
        else:
            self.session.found_readable(doc.path)
            if not self._saving:
                self.banner.hide()
        if self._editing:
            if self._dirty and doc.digest != self.digest:
                self._raise_conflict(doc)
            elif not self._dirty:
                self._restart_editing(doc)
        else:
            self.digest = doc.digest
        self._show_state()
        self.loaded.emit()

    def _load_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self.document = None
        self._load_error = exc
        self._show_banner(exc)
        self._show_state()
        self.loaded.emit()

    def _planned(
        self, edit_id: int, mine: str, theirs: vault.Document, plan: MergePlan | None
    ) -> None:
        """The merge is cut into hunks: the person chooses per hunk (`MergeDialog`)."""
        self._merging = False
        recheck, self._recheck = self._recheck, False
        self.conflict_bar.set_merging(False)
        if edit_id != self._edit_id or not self._editing:
            return  # the edit was saved, dropped or replaced meanwhile
        if plan is None:  # gone or unreadable now: nothing to merge with
            self._raise_conflict(theirs)
            return
        if self.editor.toPlainText() != mine:  # typed while the merge ran: merge that text
            self.merge()
            return
        name = self.target.file_name if self.target else "this file"
        dialog = self.merge_dialog = MergeDialog(name, plan, self)
        dialog.accepted.connect(lambda: self._merged(edit_id, mine, theirs, dialog.merged()))
        dialog.finished.connect(lambda _result: self._merge_closed(dialog, recheck))
        dialog.open()

    def _merge_closed(self, dialog: MergeDialog, recheck: bool) -> None:
        if self.merge_dialog is dialog:
            self.merge_dialog = None
        if recheck:  # a newer version may be on disk than the one merged: the bar says so
            self.reload()

    def _merged(self, edit_id: int, mine: str, theirs: vault.Document, result: MergeResult) -> None:
        if edit_id != self._edit_id or not self._editing or self.editor.toPlainText() != mine:
            return  # the edit moved on while the dialog was open: the bar stays
        self.theirs = None
        self.conflict_bar.hide()
        self.document = theirs
        self.digest = theirs.digest
        self.base_text = theirs.text or ""
        if result.text != mine:
            cursor = QtGui.QTextCursor(self.editor.document())
            cursor.beginEditBlock()
            cursor.select(QtGui.QTextCursor.SelectionType.Document)
            cursor.insertText(result.text)
            cursor.endEditBlock()
        self._update_dirty()
        self.banner.hide()
        self.merge_note.show_result(result.conflicts)
        if result.conflicts:
            self.next_conflict(first=True)
        self._show_state()

    def _merge_failed(self, edit_id: int, exc: BaseException) -> None:
        self._merging = False
        self._recheck = False
        self.conflict_bar.set_merging(False)
        if edit_id == self._edit_id:
            self._show_banner(exc)

    def _on_document_changed(self, path: str) -> None:
        if self.path is None or self._saving or Path(path) != self.path:
            return
        self.reload()

    def _on_entity_changed(self, address: str) -> None:
        """A summary is also rewritten by entity-level writes (synthesis, archiving)."""
        target = self.target
        if target is None or target.kind != SUMMARY or self._saving:
            return
        if address == target.address:
            self.reload()

    def _raise_conflict(self, theirs: vault.Document) -> None:
        if self._merging:  # the disk moved on while merging: check again after the merge
            self._recheck = True
            return
        self.theirs = theirs
        if theirs.error is not None:
            self._show_banner(theirs.error)
        detail = "It is gone now." if not theirs.exists else None
        self.conflict_bar.show_conflict(
            detail, reloadable=theirs.error is None, mergeable=theirs.exists
        )
        v, known = self.session.vault, self.session.known
        ids = tuple(known.agents) if known is not None else ()
        self.session.run(  # who made the disk's version, from the audit log
            lambda: changed_by(
                activity.last_write(v.root, theirs.path), theirs.digest, v.now(), ids
            ),
            lambda text: self.conflict_bar.show_author(text) if self.theirs is theirs else None,
        )

    def _restart_editing(self, doc: vault.Document) -> None:
        """A clean editor follows the disk: new text, new base, new digest."""
        self.base_text = doc.text or ""
        self.digest = doc.digest
        self.merge_note.hide()
        self.editor.setPlainText(self.base_text)
        self._update_dirty()

    # -- editing ----------------------------------------------------------------------------

    def _begin(self, text: str, digest: str | None, *, dirty: bool = False) -> None:
        self._edit_id += 1
        self.base_text = "" if dirty else text
        self.digest = digest
        self._editing = True
        self.editor.setPlainText(text)
        self.editor.document().clearUndoRedoStacks()
        if dirty:  # a new file: type after its heading
            self.editor.moveCursor(QtGui.QTextCursor.MoveOperation.End)
        self._update_dirty()
        self._show_state()
        self.editor.setFocus()

    def _stop_editing(self) -> None:
        self._editing = False
        self._edit_id += 1
        self.theirs = None
        self.conflict_bar.hide()
        self.merge_note.hide()
        self._set_dirty(False)

    def _text_changed(self) -> None:
        self._update_dirty()
        if self.merge_note.isVisible() and self.merge_note.next_button.isVisible():
            self.merge_note.show_result(self.conflicts_left(), merged=False)

    def _refuse_conflicted(self, text: str) -> bool:
        """Refuse to save while conflict markers from a merge are left in the text."""
        left = merge.count_conflicts(text) - merge.count_conflicts(self.base_text)
        if left <= 0:
            return False
        self.merge_note.show_result(left, merged=False, refused=True)
        self.next_conflict(first=True)
        return True

    def _update_dirty(self) -> None:
        self._set_dirty(self._editing and self.editor.toPlainText() != self.base_text)

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirtyChanged.emit(dirty)
            self._show_state()

    def _saved(self, text: str, digest: str) -> None:
        self._saving = False
        self.banner.hide()
        self.merge_note.hide()
        self.document = vault.Document(self.path or Path(), text, digest)
        self.digest = digest
        self.base_text = text
        if self.editor.toPlainText() == text:  # nothing typed while the write ran
            self._stop_editing()
        self._update_dirty()
        self._show_state()
        self.saved.emit(digest)

    def _save_failed(self, exc: BaseException) -> None:
        self._saving = False
        if isinstance(exc, errors.ConflictError):
            target = self.target
            if target is None:
                return
            self.session.run(lambda: target.read(self.session.vault), self._raise_conflict)
        else:
            self._show_banner(exc)
        self._show_state()

    def _edit_shortcut(self) -> None:
        if self.stack.currentIndex() == self.EMPTY:
            self.create_document()
        else:
            self.start_edit()

    def _escape(self) -> None:
        if self.diff_dialog is None and self.discard_prompt is None and self.merge_dialog is None:
            self.cancel()

    # -- showing ----------------------------------------------------------------------------

    def _show_banner(self, exc: BaseException) -> None:
        title, message = describe(exc)
        path = None
        if isinstance(exc, errors.CorruptFileError):
            path = exc.path  # counted with the vault's unreadable files; Restore offered
            self.session.found_unreadable(exc)
            message = message.split("\n\n")[0] + (
                "\n\nThe file was left untouched. Restore from backup… puts a kept version "
                "back; or fix it in an editor."
            )
        self.banner.show_problem(title, message, path=path)  # the path line says it all

    def _show_state(self) -> None:
        doc = self.document
        readable = doc is not None and doc.error is None
        if self._editing:
            self.stack.setCurrentIndex(self.EDIT)
        elif doc is not None and doc.exists:
            self._render(doc.text or "")
            self.stack.setCurrentIndex(self.VIEW)
        elif doc is None and self.target is not None and self._load_error is None:
            self.stack.setCurrentIndex(self.LOADING)
        else:
            self._show_empty(doc)
        self.create_button.setVisible(readable and doc is not None and not doc.exists)
        self.edit_button.setVisible(not self._editing)
        self.edit_button.setEnabled(readable and doc is not None and doc.exists)
        self.save_button.setVisible(self._editing)
        self.save_button.setEnabled(not self._saving)
        self.cancel_button.setVisible(self._editing)
        self.state_label.setText(self._state_text())

    def _state_text(self) -> str:
        doc = self.document
        if self._saving:
            return "Saving…"
        if self._editing:
            return "Unsaved changes" if self._dirty else "Editing"
        if doc is not None and doc.error is not None:
            return "Cannot be read"
        return ""

    def _show_empty(self, doc: vault.Document | None) -> None:
        target = self.target
        name = target.file_name if target else "This file"
        if target is None:
            text = "Nothing to show."
        elif doc is None or doc.error is not None:
            text = f"{name} cannot be shown."
        elif target.kind == SUMMARY:
            text = f"{target.address} has no summary yet."
        elif target.agent:
            text = f"{target.agent} has no {name} yet."
        else:
            text = f"There is no {name} yet."
        self.empty_label.setText(text)
        self.stack.setCurrentIndex(self.EMPTY)

    def _render(self, text: str) -> None:
        scroll = self.browser.verticalScrollBar().value()
        self.browser.document().setMarkdown(text, MARKDOWN)
        self.browser.moveCursor(QtGui.QTextCursor.MoveOperation.Start)  # else a hidden pane
        self.browser.verticalScrollBar().setValue(scroll)  # opens scrolled to the bottom

    def _on_link(self, url: QtCore.QUrl) -> None:
        """Links to entity addresses open the entity; any other link is inert."""
        href = url.toString()
        if url.scheme() not in ("", "agent", "global"):
            return
        try:
            ref = layout.EntityRef.parse(href.strip("/"))
        except errors.VaultError:
            return
        self.entityRequested.emit(str(ref))
