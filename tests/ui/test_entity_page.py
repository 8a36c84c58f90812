"""The entity pane and the fact dialog, driven like a user would, on real vault files."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import scanned, shown_page

from tests.grants import let_write_global
from vault_app.core import decay, models, vault
from vault_app.ui import models as qt_models
from vault_app.ui import session
from vault_app.ui.dialogs.fact_dialog import FactDialog
from vault_app.ui.pages import entity_page
from vault_app.ui.widgets import fact_lineage
from vault_app.ui.widgets.related_entities import resolve_related

JANE = "areas/people/jane"
ACME = "areas/companies/acme"
BIG = "resources/manuals"
NOW = dt.datetime.now().astimezone()


@pytest.fixture
def s(qtbot: QtBot, vault: vault.Vault) -> Iterator[session.Session]:
    v = vault
    v.create_entity(JANE, "Jane is the family plumber.")
    v.add_fact(JANE, "Jane fixed the kitchen leak", "milestone", related=[ACME])
    old = v.add_fact(JANE, "Jane lives in Portland", "context")
    v.supersede_fact(old.id, "Jane lives in Seattle")
    v.create_entity(ACME, "Acme sells pipes.")
    v.add_fact(ACME, "Acme delivered the pipes", "milestone", related=[JANE])
    roof = v.paths.life_dir / "projects" / "roof"
    roof.mkdir(parents=True)
    (roof / "items.json").write_text("[{")
    (roof / "summary.md").write_text("# Roof\n\nThe roof needs new shingles.\n")
    manuals = v.paths.life_dir / "resources" / "manuals"
    manuals.mkdir(parents=True)
    stamp = (NOW - dt.timedelta(days=2)).isoformat()
    entries = [
        {"id": f"m{i:03}", "fact": f"Manual number {i}", "category": "context",
         "timestamp": stamp, "lastAccessed": stamp, "accessCount": 0, "status": "active"}
        for i in range(80)
    ]  # fmt: skip
    (manuals / "items.json").write_text(json.dumps(entries))
    with scanned(qtbot, vault) as live:
        yield live


@pytest.fixture
def view(qtbot: QtBot, s: session.Session) -> entity_page.EntityPage:
    return shown_page(qtbot, s, 760)


def open_entity(qtbot: QtBot, view: entity_page.EntityPage, address: str, **kw: Any) -> None:
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.show_entity(address, **kw)


def texts(view: entity_page.EntityPage) -> list[str]:
    return [view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())]


def select(view: entity_page.EntityPage, text: str) -> None:
    fact_id = next(f.id for f in view.model.facts() if f.fact == text)
    assert view.select_fact(fact_id)


def on_disk(s: session.Session, address: str) -> list[dict[str, Any]]:
    folder = s.vault.paths.entity_dir(s.vault.entity(address).ref)
    data: list[dict[str, Any]] = json.loads((folder / "items.json").read_text())
    return data


def test_shows_an_entity_with_summary_facts_and_lineage(
    qtbot: QtBot, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, JANE)
    assert view.title_label.text() == "Jane"
    assert view.address_label.text() == JANE
    assert "2</b> active facts" in view.counts_label.text()
    assert "1 superseded" in view.counts_label.text()
    qtbot.waitUntil(lambda: "family plumber" in view.summary.browser.toPlainText())
    assert not view.banner.isVisible()
    assert sorted(texts(view)) == ["Jane fixed the kitchen leak", "Jane lives in Seattle"]
    assert view.shown_label.text() == "Showing 2 of 3 facts"

    view.superseded_check.setChecked(True)  # superseded facts on demand, greyed
    assert "Jane lives in Portland" in texts(view)
    select(view, "Jane lives in Portland")
    index = view.table.selectionModel().selectedRows()[0]
    grey = index.data(QtCore.Qt.ItemDataRole.ForegroundRole).color()
    assert grey == qt_models.disabled_text()
    assert not view.supersede_action.isEnabled()  # an old version is not edited
    history = [view.history_list.topLevelItem(i) for i in range(2)]
    assert [item.text(3) for item in history] == ["Jane lives in Portland", "Jane lives in Seattle"]
    assert [item.text(2) for item in history] == ["Superseded", "Active"]
    assert history[0].font(0).bold() and not history[1].font(0).bold()

    # activating the newer version selects it; then the action is available again
    view.history_list.itemActivated.emit(history[1], 0)
    assert view.selected_fact().fact == "Jane lives in Seattle"
    assert view.supersede_action.isEnabled()
    view.superseded_check.setChecked(False)
    assert "Jane lives in Portland" not in texts(view)


def test_filters_and_sorting_in_the_view(qtbot: QtBot, view: entity_page.EntityPage) -> None:
    open_entity(qtbot, view, BIG)
    assert view.proxy.rowCount() == 80
    qtbot.keyClicks(view.filter_edit, "MANUAL 7")  # every word, any case, anywhere
    assert len(texts(view)) == 17  # 7, 17, 27, …, 67 and 70 to 79
    view.filter_edit.setText("manual 77")
    assert texts(view) == ["Manual number 77"]
    view.filter_edit.clear()
    view.tier_buttons[models.DecayTier.HOT].setChecked(False)
    assert view.proxy.rowCount() == 0 and view.shown_label.text() == "Showing 0 of 80 facts"
    view.tier_buttons[models.DecayTier.HOT].setChecked(True)
    view.category_combo.setCurrentIndex(view.category_combo.findData("milestone"))
    assert view.proxy.rowCount() == 0
    view.category_combo.setCurrentIndex(0)
    view.table.sortByColumn(qt_models.FactsModel.FACT, QtCore.Qt.SortOrder.DescendingOrder)
    assert texts(view)[0] == "Manual number 9"


def test_add_fact_through_the_dialog_writes_items_json(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, JANE)
    view.table.setFocus()
    qtbot.keyClick(view.table, QtCore.Qt.Key.Key_N, QtCore.Qt.KeyboardModifier.ControlModifier)
    dialog = view.fact_dialog
    assert dialog is not None and dialog.isVisible()
    assert "Add a fact to Jane" in dialog.windowTitle()
    assert not dialog.ok_button.isEnabled()  # empty text
    qtbot.keyClicks(dialog.text_edit, "Jane's van is white")
    dialog.category.setCurrentIndex(dialog.category.findData("context"))
    dialog.related.setText(ACME)
    dialog.source.setText("conversation")
    dialog.confidence.setValue(0.8)
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())

    (entry,) = [e for e in on_disk(s, JANE) if e["fact"] == "Jane's van is white"]
    assert entry["category"] == "context" and entry["relatedEntities"] == [ACME]
    assert entry["confidence"] == 0.8 and entry["source"] == "conversation"
    assert entry["status"] == "active"
    qtbot.waitUntil(lambda: view.selected_fact() is not None)
    assert view.selected_fact().fact == "Jane's van is white"  # the new fact is selected
    assert s.undo_stack.count() == 1


def test_supersede_through_the_dialog_keeps_both_facts_with_lineage(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, JANE)
    select(view, "Jane fixed the kitchen leak")
    old_id = view.selected_fact().id
    view.table.setFocus()
    qtbot.keyClick(view.table, QtCore.Qt.Key.Key_F2)
    dialog = view.fact_dialog
    assert dialog is not None and dialog.isVisible()
    assert "old version is kept" in dialog.windowTitle()
    assert "nothing is deleted" in dialog.intro.text()
    assert dialog.text_edit.toPlainText() == "Jane fixed the kitchen leak"
    assert dialog.related.text() == ACME
    assert not dialog.ok_button.isEnabled()  # nothing changed yet
    assert not dialog.text_error.isVisible()  # and no red before you type (issue 30)
    dialog.text_edit.setPlainText("Jane fixed the kitchen leak!")
    dialog.text_edit.setPlainText("Jane fixed the kitchen leak")  # changed, then back
    assert "Change something" in dialog.text_error.text() and dialog.text_error.isVisible()
    dialog.text_edit.setPlainText("Jane fixed the kitchen leak and the bathroom tap")
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        dialog.submit()
    qtbot.waitUntil(lambda: not dialog.isVisible())

    facts = {e["id"]: e for e in on_disk(s, JANE)}
    old = facts[old_id]
    new = facts[old["supersededBy"]]
    assert old["status"] == "superseded" and old["fact"] == "Jane fixed the kitchen leak"
    assert new["fact"] == "Jane fixed the kitchen leak and the bathroom tap"
    assert new["status"] == "active" and new["relatedEntities"] == [ACME]
    qtbot.waitUntil(lambda: view.selected_fact() is not None)
    assert view.selected_fact().id == new["id"]
    assert view.history_list.topLevelItemCount() == 2


def test_enter_on_an_active_fact_opens_the_editor_but_not_on_a_superseded_one(
    qtbot: QtBot, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, JANE)
    view.superseded_check.setChecked(True)
    select(view, "Jane lives in Portland")
    view.table.setFocus()
    qtbot.keyClick(view.table, QtCore.Qt.Key.Key_Return)
    qtbot.keyClick(view.table, QtCore.Qt.Key.Key_F2)
    assert view.fact_dialog is None
    select(view, "Jane lives in Seattle")
    qtbot.keyClick(view.table, QtCore.Qt.Key.Key_Return)
    assert view.fact_dialog is not None and view.fact_dialog.isVisible()
    view.fact_dialog.reject()


def test_dialog_validation(qtbot: QtBot, s: session.Session) -> None:
    dialog = FactDialog.add(s, JANE)
    qtbot.addWidget(dialog)
    assert not dialog.ok_button.isEnabled()
    assert not dialog.text_error.isVisibleTo(dialog)  # no scolding before any typing
    dialog.submit()  # ...but a refused OK says why
    assert dialog.text_error.isVisibleTo(dialog) and "cannot be empty" in dialog.text_error.text()
    dialog.text_edit.setPlainText("   ")
    assert not dialog.ok_button.isEnabled() and not dialog.saving
    dialog.text_edit.setPlainText("Jane owns a drain snake")
    assert dialog.ok_button.isEnabled() and not dialog.text_error.isVisibleTo(dialog)
    dialog.related.setText(f"{ACME}, areas/people/nobody")
    assert not dialog.ok_button.isEnabled()
    assert "no entity “areas/people/nobody”" in dialog.related_error.text()
    dialog.related.setText("../etc/passwd")
    assert "not an entity address" in dialog.related_error.text()
    dialog.related.setText(f"{ACME},  {ACME} ,")
    assert dialog.ok_button.isEnabled() and dialog.related_items() == [ACME]
    assert dialog.agent.currentData() is None
    dialog.submit()  # a valid form writes once; the dialog waits for the write
    assert dialog.saving and not dialog.ok_button.isEnabled()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert dialog.result() == QtWidgets.QDialog.DialogCode.Accepted
    assert any(e["fact"] == "Jane owns a drain snake" for e in on_disk(s, JANE))


@pytest.mark.qt_log_ignore("This plugin does not support")  # offscreen: popups, raise()
def test_related_chips_complete_after_double_brackets(qtbot: QtBot, s: session.Session) -> None:
    dialog = FactDialog.add(s, JANE)
    qtbot.addWidget(dialog)
    dialog.show()
    field = dialog.related
    dialog.activateWindow()
    field.setFocus()  # the chips' line edit takes the typing
    qtbot.waitUntil(field.editor.hasFocus)
    qtbot.keyClicks(field.editor, "jan")  # plain typing: no popup
    assert not dialog.completer.popup().isVisible()
    field.editor.clear()
    qtbot.keyClicks(field.editor, "[[jan")  # [[ starts completion, by title or address
    qtbot.waitUntil(lambda: dialog.completer.popup().isVisible())
    assert dialog.completer.completionCount() == 1
    assert dialog.completer.currentCompletion() == f"Jane — {JANE}"
    qtbot.keyClick(dialog.completer.popup(), QtCore.Qt.Key.Key_Down)
    qtbot.keyClick(dialog.completer.popup(), QtCore.Qt.Key.Key_Return)
    assert [chip.address for chip in field.chips] == [JANE] and field.editor.text() == ""
    assert field.chips[0].label.text() == "Jane"  # shown by title, the address as tooltip
    qtbot.keyClicks(field.editor, "[[acme")  # "Acme" by title
    qtbot.waitUntil(lambda: dialog.completer.popup().isVisible())
    qtbot.keyClick(dialog.completer.popup(), QtCore.Qt.Key.Key_Down)
    qtbot.keyClick(dialog.completer.popup(), QtCore.Qt.Key.Key_Return)
    assert dialog.related_items() == [JANE, ACME] and field.text() == f"{JANE}, {ACME}"
    qtbot.keyClick(field.editor, QtCore.Qt.Key.Key_Backspace)  # empty: removes the last chip
    assert dialog.related_items() == [JANE]
    qtbot.mouseClick(field.chips[0].close_button, QtCore.Qt.MouseButton.LeftButton)
    assert dialog.related_items() == []
    assert resolve_related("projects/roof", None, {"archives/roof"}) == "archives/roof"
    assert resolve_related("projects/x", "fin", {"agent:fin:projects/x"}) == "agent:fin:projects/x"
    dialog.reject()


@pytest.mark.qt_log_ignore("This plugin does not support")  # offscreen: popups, raise()
def test_the_add_dialog_holds_still_while_double_brackets_are_typed(
    qtbot: QtBot, s: session.Session
) -> None:
    dialog = FactDialog.add(s, JANE)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.text_edit.setPlainText("Jane works with Acme")
    field = dialog.related
    field.setFocus()
    qtbot.waitUntil(field.editor.hasFocus)

    def where() -> tuple[int, int]:
        return field.mapTo(dialog, QtCore.QPoint(0, 0)).y(), dialog.height()

    still = where()
    for key in "[[acm":  # the first "[" is a completion on its way: not scolded
        qtbot.keyClicks(field.editor, key)
        assert where() == still and not dialog.related_error.isVisible(), key
    field.editor.clear()
    qtbot.keyClicks(field.editor, "x")  # a word that is no address is named at once
    assert dialog.related_error.isVisible()
    qtbot.keyClick(field.editor, QtCore.Qt.Key.Key_Backspace)
    assert not dialog.related_error.isVisible()
    assert where()[0] == still[0]  # the room the message took stays below the form
    dialog.reject()


def test_every_bad_related_address_is_reported_at_once(qtbot: QtBot, s: session.Session) -> None:
    dialog = FactDialog.add(s, JANE)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.text_edit.setPlainText("Jane met three people")
    field = dialog.related
    qtbot.keyClicks(field.editor, "areas/people/nobody, ../etc/passwd,")  # commas make chips
    qtbot.keyClicks(field.editor, f"{ACME}")
    qtbot.keyClick(field.editor, QtCore.Qt.Key.Key_Return)
    qtbot.keyClicks(field.editor, "projects/ghost]]")  # ]] ends a typed one too
    assert dialog.related_items() == [
        "areas/people/nobody",
        "../etc/passwd",
        ACME,
        "projects/ghost",
    ]
    message = dialog.related_error.text()
    assert "“../etc/passwd” is not an entity address" in message
    assert "no entity “areas/people/nobody”, “projects/ghost” in this vault" in message
    assert not dialog.ok_button.isEnabled() and field.has_error_outline()
    bad = {chip.address: chip.problem for chip in field.chips}
    assert bad == {
        "areas/people/nobody": "no such entity in this vault",
        "../etc/passwd": "not an entity address",
        ACME: None,
        "projects/ghost": "no such entity in this vault",
    }
    for address in ("areas/people/nobody", "../etc/passwd", "projects/ghost"):
        field.remove(address)
    assert not field.has_error_outline() and dialog.ok_button.isEnabled()
    assert not dialog.related_error.isVisibleTo(dialog)
    dialog.reject()


def superseding(qtbot: QtBot, s: session.Session, fact: models.Fact, text: str) -> FactDialog:
    """The fact dialog superseding one of Jane's facts, the new text typed, not saved."""
    dialog = FactDialog.supersede(s, JANE, fact)
    qtbot.addWidget(dialog)
    dialog.text_edit.setPlainText(text)
    return dialog


