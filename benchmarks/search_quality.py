"""Search quality on the two labelled evaluation sets: hit@1/5/10 and MRR for each mode.

    .venv/bin/python benchmarks/search_quality.py [--set old|new|heldout|both|all|locomo]
        [--vault PATH] [--conv-vault PATH] [--weights 0.1,0.2,...] [--bm25] [--locomo FILE]
        [--model FOLDER]

The conversation set first (`--set new`, `benchmarks/eval/conversations.py`: months of chat
between two or three people, 546 questions): each question is searched for facts and for
daily-note entries apart, in each mode, and hit@1/5/10 and MRR are printed per question
kind (single-hop, multi-hop, temporal, open-domain); the no-answer questions are reported
apart, as the share the relevance floor answers with "no good matches" (beside that share
of the answerable ones). The vault is searched at the set's clock (`conversations.TODAY`).
`--set locomo` scores LoCoMo's real conversations (`benchmarks/eval/locomo.py`: the
development half in ../shared/data/locomo-dev/, or `--locomo FILE` / $VAULT_APP_LOCOMO;
said and skipped when absent), facts and turns apart, per LoCoMo category, pooled over
its samples, exactly as the data's README scores them. `--set heldout` scores the
held-out conversations (`benchmarks/eval/heldout.py`: new
people, events and phrasing, never tuned on) the same way; `--set all` runs the three.

Then the household set (`--set old`): it builds the evaluation vault (the demo household
plus `benchmarks/eval/extra_facts.json`) unless one is given, runs the 194 questions of
`benchmarks/eval/questions.jsonl` through the engine in BM25, semantic and hybrid mode
(default filters: every kind of document, active facts), and prints the metrics by mode
and by question style. With --weights it also sweeps the hybrid's BM25 weight, which is
how the default was chosen.

The relevance floor (`search.relevance`) is checked on the same questions: each mode is
run with the floor and without it, and the relevant hits in the top 10 that the floor
left out are counted (the floor's values were chosen so that there are none), beside
how many hits the floor takes from nonsense queries. `--bm25` runs BM25 alone (no
model needed); `--model FOLDER` measures another sentence-transformers model (a local
folder, as `[search] model` takes) in place of all-MiniLM-L6-v2. The exit status is 1
when hybrid does not beat both single modes on either set, or the floor loses a relevant
hit.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval import build, conversations, heldout, locomo
from vault_app.core import vault
from vault_app.search import engine, relevance

NONSENSE = (
    "asdf house",
    "zzqxv kitchen",
    "blorf the plumber",
    "what time is it",
    "weather on jupiter tomorrow",
    "favorite color of the sky",
    "good morning",
    "tell me about quantum physics",
)


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


def floor_report(
    search: engine.SearchEngine,
    questions: list[dict],
    relevant: list[set[str]],
    modes: tuple[str, ...],
) -> int:
    """Print what the relevance floor keeps and leaves out; the relevant hits it lost."""
    on = search.floor
    off = relevance.Floor(on.min_cosine, lexical_cosine=0.0, min_coverage=0.0, bm25_coverage=0.0)
    lost_total = 0
    print("\nrelevance floor (top 10 of the evaluation questions; nonsense queries at limit 50)")
    for mode in modes:
        kept: dict[bool, list[list[str]]] = {}
        mrr: dict[bool, float] = {}
        for floor in (True, False):
            search.floor = on if floor else off
            metrics, kept[floor], _ = evaluate(search, questions, relevant, mode)
            mrr[floor] = metrics["mrr"]
        search.floor = on
        lost = sum(
            len((set(without) - set(with_floor)) & wanted)
            for with_floor, without, wanted in zip(kept[True], kept[False], relevant, strict=True)
        )
        left = sum(len(set(b) - set(a)) for a, b in zip(kept[True], kept[False], strict=True))
        noise = []
        for query in NONSENSE:
            result = search.search(query, mode=mode, limit=50)
            search.floor = off
            before = len(search.search(query, mode=mode, limit=50).hits)
            search.floor = on
            noise.append(f"{query!r} {before}->{len(result.hits)}")
        print(
            f"{mode:<9} MRR {mrr[False]:.3f} without the floor, {mrr[True]:.3f} with it; "
            f"relevant hits lost: {lost}; other hits left out: {left}; " + ", ".join(noise)
        )
        lost_total += lost
    return lost_total


def line(name: str, m: dict[str, float], extra: str = "") -> str:
    return (
        f"{name:<22} hit@1 {m['hit@1']:.3f}  hit@5 {m['hit@5']:.3f}  "
        f"hit@10 {m['hit@10']:.3f}  MRR {m['mrr']:.3f}{extra}"
    )


KINDS_SEARCHED = (("facts", "fact"), ("entries", "daily"))


def conversation_report(
    path: Path | None,
    modes: tuple[str, ...],
    material: conversations.Material = conversations.TUNING,
) -> dict[str, Any]:
    """A conversation set (`benchmarks/eval/conversations.py`): hit@1/5/10 and MRR per
    question kind and mode, facts and daily entries ranked apart; the no-answer questions'
    share left with no hit by the floor, beside the answerable ones'. Returns the figures."""
    workdir = None
    if path is None:
        workdir = tempfile.TemporaryDirectory(prefix="vault-conv-")
        path, questions = conversations.build_vault(Path(workdir.name) / "conv", material)
    else:
        questions = conversations.generate(material)[1]
    v = conversations.open_vault(path)
    labels = [conversations.resolve(v, q) for q in questions]
    search, report = engine.open_engine(v, semantic="semantic" in modes, model=MODEL[0])
    which = "held-out conversation set" if material is heldout.HELDOUT else "conversation set"
    print(
        f"\n{which} {path}: {report.documents} documents, {len(questions)} questions "
        f"({', '.join(f'{k} {n}' for k, n in Counter(q['kind'] for q in questions).items())})"
    )
    figures: dict[str, Any] = {}
    answerable = [i for i, q in enumerate(questions) if q["kind"] != "no-answer"]
    for name, kind in KINDS_SEARCHED:
        filters = engine.Filters(kinds=frozenset({kind}), status="active")
        print(f"\n{name}: hit@1 / hit@5 / hit@10 / MRR by question kind and mode")
        print(f"{'kind':<12} {'n':>4}  " + "  ".join(f"{m:^27}" for m in modes))
        ranked: dict[str, list[list[str]]] = {}
        empty: dict[str, list[bool]] = {}
        weak: dict[str, list[bool]] = {}  # the top hit's raw cosine is under min_cosine
        started = time.perf_counter()
        for mode in modes:
            ranked[mode], empty[mode], weak[mode] = [], [], []
            for question in questions:
                hits = search.search(question["query"], mode=mode, limit=10, filters=filters).hits
                ranked[mode].append([h.key for h in hits])
                empty[mode].append(not hits)
                cosine = hits[0].parts.get("semantic") if hits else None
                weak[mode].append(cosine is not None and float(cosine) < search.min_cosine)
        per_query = (time.perf_counter() - started) / (len(questions) * len(modes))
        relevant = [labels[i][0] if kind == "fact" else labels[i][1] for i in range(len(questions))]
        for group in (*conversations.KINDS[:-1], "all"):
            idx = [i for i in answerable if group in ("all", questions[i]["kind"])]
            row = []
            for mode in modes:
                m = build.metrics([ranked[mode][i] for i in idx], [relevant[i] for i in idx])
                figures[f"{name}/{mode}/{group}"] = m
                row.append(f"{m['hit@1']:.3f} {m['hit@5']:.3f} {m['hit@10']:.3f} {m['mrr']:.3f}")
            print(f"{group:<12} {len(idx):>4}  " + "  ".join(f"{r:^27}" for r in row))
        if "hybrid" in modes:
            best = {
                k: max(figures[f"{name}/{m}/all"][k] for m in modes if m != "hybrid")
                for k in ("hit@1", "hit@5", "hit@10", "mrr")
            }
            beats = all(figures[f"{name}/hybrid/all"][k] >= v for k, v in best.items())
            figures[f"{name}/beats"] = beats
            print(f"hybrid beats both single modes on every metric: {'PASS' if beats else 'FAIL'}")
        unanswerable = [i for i, q in enumerate(questions) if q["kind"] == "no-answer"]
        for mode in modes:
            none = sum(empty[mode][i] for i in unanswerable) / max(len(unanswerable), 1)
            lost = sum(empty[mode][i] for i in answerable) / max(len(answerable), 1)
            figures[f"{name}/{mode}/no-answer"] = none
            print(
                f"no-answer {mode:<9} 'no good matches' on {none:.1%} of the {len(unanswerable)}"
                f" no-answer questions (and on {lost:.1%} of the answerable ones)"
            )
            if mode != "bm25":
                low = sum(weak[mode][i] for i in unanswerable) / max(len(unanswerable), 1)
                low_answerable = sum(weak[mode][i] for i in answerable) / max(len(answerable), 1)
                print(
                    f"          {'':<9} top hit's cosine under {search.min_cosine}: {low:.1%} of"
                    f" the no-answer questions, {low_answerable:.1%} of the answerable ones"
                )
        print(f"({per_query * 1000:.1f} ms a query)")
    if workdir is not None:
        workdir.cleanup()
    return figures


