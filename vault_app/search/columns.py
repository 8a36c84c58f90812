"""The engine's document metadata as numpy columns, and the filters that become one mask over them.

`DocumentColumns` holds one row per document ever added (facts, summaries, daily entries):
kind, status, times, access count, and small vocabularies (scope, PARA category, fact
category, agent) as codes. A search's `Filters` become one vectorised mask over these
rows (`DocumentColumns.mask`), applied inside the BM25 and semantic top-k, never after it
(the owner, `documents.owner`, is a code too: whom a document is of, for the ranking);
tiers are computed for every row at query time with the vault's decay policy
(`DocumentColumns.tiers`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.core import decay
from vault_app.search import documents

BoolArray = npt.NDArray[np.bool_]

KIND_CODE = {k: i for i, k in enumerate(documents.KINDS)}
STATUS_CODE = {"active": 0, "superseded": 1}
TIER_NAMES = ("hot", "warm", "cold")


@dataclass
class Filters:
    """What a search may return; None means "any". Status is active by default."""

    kinds: frozenset[str] = frozenset(documents.KINDS)
    scope: str | frozenset[str] | None = None  # "global", "agent:<id>", or a set of them
    para: str | None = None  # projects / areas / resources / archives
    tiers: frozenset[str] | None = None  # hot / warm / cold (facts)
    status: str | None = "active"  # "active", "superseded" or None for both
    categories: frozenset[str] | None = None  # fact categories
    agent: str | None = None  # the fact's agentId, or the daily note's agent
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    date_field: str = "timestamp"  # or "lastAccessed"
    sources: frozenset[str] | None = None  # documents of these sources only ("entity:…")


class DocumentColumns:
    """Document metadata as numpy columns, one row per document ever added."""

    GROW = 1024
    CODED = ("scope", "para", "category", "agent", "owner", "turn", "cites")
    PAIRS = ("pairs_0", "pairs_1", "pairs_2", "pairs_3")  # proximity.WORDS of them

    def __init__(self) -> None:
        self.row: dict[str, int] = {}
        self.keys: list[str] = []  # key of each row
        self.size = 0
        self.version = 0  # changes with every put/drop (keys the engine's mask caches)
        self._named: dict[str, list[str | None]] = {}
        self._memos: dict[str, tuple[int, dict[Any, Any]]] = {}
        self._alloc(self.GROW)

    def _alloc(self, n: int) -> None:
        def grown(old: npt.NDArray[Any] | None, dtype: Any, fill: Any) -> npt.NDArray[Any]:
            new = np.full(n, fill, dtype=dtype)
            if old is not None:
                new[: old.size] = old
            return new

        old = getattr(self, "live", None)
        get = (lambda name: getattr(self, name)) if old is not None else (lambda name: None)
        self.live = grown(get("live"), np.bool_, False)
        self.kind = grown(get("kind"), np.int8, -1)
        self.status = grown(get("status"), np.int8, 0)
        self.timestamp = grown(get("timestamp"), np.float64, np.nan)
        self.last = grown(get("last"), np.float64, np.nan)
        self.access = grown(get("access"), np.int64, 0)
        # small vocabularies: codes into per-column lists
        self.scope = grown(get("scope"), np.int32, -1)
        self.para = grown(get("para"), np.int32, -1)
        self.category = grown(get("category"), np.int32, -1)
        self.agent = grown(get("agent"), np.int32, -1)
        self.owner = grown(get("owner"), np.int32, -1)  # documents.owner: whom it is of
        self.text_key = grown(get("text_key"), np.uint64, 0)  # documents.text_key(text)
        self.turn = grown(get("turn"), np.int32, -1)  # documents.turn: a turn's id
        self.cites = grown(get("cites"), np.int32, -1)  # documents.cites: a fact's origin
        # proximity.signatures: which adjacent token pairs it may hold, in 4 x 64 bits
        for name in self.PAIRS:
            setattr(self, name, grown(get(name), np.uint64, 0))
        if old is None:
            self.codes: dict[str, dict[str | None, int]] = {name: {} for name in self.CODED}

    def code(self, column: str, value: str | None) -> int:
        if value is None:
            return -1
        table = self.codes[column]
        if value not in table:
            table[value] = len(table)
        return table[value]

    def lookup(self, column: str, value: str | None) -> int:
        """The code of `value`, or -2 when no document has it (matches nothing)."""
        if value is None:
            return -1
        return self.codes[column].get(value, -2)

    def put_many(self, docs: Sequence[documents.SearchDoc]) -> None:
        """Write the rows of `docs` (new keys get new rows), column by column."""
        if not docs:
            return
        self.version += 1
        rows = []
        for doc in docs:
            row = self.row.get(doc.key)
            if row is None:
                row = self.row[doc.key] = self.size
                self.keys.append(doc.key)
                self.size += 1
            rows.append(row)
        if self.size > self.live.size:
            self._alloc(max(self.size, self.live.size * 2))
        index = np.asarray(rows, dtype=np.int64)
        nan = float("nan")
        self.live[index] = True
        self.kind[index] = [KIND_CODE[d.kind] for d in docs]
        self.status[index] = [STATUS_CODE[d.status] for d in docs]
        self.timestamp[index] = [nan if d.timestamp is None else d.timestamp for d in docs]
        self.last[index] = [nan if d.last_accessed is None else d.last_accessed for d in docs]
        self.access[index] = [d.access_count for d in docs]
        for column in ("scope", "para", "category", "agent"):
            getattr(self, column)[index] = [self.code(column, getattr(d, column)) for d in docs]
        self.owner[index] = [self.code("owner", documents.owner(d)) for d in docs]
        self.turn[index] = [self.code("turn", documents.turn(d)) for d in docs]
        self.cites[index] = [self.code("cites", documents.cites(d)) for d in docs]
        self.text_key[index] = documents.text_keys(d.text for d in docs)

    def put_pairs(self, keys: Sequence[str], signatures: npt.NDArray[np.uint64]) -> None:
        """The pair signatures of `keys`' rows (`proximity.signatures`: a row of four
        words each), once BM25's tokens are known."""
        at = np.fromiter((self.row[k] for k in keys), dtype=np.int64, count=len(keys))
        for word, name in enumerate(self.PAIRS):
            getattr(self, name)[at] = signatures[:, word]

    def pairs(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
        """The pair signatures of `rows` (rows x 4 words)."""
        return np.stack([getattr(self, name)[rows] for name in self.PAIRS], axis=1)

    def named(self, column: str) -> list[str | None]:
        """The values of a coded column, by code (cached until the column gains one)."""
        table = self.codes[column]
        cached = self._named.get(column)
        if cached is None or len(cached) != len(table):
            cached = self._named[column] = list(table)  # a dict keeps the codes' order
        return cached

    def memo(self, name: str) -> dict[Any, Any]:
        """A cache of what is worked out from the rows, emptied when they change."""
        version, table = self._memos.get(name, (-1, {}))
        if version != self.version:
            table = {}
            self._memos[name] = (self.version, table)
        return table

    def rows_by_code(self, column: str) -> dict[int, list[int]]:
        """The live rows of each code of a coded column (cached until the rows change)."""
        cached = self.memo("rows by code")
        if column not in cached:
            n = self.size
            codes = getattr(self, column)[:n]
            rows = np.flatnonzero((codes >= 0) & self.live[:n])
            grouped: dict[int, list[int]] = {}
            for row, code in zip(rows.tolist(), codes[rows].tolist(), strict=True):
                grouped.setdefault(code, []).append(row)
            cached[column] = grouped
        return cached[column]

    def text_key_of(self, key: str) -> int:
        """`documents.text_key` of the text of `key`'s document (KeyError if none)."""
        return int(self.text_key[self.row[key]])

    def drop(self, key: str) -> None:
        row = self.row.get(key)
        if row is not None:
            self.live[row] = False
            self.version += 1

    _ARRAYS = (
        "live", "kind", "status", "timestamp", "last", "access",
        "scope", "para", "category", "agent", "owner", "text_key", "turn", "cites",
        "pairs_0", "pairs_1", "pairs_2", "pairs_3",
    )  # fmt: skip

    def arrays(self, keys: Sequence[str]) -> dict[str, npt.NDArray[Any]]:
        """The columns of `keys`' rows, in that order (dead rows left out): for saving."""
        order = np.fromiter((self.row[k] for k in keys), dtype=np.int64, count=len(keys))
        return {name: getattr(self, name)[order] for name in self._ARRAYS}

    @classmethod
    def from_arrays(
        cls,
        keys: list[str],
        arrays: dict[str, npt.NDArray[Any]],
        codes: dict[str, dict[str | None, int]],
    ) -> DocumentColumns:
        """Columns as `arrays` saved them: row i is `keys[i]`; no per-row Python work."""
        columns = cls.__new__(cls)
        columns.keys = keys
        columns.row = {k: i for i, k in enumerate(keys)}
        columns.size = len(keys)
        columns.version = 0
        for name in cls._ARRAYS:
            array = arrays[name]
            if array.shape != (len(keys),):
                raise ValueError(f"column {name} has {array.shape}, expected ({len(keys)},)")
            setattr(columns, name, array.copy())
        columns.codes = {name: dict(table) for name, table in codes.items()}
        columns._named, columns._memos = {}, {}
        return columns

    def tiers(self, policy: decay.DecayPolicy, now: float) -> npt.NDArray[np.int8]:
        """0 hot, 1 warm, 2 cold for every row (by days since last touch and accesses)."""
        n = self.size
        last = self.last[:n]
        days = np.where(np.isnan(last), decay.NEVER, np.floor((now - np.nan_to_num(last)) / 86400))
        # the policy's table, vectorised by its rule: level i + 1 once access > above[i]
        # (ascending, so the last that holds wins; as fast as the search ever was)
        table = policy.threshold_table()
        hot = np.full(n, table.hot_days[0], dtype=np.float64)
        warm = np.full(n, table.warm_days[0], dtype=np.float64)
        for index, floor in enumerate(table.above, start=1):
            above = self.access[:n] > floor
            hot[above] = table.hot_days[index]
            warm[above] = table.warm_days[index]
        return np.where(days <= hot, 0, np.where(days <= warm, 1, 2)).astype(np.int8)

    def mask(self, filters: Filters, tiers: npt.NDArray[np.int8] | None) -> BoolArray:
        n = self.size
        keep = self.live[:n].copy()
        kinds = [KIND_CODE[k] for k in filters.kinds]
        keep &= np.isin(self.kind[:n], kinds)
        if filters.scope is not None:
            scopes = [filters.scope] if isinstance(filters.scope, str) else filters.scope
            keep &= np.isin(self.scope[:n], [self.lookup("scope", s) for s in scopes])
        if filters.para is not None:
            keep &= self.para[:n] == self.lookup("para", filters.para)
        if filters.status is not None:
            keep &= self.status[:n] == STATUS_CODE[filters.status]
        if filters.categories is not None:
            codes = [self.lookup("category", c) for c in filters.categories]
            keep &= np.isin(self.category[:n], codes)
        if filters.agent is not None:
            keep &= self.agent[:n] == self.lookup("agent", filters.agent)
        if filters.tiers is not None and tiers is not None:
            wanted = [TIER_NAMES.index(t) for t in filters.tiers]
            is_fact = self.kind[:n] == KIND_CODE[documents.FACT]
            keep &= ~is_fact | np.isin(tiers, wanted)
        if filters.since is not None or filters.until is not None:
            values = self.last[:n] if filters.date_field == "lastAccessed" else self.timestamp[:n]
            with np.errstate(invalid="ignore"):
                if filters.since is not None:
                    keep &= values >= decay.as_aware(filters.since).timestamp()
                if filters.until is not None:
                    keep &= values <= decay.as_aware(filters.until).timestamp()
        return keep
