"""`FactFile.fact`: one fact validated alone gives what `FactFile.facts` gives for its id."""

from __future__ import annotations

from pathlib import Path

import orjson

from vault_app.core import formats


def test_one_fact_is_the_last_valid_entry_with_its_id(tmp_path: Path) -> None:
    entries = [
        {
            "id": "a",
            "fact": "first",
            "category": "status",
            "timestamp": "2026-01-01T00:00:00Z",
            "status": "superseded",
            "supersededBy": "b",
        },
        {"id": "b", "fact": "second", "category": "status", "timestamp": "2026-01-02T00:00:00Z"},
        {"id": "c", "fact": "", "category": "nonsense"},  # invalid: no fact
        {"id": "b", "fact": "again", "category": "status", "timestamp": "2026-01-03T00:00:00Z"},
        {"id": "b", "category": "broken"},  # the last with id b, invalid
    ]
    path = tmp_path / "items.json"
    data = orjson.dumps(entries)
    file = formats.decode(path, data)
    every = {f.id: f for f in file.facts()[0]}
    for fact_id in ("a", "b", "c", "zzz"):
        assert file.fact(fact_id) == every.get(fact_id), fact_id
    assert file.fact("b") is not None and file.fact("b").fact == "again"
    assert file.fact("a") is not None and file.fact("a").superseded_by == "b"
