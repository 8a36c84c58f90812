"""Search quality on the labelled evaluation set: hit@1/5/10 and MRR for each mode.

    .venv/bin/python benchmarks/search_quality.py [--vault PATH] [--weights 0.1,0.2,...]

Builds the evaluation vault (the demo household plus `benchmarks/eval/extra_facts.json`)
unless one is given, runs the 194 questions of `benchmarks/eval/questions.jsonl` through
the engine in BM25, semantic and hybrid mode (default filters: every kind of document,
active facts), and prints the metrics by mode and by question style. With --weights it
also sweeps the hybrid's BM25 weight, which is how the default was chosen.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval import build
from vault_app.core import vault
from vault_app.search import engine


def evaluate(
    search: engine.SearchEngine, questions: list[dict], relevant: list[set[str]], mode: str
) -> tuple[dict[str, float], list[list[str]], float]:
    ranked = []
    started = time.perf_counter()
    for question in questions:
        result = search.search(
            question["query"], mode=mode, limit=10, filters=engine.Filters(status="active")
        )
        ranked.append([h.key for h in result.hits])
    seconds = (time.perf_counter() - started) / max(len(questions), 1)
    return build.metrics(ranked, relevant), ranked, seconds


def line(name: str, m: dict[str, float], extra: str = "") -> str:
    return (
        f"{name:<22} hit@1 {m['hit@1']:.3f}  hit@5 {m['hit@5']:.3f}  "
        f"hit@10 {m['hit@10']:.3f}  MRR {m['mrr']:.3f}{extra}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, help="an evaluation vault built before")
    parser.add_argument("--weights", help="comma-separated BM25 weights to sweep for hybrid")
    args = parser.parse_args()
    workdir = None
    if args.vault is None:
        workdir = tempfile.TemporaryDirectory(prefix="vault-eval-")
        args.vault = build.build_eval_vault(Path(workdir.name) / "eval")
    v = vault.Vault(args.vault)
    questions = build.load_questions()
    relevant = [build.resolve_answers(v, q) for q in questions]
    search, report = engine.open_engine(v)
    print(
        f"evaluation vault {args.vault}: {report.documents} documents, "
        f"{len(questions)} questions; index ready in {report.seconds:.1f} s"
    )
    if search.semantic is None:
        print(f"semantic search unavailable: {search.semantic_notice}")
        return 1
    print(
        f"encoder: {search.semantic.encoder.backend}, default hybrid BM25 weight "
        f"{search.bm25_weight}"
    )
    results = {}
    for mode in engine.MODES:
        m, ranked, seconds = evaluate(search, questions, relevant, mode)
        results[mode] = (m, ranked)
        print(line(mode, m, f"   ({seconds * 1000:.1f} ms a query)"))
    best_single = max(results["bm25"][0]["mrr"], results["semantic"][0]["mrr"])
    hybrid = results["hybrid"][0]
    beats = all(hybrid[k] >= max(results["bm25"][0][k], results["semantic"][0][k]) for k in hybrid)
    print(
        f"hybrid beats both single modes on every metric: {'PASS' if beats else 'FAIL'}"
        f" (MRR {hybrid['mrr']:.3f} vs best single {best_single:.3f})"
    )

    styles = sorted({q["style"] for q in questions})
    print("\nMRR by question style")
    print(f"{'style':<12} {'n':>4}  " + "  ".join(f"{m:>8}" for m in engine.MODES))
    for style in styles:
        idx = [i for i, q in enumerate(questions) if q["style"] == style]
        row = []
        for mode in engine.MODES:
            ranked = results[mode][1]
            row.append(build.metrics([ranked[i] for i in idx], [relevant[i] for i in idx])["mrr"])
        print(f"{style:<12} {len(idx):>4}  " + "  ".join(f"{x:>8.3f}" for x in row))

    if args.weights:
        print("\nhybrid BM25 weight sweep")
        for weight in (float(w) for w in args.weights.split(",")):
            search.bm25_weight = weight
            m, _, _ = evaluate(search, questions, relevant, "hybrid")
            print(line(f"weight {weight:.2f}", m))
    if workdir is not None:
        workdir.cleanup()
    return 0 if beats else 1


if __name__ == "__main__":
    raise SystemExit(main())
