"""The command line as a real process: `python -m vault_app --vault ROOT [--now T] ARGS`,
importing this checkout, with the model hub offline (tests of every face share it)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_cli(
    root: Path,
    *argv: str,
    now: str | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run `vault-app --vault root ARGV` to its end (or `timeout`: a hang fails the test)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", **(env or {})}
    command = [sys.executable, "-m", "vault_app", "--vault", str(root)]
    if now is not None:
        command += ["--now", now]
    return subprocess.run(
        [*command, *argv],
        capture_output=True,
        text=True,
        env=environment,
        input=stdin,
        timeout=timeout,
        check=False,
    )


_HOLD = """
import sys, time
from pathlib import Path
from vault_app.heartbeat import runner as runners
runner = runners.Runner(Path(sys.argv[1]), runner="serve")
print("held" if runner.lease.acquire() else "busy", flush=True)
time.sleep(600)
"""


@contextlib.contextmanager
def serve_holding(root: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the vault's heartbeat lease, as `serve` would, until the
    block ends (it is killed then)."""
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(root)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert process.stdout is not None
    try:
        assert process.stdout.readline().strip() == "held"
        yield process
    finally:
        process.kill()
        process.wait(30)
        process.stdout.close()
