"""A document changed on disk while edited (issue 16, "What the agents did"): the conflict
bar says who changed it and when; "Keep mine…" shows the two versions side by side,
aligned, changes tinted; "Merge…" offers mine / theirs / both per hunk; unsaved edits are
marked on the document's tab."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtGui
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import session
from vault_app.ui.pages import agent_page, documents
from vault_app.ui.widgets import conflicts, diff_view

RULES = "# Rules\n\nRound to cents.\n\nPay on Fridays.\n\nFile receipts monthly.\n"


@pytest.fixture
def small(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("finance")
    return v


@pytest.fixture
def live(small: vault.Vault) -> Iterator[session.Session]:
    s = session.Session(vault.Vault(small.root, actor="gui"))
    yield s
    s.close()


def tacit(s: session.Session) -> Path:
    return s.vault.paths.agent_dir("finance") / "TACIT.md"


def editing(qtbot: QtBot, live: session.Session, mine: str) -> documents.DocumentPane:
    """A pane editing TACIT.md (which held RULES), the editor holding `mine`."""
    tacit(live).write_text(RULES)
    pane = documents.DocumentPane(live)
    qtbot.addWidget(pane)
    pane.resize(900, 600)
    pane.show()
    with qtbot.waitSignal(pane.loaded):
        pane.set_target(documents.DocumentTarget.document("TACIT.md", "finance"))
    pane.edit_button.click()
    pane.editor.setPlainText(mine)
    return pane


def changed_on_disk(qtbot: QtBot, live: session.Session, pane: documents.DocumentPane) -> None:
    live.documentChanged.emit(str(tacit(live)))
    qtbot.waitUntil(pane.conflict_bar.isVisible)


def test_the_bar_says_which_agent_changed_the_file_and_when(
    qtbot: QtBot, live: session.Session
) -> None:
    pane = editing(qtbot, live, RULES + "Mine.\n")
    agent = vault.Vault(live.vault.root, actor="agent:finance")
    digest = agent.document("TACIT.md", "finance").digest
    before = dt.datetime.now().astimezone().replace(second=0, microsecond=0)
    agent.write_document("TACIT.md", RULES + "Theirs.\n", agent="finance", expected=digest)
    changed_on_disk(qtbot, live, pane)
    bar = pane.conflict_bar
    qtbot.waitUntil(bar.author_label.isVisible)
    after = dt.datetime.now().astimezone()
    text = bar.author_label.text()
    assert text.startswith("Changed by agent finance ")
    if before.date() == after.date():  # each minute the write could bear, however slow
        minutes = (after - before) // dt.timedelta(minutes=1) + 1
        said = {before + dt.timedelta(minutes=n) for n in range(minutes)}
        assert text in {f"Changed by agent finance today at {m:%H:%M}." for m in said}
    assert bar.merge_button.text() == "&Merge…"


def test_the_bar_says_when_the_change_came_from_outside(
    qtbot: QtBot, live: session.Session
) -> None:
    pane = editing(qtbot, live, RULES + "Mine.\n")
    tacit(live).write_text(RULES + "Edited in another editor.\n")  # not through vault-app
    changed_on_disk(qtbot, live, pane)
    qtbot.waitUntil(pane.conflict_bar.author_label.isVisible)
    assert "changed outside vault-app" in pane.conflict_bar.author_label.text()


def test_changed_by_in_words() -> None:
    now = dt.datetime(2026, 11, 24, 15, 0).astimezone()
    line = {"actor": "heartbeat", "after": "abc", "time": (now - dt.timedelta(days=1)).isoformat()}
    assert conflicts.changed_by(line, "abc", now).startswith("Changed by the heartbeat yesterday")
    assert conflicts.changed_by({**line, "actor": "gui"}, "abc", now).startswith(
        "Changed by vault-app (another window)"
    )
    assert "outside vault-app" in conflicts.changed_by(line, "other", now)
    assert "outside vault-app" in conflicts.changed_by(None, "abc", now)
    assert conflicts.changed_by(line, None, now) == ""  # deleted: the bar says it is gone


def tinted(block: QtGui.QTextBlock) -> str:
    """The characters of `block` drawn on a background of their own."""
    cursor = QtGui.QTextCursor(block)
    found = ""
    for offset, char in enumerate(block.text()):
        cursor.setPosition(block.position() + offset + 1)  # the format of the char before
        if cursor.charFormat().background().style() != QtGui.Qt.BrushStyle.NoBrush:
            found += char
    return found


def test_keep_mine_shows_the_versions_side_by_side_aligned(
    qtbot: QtBot, live: session.Session
) -> None:
    mine = RULES.replace("Pay on Fridays.", "Pay on Mondays.") + "Keep every invoice.\n"
    pane = editing(qtbot, live, mine)
    tacit(live).write_text(RULES.replace("# Rules\n\n", "# Rules\n\nAn added line.\n\n"))
    changed_on_disk(qtbot, live, pane)
    pane.conflict_bar.keep_button.click()
    dialog = pane.diff_dialog
    assert isinstance(dialog, diff_view.DiffDialog) and dialog.isVisible()
    view = dialog.view
    left, right = view.left.document(), view.right.document()
    assert left.blockCount() == right.blockCount() == len(view.rows)  # one row, one line
    kinds = [row.kind for row in view.rows]
    assert kinds.count("removed") == 2 and kinds.count("added") == 1
    assert kinds.count("changed") == 1
    for number, row in enumerate(view.rows):  # equal lines face each other
        if row.kind == "equal":
            assert left.findBlockByNumber(number).text() == right.findBlockByNumber(number).text()
        if row.kind == "added":  # a hatched gap on the disk's side
            brush = left.findBlockByNumber(number).blockFormat().background()
            assert brush.style() == QtGui.Qt.BrushStyle.BDiagPattern
    changed = kinds.index("changed")
    block = right.findBlockByNumber(changed)
    assert block.text() == "Pay on Mondays."
    assert block.blockFormat().background().style() != QtGui.Qt.BrushStyle.NoBrush
    assert tinted(block) == "Mondays"  # the word that differs, deeper
    assert "3 places differ" in view.summary.text()
    added = kinds.index("added")  # numbered lines; a gap has no number
    assert view.left.numbers[added] is None and view.right.numbers[added] == 8  # "Keep every…"
    assert view.left.numbers[:2] == [1, 2] and view.left.viewportMargins().left() > 0
    first = view.go(1)
    assert view.right.textCursor().blockNumber() == first == view.left.textCursor().blockNumber()
    view.left.verticalScrollBar().setValue(1)
    assert view.right.verticalScrollBar().value() == view.left.verticalScrollBar().value()
    dialog.reject()
    assert tacit(live).read_text() != mine  # nothing written


def test_merge_offers_mine_theirs_or_both_per_hunk(qtbot: QtBot, live: session.Session) -> None:
    mine = RULES.replace("Round to cents.", "Round up.").replace("Fridays", "Mondays")
    pane = editing(qtbot, live, mine)
    theirs = RULES.replace("Fridays", "Thursdays").replace("monthly", "weekly")
    tacit(live).write_text(theirs)
    changed_on_disk(qtbot, live, pane)
    pane.conflict_bar.merge_button.click()
    qtbot.waitUntil(lambda: pane.merge_dialog is not None and pane.merge_dialog.isVisible())
    dialog = pane.merge_dialog
    assert dialog is not None
    kinds = {index: chooser.hunk.kind for index, chooser in dialog.choosers.items()}
    assert sorted(kinds.values()) == ["conflict", "mine", "theirs"]
    conflict = next(i for i, kind in kinds.items() if kind == "conflict")
    assert set(dialog.choosers[conflict].buttons) == {"mine", "theirs", "both", "mark"}
    assert dialog.choosers[conflict].buttons["mark"].isChecked()  # a plain merge's choice
    assert "1 conflict left marked" in dialog.preview_label.text()
    dialog.choosers[conflict].buttons["both"].click()
    assert "Pay on Mondays.\nPay on Thursdays.\n" in dialog.preview.toPlainText()
    assert "conflict" not in dialog.preview_label.text()
    theirs_only = next(i for i, kind in kinds.items() if kind == "theirs")
    numbers = dialog.choosers[theirs_only].view
    assert numbers.left.numbers == numbers.right.numbers == [7]  # as in the file
    dialog.choose(theirs_only, "mine")  # keep "monthly" after all
    dialog.apply_button.click()
    expected = (
        "# Rules\n\nRound up.\n\nPay on Mondays.\nPay on Thursdays.\n\nFile receipts monthly.\n"
    )
    qtbot.waitUntil(lambda: pane.editor.toPlainText() == expected)
    assert not pane.conflict_bar.isVisible() and pane.is_dirty()
    assert tacit(live).read_text() == theirs  # nothing saved yet
    pane.editor.undo()  # one undo brings the user's text back
    assert pane.editor.toPlainText() == mine


def test_cancelling_the_merge_keeps_the_bar_and_the_text(
    qtbot: QtBot, live: session.Session
) -> None:
    pane = editing(qtbot, live, RULES + "Mine.\n")
    tacit(live).write_text(RULES + "Theirs.\n")
    changed_on_disk(qtbot, live, pane)
    pane.conflict_bar.merge_button.click()
    qtbot.waitUntil(lambda: pane.merge_dialog is not None and pane.merge_dialog.isVisible())
    assert pane.merge_dialog is not None
    pane.merge_dialog.reject()
    qtbot.waitUntil(lambda: pane.merge_dialog is None)
    assert pane.conflict_bar.isVisible() and pane.editor.toPlainText() == RULES + "Mine.\n"


def test_unsaved_edits_are_marked_on_the_tab(qtbot: QtBot, live: session.Session) -> None:
    tacit(live).write_text(RULES)
    page = agent_page.AgentPage(live, "finance")
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.tacit.loaded):
        page.tacit.reload()
    assert page.tabs.tabText(0) == "TACIT"
    page.tacit.edit_button.click()
    page.tacit.editor.appendPlainText("More.")
    assert page.tabs.tabText(0) == "TACIT ●" and "unsaved" in page.tabs.tabToolTip(0)
    assert page.dirty()
    with qtbot.waitSignal(page.tacit.saved):
        page.tacit.save_button.click()
    assert page.tabs.tabText(0) == "TACIT"
