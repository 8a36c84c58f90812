"""What a watcher's change batch asks of the search index, decided once for every face.

`Reindex.of(batch)` reads a `watch.ChangeBatch` (outside writes: other agents, the CLI,
an editor, another device) as the index needs it: nothing (the watcher's baseline
listing, which the index's own catch-up covers), the whole index re-checked (agents came
or went, the watcher lost track), or the entities and daily notes to re-index. The MCP
server's workspace (`VaultWorkspace`) and the window's live sync (`ui.live`) both apply
it; `apply` is the part that touches the engine.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING

from vault_app.core import layout

if TYPE_CHECKING:
    from vault_app.search import engine
    from vault_app.watch import events


@dataclasses.dataclass(frozen=True)
class Reindex:
    """What to re-index after a batch (see the module docstring)."""

    whole: bool = False  # re-check every source against the disk
    entities: tuple[layout.EntityRef, ...] = ()  # changed, created or removed
    daily: tuple[tuple[dt.date, str | None], ...] = ()  # (day, agent or None for global)

    @classmethod
    def of(cls, batch: events.ChangeBatch) -> Reindex:
        if batch.everything and batch.reason == "open":
            return cls()  # the baseline: the index reads the disk when it opens
        if batch.everything or batch.agents or batch.removed_agents:
            return cls(whole=True)
        refs = tuple(dict.fromkeys((*batch.entities, *batch.removed_entities)))
        return cls(entities=refs, daily=tuple((note.date, note.agent) for note in batch.daily))

    @property
    def empty(self) -> bool:
        return not (self.whole or self.entities or self.daily)

    def apply(self, search: engine.SearchEngine) -> None:
        """Re-index what this names in `search` (on a worker: it reads files)."""
        if self.whole:
            search.refresh()
            return
        for ref in self.entities:
            search.refresh_entity(ref)
        for day, agent in self.daily:
            search.refresh_daily(day, agent)
