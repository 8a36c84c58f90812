"""What the context builder would give an agent, block by block, with its budget meters.

Design
------
A `ContextPreview` asks `search.context.ContextBuilder` for an agent's context (optional
query, character budget) on a worker thread, with `mark_access=False`: looking at a
preview must not count as the agent using those facts. Each block is shown as its title,
a labelled meter (`42% — 924/2,200 chars`, the builder's own figures) and its text in a
fixed-width font; a total meter sums the whole context, headers included.

The meters and tokens are the builder's own (its block headers: a store's usage against
its own budget for the agent notes and the user profile, else the block's share of the
context; tokens by the embedding model's tokenizer when it is loaded, else an estimate
marked "≈", `search.token_count`), worked out on the worker. A block that could not take
every item says how many were left out; the builder's warnings (principles cut, a block
with no room) are shown above the blocks. Each line that shows a fact, a summary or a
daily entry is a link: clicking it emits `openFact`, `openEntity` or `openDaily`.

The builder needs the search index. Until `Session.searchReady` has fired the preview
says the index is being prepared and builds as soon as it is ready. A build that ends
after a newer one was asked for is dropped.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui.pages import daily
from vault_app.ui.session import Session, describe, plural

COPY_KEY = "Ctrl+Shift+C"  # the whole context to the clipboard

if TYPE_CHECKING:  # the builder pulls the search engine (numpy, scipy): loaded on use
    from vault_app.search import context

PREPARING = "Preparing the search index…"
DEFAULT_BUDGET = 4000  # as search.DEFAULT_BUDGET (a test keeps them equal)


def meter_text(used: int, cap: int, tokens: str = "") -> str:
    """The builder's meter, as in a block header: `42% — 924/2,200 chars`, and the tokens
    beside it when counted (`42% — 924/2,200 chars · ≈231 tokens`)."""
    percent = round(100 * used / cap) if cap else 0
    return f"{percent}% — {used:,}/{cap:,} chars" + (f" · {tokens}" if tokens else "")


def target_of(key: str) -> tuple[str, str] | None:
    """What a line's key opens: ("fact", id), ("summary", address), ("daily", key)."""
    kind, _, rest = key.partition(":")
    return (kind, rest) if kind in ("fact", "summary", "daily") and rest else None


def _linked(block: context.Block) -> str:
    """The block's text as rich text, each line with a key a link to what it shows."""
    lines = []
    for line, key in zip(block.lines, block.line_keys, strict=True):
        first, _, rest = line.partition("\n")  # an item's first line is its link
        text = (
            f'<a href="{html.escape(key)}">{html.escape(first)}</a>' if key else html.escape(first)
        )
        lines.append(text + ("<br>" + html.escape(rest).replace("\n", "<br>") if rest else ""))
    return '<div style="white-space: pre-wrap">' + "<br>".join(lines) + "</div>"


def _meter(
    used: int, cap: int, name: str, tokens: str = "", shown: str | None = None
) -> QtWidgets.QProgressBar:
    bar = QtWidgets.QProgressBar()
    bar.setRange(0, max(cap, 1))
    bar.setValue(min(used, max(cap, 1)))
    bar.setFormat(shown if shown is not None else meter_text(used, cap, tokens))
    bar.setTextVisible(True)
    bar.setAccessibleName(f"{name} budget used")
    bar.setToolTip(f"{name}: {used:,} of the {cap:,} characters this block may use")
    return bar


def _block_meter(block: context.Block) -> QtWidgets.QProgressBar:
    """The block's meter as its header shows it; a budgeted store's against its limit."""
    from vault_app.ui.widgets import memory_blocks

    name = block.title.title()
    store = block.store
    if store is None:
        return _meter(block.used, block.cap, name, shown=block.meter())
    bar = _meter(store.used, store.limit, name)
    memory_blocks.set_meter(bar, store, name)
    bar.setFormat(block.meter())
    bar.setToolTip(
        f"{name}: the store holds {store.used:,} of its {store.limit:,} characters; "
        f"{block.used:,} of them are placed in this context (at most {block.cap:,})"
    )
    return bar


