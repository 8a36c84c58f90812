"""Conversations people already have, imported into daily notes (issue 29): ChatGPT's
export (only the kept branch, attachments named), Claude's, JSON lines; told apart by
content; each message an entry of its day in time order; a second import adds nothing;
a damaged conversation reported by its id and the rest imported. The fixtures are ours,
in the exports' shapes."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from vault_app.core import chat_exports, errors
from vault_app.core.vault import Vault


def epoch(day: int, hh: int, mm: int = 0) -> float:
    return dt.datetime(2025, 3, day, hh, mm).astimezone().timestamp()


def node(nid: str, role: str | None, text: str | None, at: float | None, parent: str | None,
         children: list[str], **meta: Any) -> dict[str, Any]:  # fmt: skip
    message = None
    if role is not None:
        message = {
            "id": nid,
            "author": {"role": role},
            "create_time": at,
            "content": {"content_type": "text", "parts": [text]},
            "metadata": meta,
        }
    return {"id": nid, "message": message, "parent": parent, "children": children}


def chatgpt_conversation() -> dict[str, Any]:
    """A trip plan in which the person regenerated the first answer: the kept answer is
    on the branch of `current_node`, the other one is a side branch."""
    mapping = {
        "root": node("root", None, None, None, None, ["sys"]),
        "sys": node("sys", "system", "You are ChatGPT.", epoch(3, 9), "root", ["u1"]),
        "u1": node(
            "u1",
            "user",
            "Remember that I'm vegetarian. Plan Porto.",
            epoch(3, 9, 1),
            "sys",
            ["a-old", "a-kept"],
        ),
        "a-old": node("a-old", "assistant", "REGENERATED AWAY", epoch(3, 9, 2), "u1", []),
        "a-kept": node("a-kept", "assistant", "Day 1: Ribeira.", epoch(3, 9, 3), "u1", ["u2"]),
        "u2": node(
            "u2",
            "user",
            "Here is my ticket.",
            epoch(4, 8),
            "a-kept",
            [],
            attachments=[{"name": "ticket.pdf"}],
        ),
    }
    return {
        "title": "Trip to Porto",
        "create_time": epoch(3, 9),
        "mapping": mapping,
        "current_node": "u2",
        "conversation_id": "c-porto",
    }


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def texts(vault: Vault, day: dt.date, agent: str | None = None) -> list[tuple[str, str]]:
    return [(e.time, e.text) for e in vault.daily_note(day, agent).entries]


MARCH_3, MARCH_4 = dt.date(2025, 3, 3), dt.date(2025, 3, 4)


def test_a_chatgpt_export_keeps_the_branch_the_person_kept(vault: Vault, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", [chatgpt_conversation()])
    assert chat_exports.detect(path) == "chatgpt"
    report = chat_exports.import_export(vault, path)
    assert (report.conversations, report.messages, report.added, report.skipped) == (1, 3, 3, 1)
    assert texts(vault, MARCH_3) == [
        ("09:01:00", "**user** (from ChatGPT: Trip to Porto): "
                     "Remember that I'm vegetarian. Plan Porto."),
        ("09:03:00", "**assistant** (from ChatGPT: Trip to Porto): Day 1: Ribeira."),
    ]  # fmt: skip
    assert texts(vault, MARCH_4) == [
        ("08:00:00", "**user** (from ChatGPT: Trip to Porto): Here is my ticket.\n\n"
                     "[attachment: ticket.pdf]"),
    ]  # fmt: skip


def test_a_zip_of_the_export_is_read_as_the_export(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("chat.html", "<html></html>")
        z.writestr("conversations.json", json.dumps([chatgpt_conversation()]))
    assert chat_exports.detect(path) == "chatgpt"
    assert chat_exports.import_export(vault, path).added == 3


def test_a_claude_export(vault: Vault, tmp_path: Path) -> None:
    conversation = {
        "uuid": "c-1",
        "name": "Garden",
        "created_at": "2025-03-03T10:00:00Z",
        "chat_messages": [
            {"sender": "human", "text": "My tomatoes have blight.",
             "created_at": "2025-03-03T10:00:05Z", "files": [{"file_name": "leaf.jpg"}]},
            {"sender": "assistant", "text": "Remove the leaves.",
             "created_at": "2025-03-03T10:00:09Z"},
            {"sender": "human", "text": "", "created_at": "2025-03-03T10:01:00Z"},
        ],
    }  # fmt: skip
    path = write_json(tmp_path / "conversations.json", [conversation])
    assert chat_exports.detect(path) == "claude"
    report = chat_exports.import_export(vault, path)
    assert (report.messages, report.added, report.skipped) == (2, 2, 1)
    local = dt.datetime(2025, 3, 3, 10, 0, 5, tzinfo=dt.UTC).astimezone()
    entries = vault.daily_note(local.date()).entries
    assert entries[0].text == (
        "**user** (from Claude: Garden): My tomatoes have blight.\n\n[attachment: leaf.jpg]"
    )
    assert entries[0].time == local.strftime("%H:%M:%S")


def test_json_lines_name_their_speakers_into_an_agents_notes(vault: Vault, tmp_path: Path) -> None:
    vault.create_agent("household")
    rows = [
        {"time": "2025-03-03T08:00:00", "speaker": "Maya", "text": "I start piano on Tuesdays.",
         "conversation": "family chat"},
        {"time": "2025-03-03T07:00:00", "speaker": "Theo", "text": "Morning!",
         "conversation": "family chat"},
    ]  # fmt: skip
    path = tmp_path / "talk.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert chat_exports.detect(path) == "jsonl"
    report = chat_exports.import_export(vault, path, agent="household")
    assert report.added == 2
    assert texts(vault, MARCH_3, "household") == [  # in time order
        ("07:00:00", "**Theo** (from chat: family chat): Morning!"),
        ("08:00:00", "**Maya** (from chat: family chat): I start piano on Tuesdays."),
    ]


def test_json_lines_in_time_order_count_each_conversation_once(
    vault: Vault, tmp_path: Path
) -> None:
    rows = [  # two conversations interleaved, as a file sorted by time has them
        {"time": f"2025-03-03T0{h}:00:00", "text": f"Message {h}.", "conversation": name}
        for h, name in enumerate(["meals", "running", "meals", "running", "meals"], 1)
    ]
    path = tmp_path / "talk.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    report = chat_exports.import_export(vault, path)
    assert (report.conversations, report.messages, report.added) == (2, 5, 5)


def test_entries_go_in_time_order_among_the_notes_own(vault: Vault, tmp_path: Path) -> None:
    vault.append_daily("early", at=dt.datetime(2025, 3, 3, 8, 0).astimezone())
    vault.append_daily("late", at=dt.datetime(2025, 3, 3, 23, 0).astimezone())
    chat_exports.import_export(vault, write_json(tmp_path / "c.json", [chatgpt_conversation()]))
    times = [t for t, _ in texts(vault, MARCH_3)]
    assert times == ["08:00:00", "09:01:00", "09:03:00", "23:00:00"]


def test_importing_twice_adds_nothing(vault: Vault, tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", [chatgpt_conversation()])
    chat_exports.import_export(vault, path)
    before = vault.daily_note(MARCH_3).path.read_bytes()
    again = chat_exports.import_export(vault, path)
    assert (again.messages, again.added, again.days) == (3, 0, 0)
    assert vault.daily_note(MARCH_3).path.read_bytes() == before


def test_a_damaged_conversation_is_named_and_the_rest_imported(
    vault: Vault, tmp_path: Path
) -> None:
    broken = chatgpt_conversation() | {"conversation_id": "c-broken", "mapping": None}
    bad_time = chatgpt_conversation() | {"conversation_id": "c-bad-time"}
    bad_time["mapping"]["u2"]["message"]["create_time"] = "tuesday"
    path = write_json(tmp_path / "conversations.json", [broken, bad_time, chatgpt_conversation()])
    report = chat_exports.import_export(vault, path)
    assert report.conversations == 1 and report.added == 3
    assert [p.split(":")[0] for p in report.problems] == [
        "conversation c-broken",
        "conversation c-bad-time",
    ]


def test_a_file_cut_short_keeps_what_came_before(vault: Vault, tmp_path: Path) -> None:
    whole = json.dumps([chatgpt_conversation(), chatgpt_conversation() | {"title": "Second"}])
    path = tmp_path / "conversations.json"
    path.write_text(whole[: len(whole) - 40])
    report = chat_exports.import_export(vault, path)
    assert report.conversations == 1 and report.added == 3
    assert len(report.problems) == 1 and "damaged after byte" in report.problems[0]


@pytest.mark.parametrize(
    "content",
    ['[{"title": "x"}]', "not json at all", '{"a": 1}\n', "[1, 2]"],
)
def test_what_is_no_export_is_said_precisely(tmp_path: Path, content: str) -> None:
    path = tmp_path / "file.json"
    path.write_text(content)
    with pytest.raises(errors.VaultError, match="not"):
        chat_exports.detect(path)


def test_a_large_export_is_streamed_with_its_progress(vault: Vault, tmp_path: Path) -> None:
    """600 conversations over 300 days: read one at a time, progress as bytes read."""
    conversations = []
    for i in range(600):
        c = chatgpt_conversation()
        c["conversation_id"] = f"c-{i}"
        c["title"] = f"Talk {i}"
        shift = (i // 2) * 86400  # two a day
        for item in c["mapping"].values():
            if item["message"] is not None:
                item["message"]["create_time"] += shift
        conversations.append(c)
    path = write_json(tmp_path / "conversations.json", conversations)
    seen: list[tuple[int, int]] = []
    report = chat_exports.import_export(
        vault, path, progress=lambda done, total: seen.append((done, total))
    )
    assert report.conversations == 600 and report.added == 1800
    size = path.stat().st_size
    assert seen[-1] == (size, size) and len(seen) > 2
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(seen))


def test_an_export_damaged_at_its_start_is_said_precisely(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text('[{"mapping": {"a": [}')
    with pytest.raises(errors.VaultError, match="damaged JSON at its start"):
        chat_exports.detect(path)
