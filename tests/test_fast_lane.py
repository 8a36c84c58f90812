"""The fast lane's measured list (`tests/slow_tests.txt`, made by scripts/slow_tests.py)
names tests that exist: a renamed or removed test would otherwise drop out of it
silently and run in the fast lane again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # it collects the whole suite in a process of its own


def test_the_slow_list_names_collected_tests() -> None:
    listed = {
        line.strip()
        for line in (ROOT / "tests" / "slow_tests.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert len(listed) > 100  # the list was read
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    ids = {line.strip() for line in collected.stdout.splitlines() if "::" in line}
    assert ids, collected.stdout[-2000:] + collected.stderr[-2000:]
    assert not listed - ids, sorted(listed - ids)[:20]
