"""The Review page: agent writes the injection scan held back, for a person to decide.

Design
------
The page is a face over a review store (`review_store`): a PARA vault's `.vault/review/`
(`core.review`, like `vault-app review`) or the queue vault-app keeps for a neighbour's
folder in its state folder (`core.neighbours.agents`, like `vault-app --vault FOLDER
review`). The list reads every proposal through the store and shows each as the core
describes it (who, when, why, what, the diff); Approve has the store apply the agent's
write as that agent — the vault's normal safe write, or the folder's adapter in its
owner's format — and Reject records the optional reason. Both run on the session's
writer thread, so they queue behind the window's own edits. Both ask first, alike (a
decision is recorded for good: neither is taken back from here); a failed approve leaves
the proposal pending and the page says why, in the core's own words. The page holds no
review logic of its own. Each is also a command: the page's own action on its key
(`APPROVE_KEY`, `REJECT_KEY`), which the window routes from Edit › Approve proposal and
Reject proposal, so the palette and F1 list them.

The list shows the pending proposals, oldest first; "Show decided" adds the approved and
rejected ones (kept, never deleted). The detail pane is rich text drawn in the palette's
colours, with the diff of a supersede or a document as red/green lines tinted for the
light or the dark theme. Invisible and bidi characters — the very things the scan looks
for — are shown as `⟨U+202E⟩` marks, never rendered.

Keeping the count current: the live watcher (`watch.VaultWatcher`) drops `.vault/` on
purpose (locks, backups, caches churn there), and a neighbour's queue is not in the
watched folder at all, so the page watches the one queue folder with a
`QFileSystemWatcher` (one inotify watch; its nearest existing parent until the folder
exists — `.vault/`, or for a folder never written by an agent yet, a folder of
vault-app's state). Every proposal is written by an atomic rename into that folder, so a
new proposal and a decision made elsewhere (the CLI, another window) both change the
folder; a short single-shot timer folds a burst into one re-read on a worker. `pending`
is emitted with the count after each read, for the window's badge.
"""

from __future__ import annotations

import html
import json
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import feed, injection
from vault_app.ui import session as session_module
from vault_app.ui import themes
from vault_app.ui.models import review as review_model
from vault_app.ui.models import review_store

Qt = QtCore.Qt
APPROVE_KEY = "Ctrl+Alt+A"
REJECT_KEY = "Ctrl+Alt+R"
DEBOUNCE_MS = 150
WIDTHS = (80, 90, 130, 130, 230)  # the columns' least widths (Findings takes the rest)
GROWN = {1: 300, 4: 420}  # Agent, Target: widened to their text up to this (a MicroClaw


# persona's CHAT/PERSONA id, a neighbour's file path)
def _esc(value: Any) -> str:
    return html.escape(injection.visible(str(value)))


def diff_colours(palette: QtGui.QPalette) -> dict[str, tuple[str, str]]:
    """(background, text) of removed, added and hunk lines, for the palette's theme."""
    if themes.is_dark(palette):
        return {"-": ("#4c1d1d", "#ffd7d5"), "+": ("#173d24", "#c9f2d3"), "@": ("", "#8fb8ff")}
    return {"-": ("#ffe3e3", "#6b1111"), "+": ("#d3f9d8", "#0b4a1f"), "@": ("", "#1f4fa3")}


def diff_html(lines: list[str], palette: QtGui.QPalette) -> str:
    """A unified diff as a table of tinted lines (old → new)."""
    colours = diff_colours(palette)
    text = palette.color(QtGui.QPalette.ColorRole.Text).name()
    rows = []
    for line in lines:
        head = line.startswith(("---", "+++"))
        background, colour = ("", text) if head else colours.get(line[:1], ("", text))
        cell = _esc(line) or "&nbsp;"
        if head:
            cell = f"<b>{cell}</b>"
        shade = f' bgcolor="{background}"' if background else ""
        rows.append(
            f'<tr><td{shade} style="color:{colour}; font-family:monospace; '
            f'white-space:pre-wrap">{cell}</td></tr>'
        )
    return f'<table width="100%" cellspacing="0" cellpadding="2">{"".join(rows)}</table>'


