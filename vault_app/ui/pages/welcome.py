"""The page shown when nothing is selected: loading, a first-run vault, or how to begin.

While the vault is read it says so. Once scanned, an empty vault (no entity, no agent)
offers what to do first — Create entity, Create agent, Open the demo vault — as buttons
that emit `createEntity`, `createAgent`, `openDemo` (the window acts); a vault with
content says how to find things (the sidebar, Ctrl+P, Ctrl+Shift+F). A group of the
sidebar selected (Global, Areas, People, an agent's Workspace…) shows that group's
overview (`show_group`): its counts and what it holds, each entity a link that opens it
(`openEntity`).
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from vault_app.core import vault

Qt = QtCore.Qt


def is_empty(scan: vault.VaultScan) -> bool:
    """A vault with nothing in it yet: no entity and no agent."""
    return not scan.entities and not scan.agents and not scan.problems


Counts = tuple[int, int, int, int]  # active, hot, warm, cold
GROUP_LIMIT = 60  # the most entries a group's overview lists


class WelcomePage(QtWidgets.QWidget):
    openEntity = QtCore.Signal(str)  # an entity of a group's overview
    createEntity = QtCore.Signal()
    createAgent = QtCore.Signal()
    openDemo = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePage")
        self.label = QtWidgets.QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.label.linkActivated.connect(self.openEntity.emit)
        self.entity_button = QtWidgets.QPushButton("Create e&ntity…")
        self.entity_button.setToolTip("A person, project or topic the agents remember facts about")
        self.entity_button.clicked.connect(self.createEntity)
        self.agent_button = QtWidgets.QPushButton("Create &agent…")
        self.agent_button.setToolTip("An agent's folder: its PARA workspace, TACIT.md, CONTEXT.md")
        self.agent_button.clicked.connect(self.createAgent)
        self.demo_button = QtWidgets.QPushButton("Open the &demo vault")
        self.demo_button.setToolTip("A household with 7 agents, 54 entities and 520 facts")
        self.demo_button.clicked.connect(self.openDemo)
        self.buttons = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(self.buttons)
        row.addStretch(1)
        for button in (self.entity_button, self.agent_button, self.demo_button):
            row.addWidget(button)
        row.addStretch(1)
        box = QtWidgets.QVBoxLayout(self)
        box.addStretch(1)
        box.addWidget(self.label)
        box.addWidget(self.buttons)
        box.addStretch(2)
        self.loading()

    def text(self) -> str:
        return self.label.text()

    def loading(self) -> None:
        self.label.setText("<h2>Loading the vault…</h2><p>Reading its entities and agents.</p>")
        self.buttons.hide()

    def show_scan(self, scan: vault.VaultScan) -> None:
        """The empty state for an empty vault, else how to find things."""
        empty = is_empty(scan)
        self.buttons.setVisible(empty)
        if empty:
            self.label.setText(
                "<h2>This vault is empty</h2><p>Agents remember facts about <b>entities</b> "
                "(people, projects, topics). Create one, create an agent with its own "
                "workspace, or look around the demo household first.</p>"
            )
        else:
            self.label.setText(
                "<h2>Select an entity</h2><p>Browse the tree on the left, press "
                "<b>Ctrl+P</b> to jump anywhere, or <b>Ctrl+Shift+F</b> to search.</p>"
            )

    def show_group(
        self, title: str, counts: Counts | None, children: list[tuple[str, str | None]]
    ) -> None:
        """A group's overview: its counts, and its entries (`(name, address)`; an entity's
        address makes it a link; a sub-group has none)."""
        self.buttons.hide()
        parts = [f"<h2>{html.escape(title)}</h2>"]
        if counts is not None:
            active, hot, warm, cold = counts
            parts.append(
                f"<p>{active:,} active fact{'s' if active != 1 else ''}: {hot:,} hot, "
                f"{warm:,} warm, {cold:,} cold</p>"
            )
        shown = [
            f'<a href="{html.escape(address)}">{html.escape(name)}</a>'
            if address
            else html.escape(name)
            for name, address in children[:GROUP_LIMIT]
        ]
        more = len(children) - len(shown)
        if shown:
            parts.append(
                "<p>" + " · ".join(shown) + (f" · and {more} more" if more else "") + "</p>"
            )
        parts.append(
            "<p>Open one, or type part of a title in the sidebar's filter "
            "(<b>Ctrl+Shift+B</b>).</p>"
        )
        self.label.setText("".join(parts))
