"""Print the core library's figures on a large vault: open (cold, warm), fact add, synthesis.

    python benchmarks/bench_core.py                      # 10,000 entities x 20 facts
    python benchmarks/bench_core.py --vault PATH         # an existing vault (or create it)
    python benchmarks/bench_core.py --only open,add      # a subset

Without `--vault`, the vault is generated once by `make_vault.py` into `./bench-vaults/`
(gitignored) and reused. "Open" is `Vault(path).scan()`: every items.json read and parsed,
every entity listed with its tier counts. A cold open drops the page cache first
(`echo 3 > /proc/sys/vm/drop_caches`, root only); when that is not permitted only warm
figures are printed. Synthesis rewrites the benchmark vault's summary.md files (that is
what it measures); fact adds go to a separate small vault next to it, on the same disk.

Open and doctor are measured twice (`--process both`): as the app and the CLI run them,
in a process whose owner opted in to the collector tunings (`process_tuning.tune_process()`:
the collector paused during a load and its results frozen), and as a library call leaves
the process by default (the collector alone).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import make_vault

from vault_app.core import layout, process_tuning, strict_json, vault

TARGET_COLD_S = 3.0
TARGET_WARM_S = 1.5
TARGET_ADD_MS = 20.0
PARTS = ("open", "add", "doctor", "synthesis")
PROCESS_TITLES = {
    True: "-- as the app and the CLI run it (process_tuning.tune_process(): collector paused, "
    "results frozen)",
    False: "-- as a library call by default (the process's collector left alone)",
}
QUIET_LIMIT_S = 30.0  # set by --quiet-wait


def line(label: str, value: str, note: str = "") -> None:
    print(f"{label:<22}{value:>12}   {note}".rstrip(), flush=True)


def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "FAIL"


def spread(samples: list[float], scale: float = 1.0, unit: str = "s", digits: int = 2) -> str:
    if len(samples) < 2:
        return "(1 run)"
    low, high = min(samples) * scale, max(samples) * scale
    return f"(median of {len(samples)}; min {low:.{digits}f}, max {high:.{digits}f} {unit})"


def drop_caches() -> str | None:
    """Empty the page cache; returns why it could not, or None."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as handle:
            handle.write("3\n")
    except OSError as exc:
        return f"{exc.strerror or exc} (needs root on Linux)"
    return None