def detail_html(d: dict[str, Any], palette: QtGui.QPalette) -> str:
    """The proposal for a person: who, when, why (findings), what (the text or the diff)
    and, once decided, who decided and how."""
    muted = palette.color(QtGui.QPalette.ColorRole.PlaceholderText).name()
    error = themes.error_colour(palette).name()
    kind = review_model.KIND_TITLES.get(d["kind"], d["kind"])
    parts = [
        f"<h3>{_esc(kind)} → {_esc(d['target'])}</h3>",
        f"<p><b>Who</b> agent {_esc(d['agent'])} &nbsp;·&nbsp; <b>When</b> "
        f"{_esc(review_model.when(d['created']))}"
        + (f" (dated {_esc(review_model.when(d['at']))})" if d.get("at") else "")
        + f" &nbsp;·&nbsp; <b>Status</b> {_esc(d['status'])}"
        f' &nbsp;<span style="color:{muted}">{_esc(d["id"])}</span></p>',
        "<h4>Why it waits</h4><ul>",
    ]
    for f in d["findings"]:
        where = f" in <b>{_esc(f['field'])}</b>" if f.get("field") else ""
        parts.append(
            f"<li><b>{_esc(f['kind'])}</b>{where} — {_esc(f['detail'])} "
            f'<span style="color:{muted}">({_esc(f["rule"])})</span><br>'
            f'<span style="font-family:monospace">{_esc(f["excerpt"])}</span></li>'
        )
    parts.append("</ul>")
    result = d.get("result") or {}
    if d["status"] == "pending" and result.get("error"):
        parts.append(
            f'<p style="color:{error}"><b>The last approval failed</b> (still pending): '
            f"{_esc(result['error'])}</p>"
        )
    elif d["status"] != "pending":
        how = "Approved" if d["status"] == "approved" else "Rejected"
        reason = f" — “{_esc(d['reason'])}”" if d.get("reason") else ""
        parts.append(
            f"<p><b>{how}</b> by {_esc(feed.who(str(d['decidedBy'] or '')))} at "
            f"{_esc(review_model.when(d['decidedAt']))}{reason}</p>"
        )
    parts.append("<h4>What</h4>")
    if d.get("diff"):
        parts.append(diff_html(d["diff"], palette))
    elif d.get("text") is not None:
        parts.append(f'<p style="white-space:pre-wrap">{_esc(d["text"])}</p>')
    extras = {
        k: v
        for k, v in d["params"].items()
        # what the agent wrote is shown above (a fact's text, a note's content, a value)
        if k not in ("text", "content", "value", "entity", "name", "expected_sha256") and v
    }
    if extras:  # every other field, as it will be applied
        as_json = {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                   for k, v in extras.items()}  # fmt: skip
        shown = "<br>".join(f"<b>{_esc(k)}</b>: {_esc(v)}" for k, v in as_json.items())
        parts.append(f'<p style="white-space:pre-wrap">{shown}</p>')
    return "".join(parts)


