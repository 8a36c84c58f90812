"""The held-out conversation set stays honest and apart: sizes, kinds, labels that resolve
in a freshly built vault, and no person, event or wording shared with the tuning set."""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from vault_app.core.vault import Vault

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the tree
    sys.path.insert(0, str(ROOT))
conversations = importlib.import_module("benchmarks.eval.conversations")
heldout = importlib.import_module("benchmarks.eval.heldout")
HELDOUT = heldout.HELDOUT


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Vault, list[dict[str, Any]]]:
    path, questions = conversations.build_vault(tmp_path_factory.mktemp("held") / "v", HELDOUT)
    return conversations.open_vault(path), questions


def test_sizes_kinds_and_labels(built: tuple[Vault, list[dict[str, Any]]]) -> None:
    v, questions = built
    counts, problems = conversations.check(v, questions, HELDOUT)
    assert problems == []
    assert counts["conversations"] == 3
    assert counts["fewest_sessions"] >= 15
    assert counts["questions"] >= 120
    kinds = Counter(q["kind"] for q in questions)
    assert set(kinds) == set(conversations.KINDS)
    assert min(kinds.values()) >= 15
    assert len({q["id"] for q in questions}) == len(questions)
    for question in questions:
        facts, entries = conversations.resolve(v, question)
        assert len(facts) == len(question["facts"]), question["id"]
        assert len(entries) == len(question["entries"]) <= len(facts), question["id"]


def test_the_generator_is_deterministic_and_leaves_the_tuning_set_alone() -> None:
    assert conversations.generate(HELDOUT)[1] == conversations.generate(HELDOUT)[1]
    tuning = conversations.generate()[1]
    assert len(tuning) == 546 and tuning[0]["id"].startswith("chat-01-")


def test_nothing_is_shared_with_the_tuning_material() -> None:
    tuning = conversations.TUNING
    names = {w for people in tuning.people for p in people for w in p.split()}
    assert not names & {w for people in HELDOUT.people for p in people for w in p.split()}
    assert not {t.key for t in tuning.topics} & {t.key for t in HELDOUT.topics}
    assert not {p.key for p in tuning.pairs} & {p.key for p in HELDOUT.pairs}
    assert not set(tuning.small_talk) & set(HELDOUT.small_talk)
    assert not set(tuning.when) & set(HELDOUT.when)
    assert not set(tuning.months) & set(HELDOUT.months)
    tuned = {q["query"].lower().rstrip("?") for q in conversations.generate()[1]}
    held = {q["query"].lower().rstrip("?") for q in conversations.generate(HELDOUT)[1]}
    assert not tuned & held


def test_a_third_of_the_questions_are_typed_in_lower_case(
    built: tuple[Vault, list[dict[str, Any]]],
) -> None:
    _, questions = built
    lower = [q for q in questions if q["query"] == q["query"].lower()]
    assert len(lower) == len(questions) // 3
    assert all(not q["query"].endswith("?") for q in lower)
