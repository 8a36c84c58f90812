"""Composition root of the desktop app: QApplication, the vault, the main window.

This first window lists the vault's entities (global PARA and each agent's workspace,
with tier counts) and shows the selected entity's summary and facts. The vault is read
by the core library; nothing here writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import config, errors, layout, vault

TIER_COLOURS = {"hot": "#d9480f", "warm": "#e8a200", "cold": "#4a7fb5"}
REF_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1


class MainWindow(QtWidgets.QMainWindow):
    def __init__(self, target: vault.Vault) -> None:
        super().__init__()
        self.vault = target
        self.setWindowTitle(f"vault-app — {target.root.name}")
        self.resize(1200, 760)

        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderLabels(["Entity", "Active", "Hot", "Warm", "Cold"])
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        for column in range(1, 5):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.tree.currentItemChanged.connect(self._show_selected)

        self.summary = QtWidgets.QTextBrowser()
        self.facts = QtWidgets.QTableWidget(0, 5)
        self.facts.setHorizontalHeaderLabels(["Fact", "Category", "Tier", "Accessed", "Status"])
        self.facts.horizontalHeader().setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.Stretch
        )
        self.facts.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.facts.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.facts.verticalHeader().hide()

        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.summary)
        right.addWidget(self.facts)
        right.setSizes([260, 480])
        split = QtWidgets.QSplitter()
        split.addWidget(self.tree)
        split.addWidget(right)
        split.setSizes([420, 780])
        self.setCentralWidget(split)
        self.populate()

    def populate(self) -> None:
        """Fill the tree: scope → PARA category → groups → entity, counts per entity."""
        scan = self.vault.scan()
        self.tree.clear()
        nodes: dict[tuple[str, ...], QtWidgets.QTreeWidgetItem] = {}

        def node(key: tuple[str, ...]) -> QtWidgets.QTreeWidgetItem:
            if key not in nodes:
                parent = node(key[:-1]) if len(key) > 1 else None
                item = QtWidgets.QTreeWidgetItem([key[-1]])
                if parent is None:
                    self.tree.addTopLevelItem(item)
                else:
                    parent.addChild(item)
                item.setExpanded(len(key) <= 2)
                nodes[key] = item
            return nodes[key]

        for row in scan.entities:
            scope = ("Global",) if row.scope == layout.GLOBAL_SCOPE else ("Agents", row.scope[6:])
            *groups, name = row.path.split("/")
            parent = node((*scope, groups[0].title(), *groups[1:]))
            item = QtWidgets.QTreeWidgetItem(
                parent, [name, str(row.active), str(row.hot), str(row.warm), str(row.cold)]
            )
            item.setData(0, REF_ROLE, row.address)
            item.setToolTip(0, row.problem or row.address)
            if row.problem:
                item.setForeground(0, QtGui.QBrush(QtGui.QColor("#c92a2a")))
            elif row.path.startswith("archives/"):
                item.setForeground(0, QtGui.QBrush(QtGui.QColor("#868e96")))
        for column in range(1, 5):
            self.tree.resizeColumnToContents(column)
        totals = scan.tier_totals()
        self.statusBar().showMessage(
            f"{self.vault.root} — {len(scan.entities)} entities, {scan.fact_count} facts "
            f"({totals['hot']} hot, {totals['warm']} warm, {totals['cold']} cold)"
            + (f" — {len(scan.problems)} problems" if scan.problems else "")
        )

    def _show_selected(self, item: QtWidgets.QTreeWidgetItem | None) -> None:
        address = item.data(0, REF_ROLE) if item else None
        if not address:
            return
        try:
            view = self.vault.entity(address)
        except errors.VaultError as exc:
            self.summary.setPlainText(f"Cannot open {address}: {exc}")
            self.facts.setRowCount(0)
            return
        header = "".join(
            f"**Cannot read {what}:** {problem}\n\n"
            for what, problem in (("the facts", view.error), ("summary.md", view.summary.error))
            if problem
        )
        self.summary.setMarkdown(header + (view.summary.text or f"# {view.ref.title}"))
        now = self.vault.now()
        facts = sorted(view.facts, key=lambda f: (not f.is_active, -f.access_count))
        self.facts.setRowCount(len(facts))
        for row, fact in enumerate(facts):
            tier = self.vault.tier(fact, now).value if fact.is_active else ""
            cells = [
                fact.fact,
                fact.category.value,
                tier,
                str(fact.access_count),
                fact.status.value,
            ]
            for column, text in enumerate(cells):
                cell = QtWidgets.QTableWidgetItem(text)
                if column == 2 and tier:
                    cell.setForeground(QtGui.QBrush(QtGui.QColor(TIER_COLOURS[tier])))
                if not fact.is_active:
                    cell.setForeground(QtGui.QBrush(QtGui.QColor("#868e96")))
                self.facts.setItem(row, column, cell)
        self.facts.resizeColumnsToContents()
        self.facts.horizontalHeader().setSectionResizeMode(
            0, QtWidgets.QHeaderView.ResizeMode.Stretch
        )


def open_or_create_demo(path: Path | None, demo: bool) -> Path:
    """The vault to open: the given one, else the demo vault (created on first use)."""
    if path is not None and not demo:
        return path
    target = config.demo_vault_path()
    if not layout.is_vault(target):
        from vault_app.core import demo as demo_content

        target.parent.mkdir(parents=True, exist_ok=True)
        demo_content.create_demo(target)
    return target


def run(path: Path | None, *, demo: bool = False) -> int:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    app.setApplicationName("vault-app")
    icon = Path(__file__).resolve().parents[2] / "resources" / "icons" / "vault-app.svg"
    if icon.is_file():
        app.setWindowIcon(QtGui.QIcon(str(icon)))
    try:
        target = vault.Vault(open_or_create_demo(path, demo), actor="gui")
    except errors.VaultError as exc:
        QtWidgets.QMessageBox.critical(None, "vault-app", f"Cannot open the vault:\n{exc}")
        return 1
    window = MainWindow(target)
    window.show()
    return app.exec()
