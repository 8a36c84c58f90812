"""Live sync without Qt: a watchdog observer whose events become coalesced change batches.

`VaultWatcher(vault, on_batch)` (`watcher`) reports what agents and editors change in a
vault as `ChangeBatch`es (`events`): the entities, daily notes, agent documents and agents
touched, with the app's own writes left out by content hash, and what changed while the
app was closed found on open by comparing the vault with a saved snapshot (`snapshot`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vault_app.watch.events import AgentDocument, ChangeBatch, DailyNoteKey, IndexFile
    from vault_app.watch.watcher import VaultWatcher, WatchStatus

__all__ = [
    "AgentDocument",
    "ChangeBatch",
    "DailyNoteKey",
    "IndexFile",
    "VaultWatcher",
    "WatchStatus",
]
_HOMES = {"VaultWatcher": "watcher", "WatchStatus": "watcher"}


def __getattr__(name: str) -> Any:
    """The names above, imported on first use: `vault_app.watch.quiet` needs no watchdog."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{_HOMES.get(name, 'events')}")
    return getattr(module, name)
