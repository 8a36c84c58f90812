"""An entity as it was believed at a past moment ("as of"), and what changed between two
versions of a fact, word by word.

As of a moment
--------------
`as_of(entity, moment, policy, summary)` gives an `AsOfView`: the facts active then —
created on or before the moment and not ended before it — each with the tier it had then,
and the summary as it read then. A fact *ends* when a newer version supersedes it (the
newer version's creation time), or when it is archived or retracted (the time their note
records). A fact that is superseded with no trace of when is listed apart (`uncertain`),
never guessed into the view. A fact that ended after the moment was active then: its
`ended` says how it ended later.

The tier then is the decay policy's, with `now` = the moment. What a fact file records
of accesses is the last one and their count, so: a fact last accessed on or before the
moment had then exactly that count and that last access; a fact last accessed after the
moment is taken as never accessed then (its creation time, count 0). That is the coldest
tier the record allows: accesses before the moment that a later one overwrote are not
known (the audit log is not replayed).

The summary then comes from the backup ring (`storage.backups`): each kept version and the
current file are dated by their modification time (when that content was written: a
version the app wrote is copied into the ring as it is written, one replaced outside the
app is hard-linked into the ring, keeping its time). The newest version written on or
before the moment is the summary then. Without one, the summary then is unknown — or, when
the ring was never trimmed, there was none yet — and `SummaryThen.note` says which.

Authors
-------
`authors(root, fact_ids)` says who wrote each version of a fact: the actor of the audit
line that added it.

Word diff
---------
`word_diff(old, new)` splits both texts into words and the spaces between them and returns
runs of (`same` | `removed` | `added`, text), from difflib's matching blocks: joining the
`same` and `removed` runs gives `old` back, `same` and `added` give `new`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import activity, decay, errors, layout, models, storage

SAME, REMOVED, ADDED = "same", "removed", "added"


def moment_of(when: dt.date | dt.datetime) -> dt.datetime:
    """A date as the end of that day in local time (everything written that day counts);
    a datetime as itself (a naive one is local time)."""
    if isinstance(when, dt.datetime):
        return decay.as_aware(when)
    return decay.as_aware(dt.datetime.combine(when, dt.time.max))


# -- facts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ending:
    """How and when a fact stopped being believed: superseded (by `by`), archived or
    retracted; `at` None when the file does not say when."""

    how: str  # "superseded", "archived", "retracted", "withdrawn"
    at: dt.datetime | None
    by: str | None = None  # the newer version's id, for a supersede


@dataclass(frozen=True)
class FactThen:
    """A fact active at the moment, its tier then, and how it ended later (if it did)."""

    fact: models.Fact
    tier: models.DecayTier
    ended: Ending | None


@dataclass(frozen=True)
class SummaryThen:
    """The summary as it read at the moment: `text` None when unknown or absent then."""

    text: str | None
    written: dt.datetime | None  # when that version was written
    note: str  # in words: where it comes from, or why there is none


@dataclass(frozen=True)
class AsOfView:
    """An entity as believed at `moment` (see the module docstring)."""

    ref: layout.EntityRef
    moment: dt.datetime
    facts: list[FactThen]
    summary: SummaryThen
    later: int  # facts created after the moment (not shown)
    uncertain: list[models.Fact]  # superseded, with no trace of when: left out

    def tier_counts(self) -> dict[models.DecayTier, int]:
        counts = dict.fromkeys(models.DecayTier, 0)
        for item in self.facts:
            counts[item.tier] += 1
        return counts


def _note_time(fact: models.Fact, key: str) -> dt.datetime | None:
    note = fact.metadata.get(key)
    if not isinstance(note, dict) or not isinstance(note.get("at"), str):
        return None
    try:
        return decay.as_aware(dt.datetime.fromisoformat(note["at"]))
    except (ValueError, OverflowError):
        return None


def ending(fact: models.Fact, by_id: dict[str, models.Fact]) -> Ending | None:
    """How `fact` ended, from its own entity's facts `by_id`; None if it is active."""
    if fact.is_active:
        return None
    if fact.superseded_by is not None:
        newer = by_id.get(fact.superseded_by)
        at = decay.as_aware(newer.timestamp) if newer and newer.timestamp else None
        return Ending("superseded", at, fact.superseded_by)
    for key, how in (("archived", "archived"), ("retracted", "retracted")):
        if key in fact.metadata:
            return Ending(how, _note_time(fact, key))
    return Ending("withdrawn", None)


def tier_then(
    fact: models.Fact, moment: dt.datetime, policy: decay.DecayPolicy
) -> models.DecayTier:
    """The fact's tier at `moment` from what its record allows (see the module docstring)."""
    last = fact.last_accessed
    if last is not None and decay.as_aware(last) <= moment:
        return policy.tier_for_days(decay.days_since(last, moment), fact.access_count)
    return policy.tier_for_days(decay.days_since(fact.timestamp, moment), 0)


