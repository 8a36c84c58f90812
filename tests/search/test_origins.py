"""A fact gains from the daily entries it was taken from (`search.origins`,
`fusion.ORIGIN`): a question is often asked in the words of the turn, which the fact's
rewording lost. Cited by turn id in its `source`, or by the heartbeat's entry ref; only
entries the query may read count."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from vault_app.core import daily, decay, layout, vault
from vault_app.heartbeat import runs
from vault_app.search import documents, engine, fusion, proximity

NOW = dt.datetime(2026, 3, 2, 12, 0).astimezone()
CAROLINE = layout.EntityRef.parse("areas/people/caroline")


@pytest.mark.parametrize(
    ("text", "turn"),
    [
        ("**Melanie** (D14:4): I made it in pottery class.", "D14:4"),
        ("**user** (msg-42): hello", "msg-42"),
        ("**user** (Jane, chat 42): hello", None),  # who and where: no id
        ("**user** (from ChatGPT: Trip plans): hello", None),
        ("**Maya**: hello", None),
        ("**Maya** (2026-03-01): hello", None),  # a day is no turn's id
        ("The budget is 400 (D1:3): a note, no turn", None),
    ],
)
def test_a_turn_id_is_the_one_word_in_its_header_brackets(text: str, turn: str | None) -> None:
    assert daily.turn_id(text) == turn


def _fact(source: str | None, metadata: dict[str, object] | None = None) -> documents.SearchDoc:
    return documents.SearchDoc(
        key="fact:f1",
        kind=documents.FACT,
        source="entity:areas/people/caroline",
        scope="global",
        text="Caroline went to a support group.",
        index_text="",
        path="x",
        source_ref=source,
        metadata=metadata,
    )


def test_a_fact_cites_its_heartbeat_entry_or_a_source_of_turn_ids() -> None:
    ref = "global/daily/2026-03-01.md@19:00:00#0123456789ab"
    assert documents.cites(_fact("heartbeat", {"heartbeat": {"entry": ref}})) == ref
    assert documents.cites(_fact("D1:3  D1:4")) == "D1:3 D1:4"
    assert documents.cites(_fact("conversation-3fa2c1d0e9b8")) is None
    assert documents.cites(_fact("2026-03-01")) is None
    assert documents.cites(_fact(None)) is None


@pytest.fixture
def talk(tmp_path: Path) -> vault.Vault:
    """Turns with ids, and facts citing them: the question's words are in the turn."""
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    day = dt.datetime(2026, 3, 1, 19, 0).astimezone()
    turns = [
        "**Caroline** (D1:1): Hey Mel, good to see you!",
        "**Caroline** (D1:2): I went to the LGBTQ support group yesterday, it was so powerful.",
        "**Melanie** (D1:3): That's great. I painted a lake sunrise last week.",
        "**Caroline** (D1:4): My book club met on Tuesday and we argued about endings.",
    ]
    for i, text in enumerate(turns):
        v.append_daily(text, at=day + dt.timedelta(seconds=i))
    facts = [
        ("Caroline found the stories at her group so powerful.", "D1:2"),
        ("Caroline wants to start a support group for new parents.", "D1:4"),
        ("Caroline goes to a group that supports her every Tuesday.", "D1:4"),
        ("Caroline paints landscapes at the weekend.", "D1:1"),
        ("Caroline is saving for a trip to Sweden.", "D1:1"),
        ("Caroline adopted a cat called Pixel.", "D1:1"),
    ]
    for text, cited in facts:
        v.add_fact(CAROLINE, text, "context", source=cited, create=True, at=day)
    return v


def _facts(v: vault.Vault, query: str, scope: frozenset[str] | None = None) -> list[engine.Hit]:
    search, _ = engine.open_engine(v, semantic=True)
    filters = engine.Filters(kinds=frozenset({"fact"}), scope=scope)
    return search.search(query, mode="hybrid", filters=filters, explain=True).hits


def test_a_fact_ranks_by_the_turn_it_was_taken_from(
    talk: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(proximity, "PHRASE", 0.0)  # the origin alone ("support group" is
    query = "When did Caroline go to the LGBTQ support group?"  # side by side in others)
    powerful = "Caroline found the stories at her group so powerful."
    hits = _facts(talk, query)
    at = next(i for i, h in enumerate(hits) if h.text == powerful)
    assert hits[at].parts["origin"] == max(h.parts["origin"] for h in hits) > 0.0
    monkeypatch.setattr(fusion, "ORIGIN", 0.0)
    alone = _facts(talk, query)
    assert all(h.parts["origin"] == 0.0 for h in alone)
    # its own words say "support group" less than two facts of the book club's turn do
    assert next(i for i, h in enumerate(alone) if h.text == powerful) > at


def test_a_fact_the_heartbeat_wrote_cites_its_entry(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    when = dt.datetime(2026, 3, 1, 9, 0).astimezone()
    v.append_daily("Nothing much today, a long walk by the canal.", at=when)
    v.append_daily(
        "User: Remember that the recycling pickup moved to Thursdays.",
        at=when + dt.timedelta(minutes=5),
    )
    home = layout.EntityRef.parse("areas/home")
    for text in ("Garden waste goes in the brown bin.", "The council collects glass monthly."):
        v.add_fact(home, text, "context", create=True, at=when)
    record = runs.run_heartbeat(v.root, runner="cli", trigger="once", now=NOW)
    assert record.written == 1
    hits = _facts(vault.Vault(v.root), "when is the recycling collected?")
    came = {h.text: h.parts["origin"] for h in hits}
    assert came.pop("The recycling pickup moved to Thursdays.") > 0.0  # found by its hash
    assert set(came.values()) == {0.0}  # the others cite nothing


def test_an_entry_the_query_may_not_read_gives_nothing(tmp_path: Path) -> None:
    """A global fact taken from an agent's private note: a query that may not read that
    note's scope ranks the fact as if it cited nothing (nor learns how well the note
    answers)."""
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    v.create_agent("finance")
    when = dt.datetime(2026, 3, 1, 9, 0).astimezone()
    v.append_daily(
        "**Maya** (T7): the accountant wants the receipts by Friday.", at=when, agent="finance"
    )
    v.add_fact(
        CAROLINE,
        "Caroline keeps the receipts for her accountant in a folder.",
        "context",
        source="T7",
        create=True,
        at=when,
    )
    mine = _facts(v, "receipts for the accountant")
    assert mine[0].parts["origin"] > 0.0
    others = _facts(v, "receipts for the accountant", frozenset({"global", "agent:household"}))
    assert all(h.parts["origin"] == 0.0 for h in others)
