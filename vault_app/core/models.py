"""Pydantic models of the vault's data: facts, entities, daily-note entries, agents.

A `Fact` is the validated, canonical view of one entry of an items.json. It is built
from the raw JSON object by `formats` (which knows the variants other writers use) and is
never written back as such: writes edit the raw object so that unknown fields, key order
and the file's own spelling survive.
"""

from __future__ import annotations

import datetime as dt
import enum
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
)
from pydantic.alias_generators import to_camel


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
    timestamp: dt.datetime | StrictStr | None = None
    channel: StrictStr | None = None

    def describe(self) -> str:
        parts = [p for p in (self.type, self.channel) if p]
        return ":".join(parts) or "object"


class Fact(BaseModel):
    """One atomic fact, canonical field names (camelCase on disk via aliases)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", use_enum_values=False
    )

    id: Annotated[StrictStr, Field(min_length=1)]
    fact: StrictStr
    category: FactCategory
    timestamp: dt.datetime | None = None
    source: StrictStr | SourceRef | None = None
    status: FactStatus = FactStatus.ACTIVE
    superseded_by: StrictStr | None = None
    supersedes: StrictStr | None = None
    related_entities: list[StrictStr] = Field(default_factory=list)
    last_accessed: dt.datetime | None = None
    access_count: Annotated[StrictInt, Field(ge=0)] = 0
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
