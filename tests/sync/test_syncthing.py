"""One vault on two devices kept in sync by two real Syncthing daemons (issue 31).

The daemons run on this machine, each with its own home and folder, talking only over
127.0.0.1 with every discovery and outside contact off (`syncthing_pair`). vault-app runs
as it would: on device B the window (live sync merges conflict copies as they arrive), on
device A `vault-app watch` as a process; each folder's `.stignore` comes from
`vault-app sync syncthing setup`.

Variants thought of: four agents (two per device, each its own process) writing facts,
accesses and daily entries into the same entities at once, over 500 writes (both copies
end identical and hold every fact, every access counted exactly, every entry; the window
on B shows them); a device paused while both sides write, then back
(merged); a summary changed on both sides while apart, in different places (merged) and
on the same line (left beside it, said in a batch, listed by doctor, on both devices);
and the daemons' own settings, connections and listeners (loopback only, nothing else on).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from pytestqt.qtbot import QtBot
from syncthing_pair import OFF, Pair, copy_vault

from vault_app.core import doctor, layout, sync_files, sync_setup
from vault_app.core import vault as vault_module

pytestmark = pytest.mark.skipif(
    shutil.which("syncthing") is None,
    reason="Syncthing is not installed: `scripts/dev test` installs it (apt-get install "
    "syncthing) so that CI never skips these tests",
)

ENTITIES = ("areas/people/jane", "projects/roof", "areas/home/boiler")
AGENTS = {"a": ("alpha", "beta"), "b": ("gamma", "delta")}
WRITER = Path(__file__).with_name("_agent_writer.py")


@pytest.fixture
def devices(tmp_path: Path) -> Iterator[Pair]:
    """The vault on device A, copied to device B, both set up and synced by two daemons."""
    a_folder, b_folder = tmp_path / "a", tmp_path / "b"
    v = vault_module.Vault.create(a_folder, actor="cli")
    config = v.paths.state_dir / "config.toml"
    writers = json.dumps([name for names in AGENTS.values() for name in names])
    config.write_text(
        config.read_text("utf-8").replace("global_writers = []", f"global_writers = {writers}"),
        "utf-8",
    )
    v = vault_module.Vault(a_folder, actor="cli")
    for names in AGENTS.values():
        for name in names:
            v.create_agent(name)
    for address in ENTITIES:
        v.create_entity(address, f"{address.rsplit('/', 1)[-1].title()}.")
    copy_vault(a_folder, b_folder)
    for folder in (a_folder, b_folder):  # as a person would, on each device
        done = _cli("sync", "syncthing", "setup", "--vault", str(folder))
        assert done.returncode == 0, done.stderr
    pair = Pair(tmp_path, a_folder, b_folder)
    pair.start()
    try:
        pair.settle(120)
        yield pair
    finally:
        pair.stop()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vault_app", *args], capture_output=True, text=True
    )


def _watch(folder: Path) -> subprocess.Popen[str]:
    """`vault-app watch` on a device: its watcher merges conflict copies as they arrive."""
    return subprocess.Popen(
        [sys.executable, "-m", "vault_app", "watch", "--json", "--vault", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _stop(process: subprocess.Popen[str]) -> str:
    process.terminate()
    out, _ = process.communicate(timeout=30)
    return out


def _writers(pair: Pair, count: int) -> list[subprocess.Popen[str]]:
    started = []
    for side, names in AGENTS.items():
        folder = pair.a.folder if side == "a" else pair.b.folder
        for seed, name in enumerate(names):
            started.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        str(WRITER),
                        str(folder),
                        name,
                        str(count),
                        str(seed + (10 if side == "b" else 0)),
                        *ENTITIES,
                    ],
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
    return started


def _all_facts(folder: Path) -> dict[str, dict[str, object]]:
    v = vault_module.Vault(folder)
    found: dict[str, dict[str, object]] = {}
    for address in ENTITIES:
        path = v.paths.entity_dir(layout.EntityRef.parse(address)) / "items.json"
        for entry in json.loads(path.read_text("utf-8")):
            found[entry["id"]] = entry
    return found


def _daily_text(folder: Path) -> str:
    return "".join(p.read_text("utf-8") for p in sorted(folder.glob("agents/*/daily/*.md")))


def _open_window(qtbot: QtBot, folder: Path, tmp_path: Path) -> QtWidgets.QMainWindow:
    from vault_app.ui import app

    store = QtCore.QSettings(str(tmp_path / "b.ini"), QtCore.QSettings.Format.IniFormat)
    window = app.MainWindow(vault_module.Vault(folder, actor="gui"), store, search=False)
    qtbot.addWidget(window)
    window.show()
    window.start()
    qtbot.waitUntil(lambda: window.live_label.text() == "live", timeout=120_000)
    return window


def test_four_agents_on_two_devices_lose_nothing(
    qtbot: QtBot, devices: Pair, tmp_path: Path
) -> None:
    window = _open_window(qtbot, devices.b.folder, tmp_path)  # device B: the window
    watcher_a = _watch(devices.a.folder)  # device A: a watcher process
    try:
        writers = _writers(devices, 130)  # 4 x 130 = 520 writes
        qtbot.waitUntil(lambda: all(w.poll() is not None for w in writers), timeout=300_000)
        reports = [json.loads(w.communicate()[0]) for w in writers]
        assert all(w.returncode == 0 for w in writers)
        devices.settle(300, pump=QtWidgets.QApplication.processEvents)
    finally:
        _stop(watcher_a)
    facts_a, facts_b = _all_facts(devices.a.folder), _all_facts(devices.b.folder)
    assert facts_a == facts_b
    written = [f for r in reports for f in r["facts"]]
    assert len(written) + sum(len(r["entries"]) for r in reports) > 300
    texts = {entry["fact"] for entry in facts_b.values()}
    assert {f["text"] for f in written} <= texts  # every fact any agent wrote
    by_id = {f["id"]: f["text"] for f in written}
    for report in reports:  # every access counted, exactly (only its writer reads a fact)
        for fid, count in report["counts"].items():
            assert fid in facts_b, by_id.get(fid)
            assert facts_b[fid]["accessCount"] == count, by_id.get(fid)
    notes_a, notes_b = _daily_text(devices.a.folder), _daily_text(devices.b.folder)
    assert notes_a == notes_b
    assert all(entry in notes_b for r in reports for entry in r["entries"])
    merged = [
        p
        for f in (devices.a.folder, devices.b.folder)
        for p in (f / ".vault" / "sync" / "merged").rglob("*")
        if p.is_file()
    ]
    assert merged, "concurrent writes made no conflict: the test proved nothing"
    page = window.entity_view  # type: ignore[attr-defined]
    with qtbot.waitSignal(page.loaded, timeout=60_000):
        window.open_entity(ENTITIES[0])  # type: ignore[attr-defined]
    shown = {f.fact for f in page.model.facts()}
    on_disk = {e["fact"] for e in facts_b.values()}
    assert shown and shown <= on_disk


def test_a_device_offline_then_back(devices: Pair) -> None:
    watchers = [_watch(devices.a.folder), _watch(devices.b.folder)]
    try:
        devices.a.post(f"/rest/system/pause?device={devices.b.device_id}")
        va = vault_module.Vault(devices.a.folder, actor="agent:alpha")
        vb = vault_module.Vault(devices.b.folder, actor="agent:gamma")
        for n in range(5):
            va.add_fact(ENTITIES[0], f"while apart, on A ({n})", "context", agent_id="alpha")
            vb.add_fact(ENTITIES[0], f"while apart, on B ({n})", "context", agent_id="gamma")
        va.append_daily("A while apart", agent="alpha")
        devices.a.post(f"/rest/system/resume?device={devices.b.device_id}")
        devices.settle(180)
    finally:
        for process in watchers:
            _stop(process)
    for folder in (devices.a.folder, devices.b.folder):
        texts = {e["fact"] for e in _all_facts(folder).values()}
        assert {f"while apart, on {side} ({n})" for side in "AB" for n in range(5)} <= texts
        assert "A while apart" in _daily_text(folder)


def test_a_document_conflict_is_merged_or_shown(devices: Pair) -> None:
    watchers = [_watch(devices.a.folder), _watch(devices.b.folder)]
    ref = layout.EntityRef.parse(ENTITIES[0])
    try:
        devices.a.post(f"/rest/system/pause?device={devices.b.device_id}")
        for folder, words in ((devices.a.folder, "our plumber"), (devices.b.folder, "since 2019")):
            v = vault_module.Vault(folder)
            doc = v.summary(ref)
            text = (doc.text or "").replace("Jane.", f"Jane, {words}.")
            v.write_summary(ref, text + f"\nA note from {words}.\n", expected=doc.digest)
        devices.a.post(f"/rest/system/resume?device={devices.b.device_id}")
        devices.settle(180, copies_left=True)
    finally:
        outputs = [_stop(process) for process in watchers]
    copies = sync_files.conflicts(devices.a.folder)
    assert copies and sync_files.conflicts(devices.b.folder)  # shown on both devices
    said = [json.loads(line) for out in outputs for line in out.splitlines() if line.strip()]
    assert any(batch.get("unmerged") for batch in said)
    report = doctor.run(vault_module.Vault(devices.a.folder))
    assert any("conflict copy" in p.message for p in report.problems)
    summary = devices.a.folder / "global/life" / ENTITIES[0] / "summary.md"
    _base, digest, ours, theirs = sync_files.plan(vault_module.Vault(devices.a.folder), copies[0])
    assert "A note from" in ours and "A note from" in theirs and digest is not None
    assert summary.exists()


def test_the_daemons_talk_only_over_loopback(devices: Pair) -> None:
    for daemon in (devices.a, devices.b):
        config = daemon.get("/rest/config")
        assert isinstance(config, dict)
        options = config["options"]
        assert options["globalAnnounceEnabled"] is False
        assert options["localAnnounceEnabled"] is False
        assert options["relaysEnabled"] is False and options["natEnabled"] is False
        assert options["urAccepted"] == -1 and options["crashReportingEnabled"] is False
        assert options["autoUpgradeIntervalH"] == 0
        assert options["listenAddresses"] == [f"tcp://127.0.0.1:{daemon.sync_port}"]
        assert config["gui"]["address"] == f"127.0.0.1:{daemon.gui_port}"
        links = daemon.get("/rest/system/connections")
        assert isinstance(links, dict)
        for link in links["connections"].values():
            if link.get("connected"):
                assert link["address"].startswith("127.0.0.1:")
    assert set(OFF) >= {"relaysEnabled", "natEnabled", "urAccepted"}
    ignore = (devices.a.folder / ".stignore").read_text("utf-8")
    assert all(line in ignore.splitlines() for line in sync_setup.syncthing_lines())
    assert os.path.exists(devices.b.folder / ".stignore")
