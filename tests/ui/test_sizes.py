"""Readable at any size (issue 16): at 1280×720 the search dock fits inside the window,
the settings dialog, the dashboard's chart and a fact's history are not clipped; the
facts table wraps, tells cut text in a tooltip, hides optional columns (kept); the
sidebar's count columns collapse (kept)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import open_window, select_active_fact, show_entity

from vault_app.ui import app
from vault_app.ui import models as qt_models
from vault_app.ui.dialogs import settings
from vault_app.ui.widgets import sidebar_view

F = qt_models.FactsModel


@pytest.fixture
def window(qtbot: QtBot, root: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = open_window(qtbot, root, store)
    yield main
    main.session.wait()


def settle(qtbot: QtBot, window: app.MainWindow) -> None:
    window.session.wait()
    qtbot.waitUntil(lambda: not window.facts_table._timer.isActive())
    QtWidgets.QApplication.processEvents()


@pytest.mark.parametrize("page", ["entity", "dashboard", "principles", "review"])
def test_the_search_dock_fits_inside_the_window(
    qtbot: QtBot, window: app.MainWindow, page: str
) -> None:
    if page == "entity":
        show_entity(qtbot, window)
    else:
        getattr(window, f"show_{page}")()
    window.show_search()
    settle(qtbot, window)
    assert window.size() == QtCore.QSize(1280, 720)
    dock = window.search_dock.geometry()
    assert window.rect().contains(dock) and dock.width() >= window.search.minimumSizeHint().width()
    assert not window.pages_scroll.horizontalScrollBar().isVisible()  # the page fits too
    if page == "entity":  # the other columns gave way: the fact keeps its share
        table = window.entity_view.table
        assert table.columnWidth(F.FACT) >= 0.4 * table.viewport().width()
    window.search_dock.hide()
    settle(qtbot, window)
    assert window.width() == 1280


def test_the_settings_dialog_fits_a_720_px_window(qtbot: QtBot, window: app.MainWindow) -> None:
    dialog = settings.SettingsDialog(window.session, window.store, window)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.frameGeometry().height() <= 720
    page = dialog.tabs.widget(0)
    assert isinstance(page, QtWidgets.QScrollArea)  # what does not fit scrolls
    assert page.widget().height() >= page.widget().minimumSizeHint().height()
    dialog.reject()


def test_the_dashboard_chart_shows_every_row(qtbot: QtBot, window: app.MainWindow) -> None:
    window.show_dashboard()
    settle(qtbot, window)
    chart = window.dashboard.chart
    qtbot.waitUntil(lambda: len(chart.rows) > 1)
    settle(qtbot, window)
    assert chart.height() >= chart.sizeHint().height()  # whole rows, the page scrolls


def test_a_facts_history_shows_three_rows(qtbot: QtBot, window: app.MainWindow) -> None:
    show_entity(qtbot, window)
    select_active_fact(window)
    settle(qtbot, window)
    history = window.entity_view.history_list
    row = max(history.sizeHintForRow(0), history.fontMetrics().height() + 8)
    assert history.viewport().height() >= 3 * row


def test_the_fact_column_stretches_and_wraps_and_cut_text_has_a_tooltip(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    show_entity(qtbot, window)
    settle(qtbot, window)
    table = window.entity_view.table
    widths = [
        table.columnWidth(c) for c in range(F.COLUMNS.__len__()) if not table.isColumnHidden(c)
    ]
    assert table.columnWidth(F.FACT) == max(widths)  # the fact has the room
    assert table.columnWidth(F.FACT) > table.viewport().width() // 3
    long_rows = [
        r
        for r in range(window.entity_view.proxy.rowCount())
        if table.fontMetrics().horizontalAdvance(
            str(window.entity_view.proxy.index(r, F.FACT).data())
        )
        > table.columnWidth(F.FACT)
    ]
    assert long_rows, "the demo entity has facts longer than a line"
    assert table.rowHeight(long_rows[0]) > table.verticalHeader().defaultSectionSize()  # wrapped
    dressing = window.facts_table
    index = window.entity_view.proxy.index(long_rows[0], F.FACT)
    assert dressing.cut_text(index) is None  # wrapped whole: no tooltip needed
    table.verticalHeader().resizeSection(long_rows[0], table.verticalHeader().defaultSectionSize())
    assert dressing.cut_text(index) == index.data()  # one line of a longer fact: cut, tooltip
    table.setColumnWidth(F.AGENT, 30)  # a column too narrow for its text
    agent = window.entity_view.proxy.index(0, F.AGENT)
    assert dressing.cut_text(agent) == agent.data()


def test_optional_columns_hide_from_the_header_menu_and_stay_hidden(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, window: app.MainWindow
) -> None:
    table = window.entity_view.table
    assert table.isColumnHidden(F.ACCESSES) and table.isColumnHidden(F.STATUS)  # at first
    menu = window.facts_table.header_menu()
    titles = [a.text() for a in menu.actions() if a.isCheckable()]
    assert "Fact" not in titles and "Confidence" in titles
    next(a for a in menu.actions() if a.text() == "Agent").toggle()
    next(a for a in menu.actions() if a.text() == "Confidence").toggle()
    assert table.isColumnHidden(F.AGENT) and not table.isColumnHidden(F.CONFIDENCE)
    window.close()
    again = open_window(qtbot, root, store)
    assert again.entity_view.table.isColumnHidden(F.AGENT)
    assert not again.entity_view.table.isColumnHidden(F.CONFIDENCE)
    assert again.facts_table.hidden_titles() == ["Accesses", "Agent", "Status"]
    again.session.wait()


def test_the_sidebar_counts_collapse_and_stay_so(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, window: app.MainWindow
) -> None:
    from vault_app.ui.widgets import context_menus

    wide = window.sidebar.minimumWidth()
    toggle = context_menus.counts_menu(window).actions()[0]
    assert toggle.isChecked()
    toggle.toggle()
    assert all(window.sidebar.isColumnHidden(c) for c in range(1, 5))
    assert window.sidebar.minimumWidth() < wide
    assert not window.commands["sidebar_counts"].isChecked()
    assert store.value(sidebar_view.SHOW_COUNTS_KEY, type=bool) is False
    window.close()
    again = open_window(qtbot, root, store)
    assert not again.sidebar.counts_shown()
    assert not again.commands["sidebar_counts"].isChecked()  # View › Sidebar counts agrees
    again.commands["sidebar_counts"].trigger()
    assert again.sidebar.counts_shown()
    again.sidebar.set_counts_shown(True)
    assert not again.sidebar.isColumnHidden(1)
    again.session.wait()


def test_rows_are_sized_only_in_view(qtbot: QtBot, window: app.MainWindow) -> None:
    show_entity(qtbot, window, "areas/household-budget")
    settle(qtbot, window)
    rows = window.entity_view.proxy.rowCount()
    looked = window.facts_table.fit_visible()
    assert 0 < looked < rows  # the rest keep the default height until scrolled to


def test_only_a_page_that_does_not_fit_scrolls(qtbot: QtBot, window: app.MainWindow) -> None:
    window.show_dashboard()  # tall at 720 px: it scrolls, its chart whole
    qtbot.waitUntil(lambda: len(window.dashboard.chart.rows) > 1)
    settle(qtbot, window)
    bar = window.pages_scroll.verticalScrollBar()
    assert window.dashboard.chart.height() >= window.dashboard.chart.sizeHint().height()
    for show in (window.show_review, window.show_activity, window.show_principles):
        show()
        settle(qtbot, window)
        assert not bar.isVisible(), show.__name__  # the dashboard's height is not theirs


def test_a_flow_wraps_its_widgets_instead_of_widening(qtbot: QtBot) -> None:
    from vault_app.ui.widgets import flow_layout

    host = QtWidgets.QWidget()
    qtbot.addWidget(host)
    flow = flow_layout.FlowLayout(host, spacing=4)
    buttons = [QtWidgets.QPushButton(f"Button number {n}") for n in range(4)]
    for button in buttons:
        flow.add(button)
    one_row = flow.heightForWidth(10_000)
    widest = max(b.sizeHint().width() for b in buttons)
    assert flow.minimumSize().width() == widest  # never wider than its widest widget
    host.resize(widest + 10, flow.heightForWidth(widest + 10))
    host.show()
    assert flow.heightForWidth(widest + 10) >= 4 * buttons[0].sizeHint().height() > one_row
    assert len({b.geometry().top() for b in buttons}) == 4  # one per row
    assert all(host.rect().contains(b.geometry()) for b in buttons)


def test_a_first_window_fits_the_screen_it_opens_on(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    """First run (no saved geometry): the window fits the screen's available area with its
    frame, whatever that screen is (1280×800 asked for; the test screen is smaller)."""
    from vault_app.core import vault
    from vault_app.ui.window import window_vaults

    main = app.MainWindow(vault.Vault(root, actor="gui"), store, search=False, live=False)
    qtbot.addWidget(main)
    room = main.screen().availableGeometry()
    wanted = QtCore.QSize(*window_vaults.FIRST_SIZE)
    assert main.width() <= room.width() - window_vaults.FRAME[0]
    assert main.height() <= room.height() - window_vaults.FRAME[1]
    fits = room.width() >= wanted.width() + 16 and room.height() >= wanted.height() + 48
    assert (main.size() == wanted) == fits  # the size asked for, when the screen has room
    main.session.close()


def test_the_bottom_panel_shows_when_a_fact_is_selected_and_folds_on_ctrl_j(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    """History, related and links take room only when there is a fact to show them for,
    and View › Fact details (Ctrl+J) folds them away (issue 30: ~5 rows of facts)."""
    show_entity(qtbot, window)
    page = window.entity_view
    assert not page.lineage.isVisible()  # nothing selected: the facts have the room
    room = page.table.height()
    select_active_fact(window)
    assert page.lineage.isVisible()
    qtbot.waitUntil(lambda: page.table.height() < room)
    shared = page.table.height()  # the panel takes its part
    details = window.commands["fact_details"]
    assert details.shortcut().toString() == "Ctrl+J" and details.isChecked()
    details.trigger()
    assert not page.lineage.isVisible() and not details.isChecked()
    qtbot.waitUntil(lambda: page.table.height() > shared)  # folded: the table has it back
    details.trigger()
    assert page.lineage.isVisible()
