"""A daily entry gains from its neighbours in the note (`search.fusion.replies`): in a
conversation the words of a question are often in the turn beside its answer."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from vault_app.core import decay, vault
from vault_app.search import engine, fusion

NOW = dt.datetime(2026, 3, 2, 12, 0).astimezone()


def test_an_entry_gains_a_share_of_what_its_better_neighbour_scored_above_it() -> None:
    blended = {
        "daily:global:2026-03-01:3": 0.9,
        "daily:global:2026-03-01:4": 0.3,  # after the 0.9: gains half of 0.6
        "daily:global:2026-03-01:2": 0.5,  # before it, and lower: gains half of 0.4
        "daily:global:2026-03-01:7": 0.2,  # no neighbour among the candidates
        "daily:agent:chat:2026-03-01:1": 0.1,  # an agent's note: its scope has a colon
        "daily:agent:chat:2026-03-01:0": 0.6,
        "daily:agent:other:2026-03-01:2": 0.95,  # another agent's note is no neighbour
        "fact:abc": 0.99,
    }
    gain = fusion.replies(blended)
    assert gain == pytest.approx(
        {
            "daily:global:2026-03-01:4": fusion.NEIGHBOUR * 0.6,
            "daily:global:2026-03-01:2": fusion.NEIGHBOUR * 0.4,
            "daily:agent:chat:2026-03-01:1": fusion.NEIGHBOUR * 0.5,
        }
    )


@pytest.fixture
def chat(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    day = dt.datetime(2026, 3, 1, 19, 0).astimezone()
    turns = [
        "Nate: Seen any good films lately? Any you would recommend?",
        "Joanna: I just watched Little Women and loved every minute of it.",
        "Nate: Great, it goes on my list for the weekend.",
    ]
    for i, text in enumerate(turns):
        v.append_daily(text, at=day + dt.timedelta(minutes=i))
    other = dt.datetime(2026, 2, 20, 9, 0).astimezone()
    for i, text in enumerate(
        [
            "Joanna: The long run this morning was hard, I loved every minute of it.",
            "Nate: My turtles love the new tank, they swim all day.",
            "Joanna: I watched the rain all afternoon from the porch.",
            "Nate: I am trying a new recipe for coconut ice cream.",
        ]
    ):
        v.append_daily(text, at=other + dt.timedelta(hours=i))
    return v


def _ranked(v: vault.Vault, query: str) -> list[engine.Hit]:
    search, _ = engine.open_engine(v, semantic=True)
    filters = engine.Filters(kinds=frozenset({"daily"}))
    return search.search(query, mode="hybrid", filters=filters, explain=True).hits


def test_the_answer_after_a_question_ranks_higher_with_it(
    chat: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = "What film did Joanna recommend?"
    answer = "Little Women"
    hits = _ranked(chat, query)
    at = next(i for i, h in enumerate(hits) if answer in h.text)
    assert hits[at].parts["neighbour"] > 0.0
    assert at == 0, [h.text for h in hits]  # above the question that names the films
    monkeypatch.setattr(fusion, "NEIGHBOUR", 0.0)
    alone = _ranked(chat, query)
    assert next(i for i, h in enumerate(alone) if answer in h.text) > at
