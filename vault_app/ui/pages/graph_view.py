"""The graph view: an entity's neighbourhood (depth 1 or 2), or the whole of a small vault,
drawn from the window's link index; clicking an entity opens it.

Design
------
`GraphView.show_entity(address)` asks the `LinkKeeper`'s index for the ball around the
entity (`LinkIndex.neighbourhood`: at most `core.links.NEIGHBOURHOOD_LIMIT` entities,
nearer and more linked first) and its layout (`links.radial_layout`: rings by depth, a
child near its parent; the same graph is always drawn the same way), both on a worker, so
a hub of the 200,000-fact vault costs the GUI thread only the drawing of what is shown.
A node whose neighbours were not all shown carries a "+N more" mark; the status line says
how many entities the ball holds in all. "Whole vault" draws every entity and link of a
vault up to `links.WHOLE_VAULT_LIMIT` entities and says plainly why it will not above.

The scene: one path item for every edge (one item, not thousands), one item for every
label (`Labels`: made and painted in one go, each text placed where no other text or dot
is, nearer entities first), one ellipse per entity (the centre in the
accent colour, the rest in tints of it, lighter further out). The palette's colours are
read when the scene is drawn, so both themes read well. Drag to pan, Ctrl+wheel (or +/-)
to zoom, "Fit" to see it all; from the keyboard, the arrows step from entity to entity
(the centre first, then nearer and more linked ones) and Enter opens the one marked. A
result for an older request is dropped.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import links
from vault_app.ui.session import describe
from vault_app.ui.widgets.entity_links import title_of
from vault_app.ui.window.link_keeper import LinkKeeper

FIT_KEY = "Ctrl+0"  # zoom to the whole graph

Qt = QtCore.Qt
Placed = tuple[links.Graph, dict[str, tuple[float, float]]]
RADIUS = {0: 16.0, 1: 11.0, 2: 8.0}  # a node's radius by depth (the centre largest)


class NodeItem(QtWidgets.QGraphicsEllipseItem):
    """One entity: a dot; a click asks the view to open it."""

    def __init__(self, view: GraphView, address: str, title: str, radius: float) -> None:
        super().__init__(-radius, -radius, 2 * radius, 2 * radius)
        self.view = view
        self.address = address
        self.setAcceptHoverEvents(True)
        self.setToolTip(f"{title}\n{address}\nClick to open")

    def hoverEnterEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        # the viewport's cursor, not one per item (setting it on each item costs a draw)
        self.view.canvas.viewport().setCursor(Qt.CursorShape.PointingHandCursor)

    def hoverLeaveEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self.view.canvas.viewport().unsetCursor()

    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.view.openEntity.emit(self.address)
            event.accept()
        else:
            super().mousePressEvent(event)


class Labels(QtWidgets.QGraphicsItem):
    """Every text of the graph in one item, painted in one call: a text item each would
    cost more to make than the whole draw of the rest.

    `place` keeps texts apart: a title goes under its dot, else over it, else to its
    right or left, shortened once if none of those is free; a text that still finds no
    free place is left out (its dot's tooltip has it). Texts placed first win, so the
    centre and the nearer entities keep theirs. The rectangles taken are kept in a grid
    of `CELL`-sized buckets: a check looks at the few texts near it, not at all of them.
    """

    CELL = 120.0
    GAP = 2.0  # between two texts, and between a dot and its text

    def __init__(self, font: QtGui.QFont) -> None:
        super().__init__()
        self.font = font
        self.bold = QtGui.QFont(font)
        self.bold.setBold(True)
        self.metrics = QtGui.QFontMetricsF(font)
        self.entries: list[tuple[QtCore.QPointF, str, QtGui.QColor, bool]] = []
        self.rects: list[QtCore.QRectF] = []
        self._grid: dict[tuple[int, int], list[QtCore.QRectF]] = {}
        self._bounds = QtCore.QRectF()

    def place(
        self,
        x: float,
        y: float,
        radius: float,
        text: str,
        colour: QtGui.QColor,
        *,
        bold: bool = False,
        beside: bool = False,
    ) -> bool:
        """`text` near the dot of `radius` at (x, y), where no text is yet (see the class
        doc); with `beside`, only to its right (a "+N more"). False when left out."""
        height = (QtGui.QFontMetricsF(self.bold) if bold else self.metrics).height()
        gap = radius + self.GAP
        for shown in dict.fromkeys([_short(text, 22), _short(text, 12)]):
            width = self._width(shown, bold)
            spots = [(x + gap, y - height / 2, False)]
            if not beside:
                spots = [
                    (x, y + gap, True),
                    (x, y - gap - height, True),
                    *spots,
                    (x - gap - width, y - height / 2, False),
                ]
            for left, top, centred in spots:
                rect = self._rect(left, top, shown, bold, centred)
                if not self._collides(rect):
                    self._take(rect, shown, colour, bold)
                    return True
            if beside:
                break
        return False

    def avoid(self, x: float, y: float, radius: float) -> None:
        """Keep texts off the dot at (x, y)."""
        self._remember(QtCore.QRectF(x - radius, y - radius, 2 * radius, 2 * radius))

    def _width(self, text: str, bold: bool) -> float:
        metrics = QtGui.QFontMetricsF(self.bold) if bold else self.metrics
        return metrics.horizontalAdvance(text)

    def _rect(self, x: float, y: float, text: str, bold: bool, centred: bool) -> QtCore.QRectF:
        metrics = QtGui.QFontMetricsF(self.bold) if bold else self.metrics
        width = metrics.horizontalAdvance(text)
        return QtCore.QRectF(x - width / 2 if centred else x, y, width, metrics.height())

    def _cells(self, rect: QtCore.QRectF) -> list[tuple[int, int]]:
        cell = self.CELL
        xs = range(int(rect.left() // cell), int(rect.right() // cell) + 1)
        ys = range(int(rect.top() // cell), int(rect.bottom() // cell) + 1)
        return [(i, j) for i in xs for j in ys]

    def _collides(self, rect: QtCore.QRectF) -> bool:
        padded = rect.adjusted(-self.GAP, -self.GAP, self.GAP, self.GAP)
        return any(
            padded.intersects(other)
            for key in self._cells(padded)
            for other in self._grid.get(key, ())
        )

    def _remember(self, rect: QtCore.QRectF) -> None:
        for key in self._cells(rect):
            self._grid.setdefault(key, []).append(rect)

    def _take(self, rect: QtCore.QRectF, shown: str, colour: QtGui.QColor, bold: bool) -> None:
        metrics = QtGui.QFontMetricsF(self.bold) if bold else self.metrics
        self.entries.append((QtCore.QPointF(rect.left(), rect.top() + metrics.ascent()), shown,
                             colour, bold))  # fmt: skip
        self.rects.append(rect)
        self._remember(rect)
        self.prepareGeometryChange()
        self._bounds = self._bounds.united(rect)

    def texts(self) -> list[str]:
        return [text for _point, text, _colour, _bold in self.entries]

    def boundingRect(self) -> QtCore.QRectF:
        return self._bounds

    def paint(self, painter: QtGui.QPainter, option: object, widget: object = None) -> None:
        for point, text, colour, bold in self.entries:
            painter.setFont(self.bold if bold else self.font)
            painter.setPen(colour)
            painter.drawText(point, text)


def _short(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


_ARROWS = {
    Qt.Key.Key_Right: (1.0, 0.0),
    Qt.Key.Key_Left: (-1.0, 0.0),
    Qt.Key.Key_Down: (0.0, 1.0),
    Qt.Key.Key_Up: (0.0, -1.0),
}


class _Canvas(QtWidgets.QGraphicsView):
    """Pans by dragging, zooms with Ctrl+wheel and +/−; an arrow key marks the entity that
    way on screen (Right: the nearest to the right), Page Down/Up step through them all
    (nearest first), Enter opens the one marked."""

    def __init__(self, scene: QtWidgets.QGraphicsScene, view: GraphView) -> None:
        super().__init__(scene)
        self.view = view

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
            self.scale(factor, factor)
        else:
            super().wheelEvent(event)

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.scale(1.2, 1.2)
        elif event.key() == Qt.Key.Key_Minus:
            self.scale(1 / 1.2, 1 / 1.2)
        elif event.key() in _ARROWS:
            self.view.step_towards(*_ARROWS[Qt.Key(event.key())])
        elif event.key() in (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            self.view.step(+1 if event.key() == Qt.Key.Key_PageDown else -1)
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.view.open_marked()
        else:
            super().keyPressEvent(event)


class GraphView(QtWidgets.QWidget):
    """Links as a graph (see the module docstring)."""

    openEntity = QtCore.Signal(str)
    drawn = QtCore.Signal()  # a graph (or a message) is shown

    def __init__(self, keeper: LinkKeeper, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.keeper = keeper
        self.session = keeper.session
        self.address: str | None = None
        self.graph: links.Graph | None = None
        self.nodes: dict[str, NodeItem] = {}
        self.marked: str | None = None  # the entity the keyboard is on
        self.labels = Labels(self.font())
        self.limit = links.NEIGHBOURHOOD_LIMIT  # entities drawn around one
        self.whole_limit = links.WHOLE_VAULT_LIMIT  # entities of a vault drawn whole
        self._generation = 0
        self._build()
        keeper.changed.connect(self.refresh)

    def _build(self) -> None:
        self.title = QtWidgets.QLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.title.setFont(font)
        self.depth_combo = QtWidgets.QComboBox()
        self.depth_combo.addItem("1 link away", 1)
        self.depth_combo.addItem("2 links away", 2)
        self.depth_combo.setToolTip("How far from the entity to draw")
        self.depth_combo.currentIndexChanged.connect(lambda _i: self.refresh())
        depth_label = QtWidgets.QLabel("&Depth:")
        depth_label.setBuddy(self.depth_combo)
        self.whole_check = QtWidgets.QCheckBox("&Whole vault")
        self.whole_check.setToolTip(
            f"Every entity and link (vaults of up to {links.WHOLE_VAULT_LIMIT} entities)"
        )
        self.whole_check.toggled.connect(self._whole_toggled)
        self.fit_button = QtWidgets.QPushButton("F&it")
        self.fit_button.setToolTip("Zoom to see the whole graph (Ctrl+wheel or +/− to zoom)")
        self.fit_button.clicked.connect(self.fit)
        # its key (the window routes View › Fit the graph to it)
        fit = QtGui.QAction("Fit the graph", self)
        fit.setShortcut(QtGui.QKeySequence(FIT_KEY))
        fit.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        fit.triggered.connect(self.fit)
        self.addAction(fit)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(self.title, 1)
        bar.addWidget(depth_label)
        bar.addWidget(self.depth_combo)
        bar.addSpacing(8)
        bar.addWidget(self.whole_check)
        bar.addWidget(self.fit_button)

        self.scene = QtWidgets.QGraphicsScene(self)
        # rebuilt at every draw, a few hundred items: a BSP index costs more than it saves
        self.scene.setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex)
        self.canvas = _Canvas(self.scene, self)
        self.canvas.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.canvas.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        self.canvas.setDragMode(QtWidgets.QGraphicsView.DragMode.ScrollHandDrag)
        self.canvas.setAccessibleName("Graph of linked entities")
        self.canvas.setViewportUpdateMode(
            QtWidgets.QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate
        )
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        self.status.setProperty("notice", True)
        self.legend = QtWidgets.QLabel()  # what the dots' shades mean (set when drawn)
        self.legend.setTextFormat(Qt.TextFormat.RichText)

        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.addLayout(bar)
        box.addWidget(self.canvas, 1)
        box.addWidget(self.legend)
        box.addWidget(self.status)

    # -- what to show ---------------------------------------------------------------------

    def show_entity(self, address: str | None) -> None:
        """Centre the graph on `address` (None: only the whole vault can be shown)."""
        self.address = address
        self.refresh()

    def depth(self) -> int:
        return int(self.depth_combo.currentData())

    def _whole_toggled(self, on: bool) -> None:
        self.depth_combo.setEnabled(not on)
        self.refresh()

    def refresh(self) -> None:
        """Ask for the graph again (the index changed, or what to show did), off-thread."""
        self._generation += 1
        index = self.keeper.index
        whole = self.whole_check.isChecked()
        self.title.setText(
            "The whole vault" if whole else title_of(self.address) if self.address else "Graph"
        )
        if index is None:
            self._message("Reading the vault's links…")
            return
        if not whole and self.address is None:
            self._message("Select an entity to see what it links to, or tick Whole vault.")
            return
        generation, address, depth = self._generation, str(self.address), self.depth()
        limit, whole_limit = self.limit, self.whole_limit

        def work() -> Placed:
            def compute() -> Placed:
                if whole:
                    graph = index.whole(whole_limit)
                else:
                    graph = index.neighbourhood(address, depth, limit)
                return graph, links.radial_layout(graph)

            for _attempt in range(3):  # the GUI thread may update the index meanwhile
                try:
                    return compute()
                except RuntimeError:  # (a dict changed size while it was read)
                    continue
            return compute()

        self.status.setText("Laying out the graph…")
        self.session.run(
            work,
            lambda placed: self._placed(generation, placed),
            lambda exc: self._failed(generation, exc),
        )

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        if isinstance(exc, links.TooLargeError) and self.whole_check.isChecked():
            with QtCore.QSignalBlocker(self.whole_check):  # unticked: say why, draw nothing
                self.whole_check.setChecked(False)
            self.depth_combo.setEnabled(True)
        self._message(str(exc) if isinstance(exc, links.TooLargeError) else describe(exc)[1])

    def _message(self, text: str) -> None:
        """Nothing to draw: say why in the canvas, where the graph would be, and below."""
        self.scene.clear()
        self.nodes = {}
        self.marked = None
        self.labels = Labels(self.font())
        self.graph = None
        said = self.scene.addText(text)
        said.setDefaultTextColor(self.palette().color(QtGui.QPalette.ColorRole.PlaceholderText))
        said.setTextWidth(420)
        self.scene.setSceneRect(said.boundingRect().adjusted(-20, -20, 20, 20))
        self.canvas.resetTransform()
        self.status.setText(text)
        self.drawn.emit()

    # -- drawing ----------------------------------------------------------------------------

    def _placed(self, generation: int, placed: Placed) -> None:
        if generation != self._generation:
            return
        graph, where = placed
        self.graph = graph
        self.scene.clear()
        self.nodes = {}
        self.labels = Labels(self.font())
        palette = self.palette()
        text = palette.color(QtGui.QPalette.ColorRole.WindowText)
        muted = palette.color(QtGui.QPalette.ColorRole.PlaceholderText)
        edge_pen = QtGui.QPen(palette.color(QtGui.QPalette.ColorRole.Mid), 1.2)
        edge_pen.setCosmetic(True)
        path = QtGui.QPainterPath()
        for a, b in graph.edges:
            path.moveTo(*where[a])
            path.lineTo(*where[b])
        self.scene.addPath(path, edge_pen).setZValue(-1)
        accent = palette.color(QtGui.QPalette.ColorRole.Highlight)
        base = palette.color(QtGui.QPalette.ColorRole.Base)
        fills = {d: _mix(accent, base, share) for d, share in ((1, 0.45), (2, 0.22))}
        border = QtGui.QPen(_mix(text, base, 0.55), 1.2)
        border.setCosmetic(True)
        self._border = border
        self.marked = None
        radii = {a: RADIUS.get(d, 8.0) if graph.centre else 9.0 for a, d in graph.depth.items()}
        for address, radius in radii.items():  # no text over a dot
            self.labels.avoid(*where[address], radius)
        for address, depth in graph.depth.items():  # nearer first: they keep their labels
            x, y = where[address]
            centre = address == graph.centre
            title = title_of(address)
            radius = radii[address]
            node = NodeItem(self, address, title, radius)
            node.setPos(x, y)
            node.setBrush(accent if centre else fills.get(depth, fills[1]))
            node.setPen(border)
            self.scene.addItem(node)
            self.nodes[address] = node
            self.labels.place(x, y, radius, title, text, bold=centre)
        for address, more in graph.more.items():  # then the "+N more" marks, where room is
            if address in self.nodes:
                x, y = where[address]
                self.labels.place(x, y, radii[address], f"+{more} more", muted, beside=True)
                node = self.nodes[address]
                node.setToolTip(f"{node.toolTip()}\n{more} linked entities are not shown")
        self.scene.addItem(self.labels)
        dot = '<span style="color:{}">●</span> {}'
        keys = [(accent, "the entity")] if graph.centre else []
        keys += [(fills[1], "1 link away"), (fills[2], "2 links away")][: 2 if graph.centre else 1]
        self.legend.setText(" &nbsp; ".join(dot.format(c.name(), t) for c, t in keys))
        self._say(graph)
        self.fit()
        self.drawn.emit()

    def _say(self, graph: links.Graph) -> None:
        shown = len(graph.depth)
        edges = len(graph.edges)
        parts = [
            f"{shown} entit{'y' if shown == 1 else 'ies'}, {edges} link{'s' if edges != 1 else ''}"
        ]
        if graph.hidden:
            parts.append(
                f"{graph.hidden} more within {self.depth()} link{'s' if self.depth() > 1 else ''} "
                f"not drawn (the {shown} nearest and most linked are)"
            )
        if graph.centre is not None and shown == 1:
            parts.append("nothing links to or from this entity")
        self.status.setText("; ".join(parts) + ". Click an entity to open it.")

    # -- keyboard ---------------------------------------------------------------------------

    def step(self, by: int) -> None:
        """Mark the next (or previous) entity, nearest first; its title in the status line."""
        order = list(self.nodes)
        if not order:
            return
        at = order.index(self.marked) if self.marked in self.nodes else -1 if by > 0 else 0
        self._mark(order[(at + by) % len(order)])

    def step_towards(self, dx: float, dy: float) -> None:
        """Mark the entity in direction (dx, dy) from the marked one (the centre first): the
        nearest within 60° of that way, closer to the line counting more."""
        if not self.nodes:
            return
        if self.marked not in self.nodes:
            self._mark(
                self.graph.centre if self.graph and self.graph.centre else next(iter(self.nodes))
            )
            return
        here = self.nodes[str(self.marked)].pos()
        best: tuple[float, str] | None = None
        for address, node in self.nodes.items():
            vx, vy = node.pos().x() - here.x(), node.pos().y() - here.y()
            along = vx * dx + vy * dy  # how far that way
            across = abs(vx * dy - vy * dx)  # how far off the line
            if along <= 0 or across > along * 1.8:  # behind, or beyond 60° off the line
                continue
            score = along + 2 * across
            if best is None or score < best[0]:
                best = (score, address)
        if best is not None:
            self._mark(best[1])

    def _mark(self, address: str | None) -> None:
        if self.marked in self.nodes:
            self.nodes[str(self.marked)].setPen(self._border)
        self.marked = address
        if address is None:
            return
        node = self.nodes[address]
        ring = QtGui.QPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText), 3)
        ring.setCosmetic(True)
        node.setPen(ring)
        self.canvas.ensureVisible(node)
        self.status.setText(f"{title_of(address)} ({address}): Enter opens it; arrows move on.")

    def open_marked(self) -> None:
        if self.marked in self.nodes:
            self.openEntity.emit(str(self.marked))

    def fit(self) -> None:
        rect = self.scene.itemsBoundingRect().adjusted(-40, -40, 40, 40)
        if not rect.isEmpty():
            self.scene.setSceneRect(rect)  # no scroll bars for room the graph does not use
            self.canvas.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
            if self.canvas.transform().m11() > 1.6:  # a few nodes: not blown up
                self.canvas.resetTransform()
                self.canvas.scale(1.6, 1.6)
                self.canvas.centerOn(rect.center())


def _mix(colour: QtGui.QColor, base: QtGui.QColor, share: float) -> QtGui.QColor:
    """`share` of `colour` over `base`: a tint that reads on either theme's background."""
    return QtGui.QColor(
        round(colour.red() * share + base.red() * (1 - share)),
        round(colour.green() * share + base.green() * (1 - share)),
        round(colour.blue() * share + base.blue() * (1 - share)),
    )
