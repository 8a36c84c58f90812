"""Print the sync figures (issue 31): a big merge, a fact from device A searchable on B,
and what Syncthing's temporary files cost the watcher.

    python benchmarks/bench_sync.py                 # all three
    python benchmarks/bench_sync.py --only merge    # one part: merge, latency or watcher

Merge: `sync_merge.merge_file` of an items.json of 10,000 facts against a copy where 100
facts changed on both sides (the text on one, the access count and the text on the
other), 50 facts added on each side: the time of one merge, best and median of 15, as
Syncthing's conflict copy is merged (no ancestor) and as git's driver merges (with it), in a
process tuned as the CLI and the app tune theirs (`process_tuning.tune_process()`: the
collector waits during a bulk load).

Latency: two real Syncthing daemons on 127.0.0.1 (tests/sync/syncthing_pair.py: discovery,
relays and every outside contact off; folder watch delay 1 s) share a vault. On B a
`VaultWatcher` feeds a BM25 `SearchEngine` the way `serve` and the window do
(`workspace.reindex`); a fact with a unique word is written on A and the time until B's
search answers it is taken, 20 times: p50 and p95. Syncthing's own watch delay (1 s here,
10 s by default) is part of it and is printed beside.

Watcher: files received the way Syncthing writes them (`.syncthing.<name>.tmp`, then a
rename) against the same files written the way vault-app does (its own temp file, then
a rename), 300 each, on a live watcher: how many events reached the watcher and how many
it handled (turned into a hint), and the batches.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "sync"))

from vault_app.core import formats, process_tuning, sync_merge, sync_setup
from vault_app.core import vault as vault_module

ITEMS = Path("global/life/areas/people/jane/items.json")


def fact(n: int, **more: Any) -> dict[str, Any]:
    entry = {
        "id": f"fact-{n:06d}",
        "fact": f"Fact number {n} about the household and its people",
        "category": "context",
        "timestamp": "2026-01-01T10:00:00+00:00",
        "status": "active",
        "supersededBy": None,
        "relatedEntities": ["areas/people/jane"],
        "lastAccessed": "2026-01-01T10:00:00+00:00",
        "accessCount": 3,
        "confidence": 1.0,
        "agentId": "manager",
        "metadata": {},
    }
    entry.update(more)
    return entry


def bench_merge() -> None:
    process_tuning.tune_process()  # as the CLI (the git driver) and the app run it
    base = [fact(n) for n in range(10_000)]
    ours = [dict(e) for e in base] + [fact(20_000 + n) for n in range(50)]
    theirs = [dict(e) for e in base] + [fact(30_000 + n) for n in range(50)]
    for n in range(0, 10_000, 100):  # 100 facts changed on both sides
        ours[n]["fact"] = f"Fact number {n}, changed here"
        theirs[n]["fact"] = f"Fact number {n}, changed there"
        theirs[n]["accessCount"] = 7
    data = [json.dumps(x, indent=2).encode() for x in (base, ours, theirs)]
    print("merge: items.json of 10,000 facts, 100 changed on both sides, 50 new on each")
    for label, bases in (("Syncthing (no ancestor)", []), ("git (with the ancestor)", [data[0]])):
        times = []
        for _ in range(15):
            started = time.perf_counter()
            out = sync_merge.merge_file(ITEMS, data[1], data[2], bases)
            times.append(time.perf_counter() - started)
        merged = formats.decode(ITEMS, out.data).raw
        best, median = min(times) * 1000, statistics.median(times) * 1000
        print(f"  {label}: best {best:.1f} ms, median {median:.1f} ms; {len(merged):,} entries")
    print(f"  ({out.describe()})")


def bench_latency() -> None:
    from syncthing_pair import Pair, copy_vault

    from vault_app.search import engine as engine_module
    from vault_app.watch import watcher as watcher_module
    from vault_app.workspace import reindex

    if shutil.which("syncthing") is None:
        print("latency: skipped, Syncthing is not installed (scripts/dev test installs it)")
        return
    work = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    try:
        a = vault_module.Vault.create(work / "a")
        a.create_entity("areas/people/jane", "Jane.")
        copy_vault(work / "a", work / "b")
        for folder in (work / "a", work / "b"):
            sync_setup.syncthing_ignore(folder)
        pair = Pair(work, work / "a", work / "b")
        pair.start()
        b = vault_module.Vault(work / "b")
        search, _report = engine_module.open_engine(b, semantic=False)
        lock = threading.Lock()

        def on_batch(batch: Any) -> None:
            with lock:
                reindex.Reindex.of(batch).apply(search)

        watch = watcher_module.VaultWatcher(b, on_batch, snapshot=None)
        watch.start()
        watch.wait_ready(60)
        pair.settle(120)
        times = []
        for n in range(20):
            word = f"zebrafish{n}q"
            started = time.perf_counter()
            a.add_fact("areas/people/jane", f"Jane saw a {word} in the pond", "context")
            while True:
                with lock:
                    found = search.search(word, mode="bm25").hits
                if found:
                    break
                time.sleep(0.01)
            times.append(time.perf_counter() - started)
            time.sleep(0.5)
        watch.stop()
        pair.stop()
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * len(times)) - 1)]
        print("latency: a fact written on A until B's search answers it (two Syncthing daemons)")
        print(f"  p50 {statistics.median(times):.2f} s, p95 {p95:.2f} s over {len(times)} facts")
        print("  (Syncthing's folder watch delay here: 1 s; its default is 10 s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench_watcher() -> None:
    from vault_app.watch import events as events_module
    from vault_app.watch import watcher as watcher_module

    work = Path(tempfile.mkdtemp(prefix="bench-sync-watch-"))
    try:
        v = vault_module.Vault.create(work / "v")
        folders = []
        for n in range(300):
            v.create_entity(f"projects/p{n:03d}")
            folders.append(v.paths.life_dir / f"projects/p{n:03d}")
        figures = {}
        for style in ("vault-app", "syncthing"):
            seen = [0, 0]
            batches: list[Any] = []
            real_add = events_module.Coalescer.add

            def counting(
                self: Any, event: Any, seen: list[int] = seen, real: Any = real_add
            ) -> bool:
                hinted = real(self, event)
                seen[0] += 1
                seen[1] += int(hinted)
                return bool(hinted)

            events_module.Coalescer.add = counting  # type: ignore[method-assign]
            try:
                watch = watcher_module.VaultWatcher(work / "v", batches.append, snapshot=None)
                watch.start()
                watch.wait_ready(60)
                for n, folder in enumerate(folders):
                    target = folder / "items.json"
                    data = json.dumps([fact(n, id=f"{style}-{n}")]).encode()
                    temp = folder / (
                        ".syncthing.items.json.tmp"
                        if style == "syncthing"
                        else f".items.json.{n}.ab.vault-tmp"
                    )
                    temp.write_bytes(data)
                    temp.replace(target)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    reported = {str(r) for b in batches for r in b.entities}
                    if len(reported) >= len(folders):
                        break
                    time.sleep(0.05)
                watch.stop()
            finally:
                events_module.Coalescer.add = real_add  # type: ignore[method-assign]
            figures[style] = (seen[0], seen[1], len(batches))
        print("watcher: 300 files received, each through a temporary file and a rename")
        for style, (events, hints, count) in figures.items():
            print(f"  {style:9} temp files: {events:,} events, {hints:,} handled, {count} batches")
        more = figures["syncthing"][1] / max(1, figures["vault-app"][1]) - 1
        print(f"  Syncthing's temporary files: {more * 100:+.1f} % events handled")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("merge", "latency", "watcher"))
    args = parser.parse_args()
    if args.only in (None, "merge"):
        bench_merge()
    if args.only in (None, "watcher"):
        bench_watcher()
    if args.only in (None, "latency"):
        bench_latency()


if __name__ == "__main__":
    main()
