"""The pages of a neighbour's folder: what each format holds, and the editor each opens in.

Every page reads and writes through the folder's `ForeignFolder` adapter (its locks,
backups and format), on the session's workers:

==========  =========================================  =====================================
page        files                                      editor
==========  =========================================  =====================================
notes       Hermes memories/MEMORY.md                  `memory_blocks.NotesBlock` (memory)
user        Hermes memories/USER.md                    `memory_blocks.NotesBlock` (user)
profile     PicoClaw memory/profile.json               `memory_blocks.ProfileTable`
memory      PicoClaw memory/MEMORY.md (free-form)      `TextPage` (read; PicoClaw edits it)
daily       PicoClaw memory/YYYYMM/YYYYMMDD.md,        `neighbour_daily.NeighbourDaily`
            MicroClaw groups/<chat>/memory/*.md
tiers       MicroClaw groups/<chat>/<persona>/MEMORY   `tiers_editor.TiersEditor`
principles  MicroClaw groups/AGENTS.md                 `TextPage` (agents only read it)
==========  =========================================  =====================================
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from vault_app.core.neighbours import detect
from vault_app.ui import session
from vault_app.ui.models import memory_store
from vault_app.ui.pages import documents, neighbour_daily
from vault_app.ui.widgets import memory_blocks, tiers_editor

# the pages of each agent of a format, in the sidebar's order; principles: the folder's
PAGES = {
    detect.HERMES: ("notes", "user"),
    detect.PICOCLAW: ("profile", "memory", "daily"),
    detect.MICROCLAW: ("tiers", "daily"),
}
FOLDER_PAGES = {detect.MICROCLAW: ("principles",)}
TITLES = {
    "notes": "Agent notes",
    "user": "User profile",
    "profile": "Profile",
    "memory": "Long-term memory",
    "daily": "Daily notes",
    "tiers": "Tiered memory",
    "principles": "Principles",
}
FILES = {
    (detect.HERMES, "notes"): "memories/MEMORY.md",
    (detect.HERMES, "user"): "memories/USER.md",
    (detect.PICOCLAW, "profile"): "memory/profile.json",
    (detect.PICOCLAW, "memory"): "memory/MEMORY.md",
    (detect.PICOCLAW, "daily"): "memory/YYYYMM/YYYYMMDD.md",
    (detect.MICROCLAW, "daily"): "groups/<chat>/memory/YYYY-MM-DD.md",
    (detect.MICROCLAW, "principles"): "groups/AGENTS.md",
}
# what the banner says each format is, and how vault-app writes it
FORMAT_WORDS = {
    detect.HERMES: "agent notes and user profile as § entries with Hermes' budgets; every "
    "write holds Hermes' .lock and a file that would not round-trip is kept in a .bak",
    detect.PICOCLAW: "a key–value profile.json, a free-form MEMORY.md and daily notes, "
    "written as PicoClaw writes them",
    detect.MICROCLAW: "principles, a tiered MEMORY.md per persona and each chat's daily log, "
    "written as MicroClaw writes them",
}


def agent_title(format: str, agent: str) -> str:
    """An agent as the sidebar names it (MicroClaw's `CHAT/PERSONA` in words)."""
    if format == detect.MICROCLAW and "/" in agent:
        chat, persona = agent.split("/", 1)
        return f"Chat {chat} · persona {persona}"
    return agent


class TextPage(QtWidgets.QWidget):
    """A markdown file of the folder shown as rendered text, read again when it changes."""

    loaded = QtCore.Signal()

    def __init__(
        self,
        s: session.FolderSession,
        path: Path,
        note: str,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session, self.path = s, path
        self.text: str | None = None
        hint = QtWidgets.QLabel(note)
        hint.setProperty("notice", True)
        hint.setWordWrap(True)
        self.view = QtWidgets.QTextBrowser()
        self.view.setOpenExternalLinks(False)
        self.view.setAccessibleName(f"{path.name} text")
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(6, 6, 6, 6)
        box.addWidget(hint)
        box.addWidget(self.view, 1)
        s.documentChanged.connect(self._on_document_changed)
        self.reload()

    def reload(self) -> None:
        read: Callable[[], str | None] = lambda: self.session.folder.files.read_text(self.path)  # noqa: E731
        self.session.run(read, self._loaded)

    def _loaded(self, text: str | None) -> None:
        self.text = text
        if text is None:
            self.view.setPlainText(f"There is no {self.path.name} yet.")
        else:
            self.view.document().setMarkdown(text, documents.MARKDOWN)
        self.loaded.emit()

    def _on_document_changed(self, path: str) -> None:
        if Path(path) == self.path:
            self.reload()


def make_page(s: session.FolderSession, kind: str, agent: str | None) -> QtWidgets.QWidget:
    """The editor of page `kind` (see the module docstring) for `agent` of the folder."""
    folder = s.folder
    store = memory_store.FolderMemory(folder)
    if kind in ("notes", "user") and agent is not None:
        target = "memory" if kind == "notes" else "user"
        return memory_blocks.NotesBlock(s, agent, target, store=store)
    if kind == "profile" and agent is not None:
        return memory_blocks.ProfileTable(s, agent, store=store)
    if kind == "tiers" and agent is not None:
        return tiers_editor.TiersEditor(s, agent, store=store)
    if kind == "daily" and agent is not None:
        return neighbour_daily.NeighbourDaily(s, agent)
    if kind == "memory":
        return TextPage(
            s,
            folder.root / "memory" / "MEMORY.md",
            "PicoClaw's free-form long-term memory. PicoClaw rewrites it in its plan mode; "
            "it is shown here as it is.",
        )
    if kind == "principles":
        return TextPage(
            s,
            folder.root / "groups" / "AGENTS.md",
            "The principles every persona reads first. Agents never write them; edit them "
            "in your editor, and this page follows.",
        )
    raise ValueError(f"no page {kind!r} for {agent!r}")
