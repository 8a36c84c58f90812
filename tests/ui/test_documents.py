"""The document pane: rendered markdown, edit and save, conflicts, missing and corrupt files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import session
from vault_app.ui.pages import documents
from vault_app.ui.widgets import conflicts

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def small(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("finance")
    v.create_entity("areas/people/jane", "Jane is the family plumber.")
    return v


@pytest.fixture
def live(small: vault.Vault) -> Iterator[session.Session]:
    s = session.Session(small)
    yield s
    s.close()


def open_pane(
    qtbot: QtBot, s: session.Session, target: documents.DocumentTarget
) -> documents.DocumentPane:
    pane = documents.DocumentPane(s)
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    qtbot.waitExposed(pane)
    with qtbot.waitSignal(pane.loaded):
        pane.set_target(target)
    return pane


def focus(qtbot: QtBot, widget: QtWidgets.QWidget) -> None:
    """Shortcuts reach the pane only from inside it, as in the window."""
    widget.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)


def shortcut(pane: documents.DocumentPane, keys: str) -> QtGui.QAction:
    return next(a for a in pane.actions() if a.shortcut().toString() == keys)


def tacit(s: session.Session) -> Path:
    return s.vault.paths.agent_dir("finance") / "TACIT.md"


def edit_to(qtbot: QtBot, pane: documents.DocumentPane, text: str) -> None:
    focus(qtbot, pane.browser)
    qtbot.keyClick(pane.browser, Key.Key_E, CTRL)
    assert pane.is_editing()
    pane.editor.selectAll()
    type_text(qtbot, pane.editor, text)
    assert pane.is_dirty()


def type_text(qtbot: QtBot, widget: QtWidgets.QWidget, text: str) -> None:
    """Type `text` as keystrokes, Return for each line break."""
    for index, line in enumerate(text.split("\n")):
        if index:
            qtbot.keyClick(widget, Key.Key_Return)
        if line:
            qtbot.keyClicks(widget, line)


def test_edit_tacit_and_save(qtbot: QtBot, live: session.Session) -> None:
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    assert pane.stack.currentWidget() is pane.browser
    assert "Tacit knowledge" in pane.browser.toPlainText()
    with qtbot.waitSignal(pane.dirtyChanged) as dirty:
        edit_to(qtbot, pane, "# Money\n\nWhole dollars in summaries.")
    assert dirty.args == [True]
    assert pane.state_label.text() == "Unsaved changes"

    with qtbot.waitSignal(pane.saved) as saved:
        qtbot.keyClick(pane.editor, Key.Key_S, CTRL)
    assert tacit(live).read_text() == "# Money\n\nWhole dollars in summaries."
    assert saved.args == [vault.Vault(live.vault.root).document("TACIT.md", "finance").digest]
    assert not pane.is_editing() and not pane.is_dirty()
    assert pane.stack.currentWidget() is pane.browser
    assert "Whole dollars" in pane.browser.toPlainText()
    assert live.undo_stack.count() == 1

    live.undo_stack.undo()  # the pane follows the disk when it has nothing unsaved
    qtbot.waitUntil(lambda: "Tacit knowledge" in pane.browser.toPlainText())
    assert tacit(live).read_text() == "# Tacit knowledge — finance\n"


def test_summary_target(qtbot: QtBot, live: session.Session) -> None:
    target = documents.DocumentTarget.summary("global:areas/people/jane")
    assert target == documents.DocumentTarget.summary("areas/people/jane")
    pane = open_pane(qtbot, live, target)
    assert pane.title_label.text() == "Summary of areas/people/jane"
    assert "family plumber" in pane.browser.toPlainText()
    pane.edit_button.click()
    pane.editor.moveCursor(pane.editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(pane.editor, "She also fixes boilers.")
    with qtbot.waitSignal(pane.saved):
        pane.save_button.click()
    text = live.vault.summary("areas/people/jane").text
    assert text is not None and text.endswith("plumber.\nShe also fixes boilers.")

    # a write at the entity level (synthesis, another window) is followed too
    jane = live.vault.summary("areas/people/jane")
    live.vault.write_summary("areas/people/jane", "# Jane\n\nRetired.\n", expected=jane.digest)
    with qtbot.waitSignal(pane.loaded):
        live.entityChanged.emit("areas/people/jane")
    assert "Retired." in pane.browser.toPlainText()


def test_conflict_on_save_keeps_text_and_reload_theirs(qtbot: QtBot, live: session.Session) -> None:
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    edit_to(qtbot, pane, "mine")
    tacit(live).write_text("theirs\n")  # another program writes meanwhile

    pane.save_button.click()
    qtbot.waitUntil(pane.conflict_bar.isVisible)
    assert pane.conflict_bar.label.text() == "This file changed on disk while you were editing."
    assert pane.is_editing() and pane.editor.toPlainText() == "mine"
    assert tacit(live).read_text() == "theirs\n"
    assert pane.base_text == "# Tacit knowledge — finance\n"

    pane.conflict_bar.reload_button.click()
    assert not pane.conflict_bar.isVisible()
    assert pane.editor.toPlainText() == "theirs\n"
    assert pane.base_text == "theirs\n" and not pane.is_dirty()
    pane.editor.undo()  # the user's text is one undo away
    assert pane.editor.toPlainText() == "mine"
    with qtbot.waitSignal(pane.saved):  # and now it saves over their version
        pane.save_button.click()
    assert tacit(live).read_text() == "mine"


def test_conflict_keep_mine_after_diff(qtbot: QtBot, live: session.Session) -> None:
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    edit_to(qtbot, pane, "mine\n")
    tacit(live).write_text("theirs\n")
    pane.save_button.click()
    qtbot.waitUntil(pane.conflict_bar.isVisible)

    pane.conflict_bar.keep_button.click()
    dialog = pane.diff_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.view.left.toPlainText() == "theirs" and dialog.view.right.toPlainText() == "mine"
    assert [row.kind for row in dialog.view.rows] == ["changed"]
    assert tacit(live).read_text() == "theirs\n"  # nothing written before confirming
    with qtbot.waitSignal(pane.saved):
        dialog.keep_button.click()
    assert tacit(live).read_text() == "mine\n"
    assert not pane.conflict_bar.isVisible() and not pane.is_editing()


def test_disk_change_reloads_when_clean_and_raises_bar_when_dirty(
    qtbot: QtBot, live: session.Session
) -> None:
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    tacit(live).write_text("# New rules\n")
    with qtbot.waitSignal(pane.loaded):  # as live sync announces it
        live.documentChanged.emit(str(tacit(live)))
    assert "New rules" in pane.browser.toPlainText()

    edit_to(qtbot, pane, "my rules")
    live.documentChanged.emit(str(tacit(live)))  # the same version: no conflict
    live.wait()
    assert not pane.conflict_bar.isVisible()
    tacit(live).write_text("# Newer rules\n")
    live.documentChanged.emit(str(tacit(live)))
    qtbot.waitUntil(pane.conflict_bar.isVisible)
    assert pane.editor.toPlainText() == "my rules"


def test_missing_document_offers_create(qtbot: QtBot, live: session.Session) -> None:
    context = live.vault.paths.agent_dir("finance") / "CONTEXT.md"
    context.unlink()
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("CONTEXT.md", "finance"))
    assert pane.stack.currentIndex() == pane.EMPTY
    assert pane.empty_label.text() == "finance has no CONTEXT.md yet."
    assert pane.create_button.isVisible() and not pane.edit_button.isEnabled()

    pane.create_button.click()
    assert pane.is_editing() and pane.editor.toPlainText() == "# Current context — finance\n\n"
    qtbot.keyClicks(pane.editor, "Month-end close.")
    with qtbot.waitSignal(pane.saved):
        pane.save_button.click()
    assert context.read_text() == "# Current context — finance\n\nMonth-end close."


def test_corrupt_document_shows_banner(qtbot: QtBot, live: session.Session) -> None:
    tacit(live).write_bytes(b"caf\xe9 \xff\n")
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    assert pane.banner.isVisible()
    assert "A file cannot be read" in pane.banner_label.text()
    assert "Restore from backup…" in pane.banner_label.text()
    assert pane.banner.restore_button.isVisible()
    assert not pane.edit_button.isEnabled() and not pane.create_button.isVisible()
    shortcut(pane, "Ctrl+E").trigger()
    assert not pane.is_editing()


def test_cancel_asks_before_dropping_changes(qtbot: QtBot, live: session.Session) -> None:
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    edit_to(qtbot, pane, "draft")
    qtbot.keyClick(pane.editor, Key.Key_Escape)
    prompt = pane.discard_prompt
    assert prompt is not None
    keep = next(b for b in prompt.buttons() if b.text() == "Keep editing")
    keep.click()
    assert pane.is_editing() and pane.editor.toPlainText() == "draft"

    pane.cancel_button.click()
    prompt = pane.discard_prompt
    assert prompt is not None
    next(b for b in prompt.buttons() if b.text() == "Discard changes").click()
    assert not pane.is_editing() and not pane.is_dirty()
    assert "Tacit knowledge" in pane.browser.toPlainText()
    assert tacit(live).read_text() == "# Tacit knowledge — finance\n"


def test_entity_links_are_requested_and_others_inert(qtbot: QtBot, live: session.Session) -> None:
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("AGENTS.md"))
    assert pane.title_label.text() == "AGENTS.md — principles for every agent"
    with qtbot.waitSignal(pane.entityRequested) as requested:
        pane.browser.anchorClicked.emit(QtCore.QUrl("agent:finance:projects/budget"))
    assert requested.args == ["agent:finance:projects/budget"]
    with qtbot.assertNotEmitted(pane.entityRequested):
        pane.browser.anchorClicked.emit(QtCore.QUrl("https://example.com/x"))
    assert isinstance(pane.browser, QtWidgets.QTextBrowser) and not pane.browser.openLinks()


# -- merge (live sync: the file changed on disk while editing) -------------------------------

RULES = "# Rules\n\nRound to cents.\nPay on Fridays.\nFile receipts monthly.\n"


def edit_rules(qtbot: QtBot, live: session.Session) -> documents.DocumentPane:
    """A pane editing TACIT.md, which held `RULES` when the edit started."""
    tacit(live).write_text(RULES)
    pane = open_pane(qtbot, live, documents.DocumentTarget.document("TACIT.md", "finance"))
    pane.edit_button.click()
    assert pane.base_text == RULES
    return pane


def disk_changes(
    qtbot: QtBot, live: session.Session, pane: documents.DocumentPane, text: str
) -> None:
    """Another program writes the file; live sync announces it; the bar comes up."""
    tacit(live).write_text(text)
    live.documentChanged.emit(str(tacit(live)))
    qtbot.waitUntil(pane.conflict_bar.isVisible)


def delete_line(qtbot: QtBot, editor: QtWidgets.QPlainTextEdit, line: str) -> None:
    """Select the line `line` with its line break (Shift+Down) and delete it, as a user."""
    document = editor.document()
    block = next(
        document.findBlockByNumber(n)
        for n in range(document.blockCount())
        if document.findBlockByNumber(n).text() == line
    )
    editor.setTextCursor(QtGui.QTextCursor(block))
    qtbot.keyClick(editor, Key.Key_Down, QtCore.Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(editor, Key.Key_Delete)


def accept_merge(
    qtbot: QtBot, pane: documents.DocumentPane, choices: dict[int, str] | None = None
) -> None:
    """The merge dialog comes up; choose per hunk (or keep its presets) and accept."""
    qtbot.waitUntil(lambda: pane.merge_dialog is not None and pane.merge_dialog.isVisible())
    dialog = pane.merge_dialog
    assert dialog is not None
    for index, choice in (choices or {}).items():
        dialog.choose(index, choice)
    dialog.apply_button.click()
    # a window manager gives the window back its focus when a dialog closes; offscreen
    # does not, and the pane's shortcuts (Ctrl+S, F8) need an active window
    pane.window().activateWindow()
    qtbot.waitUntil(pane.isActiveWindow)


def test_merge_combines_changes_to_different_lines(qtbot: QtBot, live: session.Session) -> None:
    pane = edit_rules(qtbot, live)
    mine = RULES.replace("Round to cents.", "Round to whole dollars.")
    pane.editor.setPlainText(mine)
    theirs = RULES.replace("File receipts monthly.", "File receipts weekly.")
    disk_changes(qtbot, live, pane, theirs)
    bar = pane.conflict_bar
    assert bar.merge_button.isVisible() and bar.merge_button.isEnabled()
    assert [b.text() for b in (bar.merge_button, bar.reload_button, bar.keep_button)] == [
        "&Merge…", "&Reload theirs", "&Keep mine…"
    ]  # fmt: skip

    bar.merge_button.click()
    accept_merge(qtbot, pane)
    qtbot.waitUntil(lambda: not bar.isVisible())
    merged = RULES.replace("Round to cents.", "Round to whole dollars.").replace(
        "File receipts monthly.", "File receipts weekly."
    )
    assert pane.editor.toPlainText() == merged
    assert pane.is_editing() and pane.is_dirty()  # reviewed, then saved by the user
    assert pane.merge_note.isVisible()
    assert pane.merge_note.label.text().startswith(
        "Merged their changes with yours — review and save."
    )
    assert not pane.merge_note.next_button.isVisible()
    assert tacit(live).read_text() == theirs  # nothing written yet
    assert pane.base_text == theirs

    pane.editor.undo()  # the merge is one undoable edit: the user's text comes back
    assert pane.editor.toPlainText() == mine
    pane.editor.redo()
    assert pane.editor.toPlainText() == merged
    with qtbot.waitSignal(pane.saved):  # written over exactly the version merged against
        pane.save_button.click()
    assert tacit(live).read_text() == merged
    assert not pane.is_editing() and not pane.merge_note.isVisible()


def test_merge_with_conflicts_refuses_save_until_resolved(
    qtbot: QtBot, live: session.Session
) -> None:
    pane = edit_rules(qtbot, live)
    pane.editor.setPlainText(RULES.replace("Pay on Fridays.", "Pay on Mondays."))
    theirs = RULES.replace("Pay on Fridays.", "Pay on Thursdays.").replace(
        "# Rules", "# Money rules"
    )
    disk_changes(qtbot, live, pane, theirs)
    pane.conflict_bar.merge_button.click()
    accept_merge(qtbot, pane)
    qtbot.waitUntil(lambda: not pane.conflict_bar.isVisible())

    marked = (
        "# Money rules\n\nRound to cents.\n"  # their other change is taken as it is
        "<<<<<<< mine\nPay on Mondays.\n=======\nPay on Thursdays.\n>>>>>>> on disk\n"
        "File receipts monthly.\n"
    )
    assert pane.editor.toPlainText() == marked
    assert pane.conflicts_left() == 1
    note = pane.merge_note.label.text()
    assert note.startswith("Merged, with 1 conflict to resolve.") and "<<<<<<< mine" in note
    assert pane.merge_note.next_button.isVisible()
    assert pane.editor.textCursor().block().text() == "<<<<<<< mine"  # taken to it

    with qtbot.assertNotEmitted(pane.saved):
        qtbot.keyClick(pane.editor, Key.Key_S, CTRL)
        live.wait()
    assert tacit(live).read_text() == theirs  # refused: markers left
    note = pane.merge_note.label.text()  # says so, tinted as an error
    assert note.startswith("Not saved: 1 conflict still marked in the text. In each, keep")
    assert pane.merge_note.colour == QtGui.QColor(conflicts.MergeNote.REFUSED)
    assert pane.is_editing() and pane.editor.toPlainText() == marked

    # the user keeps their line: deletes the three marker lines and the one from disk
    delete_line(qtbot, pane.editor, "<<<<<<< mine")
    assert pane.conflicts_left() == 1  # half a block is still a conflict
    assert pane.merge_note.label.text().startswith("1 conflict still to resolve.")
    for line in ("=======", "Pay on Thursdays.", ">>>>>>> on disk"):
        delete_line(qtbot, pane.editor, line)
    assert pane.conflicts_left() == 0
    assert pane.merge_note.label.text() == "Every conflict is resolved — review and save."
    assert pane.merge_note.colour == QtGui.QColor(conflicts.MergeNote.INFO)
    with qtbot.waitSignal(pane.saved):
        pane.save_button.click()
    saved = tacit(live).read_text()
    assert saved == "# Money rules\n\nRound to cents.\nPay on Mondays.\nFile receipts monthly.\n"


def test_merge_after_a_refused_save_and_next_conflict(qtbot: QtBot, live: session.Session) -> None:
    pane = edit_rules(qtbot, live)
    pane.editor.setPlainText("# Mine\n" + RULES.split("\n", 1)[1] + "Mine at the end.\n")
    tacit(live).write_text("# Theirs\n" + RULES.split("\n", 1)[1] + "Theirs at the end.\n")
    pane.save_button.click()  # refused by the core: the disk changed
    qtbot.waitUntil(pane.conflict_bar.isVisible)
    pane.conflict_bar.merge_button.click()
    accept_merge(qtbot, pane)
    qtbot.waitUntil(lambda: pane.merge_note.isVisible())
    assert pane.conflicts_left() == 2
    assert "Merged, with 2 conflicts to resolve." in pane.merge_note.label.text()
    first = pane.editor.textCursor().blockNumber()
    assert pane.next_conflict()
    second = pane.editor.textCursor().blockNumber()
    assert second > first and pane.editor.textCursor().block().text() == "<<<<<<< mine"
    shortcut(pane, "F8").trigger()  # wraps around
    assert pane.editor.textCursor().blockNumber() == first
    formats = pane.editor.document().findBlockByNumber(first).layout().formats()
    assert formats and formats[0].format.fontWeight() == QtGui.QFont.Weight.Bold

    # resolving takes editing; a new change on disk meanwhile raises the bar again
    tacit(live).write_text("# Third\n")
    live.documentChanged.emit(str(tacit(live)))
    qtbot.waitUntil(pane.conflict_bar.isVisible)
    pane.conflict_bar.reload_button.click()  # the user gives up on theirs + mine
    assert pane.editor.toPlainText() == "# Third\n" and not pane.merge_note.isVisible()
    assert not pane.is_dirty()


def test_merge_when_the_file_was_deleted_is_not_offered(
    qtbot: QtBot, live: session.Session
) -> None:
    pane = edit_rules(qtbot, live)
    pane.editor.setPlainText("mine\n")
    tacit(live).unlink()
    live.documentChanged.emit(str(tacit(live)))
    qtbot.waitUntil(pane.conflict_bar.isVisible)
    assert "It is gone now." in pane.conflict_bar.label.text()
    assert not pane.conflict_bar.merge_button.isEnabled()
    assert pane.conflict_bar.keep_button.isEnabled()
    pane.merge()  # pressed anyway (e.g. from a stale state): reads, finds nothing, says so
    live.wait()
    assert pane.editor.toPlainText() == "mine\n" and pane.conflict_bar.isVisible()
    assert not pane.merge_note.isVisible()


def test_typing_while_the_merge_runs_is_merged_too(qtbot: QtBot, live: session.Session) -> None:
    pane = edit_rules(qtbot, live)
    pane.editor.setPlainText(RULES.replace("Round to cents.", "Round up."))
    disk_changes(qtbot, live, pane, RULES + "Keep invoices.\n")
    pane.conflict_bar.merge_button.click()
    assert pane.conflict_bar.merge_button.text() == "Merging…"
    pane.editor.moveCursor(QtGui.QTextCursor.MoveOperation.Start)
    pane.editor.insertPlainText("Draft. ")  # before the merge's result arrives
    accept_merge(qtbot, pane)  # the dialog offers the merge of the text typed meanwhile
    qtbot.waitUntil(lambda: pane.merge_note.isVisible())
    assert (
        pane.editor.toPlainText()
        == "Draft. " + RULES.replace("Round to cents.", "Round up.") + "Keep invoices.\n"
    )
