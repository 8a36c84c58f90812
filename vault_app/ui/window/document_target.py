"""Which markdown file a document pane shows, and how it is read, saved and started.

A `DocumentTarget` is an entity's summary.md, an agent's TACIT.md or CONTEXT.md, or the
principles in global/AGENTS.md. Reading runs on a worker (`read`: an unreadable file
carries its error); saving goes through `commands` (one undoable step) with the digest
the text was read with. The pane itself is `documents.DocumentPane`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from vault_app.core import errors, layout, vault
from vault_app.ui import commands
from vault_app.ui.session import Callback, ErrorCallback, Session

SUMMARY = "summary"
DOCUMENT = "document"


@dataclass(frozen=True)
class DocumentTarget:
    """Which markdown file a pane shows: an entity's summary or a named vault document."""

    kind: str  # SUMMARY or DOCUMENT
    address: str | None = None  # the entity address, for summaries
    name: str | None = None  # "TACIT.md", "CONTEXT.md" (with an agent) or "AGENTS.md"
    agent: str | None = None

    @classmethod
    def summary(cls, address: str) -> DocumentTarget:
        # one spelling per entity ("global:areas/x" is "areas/x"), as the signals use;
        # a bad address is kept and shown as an error when loaded
        with contextlib.suppress(errors.VaultError):
            address = str(layout.EntityRef.parse(address))
        return cls(SUMMARY, address=address)

    @classmethod
    def document(cls, name: str, agent: str | None = None) -> DocumentTarget:
        return cls(DOCUMENT, name=name, agent=agent)

    @property
    def title(self) -> str:
        if self.kind == SUMMARY:
            return f"Summary of {self.address}"
        if self.agent is None:
            return f"{self.name} — principles for every agent"
        return f"{self.name} — {self.agent}"

    @property
    def file_name(self) -> str:
        return layout.SUMMARY_NAME if self.kind == SUMMARY else str(self.name)

    def read(self, v: vault.Vault) -> vault.Document:
        """The file as on disk (worker thread); an unreadable file carries its error."""
        try:
            if self.kind == SUMMARY:
                return v.summary(str(self.address))
            return v.document(str(self.name), self.agent)
        except errors.CorruptFileError as exc:
            return vault.Document(exc.path, None, None, exc)

    def save(
        self,
        session: Session,
        text: str,
        expected: str | None,
        on_done: Callback,
        on_error: ErrorCallback,
    ) -> None:
        if self.kind == SUMMARY:
            commands.save_summary(
                session, str(self.address), text, expected, on_done=on_done, on_error=on_error
            )
        else:
            commands.save_document(
                session,
                str(self.name),
                self.agent,
                text,
                expected,
                on_done=on_done,
                on_error=on_error,
            )

    def starter_text(self) -> str:
        """What a new file starts with when the user presses Create."""
        if self.kind == SUMMARY:
            ref = layout.EntityRef.parse(str(self.address))
            return f"# {ref.title}\n\n"
        if self.name == "TACIT.md":
            return f"# Tacit knowledge — {self.agent}\n\n"
        if self.name == "CONTEXT.md":
            return f"# Current context — {self.agent}\n\n"
        if self.name == vault.PRINCIPLES:
            return "# Principles\n\n"
        return f"# {self.name}\n\n"