def test_supersede_dialog_refused_write_is_shown_and_text_kept(
    qtbot: QtBot, s: session.Session
) -> None:
    fact = next(f for f in s.vault.entity(JANE).facts if f.fact == "Jane lives in Seattle")
    stale = fact.model_copy()
    s.vault.supersede_fact(fact.id, "Jane lives in Tacoma")  # someone else got there first
    dialog = superseding(qtbot, s, stale, "Jane lives in Olympia")
    dialog.submit()
    qtbot.waitUntil(lambda: not dialog.saving, timeout=10_000)
    assert dialog.isVisible()
    assert "already superseded" in dialog.status.text()
    assert dialog.text_edit.toPlainText() == "Jane lives in Olympia"


def test_corrupt_items_json_shows_a_banner_and_other_entities_still_open(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, "projects/roof")
    assert view.banner.isVisible()
    text = view.banner_label.text()
    assert "A file cannot be read" in text and "items.json" in text
    assert view.counts_label.text() == "The facts cannot be read (see below)"
    assert "Its summary and every other entity can still be used" in text
    assert not view.add_action.isEnabled() and view.model.rowCount() == 0
    qtbot.waitUntil(lambda: "new shingles" in view.summary.browser.toPlainText())
    open_entity(qtbot, view, JANE)
    assert not view.banner.isVisible()
    assert view.proxy.rowCount() == 2 and view.add_action.isEnabled()

    # one bad entry among good ones: the good ones are shown, the bad one is named
    path = s.vault.paths.life_dir / ACME / "items.json"
    entries = json.loads(path.read_text())
    entries.append({"id": "fact-bad", "fact": "Odd", "category": "gossip"})
    path.write_text(json.dumps(entries))
    open_entity(qtbot, view, ACME)
    assert view.banner.isVisible() and view.proxy.rowCount() == 1
    assert "1 entry of items.json cannot be read" in view.banner_label.text()
    assert "[1].category" in view.banner_label.text()
    assert view.add_action.isEnabled()  # adding leaves the bad entry untouched


