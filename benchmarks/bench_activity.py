"""The Activity page on a long history: the cost of a read, and the GUI thread's stalls.

Builds a vault whose audit log holds `--lines` writes (default 200,000, ~50 MB: lines as
`Storage.audit` writes them, by agents, people and the heartbeat — 1 in 500 by the
heartbeat, so filtering on it makes the page look far back) and whose run log holds
`--runs` heartbeat runs, then prints:

* the time of one `activity_page.read` (both logs, filtered by `core.activity.query`) on
  a worker's behalf, with no filter, with the heartbeat filter (rare lines: the whole
  tail window looked at), with an entity filter and with a range of two days a week ago;
* the time of `core.activity.agent_changes` over the last day and the last week (the
  "changed since you last looked" marks) and of `last_write` (the conflict bar's "who");
* the longest stall of the event loop (how late a 10 ms QTimer fires) while the real
  page, shown, re-reads both logs 20 times in a row (the reads run on a worker).

    python benchmarks/bench_activity.py [--lines 200000] [--runs 10000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import orjson
from PySide6 import QtCore, QtWidgets

from vault_app.core import activity, layout, storage, vault
from vault_app.heartbeat import runlog
from vault_app.ui import session
from vault_app.ui.models import activity as model
from vault_app.ui.pages import activity_page

ACTORS = ("agent:finance", "agent:maintenance", "gui", "cli", "jane")


def build(root: Path, lines: int, runs: int) -> None:
    vault.Vault.create(root)
    now = dt.datetime.now(dt.UTC)
    with (root / layout.STATE_DIR / storage.AUDIT_NAME).open("ab") as log:
        for n in range(lines):
            when = now - dt.timedelta(seconds=(lines - n) * 3)
            actor = "heartbeat" if n % 500 == 0 else ACTORS[n % len(ACTORS)]
            line = {
                "time": when.isoformat(timespec="milliseconds"),
                "actor": actor,
                "action": "fact.add" if n % 3 else "daily.append",
                "target": f"global/life/areas/people/person-{n % 997}/items.json",
                "before": "0" * 64,
                "after": "1" * 64,
                "entity": f"areas/people/person-{n % 997}",
                "factId": f"fact-{n:032x}",
            }
            log.write(orjson.dumps(line) + b"\n")
    store = vault.Vault(root, actor="heartbeat").storage
    for n in range(runs):
        started = now - dt.timedelta(minutes=15 * (runs - n))
        record = runlog.RunRecord(
            job="heartbeat", started=started, duration_s=0.2, runner="serve",
            trigger="schedule", extractor="rules", entries=5, written=2, deduped=1,
        )  # fmt: skip
        runlog.append(store, record)


def time_read(root: Path, chosen: model.Filter, repeat: int = 5) -> tuple[float, int]:
    best, found = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        snapshot = activity_page.read(root, chosen, dt.datetime.now(dt.UTC))
        best = min(best, time.perf_counter() - start)
        found = len(snapshot.writes)
    return best, found


def stall(root: Path, reads: int = 20) -> tuple[float, float]:
    """The longest event-loop stall while the page re-reads `reads` times, and over as
    long a time with nothing to do (the machine's own noise)."""
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    s = session.Session(vault.Vault(root, actor="gui"))
    page = activity_page.ActivityPage(activity_page.VaultActivity(s))  # what the window shows
    page.resize(1000, 700)
    page.show()
    worst, last = 0.0, time.perf_counter()

    def probe() -> None:
        nonlocal worst, last
        now = time.perf_counter()
        worst = max(worst, now - last - 0.010)
        last = now

    timer = QtCore.QTimer()
    timer.setInterval(10)
    timer.timeout.connect(probe)
    done = 0

    def next_read() -> None:
        nonlocal done
        done += 1
        if done < reads:
            page.refresh()

    page.refreshed.connect(next_read)
    while page.snapshot is None:  # the read of showing the page
        app.processEvents()
    timer.start()
    last = started = time.perf_counter()
    page.refresh()
    while done < reads:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    busy, worst = worst, 0.0
    idle_until = 2 * time.perf_counter() - started
    while time.perf_counter() < idle_until:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    timer.stop()
    s.close()
    return busy, worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=10_000)
    args = parser.parse_args()
    # as the app's process does (`ui.app.tune_process`): workers hand the interpreter over
    # every 1 ms
    sys.setswitchinterval(0.001)
    week_ago = (dt.datetime.now() - dt.timedelta(days=7)).date()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v"
        start = time.perf_counter()
        build(root, args.lines, args.runs)
        size = (root / layout.STATE_DIR / storage.AUDIT_NAME).stat().st_size
        print(f"audit log: {args.lines:,} lines, {size / 1e6:.0f} MB; run log: {args.runs:,} runs"
              f" (built in {time.perf_counter() - start:.1f} s)")  # fmt: skip
        for label, chosen in (
            ("no filter (all changes, 30 days)", model.Filter(span="30d")),
            ("heartbeat only (1 line in 500)", model.Filter(actor="kind:heartbeat", span="all")),
            ("entity 'person-42'", model.Filter(entity="person-42", span="all")),
            ("one agent", model.Filter(actor="agent:finance", span="all")),
            (
                "two days a week ago",
                model.Filter(span="range", first=week_ago, last=week_ago + dt.timedelta(days=1)),
            ),
        ):
            seconds, found = time_read(root, chosen)
            print(f"read, {label}: {seconds * 1000:.0f} ms ({found} writes)")
        now = dt.datetime.now(dt.UTC)
        for label, since in (("the last day", now - dt.timedelta(days=1)),
                             ("the last week", now - dt.timedelta(days=7))):  # fmt: skip
            start = time.perf_counter()
            changes = activity.agent_changes(root, since, agent_ids=("finance", "maintenance"))
            took = time.perf_counter() - start
            print(f"agent_changes over {label}: {took * 1000:.0f} ms ({len(changes)} entities)")
        start = time.perf_counter()
        activity.last_write(root, root / "global/life/areas/people/person-1/items.json")
        print(f"last_write of one file: {(time.perf_counter() - start) * 1000:.0f} ms")
        busy, idle = stall(root)
        print(
            f"longest event-loop stall over 20 page refreshes: {busy * 1000:.0f} ms "
            f"(idle, as long: {idle * 1000:.0f} ms)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
