"""A separate process that writes to a vault, for the concurrency and crash tests.

    python _vault_worker.py add ROOT ENTITY COUNT TAG      -> prints each new fact id
    python _vault_worker.py mark ROOT COUNT SEED ID...     -> prints {"id": marks made}
    python _vault_worker.py write ROOT COUNT ENTITY...     -> prints each new fact id
    python _vault_worker.py notes ROOT AGENT COUNT TAG     -> prints each note added

`add`, `mark` and `notes` open the vault, print "ready" and wait for a line on stdin, so that the
test starts them all at once. `write` starts at once (it is killed at random moments).
Every id is printed and flushed only after the write that made it has returned.
"""

from __future__ import annotations

import json
import random
import sys

from vault_app.core import agent_memory, vault


def wait_for_go() -> None:
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")


def main(argv: list[str]) -> None:
    command, root = argv[0], argv[1]
    if command == "add":
        entity, count, tag = argv[2], int(argv[3]), argv[4]
        v = vault.Vault(root, actor=f"worker-{tag}")
        wait_for_go()
        for n in range(count):
            fact = v.add_fact(entity, f"Worker {tag} wrote fact number {n}", "context")
            print(fact.id, flush=True)
    elif command == "mark":
        count, seed, ids = int(argv[2]), int(argv[3]), argv[4:]
        v = vault.Vault(root, actor=f"marker-{seed}")
        rng = random.Random(seed)
        marks = dict.fromkeys(ids, 0)
        wait_for_go()
        for _ in range(count):
            fact_id = rng.choice(ids)
            v.mark_accessed([fact_id])
            marks[fact_id] += 1
        print(json.dumps(marks), flush=True)
    elif command == "notes":
        agent, count, tag = argv[2], int(argv[3]), argv[4]
        v = vault.Vault(root, actor=f"agent:{agent}")
        wait_for_go()
        for n in range(count):
            note = f"worker {tag} note {n}"
            agent_memory.change_notes(v, agent, "memory", "add", content=note)
            print(note, flush=True)
    elif command == "write":
        count, entities = int(argv[2]), argv[3:]
        v = vault.Vault(root, actor="crash-writer")
        for n in range(count):
            fact = v.add_fact(entities[n % len(entities)], f"Crash test fact {n}", "status")
            sys.stdout.write(fact.id + "\n")
            sys.stdout.flush()
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