def test_external_change_reloads_keeping_selection_and_scroll(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, BIG)
    view.table.sortByColumn(qt_models.FactsModel.FACT, QtCore.Qt.SortOrder.AscendingOrder)
    select(view, "Manual number 50")
    bar = view.table.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)
    position = bar.value()
    resets: list[int] = []
    view.model.modelReset.connect(lambda: resets.append(1))
    let_write_global(s.vault.root, "janitor")
    other = vault.Vault(s.vault.root, actor="agent:janitor")  # another writer
    other.add_fact(BIG, "Manual number 80", "context")
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        s.entityChanged.emit(f"global:{BIG}")  # what live sync announces
    assert view.model.rowCount() == 81 and resets == []
    assert view.selected_fact().fact == "Manual number 50"
    assert bar.value() == position


def test_history_reaching_another_entity_is_looked_up(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    portland = next(f for f in s.vault.entity(JANE).facts if f.fact == "Jane lives in Portland")
    moved = s.vault.paths.life_dir / "areas" / "moved"
    moved.mkdir()
    entry = {"id": "fact-moved", "fact": "Jane moved away", "category": "context",
             "status": "active", "supersedes": portland.id}  # fmt: skip
    (moved / "items.json").write_text(json.dumps([entry]))
    open_entity(qtbot, view, "areas/moved")
    fact = view.model.facts()[0]
    assert fact_lineage.local_history(fact, {fact.id: fact}) is None  # leads outside
    view.select_fact("fact-moved")
    qtbot.waitUntil(lambda: view.history_list.topLevelItemCount() == 2, timeout=10_000)
    first = view.history_list.topLevelItem(0)
    assert first.text(3) == f"Jane lives in Portland  (in {JANE})"
    with qtbot.waitSignal(view.openEntity) as opened:
        view.history_list.itemActivated.emit(first, 0)
    assert opened.args == [JANE]


def test_related_entity_activation_asks_to_open_it(
    qtbot: QtBot, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, ACME)
    select(view, "Acme delivered the pipes")
    assert view.related_list.count() == 1
    item = view.related_list.item(0)
    assert item.text() == "Jane" and JANE in item.toolTip()  # by title, as the links are
    view.related_list.setCurrentItem(item)
    view.related_list.setFocus()
    with qtbot.waitSignal(view.openEntity) as opened:
        qtbot.keyClick(view.related_list, QtCore.Qt.Key.Key_Return)
    assert opened.args == [JANE]


def test_archive_asks_first_and_moves_the_entity(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, ACME)
    before = on_disk(s, ACME)
    prompt = view.archive()
    assert prompt is not None and "Nothing is deleted" in prompt.informativeText()
    cancel = prompt.button(QtWidgets.QMessageBox.StandardButton.Cancel)
    cancel.click()
    assert (s.vault.paths.life_dir / ACME).is_dir()
    prompt = view.archive()
    assert prompt is not None
    confirm = next(b for b in prompt.buttons() if b.text() == "Archive")
    with qtbot.waitSignal(view.entityMoved, timeout=10_000) as moved:
        confirm.click()
    assert moved.args == [ACME, "archives/companies/acme"]
    qtbot.waitUntil(lambda: view.address_label.text().endswith("archived"), timeout=10_000)
    assert on_disk(s, "archives/companies/acme") == before  # every fact moved along
    assert not view.archive_action.isEnabled()


def test_unknown_entity_shows_a_plain_message(qtbot: QtBot, view: entity_page.EntityPage) -> None:
    open_entity(qtbot, view, "areas/people/nobody")
    assert view.banner.isVisible() and "Not found" in view.banner_label.text()
    assert not view.add_action.isEnabled()
    view.show_entity("../../etc")
    assert "invalid entity id" in view.banner_label.text()
    view.clear()  # e.g. a sidebar row that is not an entity
    assert view.pages.currentIndex() == view.EMPTY and not view.archive_action.isEnabled()


def test_changed_entity_is_aged_with_the_vault_clock(qtbot: QtBot, s: session.Session) -> None:
    old = vault.Vault(s.vault.root, clock=decay.fixed_clock(NOW - dt.timedelta(days=60)))
    old.add_fact(ACME, "Acme was founded long ago", "context")
    widget = entity_page.EntityPage(s)
    qtbot.addWidget(widget)
    open_entity(qtbot, widget, ACME)
    row = widget.model.row_of(
        next(f.id for f in widget.model.facts() if f.fact == "Acme was founded long ago")
    )
    assert widget.model.index(row, qt_models.FactsModel.TIER).data() == "Cold"


# -- live sync: the fact changes on disk while the edit dialog is open -----------------------


def fact_named(s: session.Session, text: str) -> Any:
    return next(f for f in s.vault.entity(JANE).facts if f.fact == text)


def facts_on_disk(s: session.Session) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in on_disk(s, JANE)}


