"""Where each key of a BM25 index lives: key -> slot, shared with the caller's rows.

A BM25 index alone keeps its keys in a dict (`own`). The search engine keeps the same
keys in another dict already, key -> row of its document columns, whose rows never move
and never go (a dropped document keeps its row); at 200,000 documents a second dict of
the same keys is 14 MB. Once given those rows (`share`), the map keeps a slot per row in
an int array instead (-1: no slot), and its dict holds only the keys the rows lack (none
for the engine, which puts a document's columns before its BM25 tokens). A removal sets
-1, an addition writes the row's entry (growing the array), a compaction renumbers the
array at once (`renumber`): no change makes the dict of 200,000 keys again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


class SlotMap:
    """key -> slot: a dict of its own, or slots by the rows of a shared key -> row map."""

    def __init__(self, keys: Sequence[str] = ()) -> None:
        self.own: dict[str, int] = dict(zip(keys, range(len(keys)), strict=True))
        self.rows: Mapping[str, int] = {}  # shared, never written here
        self.slot_at: IntArray = np.zeros(0, dtype=np.int64)  # slot of each row, -1: none

    def share(
        self, rows: Mapping[str, int], slot_keys: Sequence[str | None], *, same: bool = False
    ) -> None:
        """Keep the slots of the keys `rows` has by their row (`rows` must only grow and
        never renumber a key); `slot_keys` are the keys of the slots (None where dead).
        `same`: slot i is row i of every key (no key looked up)."""
        own: dict[str, int] = {}
        if same:
            self.own, self.rows = own, rows
            self.slot_at = np.arange(len(slot_keys), dtype=np.int64)
            return
        slot_at = np.full(len(rows), -1, dtype=np.int64)
        for slot, key in enumerate(slot_keys):
            if key is None:
                continue
            row = rows.get(key)
            if row is None:
                own[key] = slot
            else:
                slot_at = _fit(slot_at, row)
                slot_at[row] = slot
        self.own, self.rows, self.slot_at = own, rows, slot_at

    def _row(self, key: str) -> int:
        """The row of `key` in the shared rows, -1 when they lack it."""
        row = self.rows.get(key)
        return -1 if row is None else row

    def get(self, key: str, default: Any = None) -> Any:
        slot = self.own.get(key)
        if slot is not None:
            return slot
        row = self._row(key)
        if 0 <= row < self.slot_at.size:
            found = int(self.slot_at[row])
            if found >= 0:
                return found
        return default

    def get_many(self, keys: Sequence[str]) -> IntArray:
        """The slot of each of `keys`, -1 where it has none (the shared rows looked up
        at once: a query asks this of its hundreds of candidates)."""
        if self.own or not self.rows:
            return np.fromiter((self.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
        rows = self.rows
        at = np.fromiter((rows.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
        inside = (at >= 0) & (at < self.slot_at.size)
        out = np.full(len(keys), -1, dtype=np.int64)
        out[inside] = self.slot_at[at[inside]]
        return out

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __getitem__(self, key: str) -> int:
        slot = self.get(key)
        if slot is None:
            raise KeyError(key)
        return int(slot)

    def __delitem__(self, key: str) -> None:
        if self.own.pop(key, None) is not None:
            return
        row = self._row(key)
        if not (0 <= row < self.slot_at.size and self.slot_at[row] >= 0):
            raise KeyError(key)
        self.slot_at[row] = -1

    def update(self, pairs: Iterable[tuple[str, int]]) -> None:
        for key, slot in pairs:
            row = self._row(key)
            if row < 0:
                self.own[key] = slot
            else:
                self.slot_at = _fit(self.slot_at, row)
                self.slot_at[row] = slot

    def renumber(self, new_slot: IntArray) -> None:
        """Slot s becomes `new_slot[s]` for every key (a compaction's renumbering)."""
        held = self.slot_at >= 0
        self.slot_at[held] = new_slot[self.slot_at[held]]
        self.own = {key: int(new_slot[slot]) for key, slot in self.own.items()}


def _fit(array: IntArray, index: int) -> IntArray:
    """`array`, or a copy long enough to hold `index` (doubling), -1 past its old end."""
    if index < array.size:
        return array
    bigger = np.full(max(index + 1, 2 * array.size, 16), -1, dtype=np.int64)
    bigger[: array.size] = array
    return bigger
