"""The decay dashboard: tier chart, facts going cold within a week, synthesis with preview."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from outlook_vaults import JANE, demo_vault, small_vault
from PySide6 import QtCore, QtGui
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from vault_app.core import config, outlook
from vault_app.core import vault as vault_module
from vault_app.ui import session, themes
from vault_app.ui.dialogs import synthesis_preview
from vault_app.ui.pages import dashboard
from vault_app.ui.widgets import going_cold


@pytest.fixture
def small(tmp_path: Path) -> vault_module.Vault:
    return small_vault(tmp_path / "v")


@pytest.fixture
def live(qtbot: QtBot, small: vault_module.Vault) -> Iterator[session.Session]:
    s = session.Session(small)
    yield s
    s.close()


@pytest.fixture
def demo_session(qtbot: QtBot, tmp_path: Path) -> Iterator[session.Session]:
    s = session.Session(demo_vault(tmp_path / "demo"))
    yield s
    s.close()


def shown(qtbot: QtBot, s: session.Session) -> dashboard.DecayDashboard:
    """A dashboard on screen, after a scan and the going-cold search that follows it."""
    board = dashboard.DecayDashboard(s)
    qtbot.addWidget(board)
    board.resize(1000, 760)
    board.show()
    s.rescan()
    qtbot.waitUntil(lambda: board.cold_report is not None, timeout=30_000)
    return board


# -- the chart ---------------------------------------------------------------------------------


def test_chart_shows_the_scan_with_tooltips_and_tier_colours(
    qtbot: QtBot, demo_session: session.Session
) -> None:
    board = shown(qtbot, demo_session)
    assert demo_session.scan is not None
    assert board.chart.rows == outlook.tier_rows(demo_session.scan)
    image = board.chart.grab().toImage()
    segments = board.chart._layout()
    hot = next(rect for rect, row, tier in segments if row.scope == "global" and tier == "hot")
    probe = QtCore.QPoint(int(hot.left()) + 3, int(hot.center().y()))
    assert image.pixelColor(probe) == themes.tier_colour("hot")
    global_row = board.chart.rows[0]
    tip = board.chart.tooltip_at(hot.center())
    assert tip is not None
    assert "Global — Hot" in tip and f"{global_row.hot:,} facts" in tip
    assert board.chart.tooltip_at(QtCore.QPoint(1, 1)) is None
    assert "Global:" in board.chart.accessibleDescription()


def test_shares_fill_every_bar(qtbot: QtBot, demo_session: session.Session) -> None:
    board = shown(qtbot, demo_session)
    ends = lambda: {  # noqa: E731
        row.scope: round(rect.right()) for rect, row, _ in board.chart._layout()
    }
    assert len(set(ends().values())) > 1  # counts: the agents' bars are shorter
    board.shares.setChecked(True)
    assert len(set(ends().values())) == 1


def test_chart_follows_a_new_scan(qtbot: QtBot, live: session.Session) -> None:
    board = shown(qtbot, live)
    before = board.chart.rows[0].total
    live.vault.add_fact(JANE, "written by an agent meanwhile", "context")
    with qtbot.waitSignal(live.scanned):
        board.refresh()
    assert board.chart.rows[0].total == before + 1


# -- going cold --------------------------------------------------------------------------------


def test_the_table_lists_them_and_double_click_opens_one(
    qtbot: QtBot, live: session.Session
) -> None:
    board = shown(qtbot, live)
    table = board.cold_table
    model = board.cold_model
    assert model.rowCount() == 4
    texts = [model.index(r, model.FACT).data() for r in range(4)]
    assert texts[0] == "exactly 30 days"  # turns cold first: sorted by date
    assert model.index(0, model.TIER).data() == "Warm"
    assert model.index(0, model.DAYS).data() == "30"
    assert "4 active facts turn cold" in board.cold_status.text()
    table.sortByColumn(model.FACT, QtCore.Qt.SortOrder.AscendingOrder)
    assert [model.index(r, model.FACT).data() for r in range(4)] == sorted(texts, key=str.casefold)
    first = model.fact_at(0)
    rect = table.visualRect(model.index(0, model.FACT))
    qtbot.mouseClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(board.openFact) as opened:
        qtbot.mouseDClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args == [first.address, first.fact_id]
    table.setCurrentIndex(model.index(1, model.FACT))
    with qtbot.waitSignal(board.openFact) as opened:
        qtbot.keyClick(table, QtCore.Qt.Key.Key_Return)
    assert opened.args == [model.fact_at(1).address, model.fact_at(1).fact_id]


def test_the_going_cold_model_passes_the_model_tester(
    qtbot: QtBot, live: session.Session, qtmodeltester: ModelTester
) -> None:
    board = shown(qtbot, live)
    qtmodeltester.check(board.cold_model)
    board.cold_model.sort(board.cold_model.DAYS, QtCore.Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(board.cold_model)
    empty = going_cold.GoingColdModel()
    qtmodeltester.check(empty)


def test_a_hidden_dashboard_waits_until_it_is_shown(qtbot: QtBot, live: session.Session) -> None:
    board = dashboard.DecayDashboard(live)
    qtbot.addWidget(board)
    with qtbot.waitSignal(live.scanned):
        live.rescan()
    live.wait()
    assert board.cold_report is None  # nothing computed for a hidden view
    board.show()
    qtbot.waitUntil(lambda: board.cold_report is not None)
    assert board.cold_model.rowCount() == 4


# -- the schedule ------------------------------------------------------------------------------


def test_the_dashboard_shows_the_schedule(qtbot: QtBot, live: session.Session) -> None:
    board = shown(qtbot, live)
    assert "Next scheduled synthesis: Sunday 19 July at 00:00 (in 4 days)" in board.schedule.text()
    assert board.schedule.text().endswith("; every Sunday at 00:00, set in Settings.")
    live.vault.config.synthesis = config.SynthesisSettings(weekday="thursday", time="09:00")
    board.update_schedule()
    assert "Thursday 16 July at 09:00 (tomorrow)" in board.schedule.text()


# -- synthesis ---------------------------------------------------------------------------------

ROSA = "areas/people/rosa-mendes"
THEO = "areas/people/theo"


def summary_bytes(s: session.Session, address: str) -> bytes:
    return (s.vault.paths.entity_dir(s.vault.entity(address).ref) / "summary.md").read_bytes()


def audit_lines(s: session.Session) -> int:
    return len((s.vault.paths.state_dir / "audit.jsonl").read_bytes().splitlines())


def test_synthesis_shows_a_diff_and_writes_only_what_is_applied(
    qtbot: QtBot, demo_session: session.Session
) -> None:
    s = demo_session
    s.vault.add_fact(ROSA, "Rosa prefers to come on Tuesdays", "preference")
    s.vault.add_fact(THEO, "Theo started piano lessons", "milestone")
    rosa, theo = summary_bytes(s, ROSA), summary_bytes(s, THEO)
    board = shown(qtbot, s)
    writes = audit_lines(s)

    qtbot.mouseClick(board.synthesize_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: board.preview_dialog is not None, timeout=30_000)
    dialog = board.preview_dialog
    assert dialog is not None
    assert [item.data(0, dialog.ADDRESS_ROLE) for item in dialog.items()] == [ROSA, THEO]
    dialog.list.setCurrentItem(dialog.items()[0])
    diff = dialog.diff_view.toPlainText()
    assert "+- Rosa prefers to come on Tuesdays _(preference)_" in diff
    added = [
        sel
        for sel in dialog.diff_view.extraSelections()
        if sel.cursor.block().text().startswith("+-")
    ]
    assert added and added[0].format.foreground().color() == dialog.diff_view.line_colours()["+"][0]
    assert summary_bytes(s, ROSA) == rosa and summary_bytes(s, THEO) == theo
    assert audit_lines(s) == writes  # the preview wrote nothing at all

    dialog.items()[1].setCheckState(0, QtCore.Qt.CheckState.Unchecked)
    assert dialog.apply_button.text() == "&Apply 1 change"
    qtbot.mouseClick(dialog.apply_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Rewrote 1 summary" in board.synthesis_status.text())
    assert "Rosa prefers to come on Tuesdays" in summary_bytes(s, ROSA).decode()
    assert summary_bytes(s, THEO) == theo  # unticked: left as it was

    s.undo_stack.undo()
    s.wait()
    assert summary_bytes(s, ROSA) == rosa


def test_cancelling_the_preview_writes_nothing(qtbot: QtBot, demo_session: session.Session) -> None:
    s = demo_session
    s.vault.add_fact(ROSA, "Rosa prefers to come on Tuesdays", "preference")
    rosa = summary_bytes(s, ROSA)
    board = shown(qtbot, s)
    writes = audit_lines(s)
    board.synthesize_now()
    qtbot.waitUntil(lambda: board.preview_dialog is not None, timeout=30_000)
    assert board.preview_dialog is not None
    board.preview_dialog.reject()
    s.wait()
    assert board.preview_dialog is None
    assert summary_bytes(s, ROSA) == rosa and audit_lines(s) == writes


def test_nothing_to_synthesize_says_so(qtbot: QtBot, demo_session: session.Session) -> None:
    board = shown(qtbot, demo_session)
    board.synthesize_now()
    qtbot.waitUntil(lambda: board.synthesize_button.isEnabled(), timeout=30_000)
    assert board.preview_dialog is None
    assert "All 54 summaries are up to date" in board.synthesis_status.text()


def test_diff_colours_stay_readable_in_both_themes(qtbot: QtBot) -> None:
    view = synthesis_preview.DiffView()
    qtbot.addWidget(view)
    for name in ("light", "dark"):
        palette = themes.palette_for(name)
        view.setPalette(palette)
        base = palette.color(QtGui.QPalette.ColorRole.Base)
        for kind, (text, background) in view.line_colours().items():
            assert themes.contrast(text, background) >= 4.5, (name, kind)
            assert themes.is_dark(palette) == (background.lightnessF() < 0.5), (name, kind)
        assert themes.contrast(palette.color(QtGui.QPalette.ColorRole.Text), base) >= 7


def test_an_agents_bar_compares_with_the_agents(
    qtbot: QtBot, demo_session: session.Session
) -> None:
    """Global is scaled on its own and the agents on the largest agent, so an agent's bar
    is long enough to read and to hold its numbers (issue 30: slivers beside Global)."""
    board = shown(qtbot, demo_session)
    left, width, _top = board.chart._geometry()
    ends: dict[str, float] = {}
    for rect, row, _tier in board.chart._layout():
        ends[row.scope] = max(ends.get(row.scope, 0.0), rect.right())
    agents = {s: e - left for s, e in ends.items() if s.startswith("agent:")}
    assert agents and max(agents.values()) == pytest.approx(width)  # the largest: full
    assert abs(ends["global"] - left - width) < 1
    biggest = max(board.chart.rows, key=lambda r: r.total if r.scope != "global" else 0)
    for row in board.chart.rows:
        if row.scope.startswith("agent:") and row.total:
            assert agents[row.scope] == pytest.approx(width * row.total / biggest.total)
