"""The cursor: new entries across global and agents' notes, robust to edits, to entries
appended out of order and to notes created late; a corrupt cursor is a precise error."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import orjson
import pytest

from vault_app.core import errors
from vault_app.core.vault import Vault
from vault_app.heartbeat import entries, state

DAY = dt.date(2026, 11, 20)


def at(day: dt.date, hh: int, mm: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hh, mm)).astimezone()


def run_once(vault: Vault) -> list[str]:
    """What a heartbeat would see now, then everything marked done and saved."""
    cursor = entries.Cursor.load(vault.root)
    found = cursor.new_entries(vault)
    cursor.mark_done(found)
    cursor.save(vault.storage)
    return [e.text for e in found]


def age(path: Path) -> None:
    """Date the file back so the cursor may trust its stamp (no racy window)."""
    old = path.stat().st_mtime_ns - 10**10
    os.utime(path, ns=(old, old))


def age_notes(vault: Vault) -> None:
    for note in vault.root.rglob("daily/*.md"):
        age(note)


def test_new_entries_of_global_and_agent_notes_then_nothing(vault: Vault) -> None:
    vault.create_agent("finance")
    vault.append_daily("Maria prefers tea.", at=at(DAY, 9))
    vault.append_daily("The budget is 400 a month.", agent="finance", at=at(DAY, 8))
    found = entries.Cursor.load(vault.root).new_entries(vault)
    assert [(e.text, e.agent) for e in found] == [
        ("The budget is 400 a month.", "finance"),  # oldest first
        ("Maria prefers tea.", None),
    ]
    assert found[0].path == "agents/finance/daily/2026-11-20.md"
    assert run_once(vault) == ["The budget is 400 a month.", "Maria prefers tea."]
    assert run_once(vault) == []


def test_unsaved_progress_is_not_remembered(vault: Vault) -> None:
    vault.append_daily("One.", at=at(DAY, 9))
    entries.Cursor.load(vault.root).new_entries(vault)  # looked at, never marked done
    assert run_once(vault) == ["One."]


def test_appended_entry_and_out_of_order_entry_are_new(vault: Vault) -> None:
    vault.append_daily("Nine o'clock.", at=at(DAY, 9))
    run_once(vault)
    vault.append_daily("Ten o'clock.", at=at(DAY, 10))
    vault.append_daily("Eight o'clock, written late.", at=at(DAY, 8))  # an earlier time
    assert run_once(vault) == ["Eight o'clock, written late.", "Ten o'clock."]
    assert run_once(vault) == []


def test_an_edited_entry_is_new_and_the_others_are_not(vault: Vault) -> None:
    vault.append_daily("Maria likes tea.", at=at(DAY, 9))
    vault.append_daily("Tom likes coffee.", at=at(DAY, 10))
    run_once(vault)
    path = vault.paths.daily_file(DAY, None)
    path.write_text(path.read_text().replace("likes tea", "likes green tea"))
    assert run_once(vault) == ["Maria likes green tea."]
    saved = state.read(vault.root, entries.CURSOR_NAME)
    assert saved is not None
    done = saved["notes"]["global/daily/2026-11-20.md"]["done"]
    assert len(done) == 2  # the edited entry's old ref is forgotten: the state stays bounded


def test_a_note_created_late_for_an_old_date_is_read(vault: Vault) -> None:
    vault.append_daily("Today.", at=at(DAY, 9))
    run_once(vault)
    vault.append_daily("Long ago.", at=at(DAY - dt.timedelta(days=40), 9))
    vault.create_agent("ops")
    vault.append_daily("An agent's first note.", agent="ops", at=at(DAY - dt.timedelta(days=3), 9))
    assert run_once(vault) == ["Long ago.", "An agent's first note."]


def test_identical_entries_are_kept_apart(vault: Vault) -> None:
    vault.append_daily("Bought milk.", at=at(DAY, 9))
    run_once(vault)
    path = vault.paths.daily_file(DAY, None)
    path.write_text(path.read_text() + "\n## 09:00:00\n\nBought milk.\n")
    found = entries.Cursor.load(vault.root).new_entries(vault)
    assert [(e.text, e.occurrence) for e in found] == [("Bought milk.", 1)]


def test_an_unchanged_note_is_not_read_again(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    vault.append_daily("Once.", at=at(DAY, 9))
    age_notes(vault)
    run_once(vault)
    reads: list[dt.date] = []
    original = Vault.daily_note

    def counting(self: Vault, day: dt.date, agent: str | None = None) -> object:
        reads.append(day)
        return original(self, day, agent)

    monkeypatch.setattr(Vault, "daily_note", counting)
    assert run_once(vault) == []
    assert reads == []  # its (size, mtime_ns) stamp said so
    vault.append_daily("Twice.", at=at(DAY, 10))
    assert run_once(vault) == ["Twice."]
    assert reads == [DAY]


def test_a_same_size_edit_right_after_a_run_is_still_seen(vault: Vault) -> None:
    """A note changed within the racy window keeps no stamp, so an edit of the same size
    and (coarse) time is still found."""
    vault.append_daily("Room 101.", at=at(DAY, 9))
    path = vault.paths.daily_file(DAY, None)
    stamp = path.stat()
    assert run_once(vault) == ["Room 101."]
    path.write_text(path.read_text().replace("101", "102"))
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same size, same mtime
    assert run_once(vault) == ["Room 102."]


def test_deleted_notes_are_forgotten(vault: Vault) -> None:
    vault.append_daily("Gone soon.", at=at(DAY, 9))
    run_once(vault)
    vault.paths.daily_file(DAY, None).unlink()
    run_once(vault)
    saved = state.read(vault.root, entries.CURSOR_NAME)
    assert saved is not None and saved["notes"] == {}


def test_an_unreadable_note_is_reported_and_the_others_still_read(vault: Vault) -> None:
    vault.append_daily("Fine.", at=at(DAY, 9))
    bad = vault.paths.daily_file(DAY - dt.timedelta(days=1), None)
    bad.write_bytes(b"# x\n\n## 09:00:00\n\n\xff\xfe not utf-8\n")
    cursor = entries.Cursor.load(vault.root)
    assert [e.text for e in cursor.new_entries(vault)] == ["Fine."]
    assert len(cursor.problems) == 1 and str(bad) in str(cursor.problems[0])


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b"{not json", "invalid JSON"),
        (b"[]", "expected a JSON object"),
        (b'{"version": 7, "notes": {}}', "unknown version 7"),
        (b'{"version": 1, "notes": {"a.md": {"done": "x"}}}', "notes.a.md.done"),
        (b'{"version": 1, "notes": {"a.md": {"size": "big"}}}', "notes.a.md.size"),
    ],
)
def test_a_corrupt_cursor_is_a_precise_error_and_stays(
    vault: Vault, content: bytes, where: str
) -> None:
    path = state.path(vault.root, entries.CURSOR_NAME)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    with pytest.raises(errors.CorruptFileError) as caught:
        entries.Cursor.load(vault.root)
    assert where in str(caught.value) and str(path) in str(caught.value)
    assert path.read_bytes() == content


def test_saving_an_unchanged_cursor_writes_nothing(vault: Vault) -> None:
    vault.append_daily("One.", at=at(DAY, 9))
    run_once(vault)
    audit = (vault.paths.state_dir / "audit.jsonl").read_bytes()
    run_once(vault)
    assert (vault.paths.state_dir / "audit.jsonl").read_bytes() == audit
    saved = orjson.loads(state.path(vault.root, entries.CURSOR_NAME).read_bytes())
    assert saved["version"] == entries.VERSION
