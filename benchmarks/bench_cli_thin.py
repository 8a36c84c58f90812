"""Print what a one-off `vault-app search --json` costs an agent that shells out: with a
`serve` running for the vault (the CLI forwards the search to it: `cli/serve_link.py`)
and without one (the CLI opens the vault and its index itself), process start included.

    python benchmarks/bench_cli_thin.py                          # bench-vaults/v10000x20-s1
    python benchmarks/bench_cli_thin.py --vault PATH --runs 15 --cold-runs 3
    python benchmarks/bench_cli_thin.py --bm25                   # serve and searches in BM25

The vault is copied to a temporary folder first (`cp -a`: serve's heartbeat and the
engine write under `.vault/`) unless `--in-place`. serve is started with its heartbeat's
work done beforehand (`heartbeat --once`), and the figures are taken once it answers a
forwarded search (its model loaded, for hybrid). The command run is the installed
`vault-app` script of this Python's environment, as an agent's shell runs it. Each figure
is the median (and min-max) of its runs, the queries taken in turn; the cold runs are
made after serve has stopped, alternating is pointless there (one is 20-40× the other).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vault_app.cli import serve_link  # noqa: E402

QUERIES = ["roof leak quote", "who fixes the pipes", "insurance renewal", "solar panels"]
READY_WAIT = 900.0  # seconds for serve to load the index and the model


def command() -> list[str]:
    script = Path(sys.executable).parent / "vault-app"
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_app"]


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, cwd=REPO)
    took = time.perf_counter() - started
    if done.returncode != 0 or b'"hits": [' not in done.stdout:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
    return took


def summary(name: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return (
        f"{name:<44} median {statistics.median(ms):8.1f} ms   "
        f"(min {min(ms):.1f}, max {max(ms):.1f}, {len(ms)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=REPO / "bench-vaults" / "v10000x20-s1")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--bm25", action="store_true", help="BM25 only, in serve and searches")
    parser.add_argument("--in-place", action="store_true")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["HF_HUB_OFFLINE"] = "1"
    env["PYTHONPATH"] = str(REPO)
    with tempfile.TemporaryDirectory(prefix="vault-app-bench-thin-") as work:
        root = args.vault
        if not args.in_place:
            root = Path(work) / "v"
            subprocess.run(["cp", "-a", str(args.vault), str(root)], check=True)
        mode = ["--mode", "bm25"] if args.bm25 else []
        search = [*command(), "--vault", str(root), "search"]
        subprocess.run(
            [*command(), "--vault", str(root), "heartbeat", "--once"],
            env=env,
            check=True,
            capture_output=True,
            cwd=REPO,
        )
        serve = [*command(), "--vault", str(root), "serve", "--port", "0"]
        if args.bm25:
            serve.append("--bm25")
        proc = subprocess.Popen(
            serve, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO
        )
        try:
            started = time.perf_counter()
            probe = ["--vault", str(root), "search", QUERIES[0], *mode, "--json"]
            path = serve_link.socket_path(root)
            assert path is not None, "no Unix sockets here"
            while True:
                if proc.poll() is not None:
                    raise SystemExit("serve ended")
                if path.exists():
                    try:
                        answer = serve_link._ask(path, {"argv": probe, "cwd": str(REPO)})
                        if answer.get("status") == "ok":
                            break
                    except (OSError, ValueError):
                        pass
                if time.perf_counter() - started > READY_WAIT:
                    raise SystemExit("serve never answered")
                time.sleep(0.5)
            print(f"serve ready to answer after {time.perf_counter() - started:.1f} s")
            warm = [
                timed([*search, QUERIES[i % len(QUERIES)], *mode, "--json"], env)
                for i in range(args.runs)
            ]
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=120)
        cold = [
            timed([*search, QUERIES[i % len(QUERIES)], *mode, "--json"], env)
            for i in range(args.cold_runs)
        ]
    kind = "BM25" if args.bm25 else "hybrid"
    print(summary(f"search --json ({kind}), serve running", warm))
    print(summary(f"search --json ({kind}), no serve (cold CLI)", cold))
    print(f"ratio: {statistics.median(cold) / statistics.median(warm):.1f}x")


if __name__ == "__main__":
    main()
