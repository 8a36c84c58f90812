"""Responsiveness of the desktop app on the 200,000-fact vault (issue 4's figures).

Runs the real main window (offscreen unless a display is set) and measures:

* **window shown**: from the start of this process (interpreter start, as `ps` sees it)
  to the window being exposed;
* **browsable**: to the sidebar holding every entity (the first scan done);
* **search ready**: to BM25 search answering;
* the **longest stall of the event loop** — how late a 10 ms QTimer heartbeat fires —
  during the load (the window's link index is built then too), during searches typed
  into the search panel, while the graph view draws the neighbourhoods of the most linked
  entities and of others at depth 1 and 2 (and refuses the whole vault), and while
  semantic search is switched on (the embedding cache loaded, and new documents encoded).

    python benchmarks/bench_gui.py [--vault bench-vaults/v10000x20-s1] [--encode 300]
    python benchmarks/bench_gui.py --graph-only   # the link index and the graph view alone

`--graph-only` opens no search index and writes nothing (the full run saves the search
index when the window closes, and `--encode` adds facts, put back at the end): it scans,
builds the link index and draws the graph view, each under the heartbeat.

The vault is made by benchmarks/make_vault.py when missing. `--encode N` adds N new facts
before the embedding phase so that some documents really are encoded (a stall there is
what a user would feel while embeddings are computed); 0 skips that phase.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

STARTED = time.time()
try:  # the process start time, so that interpreter and import time count too
    with open(f"/proc/{os.getpid()}/stat") as stat_file:
        ticks = int(stat_file.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as uptime_file:
        boot = time.time() - float(uptime_file.read().split()[0])
    STARTED = boot + ticks / os.sysconf("SC_CLK_TCK")
except (OSError, ValueError, IndexError):
    pass

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]


def as_installed() -> None:
    """Time the app as an installed one starts: with its modules' bytecode compiled (an
    editable install under PYTHONDONTWRITEBYTECODE=1, as on this machine, compiles every
    module at every start: 0.15 s more). The package is compiled here, then this script
    runs again in a new process, whose start is the one measured."""
    if os.environ.get("_BENCH_GUI_RUN") == "1":
        return
    import compileall
    import subprocess

    compileall.compile_dir(ROOT / "vault_app", quiet=1)
    env = {**os.environ, "_BENCH_GUI_RUN": "1"}
    raise SystemExit(subprocess.call([sys.executable, *sys.argv], env=env))


if __name__ == "__main__":
    as_installed()

from PySide6 import QtCore, QtWidgets  # noqa: E402

sys.path.insert(0, str(ROOT))


class StackSampler:
    """With --trace: samples the Python stacks every 5 ms, so that the worst stalls can be
    attributed. The sampler needs the interpreter too: a stall with few samples inside it
    was a call holding the interpreter, and the other threads' frames at its edges (the
    samples just before and after) say which call that was."""

    def __init__(self) -> None:
        import threading

        self.main = threading.get_ident()
        self.samples: list[tuple[float, str, str]] = []
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    @staticmethod
    def _names(frame: object, depth: int) -> str:
        names = []  # frames walked by hand: traceback would read source files
        while frame is not None and len(names) < depth:
            names.append(f"{frame.f_code.co_name}:{frame.f_lineno}")  # type: ignore[attr-defined]
            frame = frame.f_back  # type: ignore[attr-defined]
        return " <- ".join(names)

    def _run(self) -> None:
        import threading

        me = threading.get_ident()
        while not self.stop.is_set():
            frames = sys._current_frames()
            names = self._names(frames.get(self.main), 16)
            others = []
            for ident, other in frames.items():
                if ident in (self.main, me):
                    continue
                where = self._names(other, 3)
                if "wait" not in where and "_worker:" not in where:  # idle pool threads
                    others.append(where)
            self.samples.append((time.perf_counter(), names, " | ".join(others)))
            time.sleep(0.005)

    def explain(self, end: float, length: float) -> str:
        import collections

        inside = [s for s in self.samples if end - length <= s[0] <= end]
        common = collections.Counter(name for _, name, _ in inside).most_common(2)
        text = "; ".join(f"{n}×{c}" for n, c in common) or "(no sample)"
        before = [s for s in self.samples if s[0] < end - length][-1:]
        after = [s for s in self.samples if s[0] > end][:1]
        edges = [
            f"{label} [{s[2] or 'no worker'}]"
            for label, s in (*(("before", b) for b in before), *(("after", a) for a in after))
        ]
        return text + "\n        workers " + "; ".join(edges)


class Heartbeat(QtCore.QObject):
    """A 10 ms timer; records how late each tick arrives (the event loop's stalls)."""

    def __init__(self, interval_ms: int = 10) -> None:
        super().__init__()
        self.interval = interval_ms / 1000
        self.timer = QtCore.QTimer(self)
        self.timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.last = time.perf_counter()
        self.stalls: list[float] = []
        self.ends: list[float] = []
        self.sampler: StackSampler | None = None
        self.timer.start(interval_ms)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.stalls.append(max(0.0, now - self.last - self.interval))
        self.ends.append(now)
        self.last = now

    def restart(self) -> None:
        """Forget the beats so far, and count lateness from now."""
        self.last = time.perf_counter()
        self.stalls, self.ends = [], []

    def phase(self) -> list[float]:
        """The lateness samples since the last call (with --trace, the worst explained)."""
        samples, self.stalls = self.stalls, []
        ends, self.ends = self.ends, []
        if self.sampler is not None and samples:
            worst = sorted(range(len(samples)), key=samples.__getitem__)[-3:]
            for i in reversed(worst):
                why = self.sampler.explain(ends[i], samples[i])
                print(f"    stall {samples[i] * 1000:.0f} ms: {why}")
        return samples


def idle(session: object) -> bool:
    pools = (session.pool, session.refresher, session.writer)  # type: ignore[attr-defined]
    return all(pool.activeThreadCount() == 0 for pool in pools)


def wait_until(app: QtWidgets.QApplication, predicate: object, timeout: float) -> float:
    started = time.perf_counter()
    while not predicate():  # type: ignore[operator]
        if time.perf_counter() - started > timeout:
            raise TimeoutError("timed out")
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.001)
    return time.perf_counter() - started


