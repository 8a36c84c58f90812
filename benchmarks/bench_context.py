"""Print what building an agent's context costs on a large vault: without a query (what an
agent asks at the start of a session) and with one, p50 and p95 over many builds.

    .venv/bin/python benchmarks/bench_context.py [--entities 10000] [--me 12] [--builds 40]

The vault is `make_vault.py`'s (10,000 entities of 20 facts: 200,000 facts), plus `--me`
facts of Me in the agent's workspace (`agent:finance:areas/me`) and as many in the global
one, which the ABOUT THE USER block shows. Search runs on BM25 alone (the first embedding
of 200,000 facts takes minutes, and the blocks' own work is what is measured here);
nothing is marked as accessed, so every build reads the same vault. Each block's items
pass the injection scan before they are placed, as an agent gets them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.make_vault import make_vault  # noqa: E402
from vault_app.core import vault as vault_module  # noqa: E402
from vault_app.search import context, engine  # noqa: E402

AGENT = "finance"
QUERY = "quarterly invoice supplier"


def timed(builder: context.ContextBuilder, query: str | None, builds: int) -> list[float]:
    builder.build(AGENT, query, mark_access=False)  # warm: masks, document cache
    out = []
    for _ in range(builds):
        started = time.perf_counter()
        builder.build(AGENT, query, mark_access=False)
        out.append((time.perf_counter() - started) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--me", type=int, default=12, help="facts of Me, each side")
    parser.add_argument("--builds", type=int, default=40)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-context-") as tmp:
        root = Path(tmp) / "v"
        make_vault(root, args.entities, 20, log=lambda _line: None)
        v = vault_module.Vault(root)
        for ref in (f"agent:{AGENT}:areas/me", "areas/me"):
            for n in range(args.me):
                v.add_fact(
                    ref, f"The user keeps habit number {n} on weekdays", "context", create=True
                )
        search, _report = engine.open_engine(v, semantic=False)
        builder = context.ContextBuilder(search)
        built = builder.build(AGENT, None, mark_access=False)
        blocks = ", ".join(f"{b.name} {len(b.lines)}" for b in built.blocks)
        print(f"{search.columns.size:,} documents; blocks without a query: {blocks}")
        for query in (None, QUERY):
            ms = sorted(timed(builder, query, args.builds))
            p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
            label = "no query" if query is None else f"query {query!r}"
            print(f"context, {label}: p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
