"""The search evaluation set stays honest: every label resolves in a freshly built eval vault."""

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

BUILD_PY = Path(__file__).resolve().parents[2] / "benchmarks" / "eval" / "build.py"


def _load_build() -> ModuleType:
    # benchmarks/ is not an installed package: load build.py from its path (registered in
    # sys.modules first, as dataclasses need to find their module).
    name = "benchmarks_eval_build"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BUILD_PY)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


build = _load_build()

# The design's day (its {-N} labels cross a new year) and a mid-year day.
DAYS = (dt.date(2026, 1, 31), dt.date(2027, 7, 15))


@pytest.fixture(scope="module", params=DAYS, ids=str)
def eval_vault(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Vault:
    path = build.build_eval_vault(tmp_path_factory.mktemp("eval") / "vault", request.param)
    return Vault(path)


@pytest.fixture(scope="module")
def questions() -> list[dict[str, Any]]:
    return build.load_questions()


def test_every_label_resolves(eval_vault: Vault, questions: list[dict[str, Any]]) -> None:
    counts, problems = build.check(eval_vault)
    assert problems == []
    assert counts["questions"] == len(questions)
    for question in questions:
        keys = build.resolve_answers(eval_vault, question)
        assert keys, question["id"]
        assert all(k.split(":", 1)[0] in ("fact", "daily", "summary") for k in keys)


def test_fact_keys_name_active_facts_with_the_labelled_text(eval_vault: Vault) -> None:
    today = build.eval_today(eval_vault)
    for question in build.load_questions()[:40]:
        for answer in question["answers"]:
            if answer["kind"] != "fact":
                continue
            keys = build.resolve_answers(eval_vault, {"id": "x", "answers": [answer]})
            fact_id = next(k for k in keys if k.startswith("fact:")).removeprefix("fact:")
            _, fact = eval_vault.fact(fact_id)
            assert fact.is_active
            assert fact.fact == build.demo.expand_days(answer["text"], today)


def test_the_eval_vault_is_the_demo_plus_the_extra_facts(eval_vault: Vault) -> None:
    assert build.eval_today(eval_vault) in DAYS
    extra = build.load_extra_facts()
    n_extra = sum(len(e["facts"]) for e in extra)
    assert eval_vault.scan().fact_count == 520 + n_extra
    superseded = [f for e in extra for f in e["facts"] if f.get("supersedes")]
    assert superseded, "the extra facts include superseded distractors"
    demo_ids = {e.address for e in build.demo.ENTITIES}
    assert not demo_ids & {e["entity"] for e in extra}


def test_sizes_and_mix_are_in_range(questions: list[dict[str, Any]]) -> None:
    extra = build.load_extra_facts()
    low, high = build.EXTRA_FACT_RANGE
    assert low <= sum(len(e["facts"]) for e in extra) <= high
    low, high = build.QUESTION_RANGE
    assert low <= len(questions) <= high
    assert len({q["id"] for q in questions}) == len(questions)
    styles = Counter(q["style"] for q in questions)
    assert set(styles) == set(build.STYLES)
    lexical = styles["keyword"] + styles["name"] + styles["number"]
    assert 0.2 <= lexical / len(questions) <= 0.4  # where BM25 shines
    assert 0.3 <= styles["paraphrase"] / len(questions) <= 0.5  # where semantic shines
    kinds = Counter(a["kind"] for q in questions for a in q["answers"])
    assert set(kinds) == set(build.KINDS)


def test_bad_labels_are_refused(eval_vault: Vault) -> None:
    def resolve(*answers: dict[str, Any]) -> set[str]:
        return build.resolve_answers(eval_vault, {"id": "bad", "answers": list(answers)})

    with pytest.raises(build.LabelError, match="0 times"):
        resolve({"kind": "fact", "text": "No such fact anywhere."})
    with pytest.raises(build.LabelError, match="superseded"):  # an extra-facts distractor
        resolve({"kind": "fact", "text": "The Peak Fitness gym membership costs $39 a month."})
    with pytest.raises(build.LabelError, match="in 0 entries"):
        resolve({"kind": "daily", "agent": None, "date_offset": -13, "contains": "nope"})
    with pytest.raises(build.LabelError, match="entries"):  # in more than one entry
        resolve({"kind": "daily", "agent": None, "date_offset": -13, "contains": "the"})
    with pytest.raises(build.LabelError, match="no daily note"):
        resolve({"kind": "daily", "agent": "finance", "date_offset": -30, "contains": "x"})
    with pytest.raises(build.LabelError, match="no answers"):
        resolve()
    with pytest.raises(build.LabelError, match="does not exist"):
        resolve({"kind": "summary", "entity": "areas/nowhere"})


def test_keys_have_the_documented_shape(eval_vault: Vault) -> None:
    today = build.eval_today(eval_vault)
    storm = {"kind": "daily", "agent": None, "date_offset": -13, "contains": "Big storm"}
    alarm = {"kind": "daily", "agent": "security", "date_offset": -12, "contains": "raccoon"}
    summary = {"kind": "summary", "entity": "agent:finance:projects/budget-review"}
    keys = build.resolve_answers(eval_vault, {"id": "k", "answers": [storm, alarm, summary]})
    day13 = (today - dt.timedelta(days=13)).isoformat()
    day12 = (today - dt.timedelta(days=12)).isoformat()
    assert keys == {
        f"daily:global:{day13}:0",
        f"daily:agent:security:{day12}:0",
        "summary:agent:finance:projects/budget-review",
    }


def test_metrics_on_a_hand_made_example() -> None:
    ranked = [
        ["a", "b", "c"],  # first relevant at 1
        ["x", "y", "z", "b"],  # at 4
        [f"n{i}" for i in range(10)] + ["hit"],  # at 11: outside the top 10
        ["p", "q", "r", "s", "t", "u", "hit"],  # at 7
    ]
    relevant = [{"a"}, {"b", "c"}, {"hit"}, {"hit", "absent"}]
    got = build.metrics(ranked, relevant)
    assert got["n"] == 4
    assert got["hit@1"] == pytest.approx(1 / 4)
    assert got["hit@5"] == pytest.approx(2 / 4)
    assert got["hit@10"] == pytest.approx(3 / 4)
    assert got["mrr"] == pytest.approx((1 + 1 / 4 + 0 + 1 / 7) / 4)


def test_metrics_edge_cases() -> None:
    assert build.metrics([], []) == {"n": 0, "hit@1": 0.0, "hit@5": 0.0, "hit@10": 0.0, "mrr": 0.0}
    assert build.metrics([[]], [{"a"}])["mrr"] == 0.0
    with pytest.raises(ValueError, match="relevance sets"):
        build.metrics([["a"]], [])
