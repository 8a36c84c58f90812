"""The search engine over a vault: documents, filters, incremental updates, persistence."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import hypothesis
import orjson
import pytest
from hypothesis import strategies as st

from vault_app.core import decay, layout, vault
from vault_app.search import engine, persistence

NOW = dt.datetime(2026, 6, 15, 12, 0, 0).astimezone()


@pytest.fixture
def v(tmp_path: Path) -> vault.Vault:
    target = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_entity("areas/people/marcus", "Marcus Bell is our plumber.")
    target.add_fact(
        "areas/people/marcus", "Marcus fixed the leaking pipe", "milestone", agent_id="maintenance"
    )
    target.add_fact(
        "areas/people/marcus", "Marcus charges 95 dollars an hour", "status", agent_id="finance"
    )
    target.create_entity("projects/roof")
    target.add_fact("projects/roof", "Roof quote from Summit is 14,800 dollars", "status")
    target.create_agent("finance")
    target.create_entity("agent:finance:projects/budget")
    target.add_fact(
        "agent:finance:projects/budget",
        "Monthly budget for repairs is 600 dollars",
        "status",
        agent_id="finance",
    )
    target.append_daily("Called the plumber about the leaking pipe", agent="finance")
    return target


def keys(result: engine.SearchResult) -> list[str]:
    return [h.key for h in result.hits]


def test_three_kinds_of_document(v: vault.Vault) -> None:
    e = engine.SearchEngine(v)
    report = e.open()
    assert not report.loaded and report.documents == 4 + 3 + 1  # facts, summaries, daily entry
    hits = e.search("plumber leaking pipe", mode="bm25").hits
    assert {h.kind for h in hits} == {"fact", "summary", "daily"}
    daily = next(h for h in hits if h.kind == "daily")
    assert daily.scope == "agent:finance" and daily.date == NOW.date()
    fact = e.search("leaking pipe", mode="bm25", filters=engine.Filters(kinds=frozenset({"fact"})))
    top = fact.hits[0]
    assert top.text == "Marcus fixed the leaking pipe" and top.tier == "hot"
    assert top.entity == "areas/people/marcus" and top.fact_id and top.status == "active"
    data = top.to_json()
    assert set(data) >= {
        "kind",
        "scope",
        "entity",
        "id",
        "text",
        "score",
        "parts",
        "tier",
        "status",
        "source",
        "path",
    }
    assert data["path"].endswith("areas/people/marcus/items.json")


def test_filters(v: vault.Vault) -> None:
    e = engine.SearchEngine(v)
    e.open()
    dollars = engine.Filters(kinds=frozenset({"fact"}))

    def texts(**kw: object) -> set[str]:
        filters = engine.Filters(**{"kinds": frozenset({"fact"}), **kw})  # type: ignore[arg-type]
        return {h.text for h in e.search("dollars", mode="bm25", filters=filters).hits}

    assert len(texts()) == 3
    assert texts(scope="agent:finance") == {"Monthly budget for repairs is 600 dollars"}
    assert texts(para="projects") == {
        "Roof quote from Summit is 14,800 dollars",
        "Monthly budget for repairs is 600 dollars",
    }
    assert texts(agent="finance") == {
        "Marcus charges 95 dollars an hour",
        "Monthly budget for repairs is 600 dollars",
    }
    assert texts(categories=frozenset({"milestone"})) == set()
    assert texts(tiers=frozenset({"cold"})) == set()
    assert len(texts(tiers=frozenset({"hot"}))) == 3
    assert texts(scope="agent:nobody") == set()
    later = NOW + dt.timedelta(days=1)
    assert texts(since=later) == set()
    assert len(texts(until=later, date_field="lastAccessed")) == 3
    assert dollars.status == "active"


def test_superseded_facts_are_hidden_by_default(v: vault.Vault) -> None:
    e = engine.SearchEngine(v)
    e.open()
    old = e.search("95 dollars", mode="bm25").hits[0]
    assert old.fact_id
    v.supersede_fact(old.fact_id, "Marcus charges 110 dollars an hour")
    e.refresh_entity("areas/people/marcus")
    texts = [h.text for h in e.search("charges dollars hour", mode="bm25").hits]
    assert "Marcus charges 110 dollars an hour" in texts
    assert "Marcus charges 95 dollars an hour" not in texts
    anything = engine.Filters(status=None)
    both = [h for h in e.search("charges", mode="bm25", filters=anything).hits if h.kind == "fact"]
    assert {h.status for h in both} == {"active", "superseded"}


def test_incremental_refresh_and_persisted_validation(v: vault.Vault) -> None:
    e = engine.SearchEngine(v)
    e.open()
    v.add_fact("projects/roof", "Gutters will be replaced with the roof", "context")
    assert e.refresh_entity("projects/roof") == 3  # 2 facts + summary
    assert e.search("gutters", mode="bm25").hits

    # changes while the engine is closed are found on the next open, and only those
    v.add_fact("projects/roof", "Skylight stays where it is", "preference")
    (v.paths.life_dir / "projects/roof/summary.md").write_text("# Roof\n\nNew shingles.\n")
    reopened = engine.SearchEngine(v)
    report = reopened.open()
    assert report.loaded and report.reindexed_sources == 1 and report.removed_sources == 0
    assert reopened.search("skylight", mode="bm25").hits
    assert reopened.search("shingles", mode="bm25").hits[0].kind == "summary"

    v.archive_entity("projects/roof")
    third = engine.SearchEngine(v)
    report = third.open()
    assert report.reindexed_sources == 1 and report.removed_sources == 1
    assert third.search("skylight", mode="bm25").hits[0].entity == "archives/roof"

    untouched = engine.SearchEngine(v).open()
    assert untouched.loaded and untouched.reindexed_sources == 0


def test_a_reopened_index_gives_the_same_hits_and_reads_documents_only_for_hits(
    v: vault.Vault,
) -> None:
    v.create_entity("resources/garden")
    for n in range(8):
        v.add_fact("resources/garden", f"Tomato bed {n} gets watered on Sundays", "context")
    built = engine.SearchEngine(v)
    built.open()
    built.save()
    reopened = engine.SearchEngine(v)
    assert reopened.open().loaded
    saved = reopened.state.docs.unread()
    assert saved == len(reopened.state.docs)  # nothing read by the reopen: offsets
    for query in ("plumber", "leaking pipe", "budget dollars", "roof quote"):
        fresh = built.search(query, mode="bm25", explain=True).hits
        again = reopened.search(query, mode="bm25", explain=True).hits
        assert [h.to_json() for h in again] == [h.to_json() for h in fresh]
        assert fresh
    assert 0 < reopened.state.docs.unread() < saved  # the hits' documents were built, the rest not
    texts = reopened.state.docs.texts(reopened.columns.text_key[: reopened.columns.size])
    assert list(texts) == [built.state.docs[key].text for key in reopened.state.docs]
    assert list(reopened.columns.text_key[: reopened.columns.size]) == [
        semantic_text_key(built.state.docs[key].text) for key in reopened.state.docs
    ]
    # saved again after a change: the unparsed lines are written back as they were
    v.add_fact("projects/roof", "Gutters will be replaced with the roof", "context")
    reopened.refresh_entity("projects/roof")
    reopened.save()
    third = engine.SearchEngine(v)
    assert third.open().reindexed_sources == 0
    assert keys(third.search("gutters", mode="bm25")) == keys(
        reopened.search("gutters", mode="bm25")
    )
    assert keys(third.search("plumber", mode="bm25")) == keys(built.search("plumber", mode="bm25"))


def test_a_first_build_is_loaded_back_from_what_it_saved(v: vault.Vault) -> None:
    """A first build drops what it built once saved and loads the saved index back (the
    build's freed memory is then not pinned): its documents are offsets, its hits and
    documents those of a reopen; a vault whose cache cannot be written keeps the build."""
    built = engine.SearchEngine(v)
    report = built.open()
    assert not report.loaded and report.documents == len(built.state.docs) > 0
    assert built.state.docs.unread() == len(built.state.docs)  # loaded back: offsets
    reopened = engine.SearchEngine(v)
    assert reopened.open().loaded
    assert list(built.state.docs) == list(reopened.state.docs)
    for query in ("plumber", "leaking pipe", "roof quote"):
        fresh = built.search(query, mode="bm25", explain=True).hits
        assert [h.to_json() for h in fresh] == [
            h.to_json() for h in reopened.search(query, mode="bm25", explain=True).hits
        ]
    v.add_fact("projects/roof", "Gutters will be replaced with the roof", "context")
    built.refresh_entity("projects/roof")
    assert keys(built.search("gutters", mode="bm25"))
    cache = v.paths.state_dir / "cache" / "search"
    shutil.rmtree(cache)
    cache.write_text("not a folder\n")  # the index cannot be saved (even by root)
    kept = engine.SearchEngine(v)
    kept.open()
    assert kept.save_notice is not None
    assert kept.state.docs.unread() == 0  # kept as built, in memory
    assert keys(kept.search("gutters", mode="bm25")) == keys(built.search("gutters", mode="bm25"))


def test_documents_are_found_again_when_another_process_saves_the_index(
    v: vault.Vault,
) -> None:
    """A reopened engine keeps offsets into docs.jsonl; another process saving the index
    again (a new file) moves the lines: they are found again by key, and documents the
    new file no longer has are left out of hits, never read from the wrong line."""
    first = engine.SearchEngine(v)
    first.open()
    reopened = engine.SearchEngine(v)
    assert reopened.open().loaded
    wanted = [h.to_json() for h in first.search("leaking pipe", mode="bm25").hits]
    assert len(wanted) == 2
    v.add_fact("areas/people/marcus", "Marcus prefers copper for every pipe", "context")
    shutil.rmtree(v.paths.entity_dir(layout.EntityRef.parse("projects/roof")))
    other = engine.SearchEngine(v)  # the other process: catches up and saves a new file
    assert other.open().reindexed_sources == 1
    assert not reopened.state.docs.file or not reopened.state.docs.file.is_current()
    again = reopened.search("leaking pipe", mode="bm25").hits
    assert [h.to_json() for h in again] == wanted
    assert reopened.search("Summit roof quote", mode="bm25").hits == []  # gone from disk
    rows = [reopened.columns.row[key] for key in reopened.state.docs]
    texts = reopened.state.docs.texts(reopened.columns.text_key[rows])
    gone = [i for i, key in enumerate(reopened.state.docs) if key not in other.state.docs]
    assert len(gone) == 2  # the roof's fact and summary
    with pytest.raises(persistence.StaleDocuments):
        texts[gone[0]]
    with pytest.raises(persistence.StaleDocuments):  # never saves lines it cannot read
        reopened.save()
    assert engine.SearchEngine(v).open().loaded  # the other process's file is intact
    reopened.refresh()
    reopened.save()
    third = engine.SearchEngine(v)
    assert third.open().loaded
    for query in ("copper pipe", "leaking pipe", "budget dollars"):
        assert [h.to_json() for h in third.search(query, mode="bm25").hits] == [
            h.to_json() for h in reopened.search(query, mode="bm25").hits
        ]


def test_a_save_never_writes_a_line_another_process_changed_under_this_index(
    v: vault.Vault,
) -> None:
    """After another process saved a changed fact text, this process's save does not
    write that line (its BM25 and text keys are of the old text) until it catches up."""
    engine.SearchEngine(v).open()
    reopened = engine.SearchEngine(v)
    assert reopened.open().loaded
    folder = v.paths.entity_dir(layout.EntityRef.parse("projects/roof"))
    items = folder / "items.json"
    items.write_text(items.read_text().replace("14,800", "15,200"))
    assert engine.SearchEngine(v).open().reindexed_sources == 1  # the other process saves
    # the line's text is not the one indexed: left out until caught up, never shown
    hits = reopened.search("Summit roof quote", mode="bm25").hits
    assert [h.key for h in hits] == ["summary:projects/roof"]  # unchanged: still shown
    with pytest.raises(persistence.StaleDocuments):
        reopened.save()
    assert reopened.refresh() == (1, 0)
    reopened.save()
    again = engine.SearchEngine(v)
    assert again.open().reindexed_sources == 0
    assert "15,200" in again.search("roof quote", mode="bm25").hits[0].text


def semantic_text_key(text: str) -> int:
    from vault_app.search import documents

    return documents.text_key(text)


def test_a_corrupt_cache_is_rebuilt(v: vault.Vault) -> None:
    engine.SearchEngine(v).open()
    docs = v.paths.state_dir / "cache" / "search" / "docs.jsonl"
    docs.write_bytes(docs.read_bytes()[:50])
    e = engine.SearchEngine(v)
    report = e.open()
    assert not report.loaded and report.notice and "rebuilt" in report.notice
    assert e.search("plumber", mode="bm25").hits


def test_corrupt_vault_files_are_skipped(v: vault.Vault) -> None:
    (v.paths.life_dir / "projects/roof/items.json").write_text("[{")
    e = engine.SearchEngine(v)
    e.open()
    assert not e.search("Summit", mode="bm25").hits
    assert e.search("plumber", mode="bm25").hits


def test_without_semantic_search_falls_back_with_a_notice(v: vault.Vault) -> None:
    e = engine.SearchEngine(v, semantic_notice="sentence-transformers is not installed")
    e.open()
    result = e.search("who fixes our pipes", mode="hybrid")
    assert result.mode == "bm25"
    assert result.notice == "sentence-transformers is not installed; showing BM25 results"
    with pytest.raises(Exception, match="unknown search mode"):
        e.search("x", mode="fuzzy")


def test_the_cache_is_plain_files(v: vault.Vault) -> None:
    engine.SearchEngine(v).open()
    folder = v.paths.state_dir / "cache" / "search"
    lines = (folder / "docs.jsonl").read_text().splitlines()
    assert len(lines) >= 2 and all(json.loads(line) for line in lines)
    assert all(not p.name.endswith((".pkl", ".pickle")) for p in folder.rglob("*"))
    assert os.path.getsize(folder / "columns.npz") > 0


def test_a_missing_model_falls_back_to_bm25_with_its_reason(v: vault.Vault) -> None:
    """A model path that does not exist: the engine runs on BM25 and says why."""
    search, report = engine.open_engine(v, model=str(v.root / "no-such-model"))
    assert search.semantic is None and report.documents > 0
    assert search.semantic_notice and "no-such-model" in search.semantic_notice
    result = search.search("who fixes pipes", mode="hybrid")
    assert (
        result.mode == "bm25" and result.notice and result.notice.endswith("showing BM25 results")
    )


def test_semantic_search_can_be_switched_off(v: vault.Vault) -> None:
    (v.paths.state_dir / "config.toml").write_text(
        "[search]\nsemantic = false\nbm25_weight = 0.5\n"
    )
    configured = vault.Vault(v.root, clock=decay.fixed_clock(NOW))
    search, _ = engine.open_engine(configured)
    assert search.semantic is None and search.bm25_weight == 0.5
    assert search.semantic_notice and "semantic = false" in search.semantic_notice


def test_semantic_search_is_switched_on_while_the_engine_serves(tmp_path: Path) -> None:
    """BM25 answers at once; enable_semantic embeds in the background, then hybrid works."""
    pytest.importorskip("onnxruntime")
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("areas/people/joe")
    v.add_fact("areas/people/joe", "Joe Ruiz is the plumber who fixed the kitchen sink", "context")
    v.add_fact("areas/people/joe", "Joe prefers texts to calls", "preference")
    search, _ = engine.open_engine(v, semantic=False)
    assert search.semantic is None
    assert search.search("plumber", mode="hybrid").mode == "bm25"
    seen: list[tuple[int, int]] = []
    notice = search.enable_semantic(progress=lambda done, total: seen.append((done, total)))
    assert search.semantic is not None, notice
    result = search.search("who repairs our pipes", mode="hybrid", limit=1)
    assert result.mode == "hybrid" and "plumber" in result.hits[0].text
    assert seen and seen[-1][0] == seen[-1][1]


@hypothesis.given(
    lines=st.lists(st.binary(max_size=6).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    step=st.integers(1, 12),
)
def test_the_document_lines_are_found_in_steps_exactly_as_in_one_go(
    lines: list[bytes], step: int
) -> None:
    keys = [f"k{n}" for n in range(len(lines))]
    head = orjson.dumps({"name_lines": 1}) + b"\n" + orjson.dumps([keys, keys]) + b"\n"
    body = head + b"".join(line + b"\n" for line in lines)
    _, found, sources, starts = persistence._layout(body, step)
    assert found == sources == keys
    assert [body[start:].split(b"\n", 1)[0] for start in starts.tolist()] == lines


def test_mark_accessed_counts_and_reindexes_the_touched_entities(v: vault.Vault) -> None:
    """`SearchEngine.mark_accessed`, the one call of the CLI and the context builder: the
    counts are written and the index sees them at once (no refresh by the caller)."""
    e = engine.SearchEngine(v)
    e.open()
    roof = e.search("Roof quote Summit", mode="bm25").hits[0]
    marcus = e.search("95 dollars", mode="bm25").hits[0]
    assert roof.fact_id and marcus.fact_id
    untouched = e.search("Monthly budget repairs", mode="bm25").hits[0].key
    assert e.mark_accessed([roof.fact_id, marcus.fact_id, roof.fact_id]) == {
        roof.fact_id: 1,
        marcus.fact_id: 1,
    }
    assert v.fact(roof.fact_id)[1].access_count == 1
    for key in (roof.key, marcus.key):
        doc = e.document(key)
        assert doc is not None and doc.access_count == 1
        assert doc.last_accessed is not None
    other = e.document(untouched)
    assert other is not None and other.access_count == 0
    assert e.mark_accessed([]) == {}
