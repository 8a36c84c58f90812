"""The vault's links: which entities each entity's active facts name (`relatedEntities`),
and the other way round (backlinks), as one index the window keeps; a neighbourhood of it
as a small graph with a deterministic layout.

Design
------
`build` reads every fact file once, decoding only each fact's id, status, supersede links
and `relatedEntities` (a typed decoder skips the texts in C), and keeps the references as
written (`EntityLinks`). The `LinkIndex` resolves each one with `layout.resolve_reference`
(the one rule: an agent's bare id names its own entity first, an archived entity is
followed into archives/) against the entities it knows, and holds both directions:
`links_from(address)` and `backlinks(address)`, each a list of `Link` (source, target, the
ids of the facts that name it).

Kept current without reading the vault again: after a write or a change on disk,
`read_entity_links` reads the one entity and `LinkIndex.replace` swaps its references in;
when entities come or go, `LinkIndex.resolve(addresses)` resolves the kept references again
(no file read). Only active facts link: a superseded version's references are history.

`neighbourhood(address, depth, limit)` is the breadth-first ball around an entity, both
directions, capped at `limit` nodes: a node whose neighbours were not all shown carries
their count (`Graph.more`), for a "+N more" mark. `whole(limit)` is every entity of a small
vault (`TooLargeError` above `limit`). `radial_layout` places a graph's nodes on rings by
depth, each child near its parent's angle; a whole-vault graph gets one such layout per
connected part, side by side. The layout is pure arithmetic: the same graph is always drawn
the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from vault_app.core import errors, formats, layout, process_tuning, storage

WHOLE_VAULT_LIMIT = 400  # entities: a bigger vault's whole graph is refused, not drawn
NEIGHBOURHOOD_LIMIT = 120  # nodes drawn around one entity; the rest are "+N more"


class _LinkFields(msgspec.Struct):
    """The fields of a fact its links depend on, as any JSON values."""

    id: Any = None
    status: Any = None
    supersededBy: Any = None
    supersedes: Any = None
    relatedEntities: Any = None


_LINK_DECODER = msgspec.json.Decoder(list[_LinkFields])
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class EntityLinks:
    """What one entity's active facts name, as written: (fact id, reference) pairs."""

    address: str
    agent: str | None
    references: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Link:
    """`source`'s active facts `fact_ids` name `target` (both entity addresses)."""

    source: str
    target: str
    fact_ids: tuple[str, ...]


def entity_links(ref: layout.EntityRef, path: Path, data: bytes) -> EntityLinks:
    """The references of the active facts of a fact file's bytes; CorruptFileError for a
    file that is not a fact file (as a full decode would say)."""
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    entries: list[Any]
    if not body.strip():
        entries = []
    else:
        try:
            entries = list(_LINK_DECODER.decode(body))
        except (msgspec.MsgspecError, RecursionError):  # a wrapper object, odd entries
            raw, _ = formats.decode_entries(path, data)
            entries = [msgspec.convert(e, _LinkFields) for e in raw if isinstance(e, dict)]
    replaced = {e.supersedes for e in entries if isinstance(e.supersedes, str) and e.supersedes}
    found: list[tuple[str, str]] = []
    for entry in entries:
        related = entry.relatedEntities
        if not isinstance(related, list) or not related or not isinstance(entry.id, str):
            continue
        if entry.status in formats.SUPERSEDED_WORDS or entry.supersededBy or entry.id in replaced:
            continue
        found += [(entry.id, name) for name in related if isinstance(name, str) and name]
    return EntityLinks(str(ref), ref.agent, tuple(found))


def read_entity_links(
    paths: layout.VaultLayout, store: storage.Storage, ref: layout.EntityRef
) -> EntityLinks | None:
    """One entity's references read from disk; None when the entity is gone. A file that
    cannot be read links nowhere (the scan and the entity view report it)."""
    folder = paths.entity_dir(ref)
    if not folder.is_dir():
        return None
    facts = paths.facts_file(folder)
    if facts is None:
        return EntityLinks(str(ref), ref.agent)
    try:
        data = store.read(facts) or b""
        return entity_links(ref, facts, data)
    except (errors.CorruptFileError, OSError):
        return EntityLinks(str(ref), ref.agent)


