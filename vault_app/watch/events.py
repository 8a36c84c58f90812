"""What a change on disk means: classify vault paths, coalesce events, build change batches.

Pure logic, no I/O and no threads, so that it is tested by feeding it synthetic events
with an injected clock. The watcher (`watch.watcher`) does the I/O around it:

1. Every filesystem event becomes *hints*: the vault-relative path of a file that may have
   changed (`items.json`, `summary.md`, a daily note, an agent document…) or of a folder
   whose whole subtree must be looked at again (a folder created, removed or moved).
   Everything else is dropped at once: `.vault/`, temp files (`.items.json.*.vault-tmp`),
   lock files, editor swap and backup files (`.x.swp`, `x~`, `#x#`, `4913`…), hidden
   folders. A temp-file + rename save is a move whose *destination* is a tracked file.
2. `Coalescer` gathers hints until the disk has been quiet for `quiet` seconds, or at most
   `max_latency` seconds after the first one, so a burst of writes makes one batch. A
   file renamed into place (the temp-file + rename save) is complete at once: after such
   an event only `atomic_quiet` seconds are waited for (unless a slower event follows).
3. The watcher compares the hinted paths with its snapshot (`watch.snapshot`) and hands
   the changed paths to `build_batch`, which turns them into a `ChangeBatch`: entities
   changed or created, removed, moved (to archives…), daily notes, agent documents,
   agents created or removed, index files.
4. `MoveMatcher` recognises the moves the events did not report as moves: an entity that
   vanished while one holding the same data files (names, mtimes, sizes: what a rename
   keeps) appeared in the same batch or shortly before is reported as moved.

Events are only hints: what changed is decided by comparing the disk with the snapshot,
so a lost, duplicated or out-of-order event cannot make a wrong batch.

Paths follow `core.layout`: an entity is a folder at least two levels below a PARA root
(`global/life/<category>/…` or `agents/<id>/workspace/<category>/…`) holding `items.json`,
`facts.json` or `summary.md`; its address is `layout.EntityRef`'s
(`areas/people/jane`, `agent:finance:projects/budget`).
"""

from __future__ import annotations

import datetime as dt
import functools
import time
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from vault_app.core import agent_memory, errors, layout, vault

DATA_NAMES = frozenset((*layout.FACT_FILE_NAMES, layout.SUMMARY_NAME))
INDEX_NAME = "index.md"
AGENT_DOCUMENTS = frozenset(vault.AGENT_DOCUMENTS)
# an agent's own memory files beside its documents: profile.json, and memories/*.md
AGENT_FILES = AGENT_DOCUMENTS | {agent_memory.PROFILE_NAME}
NOTES_FILES = frozenset(agent_memory.TARGETS.values())

# Kinds of folder, from the vault root down (see `child_place`).
ROOT, GLOBAL, AGENTS, AGENT, PARA, TREE, DAILY, NOTES = range(8)


# -- change keys --------------------------------------------------------------------------


class DailyNoteKey(NamedTuple):
    """Which daily note changed: `global/daily/<date>.md` (agent None) or
    `agents/<id>/daily/<date>.md` (the note itself is a `models.DailyNote`)."""

    agent: str | None
    date: dt.date

    @property
    def scope(self) -> str:
        return layout.GLOBAL_SCOPE if self.agent is None else f"agent:{self.agent}"


class AgentDocument(NamedTuple):
    """`agents/<id>/TACIT.md`, `CONTEXT.md`…, its `profile.json` and its notes
    (`name` "memories/MEMORY.md", "memories/USER.md"), or `global/AGENTS.md` (agent None)."""

    agent: str | None
    name: str

    @property
    def path(self) -> str:
        if self.agent is None:
            return f"global/{self.name}"
        return f"agents/{self.agent}/{self.name}"


