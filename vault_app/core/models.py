"""The vault's data: facts, entities, daily-note entries, agents, and what reads return.

A `Fact` is the validated, canonical view of one entry of an items.json. It is built
from the raw JSON object by `formats` (which knows the variants other writers use) and is
never written back as such: writes edit the raw object so that unknown fields, key order
and the file's own spelling survive.

The records at the end (`Document`, `EntityFacts`, `VaultScan`, `DecayRow`,
`SynthesisResult`) are what `Vault` reads return: plain dataclasses, not validated.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
)
from pydantic.alias_generators import to_camel

from vault_app.core import errors, layout

if TYPE_CHECKING:  # formats builds facts from these models: at run time it imports us
    from vault_app.core import formats

# -- the ranges the rest of the code assumes of a fact ------------------------------------
#
# A value outside them makes that one fact invalid (reported at its place, left out of
# every view, search and summary) instead of an OverflowError, RecursionError or
# UnicodeEncodeError somewhere downstream; `doctor` reports it as an error.

# accessCount: 0 ..2**53, the integers every JSON reader holds exactly (a JavaScript
# number, a double) and far inside the int64 columns of the search index.
MAX_ACCESS_COUNT = 2**53

# Times (timestamp, lastAccessed, a source object's timestamp): a naive time is local
# time and an aware one may carry any offset under 24 hours, so converting either to UTC
# or to the local zone moves it by less than a day each way. Two days inside datetime's
# own range, no conversion of a valid time overflows (decay's threshold arithmetic is
# guarded by itself, `decay._days_before`).
MIN_TIME = dt.datetime(1, 1, 3)
MAX_TIME = dt.datetime(9999, 12, 29, 23, 59, 59, 999999)

# Objects and arrays nested in one fact (metadata, unknown fields): deeper is refused, so
# that recursive code and JSON writers (orjson stops at 255 levels) never meet a fact
# they cannot walk or write, whatever wraps it (a file, a CLI answer).
MAX_JSON_DEPTH = 64


def time_problem(value: dt.datetime) -> str | None:
    """Why a time is outside the range the app computes with, or None."""
    if 1 < value.year < 9999:  # the common case, decided without a new datetime
        return None
    wall = value.replace(tzinfo=None)
    if MIN_TIME <= wall <= MAX_TIME:
        return None
    return (
        f"time {value.isoformat()} is out of range: times from {MIN_TIME.date()} to "
        f"{MAX_TIME.date()} are accepted"
    )


def _in_time_range(value: dt.datetime) -> dt.datetime:
    problem = time_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Time = Annotated[dt.datetime, AfterValidator(_in_time_range)]


def json_value_problem(value: Any) -> tuple[str, str] | None:
    """(place, reason) of the first thing in a parsed JSON value that the app cannot
    carry: a string holding a lone surrogate (``"\\ud800"``: not Unicode text, no UTF-8
    writer takes it), or nesting deeper than `MAX_JSON_DEPTH`. The place is relative to
    `value` (``.metadata.notes[2]``); None when there is nothing wrong.

    The common case costs one call into C: orjson refuses lone surrogates and counts
    the brackets a deep value needs; only a value that fails that is walked in Python.
    """
    try:
        text = orjson.dumps(value)
    except TypeError:  # a surrogate, nesting over 255, or an integer over 64 bits
        return _walk(value)
    if text.count(b"[") + text.count(b"{") <= MAX_JSON_DEPTH:
        return None
    return _walk(value)


def entries_are_clean(entries: list[Any]) -> bool:
    """Whether `json_value_problem` finds nothing in any of `entries` (a file's facts),
    in one call into C for the whole file: orjson refuses a lone surrogate anywhere, and
    the entries are wrapped in as many lists as make its nesting limit fall exactly past
    `MAX_JSON_DEPTH` levels in an entry. False says only "look at each entry"."""
    wraps = _orjson_depth() - MAX_JSON_DEPTH - 1
    if wraps < 0:
        return False
    value: Any = entries
    for _ in range(wraps):
        value = [value]
    try:
        orjson.dumps(value)
    except TypeError:  # (an integer over 64 bits too: each entry is then walked)
        return False
    return True


@functools.cache
def _orjson_depth() -> int:
    """How many nested arrays orjson writes (254 in orjson 3), found once."""

    def writes(levels: int) -> bool:
        value: Any = 0
        for _ in range(levels):
            value = [value]
        try:
            orjson.dumps(value)
        except TypeError:
            return False
        return True

    low, high = 0, 4096
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if writes(middle) else (low, middle - 1)
    return low


def _walk(value: Any) -> tuple[str, str] | None:
    """`json_value_problem` the long way: depth first, so the place found is the first."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, place, depth = stack.pop()
        if isinstance(node, str):
            reason = text_problem(node)
            if reason is not None:
                return place, reason
            continue
        if isinstance(node, dict):
            children = [
                (item, f"{place}.{key}" if _plain(key) else f"{place}[{key!r}]", key)
                for key, item in node.items()
            ]
        elif isinstance(node, list):
            children = [(item, f"{place}[{i}]", None) for i, item in enumerate(node)]
        else:
            continue
        if depth >= MAX_JSON_DEPTH:
            return place, f"nested deeper than {MAX_JSON_DEPTH} levels"
        for item, where, key in reversed(children):
            if isinstance(key, str) and (reason := text_problem(key)) is not None:
                return where, f"key {reason}"
            stack.append((item, where, depth + 1))
    return None


def _plain(key: Any) -> bool:
    return isinstance(key, str) and key.isidentifier()


def text_problem(text: str) -> str | None:
    """Why a string is not Unicode text (a lone surrogate), or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        return f"holds a lone surrogate ({bad!r} at character {exc.start}), not Unicode text"
    return None


class FactCategory(enum.StrEnum):
    RELATIONSHIP = "relationship"
    MILESTONE = "milestone"
    STATUS = "status"
    PREFERENCE = "preference"
    CONTEXT = "context"


class FactStatus(enum.StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"


class DecayTier(enum.StrEnum):
    HOT = "hot"
    WARM = "warm"
    COLD = "cold"


class SourceRef(BaseModel):
    """A `source` written as an object (`{type, timestamp, channel}`) by some writers."""

    model_config = ConfigDict(extra="allow")

    type: StrictStr | None = None
    timestamp: Time | StrictStr | None = None
    channel: StrictStr | None = None

    def describe(self) -> str:
        parts = [p for p in (self.type, self.channel) if p]
        return ":".join(parts) or "object"


class Fact(BaseModel):
    """One atomic fact, canonical field names (camelCase on disk via aliases).

    Validated from a raw entry by `formats.to_fact`, which first refuses what no field
    type can see (`json_value_problem`: lone surrogates, deep nesting); the fields bound
    counts and times to the ranges above.
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", use_enum_values=False
    )

    id: Annotated[StrictStr, Field(min_length=1)]
    fact: StrictStr
    category: FactCategory
    timestamp: Time | None = None
    source: StrictStr | SourceRef | None = None
    status: FactStatus = FactStatus.ACTIVE
    superseded_by: StrictStr | None = None
    supersedes: StrictStr | None = None
    related_entities: list[StrictStr] = Field(default_factory=list)
    last_accessed: Time | None = None
    access_count: Annotated[StrictInt, Field(ge=0, le=MAX_ACCESS_COUNT)] = 0
    confidence: Annotated[StrictInt | StrictFloat, Field(ge=0, le=1)] = 1.0
    agent_id: StrictStr | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("fact")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("fact text is empty")
        return value

    @property
    def is_active(self) -> bool:
        return self.status is FactStatus.ACTIVE and self.superseded_by is None

    @property
    def source_text(self) -> str | None:
        if isinstance(self.source, SourceRef):
            return self.source.describe()
        return self.source

    @property
    def last_touched(self) -> dt.datetime | None:
        """When the fact was last accessed, or created if it never was."""
        return self.last_accessed or self.timestamp


