"""Print the injection scan's figures: precision and recall on the corpus, and its speed.

    python benchmarks/bench_injection.py
    python benchmarks/bench_injection.py --corpus PATH

The corpus (`benchmarks/eval/injection/corpus.jsonl`) holds one JSON object a line:
`{"text": ..., "kind": "<kind>" | null, "note": ...}`. An attack counts as caught when the
scan flags it (recall), and per kind when its kind is among the findings; a benign text
counts as a false positive when the scan flags it at all (precision). Speed: µs per scan
of the corpus's benign texts (typical facts) and seconds for 1 MB hostile inputs that
are cut at the size cap.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from vault_app.core import injection

CORPUS = Path(__file__).resolve().parent / "eval" / "injection" / "corpus.jsonl"
MEGABYTE = 1_000_000
RECALL_TARGET, FP_TARGET = 0.95, 0.02  # issue 27


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def quality(rows: list[dict]) -> None:
    attacks = [r for r in rows if r["kind"] is not None]
    benign = [r for r in rows if r["kind"] is None]
    flagged = {id(r): injection.scan(r["text"]) for r in rows}
    caught = [r for r in attacks if flagged[id(r)]]
    false_pos = [r for r in benign if flagged[id(r)]]
    misses = [r for r in attacks if not any(f.kind == r["kind"] for f in flagged[id(r)])]
    true_pos = len(caught)
    precision = true_pos / max(1, true_pos + len(false_pos))
    recall = true_pos / max(1, len(attacks))
    fp_rate = len(false_pos) / max(1, len(benign))
    print(f"corpus: {len(attacks)} attacks, {len(benign)} benign texts")
    print(
        f"precision {precision:.3f}  recall {recall:.3f} (target >= {RECALL_TARGET})  "
        f"false-positive rate {fp_rate:.3f} (target <= {FP_TARGET})"
    )
    totals = Counter(r["kind"] for r in attacks)
    kind_hits = Counter(r["kind"] for r in attacks if r not in misses)
    for kind in injection.KINDS:
        if totals[kind]:
            print(
                f"  {kind:<13} recall {kind_hits[kind] / totals[kind]:.3f}"
                f"  ({kind_hits[kind]}/{totals[kind]})"
            )
    print(f"false positives: {len(false_pos)}")
    for r in false_pos:
        print(f"  {r['text']!r}: {[f.rule for f in flagged[id(r)]]}")
    print(f"false negatives (kind not found): {len(misses)}")
    for r in misses:
        print(f"  [{r['kind']}] {r['text']!r}: {[f.rule for f in flagged[id(r)]]}")


def per_call_us(texts: list[str], rounds: int = 20) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for text in texts:
            injection.scan(text)
        samples.append((time.perf_counter() - start) / len(texts))
    return statistics.median(samples) * 1e6


def hostile_inputs() -> dict[str, str]:
    """1 MB texts built to make bounded-but-greedy rules work hardest."""
    return {
        "repeated 'ignore '": "ignore " * (MEGABYTE // 7),
        "'<a ' without '>'": "<a " * (MEGABYTE // 3),
        "'curl ' without pipe": "curl x.y " * (MEGABYTE // 9),
        "zero-width every 2nd char": "a\u200b" * (MEGABYTE // 2),
        "fullwidth letters": "ｉｇｎｏｒｅ ａｌｌ " * (MEGABYTE // 11),
        "one long token": "sk-" + "a1" * (MEGABYTE // 2),
        "url params": "https://x.example/?" + "k=v&" * (MEGABYTE // 4),
    }


def speed(rows: list[dict]) -> None:
    injection.rules()  # the one-time load is not part of a scan
    benign = [r["text"] for r in rows if r["kind"] is None]
    ascii_texts = [t for t in benign if t.isascii()]
    other = [t for t in benign if not t.isascii()]
    print(
        f"scan of a typical fact: {per_call_us(benign):.1f} µs median "
        f"(ASCII {per_call_us(ascii_texts):.1f} µs, non-ASCII {per_call_us(other):.1f} µs; "
        f"{len(injection.rules())} rules, mean {statistics.mean(map(len, benign)):.0f} chars)"
    )
    capped = "ignore previous instructions " * (injection.MAX_SCAN_CHARS // 29)
    start = time.perf_counter()
    injection.scan(capped)
    print(
        f"scan of a text at the cap ({len(capped):,} chars): "
        f"{(time.perf_counter() - start) * 1e3:.1f} ms"
    )
    for name, text in hostile_inputs().items():
        start = time.perf_counter()
        found = injection.scan(text)
        took = time.perf_counter() - start
        print(
            f"1 MB hostile input, {name}: {took * 1e3:.1f} ms, "
            f"{len(found)} findings ({', '.join(sorted({f.kind for f in found}))})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    rows = load(args.corpus)
    quality(rows)
    speed(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