def report(label: str, samples: list[float]) -> None:
    worst = max(samples, default=0.0) * 1000
    over = sum(1 for s in samples if s > 0.1)
    verdict = "PASS" if worst <= 100 else "FAIL"
    print(
        f"  longest stall, {label:<22} {worst:7.1f} ms  ({len(samples)} beats, "
        f"{over} over 100 ms)  target ≤ 100 ms  {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "bench-vaults" / "v10000x20-s1")
    parser.add_argument("--encode", type=int, default=300)
    parser.add_argument("--no-semantic", action="store_true")
    parser.add_argument("--trace", action="store_true", help="say where the worst stalls were")
    parser.add_argument(
        "--graph-only",
        action="store_true",
        help="only the link index and the graph view, on a session without a window or a "
        "search index (reads the vault, writes nothing)",
    )
    parser.add_argument(
        "--untuned",
        action="store_true",
        help="without the app's process tunings (app.tune_process(): collector paused and "
        "results frozen during loads, 1 ms switch interval): the library's default",
    )
    args = parser.parse_args()
    if not args.vault.is_dir():
        print(f"no vault at {args.vault}: run benchmarks/make_vault.py first", file=sys.stderr)
        return 2

    app = QtWidgets.QApplication(sys.argv)
    from vault_app.core import vault
    from vault_app.ui import app as app_module

    if not args.untuned:
        app_module.tune_process()  # as the app's composition root (`app.run`) does
    print(f"process: {'library default (untuned)' if args.untuned else 'tuned as the app'}")
    if args.graph_only:
        return graph_only(app, vault.Vault(args.vault, actor="gui"))
    store = QtCore.QSettings(str(Path("/tmp") / "bench-gui.ini"), QtCore.QSettings.Format.IniFormat)
    target = vault.Vault(args.vault, actor="gui")
    # as a user gets it: the window lists, scans, then opens search and live sync itself
    window = app_module.MainWindow(target, store, semantic=False)
    window.show()
    wait_until(app, lambda: window.isVisible() and window.windowHandle().isExposed(), 10)
    shown = time.time() - STARTED
    beat = Heartbeat()
    collections_seen: list[tuple[int, float, str]] = []
    if args.trace:
        beat.sampler = StackSampler()
        import gc
        import threading

        started_gc: list[float] = [0.0]

        def timed(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started_gc[0] = time.perf_counter()
            else:
                collections_seen.append(
                    (
                        info["generation"],
                        time.perf_counter() - started_gc[0],
                        threading.current_thread().name,
                    )
                )

        gc.callbacks.append(timed)
    window.start()
    wait_until(app, lambda: len(window.sidebar_model.addresses()) > 0, 120)
    browsable = time.time() - STARTED
    wait_until(app, lambda: window.session.engine is not None, 120)
    ready = time.time() - STARTED
    wait_until(app, lambda: idle(window.session), 60)
    load = beat.phase()

    if args.trace:
        import collections
        import gc

        tracked = gc.get_objects()
        kinds = collections.Counter(type(o).__name__ for o in tracked).most_common(8)
        print(
            f"objects the collector walks: {len(tracked):,} (frozen: {gc.get_freeze_count():,}); "
            + ", ".join(f"{n} {c:,}" for n, c in kinds)
        )
        del tracked
    print(f"vault: {args.vault} ({window.counts_label.text()})")
    print(
        f"  window shown after launch      {shown:7.2f} s   target ≤ 1 s  "
        f"{'PASS' if shown <= 1 else 'FAIL'}"
    )
    print(
        f"  vault browsable after launch   {browsable:7.2f} s   target ≤ 3 s  "
        f"{'PASS' if browsable <= 3 else 'FAIL'}"
    )
    print(f"  BM25 search ready after launch {ready:7.2f} s")
    report("during load", load)
    if collections_seen:
        worst = max(collections_seen, key=lambda c: c[1])
        print(
            f"    garbage collections: {len(collections_seen)}, longest {worst[1] * 1000:.0f} ms "
            f"(generation {worst[0]}, on thread {worst[2]})"
        )

    window.show_search()
    panel = window.search
    # words of the vault's own facts, so that every query has hits
    docs = window.session.engine.state.docs
    sample = [docs[key].text for key in list(docs)[::26_000][:8]]
    queries = [" ".join(text.split()[1:3]) for text in sample]
    hits = 0
    for query in queries:
        panel.query_edit.clear()
        for char in query:  # typed, one key at a time
            panel.query_edit.setText(panel.query_edit.text() + char)
            pause = time.perf_counter() + 0.05
            while time.perf_counter() < pause:
                app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        wait_until(app, panel.idle, 30)
        hits += panel.results.model().rowCount()
    report(f"during {len(queries)} typed searches ({hits} results shown)", beat.phase())
    window.commands["graph"].trigger()
    graph_phase(app, window.graph_view, beat)

    if not args.no_semantic:
        if args.encode:
            import uuid

            ref = target.entity_refs()[0]
            facts_file = target.entity(ref).facts_path
            original = facts_file.read_bytes()  # put back at the end: the vault is shared
            for n in range(args.encode):
                target.add_fact(ref, f"Benchmark note {uuid.uuid4().hex[:8]} number {n}", "context")
            window.session.reindex((str(ref),))
            wait_until(app, lambda: idle(window.session), 60)
            beat.restart()  # the adds above ran here, blocking: not the app's stall
        progress: list[tuple[int, int]] = []
        window.session.searchProgress.connect(lambda d, t, _l: progress.append((d, t)))
        started = time.perf_counter()
        engine = window.session.engine
        window.session.run(
            lambda: engine.enable_semantic(
                progress=lambda d, t: window.session.searchProgress.emit(d, t, "embedding")
            )
        )
        wait_until(app, lambda: engine.semantic is not None, 1200)
        elapsed = time.perf_counter() - started
        encoded = progress[-1][1] if progress else 0
        print(f"  semantic on after              {elapsed:7.2f} s ({encoded} encoded)")
        report("during embedding", beat.phase())
    window.close()
    if args.trace:  # no collection timed while the interpreter shuts down
        gc.callbacks.remove(timed)
    if not args.no_semantic and args.encode:
        facts_file.write_bytes(original)
    return 0


def graph_phase(app: QtWidgets.QApplication, graph: object, beat: Heartbeat) -> None:
    """Draw the neighbourhoods of the 5 most linked entities and of 5 others, at depth 1
    and 2, then ask for the whole vault; report the stalls meanwhile."""
    index = graph.keeper.index  # type: ignore[attr-defined]
    by_links = sorted(index.addresses, key=lambda a: (-len(index.neighbours(a)), a))
    centres = by_links[:5] + by_links[len(by_links) // 2 :: max(1, len(by_links) // 10)][:5]
    beat.restart()  # the choice above is the benchmark's, not the app's
    draws, nodes, most = 0, 0, 0
    started = time.perf_counter()

    def draw(action: object) -> None:
        nonlocal draws
        done: list[bool] = []
        graph.drawn.connect(lambda: done.append(True))  # type: ignore[attr-defined]
        action()  # type: ignore[operator]
        wait_until(app, lambda: bool(done), 60)
        graph.drawn.disconnect()  # type: ignore[attr-defined]
        draws += 1
        pause = time.perf_counter() + 0.1  # a user looks before the next click
        while time.perf_counter() < pause:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)

    for centre in centres:
        for depth_index in (0, 1):
            graph.depth_combo.setCurrentIndex(depth_index)  # type: ignore[attr-defined]
            draw(lambda c=centre: graph.show_entity(c))  # type: ignore[attr-defined]
            shown = graph.graph  # type: ignore[attr-defined]
            nodes += len(shown.depth) if shown else 0
            most = max(most, shown.total if shown else 0)
    draw(lambda: graph.whole_check.setChecked(True))  # type: ignore[attr-defined]
    refused = graph.status.text()  # type: ignore[attr-defined]
    graph.whole_check.setChecked(False)  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - started
    print(
        f"  graph view: {draws} draws in {elapsed:.1f} s ({nodes} nodes drawn; the biggest "
        f"neighbourhood held {most:,} entities); whole vault: {refused[:70]}…"
    )
    report(f"during {draws} graph draws", beat.phase())


def graph_only(app: QtWidgets.QApplication, target: object) -> int:
    """The link index and the graph view on a session alone (no window, no search index)."""
    from vault_app.ui import session
    from vault_app.ui.pages import graph_view
    from vault_app.ui.window import link_keeper

    live = session.Session(target)  # type: ignore[arg-type]
    beat = Heartbeat()
    started = time.perf_counter()
    live.rescan()
    wait_until(app, lambda: live.scan is not None, 300)
    scanned = time.perf_counter() - started
    report(f"during the scan ({scanned:.1f} s)", beat.phase())
    started = time.perf_counter()
    keeper = link_keeper.LinkKeeper(live)
    wait_until(app, lambda: keeper.ready, 300)
    built = time.perf_counter() - started
    index = keeper.index
    assert index is not None
    print(
        f"vault: {target.root} ({len(index.addresses):,} entities, "  # type: ignore[attr-defined]
        f"{index.link_count():,} links)"
    )
    print(f"  link index built in            {built:7.2f} s (off the GUI thread)")
    report("during the link index build", beat.phase())
    view = graph_view.GraphView(keeper)
    view.resize(1280, 720)
    view.show()
    graph_phase(app, view, beat)
    live.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
