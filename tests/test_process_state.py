"""A library call leaves the process as it found it (issue 12): the garbage collector
(enabled, nothing frozen), the switch interval and the warnings filters. Only an explicit
opt-in — `process_tuning.tune_process()` by the process's owner, or a
`process_tuning.bulk_load()` block — pauses the collector and freezes what a load made.

Each check runs in a fresh interpreter: what another test froze or tuned must not hide
(or fake) a change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from vault_app.core import vault

_STATE = """
import gc, json, sys, warnings
def state():
    return {
        "gc_enabled": gc.isenabled(),
        "frozen": gc.get_freeze_count(),
        "switch": sys.getswitchinterval(),
        "filters": repr(warnings.filters),
    }
"""


def run_child(body: str, root: Path) -> dict[str, Any]:
    """Run `body` (with `root`, `state()` and `report(name, before, after)` defined) in a
    fresh interpreter; its reports, by name."""
    script = _STATE + textwrap.dedent(
        f"""
        from pathlib import Path
        root = Path({str(root)!r})
        reports = {{}}
        def report(name, before, after):
            reports[name] = {{"before": before, "after": after}}
        """
    )
    script += textwrap.dedent(body) + "\nprint(json.dumps(reports))\n"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "v", actor="test")
    v.create_agent("ops")
    for i in range(30):
        v.add_fact(f"projects/p{i}", f"Fact number {i} about the house.", "status", create=True)
    v.add_fact("agent:ops:projects/run", "The ops agent runs nightly.", "context", create=True)
    return v.root


def test_library_loads_leave_the_collector_alone(small_vault: Path) -> None:
    reports = run_child(
        """
        from vault_app.core import doctor, vault
        from vault_app.search import engine
        v = vault.Vault(root)
        for name, call in [
            ("scan", lambda: v.scan()),
            ("scan kept files", lambda: v.scan(keep_files=True)),
            ("list_entities", lambda: v.list_entities()),
            ("doctor", lambda: doctor.run(v, repair=False)),
            ("engine load", lambda: engine.open_engine(v, semantic=False)),
        ]:
            before = state()
            kept = call()
            report(name, before, state())
        """,
        small_vault,
    )
    assert set(reports) == {"scan", "scan kept files", "list_entities", "doctor", "engine load"}
    for name, seen in reports.items():
        assert seen["after"]["gc_enabled"] is True, name
        assert seen["after"]["frozen"] == seen["before"]["frozen"], name
        assert seen["after"] == seen["before"], name


def test_a_watcher_leaves_switch_interval_and_warnings_filters_alone(small_vault: Path) -> None:
    reports = run_child(
        """
        from vault_app.watch import watcher
        before = state()
        w = watcher.VaultWatcher(root, lambda batch: None, snapshot=False)
        w.start()
        assert w.wait_ready(60)
        during = state()
        w.stop()
        report("watcher", before, during)
        report("watcher stopped", before, state())
        """,
        small_vault,
    )
    for seen in reports.values():
        assert seen["after"]["switch"] == seen["before"]["switch"]
        assert seen["after"]["filters"] == seen["before"]["filters"]


def test_a_session_leaves_the_switch_interval_alone(small_vault: Path) -> None:
    pytest.importorskip("PySide6")
    reports = run_child(
        """
        import os
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6 import QtWidgets
        from vault_app.core import vault
        from vault_app.ui import session
        app = QtWidgets.QApplication([])
        before = state()
        s = session.Session(vault.Vault(root))
        report("session", before, state())
        s.close()
        """,
        small_vault,
    )
    assert reports["session"]["after"]["switch"] == reports["session"]["before"]["switch"]


def test_tune_process_opts_the_loads_in(small_vault: Path) -> None:
    reports = run_child(
        """
        import gc
        from vault_app.core import process_tuning, vault
        from vault_app.search import engine
        v = vault.Vault(root)
        seen = []
        gc.callbacks.append(lambda phase, info: seen.append(gc.isenabled()))
        process_tuning.tune_process()
        assert process_tuning.tuned()
        before = state()
        with process_tuning.paused():
            paused_inside = not gc.isenabled()
        scan = v.scan()
        report("scan", before, state())
        before = state()
        engine.open_engine(v, semantic=False)
        report("engine load", before, state())
        process_tuning.tune_process(False)
        before = state()
        v.scan()
        report("opted out again", before, state())
        report("paused inside", {}, {"paused": paused_inside})
        """,
        small_vault,
    )
    assert reports["paused inside"]["after"]["paused"] is True
    for name in ("scan", "engine load"):
        seen = reports[name]
        assert seen["after"]["gc_enabled"] is True, name  # given back after the load
        assert seen["after"]["frozen"] > seen["before"]["frozen"], name  # results frozen
    again = reports["opted out again"]
    assert again["after"]["frozen"] == again["before"]["frozen"]


def test_bulk_load_pauses_and_freezes_one_block(small_vault: Path) -> None:
    reports = run_child(
        """
        import gc
        from vault_app.core import process_tuning, vault
        v = vault.Vault(root)
        before = state()
        with process_tuning.bulk_load():
            inside = state()
            with process_tuning.bulk_load():  # nested (or on another thread): counted
                pass
            inside_after_nested = state()
            scan = v.scan()
        report("inside", before, inside)
        report("nested", before, inside_after_nested)
        report("after", before, state())
        assert not process_tuning.tuned()
        """,
        small_vault,
    )
    assert reports["inside"]["after"]["gc_enabled"] is False
    assert reports["nested"]["after"]["gc_enabled"] is False  # the inner end did not enable
    after = reports["after"]
    assert after["after"]["gc_enabled"] is True
    assert after["after"]["frozen"] > after["before"]["frozen"]


def test_bulk_load_keeps_a_disabled_collector_disabled(tmp_path: Path) -> None:
    reports = run_child(
        """
        import gc
        from vault_app.core import process_tuning
        gc.disable()
        before = state()
        with process_tuning.bulk_load():
            pass
        report("disabled", before, state())
        """,
        tmp_path,
    )
    assert reports["disabled"]["after"]["gc_enabled"] is False


def test_the_cli_tunes_only_a_process_it_owns(small_vault: Path) -> None:
    """`cli.main(argv)` called by another program leaves its process alone; run as the
    program (`python -m vault_app`, argv from the command line) it opts in."""
    reports = run_child(
        """
        import contextlib, io, sys
        from vault_app import cli
        before = state()
        with contextlib.redirect_stdout(io.StringIO()):
            assert cli.main(["--vault", str(root), "info"]) == 0
        report("called with argv", before, state())
        sys.argv = ["vault-app", "--vault", str(root), "info"]
        with contextlib.redirect_stdout(io.StringIO()):
            assert cli.main() == 0
        report("run as the program", before, state())
        """,
        small_vault,
    )
    called, program = reports["called with argv"], reports["run as the program"]
    assert called["after"] == called["before"]
    assert program["after"]["frozen"] > program["before"]["frozen"]  # the scan was frozen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_release_gives_free_heap_back_only_in_a_tuned_process(tmp_path: Path) -> None:
    """Holes left in the C heap by freed temporaries stay resident until `release()`,
    which trims them in a process that opted in, and does nothing in any other."""
    reports = run_child(
        """
        from vault_app.core import process_tuning
        def resident():
            with open("/proc/self/status") as lines:
                return next(int(l.split()[1]) for l in lines if l.startswith("VmRSS")) // 1024
        def holes():
            blocks = [bytearray(2000) for _ in range(100_000)]  # 200 MB of small blocks
            return blocks[::10]  # nine in ten freed: holes of 18 KB between live blocks
        kept = holes()
        before = resident()
        process_tuning.release()
        report("untuned", before, resident())
        process_tuning.tune_process()
        before = resident()
        process_tuning.release()
        report("tuned", before, resident())
        """,
        tmp_path,
    )
    untuned, tuned = reports["untuned"], reports["tuned"]
    assert untuned["before"] - untuned["after"] < 10  # MB: left alone
    assert tuned["before"] - tuned["after"] > 50  # most of the 180 MB of holes returned
