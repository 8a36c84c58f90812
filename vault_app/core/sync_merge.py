"""Two versions of one vault file, changed on two devices at once, merged with nothing lost.

Syncthing keeps one version of a file changed on both sides and renames the other
`<name>.sync-conflict-<date>-<time>-<device><ext>`; git calls a merge driver with the
common ancestor and both sides. Both end here (`merge_file(path, ours, theirs, bases)`): one
set of rules, chosen by what the file is.

Fact files (`items.json`, `facts.json`, every shape `formats` reads)
    The union of the facts by id, ours in our order, then theirs' new ones in theirs'. A fact
    present on both sides: the access count combines — exactly when both sides counted per
    device (`metadata.accessBy`, kept once a sync set-up gave the device its id: each device's
    larger count, summed), else with the ancestor (its count plus each side's increase), else
    the larger; the last access is the later. Superseded on either side: superseded, its pointer
    kept. Different content (the text, category, related entities...): when only one side
    changed it from the ancestor, that side's; when both did (or there is no ancestor), the
    version with the later change (the side's own time when given: the file's modification time
    under Syncthing; else the fact's own times) is the active one, and the other is kept beside
    it as a superseded version with a derived id (`<id>-<8 hex of its content>`, so that merging
    again adds nothing) pointing at it. A fact superseded on the two sides by two different new
    versions: both are kept, chained in the order of their change (old → earlier → later), the
    later active. Entries without an id are kept from both sides, once each.

Daily notes (`YYYY-MM-DD.md`)
    The union of the entries, in time order (`daily.insert`: an entry both sides have is
    kept once); ours' preamble.

`§` notes (Hermes' MEMORY.md / USER.md), tiered MEMORY.md, profile.json
    By entry: ours' entries, then theirs' that ours lacks; per tier, the lines of theirs'
    body that ours' lacks, after ours'; profile keys united, a key set differently on the
    two sides taking the later side's value (the other is named in the outcome).

Documents (summary.md, TACIT.md, CONTEXT.md, AGENTS.md, index.md, any other markdown)
    A three-way merge (`text_merge.merge_text`) against the last version both sides shared.
    Which kept version that was is not written anywhere, so each version the backup ring
    offers (`bases`, newest first) is tried and the one that drops the fewest lines of
    either side (then has the fewest conflicts, then is the newest) is taken: a version
    newer than the true ancestor makes the other side look as if it had deleted what this
    side added, and drops it, so the true ancestor wins; a version equal to either side is
    no ancestor (both changed since); a version against which one side
    only removed lines the other still holds is not tried at all (that is how a too-new
    version looks). Without a usable one, the lines both sides share, in order, stand in
    for it (nothing is dropped then; an edit on one side meets the old line on the other
    as a conflict, and a line removed on one side comes back from the other). A merge
    with a conflict is not clean: `Outcome.clean` is False and the text carries git-style
    markers for a person to resolve; the caller decides (Syncthing: the conflict file
    stays and is shown; git: the markers are written and git reports the conflict).

Pure functions of bytes, no I/O: `core.sync_files` finds conflict files and writes the
results through the storage; the git merge driver calls `merge_file` directly.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from vault_app.core import (
    agent_memory,
    daily,
    errors,
    formats,
    layout,
    models,
    notes,
    process_tuning,
    profile,
    storage,
    tiers,
)
from vault_app.core import merge as text_merge

COUNTERS = ("accessCount", "lastAccessed")
LINEAGE = ("status", "supersededBy", "supersedes")
NOTES_NAMES = ("MEMORY.md", "USER.md")  # under an agent's memories/: § entries
PROFILE_NAME = "profile.json"


@dataclass
class Outcome:
    """A merge's result: the bytes to write, whether a person must look, and what happened."""

    data: bytes
    clean: bool = True
    kind: str = "document"  # facts, daily, notes, tiers, profile, document
    said: list[str] = field(default_factory=list)  # what was done, in plain words

    def describe(self) -> str:
        return "; ".join(self.said) if self.said else "nothing to add"


def kind_of(path: Path | PurePosixPath) -> str:
    """Which rules merge the file at `path` (its name and where it sits)."""
    name = path.name
    if name in layout.FACT_FILE_NAMES:
        return "facts"
    if layout.parse_daily_name(name) is not None and path.parent.name == "daily":
        return "daily"
    if name in NOTES_NAMES and path.parent.name == "memories":
        return "notes"
    if name == PROFILE_NAME:
        return "profile"
    if name == agent_memory.TIERS_NAME and path.parent.parent.name == "agents":
        return "tiers"  # agents/<id>/MEMORY.md
    return "document"


