"""Qt item models over the core: the sidebar tree and the facts table (with its filter).

Design
------
Models adapt core objects and never touch widgets (views render; `entity_view` wires).

* `SidebarModel` is a tree built from a `core.vault.VaultScan`: Global (the PARA
  categories with their nested groups, and the global daily notes), Agents (each with its
  Workspace PARA tree, Daily notes, TACIT.md and CONTEXT.md) and Principles
  (`global/AGENTS.md`). Every row carries a `Node` (`NODE_ROLE`) saying what it is and
  where it leads; counts (Active, Hot, Warm, Cold) add up along the tree. Live sync calls
  `update(scan)` often, so an update never resets the model: the new tree is compared with
  the shown one by stable keys, rows are removed and inserted precisely
  (begin/endRemoveRows, begin/endInsertRows) and only the rows whose counts or problems
  changed emit `dataChanged`. Selection and expanded branches survive.
* `FactsModel` is the table of one entity's facts (file order; the proxy sorts).
  `update_facts` keeps the rows of the same entity stable by fact id.
* `FactsFilterProxy` filters by tiers, category, status and words; sorting is numeric
  where it should be, through `SORT_ROLE`.
* `TierBadgeDelegate` paints a tier as a coloured pill.
"""

from __future__ import annotations

import datetime as dt
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import layout, memory, models, vault

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex

_ROOT = QtCore.QModelIndex()  # the invisible root (default `parent` argument)

NODE_ROLE = Role.UserRole + 10
FACT_ROLE = Role.UserRole + 11
TIER_ROLE = Role.UserRole + 12  # "hot" / "warm" / "cold" (Qt hands str enums back as str)
SORT_ROLE = Role.UserRole + 13

TIER_COLOURS = {
    models.DecayTier.HOT: "#d9480f",
    models.DecayTier.WARM: "#e8a200",
    models.DecayTier.COLD: "#4a7fb5",
}
PROBLEM_COLOUR = "#e03131"
CATEGORY_TITLES = {
    "projects": "Projects",
    "areas": "Areas",
    "resources": "Resources",
    "archives": "Archives",
}
AGENT_DOCUMENTS = ("TACIT.md", "CONTEXT.md")


def disabled_text() -> QtGui.QColor:
    palette = QtGui.QGuiApplication.palette()
    return palette.color(QtGui.QPalette.ColorGroup.Disabled, QtGui.QPalette.ColorRole.Text)


# -- flat lists ---------------------------------------------------------------------------


class RowListModel(QtCore.QAbstractListModel):
    """A flat list of rows, replaced whole by `set_rows`; a subclass says what each role
    of a row shows (`row_data`). Search results and the quick switcher's matches."""

    row_data: Callable[[Any, int], Any]  # what a row shows for a role (each subclass)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        return self.row_data(self._rows[index.row()], role)

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rows(self) -> list[Any]:
        return list(self._rows)