class BlockView(QtWidgets.QFrame):
    """One block of a context: title, usage meter (chars and tokens), what was left out,
    and its text, each item's line a link (`lineActivated(key)`)."""

    lineActivated = QtCore.Signal(str)  # the key of the line clicked: "fact:ID", ...

    def __init__(self, block: context.Block, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.block = block
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.title_label = QtWidgets.QLabel(
            f"<b>{html.escape(block.title)}</b>&nbsp;&nbsp;"
            f"<span>{html.escape(block.subtitle)}</span>&nbsp;&nbsp;·&nbsp;&nbsp;"
            f"<i>{html.escape(block.layer)}</i>"
        )
        self.title_label.setToolTip(
            "Layers: L0 identity (principles, user profile, about the user) and L1 essentials "
            "(notes, tiers, tacit) have small shares of the budget; L2 relevance (summaries, "
            "facts, timeline) shares the rest. What a block leaves unused passes to the next."
        )
        self.meter = _block_meter(block)
        # as wide as its text (an over-budget store's meter is longer), 260-520 px
        wanted = self.meter.fontMetrics().horizontalAdvance(self.meter.format()) + 32
        self.meter.setMinimumWidth(min(max(260, wanted), 520))
        self.meter.setMaximumWidth(max(400, min(wanted, 520)))
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.title_label, 1)
        top.addWidget(self.meter)
        self.left_out_label = QtWidgets.QLabel(_left_out_text(block))
        self.left_out_label.setProperty("notice", True)
        self.left_out_label.setVisible(bool(block.left_out or block.cut))
        self.text_label = daily.WrappedLabel()
        linked = any(block.line_keys)
        self.text_label.setTextFormat(
            QtCore.Qt.TextFormat.RichText if linked else QtCore.Qt.TextFormat.PlainText
        )
        self.text_label.setText(_linked(block) if linked else block.items_text)
        self.text_label.linkActivated.connect(self.lineActivated)
        if linked:
            self.text_label.setToolTip("Click a line to open what it shows")
        self.text_label.setFont(
            QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        )
        self.text_label.setWordWrap(True)
        self.text_label.setAlignment(
            QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft
        )
        self.text_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
            | QtCore.Qt.TextInteractionFlag.TextSelectableByKeyboard
            | QtCore.Qt.TextInteractionFlag.LinksAccessibleByMouse
            | QtCore.Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.text_label.setAccessibleName(f"{block.title.title()} text")
        self.text_label.setBackgroundRole(QtGui.QPalette.ColorRole.Base)
        self.text_label.setAutoFillBackground(True)
        self.text_label.setMargin(6)
        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(8, 6, 8, 8)
        box.addLayout(top)
        box.addWidget(self.left_out_label)
        box.addWidget(self.text_label)


def _left_out_text(block: context.Block) -> str:
    parts = []
    if block.left_out:
        parts.append(f"{plural(block.left_out, 'item')} left out: no room in this block")
    if block.cut:
        parts.append(f"{plural(block.cut, 'item')} cut short (…)")
    return "; ".join(parts)