def merge_file(
    path: Path,
    ours: bytes,
    theirs: bytes,
    bases: Sequence[bytes] = (),
    *,
    ours_time: dt.datetime | None = None,
    theirs_time: dt.datetime | None = None,
) -> Outcome:
    """Merge `theirs` into `ours` by the rules for `path` (see the module doc). `bases`:
    candidate ancestors, newest first (git gives one; the backup ring several)."""
    kind = kind_of(path)
    if ours == theirs:
        return Outcome(ours, kind=kind)
    if kind == "facts":
        return merge_facts(path, ours, theirs, bases[0] if bases else None, ours_time, theirs_time)
    later = _later(ours_time, theirs_time)
    texts = [_text(path, data) for data in (ours, theirs)]
    if kind == "daily":
        return _merge_daily(path, texts[0], texts[1])
    if kind == "notes":
        return _merge_notes(texts[0], texts[1])
    if kind == "profile":
        return _merge_profile(path, texts[0], texts[1], later)
    if kind == "tiers":
        return _merge_tiers(texts[0], texts[1])
    candidates = []
    for data in bases:
        try:
            candidates.append(_text(path, data))
        except errors.CorruptFileError:
            continue  # a kept version that is not text is no ancestor
    return merge_document(texts[0], texts[1], candidates)


# -- fact files -------------------------------------------------------------------------------


def merge_facts(
    path: Path,
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    ours_time: dt.datetime | None = None,
    theirs_time: dt.datetime | None = None,
) -> Outcome:
    """The union of two fact files by id (see the module doc); written in ours' shape."""
    with process_tuning.paused():  # a bulk load: the collector waits where the process opted in
        return _merge_facts(path, ours, theirs, base, ours_time, theirs_time)


def _merge_facts(
    path: Path,
    ours: bytes,
    theirs: bytes,
    base: bytes | None,
    ours_time: dt.datetime | None,
    theirs_time: dt.datetime | None,
) -> Outcome:
    mine = formats.decode(path, ours)  # written back in its shape: the whole dialect
    other_raw = formats.decode_entries(path, theirs)[0]  # only read: the entries
    ancestors: dict[str, dict[str, Any]] = {}
    if base is not None:
        try:
            ancestors = _by_id(formats.decode_entries(path, base)[0])
        except errors.CorruptFileError:
            ancestors = {}
    later_side = _later(ours_time, theirs_time)
    word = mine.dialect.superseded_word
    theirs_by_id = _by_id(other_raw)
    result: list[Any] = []
    seen: set[str] = set()
    plain = {_canonical(e) for e in mine.raw if _id(e) is None}
    said = _Tally()
    successors: dict[str, set[str]] = {}
    for entry in mine.raw:
        fid = _id(entry)
        if fid is None or fid in seen:
            result.append(entry)
            continue
        seen.add(fid)
        theirs_entry = theirs_by_id.get(fid)
        if theirs_entry is None:
            result.append(entry)
            continue
        if theirs_entry == entry:  # the same on both sides; an access on each still counts
            before = ancestors.get(fid)
            if before is not None and before.get("accessCount") != entry.get("accessCount"):
                count = _count(entry, theirs_entry, before)
                if count is not None and count != entry.get("accessCount"):
                    entry = {**entry, "accessCount": count}
                    said.add("access counts combined")
            result.append(entry)
            continue
        merged, kept = _merge_fact(ancestors.get(fid), entry, theirs_entry, later_side, word, said)
        result.append(merged)
        if kept is not None and _id(kept) not in seen and _id(kept) not in theirs_by_id:
            result.append(kept)
            seen.add(str(_id(kept)))
        pointers = {p for p in (_pointer(entry), _pointer(theirs_entry)) if p}
        if len(pointers) > 1:
            successors[fid] = pointers
    for entry in other_raw:
        fid = _id(entry)
        if fid is None:
            if _canonical(entry) not in plain:
                result.append(entry)
                plain.add(_canonical(entry))
                said.add("entries without an id added")
        elif fid not in seen:
            seen.add(fid)
            result.append(entry)
            said.add("facts added from the other side")
    _chain(result, successors, word, said)
    merged_file = formats.FactFile(
        path=path, raw=result, dialect=mine.dialect, container=mine.container
    )
    return Outcome(formats.encode(merged_file), kind="facts", said=said.lines())


