"""Stable numbers for fact ids, for clients that key memories by integer (MicroClaw).

A fact id (`fact-<uuid hex>`, or whatever id a hand-written file uses) maps to a
positive int64: the first 8 bytes of its sha256, big-endian, with the sign bit cleared,
and 0 (which clients read as "no id") mapped to 1. Nothing is stored: the number is a
pure function of the id, the same in every process and after every restart. The
reverse (number -> id) is the caller's index over the vault's facts; with 2**63 values,
a collision among a vault's facts is not expected (birthday bound ~3e9 facts).
"""

from __future__ import annotations

import hashlib

_INT63 = 2**63 - 1


def fact_number(fact_id: str) -> int:
    """The positive int64 that stands for `fact_id` (see the module doc)."""
    digest = hashlib.sha256(fact_id.encode("utf-8", "surrogatepass")).digest()
    number = int.from_bytes(digest[:8], "big") & _INT63
    return number or 1
