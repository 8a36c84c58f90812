"""A heartbeat SIGKILLed while it writes, then run again: every fact a clean run writes,
exactly once, every file whole. And two runs started at once write each fact once."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson

from tests.cli_process import REPO, run_cli
from tests.heartbeat import backlog
from vault_app.heartbeat import entries, runlog, state

ENTRIES = backlog.ENTRIES
KILL_AFTER = 150  # facts on disk: past the first cursor save (run.SAVE_EVERY entries)


def kill_after(root: Path, facts: int) -> None:
    """Start `heartbeat --once` on `root` and SIGKILL it once Maria holds `facts` facts
    the heartbeat wrote (a condition, not a delay: the run's own pace decides)."""
    items = root / "global/life/areas/people/maria/items.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "vault_app", "--vault", str(root), "heartbeat", "--once"],
        env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 240
    while backlog.heartbeat_count(items) < facts:
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no facts appeared"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(30)


def test_a_run_killed_mid_write_then_rerun_writes_each_fact_once(tmp_path: Path) -> None:
    backlog.backlog_vault(tmp_path / "base")
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    shutil.copytree(tmp_path / "base", clean)
    shutil.copytree(tmp_path / "base", killed)

    assert run_cli(clean, "heartbeat", "--once").returncode == 0
    expected = backlog.written(clean)
    assert len(expected) > KILL_AFTER * 2 and set(expected.values()) == {1}

    kill_after(killed, KILL_AFTER)
    at_kill = backlog.written(killed)  # whole JSON: the writes are atomic
    assert KILL_AFTER <= sum(at_kill.values()) < sum(expected.values())
    assert runlog.read(killed) == []  # the killed run logged nothing
    cursor = state.read(killed, entries.CURSOR_NAME)  # whole, if it was saved at all
    assert cursor is None or cursor["version"] == entries.VERSION

    rerun = run_cli(killed, "heartbeat", "--once", "--json")
    assert rerun.returncode == 0, rerun.stderr
    [record] = orjson.loads(rerun.stdout)["runs"]
    assert backlog.written(killed) == expected  # each fact once, none missing
    assert record["written"] == sum(expected.values()) - sum(at_kill.values())
    last = orjson.loads(run_cli(killed, "heartbeat", "--once", "--json").stdout)["runs"][0]
    assert last["entries"] == 0 and backlog.written(killed) == expected


def test_a_run_killed_while_values_change_then_rerun_revives_no_old_value(
    tmp_path: Path,
) -> None:
    """Each entry changes one value (a supersede a fact): killed mid-run and run again, the
    vault holds exactly what a clean run wrote — each version once, the last one active."""
    backlog.changing_vault(tmp_path / "base", 240)
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    shutil.copytree(tmp_path / "base", clean)
    shutil.copytree(tmp_path / "base", killed)
    assert run_cli(clean, "heartbeat", "--once").returncode == 0
    expected = backlog.written(clean)
    assert len(backlog.active(clean)) == 1 and sum(expected.values()) > 150
    kill_after(killed, 120)  # past the first cursor save
    assert run_cli(killed, "heartbeat", "--once").returncode == 0
    assert backlog.written(killed) == expected  # each version once, none twice
    assert backlog.active(killed) == backlog.active(clean)  # the last value, not an old one


def test_two_runs_started_at_once_write_each_fact_once(tmp_path: Path) -> None:
    backlog.backlog_vault(tmp_path / "v")
    clean = tmp_path / "clean"
    shutil.copytree(tmp_path / "v", clean)
    assert run_cli(clean, "heartbeat", "--once").returncode == 0
    command = [sys.executable, "-m", "vault_app", "--vault", str(tmp_path / "v")]
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    runs = [
        subprocess.Popen(
            [*command, "heartbeat", "--once", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    answers = [orjson.loads(p.communicate(timeout=240)[0]) for p in runs]
    assert all(p.returncode == 0 for p in runs)
    worked = [a for a in answers if a["ran"]]
    assert worked  # one ran; the other either found the lease taken, or ran after it
    for answer in answers:
        if not answer["ran"]:
            assert answer["holder"]["holder"] == "cli"
    assert sum(a["runs"][0]["entries"] for a in worked) == ENTRIES
    assert backlog.written(tmp_path / "v") == backlog.written(clean)
