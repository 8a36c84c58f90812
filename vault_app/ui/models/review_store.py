"""Where the Review page's proposals live and how a decision is carried out: a PARA
vault's `.vault/review/` (`core.review`) or the queue vault-app keeps for a neighbour's
folder in its state folder (`core.neighbours.agents`).

The page (`review_page.ReviewPage`) holds no review logic and knows neither: it reads
through `read` (on a worker), decides through `decide` (on the writer thread, so a
decision queues behind the window's own edits) and watches the folder `queue`. Each
store calls the same core functions as `vault-app review` does for that kind of folder:
approve applies the agent's write as that agent — the vault's safe write, or the
folder's adapter in its owner's format (locks, `.bak` rules, backups) — and reject
writes nothing but the decision.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from vault_app.core import errors, layout, review
from vault_app.core.neighbours import agents
from vault_app.ui import session as session_module

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


class ReviewStore(Protocol):
    """What the Review page needs of a review queue."""

    how: str  # how an approved write is applied, in the approval prompt's words

    @property
    def session(self) -> session_module.Workers:
        """The window's workers: reads on the pool, decisions on the writer thread."""

    def queue(self) -> Path:
        """The folder of the proposal files (it may not exist yet)."""

    def read(self) -> list[dict[str, Any]]:
        """Every proposal, described (`review.describe`), oldest first; on a worker."""

    def decide(
        self, d: dict[str, Any], verb: str, reason: str | None, done: Done, failed: Failed
    ) -> None:
        """Approve (`verb` "approved") or reject the proposal `d`, off the GUI thread."""


class VaultReviews:
    """A PARA vault's queue, `.vault/review/` (`core.review`)."""

    how = "through the vault's normal safe write"

    def __init__(self, s: session_module.Session) -> None:
        self.session = s

    def queue(self) -> Path:
        return self.session.vault.paths.state_dir / review.REVIEW_DIR

    def read(self) -> list[dict[str, Any]]:
        return [review.describe(p) for p in review.all_proposals(self.session.vault)]

    def decide(
        self, d: dict[str, Any], verb: str, reason: str | None, done: Done, failed: Failed
    ) -> None:
        review_id = str(d["id"])
        applied = verb == "approved"

        def work(v: Any) -> review.Proposal:
            if applied:
                return review.approve(v, review_id)
            return review.reject(v, review_id, reason)

        self.session.write(
            work,
            done,
            failed,
            entities=_entities(d) if applied else (),
            documents=_documents(self.session.vault.root, d) if applied else (),
            rescan=applied,
        )


class FolderReviews:
    """A neighbour's folder's queue, kept in vault-app's state folder for it
    (`<state>/review/`, `core.neighbours.agents`); the window's folder is opened as a
    person ("gui"), and approve applies the write as the proposing agent."""

    def __init__(self, s: session_module.FolderSession) -> None:
        self.session = s
        self.how = f"through the {s.folder.name}'s own write (its format, locks and backups)"

    def queue(self) -> Path:
        return self.session.folder.files.state / review.REVIEW_DIR

    def read(self) -> list[dict[str, Any]]:
        folder = self.session.folder
        return [agents.describe(folder, p) for p in agents.all_proposals(folder)]

    def decide(
        self, d: dict[str, Any], verb: str, reason: str | None, done: Done, failed: Failed
    ) -> None:
        folder, review_id = self.session.folder, str(d["id"])

        def work() -> tuple[review.Proposal, Path | None]:
            if verb != "approved":
                return agents.reject(folder, review_id, reason), None
            proposal = agents.approve(folder, review_id)
            try:
                return proposal, agents.target_file(folder, proposal.write)
            except errors.VaultError:  # applied; only the page to reload is unknown
                return proposal, None

        def finished(result: tuple[review.Proposal, Path | None]) -> None:
            proposal, path = result
            if path is not None:  # the page showing that file reloads
                self.session.documentChanged.emit(str(path))
            done(proposal)

        self.session.run(work, finished, failed, writer=True)


def _entities(d: dict[str, Any]) -> tuple[str, ...]:
    """The entity an approved add_fact writes (so open views reload)."""
    if d["kind"] != "add_fact":
        return ()
    try:
        return (str(layout.EntityRef.parse(str(d["params"].get("entity")))),)
    except (errors.VaultError, ValueError):
        return ()


def _documents(root: Path, d: dict[str, Any]) -> tuple[Path, ...]:
    if d["kind"] != "write_document":
        return ()
    return (root / "agents" / str(d["agent"]) / str(d["params"].get("name")),)
