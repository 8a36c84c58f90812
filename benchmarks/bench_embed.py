"""Print the embedding figures of the search issue: speed, agreement, cache reopen, query time.

    python benchmarks/bench_embed.py                 # 4,000 texts; 200k figures projected
    python benchmarks/bench_embed.py --facts 2000    # fewer texts for the speed and agreement
    python benchmarks/bench_embed.py --full          # also embed all 200,000 facts for real
    python benchmarks/bench_embed.py --model FOLDER  # another model (a local folder)

Texts ("realistic"): every fact, summary and daily entry of the demo vault (written to a
temporary folder), the hand-written facts of benchmarks/eval/extra_facts.json, facts of the
largest vault under ./bench-vaults/ (word-like sentences of 8-25 words, made by
make_vault.py), and sentences spliced from two real facts, to `--facts` distinct texts.
Plain sentence-transformers (batch 32, the reference) and the chosen encoder (what
`load_encoder()` returns) encode them all; the speed is texts per second of wall time,
the best of `--rounds`, in alternating order. Every cosine is of one text's two vectors.

The 200,000-document figures use the bench vault's facts: with `--full`, all of them are
embedded through the EmbeddingCache (the first-time cost, measured), else random unit
vectors stand in (said so in the output) and the time to embed is projected from the
throughput. Reopen is a new EmbeddingCache reading the files plus `get_or_encode` of every
text (asserted to encode nothing) plus filling the engine's `VectorRows`. A query is
`VectorRows.top(text, 10)`: encode and score, median over `--queries` queries.
Run it on a quiet machine: it prints the load average next to each speed.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from vault_app.search import embedding_cache, embedding_model, encoders, semantic, vector_rows

ROOT = Path(__file__).resolve().parent.parent
QUERIES = (
    "who fixes our pipes",
    "when is the next dentist appointment",
    "flight to Lisbon",
    "how much do we save each month",
    "roof repair quote",
    "what does the dog need every month",
    "router password",
    "who is the electrician",
    "school bus time",
    "insurance renewal",
    "allergies in the family",
    "what did the contractor say about the bathroom",
    "tax deadline",
    "garden watering schedule",
    "solar panels cost",
    "mortgage rate",
    "where are the spare keys",
    "birthday dinner reservation",
    "basement humidity",
    "doctor recommended physiotherapy",
)


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def bench_vault(path: str | None) -> Path | None:
    if path:
        return Path(path)
    found = [
        Path(v) for v in glob.glob(str(ROOT / "bench-vaults" / "*")) if Path(v, "global").is_dir()
    ]
    if not found:
        return None
    return max(found, key=lambda v: sum(1 for _ in v.rglob("items.json")))


def vault_facts(vault: Path, limit: int | None = None) -> list[str]:
    facts: list[str] = []
    for items in sorted(vault.rglob("items.json")):
        if ".vault" in items.parts or not items.is_file():
            continue  # backups and caches
        facts.extend(str(item["fact"]) for item in orjson.loads(items.read_bytes()))
        if limit is not None and len(facts) >= limit:
            break
    return facts


def demo_texts() -> list[str]:
    from vault_app.core import demo

    texts: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        demo.create_demo(Path(folder) / "demo")
        root = Path(folder) / "demo"
        texts.extend(vault_facts(root))
        for summary in root.glob("global/life/**/summary.md"):
            texts.extend(p.strip() for p in summary.read_text().split("\n\n")[1:2] if p.strip())
        for note in (n for n in root.rglob("daily/*.md") if ".vault" not in n.parts):
            parts = re.split(r"^## .*$", note.read_text(), flags=re.MULTILINE)[1:]
            texts.extend(part.strip() for part in parts if part.strip())
    extra = json.loads((ROOT / "benchmarks" / "eval" / "extra_facts.json").read_text())
    for entity in extra["entities"]:
        texts.append(entity["summary"])
        texts.extend(fact["fact"] for fact in entity["facts"])
    return texts


def realistic_texts(count: int, vault: Path | None, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    real = list(dict.fromkeys(demo_texts()))
    texts = list(real)
    if vault is not None:
        synthetic = vault_facts(vault, limit=20_000)
        rng.shuffle(synthetic)
        texts.extend(synthetic[: max(0, (count - len(real)) // 2)])
    while len(set(texts)) < count:
        a, b = (t.split() for t in rng.sample(real, 2))
        texts.append(" ".join(a[: max(1, len(a) // 2)] + b[len(b) // 2 :]))
    return list(dict.fromkeys(texts))[:count]


def timed(encode: Callable[[Sequence[str]], np.ndarray], texts: Sequence[str]) -> float:
    start = time.perf_counter()
    encode(texts)
    return len(texts) / (time.perf_counter() - start)


class RandomEncoder:
    """Unit vectors from a seeded generator: stands in for the model at 200k documents."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.identity = f"random-unit-vectors|{dimension}"
        self.backend = "random"

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = 32,
        progress: Callable[[int, int], None] | None = None,
    ) -> np.ndarray:
        rng = np.random.default_rng(len(texts))
        vectors = rng.standard_normal((len(texts), self.dimension)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=4000, help="texts for speed and agreement")
    parser.add_argument("--rounds", type=int, default=2, help="timed runs of each encoder")
    parser.add_argument("--docs", type=int, default=200_000, help="documents of the index")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--vault", help="a vault whose facts to use (default: bench-vaults/)")
    parser.add_argument("--full", action="store_true", help="embed all --docs facts for real")
    parser.add_argument("--cache-dir", help="where the ONNX export lives (default: user cache)")
    parser.add_argument("--model", help="a sentence-transformers folder (default: the default)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    cache_dir = Path(args.cache_dir) if args.cache_dir else None
    vault = bench_vault(args.vault)
    texts = realistic_texts(args.facts, vault)
    words = [len(t.split()) for t in texts]
    print(
        f"texts: {len(texts)} distinct, {statistics.mean(words):.1f} words on average "
        f"(bench vault: {vault or 'none'})"
    )

    start = time.perf_counter()
    chosen = semantic.load_encoder(args.model, cache_dir=cache_dir, notice=print)
    print(f"chosen encoder: {chosen.backend}, loaded in {time.perf_counter() - start:.1f} s")
    int8 = getattr(chosen, "int8", None)
    if int8:
        print(
            f"  int8 model: {len(int8['excluded'])} of {int8['matmuls']} MatMuls kept in "
            f"float32, calibration min cosine {int8['calibration_min_cosine']}"
        )
    plain = encoders.TorchEncoder(embedding_model.resolve_model(args.model))
    exact: Any = None
    if chosen.backend != encoders.ONNX_BACKEND and chosen.backend != encoders.TORCH_BACKEND:
        exact = semantic.load_encoder(args.model, cache_dir=cache_dir, backend="onnx", int8=False)

    def plain_encode(batch: Sequence[str]) -> np.ndarray:
        return plain.model.encode(
            list(batch), batch_size=32, normalize_embeddings=True, show_progress_bar=False
        )

    runners: dict[str, Callable[[Sequence[str]], np.ndarray]] = {
        "plain sentence-transformers": plain_encode,
        f"chosen ({chosen.backend})": lambda batch: chosen.encode(batch, 32),
    }
    if exact is not None:
        runners[f"onnxruntime float32 only ({exact.backend})"] = lambda b: exact.encode(b, 32)
    warm = texts[:64]
    for run in runners.values():
        run(warm)
    best = dict.fromkeys(runners, 0.0)
    for round_ in range(args.rounds):
        names = list(runners) if round_ % 2 == 0 else list(reversed(runners))
        for name in names:
            rate = timed(runners[name], texts)
            best[name] = max(best[name], rate)
            print(f"  {name}: {rate:.0f} texts/s ({load()})")
    reference = plain_encode(texts)
    vectors = chosen.encode(texts, 32)
    cosine = (vectors * reference).sum(axis=1)
    queries_cos = (chosen.encode(list(QUERIES), 1) * plain_encode(list(QUERIES))).sum(axis=1)
    half = vectors.astype(np.float16).astype(np.float32)
    half_cos = (half * vectors).sum(axis=1) / np.linalg.norm(half, axis=1)
    speedup = best[f"chosen ({chosen.backend})"] / best["plain sentence-transformers"]
    print("\nencoding (best run)")
    for name, rate in best.items():
        print(f"  {name:48s} {rate:7.0f} texts/s")
    print(f"  speed-up of the chosen encoder: {speedup:.2f}x  [{verdict(speedup >= 2.0)}: >= 2x]")
    print(
        f"  cosine to plain, {len(texts)} texts: min {cosine.min():.5f}, mean "
        f"{cosine.mean():.5f}  [{verdict(bool(cosine.min() >= 0.99))}: min >= 0.99]"
    )
    print(f"  cosine to plain, {len(QUERIES)} queries (batch 1): min {queries_cos.min():.6f}")
    print(f"  float16 storage: min cosine {half_cos.min():.8f} to the float32 vectors")
    for name, rate in best.items():
        print(
            f"  projected first embedding of {args.docs:,} facts, {name}: "
            f"{args.docs / rate / 60:.1f} min"
        )

    print(f"\n{args.docs:,} documents")
    with tempfile.TemporaryDirectory() as folder:
        cache_root = Path(folder) / "embeddings"
        if args.full and vault is not None:
            docs = list(dict.fromkeys(vault_facts(vault, limit=args.docs)))[: args.docs]
            encoder: Any = chosen
            done = [0]

            def progress(count: int, total: int) -> None:
                if count - done[0] >= 20_000 or count == total:
                    done[0] = count
                    print(f"  ... {count:,}/{total:,} ({load()})", flush=True)

            start = time.perf_counter()
            embedding_cache.EmbeddingCache(cache_root).get_or_encode(docs, encoder, progress)
            took = time.perf_counter() - start
            print(
                f"  measured first embedding of {len(docs):,} facts (through the cache): "
                f"{took / 60:.1f} min, {len(docs) / took:.0f} facts/s"
            )
        else:
            docs = [f"document {i}" for i in range(args.docs)]
            encoder = RandomEncoder(chosen.dimension)
            embedding_cache.EmbeddingCache(cache_root).get_or_encode(docs, encoder)
            print("  (random unit vectors stand in for the model's: use --full to embed)")
        size = sum(p.stat().st_size for p in cache_root.rglob("*.npy"))
        print(f"  cache on disk: {size / 1e6:.0f} MB")

        class Refuse:
            identity, dimension, backend = encoder.identity, encoder.dimension, "refuse"

            def encode(self, *args: Any, **kwargs: Any) -> np.ndarray:
                raise AssertionError("the reopened cache encoded something")

        start = time.perf_counter()
        cache = embedding_cache.EmbeddingCache(cache_root)
        matrix = cache.get_or_encode(docs, Refuse())
        loaded = time.perf_counter() - start
        index = vector_rows.VectorRows(chosen)
        index.put_vectors(range(len(docs)), matrix)
        everything = np.ones(len(docs), dtype=bool)
        ready = time.perf_counter() - start
        del matrix
        print(
            f"  reopen: cache read and looked up {loaded:.2f} s, index ready {ready:.2f} s  "
            f"[{verdict(ready <= 3.0)}: <= 3 s]"
        )

        rng = random.Random(3)
        queries = [rng.choice(QUERIES) for _ in range(args.queries)]
        encode_ms, top_ms, total_ms = [], [], []
        for text in queries:
            start = time.perf_counter()
            vector = chosen.encode([text])[0]
            middle = time.perf_counter()
            index.top(vector, 10, everything)
            stop = time.perf_counter()
            encode_ms.append((middle - start) * 1e3)
            top_ms.append((stop - middle) * 1e3)
            start = time.perf_counter()
            index.top(text + " ", 10, everything)  # not the remembered query: encoded again
            total_ms.append((time.perf_counter() - start) * 1e3)
        median = statistics.median(total_ms)
        print(
            f"  query encode median {statistics.median(encode_ms):.1f} ms, "
            f"top-10 over {len(docs):,} median {statistics.median(top_ms):.1f} ms"
        )
        print(
            f"  semantic query (encode + top 10) median {median:.1f} ms, "
            f"p90 {sorted(total_ms)[int(0.9 * len(total_ms))]:.1f} ms  "
            f"[{verdict(median <= 30)}: <= 30 ms]  ({load()})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
