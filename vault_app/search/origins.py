"""Where a fact was taken from: the daily entries it cites, for hybrid to weigh it by them.

A fact is a conversation's sentence rewritten ("Caroline went to a LGBTQ support group on
2023-05-07"), and a question is often asked in the words of the turn it came from ("When
did Caroline go to the support group?" / "**Caroline** (D1:3): I went to a LGBTQ support
group yesterday and it was so powerful."). So a fact candidate gains from how well the
entries it was taken from answer the query (`fusion.ORIGIN`). A fact names them
(`documents.cites`, a coded column) in one of two ways:

- the heartbeat's `metadata.heartbeat.entry`: `<note path>@<time>#<sha256 of the text, 12
  hex>[.n]` (`heartbeat.extraction.Entry.ref`): the entry of that note whose text has
  that hash (`columns.text_key` holds the first 8 bytes of every document's);
- a `source` made of turn ids ("D1:3 D1:4"): the entries whose header carries them
  ("**Caroline** (D1:3): …", `documents.turn`, a coded column too).

Only entries the search may read count: live, and in a scope the query's filters allow
(an agent's fact never gains from another agent's private note, nor says anything of it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from vault_app.core import layout
from vault_app.search import documents

if TYPE_CHECKING:
    from vault_app.search.engine import SearchEngine


def linked(
    engine: SearchEngine, keys: Iterable[str], scope: str | frozenset[str] | None
) -> dict[str, list[str]]:
    """The fact keys among `keys` that cite entries the query may read, with those entries'
    keys."""
    columns = engine.columns
    if not columns.codes["cites"]:
        return {}  # no fact of the vault cites anything: nothing to pay
    rows = [columns.row[k] for k in keys if k.startswith("fact:") and k in columns.row]
    if not rows:
        return {}
    at = np.asarray(rows, dtype=np.int64)
    codes = columns.cites[at]
    citing = np.flatnonzero(codes >= 0)
    if citing.size == 0:
        return {}
    named = columns.named("cites")
    allowed = None
    if scope is not None:
        scopes = [scope] if isinstance(scope, str) else scope
        allowed = {columns.lookup("scope", s) for s in scopes}
    resolved = columns.memo("origins")  # a cited code's entry rows, until the rows change
    out: dict[str, list[str]] = {}
    for index in citing.tolist():
        code = int(codes[index])
        found = resolved.get(code)
        if found is None:
            cited = named[code]
            found = resolved[code] = _entry_rows(engine, cited) if cited else []
        entries = [
            columns.keys[r]
            for r in found
            if columns.live[r] and (allowed is None or int(columns.scope[r]) in allowed)
        ]
        if entries:
            out[columns.keys[rows[index]]] = entries
    return out


def _entry_rows(engine: SearchEngine, cited: str) -> list[int]:
    if "@" in cited and "#" in cited:
        return _ref_rows(engine, cited)
    by_turn = engine.columns.rows_by_code("turn")
    out: list[int] = []
    for word in cited.split():
        code = engine.columns.lookup("turn", word)
        out += by_turn.get(code, []) if code >= 0 else []
    return out


def _ref_rows(engine: SearchEngine, ref: str) -> list[int]:
    """The rows of the entry a heartbeat ref names: in its note, the one whose text has
    its hash (the first of equal texts: they score alike)."""
    path, _, rest = ref.partition("@")
    digest = rest.partition("#")[2].partition(".")[0]
    parts = path.split("/")
    day = layout.parse_daily_name(parts[-1]) if parts else None
    if day is None or len(digest) != 12:
        return []
    if parts[:2] == ["global", "daily"] and len(parts) == 3:
        scope = layout.GLOBAL_SCOPE
    elif len(parts) == 4 and parts[0] == "agents" and parts[2] == "daily":
        scope = documents.scope_of(parts[1])
    else:
        return []
    try:
        wanted = bytes.fromhex(digest)
    except ValueError:
        return []
    columns = engine.columns
    for key in engine.state.by_source.get(documents.daily_source(scope, day), ()):
        row = columns.row.get(key)
        if row is not None and int(columns.text_key[row]).to_bytes(8, "little")[:6] == wanted:
            return [row]
    return []