def announce(qtbot: QtBot, s: session.Session, dialog: FactDialog) -> None:
    """Live sync announces the change; the dialog re-reads the fact and raises its bar."""
    s.entityChanged.emit(f"global:{JANE}")
    qtbot.waitUntil(lambda: dialog.changed_bar.isVisible(), timeout=10_000)


def test_supersede_on_disk_while_editing_then_use_theirs(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, JANE)
    select(view, "Jane lives in Seattle")
    dialog = view.supersede_selected()
    assert dialog is not None
    before = facts_on_disk(s)
    seattle = dialog.old
    dialog.text_edit.setPlainText("Jane lives in Olympia")
    let_write_global(s.vault.root, "assistant")
    other = vault.Vault(s.vault.root, actor="agent:assistant")
    _, tacoma = other.supersede_fact(seattle.id, "Jane lives in Tacoma", category="status")
    announce(qtbot, s, dialog)

    bar = dialog.changed_bar
    assert bar.label.text() == "This fact was changed on disk: “Jane lives in Tacoma”"
    assert not dialog.ok_button.isEnabled()  # a choice first
    assert "Use theirs" in dialog.status.text()
    dialog.submit()  # e.g. Ctrl+Enter: nothing is written
    assert not dialog.saving and facts_on_disk(s).keys() == before.keys() | {tacoma.id}

    bar.theirs_button.click()
    assert not bar.isVisible()
    assert dialog.old.id == tacoma.id and dialog.current.text() == "Jane lives in Tacoma"
    assert dialog.text_edit.toPlainText() == "Jane lives in Tacoma"
    assert dialog.category.currentData() == "status"
    dialog.text_edit.undo()  # the user's text is one undo away
    assert dialog.text_edit.toPlainText() == "Jane lives in Olympia"
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.factSaved, timeout=10_000):
        dialog.submit()
    qtbot.waitUntil(lambda: not dialog.isVisible())

    facts = facts_on_disk(s)
    assert before.keys() < facts.keys() and len(facts) == len(before) + 2  # all kept
    assert facts[seattle.id]["supersededBy"] == tacoma.id
    assert facts[tacoma.id]["status"] == "superseded"
    (newest,) = [e for e in facts.values() if e["fact"] == "Jane lives in Olympia"]
    assert facts[tacoma.id]["supersededBy"] == newest["id"] and newest["status"] == "active"
    assert newest["category"] == "status"  # theirs, as the form showed it


