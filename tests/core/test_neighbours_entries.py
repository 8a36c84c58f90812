"""`entries`: every piece of a neighbour's memory, cut as its owner cuts it, listed once
(what search indexes and import files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.neighbour_folders import opened
from vault_app.core import errors
from vault_app.core.neighbours import entries


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_blocks_cut_paragraphs_and_list_items_under_their_heading() -> None:
    text = (
        "# Title\n\nIntro line\nsecond line\n\n## Section\n- one\n  more of one\n- two\n\n"
        "1. first\n2) second\n\n\n"
    )
    assert entries.blocks(text) == [
        ("Title", "Intro line\nsecond line"),
        ("Section", "one\n  more of one"),
        ("Section", "two"),
        ("Section", "first"),
        ("Section", "second"),
    ]
    assert entries.blocks("") == [] and entries.paragraphs("a\r\n\r\nb") == ["a", "b"]


def test_hermes_entries_are_the_section_sign_entries(tmp_path: Path) -> None:
    listed = entries.entries(opened("hermes", tmp_path))
    notes = [e for e in listed if e.structure == entries.NOTES]
    assert [e.key for e in notes] == [
        "notes:memory:1",
        "notes:memory:2",
        "notes:memory:3",
        "notes:memory:4",
        "notes:user:1",
        "notes:user:2",
    ]
    assert notes[1].text.count("\n") == 1  # a multi-line entry is one entry
    assert all(e.atomic and e.agent == "hermes" and e.modified for e in notes)
    soul = [e for e in listed if e.structure == entries.DOCUMENT]
    assert len(soul) == 1 and not soul[0].atomic and soul[0].file == "SOUL.md"


def test_keys_are_unique_in_every_format(tmp_path: Path) -> None:
    for name in ("hermes", "picoclaw", "microclaw"):
        listed = entries.entries(opened(name, tmp_path))
        assert len({e.key for e in listed}) == len(listed), name


def test_a_shared_chat_log_is_listed_once(tmp_path: Path) -> None:
    listed = entries.entries(opened("microclaw", tmp_path))
    logs = [e for e in listed if e.structure == entries.DAILY]
    assert [(e.key, e.shared) for e in logs] == [
        ("daily:chat:-1001234567890:2026-11-23:1", "-1001234567890"),
        ("daily:chat:-1001234567890:2026-11-23:2", "-1001234567890"),
        ("daily:chat:-1001234567890:2026-11-24:1", "-1001234567890"),
        ("daily:42/7:2026-11-24:1", None),
    ]
    outside = [e for e in listed if e.structure == entries.MEMORY]
    assert [e.text for e in outside] == ["Kept by hand too.", "not a tier: kept as it is"]


def test_a_tiered_picoclaw_memory_is_cut_by_tier(tmp_path: Path) -> None:
    ws = opened("picoclaw", tmp_path)
    (ws.root / "memory" / "MEMORY.md").write_text(
        "# Memory\n\n## Tier 1 — Long term\n\n- Lives in Lyon\n\n## Tier 3 — Short term\n\n"
        "Busy this week.\n",
        encoding="utf-8",
    )
    tiers = [e for e in entries.entries(ws) if e.structure == entries.TIERS]
    assert [(e.part, e.text, e.where) for e in tiers] == [
        ("1", "Lives in Lyon", "memory/MEMORY.md tier 1, entry 1"),
        ("3", "Busy this week.", "memory/MEMORY.md tier 3, entry 1"),
    ]


def test_an_unreadable_file_raises_or_is_noted(tmp_path: Path) -> None:
    ws = opened("picoclaw", tmp_path)
    (ws.root / "memory" / "profile.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(errors.VaultError):
        entries.entries(ws)
    problems: list[str] = []
    listed = entries.entries(ws, problems)
    assert len(problems) == 1 and "profile.json" in problems[0]
    assert listed and not any(e.structure == entries.PROFILE for e in listed)