def facts_as_of(
    facts: list[models.Fact], moment: dt.datetime, policy: decay.DecayPolicy
) -> tuple[list[FactThen], int, list[models.Fact]]:
    """The facts active at `moment` with their tiers then, how many were created after
    it, and the ended facts whose end has no time (left out)."""
    by_id = {f.id: f for f in facts}
    shown: list[FactThen] = []
    later = 0
    uncertain: list[models.Fact] = []
    for fact in facts:
        if fact.timestamp is None or decay.as_aware(fact.timestamp) > moment:
            later += fact.timestamp is not None
            continue
        end = ending(fact, by_id)
        if end is not None and end.at is None:
            uncertain.append(fact)
            continue
        if end is not None and end.at is not None and end.at <= moment:
            continue  # no longer believed then
        shown.append(FactThen(fact, tier_then(fact, moment, policy), end))
    return shown, later, uncertain


# -- the summary ---------------------------------------------------------------------------


def _written(path: Path | str) -> dt.datetime | None:
    try:
        stamp = os.stat(path, follow_symlinks=False).st_mtime
    except OSError:
        return None
    return dt.datetime.fromtimestamp(stamp).astimezone()


def summary_as_of(store: storage.Storage, path: Path, moment: dt.datetime) -> SummaryThen:
    """The summary at `path` as it read at `moment`, from the file and its backup ring."""
    kept = store.backups(path)
    versions: list[tuple[dt.datetime, Path, bool]] = []
    current = _written(path)
    if current is not None:
        versions.append((current, path, False))
    for version in kept:
        written = _written(version)
        if written is not None:
            versions.append((written, version, True))
    then = [v for v in versions if v[0] <= moment]
    if then:
        written, source, from_ring = max(then, key=lambda v: v[0])
        try:
            data = store.read_backup(source) if from_ring else store.read(source)
            text = storage.decode_text(source, data or b"")
        except (errors.VaultError, OSError) as exc:
            return SummaryThen(None, written, f"the summary of then cannot be read: {exc}")
        where = "the backup ring" if from_ring else "the current file (unchanged since)"
        return SummaryThen(text, written, f"as written {written:%Y-%m-%d %H:%M}, from {where}")
    if not versions:
        return SummaryThen(None, None, "the summary of then is unknown: none is kept")
    oldest = min(v[0] for v in versions)
    if len(kept) < store.settings.backups_per_file:  # the ring was never trimmed
        return SummaryThen(
            None, None, f"there was no summary yet (its first version is from {oldest:%Y-%m-%d})"
        )
    return SummaryThen(
        None,
        None,
        f"the summary of then is unknown: the oldest version kept is from {oldest:%Y-%m-%d}",
    )


def as_of(
    entity: models.EntityFacts,
    moment: dt.datetime,
    policy: decay.DecayPolicy,
    summary: SummaryThen,
) -> AsOfView:
    """`entity` as believed at `moment` (`Vault.as_of` reads the summary then)."""
    facts, later, uncertain = facts_as_of(entity.facts, moment, policy)
    return AsOfView(entity.ref, moment, facts, summary, later, uncertain)


# -- authors -------------------------------------------------------------------------------


def authors(root: Path, fact_ids: Iterable[str]) -> dict[str, str]:
    """Who wrote each version: the actor of the audit line that added it (`fact.add`, or
    `fact.supersede` naming it as its new fact), read from the log's end (bounded, as
    `activity.lines_backwards` reads) and stopping once all are found. A version the
    window's log does not reach, or written by hand, is absent from the answer."""
    wanted = set(fact_ids)
    found: dict[str, str] = {}
    log = Path(root) / layout.STATE_DIR / storage.AUDIT_NAME
    for line in activity.lines_backwards(log, Path(root)):
        if not wanted:
            break
        if not any(fid.encode() in line for fid in wanted):
            continue  # most lines are about other facts: skip the JSON
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue
        fid = entry.get("factId") if isinstance(entry, dict) else None
        if fid in wanted and entry.get("action") in ("fact.add", "fact.supersede"):
            found[fid] = str(entry.get("actor", ""))
            wanted.discard(fid)
    return found


# -- word diff -----------------------------------------------------------------------------

_WORDS = re.compile(r"\s+|[^\s]+")


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """Runs of (`same` | `removed` | `added`, text) turning `old` into `new`, word by word
    (the spaces between words kept, so each side joins back exactly)."""
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    runs: list[tuple[str, str]] = []

    def put(kind: str, words: list[str]) -> None:
        if not words:
            return
        text = "".join(words)
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + text)
        else:
            runs.append((kind, text))

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            put(SAME, a[i1:i2])
        else:
            put(REMOVED, a[i1:i2])
            put(ADDED, b[j1:j2])
    return runs
