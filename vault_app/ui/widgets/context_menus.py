"""Right-click menus of the sidebar, the facts table and the search results.

Each menu offers the commands that make sense for the row under the mouse, mostly the
window's own actions (`menus.Commands`: the same text, key and enabled state as in the
menu bar), plus a few that only make sense on a row (Open, Copy). `install(window)` turns
them on; `menu_for(window, widget)` builds the menu for the widget's current row (what a
right click shows; tests read it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui.widgets import search_results

if TYPE_CHECKING:  # the engine (numpy, scipy) loads after the window is shown
    from vault_app.search import engine as search_engine
    from vault_app.ui.main_window import MainWindow


def install(window: MainWindow) -> None:
    """Right clicks on the sidebar, the facts table and the search results open a menu."""
    for widget in (window.sidebar, window.entity_view.table, window.search.results):
        widget.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        widget.customContextMenuRequested.connect(lambda pos, w=widget: _popup(window, w, pos))
    header = window.sidebar.header()
    header.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
    header.customContextMenuRequested.connect(
        lambda pos: counts_menu(window).popup(header.mapToGlobal(pos))
    )


def _popup(window: MainWindow, widget: QtWidgets.QAbstractItemView, pos: QtCore.QPoint) -> None:
    index = widget.indexAt(pos)
    if index.isValid():
        widget.setCurrentIndex(index)  # the row clicked is the one acted on
    menu = menu_for(window, widget)
    if not menu.isEmpty():
        menu.popup(widget.viewport().mapToGlobal(pos))


def menu_for(window: MainWindow, widget: QtWidgets.QWidget) -> QtWidgets.QMenu:
    """The context menu for `widget`'s current row."""
    menu = QtWidgets.QMenu(widget)
    if widget is window.sidebar:
        _sidebar(window, menu)
    elif widget is window.entity_view.table:
        _facts(window, menu)
    elif widget is window.search.results:
        _results(window, menu)
    return menu


def counts_menu(window: MainWindow) -> QtWidgets.QMenu:
    """The sidebar header's menu: show or hide the four count columns."""
    menu = QtWidgets.QMenu(window.sidebar)
    action = menu.addAction("Show counts")
    action.setCheckable(True)
    action.setChecked(window.sidebar.counts_shown())
    action.setToolTip("The Active, Hot, Warm and Cold columns")
    action.toggled.connect(window.sidebar.set_counts_shown)
    return menu


def _copy(menu: QtWidgets.QMenu, text: str, value: str) -> None:
    menu.addAction(text).triggered.connect(lambda: QtGui.QGuiApplication.clipboard().setText(value))


def _sidebar(window: MainWindow, menu: QtWidgets.QMenu) -> None:
    node = window.sidebar_model.node(window.sidebar.currentIndex())
    if node is not None and node.kind == "entity" and node.address:
        address = node.address
        menu.addAction("Open").triggered.connect(lambda: window.open_entity(address))
        add = menu.addAction("Add fact…")
        add.setShortcut(window.commands["add_fact"].shortcut())
        add.triggered.connect(lambda: _then_on_entity(window, address, "add_fact"))
        archive = menu.addAction("Archive entity…")
        archive.setShortcut(window.commands["archive"].shortcut())
        archive.setEnabled(not address.split(":")[-1].startswith("archives/"))
        archive.triggered.connect(lambda: _then_on_entity(window, address, "archive"))
        menu.addSeparator()
        _copy(menu, "Copy address", address)
    elif node is not None and node.agent and node.kind in ("agent", "workspace", "document"):
        agent = node.agent
        tab = node.document or ("context" if node.kind == "agent" else "")
        menu.addAction("Open").triggered.connect(lambda: window.show_agent(agent, tab))
        preview = menu.addAction("Context preview")
        preview.triggered.connect(lambda: window.show_agent(agent, "context"))
        menu.addAction("Daily notes").triggered.connect(lambda: window.show_agent(agent, "daily"))
    menu.addSeparator()
    menu.addAction(window.commands["new_entity"])
    counts = menu.addAction("Show counts")
    counts.setCheckable(True)
    counts.setChecked(window.sidebar.counts_shown())
    counts.toggled.connect(window.sidebar.set_counts_shown)


def _then_on_entity(window: MainWindow, address: str, command: str) -> None:
    """Open the entity, then run `command` on it once it is read."""
    view = window.entity_view

    def loaded(shown: str) -> None:
        if shown == address:
            window.commands.route(command)

    view.loaded.connect(loaded, QtCore.Qt.ConnectionType.SingleShotConnection)
    window.open_entity(address)


def _facts(window: MainWindow, menu: QtWidgets.QMenu) -> None:
    view = window.entity_view
    window.commands.refresh()  # their enabled state follows the row just clicked
    for name in ("edit_fact", "add_fact"):
        menu.addAction(window.commands[name])
    fact = view.selected_fact()
    if fact is not None:
        menu.addSeparator()
        _copy(menu, "Copy fact", fact.fact)
        _copy(menu, "Copy fact id", fact.id)
    menu.addSeparator()
    menu.addAction(window.commands["filter"])
    menu.addAction(window.commands["archive"])
    if window.facts_table is not None:
        columns = window.facts_table.header_menu()
        columns.setTitle("Columns")
        menu.addMenu(columns)


def _results(window: MainWindow, menu: QtWidgets.QMenu) -> None:
    index = window.search.results.currentIndex()
    if not index.isValid():
        return
    hit: search_engine.Hit = index.data(search_results.HIT_ROLE)
    menu.addAction("Open").triggered.connect(lambda: window.search.open_index(index))
    if hit.entity:
        entity = hit.entity
        menu.addAction("Open entity").triggered.connect(lambda: window.open_entity(entity))
        _copy(menu, "Copy entity address", entity)
    _copy(menu, "Copy text", hit.text)
