"""`.vault/heartbeat.jsonl`: one line per run of the heartbeat or the weekly synthesis.

A line says what ran (`job`), who ran it (`runner`: serve, app, cli) and why (`trigger`:
the schedule, a catch-up after downtime, or `--once`), when and for how long, and what
came of it: entries read, candidates extracted, facts written, duplicates skipped,
facts superseded, candidates deferred (an entity not yet mentioned three times),
entities created, candidates flagged by the injection scan, candidates held for review
or rerouted by the access policy (the heartbeat acts with its agent's rights), entries
failed (retried
next run), summaries rewritten (synthesis), and the error that stopped a run, if one
did. Lines are appended under the audit log's lock discipline (O_APPEND, one lock), so
runners of several processes never interleave; `read` gives the newest first and skips
a torn or foreign line rather than failing.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vault_app.core import activity, layout, safe_fs, storage

LOG_NAME = "heartbeat.jsonl"

Job = Literal["heartbeat", "synthesis"]


class RunRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")

    job: Job
    started: dt.datetime
    duration_s: float = Field(ge=0)
    runner: str  # "serve", "app", "cli"
    trigger: str  # "schedule", "catch-up", "once"
    extractor: str | None = None  # "rules", "llm:<model>"; heartbeat only
    entries: int = 0
    extracted: int = 0
    written: int = 0
    deduped: int = 0
    superseded: int = 0
    deferred: int = 0
    created: int = 0
    flagged: int = 0
    held: int = 0  # for a person's review: a global entity its agent may not write
    rerouted: int = 0  # to its agent's own workspace: another agent's it may not write
    failed: int = 0
    summaries: int = 0  # synthesis only: summaries rewritten
    error: str | None = None


def log_path(root: Path) -> Path:
    return Path(root) / layout.STATE_DIR / LOG_NAME


def append(store: storage.Storage, record: RunRecord) -> None:
    """Add one line to the log (made if missing), whole even with concurrent runners."""
    path = log_path(store.paths.root)
    data = orjson.dumps(record.model_dump(mode="json", exclude_none=True)) + b"\n"
    safe_fs.make_dirs(store.paths.root, path.parent)
    with store.lock(path):
        safe_fs.append(path, data)


def read(root: Path, *, limit: int = 200, job: Job | None = None) -> list[RunRecord]:
    """The newest `limit` runs (of `job` when given), newest first."""
    found: list[RunRecord] = []
    for line in activity.lines_backwards(log_path(root), Path(root)):
        try:
            record = RunRecord.model_validate(orjson.loads(line))
        except (orjson.JSONDecodeError, ValidationError):
            continue  # a torn last line, or someone else's
        if job is None or record.job == job:
            found.append(record)
            if len(found) >= limit:
                break
    return found
