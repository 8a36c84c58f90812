"""The search dock, explained (issue 16): score parts on demand, "no good matches", dates
in the query as a removable filter chip, Esc closing the dock.

Variants thought of: Explain scores shows the selected hit's parts exactly as the CLI's
`--explain` prints them (the same function), and follows the selection; a nonsense query
says no good matches and names the words the vault never mentions; "last week" and
"in <month>" become a date range (the one `search.temporal` gives the context builder)
shown as a chip, every daily hit inside it; removing the chip searches the words as
typed; a query that is only a date lists what was written then; Esc in the query box or
the results asks to close, and the window hides the dock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.search import results, temporal
from vault_app.ui import app
from vault_app.ui import session as session_module
from vault_app.ui.pages import search_panel


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "v"
    demo.create_demo(root)
    return root


@pytest.fixture
def panel(qtbot: QtBot, demo_root: Path) -> Iterator[search_panel.SearchPanel]:
    s = session_module.Session(vault.Vault(demo_root))
    s.rescan()
    with qtbot.waitSignal(s.searchReady, timeout=30_000):
        s.open_search(semantic=False)
    widget = search_panel.SearchPanel(s)
    qtbot.addWidget(widget)
    widget.resize(420, 700)
    widget.show()
    yield widget
    s.close()


def search(qtbot: QtBot, panel: search_panel.SearchPanel, text: str) -> list[Any]:
    panel.query_edit.setText(text)
    panel.search_now()
    qtbot.waitUntil(panel.idle, timeout=10_000)
    return [row.hit for row in panel.model.rows()]


def test_explain_shows_the_score_parts_as_the_cli_does(
    qtbot: QtBot, panel: search_panel.SearchPanel
) -> None:
    search(qtbot, panel, "plumber leak")
    assert not panel.details.isVisible()
    panel.explain_button.click()
    qtbot.waitUntil(panel.idle, timeout=10_000)
    assert panel.details.isVisible()
    hit = panel.results.currentIndex().data(search_panel.search_results.HIT_ROLE)
    assert {"bm25", "bm25Rank", "coverage"} <= set(hit.parts)
    assert panel.details.text() == f"score {hit.score:.3f} — {results.explain_text(hit.parts)}"
    second = panel.model.index(1, 0)
    panel.results.setCurrentIndex(second)
    other = second.data(search_panel.search_results.HIT_ROLE)
    assert results.explain_text(other.parts) in panel.details.text()


def test_a_nonsense_query_says_no_good_matches(
    qtbot: QtBot, panel: search_panel.SearchPanel
) -> None:
    assert search(qtbot, panel, "zzqxv blorf") == []
    status = panel.status_label.text()
    assert status.startswith("No good matches.")
    assert "never mentions “zzqxv”, “blorf”" in status


def test_dates_in_the_query_become_a_removable_filter(
    qtbot: QtBot, panel: search_panel.SearchPanel
) -> None:
    today = panel.session.vault.now().date()
    expected = temporal.date_range("last week", today)
    assert expected is not None
    hits = search(qtbot, panel, "plumber last week")
    assert panel.period == expected
    assert panel.date_chip.isVisible() and panel.date_chip.text().startswith("Written ")
    assert f"{expected[0].day} {expected[0]:%b %Y}" in panel.date_chip.text()
    for hit in hits:
        if hit.date is not None:
            assert expected[0] <= hit.date <= expected[1]
    panel.date_chip.click()
    qtbot.waitUntil(panel.idle, timeout=10_000)
    assert panel.period is None and not panel.date_chip.isVisible()
    panel.query_edit.setText("plumber in March")  # a new query reads its dates again
    panel.search_now()
    qtbot.waitUntil(panel.idle, timeout=10_000)
    assert panel.period is not None and panel.period[0].month == 3


def test_a_query_that_is_only_a_date_lists_what_was_written_then(
    qtbot: QtBot, panel: search_panel.SearchPanel
) -> None:
    hits = search(qtbot, panel, "yesterday")
    yesterday = panel.session.vault.now().date() - dt.timedelta(days=1)
    assert panel.period == (yesterday, yesterday)
    assert hits and all(h.date in (None, yesterday) for h in hits)


def test_esc_asks_to_close_and_the_window_hides_the_dock(
    qtbot: QtBot, demo_root: Path, store: QtCore.QSettings
) -> None:
    window = app.MainWindow(vault.Vault(demo_root), store, search=False, live=False)
    qtbot.addWidget(window)
    window.show()
    window.show_search()
    assert window.search_dock.isVisible()
    with qtbot.waitSignal(window.search.closeRequested):
        qtbot.keyClick(window.search.query_edit, QtCore.Qt.Key.Key_Escape)
    assert not window.search_dock.isVisible()
    window.session.wait()