MODEL: list[str | None] = [None]  # --model: the embedding model measured (None: the default)


def locomo_report(modes: tuple[str, ...], data: Path | None = None) -> dict[str, Any] | None:
    """LoCoMo (`benchmarks/eval/locomo.py`): hit@1/5/10 and MRR per category and mode,
    facts and daily turns apart, pooled over the samples; None when there is no data."""
    source = locomo.locate(data)
    if source is None:
        print(f"\nLoCoMo: no data (--locomo, ${locomo.ENV}, {locomo.DATA}): skipped")
        return None
    print(f"\nLoCoMo {source}: {locomo.CREDIT}")
    ranked: dict[tuple[str, str], list[list[str]]] = {}
    asked: list[locomo.Question] = []
    seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        for built, questions in locomo.build_all(source, Path(tmp)):
            search, _ = engine.open_engine(
                vault.Vault(built.path), semantic="semantic" in modes, model=MODEL[0]
            )
            asked += questions
            started = time.perf_counter()
            for name, kind in KINDS_SEARCHED:
                filters = engine.Filters(kinds=frozenset({kind}), status="active")
                for mode in modes:
                    rows = ranked.setdefault((name, mode), [])
                    for q in questions:
                        hits = search.search(q.query, mode=mode, limit=10, filters=filters).hits
                        rows.append([h.key for h in hits])
            seconds += time.perf_counter() - started
    figures: dict[str, Any] = {}
    groups = (*locomo.CATEGORIES.values(), "all")
    for name, _kind in KINDS_SEARCHED:
        print(f"\n{name}: hit@1 / hit@5 / hit@10 / MRR by category and mode")
        print(f"{'category':<12} {'n':>4}  " + "  ".join(f"{m:^27}" for m in modes))
        for group in groups:
            idx = [
                i
                for i, q in enumerate(asked)
                if group in ("all", q.category) and (name != "facts" or q.facts)
            ]
            relevant = [set(asked[i].facts if name == "facts" else asked[i].turns) for i in idx]
            row = []
            for mode in modes:
                m = build.metrics([ranked[(name, mode)][i] for i in idx], relevant)
                figures[f"{name}/{mode}/{group}"] = m
                row.append(f"{m['hit@1']:.3f} {m['hit@5']:.3f} {m['hit@10']:.3f} {m['mrr']:.3f}")
            print(f"{group:<12} {len(idx):>4}  " + "  ".join(f"{r:^27}" for r in row))
    searches = len(asked) * len(KINDS_SEARCHED) * len(modes)
    print(f"({seconds / max(searches, 1) * 1000:.1f} ms a query)")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, help="an evaluation vault built before")
    parser.add_argument("--weights", help="comma-separated BM25 weights to sweep for hybrid")
    parser.add_argument("--bm25", action="store_true", help="BM25 alone, no model")
    parser.add_argument("--conv-vault", type=Path, help="a conversation vault built before")
    parser.add_argument(
        "--set",
        choices=("old", "new", "heldout", "both", "all", "locomo"),
        default="both",
        help="which evaluation set (both: old and new; all: the three)",
    )
    parser.add_argument("--locomo", type=Path, help="a LoCoMo file (--set locomo)")
    parser.add_argument(
        "--model", help="another embedding model (a local folder) to measure against the default"
    )
    args = parser.parse_args()
    MODEL[0] = args.model
    new_ok = True
    modes = ("bm25",) if args.bm25 else engine.MODES
    if args.set == "locomo":
        locomo_report(modes, args.locomo)
        return 0
    if args.set in ("new", "both", "all"):
        figures = conversation_report(args.conv_vault, modes)
        new_ok = all(v for k, v in figures.items() if k.endswith("/beats"))
    if args.set in ("heldout", "all"):
        figures = conversation_report(None, modes, heldout.HELDOUT)
        new_ok = new_ok and all(v for k, v in figures.items() if k.endswith("/beats"))
    if args.set in ("new", "heldout"):
        return 0 if new_ok else 1
    workdir = None
    if args.vault is None:
        workdir = tempfile.TemporaryDirectory(prefix="vault-eval-")
        args.vault = build.build_eval_vault(Path(workdir.name) / "eval")
    v = vault.Vault(args.vault)
    questions = build.load_questions()
    relevant = [build.resolve_answers(v, q) for q in questions]
    search, report = engine.open_engine(v, semantic=not args.bm25, model=MODEL[0])
    print(
        f"evaluation vault {args.vault}: {report.documents} documents, "
        f"{len(questions)} questions; index ready in {report.seconds:.1f} s"
    )
    if args.bm25:
        m, _, seconds = evaluate(search, questions, relevant, "bm25")
        print(line("bm25", m, f"   ({seconds * 1000:.1f} ms a query)"))
        return 1 if floor_report(search, questions, relevant, ("bm25",)) else 0
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
    lost = floor_report(search, questions, relevant, engine.MODES)
    if workdir is not None:
        workdir.cleanup()
    return 0 if beats and not lost and new_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