def build(paths: layout.VaultLayout, store: storage.Storage) -> LinkIndex:
    """The whole vault's link index: every entity's fact file read once, the collector
    paused and the result frozen where the process opted in (`process_tuning.paused`: it holds
    no reference cycle)."""
    addresses: list[str] = []
    found: list[EntityLinks] = []
    with process_tuning.paused(freeze=True):  # a bulk load (where the process opted in)
        for folder in store.entities():
            addresses.append(str(folder.ref))
            if folder.facts_file is None:
                continue
            try:
                data = store.read(folder.facts_file) or b""
                found.append(entity_links(folder.ref, folder.facts_file, data))
            except (errors.CorruptFileError, errors.AccessDeniedError, OSError):
                continue
        return LinkIndex(addresses, found)


@dataclass
class Graph:
    """Entities (`depth` from the centre: 0 is the centre) and the links among them.

    `more[address]`: how many neighbours of that node were left out by the cap.
    `total`: how many entities the ball (or the vault) holds, shown or not.
    """

    centre: str | None
    depth: dict[str, int]
    edges: list[tuple[str, str]]
    more: dict[str, int] = field(default_factory=dict)
    total: int = 0

    @property
    def nodes(self) -> list[str]:
        return list(self.depth)

    @property
    def hidden(self) -> int:
        return self.total - len(self.depth)


