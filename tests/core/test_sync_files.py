"""Syncthing's conflict files in a vault, merged into their files (`core.sync_files`) and the
vault made ready for Syncthing (`core.sync_setup`), issue 31.

Variants thought of: a conflict copy of an items.json (the union written through the
storage: the version replaced kept in the backup ring, one `sync.merge` audit line naming
the copy; the copy moved under .vault/sync/merged/, never deleted); of a daily note; of a
summary changed on the same line on both sides (left beside its file, the file untouched,
reported); a copy whose file is gone (the copy's version taken); names that only look
like conflict copies; Syncthing's temporary files; conflict copies under .vault/ (not
vault files: left alone); `.stignore` written twice (unchanged) and a person's own lines
kept; `doctor` listing an unmerged copy and merging it with --repair.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from vault_app.core import doctor, sync_files, sync_setup
from vault_app.core import vault as vault_module

JANE = "areas/people/jane"
STAMP = "sync-conflict-20261129-120000-ABCDEF1"


def conflict_of(path: Path) -> Path:
    return path.with_name(f"{path.stem}.{STAMP}{path.suffix}")


def test_an_items_conflict_is_merged_kept_and_audited(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE)
    vault.add_fact(JANE, "Jane is the plumber", "relationship")
    items = vault.paths.life_dir / JANE / "items.json"
    theirs = json.loads(items.read_text("utf-8"))
    theirs.append({"id": "fact-theirs", "fact": "Jane has a van", "category": "context"})
    vault.add_fact(JANE, "Jane charges $95", "context")  # ours, meanwhile
    copy = conflict_of(items)
    copy.write_text(json.dumps(theirs, indent=2), "utf-8")
    assert sync_files.conflicts(vault.root) == [copy]
    assert sync_files.original_of(copy) == items

    results = sync_files.merge_all(vault)
    assert [r.merged for r in results] == [True]
    texts = [f.fact for f in vault.entity(JANE).facts]
    assert texts == ["Jane is the plumber", "Jane charges $95", "Jane has a van"]
    assert not copy.exists() and results[0].kept_at is not None
    assert results[0].kept_at.read_text("utf-8") == json.dumps(theirs, indent=2)
    assert results[0].kept_at.is_relative_to(vault.paths.state_dir / "sync" / "merged")
    audit = (vault.paths.state_dir / "audit.jsonl").read_text("utf-8").splitlines()
    line = json.loads(audit[-1])
    assert line["action"] == "sync.merge" and line["mergedFrom"].endswith(copy.name)
    assert "1 facts added from the other side" in line["merged"]
    assert sync_files.merge_all(vault) == []  # nothing left


def test_a_daily_conflict_keeps_both_entries(vault: vault_module.Vault) -> None:
    import datetime as dt

    at = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.UTC)
    vault.append_daily("Breakfast.", at=at)
    note = vault.paths.daily_file(at.date(), None)
    theirs = note.read_text("utf-8") + "\n## 10:00:00\n\nTheirs.\n"
    vault.append_daily("Ours.", at=at.replace(hour=11))
    conflict_of(note).write_text(theirs, "utf-8")
    assert [r.merged for r in sync_files.merge_all(vault)] == [True]
    entries = [e.text for e in vault.daily_note(at.date()).entries]
    assert entries == ["Breakfast.", "Theirs.", "Ours."]


def test_a_summary_changed_on_the_same_line_is_left_for_a_person(
    vault: vault_module.Vault,
) -> None:
    vault.create_entity(JANE, "Jane is the plumber.")
    summary = vault.paths.life_dir / JANE / "summary.md"
    doc = vault.summary(JANE)
    theirs = (doc.text or "").replace("the plumber.", "the plumber since 2019.")
    vault.write_summary(
        JANE, (doc.text or "").replace("the plumber.", "our plumber."), expected=doc.digest
    )
    before = summary.read_bytes()
    copy = conflict_of(summary)
    copy.write_text(theirs, "utf-8")
    results = sync_files.merge_all(vault)
    assert [r.merged for r in results] == [False]
    assert "a person must choose" in results[0].reason
    assert summary.read_bytes() == before and copy.exists()
    report = doctor.run(vault)
    assert any(p.path.endswith(copy.name) for p in report.problems)


def test_a_summary_changed_in_two_places_merges(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE, "Jane is the plumber.\n\nShe has a van.")
    doc = vault.summary(JANE)
    text = doc.text or ""
    vault.write_summary(JANE, text.replace("the plumber.", "our plumber."), expected=doc.digest)
    summary = vault.paths.life_dir / JANE / "summary.md"
    conflict_of(summary).write_text(text.replace("a van.", "a red van."), "utf-8")
    assert [r.merged for r in sync_files.merge_all(vault)] == [True]
    merged = summary.read_text("utf-8")
    assert "our plumber." in merged and "a red van." in merged


def test_a_copy_whose_file_is_gone_becomes_the_file(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE)
    items = vault.paths.life_dir / JANE / "items.json"
    data = items.read_bytes()
    items.unlink()
    conflict_of(items).write_bytes(data)
    assert [r.merged for r in sync_files.merge_all(vault)] == [True]
    assert items.read_bytes() == data


def test_names_state_and_temporary_files(vault: vault_module.Vault) -> None:
    for name in ("items.sync-conflict-2026-ABC.json", "notes.md", "sync-conflict.md"):
        assert not sync_files.is_conflict(name)
    assert sync_files.is_conflict(f"summary.{STAMP}.md")
    assert sync_files.is_conflict(f"README.{STAMP}")  # no extension
    assert sync_files.is_temporary(".syncthing.items.json.tmp")
    assert sync_files.is_temporary("~syncthing~items.json.tmp")
    assert not sync_files.is_temporary("items.json")
    inside = vault.paths.state_dir / "review" / f"x.{STAMP}.json"
    inside.parent.mkdir(parents=True, exist_ok=True)
    inside.write_text("{}", "utf-8")
    assert sync_files.conflicts(vault.root) == []  # .vault/ is not the vault's files


def test_stignore_is_written_once_and_keeps_a_persons_lines(vault: vault_module.Vault) -> None:
    ignore = vault.root / ".stignore"
    ignore.write_text("// mine\n/scratch\n", "utf-8")
    path, changed = sync_setup.syncthing_ignore(vault.root)
    text = ignore.read_text("utf-8")
    assert path == ignore and changed and text.startswith("// mine\n/scratch\n")
    for line in ("/.vault/cache", "/.vault/locks", "/.vault/backups", "/.vault/audit.jsonl"):
        assert line in text.splitlines()
    assert "/.vault/review" not in text and "/.vault/config.toml" not in text  # they travel
    assert sync_setup.syncthing_ignore(vault.root) == (ignore, False)
    assert ignore.read_text("utf-8") == text


def test_doctor_repair_merges_conflict_copies(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE)
    items = vault.paths.life_dir / JANE / "items.json"
    theirs = [{"id": "fact-t", "fact": "Jane has a van", "category": "context"}]
    conflict_of(items).write_text(json.dumps(theirs), "utf-8")
    report = doctor.run(vault)
    found = [p for p in report.problems if STAMP in p.path]
    assert found and "vault-app sync merge" in found[0].message
    repaired = doctor.run(vault, repair=True)
    assert any(p.repaired for p in repaired.problems if STAMP in p.path)
    assert [f.fact for f in vault.entity(JANE).facts] == ["Jane has a van"]
    assert not any(STAMP in name for _r, _d, files in os.walk(vault.paths.life_dir)
                   for name in files)  # fmt: skip


def test_two_processes_merging_one_copy_both_end_well(
    vault: vault_module.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault.create_entity(JANE)
    items = vault.paths.life_dir / JANE / "items.json"
    copy = conflict_of(items)
    copy.write_text(json.dumps([{"id": "f-t", "fact": "Jane has a van", "category": "context"}]))
    other = vault_module.Vault(vault.root, actor="sync")
    put_away = sync_files.put_away

    def raced(v: vault_module.Vault, path: Path) -> Path:  # the other one was first
        put_away(other, path)
        return put_away(v, path)

    monkeypatch.setattr(sync_files, "put_away", raced)
    merged = sync_files.merge_conflict(vault, copy)
    assert merged.merged and merged.kept_at is None and not copy.exists()
    assert [f.fact for f in vault.entity(JANE).facts] == ["Jane has a van"]


def test_a_synced_device_counts_accesses_under_its_own_id(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE)
    fact = vault.add_fact(JANE, "Jane is the plumber", "relationship")
    vault.mark_accessed([fact.id])  # not set up for sync: only the count
    items = vault.paths.life_dir / JANE / "items.json"
    assert "accessBy" not in json.loads(items.read_text("utf-8"))[0].get("metadata", {})
    sync_setup.syncthing_ignore(vault.root)  # the set-up gives this device an id
    device = sync_setup.device_id(vault.root)
    assert device is not None and sync_setup.ensure_device_id(vault.root) == device
    assert vault.mark_accessed([fact.id]) == {fact.id: 2}
    entry = json.loads(items.read_text("utf-8"))[0]
    assert entry["accessCount"] == 2 and entry["metadata"]["accessBy"] == {device: 1}
