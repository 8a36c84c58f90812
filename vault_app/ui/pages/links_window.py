"""Links and time in the window: the link index it keeps, the graph page and the commands
that reach them (Go › Graph view, View › As of…, View › Entity history).

`install(window)` is called once by the main window after its commands exist: it makes
the window's `link_keeper.LinkKeeper` (built off-thread after the first scan, rebuilt on
Rescan), gives it to the entity page (its links column), adds the `graph_view.GraphView`
page and the commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vault_app.ui import menus
from vault_app.ui.pages import graph_view
from vault_app.ui.window import link_keeper

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow


def install(window: MainWindow) -> None:
    keeper = link_keeper.LinkKeeper(window.session, window)
    window.link_keeper = keeper
    window.entity_view.lineage.set_link_keeper(keeper)
    graph = graph_view.GraphView(keeper)
    graph.openEntity.connect(window.open_entity)
    window.graph_view = graph
    window.pages.addWidget(graph)

    c = window.commands
    c.declare(COMMANDS)
    details = c["fact_details"]
    details.setCheckable(True)
    details.setChecked(window.entity_view.lineage.wanted)
    page, as_of = window.entity_view, c["as_of"]
    as_of.setEnabled(False)
    history = c["entity_history"]
    history.setEnabled(False)

    def loaded(_address: str) -> None:
        as_of.setEnabled(page.address is not None)
        history.setEnabled(page.address is not None)

    page.loaded.connect(loaded)
    page.historyRequested.connect(lambda address: _show_history(window, address))
    c["rescan"].triggered.connect(keeper.rebuild)


def show_graph(window: MainWindow) -> None:
    """The graph of the entity shown (or last shown); the whole vault without one."""
    graph = window.graph_view
    graph.show_entity(window.entity_view.address)
    window.pages.setCurrentWidget(graph)
    graph.canvas.setFocus()


def show_as_of(window: MainWindow) -> None:
    """The entity open (or last open) as of a past day, on its page."""
    page = window.entity_view
    if page.address is not None:
        window.pages.setCurrentWidget(page)
        page.show_as_of()


def show_history(window: MainWindow) -> None:
    """Every change to the entity open (or last open), by anyone, on the Activity page."""
    address = window.entity_view.address
    if address is not None:
        _show_history(window, address)


def _show_history(window: MainWindow, address: str) -> None:
    window.show_activity()
    window.activity.show_about(address)


def toggle_details(window: MainWindow) -> None:
    """View › Fact details: the entity page's bottom panel (history, related, links)
    shown whenever a fact is selected, or never."""
    window.entity_view.lineage.set_wanted(window.commands["fact_details"].isChecked())


COMMANDS = (
    menus.Command(
        "fact_details",
        "Fact &details",
        "View",
        toggle_details,
        "Ctrl+J",
        "The selected fact's history, related entities and links, under the facts",
    ),
    menus.Command(
        "graph",
        "Grap&h view",
        "Go",
        show_graph,
        "Ctrl+Shift+G",
        "The entity's links as a graph: its neighbourhood, or the whole of a small vault",
    ),
    menus.Command(
        "as_of",
        "&As of…",
        "View",
        show_as_of,
        "Ctrl+Shift+T",  # T for time
        "The entity as it was believed on a past day (read-only)",
    ),
    menus.Command(
        "entity_history",
        "Entity histor&y",
        "View",
        show_history,
        "Ctrl+Shift+H",
        "Every change to the entity, by anyone, on the Activity page",
    ),
)