# -- the sidebar --------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """What a sidebar row stands for (read it with `NODE_ROLE`).

    kind: 'scope' (Global / Agents), 'category', 'group', 'entity', 'agent', 'workspace',
    'daily', 'document' (TACIT.md / CONTEXT.md of `agent`) or 'principles' (AGENTS.md).
    scope: 'global', 'agents' or 'agent:ID'. path: the PARA path of a category, group or
    entity (`areas/people`). address: an entity's address (`agent:finance:projects/x`).
    agent: the agent id, None for global. document: the file name of a document row.
    """

    kind: str
    name: str
    scope: str = layout.GLOBAL_SCOPE
    path: str | None = None
    address: str | None = None
    agent: str | None = None
    document: str | None = None


Counts = tuple[int, int, int, int]  # active, hot, warm, cold
_SWAP_AT = 256  # more changed rows than this: swap trees (SidebarModel._swap), not copy rows
_ZERO: Counts = (0, 0, 0, 0)


@dataclass(eq=False)
class _Item:
    """A row of the tree: its node, shown state, and place among its siblings.

    The link to the parent is weak, so a tree holds no reference cycle: one dropped (the
    fresh tree of a rescan, once merged) is freed at once, even after `gc.freeze` (see
    `core.memory`) has put it out of the collector's reach.
    """

    key: tuple[str, ...]
    node: Node
    own: Counts | None = None  # an entity's own counts; None on rows without counts
    counts: Counts | None = None  # own + everything below
    problem: str | None = None
    dimmed: bool = False
    tooltip: str = ""
    up: weakref.ref[_Item] | None = None
    row: int = 0
    children: list[_Item] = field(default_factory=list)

    @property
    def parent(self) -> _Item | None:
        return self.up() if self.up is not None else None

    @parent.setter
    def parent(self, item: _Item | None) -> None:
        self.up = weakref.ref(item) if item is not None else None

    def add(self, child: _Item) -> _Item:
        child.parent = self
        child.row = len(self.children)
        self.children.append(child)
        return child

    def renumber(self, start: int = 0) -> None:
        for row in range(start, len(self.children)):
            self.children[row].parent = self
            self.children[row].row = row

    def shown(self) -> tuple[Any, ...]:
        return (self.node, self.counts, self.problem, self.dimmed, self.tooltip)

    def walk(self) -> Iterator[_Item]:
        yield self
        for child in self.children:
            yield from child.walk()


class _Tree:
    """A built tree, flattened depth first, with what comparing it to the shown one needs
    (each row's key and shown state, entities by address), all worked out where the tree
    was built: on a worker for a big vault, so the window only copies what changed.

    `changed`: when built `against` the tree on show and holding the same rows, the
    positions (in `items`) whose shown state differs; None when the rows differ.
    """

    def __init__(self, root: _Item, against: _Tree | None = None) -> None:
        self.root = root
        items: list[_Item] = []
        stack = [root]
        while stack:  # iterative: nested generators cost a frame per level per row
            item = stack.pop()
            items.append(item)
            stack.extend(reversed(item.children))
        self.items = items
        self.keys = [item.key for item in items]
        self.by_key = dict(zip(self.keys, items, strict=True))
        self.shown = [item.shown() for item in items]
        self.by_address = {
            item.node.address: item
            for item in items
            if item.node.kind == "entity" and item.node.address
        }
        self.against = against
        self.changed = self.changed_since(against) if against is not None else None

    def changed_since(self, old: _Tree) -> list[int] | None:
        """Positions whose shown state differs from `old` (the root aside), or None when
        the rows themselves differ."""
        if old.keys != self.keys:
            return None
        before = old.shown
        return [i for i, new in enumerate(self.shown) if i and new != before[i]]


def _relative_folder(scope: str, path: str) -> str:
    """The vault-relative folder of an entity (scan problems are named this way)."""
    if scope == layout.GLOBAL_SCOPE:
        return f"global/life/{path}"
    return f"agents/{scope.removeprefix('agent:')}/workspace/{path}"


class _TreeBuilder:
    """Builds the whole sidebar tree from a scan (cheap: no disk access)."""

    def __init__(self, scan: vault.VaultScan | None, agents: Sequence[str]) -> None:
        self.scan = scan
        self.agents = list(agents)
        self.nodes: dict[tuple[str, ...], _Item] = {}
        self.folders: dict[str, _Item] = {}

    def build(self) -> _Item:
        root = _Item(("root",), Node("scope", ""))
        glob = root.add(_Item(("scope", "global"), Node("scope", "Global")))
        glob.tooltip = "The shared knowledge graph (global/life)"
        self._para(glob, layout.GLOBAL_SCOPE, None)
        glob.add(
            _Item(
                ("daily", "global"),
                Node("daily", "Daily notes", layout.GLOBAL_SCOPE),
                tooltip="The global daily notes (global/daily)",
            )
        )
        agents = root.add(_Item(("scope", "agents"), Node("scope", "Agents", "agents")))
        agents.tooltip = "Each agent's own workspace, daily notes and documents"
        for agent_id in self.agents:
            self._agent(agents, agent_id)
        root.add(
            _Item(
                ("principles",),
                Node("principles", "Principles", document=vault.PRINCIPLES),
                tooltip="global/AGENTS.md: the rules every agent follows",
            )
        )
        if self.scan is not None:
            for summary in self.scan.entities:
                self._entity(summary)
            self._problems(self.scan.problems)
        self._sort(root)
        _total(root)
        if self.scan is not None and not self.scan.counted:  # a listing: counts unknown yet
            for item in root.walk():
                item.counts = None
        return root

    def _para(self, parent: _Item, scope: str, agent: str | None) -> None:
        for category in layout.PARA_CATEGORIES:
            item = parent.add(
                _Item(
                    ("node", scope, category),
                    Node("category", CATEGORY_TITLES[category], scope, category, agent=agent),
                    own=_ZERO,
                    dimmed=category == "archives",
                    tooltip=_category_tip(category),
                )
            )
            self.nodes[item.key] = item

    def _agent(self, parent: _Item, agent_id: str) -> None:
        scope = f"agent:{agent_id}"
        item = parent.add(
            _Item(("agent", agent_id), Node("agent", agent_id, scope, agent=agent_id))
        )
        item.tooltip = f"Agent {agent_id} (agents/{agent_id})"
        workspace = item.add(
            _Item(
                ("workspace", agent_id),
                Node("workspace", "Workspace", scope, agent=agent_id),
                tooltip=f"The PARA workspace of {agent_id} (agents/{agent_id}/workspace)",
            )
        )
        self._para(workspace, scope, agent_id)
        item.add(
            _Item(
                ("daily", scope),
                Node("daily", "Daily notes", scope, agent=agent_id),
                tooltip=f"The daily notes of {agent_id}",
            )
        )
        for name in AGENT_DOCUMENTS:
            item.add(
                _Item(
                    ("document", agent_id, name),
                    Node("document", name, scope, agent=agent_id, document=name),
                    tooltip=f"agents/{agent_id}/{name}",
                )
            )

    def _entity(self, summary: models.EntitySummary) -> None:
        scope = summary.scope
        if ("node", scope, summary.path.split("/", 1)[0]) not in self.nodes:
            return  # an agent the agent list does not name (scan raced a change)
        agent = None if scope == layout.GLOBAL_SCOPE else scope.removeprefix("agent:")
        parts = summary.path.split("/")
        parent = self.nodes[("node", scope, parts[0])]
        for depth in range(2, len(parts)):
            path = "/".join(parts[:depth])
            key = ("node", scope, path)
            if key not in self.nodes:
                self.nodes[key] = parent.add(
                    _Item(
                        key,
                        Node("group", _group_title(parts[depth - 1]), scope, path, agent=agent),
                        own=_ZERO,
                        dimmed=parent.dimmed,
                        tooltip=f"{path}/",
                    )
                )
            parent = self.nodes[key]
        key = ("node", scope, summary.path)
        item = self.nodes.get(key)
        if item is None:
            item = self.nodes[key] = parent.add(_Item(key, Node("entity", "")))
        ref = layout.EntityRef(agent, summary.path)
        item.node = Node("entity", ref.title, scope, summary.path, summary.address, agent)
        item.own = (summary.active, summary.hot, summary.warm, summary.cold)
        item.dimmed = parent.dimmed
        superseded = f", {summary.superseded} superseded" if summary.superseded else ""
        item.tooltip = f"{summary.address}\n{summary.total} facts{superseded}"
        if summary.problem:
            item.problem = f"The facts cannot be read: {summary.problem}"
        self.folders[_relative_folder(scope, summary.path)] = item

    def _problems(self, problems: Iterable[models.Problem]) -> None:
        for problem in problems:
            parts = problem.path.split("/")
            for end in range(len(parts), 0, -1):
                item = self.folders.get("/".join(parts[:end]))
                if item is None:
                    continue
                where = f" ({problem.location})" if problem.location else ""
                line = f"{problem.path}{where}: {problem.message}"
                if item.problem is None:
                    item.problem = line
                elif problem.message not in item.problem:
                    item.problem = f"{item.problem}\n{line}"
                break

    def _sort(self, item: _Item) -> None:
        if item.node.kind in {"category", "group", "entity"}:
            # groups first, then entities, each by name (as a file browser does)
            item.children.sort(key=lambda c: (c.node.kind != "group", c.node.name.casefold()))
            item.renumber()
        for child in item.children:
            self._sort(child)


def _group_title(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").title()


def _category_tip(category: str) -> str:
    return {
        "projects": "Active work with a goal",
        "areas": "Ongoing responsibilities (with people/ and companies/ groups)",
        "resources": "Reference topics",
        "archives": "Inactive entities, kept for reference",
    }[category]


def _total(item: _Item) -> Counts | None:
    """Set `counts` on every row: its own counts plus those of everything below it."""
    sums = list(item.own) if item.own is not None else None
    for child in item.children:
        counts = _total(child)
        if counts is not None:
            sums = [a + b for a, b in zip(sums or _ZERO, counts, strict=True)]
    item.counts = tuple(sums) if sums is not None else None  # type: ignore[assignment]
    return item.counts


class _Columns:
    """Header and flags of a read-only model with named columns (`COLUMNS`, with a
    tooltip each in `COLUMN_TIPS`); columns from `RIGHT_FROM` on are right-aligned."""

    COLUMNS: tuple[str, ...] = ()
    COLUMN_TIPS: tuple[str, ...] = ()
    RIGHT_FROM: int | None = None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Role.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.COLUMNS):
            return None
        if role == Role.DisplayRole:
            return self.COLUMNS[section]
        if role == Role.ToolTipRole:
            return self.COLUMN_TIPS[section]
        right = self.RIGHT_FROM is not None and section >= self.RIGHT_FROM
        if role == Role.TextAlignmentRole and right:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class SidebarModel(_Columns, QtCore.QAbstractItemModel):
    """The sidebar tree over a vault scan; `update` keeps the views' state."""

    COLUMNS = ("Name", "Active", "Hot", "Warm", "Cold")
    RIGHT_FROM = 1  # the counts
    COLUMN_TIPS = (
        "Entities, agents and documents",
        "Active facts (not superseded)",
        "Facts used recently",
        "Facts not used for a while",
        "Facts not used for a long time",
    )

    def __init__(
        self,
        scan: vault.VaultScan | None = None,
        agents: Sequence[str] | None = None,
        parent: QtCore.QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._tree = _Tree(_TreeBuilder(scan, _agents(scan, agents)).build())
        self._retired: list[Any] = []

    # -- building -------------------------------------------------------------------------

    @property
    def _root(self) -> _Item:
        return self._tree.root

    @property
    def _by_address(self) -> dict[str, _Item]:
        return self._tree.by_address

    @property
    def tree(self) -> _Tree:
        """The tree on show, to build the next one `against` (see `build`)."""
        return self._tree

    @staticmethod
    def build(
        scan: vault.VaultScan, agents: Sequence[str] | None = None, *, against: _Tree | None = None
    ) -> _Tree:
        """The tree of a scan, built without Qt: call it on a worker for a big vault
        (10,000 entities take ~0.1 s) and hand the result to `update(scan, tree=...)`.
        Built `against` the tree on show (`tree`), it also knows which rows changed.
        The collector is paused meanwhile and the rows frozen: a full collection in the
        middle held the interpreter for 90-140 ms, so the window too."""
        with memory.paused(freeze=True):
            return _Tree(_TreeBuilder(scan, _agents(scan, agents)).build(), against)

    def update(
        self, scan: vault.VaultScan, agents: Sequence[str] | None = None, *, tree: Any = None
    ) -> None:
        """Show a new scan: precise row inserts/removals, dataChanged for changed rows."""
        fresh: _Tree = tree if tree is not None else self.build(scan, agents, against=self._tree)
        # Rows taken out stay alive (until the next update) rather than be freed at once:
        # Qt may still look at them, through their index, before endRemoveRows and
        # endResetModel (rows link to their parent weakly, so nothing else holds them).
        self._retired = [self._root]
        if not self._by_address:
            # the first entities (the window just opened): nothing is selected or open
            # below the top rows yet, so a reset costs the view nothing, where a merge of
            # 10,000 rows held the window for 150 ms
            self.beginResetModel()
            self._tree = fresh
            self.endResetModel()
        elif not self._refresh_in_place(fresh):
            self._merge(self._root, fresh.root, QtCore.QModelIndex())
            self._tree = _Tree(self._root)  # rows came and went: flatten again

    def _refresh_in_place(self, fresh: _Tree) -> bool:
        """The common case of a rescan: the same rows, new counts. The rows whose shown
        state changed (known from the worker when `fresh` was built against the tree on
        show) take their new values, announced with one dataChanged per parent; False
        (nothing done) when rows were added, removed or moved."""
        current = self._tree
        fresh_against_current = fresh.against is current and fresh.changed is not None
        changed = fresh.changed if fresh_against_current else fresh.changed_since(current)
        if changed is None:
            return False
        if len(changed) > _SWAP_AT:
            self._swap(fresh)
            return True
        spans: dict[int, tuple[_Item, _Item]] = {}
        items, twins = current.items, fresh.items
        for i in changed:
            item, twin = items[i], twins[i]
            item.node, item.counts, item.problem = twin.node, twin.counts, twin.problem
            item.own, item.dimmed, item.tooltip = twin.own, twin.dimmed, twin.tooltip
            parent = id(item.parent)
            first, _ = spans.get(parent, (item, item))
            spans[parent] = (first, item)
        current.shown = fresh.shown
        last = len(self.COLUMNS) - 1
        for first, end in spans.values():
            self.dataChanged.emit(
                self.createIndex(first.row, 0, first), self.createIndex(end.row, last, end)
            )
        return True

    def _swap(self, fresh: _Tree) -> None:
        """Show `fresh` (the same rows, many of them changed) in place of the tree on show,
        as a layout change: the view's persistent indexes (what is open, selected, current)
        move to the twin rows, so nothing of the view's state is lost, and only the rows
        in sight are read again. Copying thousands of rows' values one by one held the
        window for up to 100 ms (the first counts after the listing change every row)."""
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        after = []
        for index in before:
            twin = fresh.by_key.get(index.internalPointer().key)
            after.append(
                self.createIndex(twin.row, index.column(), twin)
                if twin is not None
                else QtCore.QModelIndex()
            )
        self.changePersistentIndexList(before, after)
        self._tree = fresh
        self.layoutChanged.emit()

    def _merge(self, old: _Item, new: _Item, parent: QtCore.QModelIndex) -> None:
        wanted = {child.key: child for child in new.children}
        self._remove_missing(old, wanted, parent)
        kept = {child.key for child in old.children}
        if [c.key for c in old.children] != [c.key for c in new.children if c.key in kept]:
            self._replace_children(old, new, parent)  # reordered (a group became an entity)
            return
        self._insert_new(old, new, kept, parent)
        last = len(self.COLUMNS) - 1
        pairs = [(child, wanted[child.key]) for child in old.children]
        pairs = [(child, twin) for child, twin in pairs if twin is not child]  # not inserted
        changed = [child for child, twin in pairs if child.shown() != twin.shown()]
        for child in changed:
            twin = wanted[child.key]
            child.node, child.counts, child.problem = twin.node, twin.counts, twin.problem
            child.own, child.dimmed, child.tooltip = twin.own, twin.dimmed, twin.tooltip
        if changed:  # one signal per parent: 10,000 rows counted at once stay one repaint
            first, end = changed[0], changed[-1]
            self.dataChanged.emit(
                self.createIndex(first.row, 0, first), self.createIndex(end.row, last, end)
            )
        for child, twin in pairs:
            self._merge(child, twin, self.createIndex(child.row, 0, child))

    def _remove_missing(
        self, old: _Item, wanted: dict[tuple[str, ...], _Item], parent: QtCore.QModelIndex
    ) -> None:
        end = len(old.children) - 1
        while end >= 0:
            if old.children[end].key in wanted:
                end -= 1
                continue
            start = end
            while start > 0 and old.children[start - 1].key not in wanted:
                start -= 1
            self.beginRemoveRows(parent, start, end)
            self._retired.append(old.children[start : end + 1])
            del old.children[start : end + 1]
            old.renumber(start)
            self.endRemoveRows()
            end = start - 1

    def _insert_new(
        self, old: _Item, new: _Item, kept: set[tuple[str, ...]], parent: QtCore.QModelIndex
    ) -> None:
        row = 0
        while row < len(new.children):
            if new.children[row].key in kept:
                row += 1
                continue
            end = row
            while end + 1 < len(new.children) and new.children[end + 1].key not in kept:
                end += 1
            self.beginInsertRows(parent, row, end)
            old.children[row:row] = new.children[row : end + 1]
            old.renumber(row)
            self.endInsertRows()
            row = end + 1

    def _replace_children(self, old: _Item, new: _Item, parent: QtCore.QModelIndex) -> None:
        if old.children:
            self.beginRemoveRows(parent, 0, len(old.children) - 1)
            self._retired.append(old.children)
            old.children = []
            self.endRemoveRows()
        if new.children:
            self.beginInsertRows(parent, 0, len(new.children) - 1)
            old.children = list(new.children)
            old.renumber()
            self.endInsertRows()

    # -- lookups --------------------------------------------------------------------------

    def index_for_address(self, address: str) -> QtCore.QModelIndex:
        """The row of an entity (`areas/people/jane`, `global:…`, `agent:ID:…`), or invalid."""
        try:
            key = str(layout.EntityRef.parse(address))
        except Exception:  # an address typed by hand: nothing to select
            return QtCore.QModelIndex()
        item = self._by_address.get(key)
        return QtCore.QModelIndex() if item is None else self.createIndex(item.row, 0, item)

    def index_for_node(self, predicate: Callable[[Node], bool]) -> QtCore.QModelIndex:
        """The first row (depth first) whose node matches, e.g. an agent's TACIT.md."""
        for item in self._tree.items:
            if item is not self._root and predicate(item.node):
                return self.createIndex(item.row, 0, item)
        return QtCore.QModelIndex()

    def addresses(self) -> list[str]:
        return sorted(self._by_address)

    def node(self, index: Index) -> Node | None:
        return self._item(index).node if index.isValid() else None

    # -- the Qt model interface -----------------------------------------------------------

    def _item(self, index: Index) -> _Item:
        return index.internalPointer() if index.isValid() else self._root  # type: ignore[no-any-return]

    def index(self, row: int, column: int, parent: Index = _ROOT) -> QtCore.QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QtCore.QModelIndex()
        return self.createIndex(row, column, self._item(parent).children[row])

    def parent(self, child: Index | None = None) -> Any:  # type: ignore[override]
        if child is None:
            return super().parent()
        if not child.isValid():
            return QtCore.QModelIndex()
        up = self._item(child).parent
        if up is None or up is self._root:
            return QtCore.QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: Index = _ROOT) -> int:
        if parent.column() > 0:
            return 0
        return len(self._item(parent).children)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return len(self.COLUMNS)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self._item(index)
        column = index.column()
        if role == NODE_ROLE:
            return item.node
        if role == Role.DisplayRole:
            if column == 0:
                return item.node.name
            return None if item.counts is None else item.counts[column - 1]
        if role == Role.ToolTipRole:
            return item.problem or item.tooltip or None
        if role == Role.ForegroundRole:
            if item.problem:
                return QtGui.QBrush(QtGui.QColor(PROBLEM_COLOUR))
            if item.dimmed:
                return QtGui.QBrush(disabled_text())
            return None
        if role == Role.FontRole and item.node.kind in {"scope", "principles"}:
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == Role.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Role.AccessibleTextRole and column == 0:
            return f"{item.node.name}, {item.problem}" if item.problem else item.node.name
        return None


def _agents(scan: vault.VaultScan | None, agents: Sequence[str] | None) -> list[str]:
    if agents is not None:
        return sorted(agents)
    return sorted(scan.agents) if scan is not None else []


# -- the facts table ----------------------------------------------------------------------

TierOf = Callable[[models.Fact], models.DecayTier]


@dataclass
class _FactRow:
    fact: models.Fact
    tier: models.DecayTier | None
    lineage: str | None


def _when(moment: dt.datetime | None) -> str:
    if moment is None:
        return "never"
    local = moment.astimezone() if moment.tzinfo else moment
    return local.strftime("%Y-%m-%d %H:%M")


def _timestamp(moment: dt.datetime | None) -> float:
    if moment is None:
        return -1.0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def is_retracted(fact: models.Fact) -> bool:
    """A fact withdrawn by undo: superseded by nothing (the fact itself stays)."""
    return not fact.is_active and fact.superseded_by is None


def status_text(fact: models.Fact) -> str:
    if fact.is_active:
        return "Active"
    return "Withdrawn" if is_retracted(fact) else "Superseded"


def _shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lineage(fact: models.Fact, by_id: dict[str, models.Fact]) -> str | None:
    """Plain-words history of a fact within its entity (old → new), or None."""
    walk = models.walk_lineage(fact, by_id.get)
    position = next(i for i, step in enumerate(walk.chain) if step.id == fact.id)
    lines = [f"was: {_shorten(step.fact)}" for step in walk.chain[:position]]
    lines += [f"now: {_shorten(step.fact)}" for step in walk.chain[position + 1 :]]
    if walk.missing_before is not None:
        lines.insert(0, f"was: {walk.missing_before}")
    if walk.missing_after is not None:
        lines.append(f"now: {walk.missing_after}")
    if is_retracted(fact):
        lines.append("withdrawn (an edit was undone); the fact is kept in history")
    if not lines:
        return None
    head = (
        f"Superseded by {fact.superseded_by}"
        if fact.superseded_by
        else "History of this fact (old → new)"
    )
    return "\n".join([head, *lines])


class FactsModel(_Columns, QtCore.QAbstractTableModel):
    """The facts of one entity, in file order; the proxy filters and sorts."""

    COLUMNS = (
        "Fact",
        "Category",
        "Tier",
        "Last accessed",
        "Accesses",
        "Confidence",
        "Agent",
        "Status",
    )
    COLUMN_TIPS = (
        "The fact itself",
        "Relationship, milestone, status, preference or context",
        "Hot: used recently; Warm: a while ago; Cold: long ago",
        "When the fact was last read by an agent",
        "How many times the fact was read",
        "How sure the writer was (0 to 1)",
        "The agent that wrote the fact",
        "Active, or superseded by a newer fact (kept in history)",
    )
    FACT, CATEGORY, TIER, ACCESSED, ACCESSES, CONFIDENCE, AGENT, STATUS = range(8)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.address: str | None = None
        self._rows: list[_FactRow] = []

    def set_facts(
        self,
        ref: layout.EntityRef | str | None,
        facts: Sequence[models.Fact],
        tier_of: TierOf,
    ) -> None:
        """Show the facts of another entity (a reset)."""
        self.beginResetModel()
        self.address = None if ref is None else str(ref)
        self._rows = _rows(facts, tier_of)
        self.endResetModel()

    def update_facts(
        self,
        ref: layout.EntityRef | str | None,
        facts: Sequence[models.Fact],
        tier_of: TierOf,
    ) -> None:
        """Show the same entity again: rows keep their place; new facts are inserted."""
        address = None if ref is None else str(ref)
        fresh = _rows(facts, tier_of)
        old_ids = [row.fact.id for row in self._rows]
        new_ids = {row.fact.id for row in fresh}
        if address != self.address or any(i not in new_ids for i in old_ids):
            self.set_facts(ref, facts, tier_of)
            return
        if [r.fact.id for r in fresh if r.fact.id in set(old_ids)] != old_ids:
            self.set_facts(ref, facts, tier_of)  # reordered on disk
            return
        last = len(self.COLUMNS) - 1
        known = set(old_ids)
        for row, item in enumerate(fresh):
            if item.fact.id in known:
                current = self._rows[row]
                if (current.fact, current.tier, current.lineage) != (
                    item.fact,
                    item.tier,
                    item.lineage,
                ):
                    self._rows[row] = item
                    self.dataChanged.emit(self.index(row, 0), self.index(row, last))
            else:
                self.beginInsertRows(QtCore.QModelIndex(), row, row)
                self._rows.insert(row, item)
                self.endInsertRows()

    def facts(self) -> list[models.Fact]:
        return [row.fact for row in self._rows]

    def row_of(self, fact_id: str) -> int:
        for row, item in enumerate(self._rows):
            if item.fact.id == fact_id:
                return row
        return -1

    def fact_at(self, row: int) -> models.Fact:
        return self._rows[row].fact

    # -- the Qt model interface -----------------------------------------------------------

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == FACT_ROLE:
            return item.fact
        if role == TIER_ROLE:
            return None if item.tier is None else item.tier.value
        if role == Role.DisplayRole:
            return _display(item, column)
        if role == SORT_ROLE:
            return _sort_key(item, column)
        if role == Role.ToolTipRole:
            return _tooltip(item, column)
        if role == Role.ForegroundRole and not item.fact.is_active:
            return QtGui.QBrush(disabled_text())
        if role == Role.FontRole and not item.fact.is_active:
            font = QtGui.QFont()
            font.setItalic(True)
            return font
        if role == Role.TextAlignmentRole and column in {self.ACCESSES, self.CONFIDENCE}:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _rows(facts: Sequence[models.Fact], tier_of: TierOf) -> list[_FactRow]:
    by_id = {fact.id: fact for fact in facts}
    return [
        _FactRow(fact, tier_of(fact) if fact.is_active else None, _lineage(fact, by_id))
        for fact in facts
    ]


def _display(item: _FactRow, column: int) -> Any:
    fact = item.fact
    if column == FactsModel.FACT:
        return " ".join(fact.fact.split())
    if column == FactsModel.CATEGORY:
        return fact.category.value.capitalize()
    if column == FactsModel.TIER:
        return item.tier.value.capitalize() if item.tier else ""
    if column == FactsModel.ACCESSED:
        return _when(fact.last_accessed)
    if column == FactsModel.ACCESSES:
        return str(fact.access_count)
    if column == FactsModel.CONFIDENCE:
        return f"{float(fact.confidence):.2f}"
    if column == FactsModel.AGENT:
        return fact.agent_id or ""
    return status_text(fact)


_TIER_ORDER = {models.DecayTier.HOT: 0, models.DecayTier.WARM: 1, models.DecayTier.COLD: 2}


def _sort_key(item: _FactRow, column: int) -> Any:
    fact = item.fact
    if column == FactsModel.FACT:
        return fact.fact.casefold()
    if column == FactsModel.TIER:
        return _TIER_ORDER.get(item.tier, 3) if item.tier else 3
    if column == FactsModel.ACCESSED:
        return _timestamp(fact.last_accessed)
    if column == FactsModel.ACCESSES:
        return float(fact.access_count)
    if column == FactsModel.CONFIDENCE:
        return float(fact.confidence)
    return str(_display(item, column)).casefold()


def _tooltip(item: _FactRow, column: int) -> str | None:
    fact = item.fact
    parts: list[str] = []
    if column == FactsModel.FACT:
        parts.append(fact.fact)
        if fact.related_entities:
            parts.append("Related: " + ", ".join(fact.related_entities))
        if fact.source_text:
            parts.append(f"Source: {fact.source_text}")
    elif column == FactsModel.ACCESSED:
        parts.append(f"Last accessed: {_when(fact.last_accessed)}")
        parts.append(f"Written: {_when(fact.timestamp)}")
    elif column == FactsModel.TIER and item.tier:
        parts.append(f"{item.tier.value.capitalize()}: {_TIER_TIPS[item.tier]}")
    if item.lineage and column in {FactsModel.FACT, FactsModel.STATUS}:
        parts.append(item.lineage)
    elif column == FactsModel.STATUS and fact.is_active:
        parts.append("Active: the current version of this fact")
    return "\n\n".join(parts) or None


_TIER_TIPS = {
    models.DecayTier.HOT: "used recently",
    models.DecayTier.WARM: "not used for a while",
    models.DecayTier.COLD: "not used for a long time",
}


class FactsFilterProxy(QtCore.QSortFilterProxyModel):
    """Filters facts by tiers, category, status ('active', 'all', 'superseded') and words."""

    STATUSES = ("active", "all", "superseded")

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.tiers: frozenset[models.DecayTier] = frozenset(models.DecayTier)
        self.category: models.FactCategory | None = None
        self.status = "active"
        self.words: tuple[str, ...] = ()
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def set_tiers(self, tiers: Iterable[models.DecayTier | str]) -> None:
        self._change(tiers=frozenset(models.DecayTier(t) for t in tiers))

    def set_category(self, category: models.FactCategory | str | None) -> None:
        self._change(category=models.FactCategory(category) if category else None)

    def set_status(self, status: str) -> None:
        if status not in self.STATUSES:
            raise ValueError(f"status must be one of {', '.join(self.STATUSES)}")
        self._change(status=status)

    def set_text(self, text: str) -> None:
        self._change(words=tuple(text.casefold().split()))

    def _change(self, **values: Any) -> None:
        if all(getattr(self, name) == value for name, value in values.items()):
            return
        self.beginFilterChange()
        for name, value in values.items():
            setattr(self, name, value)
        self.endFilterChange(QtCore.QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        source = self.sourceModel()
        index = source.index(source_row, 0, source_parent)
        fact: models.Fact | None = source.data(index, FACT_ROLE)
        if fact is None:
            return False
        if self.status == "active" and not fact.is_active:
            return False
        if self.status == "superseded" and fact.is_active:
            return False
        if fact.is_active and source.data(index, TIER_ROLE) not in self.tiers:
            return False
        if self.category is not None and fact.category is not self.category:
            return False
        if self.words:
            haystack = " ".join(
                [
                    fact.fact,
                    fact.category.value,
                    fact.source_text or "",
                    fact.agent_id or "",
                    *fact.related_entities,
                ]
            ).casefold()
            return all(word in haystack for word in self.words)
        return True


# -- the tier badge -----------------------------------------------------------------------


def badge_text_colour(background: QtGui.QColor) -> QtGui.QColor:
    """Dark text on light pills, white on dark ones (relative luminance)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    lum = (
        0.2126 * channel(background.redF())
        + 0.7152 * channel(background.greenF())
        + 0.0722 * channel(background.blueF())
    )
    return QtGui.QColor("#1a1a1a") if lum > 0.3 else QtGui.QColor("#ffffff")


class TierBadgeDelegate(QtWidgets.QStyledItemDelegate):
    """Paints the tier (`TIER_ROLE`) as a coloured rounded pill: Hot, Warm, Cold."""

    PADDING = 8
    MARGIN = 4

    def paint(
        self,
        painter: QtGui.QPainter,
        option: QtWidgets.QStyleOptionViewItem,
        index: Index,
    ) -> None:
        tier = index.data(TIER_ROLE)
        if tier is None:
            super().paint(painter, option, index)
            return
        opt = QtWidgets.QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QtWidgets.QApplication.style()
        style.drawControl(QtWidgets.QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        label = models.DecayTier(tier).value.capitalize()
        colour = QtGui.QColor(TIER_COLOURS[models.DecayTier(tier)])
        metrics = opt.fontMetrics
        width = metrics.horizontalAdvance(label) + 2 * self.PADDING
        height = min(metrics.height() + 4, opt.rect.height() - 2)
        pill = QtCore.QRectF(
            opt.rect.left() + self.MARGIN,
            opt.rect.top() + (opt.rect.height() - height) / 2,
            width,
            height,
        )
        painter.save()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(pill, height / 2, height / 2)
        painter.setPen(badge_text_colour(colour))
        font = QtGui.QFont(opt.font)
        font.setBold(True)
        painter.setFont(font)
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, label)
        painter.restore()

    def sizeHint(self, option: QtWidgets.QStyleOptionViewItem, index: Index) -> QtCore.QSize:
        base = super().sizeHint(option, index)
        tier = index.data(TIER_ROLE)
        if tier is None:
            return base
        font = QtGui.QFont(option.font)
        font.setBold(True)
        metrics = QtGui.QFontMetrics(font)
        label = models.DecayTier(tier).value.capitalize()
        width = metrics.horizontalAdvance(label) + 2 * self.PADDING + 2 * self.MARGIN
        return QtCore.QSize(max(base.width(), width), max(base.height(), metrics.height() + 6))
