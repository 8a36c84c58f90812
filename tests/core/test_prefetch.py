"""The prefetch process: which files it reads ahead, in what order, and how it is run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vault_app.core import demo, prefetch, vault


@pytest.fixture
def demo_vault(tmp_path: Path) -> vault.Vault:
    return demo.create_demo(tmp_path / "v")


def read_ahead_by(monkeypatch: pytest.MonkeyPatch, roots: list[Path], threads: int) -> list[Path]:
    seen: list[Path] = []
    monkeypatch.setattr(prefetch, "_read_ahead", lambda path: seen.append(Path(path)))
    prefetch.prefetch([str(r) for r in roots], threads)
    return seen


def test_it_reads_ahead_every_fact_file_in_the_scans_order(
    demo_vault: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hidden folders and symlinked ones are not entered (nor, then, is the outside).
    outside = demo_vault.root.parent / "outside"
    (outside / "areas-x").mkdir(parents=True)
    (outside / "areas-x" / "items.json").write_text("[]")
    life = demo_vault.paths.life_dir
    (life / "areas" / "linked").symlink_to(outside / "areas-x", target_is_directory=True)
    (life / "areas" / ".hidden").mkdir()
    (life / "areas" / ".hidden" / "items.json").write_text("[]")
    scanned = [e.facts_file for e in demo_vault.scan().entities if e.facts_file is not None]
    roots = demo_vault.paths.para_folders()

    assert read_ahead_by(monkeypatch, roots, threads=1) == scanned  # one thread: in order
    assert sorted(read_ahead_by(monkeypatch, roots, threads=4)) == sorted(scanned)
    assert read_ahead_by(monkeypatch, [], threads=2) == []
    assert read_ahead_by(monkeypatch, [demo_vault.root / "missing"], threads=2) == []


def test_the_script_runs_alone_and_reads_ahead(demo_vault: vault.Vault, tmp_path: Path) -> None:
    roots = [str(r) for r in demo_vault.paths.para_folders()]
    done = subprocess.run(
        [sys.executable, "-I", "-S", prefetch.__file__, *roots, str(tmp_path / "missing")],
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    # It opens each fact file and changes nothing.
    files = sorted(p for p in demo_vault.root.rglob("*") if p.is_file())
    before = [(p, p.read_bytes()) for p in files]
    subprocess.run([sys.executable, "-I", "-S", prefetch.__file__, *roots], timeout=60)
    after = sorted(p for p in demo_vault.root.rglob("*") if p.is_file())
    assert [(p, p.read_bytes()) for p in after] == before


def test_running_starts_and_reaps_the_process(demo_vault: vault.Vault) -> None:
    with prefetch.Running(demo_vault.paths.para_folders()) as running:
        assert running.process is not None
        pid = running.process.pid
        time.sleep(0.05)
    assert running.process.returncode is not None  # ended (done, or stopped) and reaped
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with prefetch.Running([]) as idle:
        assert idle.process is None


def test_a_frozen_app_scans_without_it(
    demo_vault: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packaged app has no interpreter to run the script with: the scan reads alone."""
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    with prefetch.Running(demo_vault.paths.para_folders()) as running:
        assert running.process is None
    assert demo_vault.scan(read_ahead=True).entities == demo_vault.scan().entities
