"""A vault with a backlog of daily-note entries for the heartbeat's process tests (a kill
mid-run, two runs at once, serve stopped mid-run), and what the heartbeat wrote in it."""

from __future__ import annotations

import collections
import datetime as dt
import random
from collections.abc import Callable
from pathlib import Path

import orjson

from vault_app.core import layout
from vault_app.core.vault import Vault

MARIA = layout.EntityRef.parse("areas/people/maria")
ENTRIES = 400


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def backlog_vault(root: Path) -> Vault:
    """A vault whose daily notes hold ENTRIES new preferences of Maria, each distinct."""
    return _notes_vault(root, 14, ENTRIES, lambda rng: (
        f"Maria prefers {pseudo_word(rng)} with {pseudo_word(rng)}."
    ))  # fmt: skip


def changing_vault(root: Path, entries: int = ENTRIES) -> Vault:
    """A vault whose daily notes change Maria's favourite colour `entries` times: each
    entry's fact supersedes the one before (a rerun must not bring an old value back)."""
    return _notes_vault(
        root, 15, entries, lambda rng: f"Maria's favourite colour is {pseudo_word(rng)}."
    )


def _notes_vault(
    root: Path, seed: int, entries: int, text: Callable[[random.Random], str]
) -> Vault:
    """A vault with Maria's entity and `entries` global daily entries, 7 minutes apart."""
    vault = Vault.create(root)
    vault.create_entity(MARIA)
    rng = random.Random(seed)
    start = dt.datetime(2026, 11, 1, 8, 0).astimezone()
    for i in range(entries):
        vault.append_daily(text(rng), at=start + dt.timedelta(minutes=7 * i))
    return vault


def active(root: Path) -> list[str]:
    """The texts of Maria's active facts."""
    raw = orjson.loads((root / "global/life/areas/people/maria/items.json").read_bytes())
    return [f["fact"] for f in raw if f.get("status") == "active"]


def written(root: Path) -> collections.Counter[tuple[str, str, str]]:
    """(entry ref, fact, status) of every fact the heartbeat wrote, counted."""
    raw = orjson.loads((root / "global/life/areas/people/maria/items.json").read_bytes())
    return collections.Counter(
        (f["metadata"]["heartbeat"]["entry"], f["fact"], f["status"])
        for f in raw
        if f.get("source") == "heartbeat"
    )


def heartbeat_count(path: Path) -> int:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    return data.count(b'"source":"heartbeat"') + data.count(b'"source": "heartbeat"')