class IndexFile(NamedTuple):
    """The `index.md` of a scope: `global/life/index.md` or `agents/<id>/workspace/index.md`."""

    agent: str | None

    @property
    def scope(self) -> str:
        return layout.GLOBAL_SCOPE if self.agent is None else f"agent:{self.agent}"


class ForeignFile(NamedTuple):
    """A memory file of a neighbour's folder (`watch.foreign`): `kind` is "notes",
    "tiers", "profile", "memory" (PicoClaw's free-form MEMORY.md), "daily" or
    "principles"; `agent` the folder's agent it belongs to (a MicroClaw chat's shared
    daily log: the chat; principles: None); `path` folder-relative; `date` a daily note's."""

    kind: str
    agent: str | None
    path: str
    date: dt.date | None = None


ChangeKey = layout.EntityRef | DailyNoteKey | AgentDocument | IndexFile | ForeignFile


class Place(NamedTuple):
    """What a folder is: its kind, the agent it belongs to, and for an entity tree its depth
    below the PARA root (1 for `areas`, 2 for `areas/people`…)."""

    kind: int
    agent: str | None = None
    depth: int = 0


def child_place(parent: Place, name: str) -> Place | None:
    """The place of folder `name` inside a folder at `parent`; None if nothing there is tracked."""
    if not name or name.startswith("."):
        return None
    kind = parent.kind
    if kind == TREE:
        return Place(TREE, parent.agent, parent.depth + 1)
    if kind == ROOT:
        return Place(GLOBAL) if name == "global" else Place(AGENTS) if name == "agents" else None
    if kind == GLOBAL:
        return Place(PARA) if name == "life" else Place(DAILY) if name == "daily" else None
    if kind == AGENTS:
        try:
            return Place(AGENT, layout.validate_agent_id(name))
        except errors.InvalidIdError:
            return None
    if kind == AGENT:
        if name == "workspace":
            return Place(PARA, parent.agent)
        if name == agent_memory.NOTES_DIR:
            return Place(NOTES, parent.agent)
        return Place(DAILY, parent.agent) if name == "daily" else None
    if kind == PARA:
        return Place(TREE, parent.agent, 1) if name in layout.PARA_CATEGORIES else None
    return None


def tracks_file(place: Place, name: str) -> bool:
    """Whether a file called `name` in a folder at `place` is one the watcher follows."""
    kind = place.kind
    if kind == TREE:
        return place.depth >= 2 and name in DATA_NAMES
    if kind == DAILY:
        return layout.parse_daily_name(name) is not None
    if kind == AGENT:
        return name in AGENT_FILES
    if kind == NOTES:
        return name in NOTES_FILES
    if kind == GLOBAL:
        return name == vault.PRINCIPLES
    if kind == PARA:
        return name == INDEX_NAME
    return False


@functools.lru_cache(maxsize=8192)
def place_of(folder: str) -> Place | None:
    """The place of a vault-relative folder (`""` is the vault root)."""
    place: Place | None = Place(ROOT)
    if not folder:
        return place
    for name in folder.split("/"):
        assert place is not None
        place = child_place(place, name)
        if place is None:
            return None
    return place


def entity_path(folder: str, place: Place) -> str:
    """The entity id (`areas/people/jane`) of a folder at an entity-tree `place`."""
    return "/".join(folder.split("/")[-place.depth :])


def classify(path: str) -> ChangeKey | None:
    """The change key of a vault-relative file path, or None if the watcher ignores it."""
    folder, _, name = path.rpartition("/")
    place = place_of(folder)
    if place is None or not tracks_file(place, name):
        return None
    if place.kind == TREE:
        try:
            return layout.EntityRef(
                place.agent, layout.validate_entity_path(entity_path(folder, place))
            )
        except errors.InvalidIdError:
            return None
    if place.kind == DAILY:
        day = layout.parse_daily_name(name)
        return None if day is None else DailyNoteKey(place.agent, day)
    if place.kind == PARA:
        return IndexFile(place.agent)
    if place.kind == NOTES:
        return AgentDocument(place.agent, f"{agent_memory.NOTES_DIR}/{name}")
    return AgentDocument(place.agent, name)


