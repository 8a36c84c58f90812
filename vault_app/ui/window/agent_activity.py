"""What the agents did, wired into the window: the "changed since you last looked" marks,
the Revert command, and unsaved edits in the window's title.

`install(window)` runs once from `MainWindow.__init__`, after its commands exist:

* the window's `AgentMarks` (`agent_marks`): read after the first scan and after every
  write; the sidebar marks the entities agents changed since the person last opened
  them (`SidebarModel.set_marks`), the facts table the facts they wrote
  (`FactsModel.set_changed`); opening an entity (`EntityPage.loaded`, or its page shown
  again) clears its mark, leaving it ends the visit;
* Edit › Revert agent write (Ctrl+Alt+Z), routed to the Activity page's Revert action
  (enabled when a revertible write is selected there; `menus.Commands.add_view`);
* the title: "vault[*] — vault-app" shows "*" while any document has unsaved edits
  (`MainWindow._dirty_panes`), as the documents' tabs show "●".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtWidgets

from vault_app.ui import menus
from vault_app.ui.pages import agent_page, documents
from vault_app.ui.window import agent_marks

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow

REVERT_KEY = "Ctrl+Alt+Z"
COMMANDS = (
    menus.Command(
        "revert_write",
        "Re&vert agent write",
        "Edit",
        None,  # routed to the Activity page's Revert
        REVERT_KEY,
        "Take the agent write selected on the Activity page back (a supersede, undoable)",
    ),
)


def install(window: MainWindow) -> agent_marks.AgentMarks:
    marks = agent_marks.AgentMarks(window.session, window.store, window)

    def show() -> None:
        window.sidebar_model.set_marks(marks.entity_marks())
        view = window.entity_view
        view.model.set_changed(marks.fact_marks(view.address))

    marks.changed.connect(show)

    def page_shown(_index: int = 0) -> None:
        view = window.entity_view
        if window.pages.currentWidget() is view and view.address:
            marks.opened(view.address)  # opened, or back on it: a visit
        else:
            marks.left()  # a hidden entity page reloads too: that is no look

    window.entity_view.loaded.connect(lambda _address: page_shown())
    window.pages.currentChanged.connect(page_shown)
    first = [True]

    def scanned(_scan: object) -> None:
        if first[0]:  # after that, writes re-read the marks (`Session.entityChanged`)
            first[0] = False
            marks.refresh()

    window.session.scanned.connect(scanned)

    window.commands.declare(COMMANDS)
    window.commands.take_keys(window.activity)

    for pane in (window.principles, window.entity_view.summary):
        watch_unsaved(window, pane)
    window.pages.widgetAdded.connect(lambda n: _watch_page(window, window.pages.widget(n)))
    update_title(window)
    return marks


def _watch_page(window: MainWindow, page: QtWidgets.QWidget | None) -> None:
    if isinstance(page, agent_page.AgentPage):
        watch_unsaved(window, page.tacit)
        watch_unsaved(window, page.context_doc)


def watch_unsaved(window: MainWindow, pane: documents.DocumentPane) -> None:
    pane.dirtyChanged.connect(lambda _dirty: update_title(window))


def update_title(window: MainWindow) -> None:
    """The vault's name, with "*" while any document has unsaved edits."""
    window.setWindowTitle(f"{window.session.vault.root.name}[*] — vault-app")
    window.setWindowModified(bool(window._dirty_panes()))
