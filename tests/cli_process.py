"""The command line as a real process: `python -m vault_app --vault ROOT [--now T] ARGS`,
importing this checkout, with the model hub offline (tests of every face share it)."""

from __future__ import annotations

import os
import subprocess
import sys
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