class EntitySummary(BaseModel):
    """What a vault scan knows of an entity without validating its facts."""

    address: str
    scope: str
    path: str
    folder: Path
    facts_file: Path | None
    has_summary: bool
    total: int = 0
    hot: int = 0
    warm: int = 0
    cold: int = 0
    superseded: int = 0
    problem: str | None = None

    @property
    def active(self) -> int:
        return self.hot + self.warm + self.cold


class DailyEntry(BaseModel):
    """One `## HH:MM:SS` entry of a daily note: the unit of search and display."""

    date: dt.date
    time: str
    text: str
    index: int
    agent: str | None = None

    @property
    def moment(self) -> dt.datetime:
        hh, mm, *rest = (int(part) for part in self.time.split(":"))
        return dt.datetime.combine(self.date, dt.time(hh, mm, rest[0] if rest else 0))


class DailyNote(BaseModel):
    date: dt.date
    agent: str | None
    path: Path
    preamble: str
    entries: list[DailyEntry]


@dataclass(frozen=True)
class Lineage:
    """A fact's versions, oldest first, as `walk_lineage` found them.

    `missing_before` / `missing_after`: the id of an older / newer version a link names but
    the finder could not give (the walk stopped there); None when the chain ends cleanly.
    """

    chain: list[Fact]
    missing_before: str | None = None
    missing_after: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every link was followed to its end (no version was missing)."""
        return self.missing_before is None and self.missing_after is None


def walk_lineage(
    fact: Fact,
    find: Callable[[str], Fact | None],
    *,
    older: bool = True,
    newer: bool = True,
) -> Lineage:
    """The one walk of a fact's lineage: `supersedes` back, `supersededBy` forward.

    `find(fact_id)` gives a version (from one entity's facts, or the whole vault) or None
    when it is not found; it may also raise, which ends the walk with its error. A link
    back to a version already in the chain (a cycle) ends that direction. `older` /
    `newer` choose the directions; the forward walk ends at the active version (the one
    with no `supersededBy`).
    """
    seen = {fact.id}

    def follow(link: Callable[[Fact], str | None]) -> tuple[list[Fact], str | None]:
        """The versions `link` leads to from `fact`, in that order, and the id of one
        that was not found (None if the walk reached the end or a cycle)."""
        found: list[Fact] = []
        step = fact
        while (target := link(step)) and target not in seen:
            seen.add(target)
            version = find(target)
            if version is None:
                return found, target
            found.append(version)
            seen.add(version.id)
            step = version
        return found, None

    before, missing_before = follow(lambda f: f.supersedes) if older else ([], None)
    after, missing_after = follow(lambda f: f.superseded_by) if newer else ([], None)
    chain = [*reversed(before), fact, *after]
    return Lineage(chain, missing_before, missing_after)


class Agent(BaseModel):
    """An agent folder under `agents/`: its own PARA workspace, daily notes and documents."""

    id: str
    folder: Path
    has_tacit: bool
    has_context: bool
    daily_dates: list[dt.date]


class Problem(BaseModel):
    """Something wrong in a vault file, with where it is; `doctor` lists these."""

    path: str
    location: str | None = None
    message: str
    severity: str = "error"  # "error" or "warning"
    repaired: str | None = None

    def __str__(self) -> str:
        where = f" at {self.location}" if self.location else ""
        fixed = f" [repaired: {self.repaired}]" if self.repaired else ""
        return f"{self.severity}: {self.path}{where}: {self.message}{fixed}"


# -- what reads return ---------------------------------------------------------------


@dataclass
class Document:
    """A markdown file as read: its text (None if absent) and the hash to write against."""

    path: Path
    text: str | None
    digest: str | None
    error: errors.CorruptFileError | None = None  # set when the file exists but is unreadable

    @property
    def exists(self) -> bool:
        return self.text is not None


@dataclass
class EntityFacts:
    """One entity, read and validated: what `Vault.entity` returns, the `show` command
    and the GUI display (its old name `EntityView` is kept as an alias)."""

    ref: layout.EntityRef
    folder: Path
    facts_path: Path
    file: formats.FactFile | None
    facts: list[Fact]
    invalid: list[errors.CorruptFileError]
    error: errors.CorruptFileError | None
    summary: Document

    def fact(self, fact_id: str) -> Fact:
        """The valid fact with this id; for an entry that does not validate, its error."""
        for fact in self.facts:
            if fact.id == fact_id:
                return fact
        if self.error is not None:
            raise self.error
        for index, entry in enumerate(self.file.raw if self.file is not None else []):
            if isinstance(entry, dict) and entry.get("id") == fact_id:
                place = f"[{index}]"
                for exc in self.invalid:
                    where = exc.location or ""
                    if where == place or where.startswith((f"{place}.", f"{place}[")):
                        raise exc
        raise errors.NotFoundError(f"no fact {fact_id!r} in {self.ref}")


@dataclass
class VaultScan:
    """Every entity with its tier counts, the agents, and what could not be read."""

    entities: list[EntitySummary]
    agents: list[str]
    problems: list[Problem]
    seconds: float
    files: dict[layout.EntityRef, formats.FactFile] = field(default_factory=dict)
    counted: bool = True  # False for `list_entities`: no file was read, counts are zero

    @property
    def fact_count(self) -> int:
        return sum(e.total for e in self.entities)

    def tier_totals(self) -> dict[str, int]:
        totals = {"hot": 0, "warm": 0, "cold": 0, "superseded": 0}
        for e in self.entities:
            totals["hot"] += e.hot
            totals["warm"] += e.warm
            totals["cold"] += e.cold
            totals["superseded"] += e.superseded
        return totals


@dataclass
class DecayRow:
    """An active fact of a decay report, with its tier and the days since it was touched."""

    ref: layout.EntityRef
    fact: Fact
    tier: DecayTier
    days: int


@dataclass
class SynthesisResult:
    """What a synthesis did (or would do) to one summary.md or index.md."""

    ref: layout.EntityRef | None  # None for an index.md
    path: Path
    changed: bool
    diff: str
    hot: int = 0
    warm: int = 0
    cold: int = 0


EntityView = EntityFacts  # the old name (the UI has a widget of that name): scripts use it
