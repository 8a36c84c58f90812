"""Names waiting: the names the heartbeat met but made no entity of yet, each with the
facts that wait for it in the daily notes, and Keep now.

Design
------
The heartbeat makes an entity on a name's third mention (or at once when a note says who
the name is to the user); until then the facts that name it wait in the daily notes,
where no entity page shows them. `WaitingNamesDialog(session)` reads
`heartbeat.mentions.waiting_names` on a worker (`Session.run`) and shows one row per name
— the address it will have and how often it was met — with its facts as child rows, each
with the note it came from. Keep now writes the request to keep the selected name
(`mentions.ask_to_keep`, the one `vault-app heartbeat --keep` writes: "Keep track of
NAME." in the notes of whoever met it last, so the same access policy decides) and emits
`kept(name)`: the window then runs a heartbeat at once when it holds the vault's lease,
or says that the runner that holds it keeps the name at its next heartbeat. `reload()`
reads the list again (the window calls it after a heartbeat ran).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from vault_app.heartbeat import mentions
from vault_app.ui.session import Session, plural

Qt = QtCore.Qt
NAME_ROLE = Qt.ItemDataRole.UserRole


class WaitingNamesDialog(QtWidgets.QDialog):
    """The waiting names with their facts; Keep now for the selected one."""

    kept = QtCore.Signal(str)  # the name whose request was written

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.waiting: list[mentions.Waiting] | None = None  # as last read
        self.setWindowTitle("Names waiting for their entity")
        self.resize(900, 480)
        explain = QtWidgets.QLabel(
            f"The heartbeat makes an entity when a name comes up {mentions.CREATE_AT} times, "
            "or at once when a note says who someone is to you. Until then, the facts that "
            "name it wait in the daily notes. Keep now makes the entity and writes them."
        )
        explain.setWordWrap(True)
        self.status = QtWidgets.QLabel("Reading…")
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderLabels(["Name or fact", "Where", "Met"])
        self.tree.setAccessibleName("Names waiting and their facts")
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.keep_button = QtWidgets.QPushButton("&Keep now")
        self.keep_button.setToolTip("Make the selected name's entity now and write its facts")
        self.keep_button.setEnabled(False)
        self.keep_button.clicked.connect(self.keep_selected)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.keep_button, QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(explain)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.reload()

    def reload(self) -> None:
        """Read the waiting names again, on a worker."""
        root = self.session.vault.root
        self.session.run(lambda: mentions.waiting_names(root), self._show, on_error=self._failed)

    def _show(self, waiting: list[mentions.Waiting]) -> None:
        selected = self.selected_name()
        self.waiting = waiting
        self.tree.clear()
        for w in waiting:
            item = QtWidgets.QTreeWidgetItem(
                [w.name, w.address, f"{w.mentions} of {mentions.CREATE_AT}"]
            )
            item.setData(0, NAME_ROLE, w.name)
            item.setToolTip(0, plural(len(w.facts), "fact waits", "facts wait"))
            for c in w.facts:
                notes = f"{c.entry.agent}'s notes" if c.entry.agent else "notes"
                fact = QtWidgets.QTreeWidgetItem([c.fact, f"{notes} of {c.entry.date}", ""])
                fact.setData(0, NAME_ROLE, w.name)
                fact.setToolTip(0, c.fact)
                fact.setToolTip(1, c.entry.path)
                item.addChild(fact)
            self.tree.addTopLevelItem(item)
            item.setExpanded(True)
            if w.name == (selected or waiting[0].name):  # the first, when none was chosen
                self.tree.setCurrentItem(item)
        self.status.setText(
            "No name waits: every fact the heartbeat found has its entity."
            if not waiting
            else "1 name waits for its entity."
            if len(waiting) == 1
            else f"{len(waiting):,} names wait for their entities."
        )
        self._selection_changed()

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(f"Not done: {exc}")
        self._selection_changed()

    def selected_name(self) -> str | None:
        items = self.tree.selectedItems()
        return str(items[0].data(0, NAME_ROLE)) if items else None

    def _selection_changed(self) -> None:
        self.keep_button.setEnabled(self.selected_name() is not None)

    def keep_selected(self) -> None:
        """Write the request to keep the selected name, then say so (`kept`)."""
        name = self.selected_name()
        if name is None:
            return
        vault = self.session.vault
        self.keep_button.setEnabled(False)

        def done(found: mentions.Waiting) -> None:
            self.status.setText(f"Keeping {found.name}: the heartbeat makes {found.address}.")
            self.kept.emit(found.name)

        self.session.run(
            lambda: mentions.ask_to_keep(vault, name), done, on_error=self._failed, writer=True
        )