def test_edit_in_place_on_disk_then_keep_mine(qtbot: QtBot, s: session.Session) -> None:
    seattle = fact_named(s, "Jane lives in Seattle")
    dialog = superseding(qtbot, s, seattle, "Jane lives in Seattle, near the lake")
    # another editor changes the fact's text in items.json directly (no new version)
    path = s.vault.paths.life_dir / JANE / "items.json"
    entries = json.loads(path.read_text())
    for entry in entries:
        if entry["id"] == seattle.id:
            entry["fact"] = "Jane lives in Seattle, Capitol Hill"
    path.write_text(json.dumps(entries))
    announce(qtbot, s, dialog)
    assert dialog.changed_bar.label.text() == (
        "This fact was changed on disk: “Jane lives in Seattle, Capitol Hill”"
    )

    dialog.changed_bar.mine_button.click()
    assert not dialog.changed_bar.isVisible()
    assert dialog.text_edit.toPlainText() == "Jane lives in Seattle, near the lake"
    assert dialog.current.text() == "Jane lives in Seattle, Capitol Hill"
    assert "next version, after “Jane lives in Seattle, Capitol Hill”" in dialog.status.text()
    with qtbot.waitSignal(dialog.factSaved, timeout=10_000):
        dialog.submit()
    facts = facts_on_disk(s)
    assert facts[seattle.id]["fact"] == "Jane lives in Seattle, Capitol Hill"  # theirs, kept
    assert facts[seattle.id]["status"] == "superseded"
    mine = facts[facts[seattle.id]["supersededBy"]]
    assert mine["fact"] == "Jane lives in Seattle, near the lake" and mine["status"] == "active"
    assert len(facts) == 4  # the three there were, and mine


