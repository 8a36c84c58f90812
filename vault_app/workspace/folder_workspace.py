"""A neighbour's folder (a Hermes home, a PicoClaw workspace, a MicroClaw runtime) opened
as a workspace, as it is: what `VaultWorkspace` is for a PARA vault.

It holds the folder read as `mcp` (`reader`; the command's actor in the CLI), one
`ForeignFolder` per agent opened as `agent:<id>` (its writes are audited with the agent
as actor, in vault-app's state folder for the folder), and the search engine over the
folder's entries (`search.sources.FolderSource`). As in a vault (`engine_life`), the
engine opens on a background thread once a client is through its handshake (or at once
on the caller's thread, for a one-shot command: `open_now`): BM25 first (a folder is
kilobytes: a few milliseconds), then the semantic model, added to the running engine
while BM25 answers; a search says in its `notice` when it ran on BM25 alone.

The folder's owner (Hermes, PicoClaw, MicroClaw) writes it while the server runs, and
there is no `.vault/` to watch: each search first re-reads the folder's entries
(`SearchEngine.refresh`; a file's signature is a digest of its entries, so only a file
that changed is re-indexed, and reading a memory folder is a millisecond affair).
Nothing is ever written into the folder by reading it: the index lives in memory, the
embeddings in the user's cache folder.

An agent reads what it owns and what its folder shares: in a MicroClaw runtime, its
persona's tiers, its chat's daily log and the principles, never another persona's
tiers nor another chat's log.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import config, decay, errors, layout, neighbours
from vault_app.core.neighbours import agents as neighbour_agents
from vault_app.workspace import engine_life, vault_workspace

if TYPE_CHECKING:
    from vault_app.search import columns, engine

log = logging.getLogger(__name__)
READER_ACTOR = "mcp"
BM25_WAIT = 120.0  # seconds a search waits for the index (a folder opens in milliseconds)


class FolderWorkspace(engine_life.EngineLife):
    """One neighbour's folder served to its agents: see the module docstring."""

    THREAD_NAME = "vault-app-folder-index"
    INDEX_NAME = "the folder's search index"
    STILL_OPENING = "the folder's search index is still opening; try again"
    bm25_wait = BM25_WAIT
    _log = log

    def __init__(
        self,
        root: Path | str,
        *,
        semantic: bool | None = None,
        clock: decay.Clock = decay.system_clock,
        actor: str = READER_ACTOR,
    ) -> None:
        found = neighbours.open_folder(root, actor=actor, clock=clock)
        if found is None:
            raise errors.VaultError(f"{root} is a PARA vault, not a neighbour's folder")
        self.reader: neighbours.ForeignFolder = found
        self.root = found.root
        self.format = found.format
        self.clock = clock
        super().__init__(config.SearchSettings().semantic if semantic is None else semantic)
        self.token_table = neighbour_agents.token_table(self.root)
        self.quotas = config.QuotaSettings()  # a folder keeps no settings of ours
        self._folders: dict[str, neighbours.ForeignFolder] = {}

    # -- agents -------------------------------------------------------------------------

    def agent(self, given: str | None) -> str:
        """The agent `given` names (checked), or the folder's only one."""
        return self.reader.agent(given)

    def folder_for(self, agent: str) -> neighbours.ForeignFolder:
        """The folder as `agent` writes it (actor `agent:<id>`), cached per agent."""
        name = self.reader.agent(agent)
        with self._lock:
            opened = self._folders.get(name)
            if opened is None:
                opened = type(self.reader)(self.root, actor=f"agent:{name}", clock=self.clock)
                self._folders[name] = opened
            return opened

    def visible(self, agent: str, origin: dict[str, Any] | None) -> bool:
        """Whether an entry (its `origin`) is `agent`'s to read: a MicroClaw chat's shared
        log only to that chat's personas (the scope filter keeps the rest)."""
        chat = (origin or {}).get("chat")
        return chat is None or str(chat) == agent.split("/")[0]

    # -- the search engine ----------------------------------------------------------------

    def _open_engine(
        self, semantic: bool = False, progress: engine.Progress | None = None
    ) -> tuple[engine.SearchEngine, engine.OpenReport]:
        from vault_app.search import engine  # numpy: off the handshake's path

        if semantic:
            return engine.open_engine(self.reader, semantic=True, progress=progress)
        return engine_life.open_bm25(self.reader, self.semantic, progress)

    def _engine_opened(self, search: engine.SearchEngine, background: bool) -> None:
        """Nothing to catch up: each search re-reads the folder first (`search_engine`)."""

    def search_engine(self) -> engine.SearchEngine:
        """The open engine, caught up with the folder as it is now."""
        search = super().search_engine()
        search.refresh()  # the owner writes beside us (see the module doc)
        return search

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        limit: int = 10,
        filters: columns.Filters | None = None,
        agent: str | None = None,
        mark_access: bool = False,
        explain: bool = False,
    ) -> vault_workspace.SearchAnswer:
        """The best `limit` entries for `query`; for `agent`, only those it may read (its
        own and what its folder shares: another MicroClaw chat's log is left out). A
        folder's entries are not facts: nothing is counted as accessed. Waits for BM25
        only."""
        from vault_app.search import columns  # numpy: off the handshake's path

        search = self.search_engine()
        filters = filters or columns.Filters()
        if agent is not None:
            scopes = frozenset({layout.GLOBAL_SCOPE, f"agent:{agent}"})
            filters = dataclasses.replace(filters, scope=scopes)
        asked = limit
        while True:  # hits of another chat's log are left out: ask for more until enough
            result = search.search(query, mode=mode, filters=filters, limit=asked, explain=explain)
            hits = [h for h in result.hits if agent is None or self.visible(agent, h.origin)]
            if len(hits) >= limit or len(result.hits) < asked:
                break
            asked *= 2
        return vault_workspace.SearchAnswer.of(result, hits[:limit])
