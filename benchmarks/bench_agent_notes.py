"""An agent's § notes: what one add costs, alone and with a second process adding at once.

Every add is one storage transaction (the file's lock, a read, an atomic replace with
fsync, a backup kept, an audit line), so its cost is the disk's, not the text's. Prints
the median and 95th percentile of an add by one process, then the wall time of two
processes adding `--adds` notes each at once and whether every note landed.

    python benchmarks/bench_agent_notes.py [--adds 200]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vault_app.core import agent_memory, vault

WORKER = """
import sys, time
from vault_app.core import agent_memory, vault
v = vault.Vault(sys.argv[1], actor="agent:bench")
print("ready", flush=True)
sys.stdin.readline()
for n in range(int(sys.argv[2])):
    agent_memory.change_notes(v, "bench", "memory", "add", content=f"{sys.argv[3]} note {n}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adds", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v"
        v = vault.Vault.create(root)
        v.create_agent("bench")
        config = root / ".vault" / "config.toml"
        config.write_text(config.read_text() + "\n[agents.memory.bench]\nmemory_chars = 1000000\n")
        v = vault.Vault(root, actor="agent:bench")
        times = []
        for n in range(args.adds):
            started = time.perf_counter()
            agent_memory.change_notes(v, "bench", "memory", "add", content=f"solo note {n}")
            times.append(time.perf_counter() - started)
        times.sort()
        print(
            f"one process, {args.adds} adds: median {statistics.median(times) * 1000:.2f} ms, "
            f"p95 {times[int(len(times) * 0.95)] * 1000:.2f} ms"
        )
        workers = [
            subprocess.Popen(
                [sys.executable, "-c", WORKER, str(root), str(args.adds), tag],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for tag in ("a", "b")
        ]
        for worker in workers:
            assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
        started = time.perf_counter()
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        for worker in workers:
            worker.wait()
        wall = time.perf_counter() - started
        entries = agent_memory.read_notes(v, "bench", "memory").entries
        landed = sum(1 for e in entries if e.split(" ", 1)[0] in ("a", "b"))
        print(
            f"two processes, {args.adds} adds each at once: {wall:.2f} s "
            f"({wall / (2 * args.adds) * 1000:.2f} ms an add); {landed}/{2 * args.adds} landed"
        )


if __name__ == "__main__":
    main()