def _merge_fact(
    base: dict[str, Any] | None,
    ours: dict[str, Any],
    theirs: dict[str, Any],
    later_side: str | None,
    word: str,
    said: _Tally,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One fact present on both sides: the merged entry, and the version kept beside it as
    superseded when both sides changed its content (None otherwise)."""
    mine, other = _content(ours), _content(theirs)
    kept = None
    if mine == other:
        merged = dict(ours)
    elif base is not None and _content(base) == mine:
        merged = {**ours, **other}  # only theirs changed it
        for key in set(ours) - set(theirs) - set(COUNTERS) - set(LINEAGE):
            merged.pop(key, None)
        said.add("facts changed on the other side taken")
    elif base is not None and _content(base) == other:
        merged = dict(ours)  # only ours changed it
    else:
        winner, loser = _order(ours, theirs, later_side)
        merged = dict(winner)
        kept = {k: v for k, v in loser.items() if k not in COUNTERS}
        kept["id"] = f"{_id(loser)}-{_digest(_content(loser))}"
        kept["status"] = word
        kept["supersededBy"] = _id(winner)
        kept.pop("supersedes", None)
        said.add("facts changed on both sides: the later kept active, the other superseded")
    # the counters combine, on top of whichever content won: per device when both sides
    # counted so (exact), else against the ancestor, else the larger
    count = _combine_devices(merged, ours, theirs)
    if count is None:
        count = _count(ours, theirs, base)
    if count is not None:
        merged["accessCount"] = count
    last = _latest_time(ours.get("lastAccessed"), theirs.get("lastAccessed"))
    if last is not None:
        merged["lastAccessed"] = last
    if _counters(ours) != _counters(theirs):
        said.add("access counts combined")
    # superseded on either side: superseded
    for side in (ours, theirs):
        if _superseded(side):
            merged["status"] = side.get("status") if side.get("status") else word
            pointer = _pointer(side)
            if pointer and not merged.get("supersededBy"):
                merged["supersededBy"] = pointer
    if not merged.get("supersedes"):
        for side in (ours, theirs):
            if side.get("supersedes"):
                merged["supersedes"] = side["supersedes"]
                break
    if _superseded(theirs) and not _superseded(ours):
        said.add("facts superseded on the other side")
    return merged, kept


def _chain(entries: list[Any], successors: dict[str, set[str]], word: str, said: _Tally) -> None:
    """A fact superseded by two different new versions: old → earlier → later."""
    if not successors:
        return
    by_id = {_id(e): e for e in entries if _id(e) is not None}
    for old, pointers in successors.items():
        versions = [by_id[p] for p in pointers if p in by_id]
        if len(versions) < 2:
            continue
        versions.sort(key=lambda e: (_when(e) or dt.datetime.min.replace(tzinfo=dt.UTC),
                                     _canonical(e)))  # fmt: skip
        by_id[old]["supersededBy"] = _id(versions[0])
        for earlier, later in itertools.pairwise(versions):
            if not earlier.get("supersededBy"):
                earlier["status"] = word
                earlier["supersededBy"] = _id(later)
            if later.get("supersedes") == old:
                later["supersedes"] = _id(earlier)
        said.add("two new versions of one fact chained, the later active")


def _order(
    ours: dict[str, Any], theirs: dict[str, Any], later_side: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(winner, loser): the side changed later; else the version whose own times are
    later; else the order of their content (the same answer on every device)."""
    if later_side == "ours":
        return ours, theirs
    if later_side == "theirs":
        return theirs, ours
    floor = dt.datetime.min.replace(tzinfo=dt.UTC)
    a = (_when(ours) or floor, _canonical(ours))
    b = (_when(theirs) or floor, _canonical(theirs))
    return (ours, theirs) if a >= b else (theirs, ours)


def _count(ours: dict[str, Any], theirs: dict[str, Any], base: dict[str, Any] | None) -> int | None:
    a, b = ours.get("accessCount"), theirs.get("accessCount")
    if (
        not isinstance(a, int)
        or not isinstance(b, int)
        or isinstance(a, bool)
        or isinstance(b, bool)
    ):
        return None
    o = base.get("accessCount") if base is not None else None
    grown = isinstance(o, int) and _is_count(o) and a >= o and b >= o
    total = o + (a - o) + (b - o) if grown and isinstance(o, int) else max(a, b)
    return min(total, models.MAX_ACCESS_COUNT)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _content(entry: dict[str, Any]) -> dict[str, Any]:
    """What a fact says: everything but its counters (`metadata.accessBy` too) and lineage."""
    found = {k: v for k, v in entry.items() if k not in COUNTERS and k not in LINEAGE}
    metadata = found.get("metadata")
    if isinstance(metadata, dict) and formats.ACCESS_BY in metadata:
        found["metadata"] = {k: v for k, v in metadata.items() if k != formats.ACCESS_BY}
    return found


def _by_device(entry: dict[str, Any]) -> dict[str, int] | None:
    """The accesses a fact counted per device (`metadata.accessBy`), None without."""
    metadata = entry.get("metadata")
    by = metadata.get(formats.ACCESS_BY) if isinstance(metadata, dict) else None
    if not isinstance(by, dict):
        return None
    return {k: v for k, v in by.items() if isinstance(k, str) and _is_count(v) and v >= 0}


def _combine_devices(
    merged: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> int | None:
    """Both sides counted per device: each device's larger count (a device's own count only
    grows), written into `merged`; the total they make with what was counted before any
    device was (the larger of the two sides' remainders). None when a side did not."""
    a, b = _by_device(ours), _by_device(theirs)
    if a is None or b is None:
        by = a if a is not None else b
        if by is not None:  # one side counted per device: keep its counts
            _set_by_device(merged, by)
        return None
    union = {k: max(a.get(k, 0), b.get(k, 0)) for k in sorted(set(a) | set(b))}
    _set_by_device(merged, union)
    before = max(
        _as_count(ours.get("accessCount")) - sum(a.values()),
        _as_count(theirs.get("accessCount")) - sum(b.values()),
        0,
    )
    return min(before + sum(union.values()), models.MAX_ACCESS_COUNT)


def _set_by_device(merged: dict[str, Any], by: dict[str, int]) -> None:
    metadata = merged.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata[formats.ACCESS_BY] = dict(by)
    merged["metadata"] = metadata


def _as_count(value: Any) -> int:
    return value if _is_count(value) and value >= 0 else 0


def _counters(entry: dict[str, Any]) -> tuple[Any, Any]:
    return entry.get("accessCount"), entry.get("lastAccessed")


def _superseded(entry: dict[str, Any]) -> bool:
    return entry.get("status") in formats.SUPERSEDED_WORDS or bool(entry.get("supersededBy"))


def _pointer(entry: dict[str, Any]) -> str | None:
    value = entry.get("supersededBy")
    return value if isinstance(value, str) and value else None


def _id(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    value = entry.get("id")
    return value if type(value) is str and value else None


def _by_id(raw: list[Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for entry in raw:
        fid = _id(entry)
        if fid is not None:
            found.setdefault(fid, entry)
    return found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _digest(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _parse_time(value: Any) -> dt.datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _when(entry: dict[str, Any]) -> dt.datetime | None:
    """The latest of a version's own times: when it was written or last used."""
    times = [_parse_time(entry.get(k)) for k in ("timestamp", "created", "lastAccessed")]
    found = [t for t in times if t is not None]
    return max(found) if found else None


def _latest_time(a: Any, b: Any) -> Any:
    ta, tb = _parse_time(a), _parse_time(b)
    if ta is None:
        return b if tb is not None else a
    if tb is None:
        return a
    return a if ta >= tb else b


def _later(ours: dt.datetime | None, theirs: dt.datetime | None) -> str | None:
    if ours is None or theirs is None or ours == theirs:
        return None
    return "ours" if ours > theirs else "theirs"


class _Tally:
    """What a merge did, counted by kind ("3 facts added from the other side")."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def lines(self) -> list[str]:
        return [f"{n} {what}" for what, n in self.counts.items()]


# -- daily notes, entries and keys ------------------------------------------------------------


def _merge_daily(path: Path, ours: str, theirs: str) -> Outcome:
    day = layout.parse_daily_name(path.name)
    assert day is not None
    entries = daily.parse(theirs, day, None, path).entries
    items = []
    for entry in entries:
        try:
            moment = dt.time.fromisoformat(entry.time)
        except ValueError:
            continue
        items.append((moment, entry.text))
    text, added = daily.insert(ours, day, items)
    said = [f"{added} entries added from the other side"] if added else []
    return Outcome(text.encode("utf-8"), kind="daily", said=said)


def _merge_notes(ours: str, theirs: str) -> Outcome:
    mine = notes.entries(ours)
    new = [e for e in notes.entries(theirs) if e not in mine]
    if not new:
        return Outcome(ours.encode("utf-8"), kind="notes")
    text = notes.join([*mine, *new])
    return Outcome(text.encode("utf-8"), kind="notes", said=[f"{len(new)} entries added"])


def _merge_tiers(ours: str, theirs: str) -> Outcome:
    text = ours
    added = 0
    for number in tiers.TIERS:
        mine = tiers.read(ours, number) if tiers.TIER_HEADINGS[number] in ours else ""
        other = tiers.read(theirs, number) if tiers.TIER_HEADINGS[number] in theirs else ""
        have = set(mine.splitlines())
        new = [line for line in other.splitlines() if line.strip() and line not in have]
        if new:
            body = "\n".join([*(line for line in mine.splitlines()), *new]).strip("\n")
            text = tiers.replace(text, number, body)
            added += len(new)
    said = [f"{added} tier lines added from the other side"] if added else []
    return Outcome(text.encode("utf-8"), kind="tiers", said=said)


def _merge_profile(path: Path, ours: str, theirs: str, later: str | None) -> Outcome:
    mine = profile.load_text(ours, str(path))
    other = profile.load_text(theirs, str(path))
    merged = dict(mine)
    said = []
    for key, value in other.items():
        if key not in merged:
            merged[key] = value
            said.append(f"key {key!r} added")
        elif merged[key] != value:
            if later == "theirs":
                said.append(f"key {key!r}: the other side's later value taken over {merged[key]!r}")
                merged[key] = value
            else:
                said.append(f"key {key!r}: this side's later value kept over {value!r}")
    return Outcome(profile.dumps(merged).encode("utf-8"), kind="profile", said=said)


# -- documents --------------------------------------------------------------------------------


def merge_document(ours: str, theirs: str, bases: Sequence[str] = ()) -> Outcome:
    """Three-way merge against the kept version that drops the fewest lines (module doc)."""
    result = text_merge.merge_text(best_base(ours, theirs, bases), ours, theirs)
    clean = result.conflicts == 0
    said = ["merged"] if clean else [f"{result.conflicts} conflicts for a person to resolve"]
    return Outcome(result.text.encode("utf-8"), clean=clean, kind="document", said=said)


def best_base(ours: str, theirs: str, bases: Sequence[str] = ()) -> str:
    """The ancestor to merge `ours` and `theirs` against: the kept version that drops the
    fewest lines of either side, then makes the fewest conflicts, then is the newest; the
    lines both share when no kept version will do (module doc)."""
    best: tuple[tuple[int, int, int], str] | None = None
    for age, base in enumerate(bases):
        if base in (ours, theirs):
            continue  # both sides changed since their ancestor: it is neither of them
        if not (_no_pure_deletion(base, ours, theirs) and _no_pure_deletion(base, theirs, ours)):
            continue  # it would read lines one side added as deleted by the other
        result = text_merge.merge_text(base, ours, theirs)
        score = (_dropped(result.text, ours, theirs), result.conflicts, age)
        if best is None or score < best[0]:
            best = (score, base)
    return best[1] if best is not None else _shared_lines(ours, theirs)


def _no_pure_deletion(base: str, side: str, other: str) -> bool:
    """Whether `side` removed from `base` no run of lines (without putting anything in
    their place) that `other` still holds: such a removal is what a base newer than the
    true ancestor shows for the lines `other` added after it."""
    a, b = base.splitlines(), side.splitlines()
    held = set(other.splitlines())
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag == "delete" and any(line.strip() and line in held for line in a[i1:i2]):
            return False
    return True


def _dropped(result: str, ours: str, theirs: str) -> int:
    """Lines of either side that the result no longer holds (by count)."""
    have: dict[str, int] = {}
    for line in result.splitlines():
        have[line] = have.get(line, 0) + 1
    lost = 0
    for side in (ours, theirs):
        need: dict[str, int] = {}
        for line in side.splitlines():
            need[line] = need.get(line, 0) + 1
        lost += sum(max(0, n - have.get(line, 0)) for line, n in need.items() if line.strip())
    return lost


def _shared_lines(ours: str, theirs: str) -> str:
    """The lines both texts hold, in order (their longest common subsequence)."""
    a, b = ours.splitlines(), theirs.splitlines()
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    lines: list[str] = []
    for block in matcher.get_matching_blocks():
        lines += a[block.a : block.a + block.size]
    return "\n".join(lines) + ("\n" if lines else "")


def _text(path: Path, data: bytes) -> str:
    return storage.decode_text(path, data)