class LinkIndex:
    """Both directions of every link among the entities it knows (see the module doc)."""

    def __init__(self, addresses: Iterable[str], links: Iterable[EntityLinks] = ()) -> None:
        self.addresses: set[str] = set(addresses)
        # only the entities it knows link (references of one that is gone are dropped)
        self._written = {e.address: e for e in links if e.address in self.addresses}
        self._outgoing: dict[str, dict[str, tuple[str, ...]]] = {}
        self._incoming: dict[str, dict[str, tuple[str, ...]]] = {}
        self._unresolved: dict[str, dict[str, tuple[str, ...]]] = {}
        self._resolved: dict[tuple[str, str | None], str | None] = {}
        for written in self._written.values():
            self._add(written)

    # -- keeping it current -------------------------------------------------------------

    def _resolve(self, reference: str, agent: str | None) -> str | None:
        key = (reference, agent)
        if key not in self._resolved:  # a few distinct names, named by many facts
            known = self.addresses
            found = layout.resolve_reference(reference, agent, lambda ref: str(ref) in known)
            self._resolved[key] = None if found is None else str(found)
        return self._resolved[key]

    def _add(self, written: EntityLinks) -> None:
        source = written.address
        for fact_id, reference in written.references:
            target = self._resolve(reference, written.agent)
            # tuples, not lists: the collector stops tracking tuples of strings, so a
            # 200,000-fact vault's index adds no 100,000 objects for it to walk
            if target is None:
                names = self._unresolved.setdefault(source, {})
                names[reference] = (*names.get(reference, ()), fact_id)
            elif target != source:
                targets = self._outgoing.setdefault(source, {})
                targets[target] = (*targets.get(target, ()), fact_id)
                sources = self._incoming.setdefault(target, {})
                sources[source] = (*sources.get(source, ()), fact_id)

    def _drop(self, source: str) -> None:
        for target in self._outgoing.pop(source, {}):
            sources = self._incoming.get(target)
            if sources is not None:
                sources.pop(source, None)
                if not sources:
                    del self._incoming[target]
        self._unresolved.pop(source, None)

    def replace(self, written: EntityLinks) -> None:
        """One entity's references as now read (an entity new to the index is added, and
        every reference resolved again: its arrival may make others' resolve)."""
        if written.address not in self.addresses:
            self._written[written.address] = written
            self.resolve([*self.addresses, written.address])
            return
        self._drop(written.address)
        self._written[written.address] = written
        self._add(written)

    def remove(self, address: str) -> None:
        """An entity that is gone: its links go, and the references to it are resolved
        again (to its archived copy, or to nothing)."""
        self._written.pop(address, None)
        self.resolve(self.addresses - {address})

    def resolve(self, addresses: Iterable[str]) -> None:
        """Resolve every kept reference again among `addresses` (entities came or went);
        no file is read."""
        self.addresses = set(addresses)
        for gone in [a for a in self._written if a not in self.addresses]:
            del self._written[gone]
        self._outgoing, self._incoming, self._unresolved = {}, {}, {}
        self._resolved = {}
        for written in self._written.values():
            self._add(written)

    # -- reading ------------------------------------------------------------------------

    def written(self) -> list[EntityLinks]:
        """The references kept, as read (a new list: a snapshot for another index)."""
        return list(self._written.values())

    def links_from(self, address: str) -> list[Link]:
        """The entities `address`'s active facts name, by address."""
        targets = self._outgoing.get(address, {})
        return [Link(address, t, ids) for t, ids in sorted(targets.items())]

    def backlinks(self, address: str) -> list[Link]:
        """The entities whose active facts name `address`, by address."""
        sources = self._incoming.get(address, {})
        return [Link(s, address, ids) for s, ids in sorted(sources.items())]

    def unresolved(self, address: str) -> dict[str, tuple[str, ...]]:
        """References of `address`'s facts that name no entity here: reference → fact ids."""
        return dict(sorted(self._unresolved.get(address, {}).items()))

    def neighbours(self, address: str) -> list[str]:
        """Entities linked to `address` either way, sorted."""
        around = set(self._outgoing.get(address, ())) | set(self._incoming.get(address, ()))
        return sorted(around)

    def link_count(self) -> int:
        return sum(len(targets) for targets in self._outgoing.values())

    def neighbourhood(
        self, address: str, depth: int = 1, limit: int = NEIGHBOURHOOD_LIMIT
    ) -> Graph:
        """The entities within `depth` links of `address` (either way), at most `limit`
        of them: nearer first, then the most linked, then by address."""
        if depth < 0 or limit < 1:
            raise ValueError("depth must be 0 or more and limit 1 or more")
        seen = {address: 0}
        ring = [address]
        for level in range(1, depth + 1):
            nxt: set[str] = set()
            for node in ring:
                nxt.update(n for n in self.neighbours(node) if n not in seen)
            for node in nxt:
                seen[node] = level
            ring = sorted(nxt)
        order = sorted(seen, key=lambda a: (seen[a], -self._degree(a), a))
        shown = {a: seen[a] for a in order[:limit]}
        graph = Graph(address, shown, self._edges_among(shown), total=len(seen))
        for node in shown:
            left = sum(1 for n in self.neighbours(node) if n not in shown)
            if left:
                graph.more[node] = left
        return graph

    def whole(self, limit: int = WHOLE_VAULT_LIMIT) -> Graph:
        """Every entity and link of a vault of at most `limit` entities; TooLargeError
        above (a graph of thousands of dots helps no one, and drawing it stalls)."""
        if len(self.addresses) > limit:
            raise TooLargeError(len(self.addresses), limit)
        depth = dict.fromkeys(sorted(self.addresses), 0)
        return Graph(None, depth, self._edges_among(depth), total=len(depth))

    def _degree(self, address: str) -> int:
        return len(self._outgoing.get(address, ())) + len(self._incoming.get(address, ()))

    def _edges_among(self, nodes: dict[str, int]) -> list[tuple[str, str]]:
        return [
            (source, target)
            for source in nodes
            for target in sorted(self._outgoing.get(source, ()))
            if target in nodes
        ]


