"""Names waiting, in the window: the dashboard counts the names the heartbeat met but made
no entity of yet; its dialog shows each with the facts waiting in the notes, and Keep now
writes the request the CLI's `heartbeat --keep` writes, on which the window runs a
heartbeat that makes the entity. Real widgets, the real heartbeat."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import layout, vault
from vault_app.heartbeat import mentions, runs
from vault_app.ui import app, session
from vault_app.ui.dialogs import waiting_names
from vault_app.ui.pages import dashboard

OKAFOR = layout.EntityRef.parse("areas/people/mr-okafor")


@pytest.fixture
def met(tmp_path: Path) -> Path:
    """A vault whose heartbeat met Mr. Okafor twice and Priya Nair once, and made neither."""
    target = vault.Vault.create(tmp_path / "v")
    day = dt.datetime(2026, 11, 20, 9, 0).astimezone()
    target.append_daily("Mr. Okafor fixed the side gate.", at=day)
    target.append_daily("Mr. Okafor works weekends only.", at=day + dt.timedelta(hours=1))
    target.append_daily("Priya Nair prefers email to calls.", at=day + dt.timedelta(hours=2))
    runs.run_heartbeat(target.root, runner="cli", trigger="once")
    assert len(mentions.waiting_names(target.root)) == 2
    return target.root


@pytest.fixture
def live(qtbot: QtBot, met: Path) -> Iterator[session.Session]:
    s = session.Session(vault.Vault(met, actor="gui"))
    yield s
    s.close()


def opened(qtbot: QtBot, live: session.Session) -> waiting_names.WaitingNamesDialog:
    """The dialog on screen, once it has read the names."""
    dialog = waiting_names.WaitingNamesDialog(live)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.waiting is not None, timeout=10_000)
    return dialog


def rows(dialog: waiting_names.WaitingNamesDialog) -> list[list[str]]:
    """Each name's row, then its facts' (name or fact, where)."""
    out = []
    for i in range(dialog.tree.topLevelItemCount()):
        item = dialog.tree.topLevelItem(i)
        out.append([item.text(0), item.text(1), item.text(2)])
        out += [[item.child(j).text(0), item.child(j).text(1)] for j in range(item.childCount())]
    return out


def test_the_dashboard_counts_them_and_the_dialog_shows_their_facts(
    qtbot: QtBot, live: session.Session
) -> None:
    board = dashboard.DecayDashboard(live)
    qtbot.addWidget(board)
    board.show()
    qtbot.waitUntil(lambda: board.heartbeat_status is not None, timeout=10_000)
    assert board.waiting_button.text() == "Names &waiting (2)…"
    board.waiting_button.click()
    dialog = board.waiting_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.waiting is not None, timeout=10_000)
    assert dialog.status.text() == "2 names wait for their entities."
    assert rows(dialog) == [
        ["Mr. Okafor", "areas/people/mr-okafor", "2 of 3"],
        ["Mr. Okafor fixed the side gate.", "notes of 2026-11-20"],
        ["Mr. Okafor works weekends only.", "notes of 2026-11-20"],
        ["Priya Nair", "areas/people/priya-nair", "1 of 3"],
        ["Priya Nair prefers email to calls.", "notes of 2026-11-20"],
    ]
    assert dialog.selected_name() == "Mr. Okafor"  # the first is chosen: Alt+K keeps it
    assert dialog.keep_button.isEnabled()


def test_keep_now_writes_the_request_and_says_so(
    qtbot: QtBot, met: Path, live: session.Session
) -> None:
    dialog = opened(qtbot, live)
    dialog.tree.setCurrentItem(dialog.tree.topLevelItem(0).child(1))  # a fact: its name
    assert dialog.keep_button.isEnabled() and dialog.selected_name() == "Mr. Okafor"
    with qtbot.waitSignal(dialog.kept, timeout=10_000) as kept:
        dialog.keep_button.click()
    assert kept.args == ["Mr. Okafor"]
    assert dialog.status.text() == (
        "Keeping Mr. Okafor: the heartbeat makes areas/people/mr-okafor."
    )
    notes = list((met / "global" / "daily").glob("*.md"))
    assert any("Keep track of Mr. Okafor." in n.read_text() for n in notes)
    runs.run_heartbeat(met, runner="cli", trigger="once")
    dialog.reload()
    qtbot.waitUntil(lambda: [w.name for w in dialog.waiting or []] == ["Priya Nair"])
    assert dialog.status.text() == "1 name waits for its entity."


def test_the_window_runs_a_heartbeat_that_makes_the_kept_name(
    qtbot: QtBot, met: Path, store: QtCore.QSettings
) -> None:
    window = app.MainWindow(
        vault.Vault(met, actor="gui"), store, search=False, live=False, heartbeat=True
    )
    qtbot.addWidget(window)
    window.show()
    assert window.heartbeat is not None
    with qtbot.waitSignal(window.heartbeat.ticked, timeout=30_000):
        window.start()  # the first tick takes the lease
    window.show_dashboard()
    window.dashboard.show_waiting()
    dialog = window.dashboard.waiting_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.waiting is not None, timeout=10_000)
    assert dialog.selected_name() == "Mr. Okafor"
    with qtbot.waitSignal(window.heartbeat.ran, timeout=30_000):
        dialog.keep_button.click()
    assert "Keeping Mr. Okafor" in window.status.currentMessage() or (
        "The heartbeat wrote" in window.status.currentMessage()
    )
    made = vault.Vault(met, actor="gui").entity(OKAFOR)
    assert [f.fact for f in made.facts] == [
        "The user asked to keep track of Mr. Okafor.",
        "Mr. Okafor fixed the side gate.",
        "Mr. Okafor works weekends only.",
    ]
    qtbot.waitUntil(lambda: [w.name for w in dialog.waiting or []] == ["Priya Nair"])
    window.close()
    window.session.wait()


def test_a_name_made_meanwhile_is_said_and_the_list_follows(
    qtbot: QtBot, met: Path, live: session.Session
) -> None:
    dialog = opened(qtbot, live)
    mentions.ask_to_keep(vault.Vault(met, actor="cli"), "Mr. Okafor")  # elsewhere, first
    runs.run_heartbeat(met, runner="cli", trigger="once")
    dialog.keep_button.click()  # the list shown still has it
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Not done: no name waits"))
    assert dialog.keep_button.isEnabled()  # another can be chosen and kept
    dialog.reload()
    qtbot.waitUntil(lambda: [w.name for w in dialog.waiting or []] == ["Priya Nair"])
