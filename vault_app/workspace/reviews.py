"""The review queue of an open vault or neighbour's folder, whichever it is: the writes
agents had held back for a person, listed, described and decided.

A PARA vault keeps its queue in `.vault/review/` (`core.review`); a neighbour's folder has
one kept by vault-app in its state folder for that folder (`core.neighbours.agents`),
since nothing of ours is written into the folder. The choice is made once, by `queue_of`
(a `Vault` or a `ForeignFolder`, as the faces open them); the CLI's `review` commands and
the window's review page then call the same methods, and never fork on the kind again.
Approving applies the agent's write as that agent — the vault's safe write, or the
folder's adapter in its owner's format — and rejecting writes nothing but the decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from vault_app.core import errors, layout, review

if TYPE_CHECKING:
    from vault_app.core.neighbours import folder as folder_module
    from vault_app.core.vault import Vault


class ReviewQueue(Protocol):
    """What a face needs of a review queue."""

    how: str  # how an approved write is applied, in words (the approval prompt's)

    @property
    def folder(self) -> Path:
        """Where the proposal files are (it may not exist yet)."""

    @property
    def shown_folder(self) -> Path:
        """`folder` as a person is told it (a vault's: from its root)."""

    def proposals(self, *, every: bool = False) -> list[review.Proposal]:
        """The pending proposals (with `every`, the decided ones too), oldest first."""

    def get(self, review_id: str) -> review.Proposal: ...

    def describe(self, proposal: review.Proposal) -> dict[str, Any]:
        """The proposal for people and faces (`review.describe`)."""

    def approve(self, review_id: str) -> review.Proposal: ...

    def reject(self, review_id: str, reason: str | None) -> review.Proposal: ...

    def damaged(self) -> list[str]:
        """Proposal files that cannot be read, named from the vault's root (never hidden:
        `doctor --repair` restores them)."""

    def written(self, described: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Path, ...]]:
        """What a proposal (as `describe` gives it) writes once approved: entity addresses
        and document files, so that open views reload them."""


class VaultQueue:
    """A PARA vault's queue, `.vault/review/` (`core.review`)."""

    how = "through the vault's normal safe write"

    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    @property
    def folder(self) -> Path:
        return self.vault.paths.state_dir / review.REVIEW_DIR

    @property
    def shown_folder(self) -> Path:
        return Path(".vault") / review.REVIEW_DIR

    def proposals(self, *, every: bool = False) -> list[review.Proposal]:
        return review.all_proposals(self.vault) if every else review.pending(self.vault)

    def get(self, review_id: str) -> review.Proposal:
        return review.get(self.vault, review_id)

    def describe(self, proposal: review.Proposal) -> dict[str, Any]:
        return review.describe(proposal)

    def approve(self, review_id: str) -> review.Proposal:
        return review.approve(self.vault, review_id)

    def reject(self, review_id: str, reason: str | None) -> review.Proposal:
        return review.reject(self.vault, review_id, reason)

    def damaged(self) -> list[str]:
        return [self.vault.paths.relative(path) for path in review.damaged(self.vault)]

    def written(self, described: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Path, ...]]:
        kind, params, agent = described["kind"], described["params"], str(described["agent"])
        entities: tuple[str, ...] = ()
        if kind == "add_fact":
            try:
                entities = (str(layout.EntityRef.parse(str(params.get("entity")))),)
            except (errors.VaultError, ValueError):
                entities = ()
        documents: tuple[Path, ...] = ()
        if kind == "write_document":
            documents = (self.vault.paths.root / "agents" / agent / str(params.get("name")),)
        return entities, documents


class FolderQueue:
    """A neighbour's folder's queue, kept in vault-app's state folder for it
    (`core.neighbours.agents`); approve applies the write as the proposing agent, in the
    owner's format."""

    def __init__(self, folder: folder_module.ForeignFolder) -> None:
        self.target = folder
        self.how = f"through the {folder.name}'s own write (its format, locks and backups)"

    @property
    def folder(self) -> Path:
        return self.target.files.state / review.REVIEW_DIR

    @property
    def shown_folder(self) -> Path:
        return self.folder

    def proposals(self, *, every: bool = False) -> list[review.Proposal]:
        from vault_app.core.neighbours import agents

        return agents.all_proposals(self.target) if every else agents.pending(self.target)

    def get(self, review_id: str) -> review.Proposal:
        from vault_app.core.neighbours import agents

        return agents.get(self.target, review_id)

    def describe(self, proposal: review.Proposal) -> dict[str, Any]:
        from vault_app.core.neighbours import agents

        return agents.describe(self.target, proposal)

    def approve(self, review_id: str) -> review.Proposal:
        from vault_app.core.neighbours import agents

        return agents.approve(self.target, review_id)

    def reject(self, review_id: str, reason: str | None) -> review.Proposal:
        from vault_app.core.neighbours import agents

        return agents.reject(self.target, review_id, reason)

    def damaged(self) -> list[str]:
        return []  # (a folder's queue is ours, read whole at every listing)

    def written(self, described: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Path, ...]]:
        from vault_app.core import agent_writes
        from vault_app.core.neighbours import agents

        try:
            write = agent_writes.AgentWrite(
                kind=described["kind"],
                agent=described["agent"],
                params=described["params"],
                at=described["at"],
            )
            return (), (agents.target_file(self.target, write),)
        except (errors.VaultError, ValueError):  # applied; only the file to reload is unknown
            return (), ()


def queue_of(opened: Vault | folder_module.ForeignFolder) -> VaultQueue | FolderQueue:
    """The review queue of a vault or a neighbour's folder (see the module docstring)."""
    from vault_app.core.vault import Vault

    return VaultQueue(opened) if isinstance(opened, Vault) else FolderQueue(opened)
