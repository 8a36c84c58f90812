"""File › Import conversations… (issue 29): a person's ChatGPT export into the vault's
daily notes from the window, on the writer thread behind a progress dialog, said in the
message bar; Stop ends it with nothing half done, and importing again adds the rest.

Variants thought of: the commands are in the File menu (and so in the palette); a zip
of an export is imported and the daily view shows its entries; Stop before the first
conversation leaves the notes as they were and says so; importing after a stop adds
everything; a file that is no export is said in plain words, the window still usable.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import zipfile
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import open_window

from vault_app.core import chat_exports, errors, vault
from vault_app.ui.window import chat_import

T0 = dt.datetime(2025, 9, 4, 15, 0).astimezone().timestamp()
DAY = dt.date(2025, 9, 4)


def export(tmp_path: Path, conversations: int = 3, opted_out: int = 0) -> Path:
    """A ChatGPT export's zip; its last `opted_out` conversations kept out of memory."""
    chats = []
    for c in range(conversations):
        mapping: dict[str, Any] = {}
        parent = None
        for m, (role, words) in enumerate(
            [("user", f"Remember that locker {c} has code 44{c}1."), ("assistant", "Noted.")]
        ):
            nid = f"n{c}-{m}"
            mapping[nid] = {"id": nid, "parent": parent, "message": {
                "author": {"role": role}, "create_time": T0 + c * 60 + m,
                "content": {"content_type": "text", "parts": [words]}}}  # fmt: skip
            parent = nid
        chats.append({"conversation_id": f"c{c}", "title": f"Locker {c}", "mapping": mapping,
                      "current_node": parent, "create_time": T0,
                      "is_do_not_remember": c >= conversations - opted_out})  # fmt: skip
    path = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("conversations.json", json.dumps(chats))
        z.writestr("chat.html", "<html></html>")
    return path


def entries(window: Any) -> list[str]:
    try:
        note = window.session.vault.daily_note(DAY)
    except errors.NotFoundError:
        return []
    return [e.text for e in note.entries]


def test_the_file_menu_holds_both_imports(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    window = open_window(qtbot, root, store)
    file_menu = window.commands.menus["File"]
    names = [a.objectName() for a in file_menu.actions()]
    assert {"import_chats", "import_chats_folder"} <= set(names)
    assert names.index("import_chats") < names.index("settings") < names.index("quit")


def test_an_export_is_imported_and_said(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, tmp_path: Path
) -> None:
    window = open_window(qtbot, root, store)
    bar = window.message_bar
    chat_import.start(window, export(tmp_path))
    qtbot.waitUntil(lambda: any(m[0] == "Conversations imported" for m in bar.messages))
    _title, text, _ = bar.messages[-1]
    assert text.startswith("6 messages of 3 ChatGPT conversations from chatgpt-export.zip")
    assert len(entries(window)) == 6
    assert "**user** (from ChatGPT: Locker 0): Remember that locker 0 has code 4401." in (
        entries(window)
    )
    chat_import.start(window, export(tmp_path))  # again: nothing new
    qtbot.waitUntil(lambda: [m[0] for m in bar.messages].count("Conversations imported") == 2)
    assert "0 messages" in bar.messages[-1][1] and "(6 already there)" in bar.messages[-1][1]
    assert len(entries(window)) == 6


def test_conversations_kept_out_of_memory_are_left_out_and_said(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, tmp_path: Path
) -> None:
    window = open_window(qtbot, root, store)
    bar = window.message_bar
    chat_import.start(window, export(tmp_path, conversations=3, opted_out=1))
    qtbot.waitUntil(lambda: any(m[0] == "Conversations imported" for m in bar.messages))
    text = bar.messages[-1][1]
    assert text.startswith("4 messages of 2 ChatGPT conversations")
    assert "1 conversation kept out of ChatGPT's memory was left out." in text
    assert not [e for e in entries(window) if "Locker 2" in e]


def test_stop_leaves_nothing_half_done_and_a_second_import_adds_the_rest(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, tmp_path: Path
) -> None:
    window = open_window(qtbot, root, store)
    bar = window.message_bar
    hold, holding = threading.Event(), threading.Event()

    def blocker() -> None:  # the writer thread is busy: the import waits behind it
        holding.set()
        hold.wait(60)

    window.session.run(blocker, writer=True)
    assert holding.wait(60)
    dialog = chat_import.start(window, export(tmp_path))
    dialog.findChild(QtWidgets.QPushButton).click()  # Stop, before it read a byte
    hold.set()
    qtbot.waitUntil(lambda: any(m[0] == "Import stopped" for m in bar.messages))
    assert "importing it again adds only the rest" in bar.messages[-1][1]
    assert entries(window) == []
    chat_import.start(window, export(tmp_path))
    qtbot.waitUntil(lambda: any(m[0] == "Conversations imported" for m in bar.messages))
    assert len(entries(window)) == 6


def test_a_file_that_is_no_export_is_said_and_the_window_goes_on(
    qtbot: QtBot, root: Path, store: QtCore.QSettings, tmp_path: Path
) -> None:
    window = open_window(qtbot, root, store)
    path = tmp_path / "holiday.json"
    path.write_text('{"photos": 3}')
    chat_import.start(window, path)
    bar = window.message_bar
    qtbot.waitUntil(lambda: bool(bar.messages))
    assert "not a ChatGPT or Claude export" in bar.messages[-1][1]
    assert isinstance(window.session.vault, vault.Vault) and window.isVisible()


def test_the_summary_counts_memory_notes_and_what_was_left_out() -> None:
    report = chat_exports.Report("chatgpt", conversations=3, messages=9, added=7, days=2,
                                 memories=2, opted_out=1)  # fmt: skip
    assert chat_import.summary(report, Path("export.zip")) == (
        "7 messages of 3 ChatGPT conversations from export.zip into 2 daily notes (2 already"
        " there). 2 are notes ChatGPT saved to its memory of you. 1 conversation kept out of"
        " ChatGPT's memory was left out."
    )
