"""An agent's page in the main window: its TACIT.md and CONTEXT.md, its memory blocks
(agent notes, user profile, key–value profile), its tiered MEMORY.md, its daily notes and
the context the builder would give it, as tabs. A document with unsaved edits says so on
its tab ("TACIT ●")."""

from __future__ import annotations

from PySide6 import QtWidgets

from vault_app.ui import session
from vault_app.ui.pages import context_view, daily, documents
from vault_app.ui.widgets import memory_blocks, tiers_editor


class AgentPage(QtWidgets.QWidget):
    """One agent: its TACIT.md and CONTEXT.md, memory blocks, tiers, daily notes and
    context preview, as tabs."""

    TABS = ("TACIT.md", "CONTEXT.md", "memory", "tiers", "daily", "context")

    def __init__(self, s: session.Session, agent: str, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.agent = agent
        title = QtWidgets.QLabel(f"<h2>Agent {agent}</h2>")
        self.tabs = QtWidgets.QTabWidget()
        self.tacit = documents.DocumentPane(s, documents.DocumentTarget.document("TACIT.md", agent))
        self.context_doc = documents.DocumentPane(
            s, documents.DocumentTarget.document("CONTEXT.md", agent)
        )
        self.memory = memory_blocks.MemoryBlocks(s, agent)
        self.tiers = tiers_editor.TiersEditor(s, agent)
        self.daily = daily.DailyView(s, agent)
        self.preview = context_view.ContextPreview(s, agent)
        for widget, label, tip in (
            (self.tacit, "TACIT", "What the agent learnt about how the household works"),
            (self.context_doc, "CONTEXT", "What the agent is working on now"),
            (
                self.memory,
                "Memory",
                "Agent notes and user profile with their budgets, and profile.json",
            ),
            (self.tiers, "Tiers", "The tiered MEMORY.md: long, mid and short term"),
            (self.daily, "Daily notes", ""),
            (self.preview, "Context preview", "What the context builder would give this agent"),
        ):
            index = self.tabs.addTab(widget, label)
            if tip:
                self.tabs.setTabToolTip(index, tip)
        for index, pane in enumerate((self.tacit, self.context_doc)):
            pane.dirtyChanged.connect(lambda dirty, i=index: self._mark_unsaved(i, dirty))
        column = QtWidgets.QVBoxLayout(self)
        column.setContentsMargins(12, 8, 12, 8)
        column.addWidget(title)
        column.addWidget(self.tabs, 1)

    UNSAVED = " ●"

    def _mark_unsaved(self, index: int, dirty: bool) -> None:
        name = self.tabs.tabText(index).removesuffix(self.UNSAVED)
        self.tabs.setTabText(index, name + self.UNSAVED if dirty else name)
        tips = ("What the agent learnt about how the household works",
                "What the agent is working on now")  # fmt: skip
        self.tabs.setTabToolTip(index, tips[index] + (" — unsaved changes" if dirty else ""))

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(self.TABS.index(name) if name in self.TABS else 0)

    def dirty(self) -> bool:
        return (
            self.tacit.is_dirty()
            or self.context_doc.is_dirty()
            or self.memory.is_dirty()
            or self.tiers.is_dirty()
        )
