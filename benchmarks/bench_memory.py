"""Memory of a resident search engine on the 200,000-fact benchmark vault (issue 13's figures).

    .venv/bin/python benchmarks/bench_memory.py [--vault PATH] [--work DIR] [--queries N]
                                                [--untuned] [--encode]

`vault-app serve` keeps the search engine (BM25 and the semantic vectors) loaded, so its
resident size counts: the targets are ≤ 600 MB resident with BM25 and the vectors
loaded, and ≤ 800 MB at the peak of the first index build. Every figure here comes from
a fresh child process (`--child`), which reads its own peak (VmHWM) and resident size
(VmRSS) from /proc/self/status; the parent checks the peak against
`getrusage(RUSAGE_CHILDREN).ru_maxrss`.

The vault is copied once into `--work` (default /tmp/vault-app-bench-memory), so the
benchmark vault itself is never written. The figures:

- cold open: the search index's caches (`.vault/cache/search/`: documents, columns,
  BM25) removed, so the engine scans the vault, builds BM25 and saves it; the
  embedding cache (`.vault/cache/embeddings/`) is kept, because encoding 200,000
  texts takes 15-25 minutes here: the vectors come from it. `--encode` fills it once
  (in the work copy) when it is empty; without vectors the semantic rows are skipped.
- warm open: everything cached, BM25 and the vectors loaded, then `--queries` hybrid
  queries (2-4 words of random facts).
- the same warm open for BM25 only, the encoder alone (the ONNX model plus one query),
  and the interpreter with the engine's imports: where the resident size goes.

The children are tuned as the CLI tunes its process (`process_tuning.tune_process()`); with
`--untuned` the warm opens are measured in an untuned process too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESIDENT_TARGET = 600  # MB, BM25 and the vectors loaded
BUILD_PEAK_TARGET = 800  # MB, the first index build


def status() -> dict[str, int]:
    """VmHWM (the peak) and VmRSS of this process, in MB."""
    found = {}
    with open("/proc/self/status", encoding="ascii") as lines:
        for line in lines:
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                found[name] = int(value.split()[0]) // 1024
    return found


# -- the child: one measurement in a fresh process ------------------------------------------


def child(args: argparse.Namespace) -> None:
    from vault_app.core import process_tuning

    process_tuning.tune_process(not args.untuned)
    if args.child == "imports":
        from vault_app.core import vault
        from vault_app.search import engine

        print(json.dumps({"open": status()}))
        return
    if args.child == "encoder":
        from vault_app.search import semantic

        encoder = semantic.load_encoder(None)
        encoder.encode(["what does the plumber think about the kitchen sink"])
        print(json.dumps({"open": status(), "backend": encoder.backend}))
        return
    from vault_app.core import vault
    from vault_app.search import documents, engine

    started = time.perf_counter()
    search, report = engine.open_engine(vault.Vault(args.vault), semantic=args.semantic)
    seconds = time.perf_counter() - started
    result: dict[str, Any] = {
        "open": status(),
        "seconds": seconds,
        "loaded": report.loaded,
        "documents": report.documents,
        "semantic": search.semantic is not None,
        "notice": search.semantic_notice,
    }
    if args.queries:
        rng = random.Random(7)
        keys = [k for k in search.state.docs if k.startswith("fact:")]
        queries = []
        for key in rng.sample(keys, args.queries):
            words = sorted({w for w in search.state.docs[key].text.lower().split() if len(w) > 3})
            queries.append(" ".join(rng.sample(words, min(len(words), rng.randint(2, 4)))))
        only_facts = engine.Filters(kinds=frozenset({documents.FACT}))
        for query in queries:
            search.search(query, mode="hybrid", filters=only_facts, limit=10)
        result["queries"] = status()
    print(json.dumps(result))


# -- the parent: the work copy, the children, the table -----------------------------------


def run_child(args: argparse.Namespace, kind: str, **options: Any) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", kind, "--vault", str(options["vault"])]
    if options.get("semantic"):
        command.append("--semantic")
    if options.get("untuned"):
        command.append("--untuned")
    command += ["--queries", str(options.get("queries", 0))]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {kind} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    # ru_maxrss of the children is the largest of any so far: a check, not a figure
    result["children_max"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return result


def has_vectors(work: Path) -> bool:
    return any((work / ".vault" / "cache" / "embeddings").glob("*/*.vec.npy"))


def row(label: str, peak: int | None, rss: int | None, target: str = "", ok: bool | None = None):
    verdict = "" if ok is None else ("PASS" if ok else "FAIL")
    cells = [f"{v} MB" if v is not None else "" for v in (peak, rss)]
    print(f"{label:<46}{cells[0]:>10}{cells[1]:>10}   {target:<22}{verdict}".rstrip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=Path("/work/bench-vaults/v10000x20-s1"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/vault-app-bench-memory"))
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--untuned", action="store_true", help="also measure untuned opens")
    parser.add_argument("--encode", action="store_true", help="fill the embedding cache once")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--semantic", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0

    work = args.work / "vault"
    if not work.is_dir():
        if not args.vault.is_dir():
            raise SystemExit(
                f"no vault at {args.vault}: make it with benchmarks/make_vault.py "
                "--entities 10000 --facts-per-entity 20 --seed 1"
            )
        args.work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cp", "-a", str(args.vault), str(work)], check=True)
    if not has_vectors(work) and args.encode:
        print("encoding every document once into the work copy's embedding cache ...")
        run_child(args, "open", vault=work, semantic=True)
    vectors = has_vectors(work)
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}; work copy {work}"
    )
    print(
        "embedding cache: "
        + ("kept (vectors read from it)" if vectors else "empty: semantic rows skipped (--encode)")
    )
    print("removed for the cold open: .vault/cache/search/ (docs.jsonl, columns.npz, bm25/)")
    print()
    print(f"{'figure (tuned as the CLI)':<46}{'peak':>10}{'RSS':>10}   target")

    shutil.rmtree(work / ".vault" / "cache" / "search", ignore_errors=True)
    cold = run_child(args, "open", vault=work, semantic=vectors)
    assert not cold["loaded"]
    label = "cold open: scan + BM25 build + save" + (" + vectors" if vectors else "")
    peak = cold["open"]["VmHWM"]
    row(
        label,
        peak,
        cold["open"]["VmRSS"],
        f"peak ≤ {BUILD_PEAK_TARGET} MB",
        peak <= BUILD_PEAK_TARGET,
    )
    print(f"{'':<46}({cold['seconds']:.1f} s, {cold['documents']:,} documents)")

    if vectors:
        warm = run_child(args, "open", vault=work, semantic=True, queries=args.queries)
        assert warm["loaded"] and warm["semantic"], warm
        rss = warm["open"]["VmRSS"]
        row(
            "warm open: BM25 + vectors",
            warm["open"]["VmHWM"],
            rss,
            f"RSS ≤ {RESIDENT_TARGET} MB",
            rss <= RESIDENT_TARGET,
        )
        rss = warm["queries"]["VmRSS"]
        row(
            f"  after {args.queries} hybrid queries",
            warm["queries"]["VmHWM"],
            rss,
            f"RSS ≤ {RESIDENT_TARGET} MB",
            rss <= RESIDENT_TARGET,
        )
        print(f"{'':<46}(open {warm['seconds']:.1f} s)")
    bm25 = run_child(args, "open", vault=work, queries=0)
    row("warm open: BM25 only", bm25["open"]["VmHWM"], bm25["open"]["VmRSS"])
    if vectors:
        encoder = run_child(args, "encoder", vault=work)
        row(f"encoder alone ({encoder['backend']})", None, encoder["open"]["VmRSS"])
    imports = run_child(args, "imports", vault=work)
    row("interpreter + the engine's imports", None, imports["open"]["VmRSS"])
    if args.untuned:
        print(f"\n{'untuned (the library default)':<46}{'peak':>10}{'RSS':>10}")
        if vectors:
            warm = run_child(args, "open", vault=work, semantic=True, untuned=True)
            row("warm open: BM25 + vectors", warm["open"]["VmHWM"], warm["open"]["VmRSS"])
        bm25 = run_child(args, "open", vault=work, untuned=True)
        row("warm open: BM25 only", bm25["open"]["VmHWM"], bm25["open"]["VmRSS"])
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(f"\nlargest child peak (getrusage RUSAGE_CHILDREN): {largest} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
