"""Related entities as the forms type them: the addresses the last scan knows, what a
relatedEntities id names among them, the comma-separated field, and its completer.

No disk access: every lookup is over the session's last scan.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from PySide6 import QtCore, QtWidgets

from vault_app.core import layout
from vault_app.ui.session import Session

Qt = QtCore.Qt


def known_addresses(session: Session) -> list[str]:
    """Every entity address of the session's last scan, sorted."""
    if session.known is None:
        return []
    return sorted(entity.address for entity in session.known.entities)


def resolve_related(reference: str, agent: str | None, known: Collection[str]) -> str | None:
    """The address a relatedEntities id names among `known` (`layout.resolve_reference`).

    No disk access: `known` comes from the last scan.
    """
    found = layout.resolve_reference(reference, agent, lambda ref: str(ref) in known)
    return None if found is None else str(found)


def split_related(text: str) -> list[str]:
    """The comma-separated items of the related-entities field, in order, without repeats."""
    items = [part.strip() for part in text.split(",")]
    return list(dict.fromkeys(item for item in items if item))


class ListCompleter(QtWidgets.QCompleter):
    """Completes the item after the last comma of a comma-separated line edit."""

    def __init__(self, words: Iterable[str], parent: QtCore.QObject | None = None) -> None:
        super().__init__(list(words), parent)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompletionMode(QtWidgets.QCompleter.CompletionMode.PopupCompletion)
        self.setMaxVisibleItems(12)

    def splitPath(self, path: str) -> list[str]:
        return [path.rsplit(",", 1)[-1].strip()]

    def pathFromIndex(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> str:
        chosen = str(super().pathFromIndex(index))
        widget = self.widget()
        text = widget.text() if isinstance(widget, QtWidgets.QLineEdit) else ""
        head = text.rsplit(",", 1)[0] if "," in text else ""
        return f"{head.rstrip()}, {chosen}" if head.strip() else chosen
