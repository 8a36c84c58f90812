"""How an agent outside vault-app writes a vault, for the writer processes of the watcher,
live-sync and soak tests (`watch/_writer.py`, `ui/_soak_writer.py`): a fact as the raw
JSON an agent appends, saved through a temporary file and `os.replace`, as editors and
agents do. Deliberately not through `vault_app`: these are the other writers."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def replace(path: Path, data: bytes) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.vault-tmp")
    with open(temp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)


def raw_fact(fact_id: str, text: str, category: str, source: str) -> dict[str, Any]:
    """A new active fact as an agent writes it (spec §3, camelCase), stamped now."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    return {
        "id": fact_id,
        "fact": text,
        "category": category,
        "timestamp": stamp,
        "source": source,
        "status": "active",
        "supersededBy": None,
        "relatedEntities": [],
        "lastAccessed": stamp,
        "accessCount": 0,
    }
