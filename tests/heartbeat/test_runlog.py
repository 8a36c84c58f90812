"""The heartbeat's run log: lines appended whole, read newest first, junk skipped."""

from __future__ import annotations

import datetime as dt
import multiprocessing
from pathlib import Path

from vault_app.core.vault import Vault
from vault_app.heartbeat import runlog

T0 = dt.datetime(2026, 11, 22, 9, 0, tzinfo=dt.UTC)


def _record(n: int, job: runlog.Job = "heartbeat") -> runlog.RunRecord:
    return runlog.RunRecord(
        job=job,
        started=T0 + dt.timedelta(minutes=n),
        duration_s=0.5,
        runner="cli",
        trigger="once",
        extractor="rules",
        entries=n,
        written=n,
    )


def test_records_read_back_newest_first_and_by_job(tmp_path: Path) -> None:
    store = Vault.create(tmp_path / "v").storage
    for n in range(3):
        runlog.append(store, _record(n))
    runlog.append(store, _record(9, "synthesis"))
    runs = runlog.read(store.paths.root)
    assert [r.entries for r in runs] == [9, 2, 1, 0]
    assert [r.entries for r in runlog.read(store.paths.root, job="heartbeat", limit=2)] == [2, 1]
    assert runs[1] == _record(2)


def test_a_missing_log_is_no_runs_and_junk_lines_are_skipped(tmp_path: Path) -> None:
    store = Vault.create(tmp_path / "v").storage
    assert runlog.read(store.paths.root) == []
    runlog.append(store, _record(1))
    with runlog.log_path(store.paths.root).open("ab") as handle:
        handle.write(b'{"job": "heartbeat", "started": "no"}\nnot json\n{"torn": ')
    assert [r.entries for r in runlog.read(store.paths.root)] == [1]


def _append_many(root: str, start: int) -> None:
    store = Vault(root).storage
    for n in range(start, start + 50):
        runlog.append(store, _record(n))


def test_concurrent_runners_lose_no_line(tmp_path: Path) -> None:
    root = tmp_path / "v"
    Vault.create(root)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(root), k * 100)) for k in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    runs = runlog.read(root, limit=1000)
    assert sorted(r.entries for r in runs) == [k * 100 + n for k in range(3) for n in range(50)]
