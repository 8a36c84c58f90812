"""The main window's status bar: the vault shown, its counts, live sync, and the state of
the search index with a progress bar while embeddings are computed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6 import QtWidgets

from vault_app.core import vault
from vault_app.ui.session import plural, unreadable


class VaultStatusBar(QtWidgets.QStatusBar):
    """Says what the window shows and how fresh it is; the window tells it what happened."""

    def __init__(self, root: Path, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.path_label = QtWidgets.QLabel(str(root))
        self.path_label.setToolTip("The vault shown in this window")
        self.counts_label = QtWidgets.QLabel("scanning…")
        self.index_label = QtWidgets.QLabel("search: waiting")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.addWidget(self.path_label, 1)
        self.live_label = QtWidgets.QLabel("live: off")
        self.live_label.setToolTip("Changes made by agents and editors appear here as they happen")
        self.addPermanentWidget(self.counts_label)
        self.addPermanentWidget(self.live_label)
        self.addPermanentWidget(self.index_label)
        self.addPermanentWidget(self.progress)

    def show_listing(self, listing: vault.VaultScan) -> None:
        """The entities are listed; their facts are being counted."""
        entities = plural(len(listing.entities), "entity", "entities")
        self.counts_label.setText(f"{entities} · counting facts…")

    def show_scan(self, scan: vault.VaultScan) -> None:
        """The counts of a scan, and the files it could not read (in the tooltip)."""
        totals = scan.tier_totals()
        problems = f" · {unreadable(len(scan.problems))}" if scan.problems else ""
        entities = plural(len(scan.entities), "entity", "entities")
        active = totals["hot"] + totals["warm"] + totals["cold"]  # the tiers add up
        superseded = f", {totals['superseded']:,} superseded" if totals["superseded"] else ""
        self.counts_label.setText(
            f"{entities} · {plural(active, 'active fact')} ({totals['hot']:,} hot, "
            f"{totals['warm']:,} warm, {totals['cold']:,} cold){superseded}" + problems
        )
        self.counts_label.setToolTip(
            "\n".join(f"{p.path}: {p.message}" for p in scan.problems[:20])
        )

    def show_search_preparing(self) -> None:
        self.index_label.setText("search: preparing the index…")

    def show_search_ready(self, engine: Any, notice: str | None) -> None:
        self.progress.hide()
        mode = "hybrid" if engine.semantic is not None else "BM25 only"
        self.index_label.setText(f"search: ready ({mode})")
        self.index_label.setToolTip(notice or "Facts, summaries and daily notes are indexed")

    def show_search_progress(self, done: int, total: int, label: str) -> None:
        if done >= total:
            self.progress.hide()
            return
        self.index_label.setText(f"search: {label}…")
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        self.progress.setFormat(f"{done:,}/{total:,}")
        self.progress.show()

    def show_live_status(self, state: str, message: str) -> None:
        words = {"watching": "live", "starting": "live: starting", "stopped": "live: off"}
        self.live_label.setText(words.get(state, f"live: {state}"))
        self.live_label.setToolTip(message or "Following changes on disk")
