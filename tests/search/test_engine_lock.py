"""The search engine's lock (`search/engine_lock.py`): queries hold it together, a change
alone and before new queries, re-entrant where a thread already holds it; and the engine's
queries do run side by side."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from vault_app.core import vault
from vault_app.search import engine, engine_lock

WAIT = 5.0  # seconds a test waits for a thread it expects to get somewhere


def started(target: object) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread


def test_queries_hold_it_together() -> None:
    lock = engine_lock.EngineLock()
    inside = threading.Barrier(3, timeout=WAIT)  # three queries inside at once, or it breaks

    def query() -> None:
        with lock.shared():
            inside.wait()

    threads = [started(query) for _ in range(3)]
    for thread in threads:
        thread.join(WAIT)
    assert not inside.broken and not any(t.is_alive() for t in threads)


def test_a_change_waits_for_the_queries_and_new_queries_wait_for_it() -> None:
    lock = engine_lock.EngineLock()
    order: list[str] = []
    query_in, let_query_go = threading.Event(), threading.Event()

    def query() -> None:
        with lock.shared():
            query_in.set()
            let_query_go.wait(WAIT)
            order.append("query ends")

    def change() -> None:
        with lock:
            order.append("change")

    def late_query() -> None:
        with lock.shared():
            order.append("late query")

    first = started(query)
    assert query_in.wait(WAIT)
    writer = started(change)
    deadline = time.monotonic() + WAIT
    while not lock._waiting and time.monotonic() < deadline:  # the change is queued
        time.sleep(0.001)
    late = started(late_query)  # behind the waiting change, though a query holds the lock
    time.sleep(0.05)
    assert order == []
    let_query_go.set()
    for thread in (first, writer, late):
        thread.join(WAIT)
    assert order == ["query ends", "change", "late query"]


def test_a_thread_holding_it_takes_it_again() -> None:
    lock = engine_lock.EngineLock()
    waiting = threading.Event()
    with lock:
        with lock, lock.shared():  # a refresh calling an apply, a search inside a change
            pass
        assert lock._owner == threading.get_ident()
    with lock.shared():

        def change() -> None:
            waiting.set()
            with lock:
                pass

        writer = started(change)
        assert waiting.wait(WAIT)
        time.sleep(0.02)
        with lock.shared():  # a query inside a query, a change waiting: no deadlock
            pass
    writer.join(WAIT)
    assert not writer.is_alive() and lock._owner is None and lock._readers == 0


def test_a_change_inside_a_query_is_refused_not_a_deadlock() -> None:
    lock = engine_lock.EngineLock()
    with lock.shared(), pytest.raises(RuntimeError, match="inside a query"):
        lock.acquire()
    with lock:  # and the lock is still usable
        pass
    with pytest.raises(RuntimeError, match="not holding it"):
        lock.release()


def test_the_engine_answers_queries_side_by_side_and_changes_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two searches are inside the engine at once (the second finishes while the first
    is held up in its BM25 ranking); a write's re-index waits for the first to finish."""
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("areas/people/joe")
    v.add_fact("areas/people/joe", "Joe Ruiz is the plumber", "context")
    search, _ = engine.open_engine(v, semantic=False)
    held_up, let_go = threading.Event(), threading.Event()
    top = search.bm25.top

    def slow_top(tokens: list[str], *args: object) -> object:
        if tokens == ["slow"]:
            held_up.set()
            let_go.wait(2 * WAIT)
        return top(tokens, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(search.bm25, "top", slow_top)
    slow = started(lambda: search.search("slow", mode="bm25"))
    assert held_up.wait(WAIT)
    found: list[engine.SearchResult] = []
    quick = started(lambda: found.append(search.search("plumber", mode="bm25")))
    quick.join(WAIT / 2)
    assert not quick.is_alive() and found[0].hits  # while the slow one is inside
    assert slow.is_alive()
    v.add_fact("areas/people/joe", "Joe works on Saturdays", "context")
    refreshed = started(lambda: search.refresh_entity("areas/people/joe"))
    time.sleep(0.05)
    assert refreshed.is_alive()  # the change waits for the query inside
    let_go.set()
    for thread in (slow, refreshed):
        thread.join(WAIT)
        assert not thread.is_alive()
    assert search.search("Saturdays", mode="bm25").hits
