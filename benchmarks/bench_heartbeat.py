"""Time one heartbeat with the rules over 1,000 new daily-note entries (target <= 5 s).

    python benchmarks/bench_heartbeat.py                 # the demo vault and the 200k vault
    python benchmarks/bench_heartbeat.py --demo-only     # the demo vault only (no big copy)
    python benchmarks/bench_heartbeat.py --entries 2000 --seed 3

Each vault is a COPY in a temporary folder (the demo vault made by `vault-app init
--demo`; the 200,000-fact vault `/work/bench-vaults/v10000x20-s1` copied with `cp -a`:
the original is never written). Into the copy go `--entries` entries spread over the
last 20 days, in the global notes and each agent's, written as `vault.append_daily`
writes them, then `os.sync()` (the timed run's fsyncs do not wait for the copy's
writeback: a vault at rest with new entries). The texts are
household talk generated from a seed: preferences and relationships of people the vault
knows (names from its entities' summary titles), "remember that ..." notes, status with
relative dates, people the vault does not know yet (deferred, then created on their
third mention), repeats of what was said before (dedup), changed values (supersede), and
the small talk, hedges and questions the quality gate drops.

Printed: the run's record (entries, extracted, written, deduped, superseded, deferred,
created, flagged, failed) and its wall time, `run.run_heartbeat` end to end (cursor, rules,
routing with the vault's name index, dedup, every write through the vault's storage:
lock, fsync, backup, audit line), then a second run's time with nothing new (the
cursor's cost on an unchanged vault).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import runs

BIG = Path("/work/bench-vaults/v10000x20-s1")
NOW = dt.datetime(2026, 11, 24, 9, 0).astimezone()

DRINKS = ["oat milk", "green tea", "black coffee", "sparkling water", "chai", "hot chocolate"]
FOODS = ["spicy food", "mushrooms", "fresh pasta", "sushi", "lentil soup", "porridge"]
THINGS = [
    ("the wifi password", ["blue-heron-42", "kettle-moon-7", "orchard-19"]),
    ("the garage code", ["4512", "8830", "1207"]),
    ("the boiler pressure", ["1.4 bar", "1.2 bar", "1.6 bar"]),
    ("the recycling day", ["Tuesday", "Thursday"]),
    ("the water meter reading", ["04412", "04498", "04561"]),
]
CHORES = ["ironing", "mowing the lawn", "cleaning the gutters", "washing the car"]
ROLES = ["plumber", "dentist", "piano teacher", "accountant", "vet", "electrician"]
NEW_PEOPLE = [
    "Dr. Okafor",
    "Lena Brandt",
    "Marco Rossi",
    "Ines Duarte",
    "Tomasz Nowak",
    "Hana Sato",
    "Ravi Menon",
    "Claire Dubois",
]
SMALL_TALK = [
    "How was your day?",
    "Thanks, that helps a lot!",
    "Good morning!",
    "Maybe we should repaint the fence at some point.",
    "I think the package might arrive later, not sure.",
    "Can you check the weather for tomorrow?",
    "ok",
    "Sounds good, talk later.",
]
STATUS = [
    "The car was serviced yesterday.",
    "The dishwasher was repaired last Friday.",
    "The chimney was swept two days ago.",
    "The roof inspection is booked for next Tuesday.",
]


def known_names(vault: Vault, rng: random.Random, limit: int = 120) -> list[str]:
    """Names the vault's people answer to (summary titles), else any entity's title."""
    refs = vault.entity_refs()
    people = [r for r in refs if "/people/" in r.path] or refs
    rng.shuffle(people)
    names = []
    for ref in people[: limit * 2]:
        summary = vault.paths.entity_dir(ref) / layout.SUMMARY_NAME
        try:
            first = summary.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, IndexError):
            continue
        title = first.lstrip("# ").split("(")[0].strip()
        if title and title not in names:
            names.append(title)
        if len(names) >= limit:
            break
    return names


def entry_text(rng: random.Random, names: list[str]) -> str:
    name = rng.choice(names)
    kind = rng.random()
    if kind < 0.25:
        return f"{name} prefers {rng.choice(DRINKS)} in the morning."
    if kind < 0.35:
        return f"{name} likes {rng.choice(FOODS)}."
    if kind < 0.45:
        thing, values = rng.choice(THINGS)
        return f"Remember that {thing} is {rng.choice(values)}."
    if kind < 0.52:
        return f"I hate {rng.choice(CHORES)}."
    if kind < 0.60:
        return f"{rng.choice(NEW_PEOPLE)} is our {rng.choice(ROLES)}."
    if kind < 0.68:
        return rng.choice(STATUS)
    if kind < 0.75:
        return f"{name} is our {rng.choice(ROLES)}. " + rng.choice(SMALL_TALK)
    return rng.choice(SMALL_TALK)


def add_entries(vault: Vault, count: int, seed: int) -> None:
    rng = random.Random(seed)
    names = known_names(vault, rng) or ["Maria"]
    agents: list[str | None] = [None, *vault.paths.agent_ids()]
    start = NOW - dt.timedelta(days=20)
    for i in range(count):
        moment = start + dt.timedelta(seconds=i * 20 * 86400 // count + rng.randrange(60))
        vault.append_daily(entry_text(rng, names), agent=rng.choice(agents), at=moment)


def bench(root: Path, label: str, count: int, seed: int) -> None:
    vault = Vault(root)
    started = time.perf_counter()
    add_entries(vault, count, seed)
    print(f"{label}: {count} entries appended in {time.perf_counter() - started:.1f} s")
    # the copy's and the appends' dirty pages flushed first: the run's fsyncs then wait
    # for the run's own writes, as on a vault at rest
    os.sync()
    started = time.perf_counter()
    record = runs.run_heartbeat(root, runner="cli", trigger="once", now=NOW)
    took = time.perf_counter() - started
    print(
        f"{label}: heartbeat (rules) {took:.2f} s wall, {record.duration_s:.2f} s recorded: "
        f"{record.entries} entries, {record.extracted} extracted, {record.written} written, "
        f"{record.deduped} deduped, {record.superseded} superseded, {record.deferred} deferred, "
        f"{record.created} created, {record.flagged} flagged, {record.failed} failed"
        + (f"; error: {record.error}" if record.error else "")
    )
    started = time.perf_counter()
    again = runs.run_heartbeat(root, runner="cli", trigger="once", now=NOW)
    print(
        f"{label}: second heartbeat, nothing new: {time.perf_counter() - started:.2f} s "
        f"({again.entries} entries)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--demo-only", action="store_true")
    parser.add_argument("--big", type=Path, default=BIG, help="the 200k vault to copy")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-heartbeat-") as tmp:
        demo = Path(tmp) / "demo"
        subprocess.run(
            [sys.executable, "-m", "vault_app", "init", "--demo", str(demo)],
            check=True,
            capture_output=True,
        )
        bench(demo, "demo vault", args.entries, args.seed)
        shutil.rmtree(demo)
        if not args.demo_only:
            copy = Path(tmp) / "big"
            started = time.perf_counter()
            subprocess.run(["cp", "-a", str(args.big), str(copy)], check=True)
            print(f"200k vault copied in {time.perf_counter() - started:.0f} s")
            bench(copy, "200k vault", args.entries, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
