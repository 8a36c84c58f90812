"""Several processes write one entity at once: no fact is lost, no access is lost."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vault_app.core import vault as vault_module

WORKER = Path(__file__).with_name("_vault_worker.py")
ENTITY = "areas/people/jane"
ADDERS, ADDS = 4, 500
MARKERS, MARKS = 2, 250
KNOWN = 20  # facts there before the workers start, which the markers mark

pytestmark = pytest.mark.slow


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_adders_and_markers_at_once(tmp_path: Path) -> None:
    root = tmp_path / "v"
    vault_module.Vault.create(root)
    config = root / ".vault" / "config.toml"
    # Six processes queue for one lock: give a slow CI machine room before LockTimeoutError.
    config.write_text(config.read_text().replace("lock_timeout_s = 30", "lock_timeout_s = 600"))
    v = vault_module.Vault(root)
    v.create_entity(ENTITY)
    known = [v.add_fact(ENTITY, f"Known fact {n}", "context") for n in range(KNOWN)]
    v.mark_accessed([f.id for f in known[::2]])  # some start at 1, the others at 0
    initial = {f.id: v.entity(ENTITY).fact(f.id).access_count for f in known}
    ids = list(initial)

    workers = [start("add", str(root), ENTITY, str(ADDS), f"a{n}") for n in range(ADDERS)]
    workers += [start("mark", str(root), str(MARKS), str(seed), *ids) for seed in range(MARKERS)]
    try:
        for worker in workers:  # every one has opened the vault and waits
            assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
        for worker in workers:  # then all are released at once
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        outputs = [worker.communicate(timeout=900)[0] for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert [w.returncode for w in workers] == [0] * len(workers)

    added = [line for out in outputs[:ADDERS] for line in out.split()]
    marks: collections.Counter[str] = collections.Counter()
    for out in outputs[ADDERS:]:
        marks.update(json.loads(out))
    assert len(added) == ADDERS * ADDS and len(set(added)) == len(added)
    assert marks.total() == MARKERS * MARKS

    path = root / "global/life" / ENTITY / "items.json"
    entries = json.loads(path.read_bytes())  # the file parses
    on_disk = [e["id"] for e in entries]
    assert len(on_disk) == KNOWN + ADDERS * ADDS
    assert len(set(on_disk)) == len(on_disk)
    assert set(on_disk) == set(ids) | set(added)
    assert on_disk[:KNOWN] == ids
    # Each worker's facts are in the order it wrote them.
    for n in range(ADDERS):
        mine = [e["fact"] for e in entries if e["fact"].startswith(f"Worker a{n} ")]
        assert mine == [f"Worker a{n} wrote fact number {i}" for i in range(ADDS)]
    counts = {e["id"]: e["accessCount"] for e in entries}
    assert {fid: counts[fid] for fid in ids} == {fid: initial[fid] + marks[fid] for fid in ids}
    assert all(counts[fid] == 0 for fid in added)

    view = v.entity(ENTITY)
    assert view.error is None and view.invalid == []
    assert len(view.facts) == KNOWN + ADDERS * ADDS

    # One whole audit line per write, none torn by the concurrent appends.
    lines = (root / ".vault" / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    actions = collections.Counter(json.loads(line)["action"] for line in lines)
    assert actions["fact.add"] == KNOWN + ADDERS * ADDS
    assert actions["fact.access"] == 1 + MARKERS * MARKS
    # The backup ring stayed bounded, and every kept version is an earlier state of the file.
    backups = v.storage.backups(path)
    assert len(backups) == v.config.storage.backups_per_file
    for backup in backups:
        old = [e["id"] for e in json.loads(backup.read_bytes())]
        assert old == on_disk[: len(old)]
    assert not list(path.parent.glob("*.vault-tmp"))