def test_supersede_on_disk_then_keep_mine_supersedes_theirs(
    qtbot: QtBot, s: session.Session
) -> None:
    seattle = fact_named(s, "Jane lives in Seattle")
    dialog = superseding(qtbot, s, seattle, "Jane lives in Olympia")
    let_write_global(s.vault.root, "assistant")
    other = vault.Vault(s.vault.root, actor="agent:assistant")
    _, tacoma = other.supersede_fact(seattle.id, "Jane lives in Tacoma")
    _, renton = other.supersede_fact(tacoma.id, "Jane lives in Renton")  # two steps on
    announce(qtbot, s, dialog)
    assert "“Jane lives in Renton”" in dialog.changed_bar.label.text()
    dialog.changed_bar.mine_button.click()
    assert dialog.old.id == renton.id
    with qtbot.waitSignal(dialog.factSaved, timeout=10_000):
        dialog.submit()
    facts = facts_on_disk(s)
    assert len(facts) == 6
    assert facts[renton.id]["status"] == "superseded"
    assert facts[facts[renton.id]["supersededBy"]]["fact"] == "Jane lives in Olympia"


def test_withdrawn_on_disk_keep_mine_adds_and_use_theirs_closes(
    qtbot: QtBot, s: session.Session
) -> None:
    leak = fact_named(s, "Jane fixed the kitchen leak")
    dialog = superseding(qtbot, s, leak, "Jane fixed the kitchen leak twice")
    vault.Vault(s.vault.root).set_fact_status(leak.id, False)  # withdrawn (an undo elsewhere)
    announce(qtbot, s, dialog)
    assert dialog.changed_bar.label.text() == (
        "This fact was withdrawn on disk, and it has no newer version."
    )
    dialog.changed_bar.mine_button.click()
    assert not dialog.editing and dialog.ok_button.text() == "Add fact"
    assert "withdrawn on disk" in dialog.intro.text()
    assert dialog.status.text() == "Saving adds your text as a new fact."
    with qtbot.waitSignal(dialog.factSaved, timeout=10_000):
        dialog.submit()
    facts = facts_on_disk(s)
    assert facts[leak.id]["fact"] == "Jane fixed the kitchen leak"  # still there, withdrawn
    (added,) = [e for e in facts.values() if e["fact"] == "Jane fixed the kitchen leak twice"]
    assert added["status"] == "active" and added["relatedEntities"] == [ACME]

    # the same, answered "Use theirs": nothing left to edit, the form closes and says so
    seattle = fact_named(s, "Jane lives in Seattle")
    dialog = superseding(qtbot, s, seattle, "Jane lives in Spokane")
    vault.Vault(s.vault.root).set_fact_status(seattle.id, False)
    announce(qtbot, s, dialog)
    dialog.changed_bar.theirs_button.click()
    assert not dialog.isVisible()
    notice = dialog.closing_notice
    assert notice is not None and notice.isVisible()
    assert "was withdrawn on disk and has no newer version" in notice.text()
    assert notice.informativeText() == "Your text, not saved: “Jane lives in Spokane”"
    notice.close()
    assert len(facts_on_disk(s)) == 4  # nothing written, nothing removed


