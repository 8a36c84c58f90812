"""Print how `vault-app import` takes a large ChatGPT export: wall time, throughput and the
process's peak memory beside the file's size (streamed: the peak stays flat as the file
grows, it is never loaded whole).

    python benchmarks/bench_import.py              # a 100 MB export
    python benchmarks/bench_import.py --mb 500     # the size people's exports reach

The export is generated in a temporary folder in ChatGPT's shape (`conversations.json`:
conversations of 20 messages, each a tree with a regenerated side branch, spread over two
years, two a day), then imported by a real `vault-app import FILE --into VAULT --json`
process into a new vault; its peak resident size is the child's `ru_maxrss`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = (
    "the plumber came on tuesday and fixed the leak under the kitchen sink we paid cash "
    "maya starts piano lessons in march and theo wants a bike for his birthday the roof "
    "needs new shingles before winter remember that the recycling pickup moved to thursdays"
)
WORDS = TEXT.split(" ")


def conversation(i: int, start: float) -> dict:
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None}}
    parent, at = "root", start + i * 43_200.0
    for m in range(20):
        nid = f"n{m}"
        role = "user" if m % 2 == 0 else "assistant"
        text = " ".join(WORDS[(i + m + k) % len(WORDS)] for k in range(60))
        mapping[nid] = {
            "id": nid,
            "parent": parent,
            "message": {
                "author": {"role": role},
                "create_time": at + m * 30,
                "content": {"content_type": "text", "parts": [text]},
            },
        }
        mapping[parent].setdefault("children", []).append(nid)
        if role == "assistant":  # a regenerated answer: a side branch
            side = f"s{m}"
            mapping[side] = {"id": side, "parent": parent, "children": [], "message": {
                "author": {"role": "assistant"}, "create_time": at + m * 30 + 5,
                "content": {"content_type": "text", "parts": ["regenerated away"]}}}  # fmt: skip
            mapping[parent]["children"].append(side)
        parent = nid
    mapping[parent]["children"] = []
    return {"title": f"Talk {i}", "conversation_id": f"c-{i}", "mapping": mapping,
            "current_node": parent}  # fmt: skip


def write_export(path: Path, megabytes: int) -> int:
    """Write conversations until the file holds `megabytes`; returns how many."""
    start = dt.datetime(2024, 1, 1).timestamp()
    n = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        while out.tell() < megabytes * 1_000_000:
            out.write(("," if n else "") + json.dumps(conversation(n, start)))
            n += 1
        out.write("]")
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="the export's size in MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        export = Path(tmp) / "conversations.json"
        count = write_export(export, args.mb)
        size = export.stat().st_size
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "vault_app", "import", str(export), "--into",
             str(Path(tmp) / "vault"), "--json"],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        report = json.loads(done.stdout)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"export: {size / 1e6:,.0f} MB, {count:,} conversations, {report['messages']:,} "
        "messages on the branches kept (the regenerated side branches are not read)"
    )
    print(
        f"import: {seconds:.1f} s ({size / 1e6 / seconds:.1f} MB/s), {report['added']:,} "
        f"entries in {report['days']:,} daily notes; peak resident size {peak_mb:,.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
