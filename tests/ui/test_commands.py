"""Every window edit is undoable and redoable, in order, and undo never deletes a fact."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from vault_app.core import vault as vault_module
from vault_app.ui import commands, session

JANE = "areas/people/jane"


@pytest.fixture
def s(qtbot: QtBot, tmp_path: Path) -> Iterator[session.Session]:
    v = vault_module.Vault.create(tmp_path / "v", actor="gui")
    v.create_entity(JANE, "The family plumber.")
    v.create_agent("finance")
    live = session.Session(v)
    yield live
    live.close()


def entries(s: session.Session, address: str = JANE) -> dict[str, dict[str, Any]]:
    path = s.vault.paths.entity_dir(s.vault.entity(address).ref) / "items.json"
    return {e["id"]: e for e in json.loads(path.read_bytes())}


def settle(s: session.Session) -> None:
    assert s.wait()


def test_add_then_undo_retracts_and_redo_reinstates(s: session.Session) -> None:
    results: list[Any] = []
    commands.add_fact(s, JANE, "Jane fixed the sink", "milestone", on_done=results.append)
    settle(s)
    fact = results[0]
    assert entries(s)[fact.id]["status"] == "active"
    s.undo_stack.undo()
    settle(s)
    assert entries(s)[fact.id]["status"] == "superseded"  # still there
    assert entries(s)[fact.id]["metadata"]["retracted"]["by"] == "gui"
    s.undo_stack.redo()
    settle(s)
    assert entries(s)[fact.id]["status"] == "active"
    assert s.undo_stack.undoText() == "Add fact to Jane"


def test_supersede_undo_and_redo_keep_both_facts_and_the_lineage(s: session.Session) -> None:
    old = s.vault.add_fact(JANE, "Jane lives in Portland", "context")
    changed: list[str] = []
    s.entityChanged.connect(changed.append)
    commands.supersede_fact(s, JANE, old.id, "Jane lives in Seattle")
    settle(s)
    (new_id,) = set(entries(s)) - {old.id}
    assert entries(s)[old.id]["supersededBy"] == new_id
    assert changed == [JANE]
    s.undo_stack.undo()
    settle(s)
    assert entries(s)[old.id]["status"] == "active"
    assert entries(s)[new_id]["status"] == "superseded"
    s.undo_stack.redo()
    settle(s)
    assert entries(s)[old.id]["supersededBy"] == new_id
    assert entries(s)[new_id]["status"] == "active"
    assert len(entries(s)) == 2


def test_document_save_undo_redo_and_refusal_when_changed_elsewhere(
    s: session.Session,
) -> None:
    doc = s.vault.document("TACIT.md", "finance")
    assert doc.text is not None
    commands.save_document(s, "TACIT.md", "finance", doc.text + "\nPays on Fridays.\n", doc.digest)
    settle(s)
    assert "Fridays" in doc.path.read_text()
    s.undo_stack.undo()
    settle(s)
    assert doc.path.read_text() == doc.text
    s.undo_stack.redo()
    settle(s)
    assert "Fridays" in doc.path.read_text()
    # someone else edits the file: undo must not overwrite their text
    doc.path.write_text("their version\n")
    errors: list[tuple[str, str]] = []
    s.error.connect(lambda title, message: errors.append((title, message)))
    s.undo_stack.undo()
    settle(s)
    assert doc.path.read_text() == "their version\n"
    assert errors and errors[0][0] == "The file changed on disk"


def test_a_stale_save_is_refused_and_dropped_from_the_stack(s: session.Session) -> None:
    summary = s.vault.summary(JANE)
    summary.path.write_text("# Jane\n\nEdited in another editor.\n")
    failures: list[BaseException] = []
    commands.save_summary(s, JANE, "# Jane\n\nMine\n", summary.digest, on_error=failures.append)
    settle(s)
    assert "another editor" in summary.path.read_text()
    assert failures and "changed on disk" in str(failures[0])
    assert s.undo_stack.count() == 0  # the refused edit is not offered for undo
    s.undo_stack.undo()  # the failed command is obsolete: nothing is written
    settle(s)
    assert "another editor" in summary.path.read_text()


def test_daily_append_undo_removes_only_that_entry(s: session.Session) -> None:
    days: list[tuple[str, Any]] = []
    s.dailyChanged.connect(lambda scope, day: days.append((scope, day)))
    commands.append_daily(s, "Budget reviewed", agent="finance")
    settle(s)
    (scope, day) = days[-1]
    assert scope == "agent:finance"
    s.vault.append_daily("Another writer's entry", agent="finance")
    s.undo_stack.undo()
    settle(s)
    texts = [e.text for e in s.vault.daily_note(day, "finance").entries]
    assert texts == ["Another writer's entry"]
    s.undo_stack.redo()
    settle(s)
    texts = [e.text for e in s.vault.daily_note(day, "finance").entries]
    assert sorted(texts) == ["Another writer's entry", "Budget reviewed"]


def test_create_and_archive_entity_undo_moves_never_deletes(s: session.Session) -> None:
    commands.create_entity(s, "projects/roof", "New roof in spring")
    settle(s)
    folder = s.vault.paths.life_dir / "projects/roof"
    assert (folder / "summary.md").is_file()
    s.undo_stack.undo()  # archived, not removed
    settle(s)
    assert not folder.exists()
    assert (s.vault.paths.life_dir / "archives/roof/summary.md").is_file()
    s.undo_stack.redo()
    settle(s)
    assert (folder / "summary.md").is_file()

    fact = s.vault.add_fact(JANE, "Jane likes tea", "preference")
    commands.archive_entity(s, JANE)
    settle(s)
    assert s.vault.entity("archives/people/jane").fact(fact.id)
    s.undo_stack.undo()
    settle(s)
    assert s.vault.entity(JANE).fact(fact.id)


def test_synthesis_undo_restores_the_previous_summary(s: session.Session) -> None:
    s.vault.add_fact(JANE, "Jane fixed the kitchen leak", "milestone")
    before = s.vault.summary(JANE).text
    commands.synthesize(s, [JANE])
    settle(s)
    after = s.vault.summary(JANE).text
    assert after != before and "kitchen leak" in (after or "")
    s.undo_stack.undo()
    settle(s)
    assert s.vault.summary(JANE).text == before
    s.undo_stack.redo()
    settle(s)
    assert s.vault.summary(JANE).text == after
