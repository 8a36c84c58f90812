"""Search figures on the 200,000-fact benchmark vault, through the engine as agents use it.

    .venv/bin/python benchmarks/bench_search.py [--vault PATH] [--semantic] [--queries N]
                                                [--untuned]

Prints, with targets: building the index the first time; a BM25 query over facts
(median, p95) next to rank_bm25's `get_scores` on the same token lists in the same run;
re-indexing one changed entity; reopening with the index cached (no encoding). With
`--semantic` it also embeds every document (once: vectors are cached under the vault's
`.vault/cache/embeddings/`, so later runs skip it) and times semantic and hybrid
queries with the model loaded. The vault is made by `benchmarks/make_vault.py` (as
`bench_core.py` does) when missing.

The process is tuned as the CLI and the app tune theirs (`process_tuning.tune_process()`: the
collector paused during index loads, their results frozen); `--untuned` measures a library
call in a process left as it was, which loads the index slower (issue 12: a library call
no longer changes process-wide state).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vault_app.core import layout, process_tuning, vault  # noqa: E402
from vault_app.search import documents, engine  # noqa: E402


def line(label: str, value: str, target: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("PASS" if ok else "FAIL")
    print(f"{label:<34}{value:<34}{target:<18}{verdict}".rstrip())


def ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def make_queries(
    search: engine.SearchEngine, facts: list[documents.SearchDoc], count: int, rng: random.Random
) -> list[str]:
    """What a user types: 2-4 distinct words of a random fact, stopwords left out (they
    are dropped by the tokenizer anyway, and a query of one word is not the common case)."""
    queries: list[str] = []
    while len(queries) < count:
        words = [w for w in rng.choice(facts).text.lower().rstrip(".").split()]
        words = sorted({w for w in words if search.tokens.tokenize(w)})
        size = rng.randint(2, 4)
        if len(words) >= size:
            queries.append(" ".join(rng.sample(words, size)))
    return queries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "bench-vaults" / "v10000x20-s1")
    parser.add_argument("--semantic", action="store_true", help="embed everything, time semantic")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--untuned",
        action="store_true",
        help="without the CLI's process tuning (tune_process()): the library default",
    )
    args = parser.parse_args()
    process_tuning.tune_process(not args.untuned)  # as the CLI's main does, unless --untuned
    if not args.vault.is_dir():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks/make_vault.py"),
                "--entities",
                "10000",
                "--facts-per-entity",
                "20",
                "--out",
                str(args.vault),
            ],
            check=True,
        )
    process = "library default (untuned)" if args.untuned else "tuned as the CLI"
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}, process {process}"
    )
    v = vault.Vault(args.vault)
    cache = v.paths.state_dir / "cache" / "search"
    for stale in cache.glob("**/*"):
        if stale.is_file():
            stale.unlink()

    started = time.perf_counter()
    search, report = engine.open_engine(v, semantic=False)
    line("first build (BM25)", f"{time.perf_counter() - started:.1f} s, {report.documents:,} docs")

    facts = [d for d in search.state.docs.docs() if d.kind == documents.FACT]
    rng = random.Random(7)
    queries = make_queries(search, facts, args.queries, rng)
    terms = statistics.mean(len(search.tokens.tokenize(q)) for q in queries)
    print(f"queries: {len(queries)} of 2-4 words of a random fact (mean {terms:.1f} terms)")
    only_facts = engine.Filters(kinds=frozenset({documents.FACT}))
    timings = []
    for query in queries:
        t = time.perf_counter()
        search.search(query, mode="bm25", filters=only_facts, limit=10)
        timings.append(time.perf_counter() - t)
    median, p95 = ms(timings)
    line(
        "BM25 query over facts", f"median {median:.2f} ms, p95 {p95:.2f} ms", "≤ 2 ms", median <= 2
    )

    from rank_bm25 import BM25Okapi

    keys = [d.key for d in facts]
    # BM25's text of a fact (documents.entity_documents), which the saved index leaves out
    corpus = search.tokens.tokenize_many(
        f"{d.text} {d.category} {layout.EntityRef.parse(d.entity or '').title}" for d in facts
    )
    reference = BM25Okapi(corpus)
    ref_times = []
    for query in queries[:15]:
        tokens = search.tokens.tokenize(query)
        t = time.perf_counter()
        reference.get_scores(tokens)
        ref_times.append(time.perf_counter() - t)
    ref_median = statistics.median(ref_times) * 1000
    line("rank_bm25 get_scores (same docs)", f"median {ref_median:.1f} ms ({len(keys):,} facts)")
    line("speed-up", f"{ref_median / median:.0f}x", "≥ 100x", ref_median / median >= 100)

    refs = v.entity_refs()
    reindex = []
    for ref in rng.sample(refs, 50):
        t = time.perf_counter()
        search.refresh_entity(ref)
        reindex.append(time.perf_counter() - t)
    median, p95 = ms(reindex)
    line(
        "re-index one changed entity",
        f"median {median:.1f} ms, p95 {p95:.1f} ms",
        "≤ 20 ms",
        median <= 20,
    )
    search.save()

    started = time.perf_counter()
    _, report = engine.open_engine(v, semantic=False)
    elapsed = time.perf_counter() - started
    line(
        "reopen, index cached (BM25)",
        f"{elapsed:.2f} s, {report.reindexed_sources} re-indexed",
        "≤ 3 s",
        elapsed <= 3,
    )

    if args.semantic:
        done = [0]

        def progress(n: int, total: int) -> None:
            if n - done[0] >= 20_000 or n == total:
                done[0] = n
                print(f"    encoded {n:,}/{total:,}", flush=True)

        started = time.perf_counter()
        search, report = engine.open_engine(v, progress=progress)
        first = time.perf_counter() - started
        if search.semantic is None:
            print(f"semantic unavailable: {search.semantic_notice}")
            return 1
        line(
            "open with semantic (first: encodes)",
            f"{first:.1f} s ({search.semantic.encoder.backend})",
        )
        # a reopen is a new process: the engine opened above is let go first (holding two
        # 300 MB matrices at once is not what a user's machine does)
        del search
        gc.collect()
        started = time.perf_counter()
        search, report = engine.open_engine(v)
        elapsed = time.perf_counter() - started
        line(
            "reopen, embeddings cached", f"{elapsed:.2f} s, nothing encoded", "≤ 3 s", elapsed <= 3
        )
        for mode, target in (("semantic", 30), ("hybrid", 40)):
            timings = []
            for query in queries[:60]:
                t = time.perf_counter()
                search.search(query, mode=mode, filters=only_facts, limit=10)
                timings.append(time.perf_counter() - t)
            median, p95 = ms(timings)
            line(
                f"{mode} query over facts",
                f"median {median:.1f} ms, p95 {p95:.1f} ms",
                f"≤ {target} ms",
                median <= target,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
