"""The relevance floor (`search.relevance`) and what a search says of unknown words.

Variants thought of: coverage weighs query terms by idf, an unseen word at the highest
weight; a hit holding only a sliver of a long query's weight is left out in BM25 mode and
counted in `below_floor`; a hit holding the rare words stays; the hybrid rule as a pure
function (meaning alone, a term with some meaning, a term covering much of the query,
a term and noise); `unknown` names the query words no document holds; the score parts
carry the coverage with `explain`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_app.core import vault
from vault_app.search import engine, relevance


@pytest.fixture
def search(vault: vault.Vault) -> engine.SearchEngine:
    vault.create_entity("areas/house", "The house.")
    for n in range(30):
        vault.add_fact("areas/house", f"The house needs item number {n} checked", "context")
    vault.add_fact("areas/house", "The boiler pressure gauge reads two bar", "status")
    e = engine.SearchEngine(vault)
    e.open()
    return e


def test_coverage_weighs_terms_by_idf(search: engine.SearchEngine) -> None:
    tokens = search.tokens.tokenize("boiler house")
    cover = relevance.Coverage(search.bm25, tokens)
    boiler = next(h for h in search.search("boiler", mode="bm25").hits)
    house = next(h for h in search.search("house needs", mode="bm25").hits if "number" in h.text)
    assert cover.of(boiler.key) > 0.5 > cover.of(house.key) > 0  # boiler is the rare word
    unseen = relevance.Coverage(search.bm25, search.tokens.tokenize("zzqxv boiler"))
    assert 0 < unseen.of(boiler.key) < 0.5  # the unseen word weighs the most
    assert cover.of("fact:not-indexed") == 0.0


def test_a_sliver_of_a_long_query_is_left_out_in_bm25(search: engine.SearchEngine) -> None:
    query = "boiler pressure gauge reads bar house"
    result = search.search(query, mode="bm25", limit=50, explain=True)
    assert [h.text for h in result.hits] == ["The boiler pressure gauge reads two bar"]
    assert result.below_floor == 31  # the house-only facts and summary: under a tenth of it
    assert all(h.parts["coverage"] >= relevance.BM25_COVERAGE for h in result.hits)
    house = search.search("house", mode="bm25", limit=50).hits  # alone, it matches them all
    assert len(house) == 32  # (the facts are indexed with their entity's name)


def test_unknown_words_are_named(search: engine.SearchEngine) -> None:
    result = search.search("zzqxv boiler blorf", mode="bm25")
    assert result.unknown == ["zzqxv", "blorf"]
    assert search.search("boiler", mode="bm25").unknown == []


@pytest.mark.parametrize(
    ("cosine", "coverage", "kept"),
    [
        (0.40, 0.0, True),  # means what the query means, no shared word
        (0.10, 0.0, False),  # neither
        (0.25, 0.1, True),  # a query term and some meaning
        (0.05, 0.8, True),  # a query term covering most of the query (a code, a number)
        (0.05, 0.2, False),  # one common word of the query, and noise
    ],
)
def test_the_hybrid_rule(cosine: float, coverage: float, kept: bool) -> None:
    assert relevance.keeps_hybrid(relevance.Floor(0.32), cosine, coverage) is kept


def test_coverages_of_many_keys_are_each_ones_coverage(
    search: engine.SearchEngine, vault: vault.Vault
) -> None:
    """`coverages` (the postings searched once) agrees with `Coverage.of`, for documents
    of the saved index and documents added since (its delta), and for unknown keys."""
    vault.add_fact("areas/house", "The boiler was serviced; the house item list is done", "status")
    search.refresh_entity("areas/house")
    index = search.bm25
    keys = index.keys()

    def held_by_explain(cover: relevance.Coverage, key: str) -> float:
        # no idf here is 0, so a term a document holds has a share that is not 0
        shares = index.explain(cover.terms, key)
        held = sum(w for w, (_, s) in zip(cover.weights, shares, strict=True) if s != 0)
        return held / cover.total

    for query in ("boiler house", "number checked zzqxv", "gauge", "serviced list"):
        cover = relevance.Coverage(index, search.tokens.tokenize(query))
        expected = [held_by_explain(cover, k) for k in keys]
        assert relevance.coverages(cover, keys) == pytest.approx(expected)
        assert [cover.of(k) for k in keys] == pytest.approx(expected)
    assert relevance.coverages(cover, ["fact:not-indexed"]) == [0.0]
    assert relevance.coverages(cover, []) == []


def test_a_word_half_the_documents_hold_still_counts(tmp_path: Path) -> None:
    """In a tiny corpus a word held by half the documents has an idf of 0: a document
    holding it still covers it (a search for it is not "no good matches")."""
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("projects/roof", summary="The roof.")
    v.create_entity("areas/home", summary="The house.")
    v.add_fact("areas/home", "The house is blue and the roof is slate", "context")
    v.append_daily("Called the plumber")
    e = engine.SearchEngine(v)
    e.open()
    assert len(e.bm25) == 4 and e.bm25.idf("roof") == pytest.approx(0.0)
    hits = e.search("roof", mode="bm25").hits
    assert sorted(h.text for h in hits) == [
        "# Roof\n\nThe roof.",
        "The house is blue and the roof is slate",
    ]
