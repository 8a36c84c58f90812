"""The window over a vault holding odd values (issue 11): a fact with a lone surrogate, an
access count of 2**63, a time in year 1, metadata 100 levels deep, and a file nested
100,000 levels (no parser reads it). The window opens, lists every entity, shows the good
facts with a banner naming each bad one at its place, searches (BM25) and computes the
dashboard, without an exception or a Qt warning. The variants themselves are listed in
tests/core/test_hardening_odd_values.py."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import vault
from vault_app.ui import app


def good(fact_id: str, text: str, **fields: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "id": fact_id,
        "fact": text,
        "category": "context",
        "timestamp": "2026-02-27T09:00:00",
        "lastAccessed": "2026-02-28T09:00:00",
        "accessCount": 3,
        "metadata": {},
    }
    entry.update(fields)
    return entry


def test_the_window_leaves_odd_facts_out_and_keeps_working(qtbot: QtBot, tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v", actor="gui")
    v.create_entity("areas/odd", "Odd things.")
    v.create_entity("areas/deep")
    v.create_entity("projects/kitchen")
    v.add_fact("projects/kitchen", "The plumber fixed the sink", "milestone")
    deep = '{"a":' * 100 + "1" + "}" * 100
    entries = [
        json.dumps(good("good-0", "The plumber checks the boiler yearly")),
        json.dumps(good("odd-1", "Plumber \ud800 text")),
        json.dumps(good("odd-2", "Plumber count", accessCount=2**63)),
        json.dumps(good("odd-3", "Plumber year one", lastAccessed="0001-01-01T00:00:00")),
        json.dumps(good("odd-4", "Plumber deep", metadata="@@")).replace('"@@"', deep),
    ]
    (v.paths.life_dir / "areas/odd/items.json").write_text("[" + ",\n".join(entries) + "]")
    far = '{"a":' * 100_000 + "1" + "}" * 100_000
    (v.paths.life_dir / "areas/deep/items.json").write_text(
        "[" + json.dumps(good("deep", "Deep", metadata="@@")).replace('"@@"', far) + "]"
    )
    store = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    main = app.MainWindow(v, store, search=False)
    qtbot.addWidget(main)
    main.show()
    main.start()
    qtbot.waitUntil(lambda: len(main.sidebar_model.addresses()) == 3, timeout=20_000)
    qtbot.waitUntil(lambda: main.message_bar.isVisible(), timeout=10_000)
    assert "areas/deep" in main.message_bar.text.text()

    main.open_entity("areas/odd")
    qtbot.waitUntil(lambda: main.entity_view.address == "areas/odd", timeout=10_000)
    qtbot.waitUntil(lambda: main.entity_view.banner.isVisible(), timeout=10_000)
    banner = main.entity_view.banner_label.text()
    for place in ("[1].fact", "[2].accessCount", "[3].lastAccessed", "[4].metadata"):
        assert place in banner
    assert main.entity_view.model.rowCount() == 1

    main.show_dashboard()
    qtbot.waitUntil(lambda: main.dashboard.cold_report is not None, timeout=20_000)

    main.session.open_search(semantic=False)
    qtbot.waitUntil(lambda: main.session.engine is not None, timeout=60_000)
    main.search_action.trigger()
    main.search.query_edit.setText("plumber")
    results = main.search.results.model()
    qtbot.waitUntil(lambda: results.rowCount() >= 2, timeout=20_000)
    ids = {results.hit(r).fact_id for r in range(results.rowCount())}
    assert "good-0" in ids and not any(i and i.startswith("odd") for i in ids)
    main.session.wait()
