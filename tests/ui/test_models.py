"""The Qt models: sidebar tree, facts table, filter proxy and tier badges."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from vault_app.core import decay, models, vault
from vault_app.ui import themes
from vault_app.ui.models import base, sidebar, tier_badge
from vault_app.ui.models import facts as facts_table

JANE = "areas/people/jane"
ACME = "areas/companies/acme"
NOW = dt.datetime.now().astimezone()


def aged(v: vault.Vault, days: int) -> vault.Vault:
    """The same vault, writing as if it were `days` ago (to make warm and cold facts)."""
    return vault.Vault(v.root, clock=decay.fixed_clock(NOW - dt.timedelta(days=days)))


@pytest.fixture
def v(vault: vault.Vault) -> vault.Vault:
    vault.create_entity(JANE, "Jane is the family plumber.")
    vault.add_fact(JANE, "Jane fixed the kitchen leak", "milestone")
    aged(vault, 20).add_fact(JANE, "Jane prefers text messages", "preference")
    old = aged(vault, 90).add_fact(JANE, "Jane lives in Portland", "context")
    vault.supersede_fact(old.id, "Jane lives in Seattle")
    vault.create_entity(ACME)
    aged(vault, 90).add_fact(ACME, "Acme sells pipes", "context", related=[JANE])
    vault.create_entity("areas/family")
    vault.create_entity("projects/garden")
    vault.create_entity("projects/old-fence")
    aged(vault, 40).add_fact("projects/old-fence", "The fence was rebuilt", "milestone")
    vault.archive_entity("projects/old-fence")  # an archived entity takes no new facts
    roof = vault.paths.life_dir / "projects" / "roof"
    roof.mkdir(parents=True)
    (roof / "items.json").write_text("[{")
    vault.create_agent("finance")
    vault.create_entity("agent:finance:projects/budget")
    vault.add_fact("agent:finance:projects/budget", "Budget is 500 a month", "status")
    return vault


def children(model: QtCore.QAbstractItemModel, parent: QtCore.QModelIndex) -> list[str]:
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def child(
    model: QtCore.QAbstractItemModel, parent: QtCore.QModelIndex, name: str
) -> QtCore.QModelIndex:
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if index.data() == name:
            return index
    raise AssertionError(f"{name} not under {parent.data()}: {children(model, parent)}")


def counts(index: QtCore.QModelIndex) -> list[Any]:
    return [index.siblingAtColumn(c).data() for c in range(1, 5)]


# -- sidebar ------------------------------------------------------------------------------


def test_sidebar_structure(qtmodeltester: ModelTester, v: vault.Vault) -> None:
    model = sidebar.SidebarModel(v.scan())
    qtmodeltester.check(model)
    root = QtCore.QModelIndex()
    assert children(model, root) == ["Global", "Agents", "Principles"]
    glob = child(model, root, "Global")
    assert children(model, glob) == ["Projects", "Areas", "Resources", "Archives", "Daily notes"]
    areas = child(model, glob, "Areas")
    assert children(model, areas) == ["Companies", "People", "Family"]  # groups first
    assert child(model, areas, "People").data(base.NODE_ROLE).kind == "group"

    jane = model.index_for_address(JANE)
    assert jane.data() == "Jane"
    assert jane.parent().data() == "People" and jane.parent().parent().data() == "Areas"
    node = jane.data(base.NODE_ROLE)
    assert (node.kind, node.address, node.agent) == ("entity", JANE, None)
    assert counts(jane) == [3, 2, 1, 0]  # active, hot, warm, cold (Portland superseded)
    assert counts(areas) == [4, 2, 1, 1]  # jane + acme, added up on the group
    assert model.index_for_address(f"global:{JANE}") == jane

    archives = child(model, glob, "Archives")
    dim = base.disabled_text()
    assert archives.data(QtCore.Qt.ItemDataRole.ForegroundRole).color() == dim
    fence = model.index_for_address("archives/old-fence")
    assert fence.data(QtCore.Qt.ItemDataRole.ForegroundRole).color() == dim
    assert jane.data(QtCore.Qt.ItemDataRole.ForegroundRole) is None

    roof = model.index_for_address("projects/roof")
    brush = roof.data(QtCore.Qt.ItemDataRole.ForegroundRole)
    assert brush.color() == themes.error_colour(QtGui.QGuiApplication.palette())
    assert "cannot be read" in roof.data(QtCore.Qt.ItemDataRole.ToolTipRole)
    icon = roof.data(QtCore.Qt.ItemDataRole.DecorationRole)  # a warning on the row
    assert isinstance(icon, QtGui.QImage) and not icon.isNull()
    assert jane.data(QtCore.Qt.ItemDataRole.DecorationRole) is None
    projects = roof.parent()  # the way down to it is marked too: seen when collapsed
    assert projects.data() == "Projects"
    assert projects.data(QtCore.Qt.ItemDataRole.DecorationRole) is not None
    assert jane.parent().data(QtCore.Qt.ItemDataRole.DecorationRole) is None

    finance = child(model, child(model, root, "Agents"), "finance")
    assert finance.data(base.NODE_ROLE).kind == "agent"
    assert children(model, finance) == ["Workspace", "Daily notes", "TACIT.md", "CONTEXT.md"]
    kinds = [model.index(r, 0, finance).data(base.NODE_ROLE) for r in range(4)]
    assert [n.kind for n in kinds] == ["workspace", "daily", "document", "document"]
    assert {n.agent for n in kinds} == {"finance"} and kinds[2].document == "TACIT.md"
    budget = model.index_for_address("agent:finance:projects/budget")
    assert budget.parent().parent() == model.index(0, 0, finance)
    assert counts(finance) == [1, 1, 0, 0]
    principles = child(model, root, "Principles").data(base.NODE_ROLE)
    assert (principles.kind, principles.document) == ("principles", "AGENTS.md")
    assert not model.index_for_address("areas/people/nobody").isValid()


def test_sidebar_update_inserts_and_removes_rows_keeping_view_state(
    qtbot: QtBot, qtmodeltester: ModelTester, v: vault.Vault
) -> None:
    model = sidebar.SidebarModel(v.scan())
    qtmodeltester.check(model)  # stays attached: every signal of the update is checked too
    view = QtWidgets.QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    jane = model.index_for_address(JANE)
    view.expand(jane.parent())
    view.expand(jane.parent().parent())
    view.setCurrentIndex(jane)
    acme = QtCore.QPersistentModelIndex(model.index_for_address(ACME))
    events: list[str] = []
    model.rowsInserted.connect(lambda *a: events.append("insert"))
    model.rowsRemoved.connect(lambda *a: events.append("remove"))
    model.modelReset.connect(lambda: events.append("reset"))
    model.layoutChanged.connect(lambda: events.append("layout"))

    v.create_entity("areas/people/adam")  # before jane: her row moves down
    v.create_entity("areas/people/zoe")
    v.archive_entity(ACME)  # leaves areas/companies (the group goes), lands in archives
    v.create_agent("ops")
    model.update(v.scan())

    assert "reset" not in events and "layout" not in events
    assert events.count("insert") >= 3 and events.count("remove") >= 1
    assert not acme.isValid()
    current = view.currentIndex()
    assert current.data(base.NODE_ROLE).address == JANE
    assert view.isExpanded(current.parent()) and view.isExpanded(current.parent().parent())
    people = current.parent()
    assert children(model, people) == ["Adam", "Jane", "Zoe"]
    assert model.index_for_address("archives/companies/acme").isValid()
    assert "Companies" not in children(model, people.parent())
    assert "ops" in children(model, child(model, QtCore.QModelIndex(), "Agents"))
    qtmodeltester.check(model)

    # a folder that was only a group becomes an entity: its row changes kind and place
    (v.paths.life_dir / "areas" / "people" / "summary.md").write_text("# People\n")
    model.update(v.scan())
    qtmodeltester.check(model)
    people = model.index_for_address("areas/people")
    assert people.data(base.NODE_ROLE).kind == "entity"
    assert children(model, people) == ["Adam", "Jane", "Zoe"]


def test_sidebar_update_with_same_structure_only_changes_data(
    qtmodeltester: ModelTester, v: vault.Vault
) -> None:
    model = sidebar.SidebarModel(v.scan())
    qtmodeltester.check(model)
    structural: list[str] = []
    changed: list[tuple[str, int, int]] = []
    for signal in (model.rowsInserted, model.rowsRemoved, model.layoutChanged):
        signal.connect(lambda *a: structural.append("x"))
    model.modelReset.connect(lambda: structural.append("reset"))
    model.dataChanged.connect(
        lambda top, bottom, roles: changed.append((top.data(), top.column(), bottom.column()))
    )
    model.update(v.scan())
    assert structural == [] and changed == []  # nothing changed, nothing announced

    v.add_fact(JANE, "Jane's van is white", "context")
    model.update(v.scan())
    assert structural == []
    assert [name for name, *_ in changed] == ["Global", "Areas", "People", "Jane"]
    assert all((first, last) == (0, 4) for _, first, last in changed)
    assert counts(model.index_for_address(JANE)) == [4, 3, 1, 0]

    # built on a worker against the tree on show, the changed rows are known beforehand,
    # and the update applies exactly those
    changed.clear()
    v.add_fact(ACME, "Acme invoices quarterly", "context")
    tree = sidebar.SidebarModel.build(v.scan(), against=model.tree)
    assert tree.changed is not None
    assert sorted(tree.items[i].node.name for i in tree.changed) == [
        "Acme",
        "Areas",
        "Companies",
        "Global",
    ]
    model.update(v.scan(), tree=tree)
    assert structural == [] and sorted(name for name, *_ in changed) == [
        "Acme",
        "Areas",
        "Companies",
        "Global",
    ]
    v.create_entity("areas/people/zed")  # a new row: nothing to apply in place
    assert sidebar.SidebarModel.build(v.scan(), against=model.tree).changed is None


def test_sidebar_counts_a_scan_problem_on_its_entity(v: vault.Vault) -> None:
    scan = v.scan()
    scan.problems.append(
        models.Problem(path="global/life/areas/people/jane/items.json", message="odd entry")
    )
    model = sidebar.SidebarModel(scan, agents=["finance"])
    jane = model.index_for_address(JANE)
    assert "odd entry" in jane.data(QtCore.Qt.ItemDataRole.ToolTipRole)
    assert (
        model.index_for_address("areas/family")
        .data(QtCore.Qt.ItemDataRole.ToolTipRole)
        .startswith("areas/family")
    )


def test_empty_sidebar_then_first_scan(qtmodeltester: ModelTester, v: vault.Vault) -> None:
    model = sidebar.SidebarModel()
    qtmodeltester.check(model)
    assert children(model, QtCore.QModelIndex()) == ["Global", "Agents", "Principles"]
    model.update(v.scan())
    qtmodeltester.check(model)
    assert model.index_for_address(JANE).isValid()
    assert JANE in model.addresses()


# -- facts table and filter -----------------------------------------------------------------


def fact(fid: str, text: str, **fields: Any) -> models.Fact:
    fields.setdefault("category", "context")
    fields.setdefault("timestamp", NOW)
    return models.Fact(id=fid, fact=text, **fields)


TIERS = {"a": "hot", "b": "warm", "c": "cold", "n": "hot"}


def tier_of(f: models.Fact) -> models.DecayTier:
    return models.DecayTier(TIERS[f.id[0]])


def sample() -> list[models.Fact]:
    return [
        fact(
            "a1",
            "Jane fixed the Kitchen leak",
            category="milestone",
            access_count=10,
            last_accessed=NOW,
        ),
        fact("b1", "Jane prefers text messages", category="preference", access_count=9),
        fact("c1", "Jane lives in Portland", status="superseded", superseded_by="a2"),
        fact("a2", "Jane lives in Seattle", supersedes="c1", access_count=2),
        fact("c2", "The kitchen tap is chrome", last_accessed=NOW - dt.timedelta(days=90)),
    ]


def proxy_texts(proxy: QtCore.QSortFilterProxyModel) -> list[str]:
    return [proxy.index(r, 0).data() for r in range(proxy.rowCount())]


def test_facts_model_columns_roles_and_lineage(qtmodeltester: ModelTester) -> None:
    model = facts_table.FactsModel()
    model.set_facts(JANE, sample(), tier_of)
    qtmodeltester.check(model)
    assert model.rowCount() == 5 and model.columnCount() == 8
    header = [model.headerData(c, QtCore.Qt.Orientation.Horizontal) for c in range(8)]
    assert header == list(facts_table.FactsModel.COLUMNS)
    row = [model.index(0, c).data() for c in range(8)]
    assert row[:3] == ["Jane fixed the Kitchen leak", "Milestone", "Hot"]
    assert row[4:] == ["10", "1.00", "", "Active"]
    assert model.index(0, 2).data(base.TIER_ROLE) == models.DecayTier.HOT.value
    assert model.index(0, 0).data(base.FACT_ROLE).id == "a1"
    old = model.index(2, 7)
    assert old.data() == "Superseded" and model.index(2, 2).data(base.TIER_ROLE) is None
    tip = old.data(QtCore.Qt.ItemDataRole.ToolTipRole)
    assert "Superseded by a2" in tip and "now: Jane lives in Seattle" in tip
    assert "was: Jane lives in Portland" in model.index(3, 0).data(
        QtCore.Qt.ItemDataRole.ToolTipRole
    )
    assert old.data(QtCore.Qt.ItemDataRole.ForegroundRole).color() == base.disabled_text()
    accessed = [model.index(r, 3).data(base.SORT_ROLE) for r in (0, 4, 1)]
    assert accessed[0] > accessed[1] > accessed[2]  # now, 90 days ago, never
    assert model.index(1, 3).data() == "never"


def test_update_facts_keeps_rows_and_inserts_new_ones(qtmodeltester: ModelTester) -> None:
    model = facts_table.FactsModel()
    model.set_facts(JANE, sample(), tier_of)
    qtmodeltester.check(model)
    kept = QtCore.QPersistentModelIndex(model.index(3, 0))
    events: list[str] = []
    model.modelReset.connect(lambda: events.append("reset"))
    model.rowsInserted.connect(lambda p, first, last: events.append(f"insert {first}"))
    model.dataChanged.connect(lambda top, bottom, roles: events.append(f"changed {top.row()}"))
    facts = sample()
    facts[1] = fact("b1", "Jane prefers text messages", category="preference", access_count=11)
    facts.append(fact("n1", "Jane has a new van"))
    model.update_facts(JANE, facts, tier_of)
    assert events == ["changed 1", "insert 5"]
    assert kept.isValid() and kept.row() == 3 and model.index(1, 4).data() == "11"
    model.update_facts("areas/people/other", facts[:2], tier_of)  # another entity: a reset
    assert events[-1] == "reset" and model.rowCount() == 2
    qtmodeltester.check(model)


def test_filter_proxy_filters_and_sorts_numerically(qtmodeltester: ModelTester) -> None:
    model = facts_table.FactsModel()
    model.set_facts(JANE, sample(), tier_of)
    proxy = facts_table.FactsFilterProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    assert len(proxy_texts(proxy)) == 4  # superseded hidden by default
    proxy.set_status("all")
    assert "Jane lives in Portland" in proxy_texts(proxy)
    proxy.set_status("superseded")
    assert proxy_texts(proxy) == ["Jane lives in Portland"]
    proxy.set_status("active")
    proxy.set_tiers(["hot"])
    assert proxy_texts(proxy) == ["Jane fixed the Kitchen leak", "Jane lives in Seattle"]
    proxy.set_tiers(models.DecayTier)
    proxy.set_category("preference")
    assert proxy_texts(proxy) == ["Jane prefers text messages"]
    proxy.set_category(None)
    proxy.set_text("KITCHEN")
    assert proxy_texts(proxy) == ["Jane fixed the Kitchen leak", "The kitchen tap is chrome"]
    proxy.set_text("kitchen  leak")  # every word must appear
    assert proxy_texts(proxy) == ["Jane fixed the Kitchen leak"]
    proxy.set_text("")
    with pytest.raises(ValueError):
        proxy.set_status("deleted")

    proxy.sort(facts_table.FactsModel.ACCESSES, QtCore.Qt.SortOrder.DescendingOrder)
    accesses = [proxy.index(r, facts_table.FactsModel.ACCESSES).data() for r in range(4)]
    assert accesses == ["10", "9", "2", "0"]  # as numbers: "9" < "10"
    proxy.sort(facts_table.FactsModel.TIER, QtCore.Qt.SortOrder.AscendingOrder)
    tiers = [proxy.index(r, facts_table.FactsModel.TIER).data() for r in range(4)]
    assert tiers == ["Hot", "Hot", "Warm", "Cold"]
    qtmodeltester.check(proxy)


def test_tier_badge_paints_coloured_pills(qtbot: QtBot) -> None:
    model = facts_table.FactsModel()
    model.set_facts(JANE, sample(), tier_of)
    table = QtWidgets.QTableView()
    qtbot.addWidget(table)
    table.setModel(model)
    delegate = tier_badge.TierBadgeDelegate(table)
    table.setItemDelegateForColumn(facts_table.FactsModel.TIER, delegate)
    table.resize(900, 300)
    table.show()
    qtbot.waitExposed(table)
    image = table.viewport().grab().toImage()
    column = table.columnViewportPosition(facts_table.FactsModel.TIER)
    width = table.columnWidth(facts_table.FactsModel.TIER)

    def colours(row: int) -> set[str]:
        top = table.rowViewportPosition(row)
        height = table.rowHeight(row)
        return {
            image.pixelColor(x, y).name()
            for x in range(column, column + width)
            for y in range(top, top + height)
        }

    assert base.TIER_COLOURS[models.DecayTier.HOT] in colours(0)
    assert base.TIER_COLOURS[models.DecayTier.WARM] in colours(1)
    assert not set(base.TIER_COLOURS.values()) & colours(2)  # superseded: no pill
    option = QtWidgets.QStyleOptionViewItem()
    option.font = table.font()
    hint = delegate.sizeHint(option, model.index(0, facts_table.FactsModel.TIER))
    assert hint.width() > QtGui.QFontMetrics(table.font()).horizontalAdvance("Hot")
    warm = QtGui.QColor(base.TIER_COLOURS[models.DecayTier.WARM])
    hot = QtGui.QColor(base.TIER_COLOURS[models.DecayTier.HOT])
    assert tier_badge.badge_text_colour(warm).lightness() < 60  # dark text on amber
    assert tier_badge.badge_text_colour(hot).name() == "#ffffff"


def test_index_for_address_survives_bad_input(tmp_path: Path) -> None:
    model = sidebar.SidebarModel()
    assert not model.index_for_address("../etc").isValid()
    assert not model.index_for_address("").isValid()


def test_many_changed_rows_are_swapped_in_keeping_the_view_state(
    qtbot: QtBot, qtmodeltester: ModelTester, v: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sidebar, "_SWAP_AT", 0)  # what a rescan of thousands of rows does
    model = sidebar.SidebarModel(v.scan())
    qtmodeltester.check(model)
    view = QtWidgets.QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    jane = model.index_for_address(JANE)
    view.expand(jane.parent().parent())
    view.expand(jane.parent())
    view.setCurrentIndex(jane)
    events: list[str] = []
    for name in ("rowsInserted", "rowsRemoved", "modelReset", "dataChanged", "layoutChanged"):
        getattr(model, name).connect(lambda *a, name=name: events.append(name))
    v.add_fact(JANE, "Jane's van is white", "context")
    model.update(v.scan(), tree=sidebar.SidebarModel.build(v.scan(), against=model.tree))
    assert events == ["layoutChanged"]
    current = view.currentIndex()
    assert current.data(base.NODE_ROLE).address == JANE
    assert counts(current) == [4, 3, 1, 0]
    assert view.isExpanded(current.parent()) and view.isExpanded(current.parent().parent())
    assert model.index_for_address(JANE) == current
    qtmodeltester.check(model)
