"""The context preview: blocks with their meters, built without counting as access."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.search import context
from vault_app.ui import session
from vault_app.ui.pages import context_view


@pytest.fixture(scope="module")
def demo_vault(tmp_path_factory: pytest.TempPathFactory) -> vault.Vault:
    # read-only for these tests: the preview must leave every file as it was
    return demo.create_demo(tmp_path_factory.mktemp("demo") / "v")


@pytest.fixture
def live(demo_vault: vault.Vault) -> Iterator[session.Session]:
    s = session.Session(demo_vault)
    yield s
    s.close()


def fact_files(v: vault.Vault) -> dict[Path, bytes]:
    files = sorted(v.root.rglob("items.json"))
    return {p: p.read_bytes() for p in files if ".vault" not in p.relative_to(v.root).parts}


def test_preview_shows_blocks_with_meters_and_marks_nothing(
    qtbot: QtBot, live: session.Session
) -> None:
    before = fact_files(live.vault)
    preview = context_view.ContextPreview(live, "contractors")
    qtbot.addWidget(preview)
    preview.resize(900, 700)
    preview.show()
    assert preview.status_label.text() == "Preparing the search index…"
    assert preview.block_views() == []

    with qtbot.waitSignal(preview.built, timeout=30_000) as built:
        live.open_search(semantic=False)  # the preview builds once the index is ready
    result = built.args[0]
    assert isinstance(result, context.Context) and result.query is None
    views = preview.block_views()
    assert [v.block.name for v in views] == ["principles", "tacit", "summaries", "facts"]
    for view in views:
        block = view.block
        header_meter = re.search(r"\[(.+)\]$", block.header().splitlines()[1])
        assert header_meter is not None
        # e.g. "42% — 924/2,200 chars · ≈231 tokens" (no model here: an estimate)
        assert view.meter.format() == header_meter[1]
        assert header_meter[1].endswith(f" · ≈{-(-len(block.items_text) // 4):,} tokens")
        assert view.meter.value() == block.used and view.meter.maximum() == block.cap
        assert view.text_label.text() == block.items_text or any(block.line_keys)
        assert block.body
        assert block.title in view.title_label.text()
    assert "Tacit knowledge — contractors" in views[1].text_label.text()
    used = len(result.text)
    tokens = f"≈{-(-used // 4):,} tokens"
    assert preview.total_meter.format() == context_view.meter_text(used, 4000, tokens)
    assert used <= 4000 and result.marked == {}
    assert "no fact was marked" in preview.status_label.text()
    assert fact_files(live.vault) == before  # accessCount / lastAccessed untouched


def test_query_and_budget_are_used(qtbot: QtBot, live: session.Session) -> None:
    before = fact_files(live.vault)
    with qtbot.waitSignal(live.searchReady, timeout=30_000):
        live.open_search(semantic=False)
    preview = context_view.ContextPreview(live)
    qtbot.addWidget(preview)
    assert not preview.preview_button.isEnabled()
    assert preview.budget_spin.value() == context.DEFAULT_BUDGET

    preview.query_edit.setText("roof repair last week")
    preview.budget_spin.setValue(2500)
    with qtbot.waitSignal(preview.built, timeout=30_000) as built:
        preview.set_agent("contractors")
    result = built.args[0]
    assert result.query == "roof repair last week" and result.budget == 2500
    assert result.period is not None  # a temporal query adds the timeline
    assert [v.block.name for v in preview.block_views()][-1] == "timeline"
    assert "Timeline" in preview.status_label.text()
    assert preview.total_meter.maximum() == 2500 and len(result.text) <= 2500
    assert fact_files(live.vault) == before


def test_unknown_agent_is_said_in_words(qtbot: QtBot, live: session.Session) -> None:
    with qtbot.waitSignal(live.searchReady, timeout=30_000):
        live.open_search(semantic=False)
    preview = context_view.ContextPreview(live)
    qtbot.addWidget(preview)
    with qtbot.waitSignal(preview.failed) as failed:
        preview.set_agent("nobody")
    assert "no agent 'nobody'" in failed.args[0]
    assert preview.status_label.text().startswith("Not found:")
    assert preview.block_views() == []


def test_the_default_budget_is_the_builders() -> None:
    from vault_app.search import context as search_context
    from vault_app.ui.pages import context_view

    assert context_view.DEFAULT_BUDGET == search_context.DEFAULT_BUDGET


def test_the_memory_blocks_show_their_stores_meters(qtbot: QtBot, tmp_path: Path) -> None:
    from vault_app.core import agent_memory, notes

    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("household")
    agent_memory.change_notes(v, "household", "memory", "add", content="Boiler in the basement")
    path = v.root / "agents/household/memories/USER.md"
    path.write_text(notes.join([f"Preference {n}: " + "x" * 90 for n in range(15)]))
    agent_memory.set_profile(v, "household", "timezone", "Europe/Paris")
    agent_memory.write_tier(v, "household", 3, "Moving house this week")
    live = session.Session(v)
    try:
        preview = context_view.ContextPreview(live, "household")
        qtbot.addWidget(preview)
        with qtbot.waitSignal(preview.built, timeout=30_000):
            live.open_search(semantic=False)
        views = {view.block.name: view for view in preview.block_views()}
        assert list(views)[:4] == ["principles", "user", "notes", "tiers"]
        memory = views["notes"]
        assert memory.meter.maximum() == 2200 and memory.meter.value() == 22
        assert memory.meter.format() == memory.block.meter()
        assert memory.meter.format().startswith("1% — 22/2,200 chars · ≈")
        assert "L1 essential" in memory.title_label.text()
        user = views["user"]  # the store is over its budget: marked, the bar full
        assert user.block.store is not None and user.block.store.over
        assert user.meter.property("over") is True
        assert user.meter.value() == user.meter.maximum() == 1375
        assert "⚠ over budget" in user.meter.format()
        assert user.block.left_out > 0 and not user.left_out_label.isHidden()
        assert "\n§\n" in user.text_label.text()
        assert "Moving house this week" in views["tiers"].text_label.text()
    finally:
        live.close()
