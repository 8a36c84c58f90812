"""The sidebar tree: Global, Agents and Principles, with fact counts, over a vault scan.

`SidebarModel` is a tree built from a `core.vault.VaultScan`: Global (the PARA
categories with their nested groups, and the global daily notes), Agents (each with its
Workspace PARA tree, Daily notes, TACIT.md and CONTEXT.md) and Principles
(`global/AGENTS.md`). Every row carries a `Node` (`NODE_ROLE`) saying what it is and
where it leads; counts (Active, Hot, Warm, Cold) add up along the tree. Live sync calls
`update(scan)` often, so an update never resets the model: the new tree is compared with
the shown one by stable keys, rows are removed and inserted precisely
(begin/endRemoveRows, begin/endInsertRows) and only the rows whose counts or problems
changed emit `dataChanged`. Selection and expanded branches survive. The tree of a big
vault is built on a worker (`SidebarModel.build`); only the merge runs on the GUI thread.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6 import QtCore, QtGui

from vault_app.core import layout, models, process_tuning, vault
from vault_app.ui import themes
from vault_app.ui.models.base import (
    CHANGED_ROLE,
    NODE_ROLE,
    ReadOnlyColumns,
    changed_mark,
    disabled_text,
)

Qt = QtCore.Qt
Role = Qt.ItemDataRole
Index = QtCore.QModelIndex | QtCore.QPersistentModelIndex

_ROOT = QtCore.QModelIndex()  # the invisible root (default `parent` argument)

PROBLEM_COLOUR = "#e03131"
CATEGORY_TITLES = {
    "projects": "Projects",
    "areas": "Areas",
    "resources": "Resources",
    "archives": "Archives",
}
AGENT_DOCUMENTS = ("TACIT.md", "CONTEXT.md")


LOADING = "…"  # a count cell while the vault is being scanned (not a misleading 0)
_ICONS: dict[str, QtGui.QImage] = {}


def warning_icon() -> QtGui.QImage:
    """A red warning triangle for rows whose files cannot be read (drawn once; an image,
    which needs no GUI application, so the model works headless in tests too)."""
    icon = _ICONS.get("warning")
    if icon is None:
        icon = QtGui.QImage(16, 16, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        icon.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(icon)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(PROBLEM_COLOUR))
        corners = [QtCore.QPointF(8, 1), QtCore.QPointF(15.5, 14.5), QtCore.QPointF(0.5, 14.5)]
        painter.drawPolygon(QtGui.QPolygonF(corners))
        painter.setBrush(QtGui.QColor("#ffffff"))
        painter.drawRect(QtCore.QRectF(7.25, 5, 1.5, 5.5))
        painter.drawEllipse(QtCore.QRectF(7.1, 11.5, 1.8, 1.8))
        painter.end()
        _ICONS["warning"] = icon
    return icon


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
    `core.process_tuning`) has put it out of the collector's reach.
    """

    key: tuple[str, ...]
    node: Node
    own: Counts | None = None  # an entity's own counts; None on rows without counts
    counts: Counts | None = None  # own + everything below
    problem: str | None = None
    warned: bool = False  # something below cannot be read (the icon shows when collapsed)
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
        return (self.node, self.counts, self.problem, self.warned, self.dimmed, self.tooltip)

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
        for item in root.walk():  # mark the way down to each unreadable file
            up = item.parent if item.problem else None
            while up is not None and up is not root and not up.warned:
                up.warned, up = True, up.parent
        self._sort(root)
        _total(root)
        if self.scan is None or not self.scan.counted:  # loading, a listing: counts unknown
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
        facts = f"{summary.total} fact{'' if summary.total == 1 else 's'}"
        item.tooltip = f"{summary.address}\n{facts}{superseded}"
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


class SidebarModel(ReadOnlyColumns, QtCore.QAbstractItemModel):
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
        self.loading = scan is None or not scan.counted  # counts shown as "…" meanwhile
        self.marks: dict[str, str] = {}  # entity address -> "changed by an agent" words

    def set_marks(self, marks: Mapping[str, str]) -> None:
        """Mark the entities agents changed since the person last looked (address ->
        words for the tooltip); rows whose mark came or went are repainted."""
        old, self.marks = self.marks, dict(marks)
        for address in {
            a for a in old.keys() | self.marks.keys() if old.get(a) != self.marks.get(a)
        }:
            index = self.index_for_address(address)
            if index.isValid():
                self.dataChanged.emit(
                    index, index, [Role.DecorationRole, Role.FontRole, CHANGED_ROLE]
                )

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
        with process_tuning.paused(freeze=True):
            return _Tree(_TreeBuilder(scan, _agents(scan, agents)).build(), against)

    def update(
        self, scan: vault.VaultScan, agents: Sequence[str] | None = None, *, tree: Any = None
    ) -> None:
        """Show a new scan: precise row inserts/removals, dataChanged for changed rows."""
        fresh: _Tree = tree if tree is not None else self.build(scan, agents, against=self._tree)
        self.loading = not scan.counted
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
            item.warned = twin.warned
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
            child.warned = twin.warned
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
        return index.internalPointer() if index.isValid() else self._root

    def index(self, row: int, column: int, parent: Index = _ROOT) -> QtCore.QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QtCore.QModelIndex()
        return self.createIndex(row, column, self._item(parent).children[row])

    def parent(self, child: Index | None = None) -> Any:
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

    def _counting(self, item: _Item) -> bool:
        """A row whose counts are not known yet (the vault is being scanned)."""
        return self.loading and item.counts is None and not _uncounted(item.node.kind)

    def data(self, index: Index, role: int = Role.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self._item(index)
        column = index.column()
        if role == NODE_ROLE:
            return item.node
        mark = self.marks.get(item.node.address or "") if column == 0 and self.marks else None
        if mark is not None and role in (CHANGED_ROLE, Role.ToolTipRole):
            return (
                mark
                if role == CHANGED_ROLE
                else "\n\n".join(t for t in (item.problem or item.tooltip, mark) if t)
            )
        if mark is not None and role == Role.DecorationRole and not item.problem:
            return changed_mark()
        if mark is not None and role == Role.FontRole:  # unread, as mail is
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == Role.DisplayRole:
            if column == 0:
                return item.node.name
            if item.counts is None:
                return LOADING if self._counting(item) else None
            return item.counts[column - 1]  # shown "10,579" by the view (`sidebar_view`)
        if role == Role.DecorationRole and column == 0 and (item.problem or item.warned):
            return warning_icon()
        if role == Role.ToolTipRole:
            if column > 0 and item.counts is None and self._counting(item):
                return "Counting the facts…"
            return item.problem or item.tooltip or None
        if role == Role.ForegroundRole:
            if item.problem:
                return QtGui.QBrush(themes.error_colour(QtGui.QGuiApplication.palette()))
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


def _uncounted(kind: str) -> bool:
    return kind in ("daily", "document", "principles")  # rows that never show counts


def _agents(scan: vault.VaultScan | None, agents: Sequence[str] | None) -> list[str]:
    if agents is not None:
        return sorted(agents)
    return sorted(scan.agents) if scan is not None else []
