"""Links and time in the entity page: backlinks beside outgoing links (from the window's
link index, kept current), each version's author, time and word diff, and the read-only
"As of…" view — driven like a user would, on real vault files."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import session
from vault_app.ui.pages import entity_page
from vault_app.ui.window import link_keeper

JANE = "areas/people/jane-doe"
ACME = "areas/companies/acme"
ROOF = "projects/roof"
NOW = dt.datetime.now().astimezone()


@pytest.fixture
def s(qtbot: QtBot, vault: vault.Vault) -> Iterator[session.Session]:
    v = vault
    for address in (JANE, ACME, ROOF):
        v.create_entity(address)
    old = v.add_fact(JANE, "Jane lives in Portland", "context", at=NOW - dt.timedelta(days=20))
    v.supersede_fact(old.id, "Jane lives in sunny Seattle", at=NOW - dt.timedelta(days=10))
    v.add_fact(JANE, "Jane buys from Acme", "relationship", related=[ACME])
    v.add_fact(ROOF, "Jane fixes the roof", "context", related=[JANE])
    live = session.Session(v)
    live.rescan()
    qtbot.waitUntil(lambda: live.scan is not None)
    yield live
    live.close()


@pytest.fixture
def keeper(qtbot: QtBot, s: session.Session) -> link_keeper.LinkKeeper:
    kept = link_keeper.LinkKeeper(s)
    qtbot.waitUntil(lambda: kept.ready, timeout=10_000)
    return kept


@pytest.fixture
def page(
    qtbot: QtBot, s: session.Session, keeper: link_keeper.LinkKeeper
) -> entity_page.EntityPage:
    widget = entity_page.EntityPage(s)
    widget.lineage.set_link_keeper(keeper)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    with qtbot.waitSignal(widget.loaded, timeout=10_000):
        widget.show_entity(JANE)
    return widget


def test_backlinks_beside_links_by_title_and_a_click_opens(
    qtbot: QtBot, page: entity_page.EntityPage
) -> None:
    panel = page.lineage.links
    assert panel.addresses(0) == [ACME] and panel.addresses(1) == [ROOF]
    top = panel.tree.topLevelItem(1)
    assert top is not None and top.text(0) == "Linked from (1)"
    roof = top.child(0)
    assert roof is not None and roof.text(0) == "Roof"  # by title, the address in the tip
    assert ROOF in roof.toolTip(0)
    with qtbot.waitSignal(page.openEntity) as opened:
        rect = panel.tree.visualItemRect(roof)
        qtbot.mouseClick(panel.tree.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args == [ROOF]


def test_backlinks_follow_a_write(
    qtbot: QtBot, s: session.Session, page: entity_page.EntityPage,
    keeper: link_keeper.LinkKeeper,
) -> None:  # fmt: skip
    with qtbot.waitSignal(keeper.changed, timeout=10_000):
        s.write(lambda v: v.add_fact(ACME, "Acme knows Jane", "context", related=[JANE]),
                entities=(ACME,))  # fmt: skip
    qtbot.waitUntil(lambda: page.lineage.links.addresses(1) == [ACME, ROOF], timeout=10_000)
    # a new entity naming Jane: came into the vault, the index re-resolves off-thread
    with qtbot.waitSignal(keeper.changed, timeout=10_000):
        s.write(lambda v: (v.create_entity("resources/manual"),
                           v.add_fact("resources/manual", "About Jane", "context", related=[JANE])),
                entities=("resources/manual",))  # fmt: skip
    qtbot.waitUntil(lambda: "resources/manual" in page.lineage.links.addresses(1), timeout=10_000)


def test_history_shows_author_time_and_a_word_diff(
    qtbot: QtBot, page: entity_page.EntityPage
) -> None:
    fact = next(f for f in page.model.facts() if f.fact == "Jane lives in sunny Seattle")
    assert page.select_fact(fact.id)
    history = page.lineage.history_list
    qtbot.waitUntil(lambda: history.topLevelItemCount() == 2)
    newest = history.topLevelItem(1)
    assert newest is not None
    qtbot.waitUntil(lambda: newest.text(1) != "…", timeout=10_000)
    assert newest.text(1) == "You"  # the vault fixture's actor "api": the person, in words
    assert len(newest.text(0)) == len("2026-01-31 14:05")
    diff = page.lineage.diff_view
    assert diff.isVisible()
    text = diff.toPlainText()
    assert "Portland" in text and "sunny Seattle" in text
    assert "<s " in diff.toHtml() or "line-through" in diff.toHtml()


def test_as_of_shows_the_past_read_only_and_back_to_now(
    qtbot: QtBot, page: entity_page.EntityPage
) -> None:
    assert page.add_action.isEnabled()
    day = (NOW - dt.timedelta(days=15)).date()
    with qtbot.waitSignal(page.as_of.loaded, timeout=10_000):
        page.show_as_of(day)
    assert page.body.currentWidget() is page.as_of and page.as_of.isVisible()
    assert not page.add_action.isEnabled() and not page.supersede_action.isEnabled()
    assert "the past, read-only" in page.as_of.banner_label.text()
    rows = page.as_of.rows()
    assert [r[1] for r in rows] == ["Jane lives in Portland"]  # Seattle and Acme came later
    assert rows[0][0] == "Hot" and rows[0][4].startswith("superseded ")
    assert "2 written later" in page.as_of.facts_label.text()
    assert "Summary then:" in page.as_of.summary_note.text()
    with qtbot.waitSignal(page.as_of.loaded, timeout=10_000):  # another day from the control
        page.as_of.date_edit.setDate(QtCore.QDate.currentDate())
    assert len(page.as_of.rows()) == 2
    qtbot.mouseClick(page.as_of.back_button, QtCore.Qt.MouseButton.LeftButton)
    assert page.body.currentWidget() is page.splitter and page.add_action.isEnabled()


def test_backlinks_follow_an_archived_entity(
    qtbot: QtBot, s: session.Session, page: entity_page.EntityPage,
    keeper: link_keeper.LinkKeeper,
) -> None:  # fmt: skip
    s.write(lambda v: v.archive_entity(ROOF), entities=(ROOF,), rescan=True)
    # the scan shows the entity moved: the kept references are resolved again off-thread
    qtbot.waitUntil(lambda: page.lineage.links.addresses(1) == ["archives/roof"], timeout=10_000)
    top = page.lineage.links.tree.topLevelItem(1)
    assert top is not None and top.child(0).text(0) == "Roof · archived"  # type: ignore[union-attr]