class ReviewPage(QtWidgets.QWidget):
    """The review queue: the list, the selected proposal, Approve and Reject."""

    pending = QtCore.Signal(int)  # the number of pending proposals, after every read
    decided = QtCore.Signal(str, str)  # review id, "approved" / "rejected"
    failed = QtCore.Signal(str, str)  # review id, the error in plain words

    def __init__(
        self,
        store: review_store.ReviewStore,
        parent: QtWidgets.QWidget | None = None,
        *,
        heading: bool = True,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.session = store.session
        self._heading = heading  # False: the window titles the page itself
        self.count: int | None = None  # pending proposals, once read
        self.prompt: QtWidgets.QMessageBox | None = None
        self._all: list[dict[str, Any]] = []
        self._reads = 0  # the latest read wins (a slow one must not overwrite it)
        self._wanted: str | None = None  # a proposal to select once it is listed
        self._build()
        self._debounce = QtCore.QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.refresh)
        self._folder_watch = QtCore.QFileSystemWatcher(self)
        self._folder_watch.directoryChanged.connect(lambda _path: self._debounce.start())
        self._watch_folder()

    # -- construction -------------------------------------------------------------------

    def _build(self) -> None:
        title = QtWidgets.QLabel("<h2>Review queue</h2>")
        self.summary = QtWidgets.QLabel()
        self.summary.setProperty("notice", True)
        # cut rather than wrapped or widening the window beside the search dock
        self.summary.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.show_decided = QtWidgets.QCheckBox("Show decided")
        self.show_decided.setToolTip("Also list the approved and rejected proposals")
        self.show_decided.toggled.connect(lambda _on: self._fill())
        top = QtWidgets.QHBoxLayout()
        if self._heading:
            top.addWidget(title)
            top.addSpacing(12)
        top.addWidget(self.summary, 1)
        top.addWidget(self.show_decided)

        self.model = review_model.ReviewModel(self)
        self.table = QtWidgets.QTableView()
        self.table.setObjectName("reviewList")
        self.table.setAccessibleName("Proposals waiting for review")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        for section, width in enumerate(WIDTHS):
            header.resizeSection(section, width)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_current())

        self.detail = QtWidgets.QTextBrowser()
        self.detail.setObjectName("reviewDetail")
        self.detail.setOpenLinks(False)
        self.error_label = QtWidgets.QLabel()
        self.error_label.setProperty("inlineError", True)
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.reason = QtWidgets.QLineEdit()
        self.reason.setPlaceholderText("Why you reject it (optional, kept with the proposal)")
        self.approve_button = QtWidgets.QPushButton("&Approve…")
        self.approve_button.setToolTip(
            f"Apply the agent's write, as the agent (asks first) — {APPROVE_KEY}"
        )
        self.approve_button.clicked.connect(self.approve)
        self.reject_button = QtWidgets.QPushButton("Re&ject…")
        self.reject_button.setToolTip(
            f"Keep the proposal as rejected; nothing is written (asks first) — {REJECT_KEY}"
        )
        self.reject_button.clicked.connect(self.reject)
        # the page's own keys (the window routes Edit › Approve / Reject proposal to them)
        self.approve_action = self._key_action("Approve", APPROVE_KEY, self.approve)
        self.reject_action = self._key_action("Reject", REJECT_KEY, self.reject)
        actions = QtWidgets.QHBoxLayout()
        actions.addWidget(self.reason, 1)
        actions.addWidget(self.reject_button)
        actions.addWidget(self.approve_button)

        lower = QtWidgets.QWidget()
        below = QtWidgets.QVBoxLayout(lower)
        below.setContentsMargins(0, 0, 0, 0)
        below.addWidget(self.detail, 1)
        below.addWidget(self.error_label)
        below.addLayout(actions)
        split = QtWidgets.QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setStretchFactor(1, 2)
        split.setSizes([150, 450])  # a few rows; the detail needs the room
        column = QtWidgets.QVBoxLayout(self)
        column.setContentsMargins(12, 8, 12, 8)
        column.addLayout(top)
        column.addWidget(split, 1)
        self._show_current()

    def _key_action(self, text: str, key: str, run: Any) -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        action.setShortcut(QtGui.QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(lambda _checked=False: run())
        action.setEnabled(False)
        self.addAction(action)
        return action

    # -- reading the queue ----------------------------------------------------------------

    def refresh(self) -> None:
        """Read the queue again on a worker; the list, the detail and the count follow."""
        self._watch_folder()
        self._reads += 1
        read = self._reads

        def failed(exc: BaseException) -> None:
            self._say_error("The review queue cannot be read", exc)

        self.session.run(self.store.read, lambda described: self._read(read, described), failed)

    def _read(self, read: int, described: list[dict[str, Any]]) -> None:
        if read != self._reads:
            return
        self._all = described
        self._fill()
        self.count = sum(1 for d in described if d["status"] == "pending")
        self.pending.emit(self.count)

    def _fill(self) -> None:
        chosen = self.current()
        rows = self._all if self.show_decided.isChecked() else [
            d for d in self._all if d["status"] == "pending"
        ]  # fmt: skip
        self.model.set_proposals(rows)
        header = self.table.horizontalHeader()
        for section, most in GROWN.items():
            wanted = min(max(WIDTHS[section], self.table.sizeHintForColumn(section)), most)
            if wanted > header.sectionSize(section):
                header.resizeSection(section, wanted)
        waiting = sum(1 for d in self._all if d["status"] == "pending")
        decided = len(self._all) - waiting
        self.summary.setText(
            f"{waiting} waiting for you" + (f", {decided} decided" if decided else "")
            if self._all
            else "Nothing waits: every agent write so far passed the scan."
        )
        row = self.model.row_of(chosen["id"]) if chosen else -1
        if row < 0 and self.model.rowCount():
            row = 0
        if row >= 0:
            self.table.selectRow(row)
        self._show_current()
        self._select_wanted()

    def _watch_folder(self) -> None:
        """Watch the queue folder, or its nearest parent that exists (to see it made)."""
        wanted = self.store.queue()
        while not wanted.is_dir() and wanted.parent != wanted:
            wanted = wanted.parent
        watched = self._folder_watch.directories()
        if watched != [str(wanted)]:
            if watched:
                self._folder_watch.removePaths(watched)
            if wanted.is_dir():
                self._folder_watch.addPath(str(wanted))

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.PaletteChange:
            self._show_current()  # the diff's tints follow the theme

    # -- the selected proposal ------------------------------------------------------------

    def current(self) -> dict[str, Any] | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        row = self.model.data(index, review_model.PROPOSAL_ROLE)
        return row if isinstance(row, dict) else None

    def show_item(self, review_id: str) -> None:
        """Select the proposal `review_id` (a held-back write opened from the Activity
        page), once read; a decided one shows with "Show decided" ticked."""
        self._wanted = review_id
        self._select_wanted()
        self.refresh()  # it may be newer than the list read

    def _select_wanted(self) -> None:
        if self._wanted is None:
            return
        d = next((d for d in self._all if d["id"] == self._wanted), None)
        if d is not None and d["status"] != "pending" and not self.show_decided.isChecked():
            self.show_decided.setChecked(True)  # lists the decided too (and comes back here)
        if self._wanted is not None and self.select(self._wanted):
            self._wanted = None

    def select(self, review_id: str) -> bool:
        row = self.model.row_of(review_id)
        if row >= 0:
            self.table.selectRow(row)
        return row >= 0

    def _show_current(self) -> None:
        d = self.current()
        pending = d is not None and d["status"] == "pending"
        for control in (self.approve_button, self.reject_button, self.reason):
            control.setEnabled(pending)
        self.approve_action.setEnabled(pending)
        self.reject_action.setEnabled(pending)
        if d is None:
            self.detail.setHtml("<p>Select a proposal to see what the agent asked for.</p>")
            return
        self.detail.setHtml(detail_html(d, self.palette()))

    # -- deciding -------------------------------------------------------------------------

    def approve(self) -> QtWidgets.QMessageBox | None:
        """Ask, then apply the selected proposal (the prompt is returned for tests)."""
        d = self.current()
        if d is None or d["status"] != "pending":
            return None
        kinds = ", ".join(dict.fromkeys(f["kind"] for f in d["findings"]))
        return self._ask(
            d,
            "approved",
            f"The scan flagged it ({kinds}). Approving writes it as the agent wrote it, "
            f"{self.store.how}, and agents will read it. It is not undone from here: "
            "change or remove it later if you change your mind.",
        )

    def reject(self) -> QtWidgets.QMessageBox | None:
        """Ask, then record the selected proposal as rejected, with the reason typed."""
        d = self.current()
        if d is None or d["status"] != "pending":
            return None
        reason = self.reason.text().strip() or None
        why = f"Your reason, kept with it: “{reason}”." if reason else "No reason given."
        return self._ask(
            d,
            "rejected",
            f"Nothing is written; the proposal is kept as rejected. {why} It is not undone "
            "from here: the agent can propose it again.",
            reason,
        )

    def _ask(
        self, d: dict[str, Any], verb: str, consequence: str, reason: str | None = None
    ) -> QtWidgets.QMessageBox:
        """The one confirmation of both decisions; `verb` "approved" or "rejected"."""
        kind = review_model.KIND_TITLES.get(d["kind"], d["kind"])
        word = "Approve" if verb == "approved" else "Reject"
        box = QtWidgets.QMessageBox(
            QtWidgets.QMessageBox.Icon.Warning,
            f"{word} this write?",
            f"{kind} by agent {d['agent']} → {d['target']}.",
            QtWidgets.QMessageBox.StandardButton.NoButton,
            self,
        )
        box.setInformativeText(consequence)
        confirm = box.addButton(word, QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        review_id = str(d["id"])

        def answered(button: QtWidgets.QAbstractButton) -> None:
            self.prompt = None
            if button is confirm:
                self._decide(review_id, verb, d, reason)

        box.buttonClicked.connect(answered)
        self.prompt = box
        box.open()
        return box

    def _decide(
        self, review_id: str, verb: str, d: dict[str, Any], reason: str | None = None
    ) -> None:
        self.error_label.hide()
        self.approve_button.setEnabled(False)
        self.reject_button.setEnabled(False)

        def done(_proposal: Any) -> None:
            self.reason.clear()
            self.decided.emit(review_id, verb)
            self.refresh()

        def failed(exc: BaseException) -> None:
            title = "Approval failed" if verb == "approved" else "Rejection failed"
            message = self._say_error(f"{title}: it is still pending", exc)
            self.failed.emit(review_id, message)
            self.refresh()  # the proposal now carries the error (approve keeps it)

        self.store.decide(d, verb, reason, done, failed)

    def _say_error(self, title: str, exc: BaseException) -> str:
        _, message = session_module.describe(exc)
        self.error_label.setText(f"<b>{html.escape(title)}</b> — {html.escape(message)}")
        self.error_label.show()
        return message


def badge(count: int | None) -> str:
    """The navigation item's text: "Review" with the pending count."""
    return f"Review ({count})" if count else "Review"


def show_badge(action: QtGui.QAction, count: int | None) -> None:
    """Show the pending count on the window's Review action: in the toolbar (bold while
    something waits), in the Go menu and in its tooltip."""
    action.setIconText(badge(count))
    action.setText(f"&Review queue ({count})" if count else "&Review queue")
    font = action.font()
    font.setBold(bool(count))
    action.setFont(font)
    waiting = f"{count} agent writes wait for you" if count else "nothing waits"
    action.setToolTip(f"Review queue: {waiting} (Ctrl+Shift+R)")