def tracks_folder(folder: str) -> bool:
    """Whether a folder event there can matter (a subtree holding tracked files)."""
    return bool(folder) and place_of(folder) is not None


def entity_folder(ref: layout.EntityRef) -> str:
    """The vault-relative folder of an entity."""
    base = "global/life" if ref.agent is None else f"agents/{ref.agent}/workspace"
    return f"{base}/{ref.path}"


# -- events and coalescing ----------------------------------------------------------------


class RawEvent(NamedTuple):
    """A filesystem event with vault-relative paths (`kind`: created, modified, deleted,
    moved; `dest` only for a move)."""

    kind: str
    path: str
    dest: str | None = None
    is_dir: bool = False


@dataclass(frozen=True)
class Pending:
    """The hints gathered from one burst of events."""

    files: frozenset[str]
    trees: frozenset[str]
    moves: tuple[tuple[str, str], ...]
    events: int
    first: float
    last: float


class Coalescer:
    """Gathers hints until the disk is quiet (`quiet` s) or `max_latency` s have passed.

    The quiet time after a file moved into place is `atomic_quiet` (its content is whole);
    after anything else (a file written in place may be half written) it is `quiet`.

    Not thread-safe: the watcher holds its lock around every call. `clock` returns seconds
    (monotonic); tests pass their own. `classify` and `tracks_folder` say which files and
    folders matter (a PARA vault's by default; a neighbour's folder: `watch.foreign`).
    """

    def __init__(
        self,
        *,
        quiet: float = 0.1,
        max_latency: float = 0.5,
        atomic_quiet: float = 0.02,
        clock: Callable[[], float] = time.monotonic,
        classify: Callable[[str], object | None] = classify,
        tracks_folder: Callable[[str], bool] = tracks_folder,
    ) -> None:
        self.classify = classify
        self.tracks_folder = tracks_folder
        self.quiet = quiet
        self.atomic_quiet = min(atomic_quiet, quiet)
        self.max_latency = max(max_latency, quiet)
        self.clock = clock
        self._reset()

    def _reset(self) -> None:
        self._files: set[str] = set()
        self._trees: set[str] = set()
        self._moves: list[tuple[str, str]] = []
        self._events = 0
        self._first = 0.0
        self._last = 0.0
        self._settled = 0.0  # when the disk counts as quiet, if no other event comes

    @property
    def pending(self) -> bool:
        return bool(self._files or self._trees)

    def add(self, event: RawEvent) -> bool:
        """Take one event; True if it gave a hint (else it was noise and is forgotten)."""
        hinted = False
        if event.is_dir:
            if event.kind == "modified":  # a folder's listing changed: its files say how
                return False
            for folder in (event.path, event.dest):
                if folder is not None and self.tracks_folder(folder):
                    self._trees.add(folder)
                    hinted = True
            if hinted and event.kind == "moved" and event.dest:
                self._moves.append((event.path, event.dest))
        else:
            for path in (event.path, event.dest):
                if path and self.classify(path) is not None:
                    self._files.add(path)
                    hinted = True
        if hinted:
            now = self.clock()
            if self._events == 0:
                self._first = now
            self._events += 1
            self._last = now
            atomic = (  # a whole file renamed into place (not one moved away: vim's backup)
                event.kind == "moved"
                and not event.is_dir
                and event.dest is not None
                and self.classify(event.dest) is not None
            )
            settled = now + (self.atomic_quiet if atomic else self.quiet)
            self._settled = max(self._settled, settled)
        return hinted

    def due_in(self) -> float | None:
        """Seconds until the hints are due (<= 0: now); None when nothing is pending."""
        if not self.pending:
            return None
        now = self.clock()
        return min(self._settled, self._first + self.max_latency) - now

    def take(self, *, force: bool = False) -> Pending | None:
        """The gathered hints if they are due (or `force`), and start afresh."""
        due = self.due_in()
        if due is None or (due > 0 and not force):
            return None
        trees = _outermost(self._trees)
        prefixes = tuple(f"{t}/" for t in trees)
        files = frozenset(f for f in self._files if not f.startswith(prefixes))
        pending = Pending(
            files=files,
            trees=frozenset(trees),
            moves=tuple(self._moves),
            events=self._events,
            first=self._first,
            last=self._last,
        )
        self._reset()
        return pending


