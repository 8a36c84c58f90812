"""The workspace layer on its own: opening (the PARA-or-folder choice made once), the
engine's life and its notice, the arguments faces receive as strings, and a watcher
batch read as re-indexing."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from vault_app import workspace
from vault_app.core import errors, layout, vault
from vault_app.watch import events
from vault_app.workspace import arguments, engine_life, reindex
from vault_app.workspace.folder_workspace import FolderWorkspace
from vault_app.workspace.vault_workspace import VaultWorkspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"


def test_opening_chooses_vault_or_folder_once(tmp_path: Path) -> None:
    vault.Vault.create(tmp_path / "v")
    assert isinstance(workspace.open_workspace(tmp_path / "v"), VaultWorkspace)
    for name in ("hermes", "picoclaw"):
        home = tmp_path / name
        shutil.copytree(FIXTURES / name, home)
        opened = workspace.open_workspace(home)
        assert isinstance(opened, FolderWorkspace), name
    with pytest.raises(errors.NotFoundError, match="no vault at"):
        workspace.open_workspace(tmp_path / "nothing-here")


def test_a_one_shot_open_and_a_background_open_answer_alike(vault: vault.Vault) -> None:
    vault.add_fact("areas/people/jane", "Jane moved to Portland", "status", create=True)
    now = VaultWorkspace(vault.root, semantic=False, watch=False)
    report = now.open_now()
    assert report is not None and now.search_state == "bm25"
    with pytest.raises(errors.VaultError, match="already opening"):
        now.open_now()
    later = VaultWorkspace(vault.root, semantic=False, watch=False)
    later.start()
    assert later.wait_settled() == "bm25"
    for opened in (now, later):
        answer = opened.search("Portland", mode="hybrid")
        assert [h.text for h in answer.hits] == ["Jane moved to Portland"]
        # the one fallback: the engine's, with the workspace's reason
        assert answer.mode_used == "bm25"
        assert answer.notice == f"{engine_life.OFF}; showing BM25 results"
        assert answer.marked == {}  # a person's search counts nothing
        opened.close()


def test_an_agents_search_counts_its_hits_and_keeps_to_its_scopes(vault: vault.Vault) -> None:
    vault.create_agent("finance")
    vault.create_agent("security")
    fact = vault.add_fact("areas/people/jane", "Jane moved to Portland", "status", create=True)
    opened = VaultWorkspace(vault.root, semantic=False, watch=False)
    opened.open_now()
    assert opened.scope_for(None, None) is None  # a person: every scope
    assert opened.scope_for("finance", None) == frozenset({"global", "agent:finance"})
    assert opened.scope_for("finance", "mine") == "agent:finance"
    with pytest.raises(errors.AccessDeniedError, match="only when granted"):
        opened.scope_for("finance", "agent:security")
    answer = opened.search("Portland", mode="bm25", agent="finance")
    assert answer.marked == {fact.id: 1}
    assert answer.agent_json()["marked_accessed"] == 1
    assert "path" not in answer.agent_json()["hits"][0]
    again = opened.search("Portland", mode="bm25", agent="finance", mark_access=False)
    assert again.marked == {} and again.hits[0].fact_id == fact.id
    opened.close()


def test_arguments_are_read_once_with_precise_errors() -> None:
    assert arguments.moment("2026-03-14").tzinfo is not None
    assert arguments.day(" 2026-03-14 ") == dt.date(2026, 3, 14)
    for bad, said in (
        ("soon", "since: not an ISO date or time: 'soon'"),
        ("0001-01-01", "give a year from 1000 to 8999"),
    ):
        with pytest.raises(errors.InvalidArgumentError, match=said):
            arguments.moment(bad, "since")
    with pytest.raises(errors.InvalidArgumentError, match="not a YYYY-MM-DD date"):
        arguments.day("2026-02-30")
    filters = arguments.search_filters(
        kinds=["facts", "daily"], tiers=["hot"], status="any", since="2026-01-01"
    )
    assert filters.kinds == frozenset({"fact", "daily"}) and filters.status is None
    assert filters.tiers == frozenset({"hot"}) and filters.since is not None
    assert arguments.search_filters().kinds == frozenset({"fact", "summary", "daily"})
    with pytest.raises(errors.InvalidArgumentError, match="unknown fact category 'gossip'"):
        arguments.search_filters(categories=["gossip"])
    with pytest.raises(errors.InvalidArgumentError, match="kinds: unknown 'notes'"):
        arguments.search_filters(kinds=["notes"])


def test_a_batch_is_read_as_reindexing(tmp_path: Path) -> None:
    jane = layout.EntityRef.parse("areas/people/jane")
    bob = layout.EntityRef.parse("areas/people/bob")
    day = dt.date(2026, 3, 14)
    baseline = events.ChangeBatch(tmp_path, reason="open", everything=True)
    assert reindex.Reindex.of(baseline).empty
    lost = events.ChangeBatch(tmp_path, reason="overflow", everything=True)
    assert reindex.Reindex.of(lost).whole
    agents = events.ChangeBatch(tmp_path, agents=("finance",))
    assert reindex.Reindex.of(agents).whole
    batch = events.ChangeBatch(
        tmp_path,
        entities=(jane, bob),
        removed_entities=(jane,),
        daily=(events.DailyNoteKey("finance", day),),
    )
    change = reindex.Reindex.of(batch)
    assert not change.whole and change.entities == (jane, bob)
    assert change.daily == ((day, "finance"),)
