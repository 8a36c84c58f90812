"""ChatGPT's export as people have it now (issue 29): voice turns carry their words as a
transcription, answers carry citation markers, an assistant's calls to its tools and its
hidden reasoning sit on the kept branch, a voice answer is dated before its question,
newer nodes list no children, and a newer export comes in parts with a manifest, zipped
or unzipped. What is imported is what the person saw, in the order they saw it. The
fixtures are ours, written in those shapes."""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from vault_app import cli
from vault_app.core import chat_exports, errors
from vault_app.core.layout import EntityRef
from vault_app.core.vault import Vault

T0 = dt.datetime(2025, 9, 4, 15, 0).astimezone().timestamp()
DAY = dt.date(2025, 9, 4)
CITE = "\ue200cite\ue202turn0search0\ue201"
ENTITY = "\ue200entity\ue202" + json.dumps(["people", "Ada Lovelace", "synthetic"]) + "\ue201"


def message(role: str, content: dict[str, Any], at: float | None, **extra: Any) -> dict[str, Any]:
    return {
        "author": {"role": role, "name": extra.pop("name", None), "metadata": {}},
        "content": content,
        "create_time": at,
        "recipient": extra.pop("recipient", "all"),
        "metadata": extra.pop("metadata", {}),
        "status": "finished_successfully",
    }


def text(*parts: Any) -> dict[str, Any]:
    return {"content_type": "text", "parts": list(parts)}


def conversation(
    cid: str, nodes: list[tuple[str, str | None, Any]], **extra: Any
) -> dict[str, Any]:
    """Nodes in the newer layout: `{id, message, parent}`, no `children`."""
    mapping = {nid: {"id": nid, "message": m, "parent": parent} for nid, parent, m in nodes}
    return {"conversation_id": cid, "title": cid.title(), "create_time": T0, "mapping": mapping,
            **extra}  # fmt: skip


def voice_and_tools() -> dict[str, Any]:
    spoken = {"content_type": "multimodal_text", "parts": [
        {"content_type": "audio_transcription", "direction": "in",
         "text": "Remember that my sister Ana lands on Friday."},
        {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_a1",
         "format": "wav"},
    ]}  # fmt: skip
    answer = {"content_type": "multimodal_text", "parts": [
        {"content_type": "audio_transcription", "direction": "out", "text": "Noted: Friday."},
        {"content_type": "real_time_user_audio_video_asset_pointer", "frames_asset_pointers": []},
    ]}  # fmt: skip
    return conversation("c-voice", [
        ("root", None, None),
        ("sys", "root", message("system", text(""), None,
                                metadata={"is_visually_hidden_from_conversation": True})),
        ("ctx", "sys", message("user", {"content_type": "user_editable_context",
                                        "user_instructions": "Be brief"}, None)),
        ("u1", "ctx", message("user", spoken, T0 + 60)),
        ("a1", "u1", message("assistant", answer, T0 + 50)),  # dated before its question
        ("u2", "a1", message("user", text("What is 2**10? And who was Ada?"), T0 + 120)),
        ("think", "u2", message("assistant", {"content_type": "thoughts", "thoughts": [
            {"summary": "s", "content": "SECRET REASONING"}]}, T0 + 121)),
        ("recap", "think", message("assistant", {"content_type": "reasoning_recap",
                                                 "content": "Thought for 2s"}, T0 + 122)),
        ("code", "recap", message("assistant", {"content_type": "code", "language": "python",
                                                "text": "print(2**10)"}, T0 + 123,
                                  recipient="python")),
        ("out", "code", message("tool", {"content_type": "execution_output", "text": "1024"},
                                T0 + 124, name="python")),
        ("bio", "out", message("assistant", {"content_type": "code", "text": "Ana: Friday"},
                               T0 + 125, recipient="bio")),
        ("a2", "bio", message("assistant", text(
            f"It is 1024 {CITE}. {ENTITY} wrote the first program 【11†source】.\ue203"),
            T0 + 126)),
        ("hidden", "a2", message("assistant", text("Memory updated"), T0 + 127,
                                 metadata={"is_visually_hidden_from_conversation": True})),
    ], current_node="hidden")  # fmt: skip


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def entries(vault: Vault) -> list[tuple[str, str]]:
    return [(e.time, e.text) for e in vault.daily_note(DAY).entries]


def at(seconds: float) -> str:
    return dt.datetime.fromtimestamp(T0 + seconds).strftime("%H:%M:%S")


