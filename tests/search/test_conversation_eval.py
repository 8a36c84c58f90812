"""The conversation evaluation set stays honest: sizes, kinds, dates, and every label
points at an existing fact and daily entry of a freshly built vault."""

from __future__ import annotations

import datetime as dt
import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from vault_app.core.vault import Vault

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the tree
        sys.path.insert(0, str(ROOT))
    spec = importlib.util.find_spec("benchmarks.eval.conversations")
    assert spec is not None
    return importlib.import_module("benchmarks.eval.conversations")


conversations = _load()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Vault, list[dict[str, Any]]]:
    path, questions = conversations.build_vault(tmp_path_factory.mktemp("conv") / "vault")
    return conversations.open_vault(path), questions


def test_the_generator_is_deterministic() -> None:
    assert conversations.generate()[1] == conversations.generate()[1]


def test_sizes_kinds_and_labels(built: tuple[Vault, list[dict[str, Any]]]) -> None:
    v, questions = built
    counts, problems = conversations.check(v, questions)
    assert problems == []
    assert counts["conversations"] >= 10
    assert counts["fewest_sessions"] >= 15
    assert counts["questions"] >= 500
    kinds = Counter(q["kind"] for q in questions)
    assert set(kinds) == set(conversations.KINDS)
    assert min(kinds.values()) >= 40
    assert len({q["id"] for q in questions}) == len(questions)


def test_every_label_resolves_to_one_fact_and_one_turn(
    built: tuple[Vault, list[dict[str, Any]]],
) -> None:
    v, questions = built
    for question in questions:
        facts, entries = conversations.resolve(v, question)
        assert len(facts) == len(question["facts"]), question["id"]
        assert len(entries) == len(question["entries"]) <= len(facts), question["id"]
        if question["kind"] == "multi-hop":
            assert len(facts) == 2 and len({e["date"] for e in question["entries"]}) == 2
        if question["kind"] == "no-answer":
            assert not facts and not entries
    with pytest.raises(conversations.build.LabelError, match="found 0 times"):
        conversations.resolve(v, {"id": "x", "facts": ["Nobody said this."], "entries": []})


def test_facts_cite_the_turn_they_were_kept_from(
    built: tuple[Vault, list[dict[str, Any]]],
) -> None:
    v, _ = built
    cited = 0
    for ref in v.entity_refs():
        first_name = ref.title.split()[0]
        for fact in v.entity(ref).facts:
            source = (fact.metadata or {})["extractedFrom"]
            day = dt.date.fromisoformat(source["date"])
            assert conversations.START <= day < conversations.TODAY
            note = v.daily_note(day, source["agent"])
            [turn] = [e for e in note.entries if e.time == source["time"]]
            assert turn.text.startswith(f"{first_name}: "), (fact.fact, turn.text)
            assert fact.timestamp.date() == day
            cited += 1
    assert cited >= 500  # events, follow-ups and the small talk an extractor keeps


def test_sessions_are_dated_daily_notes_of_turns(built: tuple[Vault, list[dict[str, Any]]]) -> None:
    v, _ = built
    for agent in (f"chat-{n:02d}" for n in range(1, len(conversations.story.PEOPLE) + 1)):
        days = v.daily_dates(agent)
        assert len(days) >= 15
        assert all(conversations.START <= d < conversations.TODAY for d in days)
        note = v.daily_note(days[0], agent)
        times = [e.time for e in note.entries]
        assert times == sorted(times) and len(set(times)) == len(times)
        assert all(": " in e.text.split("\n")[0] for e in note.entries)


def test_questions_paraphrase_rather_than_copy(built: tuple[Vault, list[dict[str, Any]]]) -> None:
    """Single-hop questions share few words with their fact beyond the person's name."""
    _, questions = built
    overlaps = []
    for q in questions:
        if q["kind"] != "single-hop":
            continue
        words = {w.strip("?.,'s").lower() for w in q["query"].split()} - {"", "the", "a"}
        fact = {w.strip("?.,'s").lower() for w in q["facts"][0].split()}
        overlaps.append(len(words & fact) / len(words))
    assert sum(overlaps) / len(overlaps) < 0.35
