"""The semantic index's first stage (`search/coarse.py`) on the 200,000-fact benchmark vault.

    .venv/bin/python benchmarks/bench_coarse.py [--vault PATH] [--queries N]

Opens the engine as `serve` does (BM25, then `enable_semantic`, which builds the first
stage) and prints, for N queries made as `bench_mcp.py` makes them (2-4 words of a random
fact):

* what the first stage costs: its build (fit and projection) and its memory;
* a query's first pass against the full product it replaces (median ms, one thread);
* its candidates' full codes gathered, laid out by row as they are with a first stage
  (`coarse.Blocks.to_rows`) against by column as the full product wants them;
* recall: how much of the full product's top 1, 10 and 100 is among the candidates the
  first stage hands on (`coarse.width(k)` for k = 100, the hybrid search's candidates);
* what a search answers: the hybrid search `memory_query` runs (facts, a chat's scopes,
  10 hits) with the first stage, against the same engine without it (the full product
  and the exact re-score from the embedding cache): the same best hit, the share of
  the top 10 in common, the lists identical in order; and each one's median time.

The vault is read, never written. Needs the vectors cached (a first `bench_mcp.py
--semantic` or `vault-app search --mode semantic` run caches them).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from bench_mcp import line, make_queries  # noqa: E402

from vault_app.core import vault  # noqa: E402
from vault_app.search import coarse, encoders, engine, kinds  # noqa: E402
from vault_app.search.columns import Filters  # noqa: E402


def median_ms(timed: list[float]) -> float:
    return statistics.median(timed) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "bench-vaults" / "v10000x20-s1")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    if not args.vault.is_dir():
        raise SystemExit(f"no vault at {args.vault}: make it with benchmarks/make_vault.py")
    v = vault.Vault(args.vault)
    search, _ = engine.open_engine(v, semantic=False)
    started = time.perf_counter()
    search.enable_semantic()
    rows = search.semantic
    if rows is None or rows.coarse is None:
        raise SystemExit(f"no first stage: {search.semantic_notice or 'too few rows'}")
    loaded = time.perf_counter() - started
    held = int(rows.valid.sum())
    rebuilt = time.perf_counter()
    rows.coarse = None
    rows.index_coarse()
    build = time.perf_counter() - rebuilt
    stage = rows.coarse
    assert stage is not None
    size = sum(a.nbytes for a in (*stage.blocks.arrays, stage.scale, stage.sums, stage.basis))
    print(f"{held:,} rows of {rows.dimension}; semantic side on in {loaded:.1f} s")
    line("stage: build (fit + projection)", f"{build:.2f} s")
    line("stage: memory", f"{size / 2**20:.1f} MB ({coarse.DIMENSION} directions)")

    queries = make_queries(v.root, args.queries, random.Random(21))
    assert rows.encoder is not None
    rows.full.to_columns()  # the full product's layout, for the comparison below
    vectors = [encoders.query_vector(rows.encoder, q) for q in queries]
    first, full = [], []
    recall = {1: [], 10: [], 100: []}
    width = coarse.width(search.candidates)
    scorer = stage.scorer(rows.dots)
    for vector in vectors:
        t0 = time.perf_counter()
        approximate = scorer(vector)[:held]
        t1 = time.perf_counter()
        exact = rows.scores(vector, held)  # the full product
        t2 = time.perf_counter()
        first.append(t1 - t0)
        full.append(t2 - t1)
        candidates = set(np.argpartition(-approximate, width - 1)[:width].tolist())
        best = np.argsort(-exact)[:100]
        for k in recall:
            recall[k].append(len(candidates.intersection(best[:k].tolist())) / k)
    line(
        "first pass / full product",
        f"{median_ms(first):.2f} / {median_ms(full):.2f} ms",
    )
    line(
        f"full top 1/10/100 in {width} candidates",
        " / ".join(f"{np.mean(recall[k]):.4f}" for k in recall),
    )
    picks = [np.sort(np.argpartition(-scorer(x)[:held], width - 1)[:width]) for x in vectors]
    gathered = {}
    for layout, lay_out in (("columns", rows.full.to_columns), ("rows", rows.full.to_rows)):
        lay_out()
        timed = []
        for index in picks:
            t0 = time.perf_counter()
            rows.full.rows(index)
            timed.append(time.perf_counter() - t0)
        gathered[layout] = median_ms(timed)
    line(
        f"{width} candidates' codes gathered",
        f"{gathered['rows']:.3f} ms by row ({gathered['columns']:.3f} by column)",
    )

    agent = v.agents()[0].id if v.agents() else "bench"
    facts = Filters(
        kinds=frozenset({kinds.FACT}),
        scope=frozenset({"global", f"agent:{agent}"}),
        status="active",
    )

    def answers() -> tuple[list[list[str]], float]:
        out, timed = [], []
        for query in queries:
            t0 = time.perf_counter()
            hits = search.search(query, mode="hybrid", filters=facts, limit=10).hits
            timed.append(time.perf_counter() - t0)
            out.append([h.key for h in hits])
        return out, median_ms(timed)

    answers()  # the documents of the hits read once, for both
    staged, staged_ms = answers()
    rows.coarse = None
    rows.full.to_columns()  # as a process without a first stage holds them
    plain, plain_ms = answers()
    rows.full.to_rows()
    rows.coarse = stage
    same_best = np.mean([a[:1] == b[:1] for a, b in zip(staged, plain, strict=True)])
    common = np.mean(
        [len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(staged, plain, strict=True)]
    )
    identical = np.mean([a == b for a, b in zip(staged, plain, strict=True)])
    line(
        "hybrid: same best / top 10 / order",
        f"{same_best:.3f} / {common:.4f} / {identical:.3f}",
    )
    line("hybrid search (one thread)", f"{staged_ms:.1f} ms (without the stage {plain_ms:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
