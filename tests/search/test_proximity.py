"""A candidate holding the query's words side by side gains from it (`search.proximity`):
the pairs are the query's adjacent tokens, weighed by idf; only what can change the first
`limit` is read, and that never changes which those are."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import random
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from vault_app.core import decay, layout, vault
from vault_app.search import engine, persistence, proximity, tokenizer

NOW = dt.datetime(2026, 3, 2, 12, 0).astimezone()
HOME = layout.EntityRef.parse("areas/home")


def test_the_pairs_are_the_query_tokens_side_by_side() -> None:
    tokens = tokenizer.Tokenizer().tokenize("What has running been great for?")
    assert proximity.pairs(tokens) == [("run", "great")]  # stopwords out, stemmed
    assert proximity.pairs(["blue", "bin", "blue", "bin"]) == [("blue", "bin"), ("bin", "blue")]
    assert proximity.pairs(["bin", "bin"]) == []  # a word beside itself is no pair
    assert proximity.pairs(["bin"]) == []


def test_a_signature_holds_every_pair_of_its_document_and_none_across_two() -> None:
    rng = random.Random(11)
    words = [f"w{i}" for i in range(300)]
    docs = [[rng.choice(words) for _ in range(rng.randint(0, 60))] for _ in range(200)]
    signed = proximity.signatures(docs)
    assert signed.shape == (200, proximity.WORDS) and signed.dtype == np.uint64
    for i, tokens in enumerate(docs):
        held = list(itertools.pairwise(tokens))
        if held:  # no false negative, ever
            assert proximity._maybe(signed[[i]], held).all()
        else:
            assert not signed[i].any()
    # the last word of one and the first of the next are no pair of either
    two = proximity.signatures([["blue", "bin"], ["take", "paper"]])
    assert not proximity._maybe(two, [("bin", "take")]).any()
    # a fact's dozen pairs leave a pair it lacks found out (the bits of 2 in 1,000 set)
    facts = [[rng.choice(words) for _ in range(13)] for _ in range(300)]
    lacking = [("w1", "w2"), ("w3", "w4"), ("w5", "w6")]
    maybe = proximity._maybe(proximity.signatures(facts), lacking)
    truly = [[p in set(itertools.pairwise(f)) for p in lacking] for f in facts]
    assert (maybe >= np.array(truly)).all() and maybe.sum() - np.sum(truly) <= 10


def test_a_token_hashes_alike_in_every_process() -> None:
    """The signatures are saved with the index: a token's hash must not be Python's
    (salted per process), but a fixed one."""
    assert proximity._hash("bin") == int.from_bytes(
        hashlib.blake2b(b"bin", digest_size=8).digest(), "little"
    )


@pytest.fixture
def bins(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    for text in (
        "The blue bin takes paper and cardboard.",
        "Glass takes the blue box, the bin by the gate takes garden waste, blue bags take plastic.",
        "The bins go out on Wednesday night.",
        "Batteries go to the shop on the corner.",
    ):
        v.add_fact(HOME, text, "context", create=True, at=NOW)
    return v


def _hits(v: vault.Vault, query: str, limit: int = 10) -> list[engine.Hit]:
    search, _ = engine.open_engine(v, semantic=True)
    filters = engine.Filters(kinds=frozenset({"fact"}))
    return search.search(query, mode="hybrid", filters=filters, limit=limit, explain=True).hits


def test_a_fact_holding_the_query_words_together_gains(
    bins: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    hits = {h.text: h for h in _hits(bins, "what does the blue bin take")}
    together = hits["The blue bin takes paper and cardboard."]
    apart = next(h for t, h in hits.items() if t.startswith("Glass takes the blue box"))
    assert together.parts["phrase"] == pytest.approx(proximity.PHRASE)  # both pairs
    assert apart.parts["phrase"] == 0.0  # every word, none beside the next
    full = proximity.PHRASE
    monkeypatch.setattr(proximity, "PHRASE", 0.0)
    alone = {h.text: h for h in _hits(bins, "what does the blue bin take")}
    assert together.score - alone[together.text].score == pytest.approx(full)
    assert apart.score == pytest.approx(alone[apart.text].score)


def test_a_bonus_read_only_where_it_can_count_changes_no_first_hits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The threshold algorithm reads only the candidates that could reach the first
    `limit`: fewer than a search for all reads, and the first three of a search for three
    are those of a search for all."""
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    words = ["blue", "bin", "garden", "waste", "paper", "glass", "box", "takes", "gate"]
    rng = random.Random(3)
    for i in range(60):
        v.add_fact(HOME, " ".join(rng.sample(words, 5)) + f" {i}.", "context", create=True, at=NOW)
    read: list[str] = []
    peek = persistence.LazyDocs.peek

    def counted(docs: persistence.LazyDocs, keys: Iterable[str]) -> list[str | None]:
        keys = list(keys)
        read.extend(keys)
        return peek(docs, keys)

    monkeypatch.setattr(persistence.LazyDocs, "peek", counted)
    gained = []
    for query in ("blue bin takes garden waste", "paper box gate", "glass takes blue"):
        read.clear()
        every = _hits(v, query, limit=60)
        all_read = len(read)
        gained.append([i for i, h in enumerate(every) if h.parts["phrase"] > 0.0])
        read.clear()
        first = _hits(v, query, limit=3)
        assert len(read) < all_read
        assert [(h.key, h.score) for h in first] == [(h.key, h.score) for h in every[:3]]
    assert any(i < 3 for found in gained for i in found)  # it decides some first three


def test_the_signatures_are_saved_with_the_index(bins: vault.Vault) -> None:
    first, _ = engine.open_engine(bins, semantic=False)
    again, report = engine.open_engine(vault.Vault(bins.root), semantic=False)
    assert report.loaded
    for key in first.columns.keys:
        a, b = first.columns.row[key], again.columns.row[key]
        mine, saved = first.columns.pairs(np.array([a])), again.columns.pairs(np.array([b]))
        assert (mine == saved).all() and mine.any()  # a fact has pairs