def _outermost(folders: Iterable[str]) -> list[str]:
    """The folders not inside another of them."""
    kept: list[str] = []
    for folder in sorted(folders):
        if not kept or not (folder == kept[-1] or folder.startswith(kept[-1] + "/")):
            kept.append(folder)
    return kept


# -- change batches -----------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeBatch:
    """What changed on disk, coalesced: the unit the watcher reports.

    `entities` were changed or created, `removed_entities` no longer exist (a moved entity
    is in both, and its (old, new) pair in `moved_entities`; when the move reached the
    watcher in two halves, the new place may have come as created in an earlier batch,
    and the pair comes with the removal: see `MoveMatcher`). `daily`, `documents` and
    `indexes` changed, were created or removed. `agents` were created, `removed_agents`
    removed. `paths` are the vault-relative files behind all this.

    `reason` says where it comes from: "events" (live), "open" (the rescan when the
    watcher starts), "restarted" (after the observer died or the vault folder came back),
    "overflow" (the kernel dropped events), "poll" (periodic rescan when the folders
    cannot all be watched), "rescan" (asked for) or "sync" (`unmerged`: Syncthing conflict
    copies the watcher could not merge, left for a person). `rescan` is True when the batch comes
    from comparing the whole vault with the snapshot rather than from events.
    `everything` is True when there was no snapshot to compare with: the lists are empty
    and everything must be considered changed.
    """

    root: Path
    reason: str = "events"
    rescan: bool = False
    everything: bool = False
    entities: tuple[layout.EntityRef, ...] = ()
    removed_entities: tuple[layout.EntityRef, ...] = ()
    moved_entities: tuple[tuple[layout.EntityRef, layout.EntityRef], ...] = ()
    daily: tuple[DailyNoteKey, ...] = ()
    documents: tuple[AgentDocument, ...] = ()
    agents: tuple[str, ...] = ()
    removed_agents: tuple[str, ...] = ()
    indexes: tuple[IndexFile, ...] = ()
    files: tuple[ForeignFile, ...] = ()  # a neighbour's folder: its memory files
    unmerged: tuple[str, ...] = ()  # Syncthing conflict copies left for a person
    paths: tuple[str, ...] = ()
    created: float = field(default_factory=time.time)

    @property
    def empty(self) -> bool:
        return not (
            self.everything
            or self.entities
            or self.removed_entities
            or self.daily
            or self.documents
            or self.agents
            or self.removed_agents
            or self.indexes
            or self.files
            or self.unmerged
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (camelCase keys, as the command line prints them)."""
        return {
            "time": dt.datetime.fromtimestamp(self.created)
            .astimezone()
            .isoformat(timespec="milliseconds"),
            "reason": self.reason,
            "rescan": self.rescan,
            "everything": self.everything,
            "entities": [str(r) for r in self.entities],
            "removedEntities": [str(r) for r in self.removed_entities],
            "movedEntities": [{"from": str(a), "to": str(b)} for a, b in self.moved_entities],
            "daily": [{"scope": d.scope, "date": d.date.isoformat()} for d in self.daily],
            "documents": [
                {"agent": d.agent, "name": d.name, "path": d.path} for d in self.documents
            ],
            "agents": list(self.agents),
            "removedAgents": list(self.removed_agents),
            "indexes": [i.scope for i in self.indexes],
            "files": [{"kind": f.kind, "agent": f.agent, "path": f.path} for f in self.files],
            "unmerged": list(self.unmerged),
            "paths": list(self.paths),
        }

    def describe(self) -> str:
        """One line in plain words, for people (`vault-app watch` without --json)."""
        if self.everything:
            return f"{self.reason}: no earlier snapshot, everything may have changed"
        parts = []
        moved = {a for a, _ in self.moved_entities} | {b for _, b in self.moved_entities}
        changed = [str(r) for r in self.entities if r not in moved]
        removed = [str(r) for r in self.removed_entities if r not in moved]
        if changed:
            parts.append("changed " + ", ".join(changed))
        if removed:
            parts.append("removed " + ", ".join(removed))
        parts += [f"moved {a} -> {b}" for a, b in self.moved_entities]
        parts += [f"daily {d.scope} {d.date.isoformat()}" for d in self.daily]
        parts += [f"document {d.path}" for d in self.documents]
        parts += [f"new agent {a}" for a in self.agents]
        parts += [f"agent removed {a}" for a in self.removed_agents]
        parts += [f"index {i.scope}" for i in self.indexes]
        parts += [f"{f.kind} {f.path}" for f in self.files]
        parts += [f"sync conflict left for a person: {p}" for p in self.unmerged]
        return f"{self.reason}: " + ("; ".join(parts) if parts else "nothing changed")


def build_batch(
    root: Path,
    changed: Iterable[str],
    present: Container[str],
    *,
    moves: Iterable[tuple[str, str]] = (),
    agents_before: Iterable[str] = (),
    agents_after: Iterable[str] = (),
    reason: str = "events",
    rescan: bool = False,
) -> ChangeBatch:
    """The batch for these changed vault-relative files.

    `present` holds every tracked file that exists now (after the change): an entity whose
    folder has none of `items.json`, `facts.json`, `summary.md` left was removed.
    `moves` are folder moves `(old, new)` seen by the events; an entity removed under `old`
    whose counterpart under `new` appeared is reported as moved.
    """
    entities: set[layout.EntityRef] = set()
    removed: set[layout.EntityRef] = set()
    daily: set[DailyNoteKey] = set()
    documents: set[AgentDocument] = set()
    indexes: set[IndexFile] = set()
    paths = sorted(set(changed))
    for path in paths:
        key = classify(path)
        if isinstance(key, layout.EntityRef):
            folder = path.rpartition("/")[0]
            alive = any(f"{folder}/{name}" in present for name in DATA_NAMES)
            (entities if alive else removed).add(key)
        elif isinstance(key, DailyNoteKey):
            daily.add(key)
        elif isinstance(key, AgentDocument):
            documents.add(key)
        elif isinstance(key, IndexFile):
            indexes.add(key)
    before, after = set(agents_before), set(agents_after)
    return ChangeBatch(
        root=root,
        reason=reason,
        rescan=rescan,
        entities=tuple(sorted(entities, key=ref_order)),
        removed_entities=tuple(sorted(removed, key=ref_order)),
        moved_entities=_pair_moves(moves, entities, removed),
        daily=tuple(sorted(daily, key=_daily_order)),
        documents=tuple(sorted(documents, key=lambda d: (d.agent or "", d.name))),
        agents=tuple(sorted(after - before)),
        removed_agents=tuple(sorted(before - after)),
        indexes=tuple(sorted(indexes, key=lambda i: i.agent or "")),
        paths=tuple(paths),
    )


def ref_order(ref: layout.EntityRef) -> tuple[bool, str, str]:
    """Global entities first, then each agent's, each by path (None and str do not compare)."""
    return (ref.agent is not None, ref.agent or "", ref.path)


def _daily_order(note: DailyNoteKey) -> tuple[str, dt.date]:
    return (note.agent or "", note.date)


def _pair_moves(
    moves: Iterable[tuple[str, str]],
    entities: set[layout.EntityRef],
    removed: set[layout.EntityRef],
) -> tuple[tuple[layout.EntityRef, layout.EntityRef], ...]:
    """(old, new) for each removed entity under a moved folder whose new place appeared."""
    moves = list(moves)
    if not moves or not removed:
        return ()
    added = {entity_folder(ref): ref for ref in entities}
    pairs = []
    for ref in sorted(removed, key=ref_order):
        folder = entity_folder(ref)
        for old, new in reversed(moves):  # the latest move of that folder wins
            if folder == old or folder.startswith(old + "/"):
                target = added.get(new + folder[len(old) :])
                if target is not None:
                    pairs.append((ref, target))
                    break
    return tuple(pairs)


# -- moves the events did not pair --------------------------------------------------------

Fingerprint = tuple[tuple[str, int, int], ...]  # (file name, mtime_ns, size) per data file


def fingerprint(folder: str, stats: Mapping[str, tuple[int, int]]) -> Fingerprint | None:
    """An entity folder's data files with their `(mtime_ns, size)` from `stats` (None if it
    has none there): a rename keeps them, so a moved entity has the same fingerprint."""
    found = []
    for name in sorted(DATA_NAMES):
        stat = stats.get(f"{folder}/{name}")
        if stat is not None:
            found.append((name, *stat))
    return tuple(found) or None


class MoveMatcher:
    """Reports as moved an entity removed where one with the same files just appeared.

    A move is not always one event. A folder moved into a folder that did not exist yet
    (`mkdir -p archives/people && mv areas/people/jane archives/people/`) reaches
    watchdog in two halves: the destination is not watched yet, so the new folder's
    files are *created* when watchdog starts watching it and lists it, and the old folder
    is *deleted* half a second later (watchdog holds an unmatched IN_MOVED_FROM that long,
    waiting for its IN_MOVED_TO). A periodic or restarted rescan sees any move as a
    removal and a creation in one batch.

    So the matcher remembers, for `window` seconds, the entities that appeared (every
    data file new) with their `fingerprint`; an entity removed whose last fingerprint
    (from the snapshot, before the removal) is one of them moved there. Names need not
    match (a rename is a move too). Not thread-safe: the watcher calls it under its lock.
    `clock` returns seconds (monotonic); tests pass their own.
    """

    def __init__(self, *, window: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self.clock = clock
        # fingerprint -> (when, entity), oldest first; of two alike, the latest is kept
        self._arrivals: dict[Fingerprint, tuple[float, layout.EntityRef]] = {}

    def pair(
        self,
        batch: ChangeBatch,
        changes: Mapping[str, str],
        stats: Mapping[str, tuple[int, int]],
        gone: Mapping[str, tuple[int, int]],
    ) -> ChangeBatch:
        """`batch` with the moves it did not pair added to `moved_entities`.

        `changes` are the snapshot's changes behind the batch ({path: added|modified|
        removed}), `stats` the snapshot after them, `gone` the last stats of the files
        removed.
        """
        now = self.clock()
        arrivals = self._arrivals
        while arrivals:
            oldest = next(iter(arrivals))
            if now - arrivals[oldest][0] <= self.window:
                break
            del arrivals[oldest]
        for ref in batch.entities:
            folder = entity_folder(ref)
            mark = fingerprint(folder, stats)
            if mark is not None and all(
                changes.get(f"{folder}/{name}") == "added" for name, _, _ in mark
            ):
                arrivals.pop(mark, None)
                arrivals[mark] = (now, ref)
        paired = {old for old, _ in batch.moved_entities}
        found: list[tuple[layout.EntityRef, layout.EntityRef]] = []
        for ref in batch.removed_entities:
            last = fingerprint(entity_folder(ref), gone) if ref not in paired else None
            arrival = arrivals.get(last) if last is not None else None
            if last is not None and arrival is not None and arrival[1] != ref:
                found.append((ref, arrival[1]))
                del arrivals[last]
        if not found:
            return batch
        return replace(batch, moved_entities=(*batch.moved_entities, *found))
