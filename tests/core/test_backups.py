"""Restoring a file from its backup ring (`core.backups`), and the archive's way back.

Variants thought of: the ring listed newest first with time, size and a preview; a
version restored is a normal safe write (the corrupt version it replaces joins the ring,
one audit line); a version that does not parse, or whose bytes were changed in the ring,
is refused and nothing is written; a version number out of range; `expected` guarding a
file changed meanwhile; markdown files too. Archived entities: no new facts (the facade,
`create=True` included), unarchived back to where the audit log says, or to a category;
not over another entity; a live entity cannot be "unarchived".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_app.core import errors, layout, storage
from vault_app.core import vault as vault_module

JANE = "areas/people/jane"


def _facts_path(v: vault_module.Vault, address: str) -> Path:
    return v.paths.entity_dir(layout.EntityRef.parse(address)) / "items.json"


@pytest.fixture
def corrupt(vault: vault_module.Vault) -> vault_module.Vault:
    vault.create_entity(JANE, "Jane is the plumber.")
    vault.add_fact(JANE, "Jane fixed the leak", "milestone")
    vault.add_fact(JANE, "Jane prefers texts", "preference")
    _facts_path(vault, JANE).write_text('[{"id": "broken"', "utf-8")  # by another program
    return vault


def test_versions_list_the_ring_newest_first_with_a_preview(corrupt: vault_module.Vault) -> None:
    kept = corrupt.backup_versions(_facts_path(corrupt, JANE))
    assert [k.number for k in kept] == list(range(1, len(kept) + 1))
    assert [k.time for k in kept] == sorted((k.time for k in kept), reverse=True)
    newest = kept[0]
    assert newest.restorable and newest.intact and newest.facts == 2
    assert "Jane prefers texts" in newest.preview
    assert newest.size == len(newest.kept.read_bytes())
    assert kept[-1].preview.strip() == "[]"  # the empty file of the entity's creation


def test_restore_is_a_safe_write_itself_backed_up(corrupt: vault_module.Vault) -> None:
    path = _facts_path(corrupt, JANE)
    before = len(corrupt.backup_versions(path))
    corrupt.restore_backup(path, 1)
    view = corrupt.entity(JANE)
    assert view.error is None
    assert [f.fact for f in view.facts] == ["Jane fixed the leak", "Jane prefers texts"]
    kept = corrupt.backup_versions(path)
    assert any(k.preview.startswith('[{"id": "broken"') for k in kept)  # the corrupt one kept
    assert len(kept) >= min(before + 1, corrupt.config.storage.backups_per_file)
    audit = (corrupt.paths.state_dir / "audit.jsonl").read_text("utf-8").splitlines()
    last = json.loads(audit[-1])
    assert last["action"] == "file.restore" and last["restoredFrom"]


def test_a_version_that_does_not_parse_is_refused(corrupt: vault_module.Vault) -> None:
    path = _facts_path(corrupt, JANE)
    ring = corrupt.storage.backup_dir(path)
    name = f"{99999999999999999999:020d}-{storage.sha256(b'[{')[:12]}"  # the newest
    (ring / name).write_bytes(b"[{")
    versions = corrupt.backup_versions(path)
    assert versions[0].kept.name == name
    assert versions[0].problem is not None and "does not parse" in versions[0].problem
    assert versions[0].facts is None
    on_disk = path.read_bytes()
    with pytest.raises(errors.CorruptFileError, match=r"version 1 .* does not parse"):
        corrupt.restore_backup(path, 1)
    assert path.read_bytes() == on_disk


def test_a_version_changed_in_the_ring_is_refused(corrupt: vault_module.Vault) -> None:
    path = _facts_path(corrupt, JANE)
    kept = corrupt.backup_versions(path)[0].kept
    kept.write_bytes(b"[]\n")  # parses, but is not the version its name says
    assert not corrupt.backup_versions(path)[0].intact
    with pytest.raises(errors.CorruptFileError, match="no longer match"):
        corrupt.restore_backup(path, 1)


def test_out_of_range_and_changed_meanwhile(corrupt: vault_module.Vault) -> None:
    path = _facts_path(corrupt, JANE)
    count = len(corrupt.backup_versions(path))
    with pytest.raises(errors.NotFoundError, match=f"no version {count + 1}"):
        corrupt.restore_backup(path, count + 1)
    with pytest.raises(errors.ConflictError):
        corrupt.restore_backup(path, 1, expected="0" * 64)


def test_a_summary_is_restored_too(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE, "First words.")
    doc = vault.summary(JANE)
    vault.write_summary(JANE, "# Jane\n\nSecond words.\n", expected=doc.digest)
    summary = vault.paths.entity_dir(layout.EntityRef.parse(JANE)) / "summary.md"
    kept = vault.backup_versions(summary)
    first = next(k for k in kept if "First words." in k.preview)
    vault.restore_backup(summary, first.number)
    assert "First words." in summary.read_text("utf-8")


def test_a_version_reads_as_its_facts_active_first(corrupt: vault_module.Vault) -> None:
    newest = corrupt.backup_versions(_facts_path(corrupt, JANE))[0]
    lines = newest.readable.splitlines()
    assert lines[0] == "2 facts: 2 active"
    assert lines[2:] == [
        "• Jane fixed the leak  (milestone)",
        "• Jane prefers texts  (preference)",
    ]
    assert '"id"' not in newest.readable  # no JSON for a person to read


def test_a_superseded_fact_is_listed_after_the_active_ones(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE)
    old = vault.add_fact(JANE, "Jane charges $90 an hour", "status")
    vault.add_fact(JANE, "Jane prefers texts", "preference")
    vault.supersede_fact(old.id, "Jane charges $110 an hour")
    path = _facts_path(vault, JANE)
    path.write_bytes(path.read_bytes() + b"{")  # spoilt after the last write
    lines = vault.backup_versions(path)[0].readable.splitlines()
    assert lines[0] == "3 facts: 2 active, 1 superseded"
    assert lines[-1] == "• Jane charges $90 an hour  (status, superseded)"


def test_a_document_version_reads_as_its_text(vault: vault_module.Vault) -> None:
    vault.create_entity(JANE, "First words.")
    doc = vault.summary(JANE)
    vault.write_summary(JANE, "# Jane\n\nSecond words.\n", expected=doc.digest)
    summary = vault.paths.entity_dir(layout.EntityRef.parse(JANE)) / "summary.md"
    assert vault.backup_versions(summary)[0].readable == "# Jane\n\nSecond words.\n"


def test_an_archived_entity_takes_no_new_facts(vault: vault_module.Vault) -> None:
    vault.create_entity("projects/fence")
    fact = vault.add_fact("projects/fence", "The fence is rebuilt", "milestone")
    archived = vault.archive_entity("projects/fence")
    with pytest.raises(errors.InvalidFactError, match="archives/fence is archived"):
        vault.add_fact(archived, "A new fact", "context")
    with pytest.raises(errors.InvalidFactError, match="is archived"):
        vault.add_fact("archives/shed", "A new fact", "context", create=True)
    assert not vault.paths.entity_dir(layout.EntityRef.parse("archives/shed")).exists()
    vault.supersede_fact(fact.id, "The fence was rebuilt in May")  # old facts still curated


def test_unarchive_goes_back_where_it_came_from(vault: vault_module.Vault) -> None:
    vault.create_entity("areas/people/bob")
    archived = vault.archive_entity("areas/people/bob")
    assert str(archived) == "archives/people/bob"
    assert str(vault.archived_from(archived)) == "areas/people/bob"
    back = vault.unarchive_entity(archived)
    assert str(back) == "areas/people/bob"
    assert vault.paths.entity_dir(back).is_dir()
    vault.add_fact(back, "Bob is back", "context")


def test_unarchive_needs_a_category_when_the_log_is_silent(vault: vault_module.Vault) -> None:
    vault.create_entity("archives/old-fence")  # made in archives: no archive line
    with pytest.raises(errors.InvalidIdError, match="name a category"):
        vault.unarchive_entity("archives/old-fence")
    assert str(vault.unarchive_entity("archives/old-fence", "projects")) == "projects/old-fence"
    with pytest.raises(errors.InvalidIdError, match="not archived"):
        vault.unarchive_entity("projects/old-fence")
    with pytest.raises(errors.InvalidIdError, match="cannot unarchive into"):
        vault.unarchive_entity("archives/x", "archives")


def test_unarchive_never_lands_on_another_entity(vault: vault_module.Vault) -> None:
    vault.create_entity("projects/roof")
    archived = vault.archive_entity("projects/roof")
    vault.create_entity("projects/roof")  # a new one took the name meanwhile
    with pytest.raises(errors.AlreadyExistsError):
        vault.unarchive_entity(archived)
    assert vault.paths.entity_dir(archived).is_dir()
