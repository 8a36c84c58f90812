"""A PARA vault opened as a workspace: the vault, one `Vault` per agent, the search
engine and the numeric-id map, shared by every face (the MCP server's tools and
clients, the CLI's commands) and by the heartbeat run beside them.

The engine's life (BM25 first, semantic later, the notice meanwhile) is `EngineLife`'s.
`search` is the one "search, then count the hits as read" every face calls: the
filters come from `arguments.search_filters` (the strings a face receives), the mode
falls back in the engine (`SearchEngine.search`), and an agent's hits are counted as
accessed through its own `Vault` (`mark_accessed`), their entities re-indexed at once.
A person's search is not counted. `SearchAnswer` carries the answer; `agent_json`
shows it as agents see it (stored texts through the injection filter, numeric ids, no
server paths), `person_json` as the CLI prints it.

Every agent acts through its own `Vault`, opened with actor `agent:<id>` (the access
policy's door: `core.access`), so every write is audited with the agent as actor. The
engine's own vault (`reader`) reads only (actor `mcp` in the server, `cli` in the CLI:
a face, never an agent, for the index holds every scope and an agent's door would refuse
the others'; what an agent is shown is narrowed to what it may read, `scope_for`).
`context` is the one "an agent's memory context, its facts counted as read" the MCP tool
and the CLI's `context` share.

The numeric ids MicroClaw needs (`numeric_ids.fact_number`) have no stored map: the map
from number to fact id is built from the index (every fact, active and superseded) once
BM25 is open, and kept current by `after_write`; a number this process has not seen
(another process wrote the fact) re-checks the index against the disk once before
answering "unknown".

Writes from outside (the window, the CLI, other agents, an editor: `serve` runs for
hours beside them) reach the index through a `watch.VaultWatcher`: its change batches
re-index what they name (`reindex.apply_batch`), a new or removed agent re-checks the
whole index. The watcher is chosen over the engine's catch-up walk
(`SearchEngine.refresh`) because a walk stats every entity (0.6 s at 10,000 entities)
for each check, where inotify costs nothing until a file changes, and a change is
indexed within the watcher's coalescing delay (0.1-0.5 s) without any search paying
for it. The watcher takes its baseline listing before the index catches up with the
disk, so a write lands in one or the other, never in between. The agents' own writes
through this workspace are told to the watcher (their storage listener), so they are
not indexed twice. A one-shot workspace (the CLI's) does not watch (`watch=False`) and
opens its engine on the calling thread (`open_now`).

The heartbeat's dedup compares by meaning over the engine's loaded model
(`heartbeat_embed`), through the vault's embedding cache.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import config, decay, errors, injection, layout, numeric_ids, vault
from vault_app.workspace import engine_life, reindex

if TYPE_CHECKING:
    from vault_app.heartbeat import dedup
    from vault_app.search import columns, engine
    from vault_app.search import context as context_module
    from vault_app.watch import events, watcher


log = logging.getLogger(__name__)
READER_ACTOR = "mcp"  # the server's engine vault: reads and its own index cache, never facts
REFRESH_GAP = 2.0  # seconds between two whole-index re-checks forced by unknown numbers
WATCH_READY = 120.0  # seconds the index waits for the watcher's baseline listing


@dataclasses.dataclass
class SearchAnswer:
    """A search's answer: its hits, the mode used, why not the one asked (`notice`), and
    the facts counted as accessed (new counts by fact id)."""

    hits: list[engine.Hit]
    mode_used: str
    notice: str | None = None
    marked: dict[str, int] = dataclasses.field(default_factory=dict)
    unknown: list[str] = dataclasses.field(default_factory=list)  # words no document holds
    below_floor: int = 0  # weak matches the relevance floor left out
    seconds: float = 0.0

    @classmethod
    def of(
        cls,
        result: engine.SearchResult,
        hits: list[engine.Hit] | None = None,
        marked: dict[str, int] | None = None,
    ) -> SearchAnswer:
        """The answer of an engine's `result` (its `hits`, unless kept apart)."""
        return cls(
            result.hits if hits is None else hits,
            result.mode,
            result.notice,
            marked or {},
            result.unknown,
            result.below_floor,
            result.seconds,
        )

    def agent_json(self) -> dict[str, Any]:
        """As an agent sees it: stored texts through the injection filter, each fact's
        numeric id, and no path (where a file sits on the server is not the agent's)."""
        hits = []
        for hit in self.hits:
            data = hit.to_json()
            data["text"] = injection.shown_to_agents(hit.text)
            data.pop("path", None)
            if hit.fact_id:
                data["number"] = numeric_ids.fact_number(hit.fact_id)
            hits.append(data)
        return {
            "mode": self.mode_used,
            "notice": self.notice,
            "hits": hits,
            "marked_accessed": len(self.marked),
        }

    def person_json(self, query: str) -> dict[str, Any]:
        """As a person's tools print it (the CLI's `search --json`)."""
        return {
            "query": query,
            "mode": self.mode_used,
            "notice": self.notice,
            "hits": [h.to_json() for h in self.hits],
            "markedAccessed": self.marked,
            "unknown": self.unknown,
            "belowFloor": self.below_floor,
            "seconds": round(self.seconds, 4),
        }


