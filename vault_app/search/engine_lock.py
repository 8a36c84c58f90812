"""The search engine's lock: a change holds it alone, queries share it.

The engine's index (columns, BM25, vector rows, documents) changes only under its lock,
and every change holds it alone: a re-entrant lock, as `threading.RLock` (a refresh calls
an apply, both locking). Queries only read the index, so they share it: a resident
server with four agents searching used to answer one query after the other under a
plain lock, each holding it ~9 ms (a third of it waiting for the interpreter), so that a
query spent twice as long waiting for the lock as inside it. Shared, the queries overlap
wherever one of them runs outside the interpreter (the integer products, the reads of
the embedding cache and of docs.jsonl).

What a query writes is its own, or a cache any query may fill (the masks of a filter, a
row's document read back, the BM25 norms): idempotent, so two queries filling it at once
only do the work twice.

Changes come first: once one waits, new queries wait behind it (else a steady stream of
queries would starve live sync). A query inside a query, or inside a change, on the same
thread, passes at once. A change asked for inside a query would wait for itself: it
raises instead.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class EngineLock:
    """Exclusive (`with lock:`, re-entrant) for changes; `with lock.shared():` for queries."""

    def __init__(self) -> None:
        self._state = threading.Condition(threading.Lock())
        self._owner: int | None = None  # the thread holding it alone
        self._depth = 0  # how many times the owner took it
        self._readers = 0  # queries holding it
        self._waiting = 0  # changes waiting for it
        self._reading = threading.local()  # each thread's depth of queries

    def acquire(self) -> bool:
        me = threading.get_ident()
        with self._state:
            if self._owner == me:
                self._depth += 1
                return True
            if getattr(self._reading, "depth", 0):
                raise RuntimeError("a change to the search index was asked for inside a query")
            self._waiting += 1
            try:
                while self._owner is not None or self._readers:
                    self._state.wait()
            finally:
                self._waiting -= 1
            self._owner, self._depth = me, 1
            return True

    def release(self) -> None:
        with self._state:
            if self._owner != threading.get_ident():
                raise RuntimeError("the search index's lock released by a thread not holding it")
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._state.notify_all()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Hold it with other queries (at once if this thread holds it already)."""
        depth = getattr(self._reading, "depth", 0)
        counted = False
        if not depth and self._owner != threading.get_ident():
            with self._state:
                while self._owner is not None or self._waiting:
                    self._state.wait()
                self._readers += 1
            counted = True
        self._reading.depth = depth + 1
        try:
            yield
        finally:
            self._reading.depth = depth
            if counted:
                with self._state:
                    self._readers -= 1
                    if not self._readers:
                        self._state.notify_all()