def timed(run: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def load() -> str:
    """The load average: other processes on this machine make every figure noisier."""
    if not hasattr(os, "getloadavg"):
        return "n/a"
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


Run = tuple[float, float, float]  # wall, cpu user, cpu system seconds


def cpu_idle_share(window: float) -> float | None:
    """The share of CPU time left idle by every process over `window` seconds (Linux)."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as handle:
            ticks = [int(x) for x in handle.readline().split()[1:]]
        return sum(ticks), ticks[3] + ticks[4]  # idle + iowait

    try:
        total, idle = sample()
        time.sleep(window)
        total2, idle2 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return (idle2 - idle) / max(1, total2 - total)


QUIET = {"waited": 0, "busy": 0}


def wait_until_quiet(limit: float, window: float = 1.0) -> None:
    """Let other processes' bursts pass: wait (at most `limit` s) for a 90 % idle window."""
    if limit <= 0:
        return
    deadline = time.monotonic() + limit
    waited = False
    while time.monotonic() < deadline:
        share = cpu_idle_share(window)
        if share is None or share >= 0.9:
            QUIET["waited"] += waited
            return
        waited = True
    QUIET["busy"] += 1


def open_vault(path: Path, keep: list[vault.VaultScan] | None = None, quiet: bool = True) -> Run:
    """Time one `Vault(path).scan()` (wall and cpu); the scan goes to `keep` if given."""
    if quiet:
        wait_until_quiet(QUIET_LIMIT_S)
    before = os.times()
    seconds, scan = timed(lambda: vault.Vault(path).scan())
    after = os.times()
    assert isinstance(scan, vault.VaultScan)
    if keep is not None:
        keep[:] = [scan]
    # the prefetch process of a cold open is waited for by the scan: its time is counted
    user = after.user - before.user + after.children_user - before.children_user
    system = after.system - before.system + after.children_system - before.children_system
    return seconds, user, system


def cpu_note(runs: list[Run]) -> str:
    user = statistics.mean(r[1] for r in runs)
    system = statistics.mean(r[2] for r in runs)
    return f"cpu per run {user:.2f} s user + {system:.2f} s sys, all threads and processes"


def ensure_vault(args: argparse.Namespace) -> Path:
    if args.vault is not None:
        path = args.vault
    else:
        name = f"v{args.entities}x{args.facts_per_entity}-s{args.seed}"
        path = args.cache_dir / name
    if layout.is_vault(path):
        return path
    if path.exists() and any(path.iterdir()):
        sys.exit(f"{path} exists but is not a vault")
    print(f"generating the benchmark vault at {path} ...", flush=True)
    # In a child process: the generator's 200,000 dicts must not shape this one's memory.
    command = [
        sys.executable,
        str(Path(__file__).with_name("make_vault.py")),
        f"--entities={args.entities}",
        f"--facts-per-entity={args.facts_per_entity}",
        f"--seed={args.seed}",
        f"--out={path}",
    ]
    subprocess.run(command, check=True)
    return path


def bench_open(path: Path, cold_runs: int, warm_runs: int) -> None:
    cold_runs_done: list[Run] = []
    why_not = None
    for _ in range(cold_runs):
        wait_until_quiet(QUIET_LIMIT_S)
        why_not = drop_caches()
        if why_not:
            break
        cold_runs_done.append(open_vault(path, quiet=False))
    # Warm: one quiet wait, a warm-up, then back-to-back reopens (the files were just read).
    open_vault(path)
    last: list[vault.VaultScan] = []
    warm_runs_done = [open_vault(path, last, quiet=False) for _ in range(warm_runs)]
    cold = [r[0] for r in cold_runs_done]
    warm = [r[0] for r in warm_runs_done]
    scan = last[0]
    data_mb = sum(e.facts_file.stat().st_size for e in scan.entities if e.facts_file) / 1e6
    totals = scan.tier_totals()
    print(
        f"vault: {len(scan.entities):,} entities, {scan.fact_count:,} facts, "
        f"{data_mb:.1f} MB of fact files, {len(scan.agents)} agents, "
        f"{len(scan.problems)} problems"
    )
    print(
        f"tiers: {totals['hot']:,} hot, {totals['warm']:,} warm, {totals['cold']:,} cold, "
        f"{totals['superseded']:,} superseded"
    )
    if cold:
        median = statistics.median(cold)
        line(
            "open (cold)",
            f"{median:.2f} s",
            f"target ≤ {TARGET_COLD_S:.1f} s   {verdict(median, TARGET_COLD_S)}   {spread(cold)}",
        )
        print(f"    ({cpu_note(cold_runs_done)}; page cache dropped before each run)")
    elif why_not:
        line("open (cold)", "skipped", f"cannot drop the page cache: {why_not}")
    else:
        line("open (cold)", "skipped", "(--cold-runs 0)")
    median = statistics.median(warm)
    line(
        "open (warm)",
        f"{median:.2f} s",
        f"target ≤ {TARGET_WARM_S:.1f} s   {verdict(median, TARGET_WARM_S)}   {spread(warm)}",
    )
    print(f"    ({cpu_note(warm_runs_done)}; the unchanged vault reopened)")


def bench_add(cache_dir: Path, facts: int, adds: int, seed: int) -> None:
    """`Vault.add_fact` on one entity of `facts` facts, in a small vault on the same disk."""
    work = cache_dir / f"add-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        make_vault.make_vault(
            work, 1, facts, seed=seed, agents=0, refresh_index=False, log=lambda _: None
        )
        target = vault.Vault(work, actor="bench")
        ref = target.entity_refs()[0]
        facts_path = target.entity(ref).facts_path
        words = make_vault.vocabulary(random.Random(3))[0]
        texts = [" ".join(words[i : i + 12]).capitalize() + "." for i in range(adds + 5)]
        for text in texts[:5]:  # warm-up: imports, caches, the lock and backup folders
            target.add_fact(ref, text, "context", source="bench")
        samples: dict[bool, list[float]] = {False: [], True: []}  # by "parsed by stdlib json"
        for text in texts[5:]:
            stdlib = strict_json.parse_json(facts_path, facts_path.read_bytes())[1]
            wait_until_quiet(QUIET_LIMIT_S / 10, window=0.25)
            seconds, _ = timed(
                lambda text=text: target.add_fact(
                    ref, text, "status", related=["areas/people/jane"], source="bench"
                )
            )
            samples[stdlib].append(seconds)
        size_kb = facts_path.stat().st_size / 1024
    finally:
        shutil.rmtree(work, ignore_errors=True)
    every = samples[False] + samples[True]
    median = statistics.median(every) * 1000
    p90 = statistics.quantiles(every, n=10)[-1] * 1000
    line(
        "fact add",
        f"{median:.1f} ms",
        f"target ≤ {TARGET_ADD_MS:.0f} ms   {verdict(median, TARGET_ADD_MS)}   "
        f"{spread(every, 1000, 'ms', 1)[:-1]}, p90 {p90:.1f} ms)",
    )
    print(
        f"    ({adds} adds to a {facts:,}-fact entity, {size_kb:.0f} KB items.json: "
        "lock, read, backup, fsync'd atomic replace, audit line)"
    )
    for stdlib, label in ((False, "orjson"), (True, "the standard library's json")):
        if samples[stdlib]:
            print(
                f"    {len(samples[stdlib])} adds on a file parsed by {label}: median "
                f"{statistics.median(samples[stdlib]) * 1000:.1f} ms"
            )


