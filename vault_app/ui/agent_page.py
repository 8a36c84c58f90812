"""An agent's page in the main window: its TACIT.md and CONTEXT.md, its daily notes and
the context the builder would give it, as tabs. A document with unsaved edits says so on
its tab ("TACIT ●")."""

from __future__ import annotations

from PySide6 import QtWidgets

from vault_app.ui import context_view, daily, documents, session


class AgentPage(QtWidgets.QWidget):
    """One agent: its TACIT.md and CONTEXT.md, daily notes and context preview, as tabs."""

    TABS = ("TACIT.md", "CONTEXT.md", "daily", "context")

    def __init__(self, s: session.Session, agent: str, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.agent = agent
        title = QtWidgets.QLabel(f"<h2>Agent {agent}</h2>")
        self.tabs = QtWidgets.QTabWidget()
        self.tacit = documents.DocumentPane(s, documents.DocumentTarget.document("TACIT.md", agent))
        self.context_doc = documents.DocumentPane(
            s, documents.DocumentTarget.document("CONTEXT.md", agent)
        )
        self.daily = daily.DailyView(s, agent)
        self.preview = context_view.ContextPreview(s, agent)
        self.tabs.addTab(self.tacit, "TACIT")
        self.tabs.setTabToolTip(0, "What the agent learnt about how the household works")
        self.tabs.addTab(self.context_doc, "CONTEXT")
        self.tabs.setTabToolTip(1, "What the agent is working on now")
        self.tabs.addTab(self.daily, "Daily notes")
        self.tabs.addTab(self.preview, "Context preview")
        self.tabs.setTabToolTip(3, "What the context builder would give this agent")
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
        return self.tacit.is_dirty() or self.context_doc.is_dirty()
