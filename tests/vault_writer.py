"""A separate process that changes a vault the way agents and editors do (see
tests/watch/_writer.py for its commands): shared by the watcher and live-sync tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

WRITER = Path(__file__).parent / "watch" / "_writer.py"


class Writer:
    """A separate process that changes the vault (see _writer.py)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(WRITER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def do(self, op: str, **fields: Any) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        fields = {k: str(v) if isinstance(v, Path) else v for k, v in fields.items()}
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        assert answer == "ok", f"the writer failed on {op}: {answer!r}"

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(20)
        if self.process.stdout is not None:
            self.process.stdout.close()
