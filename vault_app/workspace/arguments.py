"""The arguments every face receives as strings, read once: ISO dates and times, days,
and a search's filters.

The CLI's options, the MCP tools' arguments and the window's search form all say "since
2026-03-01", "tiers hot warm", "kinds facts daily"; each is read here, with one error
text per mistake (`errors.InvalidArgumentError`: the CLI shows it as a usage error, an MCP
client as the tool's error). Only the core's errors are imported with it: reading arguments costs
a command's start-up nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from vault_app.core import errors

if TYPE_CHECKING:
    from vault_app.search import columns

YEARS = (1000, 8999)  # dates are computed with, plus or minus a few centuries
KINDS = {"facts": "fact", "summaries": "summary", "daily": "daily"}  # the faces' word → kind
EXAMPLE = "e.g. 2026-03-14 or 2026-03-14T09:30:00+01:00"


def _named(field: str | None, message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(f"{field}: {message}" if field else message)


def moment(value: str, field: str | None = None) -> dt.datetime:
    """An ISO date or time (a naive one is local time), timezone-aware."""
    try:
        parsed = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise _named(field, f"not an ISO date or time: {value!r} ({EXAMPLE})") from None
    if not YEARS[0] <= parsed.year <= YEARS[1]:
        raise _named(field, f"{value!r} is out of range: give a year from {YEARS[0]} to {YEARS[1]}")
    from vault_app.core import decay  # (the CLI's --help does without it)

    try:
        return decay.as_aware(parsed)
    except (ValueError, OverflowError) as exc:
        raise _named(field, f"{value!r} is out of range ({exc})") from None


def optional_moment(value: str | None, field: str | None = None) -> dt.datetime | None:
    return None if value is None else moment(value, field)


def day(value: str, field: str | None = None) -> dt.date:
    """A YYYY-MM-DD day."""
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise _named(field, f"not a YYYY-MM-DD date: {value!r}") from None


def search_filters(
    *,
    kinds: Iterable[str] | None = None,
    scope: str | frozenset[str] | None = None,
    para: str | None = None,
    tiers: Iterable[str] | None = None,
    status: str = "active",
    categories: Iterable[str] | None = None,
    author: str | None = None,
    since: str | None = None,
    until: str | None = None,
    date_field: str = "timestamp",
) -> columns.Filters:
    """The engine's filters from a face's words: `kinds` among facts, summaries, daily
    (or "all"; none given: all), `status` active, superseded or any, dates as ISO text."""
    from vault_app.search import columns, documents

    chosen: set[str] = set()
    for name in kinds or ["all"]:
        if name == "all":
            chosen.update(documents.KINDS)
        elif name in KINDS:
            chosen.add(KINDS[name])
        else:
            raise errors.InvalidArgumentError(
                f"kinds: unknown {name!r}: use {', '.join([*KINDS, 'all'])}"
            )
    tier_set = frozenset(tiers) if tiers else None
    category_set = frozenset(_categories(categories)) if categories else None
    return columns.Filters(
        kinds=frozenset(chosen),
        scope=scope,
        para=para,
        tiers=tier_set,
        status=None if status == "any" else status,
        categories=category_set,
        agent=author,
        since=optional_moment(since, "since"),
        until=optional_moment(until, "until"),
        date_field=date_field,
    )


def _categories(values: Iterable[str]) -> list[str]:
    from vault_app.core import models

    known = [c.value for c in models.FactCategory]
    chosen = list(values)
    bad = [v for v in chosen if v not in known]
    if bad:
        raise errors.InvalidArgumentError(
            f"unknown fact category {bad[0]!r}: use {', '.join(known)}"
        )
    return chosen
