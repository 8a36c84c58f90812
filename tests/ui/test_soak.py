"""Soak: two writer processes make 5,000 changes in about a minute while the window is open.

The window (search on, no semantic model) watches a small vault: a few global entities,
two agents with workspace entities and daily notes. Two real processes
(`_soak_writer.py`) then change it the way agents do — facts appended through a temp file
and `os.replace`, daily entries appended in place or through the core library, a few new
entities, some facts superseded through `core.vault.Vault` — while the test keeps the
event loop running and measures how long the GUI thread was ever kept from it.

Once live sync has settled (no batch for a second, no worker busy), the app's state must
equal a fresh load of the vault: the session's scan (tier counts per entity), the sidebar
(every entity with its Active count), the search index (the same documents; new facts
found by BM25), the entity shown; and every fact and daily entry the writers report is on
disk exactly once. No error may have reached the message bar.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_windows import open_live_window
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import layout, vault
from vault_app.search import engine as search_engine
from vault_app.ui import app

pytestmark = pytest.mark.slow

WRITER = Path(__file__).with_name("_soak_writer.py")
CHANGES = 2_500  # per writer: 5,000 in all
SECONDS = 55.0  # the writers spread their changes over this
SHOWN = "areas/people/jane"  # the entity on screen while it changes
SETTLE_S = 1.0  # live sync has settled after this long without a batch or a busy worker
MAX_STALL_S = 2.0  # the longest the GUI thread may be kept from its event loop
OWNED: dict[str, dict[str, Any]] = {
    "a": {
        "entities": [SHOWN, "areas/companies/acme", "agent:ops:projects/backup"],
        "core_daily": [],
        "new": ["projects/soak-a-{n}", "agent:ops:resources/soak-a-{n}"],
    },
    "b": {
        "entities": ["projects/roof", "resources/recipes", "agent:coder:areas/servers"],
        "core_daily": ["coder"],
        "new": ["areas/soak-b-{n}", "agent:coder:projects/soak-b-{n}"],
    },
}
NEW_PER_WRITER = 6


@pytest.fixture
def home(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v", actor="gui")
    for address, fact in (
        (SHOWN, "Jane is the family plumber"),
        ("areas/companies/acme", "Acme supplies the office printers"),
        ("projects/roof", "The roof needs new tiles before winter"),
        ("resources/recipes", "The bread recipe needs 500 g of flour"),
        ("areas/people/tom", "Tom is the neighbour"),
    ):
        v.create_entity(address, f"{address.rsplit('/', 1)[-1].title()}.")
        v.add_fact(address, fact, "context")
    for agent, entities in (
        ("ops", ["projects/backup", "areas/network"]),
        ("coder", ["areas/servers", "projects/release"]),
    ):
        v.create_agent(agent)
        for path in entities:
            address = f"agent:{agent}:{path}"
            v.create_entity(address)
            v.add_fact(address, f"{path} belongs to {agent}", "status")
        v.append_daily(f"{agent} started the day", agent=agent)
    v.append_daily("The household started the day")
    return v


@pytest.fixture
def window(qtbot: QtBot, home: vault.Vault, tmp_path: Path) -> Iterator[app.MainWindow]:
    main = open_live_window(qtbot, home, tmp_path)
    main.open_entity(SHOWN)
    qtbot.waitUntil(lambda: bool(main.entity_view.model.facts()), timeout=30_000)
    yield main
    main.close()


class Writers:
    """The two writer processes: started together, then waited for."""

    def __init__(self, home: vault.Vault, folder: Path) -> None:
        today = dt.date.today()
        raw_daily = {
            "a": [home.paths.daily_file(today, "ops"), home.paths.daily_file(today, None)],
            "b": [],
        }
        self.processes: list[subprocess.Popen[str]] = []
        for seed, (name, owned) in enumerate(OWNED.items()):
            spec = {
                "root": str(home.root),
                "report": str(folder / f"writer-{name}.json"),
                "name": name,
                "seed": seed,
                "changes": CHANGES,
                "seconds": SECONDS,
                "entities": owned["entities"],
                "raw_daily": [str(p) for p in raw_daily[name]],
                "core_daily": owned["core_daily"],
                "new_entities": [
                    pattern.format(n=n)
                    for n in range(NEW_PER_WRITER // 2)
                    for pattern in owned["new"]
                ],
            }
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, str(WRITER), json.dumps(spec)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        self.folder = folder
        self.reports: list[dict[str, Any]] = []
        self.finished_at: float | None = None

    def go(self) -> None:
        for process in self.processes:  # each has opened the vault
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
        for process in self.processes:  # then both start at once
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()

    def done(self) -> bool:
        if self.finished_at is None and all(p.poll() is not None for p in self.processes):
            self.finished_at = time.monotonic()
        return self.finished_at is not None

    def collect(self) -> None:
        for process in self.processes:
            process.communicate(timeout=30)
            assert process.returncode == 0, f"a writer failed (exit {process.returncode})"
        for name in OWNED:
            self.reports.append(json.loads((self.folder / f"writer-{name}.json").read_bytes()))

    def kill(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()


class Watch:
    """What the window does meanwhile: batches applied, busy state, errors, GUI stalls."""

    def __init__(self, window: app.MainWindow) -> None:
        assert window.live is not None
        self.batches = 0
        self.last_batch = time.monotonic()
        self.busy = False
        self.errors: list[tuple[str, str]] = []
        self.statuses: list[tuple[str, str]] = []
        self.stall = 0.0
        self._tick = time.monotonic()
        window.live.applied.connect(self._applied)
        window.session.busy.connect(self._busy)
        window.session.error.connect(lambda title, text: self.errors.append((title, text)))
        window.session.liveStatus.connect(lambda s, text: self.statuses.append((s, text)))
        self.timer = QtCore.QTimer(window)
        self.timer.setInterval(20)
        self.timer.timeout.connect(self._on_tick)
        self.timer.start()

    def _applied(self, _batch: object) -> None:
        self.batches += 1
        self.last_batch = time.monotonic()

    def _busy(self, busy: bool) -> None:
        self.busy = busy

    def _on_tick(self) -> None:
        now = time.monotonic()
        self.stall = max(self.stall, now - self._tick)
        self._tick = now

    def settled(self, writers: Writers) -> bool:
        if not writers.done() or self.busy:
            return False
        assert writers.finished_at is not None
        quiet_since = max(self.last_batch, writers.finished_at)
        return time.monotonic() - quiet_since >= SETTLE_S


def counts(scan: vault.VaultScan) -> dict[str, tuple[int, int, int, int]]:
    return {e.address: (e.total, e.hot, e.warm, e.cold) for e in scan.entities}


def as_hit(doc: Any) -> tuple[str, str, str]:
    """What a search hit shows of a document, and where it comes from."""
    return (doc.text, doc.status, doc.source)


def facts_on_disk(home: vault.Vault) -> dict[str, list[dict[str, Any]]]:
    return {
        str(folder.ref): json.loads(folder.facts_file.read_bytes())
        for folder in home.paths.iter_all_entities()
        if folder.facts_file is not None
    }


def test_two_writers_make_5000_changes_and_the_app_ends_equal_to_a_fresh_load(
    qtbot: QtBot, window: app.MainWindow, home: vault.Vault, qtmodeltester: Any, tmp_path: Path
) -> None:
    started = time.monotonic()
    writers = Writers(home, tmp_path)
    try:
        writers.go()  # (blocks until both have started: not a stall of the app)
        watch = Watch(window)
        while not writers.done():
            qtbot.wait(100)  # the event loop runs all along, as in the app
        writers.collect()
    finally:
        writers.kill()
    qtbot.waitUntil(lambda: watch.settled(writers), timeout=60_000)
    session = window.session
    written = sum(len(r["facts"]) + len(r["daily"]) for r in writers.reports)
    assert written == 2 * CHANGES
    assert all(r["seconds"] < SECONDS + 30 for r in writers.reports), "the writers fell behind"
    assert watch.batches > 20  # live sync followed along, not one catch-up at the end

    # nothing lost, nothing doubled on disk
    disk = facts_on_disk(home)
    where = Counter(entry["id"] for entries in disk.values() for entry in entries)
    for report in writers.reports:
        for address, fact_id, text in report["facts"]:
            assert where[fact_id] == 1, fact_id
            assert any(e["id"] == fact_id and e["fact"] == text for e in disk[address])
        for old, new in report["superseded"]:
            entry = next(e for entries in disk.values() for e in entries if e["id"] == old)
            assert entry["supersededBy"] == new
        notes = {path: Path(path).read_text(encoding="utf-8") for path, _ in report["daily"]}
        for path, text in report["daily"]:
            assert notes[path].count(f"\n\n{text}\n") == 1, text

    # the session's scan is a fresh scan
    fresh = vault.Vault(home.root)
    scan = fresh.scan()
    assert session.scan is not None
    assert counts(session.scan) == counts(scan)
    assert sorted(session.scan.agents) == sorted(scan.agents)
    created = {a for r in writers.reports for a in r["created"]}
    assert len(created) == 2 * NEW_PER_WRITER and created <= set(counts(scan))

    # the sidebar shows every entity with its Active count
    model = window.sidebar_model
    keys = {str(layout.EntityRef.parse(e.address)) for e in scan.entities}
    assert set(model.addresses()) == keys
    for entity in scan.entities:
        index = model.index_for_address(entity.address)
        assert index.isValid(), entity.address
        assert int(index.siblingAtColumn(1).data()) == entity.active, entity.address
    qtmodeltester.check(model)

    # the entity on screen shows what is on disk
    shown = [f.id for f in window.entity_view.model.facts()]
    assert sorted(shown) == sorted(e["id"] for e in disk[SHOWN])

    # the search index holds what a fresh index of the vault holds
    engine = session.engine
    shutil.rmtree(home.paths.state_dir / "cache" / "search", ignore_errors=True)
    rebuilt, _ = search_engine.open_engine(fresh, semantic=False)
    mine = {key: as_hit(engine.document(key)) for key in list(engine.state.docs)}
    theirs = {key: as_hit(rebuilt.document(key)) for key in list(rebuilt.state.docs)}
    assert set(mine) == set(theirs)
    assert mine == theirs
    rng = random.Random(5)
    for _address, fact_id, text in rng.sample([f for r in writers.reports for f in r["facts"]], 8):
        marker = text.split(" marker ")[1].split()[0]
        hits = engine.search(marker, mode="bm25", limit=3).hits
        assert [h.key for h in hits][:1] == [f"fact:{fact_id}"], marker

    # no crash, no error, live sync still on, and the window stayed responsive
    assert watch.errors == []
    assert window.message_bar.messages == []
    assert window.live_label.text() == "live"
    assert all(state not in ("error", "missing") for state, _ in watch.statuses)
    assert watch.stall < MAX_STALL_S, f"the GUI thread was blocked for {watch.stall:.2f} s"
    print(
        f"\nsoak: {written} changes, {watch.batches} batches applied, longest GUI stall "
        f"{watch.stall * 1000:.0f} ms, {time.monotonic() - started:.1f} s"
    )