class ContextPreview(QtWidgets.QWidget):
    """Builds and shows an agent's context without marking anything as accessed."""

    built = QtCore.Signal(object)  # search.context.Context
    failed = QtCore.Signal(str)  # the plain-words message shown
    openFact = QtCore.Signal(str, str)  # entity address, fact id: a fact's line clicked
    openEntity = QtCore.Signal(str)  # a summary's line
    openDaily = QtCore.Signal(str, object)  # scope, dt.date: a daily entry's line

    def __init__(
        self,
        session: Session,
        agent: str | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.agent: str | None = None
        self.context: context.Context | None = None
        self._pending = False
        self._generation = 0
        self._build()
        session.searchReady.connect(self._on_search_ready)
        self.set_agent(agent)

    # -- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.query_edit = QtWidgets.QLineEdit()
        self.query_edit.setPlaceholderText(
            "Optional: what the agent is working on, e.g. roof last week"
        )
        self.query_edit.setToolTip(
            "Without a query the agent gets its own entities and its hottest facts; with one, "
            "what matches it. Dates (“last week”, “in March”) add the timeline."
        )
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.returnPressed.connect(self.preview)
        query_label = QtWidgets.QLabel("&Query:")
        query_label.setBuddy(self.query_edit)

        self.budget_spin = QtWidgets.QSpinBox()
        self.budget_spin.setRange(200, 200_000)
        self.budget_spin.setSingleStep(500)
        self.budget_spin.setValue(DEFAULT_BUDGET)
        self.budget_spin.setSuffix(" chars")
        self.budget_spin.setGroupSeparatorShown(True)
        self.budget_spin.setToolTip("The most characters the whole context may take")
        self.budget_spin.setAccessibleName("Budget in characters")
        budget_label = QtWidgets.QLabel("&Budget:")
        budget_label.setBuddy(self.budget_spin)

        self.preview_button = QtWidgets.QPushButton("Refresh preview")
        self.preview_button.setToolTip(
            "Build the context this agent would get now (F5). Nothing is marked as accessed."
        )
        self.preview_button.setAutoDefault(False)
        self.preview_button.clicked.connect(self.preview)
        shortcut = QtGui.QShortcut(QtGui.QKeySequence("F5"), self)
        shortcut.setContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.preview)
        self.copy_button = QtWidgets.QPushButton("Copy")
        self.copy_button.setToolTip("Copy the whole context, headers included, to the clipboard")
        self.copy_button.setAutoDefault(False)
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy)
        # its key (the window routes Edit › Copy context to it), enabled with the button
        self.copy_action = QtGui.QAction("Copy context", self)
        self.copy_action.setShortcut(QtGui.QKeySequence(COPY_KEY))
        self.copy_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_action.triggered.connect(self.copy)
        self.copy_action.setEnabled(False)
        self.addAction(self.copy_action)

        controls = QtWidgets.QHBoxLayout()
        controls.addWidget(query_label)
        controls.addWidget(self.query_edit, 1)
        controls.addWidget(budget_label)
        controls.addWidget(self.budget_spin)
        controls.addWidget(self.preview_button)
        controls.addWidget(self.copy_button)

        self.status_label = QtWidgets.QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setForegroundRole(QtGui.QPalette.ColorRole.PlaceholderText)
        self.warning_label = QtWidgets.QLabel()
        self.warning_label.setWordWrap(True)
        self.warning_label.setProperty("inlineError", True)
        self.warning_label.setAccessibleName("Context warnings")
        self.warning_label.hide()
        self.total_label = QtWidgets.QLabel("Total:")
        self.total_meter = _meter(0, DEFAULT_BUDGET, "Whole context")
        self.total_label.setBuddy(self.total_meter)
        total = QtWidgets.QHBoxLayout()
        total.addWidget(self.total_label)
        total.addWidget(self.total_meter, 1)

        self.blocks, self.blocks_box, self.blocks_area = daily.card_column("Blocks of the context")

        box = QtWidgets.QVBoxLayout(self)
        box.setContentsMargins(6, 6, 6, 6)
        box.addLayout(controls)
        box.addLayout(total)
        box.addWidget(self.status_label)
        box.addWidget(self.warning_label)
        box.addWidget(self.blocks_area, 1)

    # -- public -----------------------------------------------------------------------------

    def set_agent(self, agent: str | None) -> None:
        """Preview `agent`'s context (built as soon as the search index is ready)."""
        self.agent = agent
        self._clear()
        self.preview_button.setEnabled(agent is not None)
        if agent is None:
            self.status_label.setText("Choose an agent to preview its context.")
            return
        self.preview()

    def preview(self) -> None:
        """Build the context off-thread with the current query and budget."""
        agent = self.agent
        if agent is None:
            return
        engine = self.session.engine
        if engine is None:
            self._pending = True
            self.status_label.setText(PREPARING)
            return
        self._pending = False
        self._generation += 1
        generation = self._generation
        query = self.query_edit.text().strip() or None
        budget = self.budget_spin.value()
        self.status_label.setText("Building the context…")
        self.session.run(
            lambda: _builder(engine).build(agent, query, budget=budget, mark_access=False),
            lambda result: self._built(generation, result),
            lambda exc: self._failed(generation, exc),
        )

    def copy(self) -> None:
        if self.context is not None:
            QtGui.QGuiApplication.clipboard().setText(self.context.text)

    def block_views(self) -> list[BlockView]:
        items = (self.blocks_box.itemAt(i) for i in range(self.blocks_box.count()))
        return [w for item in items if item and isinstance(w := item.widget(), BlockView)]

    # -- results ----------------------------------------------------------------------------

    def _on_search_ready(self, _engine: object) -> None:
        if self._pending:
            self.preview()

    def _built(self, generation: int, result: context.Context) -> None:
        if generation != self._generation:
            return
        self._clear()
        self.context = result
        for block in result.blocks:
            view = BlockView(block)
            view.lineActivated.connect(self.open_key)
            self.blocks_box.insertWidget(self.blocks_box.count() - 1, view)
        self.warning_label.setText("\n".join(result.warnings))
        self.warning_label.setVisible(bool(result.warnings))
        used = len(result.text)
        self._set_total(used, result.budget, result.tokens)
        self.copy_button.setEnabled(bool(result.text))
        self.copy_action.setEnabled(bool(result.text))
        count = len(result.blocks)
        what = f"{count} block{'s' if count != 1 else ''}" if count else "nothing to give"
        period = ""
        if result.period:
            period = f" Timeline {result.period[0].isoformat()} – {result.period[1].isoformat()}."
        self.status_label.setText(
            f"{used:,} of {result.budget:,} chars, {what}.{period} "
            "A preview does not count as access: no fact was marked."
        )
        self.built.emit(result)

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        title, message = describe(exc)
        self.status_label.setText(f"{title}: {message}")
        self.failed.emit(message)

    def _set_total(self, used: int, budget: int, tokens: str = "") -> None:
        self.total_meter.setRange(0, max(budget, 1))
        self.total_meter.setValue(min(used, budget))
        self.total_meter.setFormat(meter_text(used, budget, tokens))
        counted = f" ({tokens})" if tokens else ""
        self.total_meter.setToolTip(
            f"The whole context: {used:,} of {budget:,} characters{counted}. Tokens are "
            "counted with the embedding model's tokenizer; ≈ marks an estimate (no model)."
        )

    def open_key(self, key: str) -> None:
        """Open what a context line shows: its fact, summary's entity or daily entry."""
        target, engine = target_of(key), self.session.engine
        if target is None or engine is None:
            return
        kind, rest = target
        doc = engine.document(key)
        if kind == "fact" and doc is not None and doc.entity:
            self.openFact.emit(doc.entity, rest)
        elif kind == "summary":
            self.openEntity.emit(doc.entity if doc is not None and doc.entity else rest)
        elif kind == "daily" and doc is not None and doc.date is not None:
            self.openDaily.emit(doc.scope, doc.date)

    def _clear(self) -> None:
        self.context = None
        self.warning_label.hide()
        self.copy_button.setEnabled(False)
        self.copy_action.setEnabled(False)
        self._set_total(0, self.budget_spin.value())
        while self.blocks_box.count() > 1:
            item = self.blocks_box.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()


def _builder(engine: object) -> context.ContextBuilder:
    from vault_app.search import context

    return context.ContextBuilder(engine)  # type: ignore[arg-type]