def heartbeat_embed(reader: vault.Vault, search: engine.SearchEngine | None) -> dedup.Embed | None:
    """The heartbeat dedup's `embed` over an engine's loaded sentence model, through the
    vault's embedding cache (what search embedded is not encoded again); None until the
    semantic side is loaded (dedup then compares words only)."""
    rows = search.semantic if search is not None else None
    if rows is None or rows.encoder is None:
        return None
    from vault_app.heartbeat import dedup

    return dedup.cached_embed(reader, rows.encoder, rows.cache)


class VaultWorkspace(engine_life.EngineLife):
    """One PARA vault, open for the faces: see the module docstring. Thread-safe."""

    def __init__(
        self,
        root: Path | str,
        *,
        semantic: bool | None = None,
        clock: decay.Clock = decay.system_clock,
        watch: bool = True,
        actor: str = READER_ACTOR,
    ) -> None:
        self.clock = clock
        self.watch = watch  # follow outside writes (see the module doc)
        self.reader = vault.Vault(root, clock=clock, actor=actor)
        self.quotas = self.reader.config.quotas  # what one agent may consume (`quotas`)
        self.root: Path = self.reader.root
        # None: as the vault's config says ([search] semantic)
        super().__init__(self.reader.config.search.semantic if semantic is None else semantic)
        self._vaults: dict[str, tuple[tuple[int, int], vault.Vault]] = {}
        self._numbers: dict[int, str] | None = None  # made when first needed (`_numbers_of`)
        self._pending: list[layout.EntityRef | tuple[dt.date, str | None]] = []
        self._watcher: watcher.VaultWatcher | None = None  # imported with the engine
        self._whole_pending = False  # a batch asked for a whole re-check before the index
        self._last_refresh = 0.0

    # -- agents -------------------------------------------------------------------------

    def vault_for(self, agent: str) -> vault.Vault:
        """The Vault `agent` acts through (actor `agent:<id>`), cached per agent and
        reopened when `.vault/config.toml` changes (permissions live there)."""
        layout.validate_agent_id(agent)
        if not self.reader.paths.agent_dir(agent).is_dir():
            known = ", ".join(self.reader.paths.agent_ids()) or "none"
            raise errors.NotFoundError(
                f"no agent {agent!r} in {self.root} (agents: {known}); create it with "
                f"`vault-app agent create {agent}`"
            )
        stamp = self._config_stamp()
        with self._lock:
            cached = self._vaults.get(agent)
            if cached is None or cached[0] != stamp:
                opened = vault.Vault(self.root, clock=self.clock, actor=f"agent:{agent}")
                if self._watcher is not None:  # its writes are indexed by after_write
                    opened.add_listener(self._watcher.note_write)
                cached = self._vaults[agent] = (stamp, opened)
            return cached[1]

    def _config_stamp(self) -> tuple[int, int]:
        try:
            info = (self.reader.paths.state_dir / config.CONFIG_NAME).stat()
        except OSError:
            return (-1, -1)
        return (info.st_size, info.st_mtime_ns)

    # -- the search engine ----------------------------------------------------------------

    def _open_engine(
        self, semantic: bool = False, progress: engine.Progress | None = None
    ) -> tuple[engine.SearchEngine, engine.OpenReport]:
        from vault_app.search import engine  # numpy, scipy: off the handshake's path

        self._start_watcher()
        if semantic:
            search, report = engine.open_engine(self.reader, semantic=True, progress=progress)
        else:
            search, report = engine_life.open_bm25(self.reader, self.semantic, progress)
        if report.notice:
            log.info("search index: %s", report.notice)
        return search, report

    def _engine_opened(self, search: engine.SearchEngine, background: bool) -> None:
        if background:  # a server: its agents' first number lookups find the map made
            self._numbers_of(search)
        self._catch_up_pending()
        if self._whole_pending:
            self._whole_pending = False
            search.refresh()

    def _start_watcher(self) -> None:
        """Watch the vault for outside writes; returns once the baseline is listed."""
        if not self.watch or self._closed:
            return
        from vault_app.watch import watcher as watch_module

        follower = watch_module.VaultWatcher(
            self.reader, self._on_batch, snapshot=None, on_status=self._on_watch_status
        )
        with self._lock:
            self._watcher = follower
            for _, agent_vault in self._vaults.values():
                agent_vault.add_listener(follower.note_write)
        follower.start()
        if not follower.wait_ready(WATCH_READY):
            log.warning("the vault watcher's first listing is slow; the index opens anyway")

    def _on_batch(self, batch: events.ChangeBatch) -> None:
        """A watcher batch (outside writes): re-index what it names (`reindex`)."""
        change = reindex.Reindex.of(batch)
        if change.whole:
            with self._lock:
                if self._engine is None:
                    self._whole_pending = True
                    return
            self.refresh()
            return
        self.after_write(change.entities)
        for day, agent in change.daily:
            self.after_daily(day, agent)

    @staticmethod
    def _on_watch_status(status: watcher.WatchStatus) -> None:
        if status.state not in ("starting", "watching", "stopped"):
            log.warning("vault watcher %s: %s", status.state, status.message)

    def heartbeat_embed(self) -> dedup.Embed | None:
        """The heartbeat's dedup `embed` over the loaded model (`heartbeat_embed`)."""
        return heartbeat_embed(self.reader, self.loaded_engine())

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        limit: int = 10,
        filters: columns.Filters | None = None,
        agent: str | None = None,
        mark_access: bool = True,
        explain: bool = False,
    ) -> SearchAnswer:
        """The best `limit` documents for `query`; an agent's active fact hits count as
        accessed (unless not `mark_access`), a person's never.

        Waits for BM25, never for the semantic model: until it is ready (or when it is
        off or unavailable) a semantic or hybrid search answers with BM25 and says so."""
        search = self.search_engine()
        result = search.search(query, mode=mode, filters=filters, limit=limit, explain=explain)
        marked: dict[str, int] = {}
        if agent is not None and mark_access:
            ids = [h.fact_id for h in result.hits if h.fact_id and h.status == "active"]
            marked = self.mark_accessed(agent, ids)
        return SearchAnswer.of(result, marked=marked)

    def scope_for(self, agent: str | None, scope: str | None) -> str | frozenset[str] | None:
        """The engine's scope filter for a search by `agent` asking for `scope`: what the
        access policy lets it read (the index holds every scope); a person's, as asked.
        `scope` may also be "global", "mine" or "all" (the MCP tool's words)."""
        if agent is None:
            return scope
        readable = self.vault_for(agent).readable_scopes()
        assert readable is not None  # an agent's vault reads its scopes, not every one
        if scope is None or scope == "all":
            return readable
        if scope in ("global", "mine"):
            return layout.GLOBAL_SCOPE if scope == "global" else f"agent:{agent}"
        if scope in readable:
            return scope
        raise errors.AccessDeniedError(
            f"scope {scope!r}: use global, mine (agent:{agent}) or all; an agent reads global "
            "memory and its own workspace, and another agent's only when granted "
            f"([agents.grants.{agent}] read in .vault/config.toml)"
        )

    def context(
        self, agent: str, query: str | None, *, budget: int, mark_access: bool = True
    ) -> context_module.Context:
        """`agent`'s memory context for `query` within `budget` characters (stored texts
        through the injection filter), its facts counted as accessed through the agent's
        own `Vault` unless not `mark_access` (`Context.marked`)."""
        from vault_app.search import context as contexts  # loaded with the engine

        self.vault_for(agent)  # it exists
        built = contexts.ContextBuilder(self.search_engine(), for_agents=True).build(
            agent, query, budget=budget, mark_access=False
        )
        if mark_access:
            ids = [k[5:] for b in built.blocks for k in b.keys if k.startswith("fact:")]
            built.marked = self.mark_accessed(agent, ids)
        return built

    def mark_accessed(self, agent: str, fact_ids: Iterable[str]) -> dict[str, int]:
        """Count one access of each fact, written as `agent`, and re-index their entities."""
        ids = list(dict.fromkeys(fact_ids))
        if not ids:
            return {}
        target = self.vault_for(agent)
        where = target.locate(ids)
        marked = target.mark_accessed(ids)
        self.after_write(set(where.values()))
        return marked

    # -- numbers --------------------------------------------------------------------------

    @staticmethod
    def _fact_numbers(key_sets: Iterable[Iterable[str]]) -> dict[int, str]:
        numbers: dict[int, str] = {}
        for keys in key_sets:
            for key in keys:
                if key.startswith("fact:"):
                    fact_id = key[5:]
                    numbers[numeric_ids.fact_number(fact_id)] = fact_id
        return numbers

    def _numbers_of(self, search: engine.SearchEngine) -> dict[int, str]:
        """The number -> fact id map, made from the index on first need (a one-shot
        command never needs it: 0.3 s on a 200,000-fact vault)."""
        with self._lock:
            if self._numbers is None:
                self._numbers = self._fact_numbers(search.state.by_source.values())
            return self._numbers

    def fact_id_for_number(self, number: int) -> str | None:
        """The fact id whose `numeric_ids.fact_number` is `number` (any status), or None."""
        numbers = self._numbers_of(self.search_engine())
        with self._lock:
            found = numbers.get(number)
            if found is not None or time.monotonic() - self._last_refresh < REFRESH_GAP:
                return found
        self.refresh()  # written by another process since this one indexed it?
        with self._lock:
            return numbers.get(number)

    # -- keeping fresh --------------------------------------------------------------------

    def refresh(self) -> None:
        """Re-check the whole index against the disk (writes by other processes)."""
        search = self.search_engine()
        search.refresh()
        with self._lock:
            self._last_refresh = time.monotonic()
            if self._numbers is not None:
                self._numbers.update(self._fact_numbers(search.state.by_source.values()))

    def after_write(self, changed_refs: Iterable[layout.EntityRef]) -> None:
        """Re-index the entities a write changed and learn their facts' numbers; before
        the index is open, they are caught up as soon as it is."""
        refs = [layout.as_ref(r) for r in changed_refs]
        with self._lock:
            if self._engine is None:
                self._pending.extend(refs)
                return
            self._refresh_refs(self._engine, refs)

    def after_daily(self, day: dt.date, agent: str | None) -> None:
        """Re-index the daily note of `day` (global when `agent` is None) after a write."""
        with self._lock:
            if self._engine is None:
                self._pending.append((day, agent))
                return
            self._engine.refresh_daily(day, agent)

    def _refresh_refs(self, search: engine.SearchEngine, refs: Iterable[layout.EntityRef]) -> None:
        from vault_app.search import documents

        for ref in refs:
            search.refresh_entity(ref)
            if self._numbers is not None:
                keys = search.state.by_source.get(documents.entity_source(ref), set())
                self._numbers.update(self._fact_numbers([keys]))

    def _catch_up_pending(self) -> None:
        assert self._engine is not None
        pending, self._pending = self._pending, []
        for item in pending:
            if isinstance(item, layout.EntityRef):
                self._refresh_refs(self._engine, [item])
            else:
                self._engine.refresh_daily(*item)

    def close(self) -> None:
        """Stop using the engine and the watcher."""
        super().close()
        with self._lock:
            follower, self._watcher = self._watcher, None
            for _, agent_vault in self._vaults.values():
                if follower is not None:
                    agent_vault.remove_listener(follower.note_write)
        if follower is not None:
            follower.stop()
