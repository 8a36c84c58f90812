"""Where the memory blocks read and write: a PARA vault's agent, or a neighbour's folder.

The blocks (`memory_blocks`, `tiers_editor`) ask a `MemoryStore` for notes, tiers and the
profile by the names `core.agent_memory` gives them, the agent first. `ParaMemory` answers
from a vault (`agent_memory`'s functions); `FolderMemory` from a neighbour's folder
(`core.neighbours.ForeignFolder`, which reads and writes in the owner's format, with its
locks and backups). Both run on the session's workers, never on the GUI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from vault_app.core import agent_memory, neighbours, vault


class MemoryStore(Protocol):
    """What a memory block needs of the folder it edits."""

    def read_notes(self, agent: str, target: str) -> agent_memory.NotesState: ...
    def write_notes(
        self, agent: str, target: str, items: list[str], *, expected: str | None
    ) -> agent_memory.NotesState: ...
    def read_tiers(self, agent: str) -> agent_memory.TiersState: ...
    def write_tier(
        self, agent: str, tier: int, body: str, *, was: str | None = None
    ) -> agent_memory.TiersState: ...
    def read_profile(self, agent: str) -> agent_memory.ProfileState: ...
    def write_profile(
        self, agent: str, values: dict[str, str], *, expected: str | None
    ) -> agent_memory.ProfileState: ...
    def where(self, path: Path) -> str:
        """`path` as the person knows it (relative to the folder opened)."""
        ...

    def switched_off(self, agent: str, structure: str) -> str:
        """How to switch on a store the config switched off ("notes", "user", "profile")."""
        ...


class ParaMemory:
    """An agent's memory in a PARA vault (`agents/<id>/...`)."""

    def __init__(self, target: vault.Vault) -> None:
        self.vault = target

    def read_notes(self, agent: str, target: str) -> agent_memory.NotesState:
        return agent_memory.read_notes(self.vault, agent, target)

    def write_notes(
        self, agent: str, target: str, items: list[str], *, expected: str | None
    ) -> agent_memory.NotesState:
        return agent_memory.write_notes(self.vault, agent, target, items, expected=expected)

    def read_tiers(self, agent: str) -> agent_memory.TiersState:
        return agent_memory.read_tiers(self.vault, agent)

    def write_tier(
        self, agent: str, tier: int, body: str, *, was: str | None = None
    ) -> agent_memory.TiersState:
        return agent_memory.write_tier(self.vault, agent, tier, body, was=was)

    def read_profile(self, agent: str) -> agent_memory.ProfileState:
        return agent_memory.read_profile(self.vault, agent)

    def write_profile(
        self, agent: str, values: dict[str, str], *, expected: str | None
    ) -> agent_memory.ProfileState:
        return agent_memory.write_profile(self.vault, agent, values, expected=expected)

    def where(self, path: Path) -> str:
        return self.vault.paths.relative(path)

    def switched_off(self, agent: str, structure: str) -> str:
        key = {"memory": "notes", "user": "profile"}.get(structure, structure)
        return (
            f"Switched off for this agent: set {key} = true under "
            f"[agents.memory.{agent}] in .vault/config.toml to use it."
        )


class FolderMemory:
    """An agent's memory in a neighbour's folder, in its owner's format."""

    def __init__(self, folder: neighbours.ForeignFolder) -> None:
        self.folder = folder

    def read_notes(self, agent: str, target: str) -> agent_memory.NotesState:
        return self.folder.read_notes(agent, target)

    def write_notes(
        self, agent: str, target: str, items: list[str], *, expected: str | None
    ) -> agent_memory.NotesState:
        return self.folder.write_notes(agent, target, items, expected=expected)

    def read_tiers(self, agent: str) -> agent_memory.TiersState:
        return self.folder.read_tiers(agent)

    def write_tier(
        self, agent: str, tier: int, body: str, *, was: str | None = None
    ) -> agent_memory.TiersState:
        return self.folder.write_tier(agent, tier, body, was=was)

    def read_profile(self, agent: str) -> agent_memory.ProfileState:
        return self.folder.read_profile(agent)

    def write_profile(
        self, agent: str, values: dict[str, str], *, expected: str | None
    ) -> agent_memory.ProfileState:
        return self.folder.write_profile(agent, values, expected=expected)

    def where(self, path: Path) -> str:
        return self.folder.files.relative(path)

    def switched_off(self, agent: str, structure: str) -> str:
        key = {"memory": "memory_enabled", "user": "user_profile_enabled"}.get(structure, "")
        where = self.folder.root / "config.yaml"
        return f"Switched off in {where} (memory.{key}: false): it can be read, not written here."
