"""Search over a neighbour's folder (Hermes, PicoClaw, MicroClaw) through the engine's
documents source: BM25, semantic (the real model) and hybrid; each hit names its file and
place; nothing is written into the folder; the embeddings are cached in the user's cache
folder, keyed by the folder's path; a change on disk is caught up by `refresh()`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.neighbour_folders import digest, opened
from vault_app.core import errors, vault
from vault_app.core.neighbours import ForeignFolder, entries, files
from vault_app.search import engine, sources


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def bm25(folder: ForeignFolder) -> engine.SearchEngine:
    search, report = engine.open_engine(folder, semantic=False)
    assert not report.loaded and report.documents == len(entries.entries(folder))
    return search


# -- what is indexed, and how a hit says where it is ------------------------------------------


def test_every_entry_of_each_format_is_a_document(tmp_path: Path) -> None:
    for name in ("hermes", "picoclaw", "microclaw"):
        folder = opened(name, tmp_path)
        search = bm25(folder)
        listed = entries.entries(folder)
        assert listed and {e.key for e in listed} == set(search.state.docs)
        for entry in listed:
            doc = search.document(entry.key)
            assert doc is not None and doc.text == entry.text and doc.fact_id is None


def test_hermes_entries_are_found_one_by_one_with_their_place(tmp_path: Path) -> None:
    search = bm25(opened("hermes", tmp_path))
    hit = search.search("Fedora", mode="bm25").hits[0]
    assert hit.key == "notes:memory:1" and hit.kind == "fact" and hit.agent == "hermes"
    assert hit.origin == {
        "format": "hermes",
        "structure": "notes",
        "agent": "hermes",
        "file": "memories/MEMORY.md",
        "index": 1,
        "where": "memories/MEMORY.md § entry 1",
        "target": "memory",
    }
    assert hit.source == "memories/MEMORY.md § entry 1" and hit.tier is None
    assert hit.path.endswith("memories/MEMORY.md")
    # a § inside an entry is text, not a delimiter: the entry is one document
    lease = search.search("lease contract clause", mode="bm25").hits[0]
    assert lease.key == "notes:memory:3" and "§ 4.2" in lease.text
    user = search.search("timezone", mode="bm25").hits[0]
    assert user.key == "notes:user:1" and user.origin and user.origin["target"] == "user"
    assert hit.to_json()["origin"]["where"] == "memories/MEMORY.md § entry 1"


def test_picoclaw_profile_memory_and_daily_paragraphs(tmp_path: Path) -> None:
    search = bm25(opened("picoclaw", tmp_path))
    city = search.search("Lyon", mode="bm25").hits
    assert [h.key for h in city] == ["profile:picoclaw:city", "daily:picoclaw:2026-11-22:1"]
    assert city[0].origin and city[0].origin["key"] == "city"
    assert city[1].kind == "daily" and city[1].date is not None
    assert city[1].origin and city[1].origin["date"] == "2026-11-22"
    assert city[1].origin["where"] == "memory/202611/20261122.md paragraph 1"
    # the `# YYYY-MM-DD` title is not a paragraph; the second one is its own document
    cron = search.search("backup cron", mode="bm25").hits[0]
    assert cron.key == "daily:picoclaw:2026-11-22:2" and cron.text.startswith("Evening")
    # a free-form MEMORY.md block, its heading as context
    metric = search.search("metric units", mode="bm25").hits[0]
    assert metric.kind == "summary" and metric.text == "Prefers metric units"
    assert metric.origin and metric.origin["heading"] == "User Information"
    assert search.search("information", mode="bm25", limit=5).hits  # found by its heading
    # the stray memory/202611/notes.md is no daily note: not indexed
    assert not search.search("stray", mode="bm25").hits


def test_microclaw_tiers_logs_and_principles(tmp_path: Path) -> None:
    search = bm25(opened("microclaw", tmp_path))
    porto = search.search("Porto trip", mode="bm25").hits
    assert porto[0].key == "tiers:-1001234567890/1:2:1"
    assert porto[0].origin and porto[0].origin["tier"] == 2
    assert porto[0].text == "Planning the Porto trip (December)."  # the list marker dropped
    log = next(h for h in porto if h.kind == "daily")
    assert log.origin and log.origin["chat"] == "-1001234567890" and log.scope == "global"
    vegetarian = search.search("vegetarian", mode="bm25").hits[0]
    assert vegetarian.origin and vegetarian.origin["tier"] == 1
    assert vegetarian.agent == "-1001234567890/1" and vegetarian.scope == "agent:-1001234567890/1"
    money = search.search("spending money", mode="bm25").hits[0]
    assert money.key == "principles:groups/AGENTS.md:2" and money.origin
    assert money.origin["structure"] == "principles" and money.agent is None
    # filters work as in a vault: one persona's documents, daily entries only
    one = engine.Filters(scope="agent:-1001234567890/2")
    assert {h.agent for h in search.search("budget French", mode="bm25", filters=one).hits} == {
        "-1001234567890/2"
    }
    daily = engine.Filters(kinds=frozenset({"daily"}))
    assert all(h.kind == "daily" for h in search.search("porto", filters=daily, mode="bm25").hits)


# -- the owner's folder is only read; the caches live in the user's folders ------------------


def test_nothing_is_written_into_the_folder_and_the_index_stays_in_memory(
    tmp_path: Path,
) -> None:
    folder = opened("hermes", tmp_path)
    before = digest(folder.root)
    search = bm25(folder)
    assert search.folder is None and search.source.index_dir is None
    search.search("Fedora", mode="bm25")
    search.save()  # kept in memory by design: nothing to save, nothing said
    assert search.cache_notice() is None
    assert digest(folder.root) == before and not (folder.root / ".vault").exists()
    assert not files.state_dir(folder.root).exists()


def test_vault_only_operations_say_so(tmp_path: Path) -> None:
    search = bm25(opened("picoclaw", tmp_path))
    with pytest.raises(errors.VaultError, match="not a PARA vault"):
        search.mark_accessed(["x"])
    assert search.source.vault is None


def test_a_change_on_disk_is_caught_up_by_refresh(tmp_path: Path) -> None:
    folder = opened("hermes", tmp_path)
    search = bm25(folder)
    folder.change_notes(None, "memory", "add", content="The NAS backs up to Backblaze B2.")
    changed, removed = search.refresh()
    assert (changed, removed) == (1, 0)
    assert search.search("Backblaze", mode="bm25").hits[0].key == "notes:memory:5"
    (folder.root / "memories" / "USER.md").unlink()
    assert search.refresh() == (0, 1)
    assert not search.search("timezone", mode="bm25").hits


def test_a_change_that_keeps_size_and_mtime_is_caught_up_too(tmp_path: Path) -> None:
    """A file's signature is what its documents hold: an edit within one mtime tick, of
    the same size, is not missed (as a write while the file was being read would be)."""
    folder = opened("picoclaw", tmp_path)
    search = bm25(folder)
    path = folder.root / "memory" / "profile.json"
    info = path.stat()
    path.write_bytes(path.read_bytes().replace(b"Lyon", b"Nice"))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    assert search.refresh() == (1, 0)
    assert search.search("Nice", mode="bm25").hits[0].key == "profile:picoclaw:city"
    assert search.refresh() == (0, 0)  # nothing changed since: nothing re-read


def test_an_unreadable_file_is_left_out_and_said(tmp_path: Path) -> None:
    folder = opened("picoclaw", tmp_path)
    (folder.root / "memory" / "profile.json").write_text("{not json", encoding="utf-8")
    search, _ = engine.open_engine(folder, semantic=False)
    assert search.source.problems and "profile.json" in search.source.problems[0]
    assert search.search("backup cron", mode="bm25").hits  # the rest is searched
    hits = search.search("Lyon", mode="bm25", limit=5).hits
    assert hits and not any(h.key.startswith("profile:") for h in hits)


def test_a_vault_engine_is_unchanged_by_the_seam(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v")
    v.add_fact("areas/people/joe", "Joe fixed the sink", "context", create=True)
    search, _ = engine.open_engine(v, semantic=False)
    assert isinstance(search.source, sources.VaultSource) and search.vault is v
    hit = search.search("sink", mode="bm25").hits[0]
    assert hit.origin is None and "origin" not in hit.to_json() and hit.fact_id


# -- semantic and hybrid, on the real model ------------------------------------------------------


@pytest.fixture(scope="module")
def _model_available() -> None:
    pytest.importorskip("onnxruntime")


@pytest.mark.usefixtures("_model_available")
def test_semantic_and_hybrid_over_each_format(tmp_path: Path) -> None:
    cases = {
        "hermes": ("which time zone does the user live in", "notes:user:1"),
        "picoclaw": ("the city where the user lives", "profile:picoclaw:city"),
        "microclaw": ("what does the user avoid eating", "tiers:-1001234567890/1:1:1"),
    }
    for name, (query, expected) in cases.items():
        folder = opened(name, tmp_path)
        before = digest(folder.root)
        search, _ = engine.open_engine(folder)
        assert search.semantic is not None, search.semantic_notice
        for mode in ("semantic", "hybrid"):
            result = search.search(query, mode=mode, limit=3)
            assert result.mode == mode and result.hits, (name, mode)
            assert result.hits[0].key == expected, (name, mode, result.hits)
            assert result.hits[0].origin is not None
        assert digest(folder.root) == before
        # the embeddings are cached in the user's cache folder, keyed by the folder's path
        cached = files.cache_dir(folder.root) / "embeddings"
        assert cached.is_dir() and any(cached.rglob("*"))
        assert str(cached).startswith(os.environ["XDG_CACHE_HOME"])
