"""Unreadable files in the window (issue 30): every one counted and marked, one Restore
for every file, a readable preview, a notice when done.

Variants thought of: a summary.md that is not UTF-8 beside a fact file that is not JSON
(the scan reads only the fact file; the summary joins the count once a page has read it,
and leaves it once restored); the document pane's banner offers Restore from backup… and
Show in folder, as the entity page's does; the restore dialog shows a fact file's facts and
a document's text, never raw JSON; the window says what was restored, as a notice (not a
warning), and the file reads again.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore
from pytestqt.qtbot import QtBot
from window_helpers import open_window, show_entity

from vault_app.ui import app

MAYA = "areas/people/maya"
MARCUS = "areas/people/marcus-bell"


def _sidebar_problem(window: app.MainWindow, address: str) -> str | None:
    """What the sidebar's row says is wrong with `address` (None when nothing)."""
    model = window.sidebar_model
    index = model.index_for_address(address)
    said = model.data(index, QtCore.Qt.ItemDataRole.AccessibleTextRole)
    name = model.data(index, QtCore.Qt.ItemDataRole.DisplayRole)
    return None if said == name else said


def test_a_summary_that_is_not_utf8_is_counted_marked_and_restored(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    summary = root / "global/life" / MAYA / "summary.md"
    good = summary.read_text("utf-8")
    summary.write_bytes(b"\xff\xfe" + good.encode("utf-16-le"))  # saved by another editor
    (root / "global/life" / MARCUS / "items.json").write_text('[{"id": ', "utf-8")
    window = open_window(qtbot, root, store)
    qtbot.waitUntil(  # the facts are counted off the GUI thread
        lambda: window.status.counts_label.text().endswith("1 file could not be read"),
        timeout=20_000,
    )

    show_entity(qtbot, window, MAYA)
    pane = window.entity_view.summary
    qtbot.waitUntil(lambda: pane.banner.isVisible())
    assert pane.banner.path == summary
    assert pane.banner.restore_button.isVisible() and pane.banner.folder_button.isVisible()
    assert "Restore from backup…" in pane.banner.label.text()
    qtbot.waitUntil(lambda: window.status.counts_label.text().endswith("2 files could not be read"))
    qtbot.waitUntil(lambda: "summary.md" in (_sidebar_problem(window, MAYA) or ""))

    dialog = pane.banner.open_restore()
    assert dialog is not None
    qtbot.waitUntil(lambda: bool(dialog.versions))
    assert dialog.preview.toPlainText() == good  # the text, as a person reads it
    with qtbot.waitSignal(pane.loaded):
        dialog.restore_button.click()
    assert summary.read_text("utf-8") == good
    assert not pane.banner.isVisible()
    bar = window.message_bar
    assert bar.isVisible() and bar.notices[-1]
    assert bar.title.text() == "Restored summary.md"
    assert bar.text.text().startswith(f"global/life/{MAYA}/summary.md is back as it was kept on")
    qtbot.waitUntil(lambda: window.status.counts_label.text().endswith("1 file could not be read"))
    qtbot.waitUntil(lambda: _sidebar_problem(window, MAYA) is None)


def test_a_fact_file_version_is_previewed_as_its_facts(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    (root / "global/life" / MARCUS / "items.json").write_text('[{"id": ', "utf-8")
    window = open_window(qtbot, root, store)
    show_entity(qtbot, window, MARCUS)
    dialog = window.entity_view.banner.open_restore()
    assert dialog is not None
    qtbot.waitUntil(lambda: bool(dialog.versions))
    shown = dialog.preview.toPlainText()
    assert shown.splitlines()[0].startswith(f"{dialog.versions[0].facts} facts: ")
    assert "• Marcus Bell" in shown and '"id":' not in shown
    with qtbot.waitSignal(window.entity_view.loaded):
        dialog.restore_button.click()
    assert window.message_bar.title.text() == "Restored items.json"
    assert window.entity_view.model.facts()
