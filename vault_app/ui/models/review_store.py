"""Where the Review page's proposals live and how a decision is carried out: the
workspace's review queue (`workspace.reviews`: a PARA vault's `.vault/review/`, or the
queue vault-app keeps for a neighbour's folder in its state folder), with the window's
threads.

The page (`review_page.ReviewPage`) holds no review logic and knows neither: it reads
through `read` (on a worker), decides through `decide` (on the writer thread, so a
decision queues behind the window's own edits) and watches the folder `queue`. Each
store calls the same queue as `vault-app review` does for that kind of folder:
approve applies the agent's write as that agent — the vault's safe write, or the
folder's adapter in its owner's format (locks, `.bak` rules, backups) — and reject
writes nothing but the decision.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from vault_app.core import review
from vault_app.ui import session as session_module
from vault_app.workspace import reviews

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


class _Reviews:
    """What both stores read the same way: the workspace's queue (`workspace.reviews`)."""

    def __init__(self, queue: reviews.VaultQueue | reviews.FolderQueue) -> None:
        self._queue = queue
        self.how = queue.how

    def queue(self) -> Path:
        return self._queue.folder

    def read(self) -> list[dict[str, Any]]:
        return [self._queue.describe(p) for p in self._queue.proposals(every=True)]


class VaultReviews(_Reviews):
    """A PARA vault's queue (`workspace.reviews.VaultQueue`); decisions on the writer
    thread, the views an approved write changed reloaded."""

    def __init__(self, s: session_module.Session) -> None:
        super().__init__(reviews.VaultQueue(s.vault))
        self.session = s

    def decide(
        self, d: dict[str, Any], verb: str, reason: str | None, done: Done, failed: Failed
    ) -> None:
        review_id = str(d["id"])
        applied = verb == "approved"
        entities, documents = self._queue.written(d) if applied else ((), ())

        def work(v: Any) -> review.Proposal:
            queue = reviews.VaultQueue(v)  # the writer thread's vault
            return queue.approve(review_id) if applied else queue.reject(review_id, reason)

        self.session.write(
            work, done, failed, entities=entities, documents=documents, rescan=applied
        )


class FolderReviews(_Reviews):
    """A neighbour's folder's queue (`workspace.reviews.FolderQueue`); the window's folder
    is opened as a person ("gui"), and approve applies the write as the proposing agent."""

    def __init__(self, s: session_module.FolderSession) -> None:
        super().__init__(reviews.FolderQueue(s.folder))
        self.session = s

    def decide(
        self, d: dict[str, Any], verb: str, reason: str | None, done: Done, failed: Failed
    ) -> None:
        review_id = str(d["id"])

        def work() -> tuple[review.Proposal, tuple[Path, ...]]:
            if verb != "approved":
                return self._queue.reject(review_id, reason), ()
            return self._queue.approve(review_id), self._queue.written(d)[1]

        def finished(result: tuple[review.Proposal, tuple[Path, ...]]) -> None:
            proposal, paths = result
            for path in paths:  # the page showing that file reloads
                self.session.documentChanged.emit(str(path))
            done(proposal)

        self.session.run(work, finished, failed, writer=True)