def test_changes_that_are_not_edits_raise_no_bar(qtbot: QtBot, s: session.Session) -> None:
    seattle = fact_named(s, "Jane lives in Seattle")
    dialog = superseding(qtbot, s, seattle, "Jane lives in Everett")
    other = vault.Vault(s.vault.root)
    other.mark_accessed([seattle.id])  # an agent read it: access counts only
    other.add_fact(JANE, "Jane bought a ladder", "milestone")  # another fact of the entity
    s.entityChanged.emit(JANE)
    s.entityChanged.emit(ACME)  # another entity: not even read
    s.wait()
    assert not dialog.changed_bar.isVisible() and dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.factSaved, timeout=10_000):  # own write: no bar either
        dialog.submit()
    assert not dialog.changed_bar.isVisible()
    assert facts_on_disk(s)[seattle.id]["status"] == "superseded"


def test_refused_save_looks_at_the_disk_and_offers_the_way_out(
    qtbot: QtBot, s: session.Session
) -> None:
    fact = fact_named(s, "Jane lives in Seattle")
    stale = fact.model_copy()
    s.vault.supersede_fact(fact.id, "Jane lives in Tacoma")  # no announcement this time
    dialog = superseding(qtbot, s, stale, "Jane lives in Olympia")
    dialog.submit()
    qtbot.waitUntil(lambda: dialog.changed_bar.isVisible(), timeout=10_000)
    assert "“Jane lives in Tacoma”" in dialog.changed_bar.label.text()
    dialog.changed_bar.mine_button.click()
    with qtbot.waitSignal(dialog.factSaved, timeout=10_000):
        dialog.submit()
    olympia = [e for e in on_disk(s, JANE) if e["fact"] == "Jane lives in Olympia"]
    assert len(olympia) == 1 and olympia[0]["status"] == "active"


