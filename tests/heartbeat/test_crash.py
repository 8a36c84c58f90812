"""A heartbeat SIGKILLed while it writes, then run again: every fact a clean run writes,
exactly once, every file whole. And two runs started at once write each fact once."""

from __future__ import annotations

import collections
import datetime as dt
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson

from tests.cli_process import REPO, run_cli
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import entries, runlog, state

MARIA = layout.EntityRef.parse("areas/people/maria")
ENTRIES = 400
KILL_AFTER = 150  # facts on disk: past the first cursor save (run.SAVE_EVERY entries)


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def backlog_vault(root: Path) -> Vault:
    """A vault whose daily notes hold ENTRIES new preferences of Maria, each distinct."""
    vault = Vault.create(root)
    vault.create_entity(MARIA)
    rng = random.Random(14)
    start = dt.datetime(2026, 11, 1, 8, 0).astimezone()
    for i in range(ENTRIES):
        text = f"Maria prefers {pseudo_word(rng)} with {pseudo_word(rng)}."
        vault.append_daily(text, at=start + dt.timedelta(minutes=7 * i))
    return vault


def written(root: Path) -> collections.Counter[tuple[str, str, str]]:
    """(entry ref, fact, status) of every fact the heartbeat wrote, counted."""
    raw = orjson.loads((root / "global/life/areas/people/maria/items.json").read_bytes())
    return collections.Counter(
        (f["metadata"]["heartbeat"]["entry"], f["fact"], f["status"])
        for f in raw
        if f.get("source") == "heartbeat"
    )


def heartbeat_count(path: Path) -> int:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    return data.count(b'"source":"heartbeat"') + data.count(b'"source": "heartbeat"')


def test_a_run_killed_mid_write_then_rerun_writes_each_fact_once(tmp_path: Path) -> None:
    backlog_vault(tmp_path / "base")
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    shutil.copytree(tmp_path / "base", clean)
    shutil.copytree(tmp_path / "base", killed)

    assert run_cli(clean, "heartbeat", "--once").returncode == 0
    expected = written(clean)
    assert len(expected) > KILL_AFTER * 2 and set(expected.values()) == {1}

    items = killed / "global/life/areas/people/maria/items.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "vault_app", "--vault", str(killed), "heartbeat", "--once"],
        env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 240
    while heartbeat_count(items) < KILL_AFTER:
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no facts appeared"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(30)
    at_kill = written(killed)  # whole JSON: the writes are atomic
    assert KILL_AFTER <= sum(at_kill.values()) < sum(expected.values())
    assert runlog.read(killed) == []  # the killed run logged nothing
    cursor = state.read(killed, entries.CURSOR_NAME)  # whole, if it was saved at all
    assert cursor is None or cursor["version"] == entries.VERSION

    rerun = run_cli(killed, "heartbeat", "--once", "--json")
    assert rerun.returncode == 0, rerun.stderr
    [record] = orjson.loads(rerun.stdout)["runs"]
    assert written(killed) == expected  # each fact once, none missing
    assert record["written"] == sum(expected.values()) - sum(at_kill.values())
    last = orjson.loads(run_cli(killed, "heartbeat", "--once", "--json").stdout)["runs"][0]
    assert last["entries"] == 0 and written(killed) == expected


def test_two_runs_started_at_once_write_each_fact_once(tmp_path: Path) -> None:
    backlog_vault(tmp_path / "v")
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
    assert written(tmp_path / "v") == written(clean)
