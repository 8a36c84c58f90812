"""The heartbeat in the desktop app (issue 14): the dashboard says the last run, the next
one and who runs the schedule; the app runs the schedule itself, off the GUI thread,
when nothing else does, and gives the lease back when it closes."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import config, vault
from vault_app.heartbeat import lease, runlog, schedule
from vault_app.ui import app, heartbeat_runner, session
from vault_app.ui.pages import dashboard


def now() -> dt.datetime:
    """The time when a test runs (not when the module was collected, minutes earlier in a
    full run: the dashboard's "next due" is worked out from the clock)."""
    return dt.datetime.now(dt.UTC)


def lately(at: dt.datetime) -> dt.timedelta:
    """Five minutes, or less when that would be yesterday (the tests run just after
    midnight): a run "today" whatever the hour."""
    local = at.astimezone()
    since_midnight = local - local.replace(hour=0, minute=0, second=0, microsecond=0)
    return min(dt.timedelta(minutes=5), since_midnight / 2)


@pytest.fixture
def live_session(qtbot: QtBot, root: Path) -> Iterator[session.Session]:
    s = session.Session(vault.Vault(root, actor="gui"))
    yield s
    s.close()


def log_run(root: Path, **fields: object) -> None:
    values: dict[str, object] = {
        "job": "heartbeat",
        "started": now() - lately(now()),
        "duration_s": 0.3,
        "runner": "serve",
        "trigger": "schedule",
        "extractor": "rules",
    }
    values.update(fields)
    store = vault.Vault(root, actor="heartbeat").storage
    runlog.append(store, runlog.RunRecord.model_validate(values))


def board_text(qtbot: QtBot, s: session.Session) -> str:
    board = dashboard.DecayDashboard(s)
    qtbot.addWidget(board)
    board.show()
    qtbot.waitUntil(lambda: board.heartbeat_status is not None, timeout=10_000)
    return board.heartbeat.text()


# -- the dashboard -----------------------------------------------------------------------


def test_the_dashboard_says_the_last_heartbeat_the_next_and_that_nobody_runs_it(
    qtbot: QtBot, root: Path, live_session: session.Session
) -> None:
    text = board_text(qtbot, live_session)
    assert "The heartbeat has not run yet" in text and "Next due now" in text
    assert "nothing runs the schedule now" in text

    log_run(root, written=3, deduped=1)
    store = vault.Vault(root, actor="heartbeat").storage
    at = now()
    schedule.ScheduleState(at - dt.timedelta(days=1), at - lately(at)).save(store)
    text = board_text(qtbot, live_session)
    assert "Last heartbeat today" in text and "(serve)" in text
    assert "3 facts written, 1 duplicate skipped" in text
    due = (at - lately(at) + dt.timedelta(minutes=15)).astimezone()
    if due.date() == at.astimezone().date():  # not across midnight
        assert f"Next due today {due:%H:%M} (every 15 minutes)" in text


def test_the_dashboard_shows_a_failed_run_and_who_holds_the_lease(
    qtbot: QtBot, root: Path, live_session: session.Session
) -> None:
    log_run(root, failed=4, error="endpoint http://127.0.0.1:9/v1 unreachable")
    held = lease.Lease(root, "serve")
    assert held.acquire()
    try:
        text = board_text(qtbot, live_session)
    finally:
        held.release()
    assert "⚠" in text and "failed: endpoint http://127.0.0.1:9/v1 unreachable" in text
    assert f"run by serve (pid {os.getpid()}" in text


def test_the_dashboard_says_when_the_heartbeat_is_off(qtbot: QtBot, root: Path) -> None:
    target = vault.Vault(root, actor="gui")
    off = target.config.model_copy(update={"heartbeat": config.HeartbeatSettings(enabled=False)})
    off.save(target.storage)
    s = session.Session(vault.Vault(root, actor="gui"))
    try:
        text = board_text(qtbot, s)
    finally:
        s.close()
    assert "The heartbeat is off" in text and "Next due" not in text


def test_the_status_bar_message_of_a_tick() -> None:
    def record(**fields: object) -> runlog.RunRecord:
        base = {"job": "heartbeat", "started": now(), "duration_s": 1, "runner": "app"}
        return runlog.RunRecord.model_validate({"trigger": "schedule", **base, **fields})

    assert heartbeat_runner.message([record(written=0, deduped=3)]) is None  # nothing new
    assert heartbeat_runner.message([record(written=1)]) == (
        "The heartbeat wrote 1 new fact (Go › Activity)"
    )
    text = heartbeat_runner.message([record(error="boom"), record(job="synthesis", summaries=4)])
    assert text == (
        "The heartbeat failed: boom; the weekly synthesis rewrote 4 summaries (Go › Activity)"
    )


# -- the app runs the schedule -------------------------------------------------------------


def test_the_runner_ticks_off_the_gui_thread_and_releases_its_lease(
    qtbot: QtBot, root: Path
) -> None:
    runner = heartbeat_runner.HeartbeatRunner(root, every_ms=3_600_000)
    with qtbot.waitSignal(runner.ran, timeout=30_000) as ran:
        runner.start()  # the first tick at once
    records = ran.args[0]
    assert [r.job for r in records] == ["heartbeat"] and records[0].runner == "app"
    assert records[0].written > 0  # the demo's notes hold facts
    assert runner.holds_lease
    holder = lease.holder(root)
    assert holder is not None and holder["holder"] == "app" and holder["pid"] == os.getpid()
    assert runlog.read(root, limit=1)[0].runner == "app"

    # a second runner (another window) finds the lease taken: its ticks do nothing
    other = heartbeat_runner.HeartbeatRunner(root, every_ms=3_600_000)
    with qtbot.waitSignal(other.ticked, timeout=10_000):
        other.start()
    assert not other.holds_lease
    assert other.close()

    assert runner.close()
    assert not runner.holds_lease and lease.holder(root) is None
    assert not runner.tick()  # closed: no more ticks


def test_never_two_ticks_at_once(qtbot: QtBot, root: Path) -> None:
    runner = heartbeat_runner.HeartbeatRunner(root, every_ms=3_600_000)
    with runner.runner._busy:  # the runner's own guard: the tick waits on it, as behind a run
        assert runner.tick()
        assert runner.busy and not runner.tick()  # the timer firing again meanwhile
    qtbot.waitUntil(lambda: not runner.busy, timeout=30_000)
    assert runner.close()


def test_the_window_runs_the_heartbeat_and_gives_the_lease_back_on_close(
    qtbot: QtBot, root: Path, store: QtCore.QSettings
) -> None:
    window = app.MainWindow(
        vault.Vault(root, actor="gui"), store, search=False, live=False, heartbeat=True
    )
    qtbot.addWidget(window)
    window.show()
    assert window.heartbeat is not None
    with qtbot.waitSignal(window.heartbeat.ran, timeout=30_000):
        window.start()  # after the first scan
    qtbot.waitUntil(lambda: "The heartbeat wrote" in window.status.currentMessage(), timeout=5_000)
    window.show_dashboard()
    qtbot.waitUntil(lambda: "run by this app" in window.dashboard.heartbeat.text(), timeout=10_000)
    window.close()
    window.session.wait()
    assert lease.holder(root) is None


def test_the_app_runner_compares_by_cosine_once_the_window_has_a_model(root: Path) -> None:
    """`embed_of` gives dedup the window's loaded sentence model (through the vault's
    embedding cache), and nothing before search has one."""
    import types

    import numpy as np

    from vault_app.search import semantic, vector_rows

    if not semantic.semantic_available()[0]:
        pytest.skip("semantic search is not installed")
    v = vault.Vault(root, actor="gui")
    waiting = types.SimpleNamespace(engine=None, vault=v)
    assert heartbeat_runner.embed_of(waiting) is None  # type: ignore[arg-type]
    rows = vector_rows.VectorRows(semantic.load_encoder(None))
    ready = types.SimpleNamespace(engine=types.SimpleNamespace(semantic=rows), vault=v)
    embed = heartbeat_runner.embed_of(ready)  # type: ignore[arg-type]
    assert embed is not None
    vectors = embed(["Maria prefers oat milk.", "Maria likes oat milk best."])
    assert vectors.shape == (2, rows.dimension)
    assert float(vectors[0] @ vectors[1]) > 0.8  # the same fact, said twice
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    made = heartbeat_runner.for_session(ready, None)  # type: ignore[arg-type]
    assert made.runner.embed is not None and made.runner.embed() is not None
    made.close()


def test_run_now_runs_a_heartbeat_not_yet_due_only_where_the_app_runs_it(
    qtbot: QtBot, root: Path
) -> None:
    """After File › Import conversations: a heartbeat at once, whatever the schedule."""
    runner = heartbeat_runner.HeartbeatRunner(root, every_ms=3_600_000)
    assert not runner.run_now("import")  # no lease yet: the schedule is someone else's
    with qtbot.waitSignal(runner.ran, timeout=30_000):
        runner.start()  # the first tick takes the lease and runs the due heartbeat
    qtbot.waitUntil(lambda: not runner.busy)  # its thread ends after it says what ran
    with qtbot.waitSignal(runner.ticked, timeout=30_000):
        assert runner.tick()  # not due again: nothing runs
    assert runlog.read(root, limit=1)[0].trigger == "schedule"
    qtbot.waitUntil(lambda: not runner.busy)
    with qtbot.waitSignal(runner.ran, timeout=30_000) as ran:
        assert runner.run_now("import")
    assert (ran.args[0][0].job, ran.args[0][0].trigger) == ("heartbeat", "import")
    assert runner.close()
    assert not runner.run_now("import")
