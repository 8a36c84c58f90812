"""The window's states a person acts on: first run, an empty vault, unreadable files.

`install(window)` adds the commands (Edit › New agent…, Edit › Unarchive entity,
Ctrl+Shift+U, routed to the entity page), wires the welcome page's buttons (Create
entity, Create agent, Open the demo vault) and Esc in the search dock (closes it).

`first_scan(window, scan)` runs once the first scan is in: the welcome page shows the
empty state or how to find things, and the files that could not be read get one message
("1 file could not be read", with Open to go to the first), which the entity page takes
back when it shows that file's own banner (Restore from backup…, Show in folder): one
bar for one problem, not two.

Agents are created by `Vault.create_agent`, the function behind `vault-app agent create`;
the demo vault is `core.demo.create_demo`, made once in `~/vault-app-demo`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from vault_app.core import errors, layout, vault
from vault_app.ui import menus
from vault_app.ui.dialogs import new_items as dialogs
from vault_app.ui.models import activity
from vault_app.ui.pages import context_view
from vault_app.ui.session import unreadable

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow

PROBLEMS_KEY = "scan-problems"
DEMO_FOLDER = "vault-app-demo"


def install(window: MainWindow) -> None:
    window.commands.declare(COMMANDS)
    window.commands.take_keys(window.entity_view)
    page = window.welcome
    page.createEntity.connect(window.new_entity)
    page.createAgent.connect(lambda: new_agent(window))
    page.openDemo.connect(lambda: open_demo(window))
    window.entity_view.banner.shown.connect(lambda path: _page_took_problem(window, path))
    window.search.closeRequested.connect(lambda: _close_search(window))
    window.pages.widgetAdded.connect(lambda n: _wire_page(window, window.pages.widget(n)))


def _wire_page(window: MainWindow, page: QtWidgets.QWidget | None) -> None:
    """An agent's page (made when first shown): its context preview's lines open facts."""
    preview = getattr(page, "preview", None)
    if isinstance(preview, context_view.ContextPreview):
        preview.openFact.connect(window.open_fact)
        preview.openEntity.connect(window.open_entity)
        preview.openDaily.connect(window.open_daily)


def _close_search(window: MainWindow) -> None:
    """Esc in the search dock: hide it, and give the focus back to the page shown."""
    window.search_dock.hide()
    page = window.pages.currentWidget()
    if page is not None:
        page.setFocus()


def first_scan(window: MainWindow, scan: vault.VaultScan) -> None:
    """The welcome page's state and the message about unreadable files."""
    window.welcome.show_scan(scan)
    if not scan.problems:
        return
    first = scan.problems[0]
    address = activity.entity_of({"target": first.path})
    action = ("Open", lambda: window.open_entity(address)) if address else None
    window.message_bar.show_message(
        unreadable(len(scan.problems)),
        f"{first.path}: {first.message}\n\nThe rest of the vault is usable. Open the entity "
        "to restore the file from a backup (or run “vault-app doctor --repair”); the "
        "sidebar marks every unreadable file.",
        action,
        key=PROBLEMS_KEY,
    )


def _page_took_problem(window: MainWindow, path: str) -> None:
    """The entity page shows an unreadable file with its fixes: the window's summary of
    unreadable files is not shown beside it (one bar, not two)."""
    scan = window.session.scan
    if not path or scan is None:
        return
    relative = window.session.vault.paths.relative(Path(path))
    if any(problem.path == relative for problem in scan.problems):
        window.message_bar.dismiss_key(PROBLEMS_KEY)


def new_agent(window: MainWindow) -> dialogs.NewAgentDialog | None:
    known = window.session.known
    dialog = dialogs.NewAgentDialog(list(known.agents) if known else [], window)
    dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)

    def create() -> None:
        agent = dialog.agent()

        def shown(_scan: object) -> None:
            window.show_agent(agent, "TACIT.md")

        def created(_folder: object) -> None:
            window.session.rescan(shown)

        window.session.write(lambda v: v.create_agent(agent), created, window.session.report)

    dialog.accepted.connect(create)
    dialog.open()
    return dialog


def demo_folder() -> Path:
    return Path.home() / DEMO_FOLDER


def open_demo(window: MainWindow, folder: Path | None = None) -> None:
    """Open the demo vault, made first if it is not there yet."""
    from vault_app.core import demo

    path = folder or demo_folder()
    try:
        if not layout.is_vault(path):
            if path.exists() and any(path.iterdir()):
                raise errors.AlreadyExistsError(
                    f"{path} exists and is not a vault: move it away to open the demo there"
                )
            path.mkdir(parents=True, exist_ok=True)
            demo.create_demo(path)
    except (errors.VaultError, OSError) as exc:
        window.session.report(exc)
        return
    window.switch_vault(path)


COMMANDS = (
    menus.Command(
        "new_agent",
        "New a&gent…",
        "Edit",
        lambda w: new_agent(w),
        None,
        "Create an agent: its PARA workspace, daily notes, TACIT.md and CONTEXT.md",
    ),
    menus.Command(
        "unarchive",
        "Unar&chive entity",
        "Edit",
        None,  # routed to the entity page of an archived entity
        "Ctrl+Shift+U",
        "Move the archived entity back where it was archived from",
    ),
)
