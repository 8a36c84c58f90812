"""A neighbour's folder in the window: each format opened as it is, edited through its
adapter in its owner's format; a PARA vault still opens in the main window."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import errors, neighbours, notes, vault
from vault_app.core.neighbours import files
from vault_app.ui import app
from vault_app.ui.pages import neighbour_daily, neighbour_pages, neighbour_window
from vault_app.ui.widgets import memory_blocks, tiers_editor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"
WAIT = 10_000
PERSONA = "-1001234567890/1"


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name))


@pytest.fixture
def opened(
    qtbot: QtBot, store: QtCore.QSettings, tmp_path: Path
) -> Iterator[object]:  # a function: name -> the started window, without live sync
    windows: list[QtWidgets.QMainWindow] = []

    def open_(name: str) -> neighbour_window.NeighbourWindow:
        window = app.window_for(copy(name, tmp_path), store, search=False, live=False)
        assert isinstance(window, neighbour_window.NeighbourWindow)
        qtbot.addWidget(window)
        window.show()
        window.start()
        qtbot.waitUntil(lambda: window.current_page() is not None, timeout=WAIT)
        windows.append(window)
        return window

    yield open_
    for window in windows:
        window.session.wait()


def loaded(qtbot: QtBot, page: QtWidgets.QWidget) -> QtWidgets.QWidget:
    if isinstance(page, memory_blocks.NotesBlock | memory_blocks.ProfileTable):
        qtbot.waitUntil(lambda: page.state is not None, timeout=WAIT)
    elif isinstance(page, tiers_editor.TiersEditor):
        qtbot.waitUntil(lambda: page.path is not None, timeout=WAIT)
    elif isinstance(page, neighbour_daily.NeighbourDaily):
        qtbot.waitUntil(lambda: page.note is not None, timeout=WAIT)
    elif isinstance(page, neighbour_pages.TextPage):
        qtbot.waitUntil(lambda: page.text is not None, timeout=WAIT)
    return page


@pytest.mark.parametrize(
    ("name", "title", "keys"),
    [
        ("hermes", "Hermes home", [("notes", "hermes"), ("user", "hermes")]),
        (
            "picoclaw",
            "PicoClaw workspace",
            [("profile", "picoclaw"), ("memory", "picoclaw"), ("daily", "picoclaw")],
        ),
        (
            "microclaw",
            "MicroClaw runtime",
            [("principles", None)]
            + [
                (kind, agent)
                for agent in ("-1001234567890/1", "-1001234567890/2", "42/7")
                for kind in ("tiers", "daily")
            ],
        ),
    ],
)
def test_each_format_opens_in_a_window_of_its_own(
    qtbot: QtBot, opened: object, name: str, title: str, keys: list[tuple[str, str | None]]
) -> None:
    window = opened(name)  # type: ignore[operator]
    assert window.windowTitle() == f"{title} — {name} — vault-app"
    assert window.banner_label.text().startswith(f"<b>{title}</b>")
    # then the review queue and the activity vault-app keeps about the folder
    assert window.page_keys() == [*keys, neighbour_window.REVIEW, neighbour_window.ACTIVITY]
    for key in keys:  # every page opens, and reads its file through the adapter
        loaded(qtbot, window.open_page(*key))
    # what only a PARA vault has is not offered at all
    names = {a.objectName() for a in window.findChildren(QtCore.QObject) if a.objectName()}
    assert not names & {"dashboard", "synthesize", "add_fact", "search"}
    assert {"review", "activity"} <= names
    assert window.findChild(QtWidgets.QDockWidget) is None  # not given search: no dock
    for top in window.menuBar().actions():  # distinct mnemonics, as in the main window
        letters = [
            a.text().replace("&&", "").split("&", 1)[1][0].lower()
            for a in top.menu().actions()
            if "&" in a.text().replace("&&", "")
        ]
        assert len(letters) == len(set(letters)), top.text()


def test_hermes_notes_edited_and_saved_in_hermes_format(qtbot: QtBot, opened: object) -> None:
    window = opened("hermes")  # type: ignore[operator]
    block = loaded(qtbot, window.open_page("user", "hermes"))
    assert isinstance(block, memory_blocks.NotesBlock)
    path = window.folder.root / "memories" / "USER.md"
    assert block.meter.format().endswith("/1,375 chars")
    block.editor.setPlainText(block.editor.toPlainText() + "\n§\nPrefers tea to coffee.")
    with qtbot.waitSignal(block.saved, timeout=WAIT):
        window.save_page()  # Edit › Save, on the page shown
    assert path.read_text() == (
        "Name: Jane Doe; timezone Europe/Paris.\n§\n"
        "Communication: short answers first, details on request.\n§\nPrefers tea to coffee."
    )  # Hermes' joined form: "\n§\n" between entries, no final newline
    assert (path.parent / "USER.md.lock").exists()  # written under Hermes' lock
    audit = files.state_dir(window.folder.root) / "audit.jsonl"
    assert json.loads(audit.read_text().splitlines()[-1])["action"] == "notes.write"
    assert not (window.folder.root / ".vault").exists()  # nothing of ours in their folder


def test_an_over_budget_save_is_refused_and_changes_nothing(qtbot: QtBot, opened: object) -> None:
    window = opened("hermes")  # type: ignore[operator]
    block = loaded(qtbot, window.open_page("user", "hermes"))
    assert isinstance(block, memory_blocks.NotesBlock)
    path = window.folder.root / "memories" / "USER.md"
    before = path.read_bytes()
    block.editor.setPlainText(block.editor.toPlainText() + "\n§\n" + "x" * 1400)
    assert block.meter.property("over") is True
    with qtbot.waitSignal(block.refused, timeout=WAIT) as refused:
        block.save()
    assert "over budget" in refused.args[0] and "/1,375" in refused.args[0]
    assert path.read_bytes() == before
    block.revert()  # closing asks about unsaved edits otherwise


def test_picoclaw_profile_saved_as_go_marshals_it(qtbot: QtBot, opened: object) -> None:
    window = opened("picoclaw")  # type: ignore[operator]
    table = loaded(qtbot, window.open_page("profile", "picoclaw"))
    assert isinstance(table, memory_blocks.ProfileTable)
    assert ("city", "Lyon") in table.rows()
    row = [k for k, _ in table.rows()].index("city")
    table.table.item(row, 1).setText("Porto & Lyon")
    with qtbot.waitSignal(table.saved, timeout=WAIT):
        table.save()
    text = (window.folder.root / "memory" / "profile.json").read_text()
    assert '"city": "Porto \\u0026 Lyon"' in text and not text.endswith("\n")
    assert json.loads(text)["city"] == "Porto & Lyon"


def test_picoclaw_daily_notes_read_and_appended(qtbot: QtBot, opened: object) -> None:
    window = opened("picoclaw")  # type: ignore[operator]
    view = loaded(qtbot, window.open_page("daily", "picoclaw"))
    assert isinstance(view, neighbour_daily.NeighbourDaily)
    assert view.note is not None and view.note.date.isoformat() == "2026-11-23"  # the latest
    texts = [c.text_label.text() for c in view.cards()]
    assert texts == [
        "Talked about the trip to Porto.\n# not a heading of ours: a line the agent wrote\n"
        "Booked the train."
    ]  # the owner's text, as written
    view.append_box.setPlainText("Packed for Porto.")
    with qtbot.waitSignal(view.appended, timeout=WAIT) as appended:
        view.append_button.click()
    note = appended.args[0]
    assert note.text == f"# {note.date.isoformat()}\n\nPacked for Porto.\n"  # AppendToday's
    qtbot.waitUntil(lambda: view.note is not None and view.note.date == note.date, timeout=WAIT)
    qtbot.waitUntil(lambda: [c.text_label.text() for c in view.cards()] == ["Packed for Porto."])


def test_microclaw_tier_saved_with_the_rest_of_the_file_kept(qtbot: QtBot, opened: object) -> None:
    window = opened("microclaw")  # type: ignore[operator]
    editor = loaded(qtbot, window.open_page("tiers", PERSONA))
    assert isinstance(editor, tiers_editor.TiersEditor)
    path = window.folder.root / "groups" / "-1001234567890" / "1" / "MEMORY.md"
    before = path.read_text()
    assert editor.where.text() == "groups/-1001234567890/1/MEMORY.md"
    editor.editors[3].setPlainText("Rested; longer answers are fine again.")
    with qtbot.waitSignal(editor.saved, timeout=WAIT):
        editor.save()
    after = path.read_text()
    assert "Rested; longer answers are fine again." in after
    assert "Tired this week" not in after
    head = before.split("## Tier 3")[0]
    assert after.startswith(head)  # tiers 1 and 2 and the title, byte for byte
    principles = loaded(qtbot, window.open_page("principles"))
    assert isinstance(principles, neighbour_pages.TextPage)
    assert "Never share the user's address." in principles.view.toPlainText()


def test_a_para_vault_still_opens_in_the_main_window(
    qtbot: QtBot, store: QtCore.QSettings, tmp_path: Path
) -> None:
    made = vault.Vault.create(tmp_path / "v")
    window = app.window_for(made.root, store, search=False, live=False)
    qtbot.addWidget(window)
    assert isinstance(window, app.MainWindow)
    assert window.windowTitle().startswith("v") and "dashboard" in window.commands
    with pytest.raises(errors.VaultError, match="more than one kind"):
        app.window_for(copy("ambiguous", tmp_path), store, live=False)
    window.session.close()


def test_file_open_switches_between_a_vault_and_a_neighbour(
    qtbot: QtBot, store: QtCore.QSettings, tmp_path: Path
) -> None:
    made = vault.Vault.create(tmp_path / "v", actor="gui")
    main = app.MainWindow(made, store, search=False, live=False)
    qtbot.addWidget(main)
    main.show()
    fresh = main.switch_vault(copy("hermes", tmp_path))
    assert isinstance(fresh, neighbour_window.NeighbourWindow)
    qtbot.addWidget(fresh)
    qtbot.waitUntil(lambda: fresh.current_page() is not None, timeout=WAIT)
    assert fresh.windowTitle().startswith("Hermes home — ")
    assert fresh.switch_vault(tmp_path / "nothing-here") is None  # not a folder: said so
    assert fresh.message_bar.isVisible()
    back = fresh.switch_vault(made.root)
    assert isinstance(back, app.MainWindow)
    qtbot.addWidget(back)
    for window in (main, fresh, back):
        window.session.wait()
    if back.live is not None:
        back.live.stop()


def test_notes_block_over_budget_uses_the_folder_limits(qtbot: QtBot, opened: object) -> None:
    window = opened("hermes")  # type: ignore[operator]
    block = loaded(qtbot, window.open_page("notes", "hermes"))
    assert isinstance(block, memory_blocks.NotesBlock)
    assert block.limit() == 2200
    used = notes.usage(block.entries())
    assert block.meter.format().startswith(f"{round(used * 100 / 2200)}% — {used:,}/2,200")


@pytest.mark.parametrize(
    ("name", "query", "page", "day"),
    [
        ("hermes", "fedora", ("notes", "hermes"), None),
        ("hermes", "timezone", ("user", "hermes"), None),
        ("picoclaw", "porto train", ("daily", "picoclaw"), "2026-11-23"),
        ("microclaw", "vegetarian", ("tiers", PERSONA), None),
    ],
)
def test_the_search_dock_finds_an_entry_and_opens_its_page(
    qtbot: QtBot,
    store: QtCore.QSettings,
    tmp_path: Path,
    name: str,
    query: str,
    page: tuple[str, str],
    day: str | None,
) -> None:
    folder = neighbours.open_folder(copy(name, tmp_path), actor="gui")
    assert folder is not None
    window = neighbour_window.NeighbourWindow(folder, store, live=False, search=True)
    qtbot.addWidget(window)
    window.show()
    window.start()
    search = window.search
    assert search is not None and window.search_dock is not None
    assert "search" in window.commands
    window.commands["search"].trigger()
    assert window.search_dock.isVisible()
    qtbot.waitUntil(lambda: search.engine is not None, timeout=30_000)
    search.query_edit.setText(query)
    with qtbot.waitSignal(search.searched, timeout=WAIT):
        search.run_query()
    assert search.results.count() >= 1
    first = search.results.item(0)
    assert first.text().startswith(f"[{page[0] if page[0] != 'user' else 'notes'}]")
    search.results.itemActivated.emit(first)
    assert window.current_key() == page
    shown = loaded(qtbot, window.current_page())
    if day is not None:
        assert isinstance(shown, neighbour_daily.NeighbourDaily)
        qtbot.waitUntil(lambda: shown.note is not None and str(shown.note.date) == day)
    window.session.wait()
