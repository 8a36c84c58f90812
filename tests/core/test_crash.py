"""A writer killed with SIGKILL at random moments loses no acknowledged write and leaves
every file whole: the old version or the new one, never a mix."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vault_app.core import storage
from vault_app.core import vault as vault_module

WORKER = Path(__file__).with_name("_vault_worker.py")
ENTITIES = ["areas/people/jane", "projects/kitchen", "resources/recipes", "areas/health"]
WRITES = 2000
FACT_LINE = re.compile(r"fact-[0-9a-f]{32}\n")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL"),
]


def test_sigkill_at_random_moments(tmp_path: Path) -> None:
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    root = tmp_path / "v"
    v = vault_module.Vault.create(root)
    for entity in ENTITIES:
        v.create_entity(entity)

    acknowledged: list[str] = []  # ids the writer printed: their write had returned
    killed: set[int] = set()
    while len(acknowledged) < WRITES:
        remaining = WRITES - len(acknowledged)
        # Kill after a random number of acknowledged writes, a random instant later, so
        # the signal lands in every phase of a write (temp file, fsync, backup, replace,
        # audit); the last run is left to finish.
        kill_after = rng.randint(20, 200) if remaining > 250 else None
        writer = subprocess.Popen(
            [sys.executable, str(WORKER), "write", str(root), str(remaining), *ENTITIES],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        try:
            for seen, line in enumerate(writer.stdout, start=1):
                assert FACT_LINE.fullmatch(line), line  # one write(2) per line: never torn
                acknowledged.append(line.strip())
                if seen == kill_after:
                    time.sleep(rng.uniform(0, 0.03))  # not a synchronisation: a random instant
                    writer.send_signal(signal.SIGKILL)
                    killed.add(writer.pid)
                    # What it printed before dying was acknowledged too.
                    rest = list(writer.stdout)
                    assert all(FACT_LINE.fullmatch(line) for line in rest), rest
                    acknowledged += [line.strip() for line in rest]
                    break
        except BaseException:
            writer.kill()
            writer.wait()
            raise
        finally:
            writer.stdout.close()
        code = writer.wait(timeout=600)
        assert code == (-signal.SIGKILL if kill_after is not None else 0), f"seed {seed}"
    assert len(acknowledged) == WRITES
    assert len(killed) >= 8, f"seed {seed}: only {len(killed)} kills"

    # Every fact file parses; every acknowledged id is there, once.
    on_disk: list[str] = []
    for entity in ENTITIES:
        path = root / "global/life" / entity / "items.json"
        entries = json.loads(path.read_bytes())
        on_disk += [e["id"] for e in entries]
    assert len(on_disk) == len(set(on_disk)), f"seed {seed}: duplicate ids"
    assert set(acknowledged) <= set(on_disk), f"seed {seed}: acknowledged writes lost"
    # At most one write per kill landed without being acknowledged.
    assert len(on_disk) - len(acknowledged) <= len(killed), f"seed {seed}"
    view_counts = {e: len(v.entity(e).facts) for e in ENTITIES}
    assert sum(view_counts.values()) == len(on_disk)
    assert all(v.entity(e).invalid == [] for e in ENTITIES)

    # Temp files a kill left behind are only beside their target, never in its place.
    temps = sorted(root.rglob(f"*{storage.TEMP_SUFFIX}"))
    for temp in temps:
        match = re.fullmatch(r"\.items\.json\.(\d+)\.[0-9a-f]{8}\.vault-tmp", temp.name)
        assert match, temp
        assert int(match[1]) in killed, f"{temp} was left by a writer that was not killed"
        assert (temp.parent / "items.json").is_file()
    assert len(temps) <= len(killed)

    # The backups hold whole earlier versions: each a prefix of the file as it is now.
    for entity in ENTITIES:
        path = root / "global/life" / entity / "items.json"
        current = [e["id"] for e in json.loads(path.read_bytes())]
        backups = v.storage.backups(path)
        assert 0 < len(backups) <= v.config.storage.backups_per_file
        for backup in backups:
            old = [e["id"] for e in json.loads(backup.read_bytes())]
            assert old == current[: len(old)], f"seed {seed}: {backup}"
    for backup in (root / ".vault" / "backups").rglob("*"):
        if backup.is_file() and backup.parent.name == "items.json":
            json.loads(backup.read_bytes())

    # The audit log has whole lines only.
    for line in (root / ".vault" / "audit.jsonl").read_text(encoding="utf-8").splitlines():
        json.loads(line)
