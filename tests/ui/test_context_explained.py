"""The context preview, explained (issue 16): tokens beside characters, items left out,
the principles' warning, and each line opening what it shows.

Variants thought of: a small budget (1,500 characters) cuts the demo's principles: the
warning is shown above the blocks, from the builder's own `warnings`; the facts block
says how many facts were left out; a fact's line opens that fact in the window (the
agent page's preview is wired by the window), a summary's line its entity, a daily
entry's line that day; a key that leads nowhere does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import demo, vault
from vault_app.ui import app
from vault_app.ui.pages import context_view


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "v"
    demo.create_demo(root)
    return root


@pytest.fixture
def window(qtbot: QtBot, demo_root: Path, store: QtCore.QSettings) -> Iterator[app.MainWindow]:
    main = app.MainWindow(vault.Vault(demo_root), store, search=False, live=False)
    qtbot.addWidget(main)
    main.resize(1280, 720)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: main.session.scan is not None, timeout=20_000)
    with qtbot.waitSignal(main.session.searchReady, timeout=30_000):
        main.session.open_search(semantic=False)
    yield main
    main.session.wait()


def built_preview(qtbot: QtBot, window: app.MainWindow, budget: int) -> context_view.ContextPreview:
    page = window.show_agent("finance", "context")
    preview = page.preview
    qtbot.waitUntil(lambda: preview.context is not None, timeout=20_000)
    preview.budget_spin.setValue(budget)
    with qtbot.waitSignal(preview.built, timeout=20_000):
        preview.preview()
    return preview


def link_of(view: context_view.BlockView, prefix: str) -> str:
    key = next(k for k in view.block.line_keys if k and k.startswith(prefix))
    assert f'href="{key}"' in view.text_label.text()
    return key


def test_small_budget_warns_and_says_what_was_left_out(
    qtbot: QtBot, window: app.MainWindow
) -> None:
    preview = built_preview(qtbot, window, 1500)
    assert preview.context is not None and preview.context.warnings
    assert preview.warning_label.isVisible()
    assert "principles (global/AGENTS.md) are cut" in preview.warning_label.text()
    facts = next(v for v in preview.block_views() if v.block.name == "facts")
    assert facts.block.left_out > 0 and not facts.left_out_label.isHidden()
    assert f"{facts.block.left_out} items left out" in facts.left_out_label.text()
    assert "tokens" in facts.meter.format() and "tokens" in preview.total_meter.format()
    roomy = built_preview(qtbot, window, 20_000)
    assert not roomy.warning_label.isVisible()


def test_each_line_opens_what_it_shows(qtbot: QtBot, window: app.MainWindow) -> None:
    preview = built_preview(qtbot, window, 6000)
    facts = next(v for v in preview.block_views() if v.block.name == "facts")
    key = link_of(facts, "fact:")
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        facts.text_label.linkActivated.emit(key)  # what the label emits on a click
    assert window.pages.currentWidget() is window.entity_view
    assert window.entity_view.selected_fact_id() == key.removeprefix("fact:")

    page = window.show_agent("finance", "context")
    summaries = next(v for v in page.preview.block_views() if v.block.name == "summaries")
    key = link_of(summaries, "summary:")
    with qtbot.waitSignal(window.entity_view.loaded, timeout=10_000):
        summaries.text_label.linkActivated.emit(key)
    assert window.entity_view.address == key.removeprefix("summary:")
    page.preview.open_key("nothing:here")  # leads nowhere: nothing happens
    page.preview.open_key("fact:no-such-fact")