def bench_doctor(path: Path) -> None:
    try:
        doctor = importlib.import_module("vault_app.core.doctor")
    except ImportError:
        line("doctor", "skipped", "vault_app.core.doctor does not exist yet")
        return
    run = getattr(doctor, "run", None)
    if not callable(run):
        line("doctor", "skipped", "vault_app.core.doctor has no run(vault) function")
        return
    wait_until_quiet(QUIET_LIMIT_S)
    seconds, report = timed(lambda: run(vault.Vault(path), repair=False))
    files = getattr(report, "files_checked", "?")
    facts = getattr(report, "facts_checked", "?")
    problems = len(getattr(report, "problems", []))
    line(
        "doctor (check only)",
        f"{seconds:.2f} s",
        f"{files:,} files, {facts:,} facts validated, {problems} problems (warm cache)",
    )


def bench_synthesis(path: Path) -> None:
    target = vault.Vault(path, actor="bench")
    wait_until_quiet(QUIET_LIMIT_S)
    seconds, (results, problems) = timed(target.synthesize)
    entities = [r for r in results if r.ref is not None]
    changed = sum(1 for r in entities if r.changed)
    line(
        "synthesis (all)",
        f"{seconds:.2f} s",
        f"{len(entities) / seconds:,.0f} entities/s; {len(entities):,} entities "
        f"({changed:,} summary.md rewritten) + {len(results) - len(entities)} index.md, "
        f"{len(problems)} problems",
    )


def main(argv: list[str] | None = None) -> int:
    global QUIET_LIMIT_S
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, help="vault to measure (created if missing)")
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--facts-per-entity", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache-dir", type=Path, default=Path("bench-vaults"))
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--add-facts", type=int, default=1000, help="size of the add entity")
    parser.add_argument("--adds", type=int, default=60)
    parser.add_argument("--add-seed", type=int, default=7, help="seed of the add entity")
    parser.add_argument("--only", default=",".join(PARTS), help=f"subset of {','.join(PARTS)}")
    parser.add_argument(
        "--process",
        choices=("both", "tuned", "default"),
        default="both",
        help="open and doctor with the app's process tunings (process_tuning.tune_process()), "
        "with the library's default (the process left alone), or both",
    )
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=QUIET_LIMIT_S,
        help="before each timed run, wait up to this many seconds for a 90%% idle CPU "
        "(a shared machine's bursts); 0 to never wait",
    )
    args = parser.parse_args(argv)
    QUIET_LIMIT_S = max(0.0, args.quiet_wait)
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    if unknown := parts - set(PARTS):
        parser.error(f"unknown parts {sorted(unknown)}; choose from {','.join(PARTS)}")
    if args.adds < 2:
        parser.error("--adds must be at least 2")

    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print(f"python {platform.python_version()} ({sys.executable})")
    print(f"machine: {platform.system()} {platform.machine()}, {cores} cores ({usable} usable)")
    print(f"gc thresholds {gc.get_threshold()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print(f"load average at start: {load()}")
    needs_vault = parts & {"open", "doctor", "synthesis"}
    path = ensure_vault(args) if needs_vault else None
    if path is not None:
        print(f"vault path: {path.resolve()}")
    modes = {"both": (True, False), "tuned": (True,), "default": (False,)}[args.process]
    for tuned in modes if parts & {"open", "doctor"} and path is not None else ():
        process_tuning.tune_process(tuned)
        print(PROCESS_TITLES[tuned])
        if "open" in parts and path is not None:
            bench_open(path, args.cold_runs, args.warm_runs)
        if "doctor" in parts and path is not None:
            bench_doctor(path)
    process_tuning.tune_process(True)  # adds and synthesis: as the CLI runs them
    if "add" in parts:
        args.cache_dir.mkdir(parents=True, exist_ok=True)
        bench_add(args.cache_dir, args.add_facts, args.adds, args.add_seed)
    if "synthesis" in parts and path is not None:
        bench_synthesis(path)
    print(
        f"load average at end: {load()}; timed runs that waited for a quiet CPU: "
        f"{QUIET['waited']}, that ran on a busy one after waiting --quiet-wait: {QUIET['busy']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
