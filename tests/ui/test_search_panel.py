"""The search dock on the demo vault: typing, highlighting, filters, opening, stale results."""

from __future__ import annotations

import functools
import importlib.util
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.search import engine as search_engine
from vault_app.search import semantic, tokenizer
from vault_app.ui import session as session_module
from vault_app.ui.pages import search_panel
from vault_app.ui.widgets import search_results


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One demo vault for the module (these tests only read it)."""
    root = tmp_path_factory.mktemp("demo") / "v"
    demo.create_demo(root)
    return root


@pytest.fixture
def session(demo_root: Path) -> Iterator[session_module.Session]:
    s = session_module.Session(vault.Vault(demo_root))
    s.rescan()
    yield s
    s.close()


@pytest.fixture
def panel(qtbot: QtBot, session: session_module.Session) -> search_panel.SearchPanel:
    widget = search_panel.SearchPanel(session)
    qtbot.addWidget(widget)
    widget.resize(420, 700)
    widget.show()
    return widget


def open_bm25(qtbot: QtBot, session: session_module.Session) -> None:
    with qtbot.waitSignal(session.searchReady, timeout=30_000):
        session.open_search(semantic=False)


def search(qtbot: QtBot, panel: search_panel.SearchPanel, text: str) -> list[Any]:
    """Type `text` as a person would and wait for its results."""
    panel.query_edit.clear()
    qtbot.keyClicks(panel.query_edit, text)
    return settle(qtbot, panel)


def settle(qtbot: QtBot, panel: search_panel.SearchPanel) -> list[Any]:
    qtbot.waitUntil(panel.idle, timeout=10_000)
    return [row.hit for row in panel.model.rows()]


def test_typing_plumber_shows_hits_with_the_word_highlighted(
    qtbot: QtBot,
    session: session_module.Session,
    panel: search_panel.SearchPanel,
    qtmodeltester: Any,
) -> None:
    open_bm25(qtbot, session)
    hits = search(qtbot, panel, "plumber")
    assert hits and any("plumber" in h.text.lower() for h in hits)
    qtmodeltester.check(panel.model)

    row = next(r for r in panel.model.rows() if "plumber" in r.text.lower())
    index = panel.model.index(panel.model.rows().index(row), 0)
    spans = index.data(search_results.SPANS_ROLE)
    marked = {row.text[a:b].lower() for a, b in spans}
    assert "plumber" in marked
    # Only words whose token is the query's are marked: never "plumbing" (token "plumb").
    assert all(tokenizer.Tokenizer().tokenize(word) == ["plumber"] for word in marked)
    assert re.fullmatch(r"\d+ results? · \d+ ms · BM25", panel.status_label.text())
    # No semantic side in this session: the modes that need it are off, and the panel says so.
    assert panel.mode() == "bm25"
    assert not panel.mode_combo.model().item(panel.mode_combo.findData("hybrid")).isEnabled()
    assert panel.notice_label.isVisible() and "BM25" in panel.notice_label.text()
    assert not panel.grab().isNull()  # the delegate paints every visible row


def test_highlighting_follows_the_tokenizer() -> None:
    tokens = tokenizer.Tokenizer()
    text, spans = search_results.snippet(
        "## Leaks\nThe plumber's van; plumbing LEAKING pipes, leak-proof.", {"leak"}, tokens
    )
    assert text.startswith("Leaks — The plumber's van")
    assert [text[a:b] for a, b in spans] == ["Leaks", "LEAKING", "leak"]
    text, spans = search_results.snippet("x " * 400 + "the roof leak", {"roof"}, tokens)
    assert text.startswith("… ") and [text[a:b] for a, b in spans] == ["roof"]


def test_filters_narrow_the_results(
    qtbot: QtBot, session: session_module.Session, panel: search_panel.SearchPanel
) -> None:
    open_bm25(qtbot, session)
    everything = search(qtbot, panel, "leak")
    assert {h.kind for h in everything} == {"fact", "summary", "daily"}

    panel.in_combo.setCurrentIndex(panel.in_combo.findData("facts"))
    facts = settle(qtbot, panel)
    assert facts and {h.kind for h in facts} == {"fact"}
    assert {h.tier for h in facts} > {"hot"}  # more than one tier before the tier filter

    panel.tier_combo.setCurrentText("Hot")
    hot = settle(qtbot, panel)
    assert hot and {h.tier for h in hot} == {"hot"} and len(hot) < len(facts)

    panel.tier_combo.setCurrentIndex(0)
    panel.in_combo.setCurrentIndex(0)
    panel.scope_combo.setCurrentIndex(panel.scope_combo.findData("agent:maintenance"))
    scoped = settle(qtbot, panel)
    assert scoped and {h.scope for h in scoped} == {"agent:maintenance"}
    assert len(scoped) < len(everything)

    panel.scope_combo.setCurrentIndex(0)
    panel.in_combo.setCurrentIndex(panel.in_combo.findData("facts"))
    panel.more_button.click()
    assert panel.more_box.isVisible()
    panel.category_combo.setCurrentIndex(panel.category_combo.findData("milestone"))
    milestones = settle(qtbot, panel)
    assert milestones and {h.category for h in milestones} == {"milestone"}
    assert "1 on" in panel.more_button.text()

    panel.category_combo.setCurrentIndex(0)
    panel.status_combo.setCurrentText("Superseded")
    replaced = search(qtbot, panel, "roof")
    assert replaced and {h.status for h in replaced} == {"superseded"}
    assert {h.tier for h in replaced} == {None}  # a replaced fact has no tier

    panel.reset_filters()
    panel.in_combo.setCurrentIndex(panel.in_combo.findData("daily"))
    days = search(qtbot, panel, "leak")
    day = days[0].date
    panel.date_check.setChecked(True)
    panel.date_from.setDate(QtCore.QDate(day.year, day.month, day.day))
    panel.date_to.setDate(QtCore.QDate(day.year, day.month, day.day))
    that_day = settle(qtbot, panel)
    assert that_day and {h.date for h in that_day} == {day} and len(that_day) < len(days)

    panel.reset_filters()
    panel.in_combo.setCurrentIndex(0)
    assert len(settle(qtbot, panel)) == len(everything)


def test_enter_opens_the_fact_and_searching_marks_no_access(
    qtbot: QtBot, session: session_module.Session, panel: search_panel.SearchPanel
) -> None:
    open_bm25(qtbot, session)
    panel.in_combo.setCurrentIndex(panel.in_combo.findData("facts"))
    hits = search(qtbot, panel, "plumber")
    before = {h.fact_id: session.vault.fact(h.fact_id)[1].access_count for h in hits}

    qtbot.keyClick(panel.query_edit, QtCore.Qt.Key.Key_Down)
    assert panel.results.hasFocus() or panel.results.currentIndex().row() == 0
    qtbot.keyClick(panel.results, QtCore.Qt.Key.Key_Down)  # the second hit
    with qtbot.waitSignal(panel.openFact) as opened:
        qtbot.keyClick(panel.results, QtCore.Qt.Key.Key_Return)
    address, fact_id = opened.args
    assert (address, fact_id) == (hits[1].entity, hits[1].fact_id)
    ref, fact = session.vault.fact(fact_id)
    assert str(ref) == address and fact.fact == hits[1].text

    after = {h.fact_id: session.vault.fact(h.fact_id)[1].access_count for h in hits}
    assert after == before


def test_double_click_opens_daily_entries_and_summaries(
    qtbot: QtBot, session: session_module.Session, panel: search_panel.SearchPanel
) -> None:
    open_bm25(qtbot, session)
    panel.in_combo.setCurrentIndex(panel.in_combo.findData("daily"))
    hit = search(qtbot, panel, "plumber")[0]
    rect = panel.results.visualRect(panel.model.index(0, 0))
    qtbot.mouseClick(panel.results.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(panel.openDaily) as opened:
        qtbot.mouseDClick(
            panel.results.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center()
        )
    scope, day = opened.args
    assert (scope, day) == (hit.scope, hit.date)
    agent = None if scope == "global" else scope.removeprefix("agent:")
    assert hit.text in [e.text for e in session.vault.daily_note(day, agent).entries]

    panel.in_combo.setCurrentIndex(panel.in_combo.findData("summaries"))
    hit = settle(qtbot, panel)[0]
    with qtbot.waitSignal(panel.openEntity) as opened:
        panel.open_index(panel.model.index(0, 0))
    assert opened.args == [hit.entity]


def test_a_slow_old_query_never_overwrites_a_newer_one(
    qtbot: QtBot,
    session: session_module.Session,
    panel: search_panel.SearchPanel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_bm25(qtbot, session)
    real_search = session.engine.search
    slow_started = threading.Event()

    def search_slowly_for_plumber(query: str, **kwargs: Any) -> search_engine.SearchResult:
        if query == "plumber":
            slow_started.set()
            time.sleep(0.8)  # the old query is still running when the new one is typed
        return real_search(query, **kwargs)

    monkeypatch.setattr(session.engine, "search", search_slowly_for_plumber)
    shown: list[list[str]] = []
    panel.model.modelReset.connect(lambda: shown.append([r.hit.text for r in panel.model.rows()]))

    panel.query_edit.setText("plumber")
    panel.search_now()
    assert slow_started.wait(5)
    panel.query_edit.setText("roof")
    panel.search_now()
    qtbot.waitUntil(panel.idle, timeout=5_000)
    assert session.wait()  # the plumber search has come back too, and was dropped
    qtbot.wait(50)

    final = [row.hit.text for row in panel.model.rows()]
    assert final and all("roof" in text.lower() for text in final[:5])
    assert all(all("plumber" not in t.lower() for t in texts) for texts in shown)
    assert panel.query_edit.text() == "roof" and panel.idle()


def test_the_panel_waits_for_the_index_then_fills(
    qtbot: QtBot, session: session_module.Session, panel: search_panel.SearchPanel
) -> None:
    assert session.engine is None
    qtbot.keyClicks(panel.query_edit, "plumber")
    qtbot.wait(search_panel.DEBOUNCE_MS + 100)
    assert panel.model.rowCount() == 0
    assert panel.status_label.text().startswith("Preparing the search index")
    assert panel.progress.isVisible()
    session.searchProgress.emit(120, 651, "embedding")  # what the session reports meanwhile
    assert "120/651" in panel.status_label.text() and panel.progress.value() == 120

    session.open_search(semantic=False)
    qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=30_000)
    assert not panel.progress.isVisible()
    assert any("plumber" in row.text.lower() for row in panel.model.rows())


def test_focus_query_and_keyboard_round_trip(
    qtbot: QtBot, session: session_module.Session, panel: search_panel.SearchPanel
) -> None:
    open_bm25(qtbot, session)
    search(qtbot, panel, "roof")
    panel.results.setFocus()
    panel.focus_query()
    qtbot.waitUntil(panel.query_edit.hasFocus)
    assert panel.query_edit.selectedText() == "roof"
    qtbot.keyClick(panel.query_edit, QtCore.Qt.Key.Key_Down)
    qtbot.waitUntil(panel.results.hasFocus)
    qtbot.keyClick(panel.results, QtCore.Qt.Key.Key_Up)  # from the first hit back up
    qtbot.waitUntil(panel.query_edit.hasFocus)
    with qtbot.waitSignal(panel.openFact):  # Enter in the query opens the selected hit
        qtbot.keyClick(panel.query_edit, QtCore.Qt.Key.Key_Return)


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or not semantic.semantic_available()[0],
    reason="the semantic extra is not installed",
)
def test_hybrid_search_with_the_real_model_finds_by_meaning(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small vault (encoding the demo's 651 documents takes most of a minute here) and the
    # plain sentence-transformers backend: the ONNX one would first export the model into
    # this test's empty cache folder (about a minute too).
    small = vault.Vault.create(tmp_path / "v")
    small.create_entity("areas/people/marco-ruiz")
    small.add_fact("areas/people/marco-ruiz", "Marco Ruiz mends the leaking pipes.", "status")
    small.create_entity("areas/people/dr-patel")
    small.add_fact("areas/people/dr-patel", "Dr. Patel checks Mia's teeth in March.", "status")
    small.create_entity("projects/lisbon-trip")
    small.add_fact("projects/lisbon-trip", "Alex booked the morning flight.", "milestone")
    load = functools.partial(semantic.load_encoder, backend="torch")
    model_may_load = threading.Event()  # the test decides when the model arrives

    def held_back_load(*args: Any, **kwargs: Any) -> Any:
        assert model_may_load.wait(60)
        return load(*args, **kwargs)

    monkeypatch.setattr(semantic, "load_encoder", held_back_load)
    session = session_module.Session(small)
    panel = search_panel.SearchPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    try:
        session.open_search(semantic=True)
        qtbot.waitUntil(lambda: session.engine is not None, timeout=30_000)
        # BM25 answers at once; hybrid waits for the model (loaded for seconds meanwhile).
        assert panel.mode() == "bm25" and panel.notice_label.isVisible()
        hits = search(qtbot, panel, "leaking")
        assert [h.entity for h in hits] == ["areas/people/marco-ruiz"]

        model_may_load.set()
        qtbot.waitUntil(lambda: panel.mode() == "hybrid", timeout=120_000)
        assert not panel.notice_label.isVisible()
        hits = search(qtbot, panel, "who repairs a plumbing problem")
        assert panel.status_label.text().split(" · ")[-1] == "Hybrid"
        assert hits[0].entity == "areas/people/marco-ruiz"  # no word in common: by meaning
    finally:
        model_may_load.set()
        session.close()
