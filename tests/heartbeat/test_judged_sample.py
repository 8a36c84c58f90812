"""The LoCoMo facts a person judged (`benchmarks/data/locomo/judged.jsonl`): well-formed,
holding no LoCoMo text, and counted as the benchmark says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks import extraction_quality as eq

WHY = {"dangling", "vague", "subject", "form", "hedge", "small talk", "date"}


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in eq.JUDGED.read_text(encoding="utf-8").splitlines()]


def test_each_verdict_names_a_fact_by_its_turn_and_hash_only() -> None:
    rows = _rows()
    assert len(rows) >= 100
    keys = set()
    for row in rows:
        assert set(row) in (
            {"set", "sample", "turn", "fact", "keep"},
            {"set", "sample", "turn", "fact", "keep", "why"},
        )  # no LoCoMo words
        assert re.fullmatch(r"conv-\d+", str(row["sample"]))
        assert re.fullmatch(r"D\d+:\d+", str(row["turn"]))
        assert re.fullmatch(r"[0-9a-f]{16}", str(row["fact"]))
        assert isinstance(row["keep"], bool)
        assert ("why" in row) is (not row["keep"])
        assert row.get("why", "dangling") in WHY
        keys.add((row["sample"], row["turn"], row["fact"]))
    assert len(keys) == len(rows)  # one verdict a fact


def test_the_report_counts_what_is_still_extracted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    judged = tmp_path / "judged.jsonl"
    rows = [
        {"set": "A", "sample": "conv-1", "turn": "D1:1", "fact": eq.fact_key("Ann runs."),
         "keep": True},
        {"set": "A", "sample": "conv-1", "turn": "D1:2", "fact": eq.fact_key("Ann made it."),
         "keep": False, "why": "dangling"},
        {"set": "A", "sample": "conv-1", "turn": "D1:3", "fact": eq.fact_key("Gone."),
         "keep": True},
    ]  # fmt: skip
    judged.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(eq, "JUDGED", judged)
    monkeypatch.setattr(eq, "ROOT", tmp_path)
    monkeypatch.setattr(eq, "BLIND_NOW", ("A",))
    extracted = {
        ("conv-1", "D1:1"): ["Ann runs.", "Ann swims."],  # the second was never judged
        ("conv-1", "D1:2"): ["Ann made it."],
        ("conv-1", "D1:3"): ["Changed."],  # a new text: no verdict applies
    }
    eq._judged_report(extracted, show=True)
    out = capsys.readouterr().out
    assert "sample A (judged.jsonl): 1 of 2 facts kept, precision 0.500" in out
    assert "dropped: 1 dangling; 1 judged facts no longer extracted as judged" in out
    assert "judged blind at these rules (samples A): 1 of 2 kept, precision 0.500" in out
    assert "BUT 1 of their facts changed since" in out  # a blind sample the rules moved
    assert "A dropped (dangling) conv-1 D1:2: Ann made it." in out


def test_the_interval_is_wilsons() -> None:
    low, high = eq.wilson(107, 119)
    assert (round(low, 3), round(high, 3)) == (0.832, 0.941)
    assert eq.wilson(0, 0) == (0.0, 1.0)
    assert eq.wilson(10, 10)[1] == 1.0