def test_entity_moved_outside_is_followed(qtbot: QtBot, s: session.Session) -> None:
    seattle = fact_named(s, "Jane lives in Seattle")
    dialog = superseding(qtbot, s, seattle, "Jane lives in Bellevue")
    moved = str(vault.Vault(s.vault.root).archive_entity(JANE))
    s.entityMoved.emit(JANE, moved)  # what live sync announces
    s.wait()
    assert dialog.address == moved and not dialog.changed_bar.isVisible()
    with qtbot.waitSignal(s.entityChanged, timeout=10_000) as changed:
        dialog.submit()
    assert changed.args == [moved]
    facts = {e["fact"]: e for e in on_disk(s, moved)}
    assert facts["Jane lives in Bellevue"]["status"] == "active"
    assert facts["Jane lives in Seattle"]["status"] == "superseded"


def test_a_long_fact_gives_the_room_to_the_field_being_edited(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    """The read-only current version scrolls within four lines; the editable field grows
    to ten (issue 30: the old version took the room, the field had five)."""
    long = " ".join(["Marcus inspected the main stack and the relief valve."] * 12)
    fact = s.vault.add_fact(JANE, long, "context")
    open_entity(qtbot, view, JANE)
    assert view.select_fact(fact.id)
    dialog = view.supersede_selected()
    assert dialog is not None
    line = dialog.fontMetrics().lineSpacing()
    assert dialog.current_box.maximumHeight() <= line * 4 + 8
    assert dialog.text_edit.height() >= line * 10
    assert dialog.text_edit.height() > dialog.current_box.maximumHeight()
    dialog.reject()