def test_what_is_imported_is_what_the_person_saw_in_that_order(
    vault: Vault, tmp_path: Path
) -> None:
    path = write(tmp_path / "conversations.json", [voice_and_tools()])
    report = chat_exports.import_export(vault, path)
    head = "(from ChatGPT: C-Voice): "
    assert entries(vault) == [
        (at(60), f"**user** {head}Remember that my sister Ana lands on Friday."),
        (at(60), f"**assistant** {head}Noted: Friday."),  # at its question's time, after it
        (at(120), f"**user** {head}What is 2**10? And who was Ada?"),
        (at(126), f"**assistant** {head}It is 1024. Ada Lovelace wrote the first program."),
    ]
    assert (report.messages, report.skipped) == (4, 8)


def test_pictures_are_named_once_and_a_voice_turn_without_words_is_said(
    vault: Vault, tmp_path: Path
) -> None:
    upload = {"content_type": "multimodal_text", "parts": [
        {"content_type": "image_asset_pointer", "asset_pointer": "file-service://f1"},
        "What is in this picture?"]}  # fmt: skip
    made = {"content_type": "multimodal_text", "parts": [
        {"content_type": "image_asset_pointer", "asset_pointer": "sediment://f2"}]}  # fmt: skip
    silent = {"content_type": "multimodal_text", "parts": [
        {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://f3"}]}  # fmt: skip
    chat = conversation("c-media", [
        ("u1", None, message("user", upload, T0, metadata={"attachments": [
            {"id": "f1", "name": "fridge.jpg"}]})),
        ("a1", "u1", message("assistant", made, T0 + 10)),
        ("u2", "a1", message("user", silent, T0 + 20)),
    ], current_node="u2")  # fmt: skip
    chat_exports.import_export(vault, write(tmp_path / "conversations.json", [chat]))
    assert [t.split("): ", 1)[1] for _, t in entries(vault)] == [
        "What is in this picture?\n\n[attachment: fridge.jpg]",
        "[image]",
        "[voice message]",
    ]


def test_without_a_current_node_the_newest_leaf_is_the_kept_branch(
    vault: Vault, tmp_path: Path
) -> None:
    chat = conversation("c-leaf", [
        ("u1", None, message("user", text("Question"), T0)),
        ("old", "u1", message("assistant", text("Regenerated away"), T0 + 5)),
        ("new", "u1", message("assistant", text("Kept answer"), T0 + 9)),
    ])  # fmt: skip
    chat_exports.import_export(vault, write(tmp_path / "conversations.json", [chat]))
    assert [t.rsplit(": ", 1)[1] for _, t in entries(vault)] == ["Question", "Kept answer"]


def small(cid: str, words: str, seconds: int) -> dict[str, Any]:
    return conversation(cid, [("u", None, message("user", text(words), T0 + seconds))])


def sharded(folder: Path, manifest: bool) -> None:
    """Parts named so that their order by name is not the manifest's."""
    write(folder / "conversations-10.json", [small("c-3", "third", 30)])
    write(folder / "conversations-2.json", [small("c-2", "second", 20)])
    write(folder / "conversations-1.json", [small("c-1", "first", 10)])
    write(folder / "shared_conversations.json", [{"id": "not a conversation"}])
    if manifest:
        files = ["conversations-1.json", "conversations-10.json", "conversations-2.json",
                 "conversations-11.json"]  # fmt: skip
        logical = [{"name": "conversations.json", "files": files}]
        write(folder / "export_manifest.json", {"logical_files": logical, "version": 1})


@pytest.mark.parametrize("manifest", [True, False])
def test_a_sharded_export_is_read_whole_from_its_folder(
    vault: Vault, tmp_path: Path, manifest: bool
) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    sharded(folder, manifest)
    assert chat_exports.is_export(folder) and chat_exports.detect(folder) == "chatgpt"
    seen: list[int] = []
    report = chat_exports.import_export(vault, folder, progress=lambda d, t: seen.append(d))
    order = ["first", "third", "second"] if manifest else ["first", "second", "third"]
    assert report.conversations == 3 and report.added == 3
    assert [c.conversation for c in _read_all(folder)] == [
        f"C-{dict(first=1, second=2, third=3)[w]}" for w in order
    ]
    assert seen[-1] == sum((folder / f"conversations-{n}.json").stat().st_size for n in (1, 2, 10))
    missing = ["conversations-11.json: listed in the export's manifest, not in it"]
    assert report.problems == (missing if manifest else [])


def _read_all(path: Path) -> list[chat_exports.Message]:
    report = chat_exports.Report("chatgpt")
    return [m for batch in chat_exports.read(path, "chatgpt", report) for m in batch]


def test_a_sharded_zip_in_a_subfolder(vault: Vault, tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    sharded(folder, manifest=True)
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as z:
        for f in folder.iterdir():
            z.write(f, f"chatgpt-export/{f.name}")
        z.writestr("chatgpt-export/chat.html", "<html></html>")
    assert chat_exports.detect(path) == "chatgpt"
    assert [m.text for m in _read_all(path)] == ["first", "third", "second"]


def test_a_folder_or_zip_without_conversations_is_said_precisely(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    write(folder / "user.json", {"id": "u"})
    assert not chat_exports.is_export(folder)
    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("user.json", "{}")
    with pytest.raises(errors.VaultError, match=r"without conversations\.json or its parts"):
        chat_exports.detect(path)


def test_the_command_imports_an_unzipped_export_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vault = Vault.create(tmp_path / "v")
    folder = tmp_path / "export"
    folder.mkdir()
    write(folder / "conversations.json", [voice_and_tools()])
    code = cli.main(["--vault", str(vault.root), "import", str(folder), "--json", "--extract"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (json.loads(out)["format"], json.loads(out)["added"]) == ("chatgpt", 4)
    kept = sorted(f.fact for f in vault.entity(EntityRef.parse("areas/people/ana")).facts)
    assert kept == ["Ana is the user's sister.", "Ana lands on 2025-09-05."]  # said aloud


def test_what_chatgpt_saved_to_its_memory_is_an_entry_and_a_fact(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Its call to `bio` (the page's "Memory updated") is imported as a `memory` entry,
    which the heartbeat keeps as the person's own request; the tool's reply is not."""
    vault = Vault.create(tmp_path / "v")
    chat = conversation("c-bio", [
        ("u1", None, message("user", text("I'm off to see my sister Ana in Porto."), T0)),
        ("bio", "u1", message("assistant", text("User's sister Ana lives in Porto."), T0 + 5,
                              recipient="bio")),
        ("ack", "bio", message("tool", text("Model set context updated."), T0 + 6,
                               name="bio", recipient="assistant")),
        ("a1", "ack", message("assistant", text("Have a lovely trip!"), T0 + 7)),
    ], current_node="a1")  # fmt: skip
    path = write(tmp_path / "conversations.json", [chat])
    code = cli.main(["--vault", str(vault.root), "import", str(path), "--extract"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "1 of them is a note ChatGPT saved to its memory of you" in out
    assert [t for _, t in entries(vault)] == [
        "**user** (from ChatGPT: C-Bio): I'm off to see my sister Ana in Porto.",
        "**memory** (from ChatGPT: C-Bio): User's sister Ana lives in Porto.",
        "**assistant** (from ChatGPT: C-Bio): Have a lovely trip!",
    ]
    ana = vault.entity(EntityRef.parse("areas/people/ana"))
    assert sorted(f.fact for f in ana.facts) == ["Ana is the user's sister.", "Ana lives in Porto."]


PREAMBLE = (
    "The user provided the following information about themselves. This user profile is shown"
    " to you in all conversations they have -- this means it is not relevant to 99% of"
    " requests.\nUser profile:\n```"
)


def test_what_the_person_wrote_about_themselves_is_one_entry_and_facts_about_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """ChatGPT's custom instructions ride in every conversation; their "about you" part is
    placed once, told in the first person, and the heartbeat keeps it as facts about
    the person (Me); how to answer ("Be brief") tells of no one and is left out."""
    vault = Vault.create(tmp_path / "v")
    about = {"content_type": "user_editable_context", "user_instructions": "Be brief.",
             "user_profile": PREAMBLE + "Preferred name: Elin Voss\nRole: Machine operator at"
             " a paper mill in Sundsvall\nOther Information: I have two kids and a dog named"
             " Sixten```"}  # fmt: skip
    chats = [
        conversation(cid, [
            ("ctx", None, message("user", about, None,
                                  metadata={"is_visually_hidden_from_conversation": True})),
            ("u", "ctx", message("user", text(words), T0 + seconds)),
        ], current_node="u")
        for cid, words, seconds in (("c-1", "Hello there", 10), ("c-2", "Hello again", 20))
    ]  # fmt: skip
    path = write(tmp_path / "conversations.json", chats)
    assert cli.main(["--vault", str(vault.root), "import", str(path), "--extract"]) == 0
    capsys.readouterr()
    said = [t for _, t in entries(vault)]
    assert said[0] == (
        "**profile** (from ChatGPT: About you): My name is Elin Voss.\nMy role is Machine"
        " operator at a paper mill in Sundsvall.\nI have two kids and a dog named Sixten."
    )
    assert len(said) == 3 and "Be brief" not in "".join(said)  # once, and only about you
    assert sorted(f.fact for f in vault.entity(EntityRef.parse("areas/me")).facts) == [
        "The user has two kids and a dog named Sixten.",
        "The user's name is Elin Voss.",
        "The user's role is Machine operator at a paper mill in Sundsvall.",
    ]
    chat_exports.import_export(vault, path)  # again: nothing new
    assert len(entries(vault)) == 3


def test_a_conversation_kept_out_of_chatgpts_memory_is_left_out_and_said(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vault = Vault.create(tmp_path / "v")
    private = small("c-private", "Remember that my PIN is 4921.", 10)
    kept = small("c-kept", "Remember that the recycling goes out on Thursdays.", 20)
    path = write(tmp_path / "conversations.json", [
        {**private, "is_do_not_remember": True}, {**kept, "is_do_not_remember": False},
    ])  # fmt: skip
    code = cli.main(["--vault", str(vault.root), "import", str(path), "--extract"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [t.rsplit(": ", 1)[1] for _, t in entries(vault)] == [
        "Remember that the recycling goes out on Thursdays."
    ]
    assert "1 conversations, 1 messages" in out
    assert "left out: 1 conversation kept out of ChatGPT's memory" in out
    assert not [f for f in vault.root.rglob("*") if f.is_file() and b"4921" in f.read_bytes()]
    assert any(vault.root.rglob("items.json"))  # the other conversation's fact was kept


ROOT = "00000000-0000-4000-8000-000000000000"  # what Claude writes as a first message's parent


def claude_message(uuid: str, parent: str, sender: str, seconds: int, **fields: Any) -> dict:
    moment = dt.datetime.fromtimestamp(T0 + seconds, dt.UTC).isoformat()
    return {"uuid": uuid, "parent_message_uuid": parent, "sender": sender,
            "created_at": moment, **fields}  # fmt: skip


def test_a_claude_export_keeps_the_branch_and_the_text_the_person_saw(
    vault: Vault, tmp_path: Path
) -> None:
    unshown = "```\nThis block is not supported on your current device yet.\n```"
    chat = {"uuid": "k-1", "name": "Flights", "current_leaf_message_uuid": "a2",
            "chat_messages": [
        claude_message("q1", ROOT, "human", 0, text="When does Ana land?", content=[]),
        claude_message("q1-edited", ROOT, "human", 5, content=[
            {"type": "text", "text": "When does my sister Ana land on Friday?"}],
            attachments=[{"file_name": "", "extracted_content": "LONG PASTED ITINERARY"}],
            files=[{"file_name": "ticket.pdf"}], files_v2=[{"file_name": "ticket.pdf"}]),
        claude_message("a1", "q1", "assistant", 2, text="EDITED AWAY", content=[]),
        claude_message("a2", "q1-edited", "assistant", 9,
                       text=f"Let me check.\n{unshown}\nAt 18:05.", content=[
            {"type": "thinking", "thinking": "SECRET REASONING"},
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "name": "web_search", "input": {"q": "flight"}},
            {"type": "tool_result", "content": [{"type": "text", "text": "TOOL OUTPUT"}]},
            {"type": "text", "text": "At 18:05."}]),
    ]}  # fmt: skip
    path = write(tmp_path / "conversations.json", [chat])
    assert chat_exports.detect(path) == "claude"
    chat_exports.import_export(vault, path)
    assert [t.split("): ", 1)[1] for _, t in entries(vault)] == [
        "When does my sister Ana land on Friday?\n\n[attachment: ticket.pdf]\n\n[pasted text]",
        "Let me check.\n\nAt 18:05.",
    ]


def test_claude_text_without_blocks_loses_only_its_placeholders(
    vault: Vault, tmp_path: Path
) -> None:
    unshown = "```\nThis block is not supported on your current device yet.\n```"
    chat = {"uuid": "k-2", "name": "Old", "chat_messages": [  # no parents: one line
        claude_message("a", None, "assistant", 0, text=f"Searching.\n{unshown}\n\nFound it."),
        claude_message("b", None, "human", 3, text="Thanks"),
    ]}  # fmt: skip
    chat_exports.import_export(vault, write(tmp_path / "conversations.json", [chat]))
    assert [t.split("): ", 1)[1] for _, t in entries(vault)] == [
        "Searching.\n\nFound it.",
        "Thanks",
    ]
