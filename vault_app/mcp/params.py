"""The parameter types the tools share, and the arguments that name something in the
vault: a fact by id or by number (`fact_id`), fact fields (`fact_fields`)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from vault_app.core import errors
from vault_app.workspace import arguments, vault_workspace

Mode = Literal["hybrid", "bm25", "semantic"]
Kind = Literal["facts", "summaries", "daily"]
Tier = Literal["hot", "warm", "cold"]
Para = Literal["projects", "areas", "resources", "archives"]
Status = Literal["active", "superseded", "any"]
Category = Literal["relationship", "milestone", "status", "preference", "context"]
Page = Annotated[int, Field(ge=0, description="how many items to skip")]
MAX_DAYS = 366  # one read_daily call
FACT_FIELDS = (
    "id",
    "number",
    "fact",
    "category",
    "status",
    "tier",
    "timestamp",
    "lastAccessed",
    "accessCount",
    "confidence",
    "source",
    "relatedEntities",
    "supersedes",
    "supersededBy",
    "agentId",
    "metadata",
)


def fact_id(
    runtime: vault_workspace.VaultWorkspace, fact_id: str | None, number: int | None
) -> str:
    """The fact id a tool names by id or by number (exactly one of them)."""
    if (fact_id is None) == (number is None):
        raise errors.VaultError("give either fact_id (the uuid) or number (the numeric id)")
    if fact_id is not None:
        return fact_id
    assert number is not None
    found = runtime.fact_id_for_number(number)
    if found is None:
        raise errors.NotFoundError(f"no fact has number {number}")
    return found


def fact_fields(values: list[str] | None) -> list[str] | None:
    """The fact fields asked for, each once, in order (None: all of them)."""
    if not values:
        return None
    bad = [v for v in values if v not in FACT_FIELDS]
    if bad:
        raise errors.VaultError(f"unknown fact field {bad[0]!r}: use {', '.join(FACT_FIELDS)}")
    return list(dict.fromkeys(values))


def days(since: str | None, until: str | None, today: dt.date) -> tuple[dt.date, dt.date]:
    """The range of days a read_daily call asks for (ISO dates; one given: that day;
    none: today), at most MAX_DAYS."""
    first = arguments.day(since, "since") if since else None
    last = arguments.day(until, "until") if until else None
    first, last = first or last or today, last or first or today
    if last < first:
        raise errors.VaultError(f"until {last} is before since {first}")
    if (last - first).days >= MAX_DAYS:
        raise errors.VaultError(f"at most {MAX_DAYS} days at once: {first} to {last} is more")
    return first, last