class TooLargeError(errors.VaultError):
    """A whole-vault graph asked of a vault above the limit."""

    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(
            f"the vault holds {size:,} entities: the whole-vault graph is drawn for up to "
            f"{limit:,}. Open an entity's neighbourhood instead."
        )


# -- layout ------------------------------------------------------------------------------

RING = 170.0  # distance between rings, in scene units (a node is about 30 wide)


def radial_layout(graph: Graph) -> dict[str, tuple[float, float]]:
    """Positions for every node: a neighbourhood on rings by depth around its centre, each
    node near its parent's angle; a whole vault as one such layout per connected part
    (biggest first, rooted at its most linked entity), in rows."""
    if graph.centre is not None:
        return _rings(graph.centre, graph.depth, _adjacency(graph))
    adjacency = _adjacency(graph)
    parts = sorted(_parts(graph.nodes, adjacency), key=lambda p: (-len(p), p[0]))
    placed: dict[str, tuple[float, float]] = {}
    x = y = row_height = 0.0
    width = RING * 12
    for part in parts:
        root = min(part, key=lambda a: (-len(adjacency[a]), a))
        depth = _bfs_depth(root, adjacency)
        rings = _rings(root, depth, adjacency)
        radius = max((math.hypot(px, py) for px, py in rings.values()), default=0.0) + 60
        if x > 0 and x + 2 * radius > width:
            x, y, row_height = 0.0, y + row_height, 0.0
        for node, (px, py) in rings.items():
            placed[node] = (x + radius + px, y + radius + py)
        x += 2 * radius
        row_height = max(row_height, 2 * radius)
    return placed


def _adjacency(graph: Graph) -> dict[str, list[str]]:
    around: dict[str, set[str]] = {node: set() for node in graph.depth}
    for a, b in graph.edges:
        around[a].add(b)
        around[b].add(a)
    return {node: sorted(n) for node, n in around.items()}


def _parts(nodes: list[str], adjacency: dict[str, list[str]]) -> Iterator[list[str]]:
    seen: set[str] = set()
    for start in sorted(nodes):
        if start in seen:
            continue
        seen.add(start)
        part, stack = [], [start]
        while stack:
            node = stack.pop()
            part.append(node)
            for n in adjacency[node]:
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        yield sorted(part)


def _bfs_depth(root: str, adjacency: dict[str, list[str]]) -> dict[str, int]:
    depth = {root: 0}
    ring = [root]
    while ring:
        nxt = []
        for node in ring:
            for n in adjacency[node]:
                if n not in depth:
                    depth[n] = depth[node] + 1
                    nxt.append(n)
        ring = nxt
    return depth


def _rings(
    centre: str, depth: dict[str, int], adjacency: dict[str, list[str]]
) -> dict[str, tuple[float, float]]:
    """Ring `d` at radius `d × RING` (wider when crowded); the first ring evenly spaced,
    each further node ordered by its parent's angle so that branches stay together."""
    angle = {centre: 0.0}
    placed = {centre: (0.0, 0.0)}
    levels: dict[int, list[str]] = {}
    for node, d in depth.items():
        if d > 0:
            levels.setdefault(d, []).append(node)
    radius = 0.0
    for d in sorted(levels):

        def parent_angle(node: str, d: int = d) -> tuple[float, str]:
            parents = [angle[n] for n in adjacency.get(node, ()) if depth.get(n) == d - 1]
            return (min(parents) if parents else 0.0, node)

        ring = sorted(levels[d], key=parent_angle if d > 1 else (lambda n: (0.0, n)))
        # at least 46 units of arc a node, so that labels of one ring do not pile up
        radius = max(radius + RING, len(ring) * 46 / (2 * math.pi))
        for i, node in enumerate(ring):
            theta = 2 * math.pi * i / len(ring) - math.pi / 2
            angle[node] = (theta + math.pi / 2) % (2 * math.pi)
            placed[node] = (radius * math.cos(theta), radius * math.sin(theta))
    return placed
