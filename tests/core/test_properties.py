"""Property tests: the decay tier is the design's `calculate_decay_tier`; fact files round-trip.

The decay properties run under several local zones (naive timestamps are local time),
including zones with daylight saving, where "whole days" must still mean what the design's
naive subtraction means.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vault_app.core import decay, formats, models

# -- the design, verbatim -------------------------------------------------------------------


def calculate_decay_tier(fact: dict[str, Any], now: dt.datetime) -> str:
    """seeds/002 "calculate_decay_tier", with a naive time read as local time."""
    last_accessed = fact["lastAccessed"]
    if last_accessed.tzinfo is None and now.tzinfo is not None:
        now = now.astimezone().replace(tzinfo=None)  # the design's naive datetime.now()
    elif last_accessed.tzinfo is not None and now.tzinfo is None:
        now = now.astimezone()
    days_since_access = (now - last_accessed).days
    access_count = fact["accessCount"]

    if access_count > 20:
        decay_threshold_hot = 14
        decay_threshold_warm = 60
    elif access_count > 10:
        decay_threshold_hot = 10
        decay_threshold_warm = 45
    else:
        decay_threshold_hot = 7
        decay_threshold_warm = 30

    if days_since_access <= decay_threshold_hot:
        return "hot"
    elif days_since_access <= decay_threshold_warm:
        return "warm"
    else:
        return "cold"


@contextlib.contextmanager
def local_zone(name: str) -> Iterator[None]:
    """Run with the process's local time zone set to `name`."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()


ZONES = ["UTC", "Europe/Paris", "America/St_Johns", "Australia/Lord_Howe", "Asia/Kathmandu"]

BOUNDARY_DAYS = [0, 1, 6, 7, 8, 9, 10, 11, 13, 14, 15, 29, 30, 31, 44, 45, 46, 59, 60, 61]
BOUNDARY_SECONDS = [0, 1, 3600, 43200, 82800, 86399]  # 0 s, 1 s, 1 h, 12 h, 23 h, 23:59:59
counts = st.one_of(st.sampled_from([0, 1, 9, 10, 11, 19, 20, 21, 22]), st.integers(0, 10**6))
moments = st.datetimes(min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2090, 1, 1))
offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: dt.timezone(dt.timedelta(minutes=m)))
elapsed = st.one_of(
    st.builds(
        lambda d, s, sign: sign * dt.timedelta(days=d, seconds=s),
        st.sampled_from(BOUNDARY_DAYS),
        st.sampled_from(BOUNDARY_SECONDS),
        st.sampled_from([1, 1, 1, -1]),
    ),
    st.timedeltas(min_value=dt.timedelta(days=-3), max_value=dt.timedelta(days=400)),
)


@st.composite
def decay_cases(draw: st.DrawFn) -> tuple[dt.datetime, dt.datetime, int]:
    """(lastAccessed as stored in a file, now, accessCount); naive and aware in every mix."""
    last = draw(moments)
    if draw(st.booleans()):
        last = last.replace(tzinfo=draw(offsets))
    now = last + draw(elapsed)
    kind = draw(st.sampled_from(["same", "aware", "naive"]))
    if kind == "aware":
        now = now.astimezone(draw(st.sampled_from([dt.UTC, *[None] * 2]) | offsets))
    elif kind == "naive":
        now = now.astimezone().replace(tzinfo=None) if now.tzinfo is not None else now
    # What a file holds, and what the vault reads back (a fixed-offset zone, or none).
    last = dt.datetime.fromisoformat(last.isoformat())
    return last, now, draw(counts)


def check_tier(last: dt.datetime, now: dt.datetime, count: int) -> None:
    expected = calculate_decay_tier({"lastAccessed": last, "accessCount": count}, now)
    policy = decay.DecayPolicy()
    entry = {"id": "f", "fact": "x", "category": "context", "lastAccessed": last.isoformat()}
    entry["accessCount"] = count
    fact = models.Fact.model_validate(entry)
    assert policy.tier(fact, now).value == expected
    counter = decay.RawTierCounter(policy, now)
    assert counter.tier(entry, "timestamp").value == expected
    # A fact never accessed decays from its creation time, under the file's own key.
    created = {"created": last.isoformat(), "accessCount": count}
    assert counter.tier(created, "created").value == expected
    # What a vault scan counts: times parsed by the typed decoder and compared with the
    # thresholds' moments; or, for a file it refuses (a wrapper), strings converted.
    for one in (entry, created):
        for value in ([one], {"items": [one]}):
            tiers = formats.decode_tier_fields(Path("items.json"), json.dumps(value).encode())
            assert counter.count(tiers)._asdict()[expected] == 1


@pytest.mark.parametrize("zone", ZONES)
def test_tier_is_the_designs_calculate_decay_tier(zone: str) -> None:
    @settings(max_examples=300, deadline=None)
    @given(decay_cases())
    def run(case: tuple[dt.datetime, dt.datetime, int]) -> None:
        check_tier(*case)

    with local_zone(zone):
        run()


BASE = dt.datetime(2026, 1, 10, 9, 30, 0)


@pytest.mark.parametrize(
    ("elapsed_time", "count", "tier"),
    [
        (dt.timedelta(days=7), 0, "hot"),
        (dt.timedelta(days=7, hours=23, minutes=59, seconds=59), 0, "hot"),
        (dt.timedelta(days=8), 0, "warm"),
        (dt.timedelta(days=30, hours=23, minutes=59, seconds=59), 10, "warm"),
        (dt.timedelta(days=31), 10, "cold"),
        (dt.timedelta(days=10, hours=23), 11, "hot"),
        (dt.timedelta(days=11), 11, "warm"),
        (dt.timedelta(days=45, seconds=86399), 20, "warm"),
        (dt.timedelta(days=46), 20, "cold"),
        (dt.timedelta(days=14, seconds=86399), 21, "hot"),
        (dt.timedelta(days=15), 21, "warm"),
        (dt.timedelta(days=60, seconds=86399), 21, "warm"),
        (dt.timedelta(days=61), 21, "cold"),
        (dt.timedelta(seconds=-1), 0, "hot"),  # accessed "in the future": -1 day, hot
        (dt.timedelta(days=-40), 0, "hot"),
    ],
)
@pytest.mark.parametrize("aware", [False, True])
def test_exact_boundaries(elapsed_time: dt.timedelta, count: int, tier: str, aware: bool) -> None:
    last = BASE.replace(tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))) if aware else BASE
    now = last + elapsed_time
    assert calculate_decay_tier({"lastAccessed": last, "accessCount": count}, now) == tier
    check_tier(last, now, count)
    # The same instant seen from another zone gives the same tier.
    check_tier(last, now.astimezone(dt.UTC) if aware else now.astimezone(), count)


@pytest.mark.parametrize(
    ("last", "now", "tier"),
    [
        # Paris springs forward on 2026-03-29: 8 calendar days are 7 days 23 hours.
        ("2026-03-24T00:30:00", dt.datetime(2026, 4, 1, 0, 45), "warm"),
        ("2026-03-24T00:30:00", dt.datetime(2026, 4, 1, 0, 15), "hot"),
        # and falls back on 2026-10-25: 7 days 23:30 of calendar time are 8 days 00:30.
        ("2026-10-20T01:00:00", dt.datetime(2026, 10, 28, 0, 30), "hot"),
    ],
)
def test_naive_times_count_calendar_days_across_daylight_saving(
    last: str, now: dt.datetime, tier: str
) -> None:
    with local_zone("Europe/Paris"):
        for clock_now in (now, now.astimezone(), now.astimezone(dt.UTC)):
            check_tier(dt.datetime.fromisoformat(last), clock_now, 0)
            entry = {"lastAccessed": last, "accessCount": 0}
            got = decay.RawTierCounter(decay.DecayPolicy(), clock_now).tier(entry, "timestamp")
            assert got.value == tier


def test_no_time_at_all_is_cold() -> None:
    fact = models.Fact(id="f", fact="x", category=models.FactCategory.CONTEXT, access_count=50)
    now = dt.datetime(2026, 1, 1)
    assert decay.DecayPolicy().tier(fact, now) is models.DecayTier.COLD
    counter = decay.RawTierCounter(decay.DecayPolicy(), now)
    assert counter.tier({"accessCount": 50}, "timestamp") is models.DecayTier.COLD
    assert counter.tier({"lastAccessed": "not a date"}, "timestamp") is models.DecayTier.COLD


# -- fact files: every shape round-trips -----------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),  # past 64 bits orjson refuses: the stdlib path
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Unknown fields: any name that is not one of Fact's (none of them starts with "x").
extra_fields = st.dictionaries(st.text(max_size=10).map(lambda s: "x" + s), json_values, max_size=4)
iso_times = st.builds(
    lambda moment, zone: moment.replace(tzinfo=zone, microsecond=0).isoformat(),
    st.datetimes(min_value=dt.datetime(1971, 1, 2), max_value=dt.datetime(2099, 12, 30)),
    st.none() | offsets,
)
categories = st.sampled_from([c.value for c in models.FactCategory])


@st.composite
def fact_files(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A fact file's JSON value in a random variant, and the layout to write it in."""
    text_key = draw(st.sampled_from(["fact", "content"]))
    time_key = draw(st.sampled_from(["timestamp", "created"]))
    backward = draw(st.booleans())
    word = draw(st.sampled_from(["superseded", "historical"]))
    source_object = draw(st.booleans())
    ids = draw(st.lists(st.text(min_size=1, max_size=12), unique=True, max_size=6))
    entries = []
    for position, fid in enumerate(ids):
        known: dict[str, Any] = {
            "id": fid,
            text_key: draw(st.text(min_size=1).filter(str.strip)),
            "category": draw(categories),
        }
        if draw(st.booleans()):  # the optional fields, or only the three required ones
            when = draw(iso_times)
            known[time_key] = when
            known["source"] = (
                {"type": "conversation", "timestamp": when, "channel": draw(st.text(max_size=8))}
                if source_object
                else draw(st.text(max_size=20))
            )
            known["status"] = "active"
            known["relatedEntities"] = draw(st.lists(st.sampled_from(["areas/a", "projects/b"])))
            known["lastAccessed"] = draw(iso_times)
            known["accessCount"] = draw(st.integers(0, 2**40))
            known["confidence"] = draw(st.floats(0, 1) | st.sampled_from([0, 1]))
            known["agentId"] = draw(st.none() | st.text(max_size=8))
            known["metadata"] = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=3))
        if position and draw(st.booleans()):  # this fact replaced the previous one
            if backward:
                known["supersedes"] = ids[position - 1]
            else:
                entries[-1]["supersededBy"] = fid
            entries[-1]["status"] = word
        pairs = list(known.items()) + list(draw(extra_fields).items())
        entries.append(dict(draw(st.permutations(pairs))))  # fields in any order
    shape = draw(st.sampled_from(["array", "items", "facts"]))
    value: Any = entries
    if shape != "array":
        head = {"items": ("entityId", "projects/x"), "facts": ("entity", "areas/y")}[shape]
        container = dict([head, (shape, entries)])
        container.update(draw(extra_fields))
        value = dict(draw(st.permutations(list(container.items()))))
    layout = {
        "indent": draw(st.sampled_from([2, 4, "\t", None])),
        "spaced": draw(st.booleans()),  # compact: Python's ", " or JavaScript's ","
        "ascii": draw(st.booleans()),
        "bom": draw(st.booleans()),
        "newline": draw(st.booleans()),
    }
    return value, layout


def typed(value: Any) -> Any:
    """A JSON value whose comparison checks key order and number types (1 is not 1.0)."""
    if isinstance(value, dict):
        return ["{}", *[(key, typed(item)) for key, item in value.items()]]
    if isinstance(value, list):
        return ["[]", *[typed(item) for item in value]]
    return (type(value).__name__, value)


LAYOUT = {"indent": None, "spaced": True, "ascii": False, "bom": False, "newline": False}


def has_float(value: Any) -> bool:
    if isinstance(value, dict):
        return any(has_float(item) for item in value.values())
    if isinstance(value, list):
        return any(has_float(item) for item in value)
    return isinstance(value, float)


def dump(value: Any, layout: dict[str, Any]) -> bytes:
    separators = None
    if layout["indent"] is None:
        separators = (", ", ": ") if layout["spaced"] else (",", ":")
    text = json.dumps(
        value, indent=layout["indent"], separators=separators, ensure_ascii=layout["ascii"]
    )
    data = (text + ("\n" if layout["newline"] else "")).encode("utf-8")
    return (b"\xef\xbb\xbf" + data) if layout["bom"] else data


@settings(max_examples=300, deadline=None)
@given(fact_files())
@example(([], {"indent": 2, "spaced": False, "ascii": False, "bom": False, "newline": True}))
@example(([{"id": "n", "fact": "big", "category": "context", "x": -(2**63) - 1}], LAYOUT))
@example(([{"id": "n", "fact": "big", "category": "context", "x": 10**30}], LAYOUT))
@example(
    ([{"id": "n", "fact": "small", "category": "context", "x": 1.1938109482288198e-05}], LAYOUT)
)
def test_every_shape_round_trips(case: tuple[Any, dict[str, Any]]) -> None:
    value, layout = case
    path = Path("areas/x/items.json")
    data = dump(value, layout)
    ff = formats.decode(path, data)
    again = formats.encode(ff)
    assert typed(json.loads(again.decode("utf-8-sig"))) == typed(value)
    if not has_float(value):  # floats may be spelled differently (1e-07 / 1e-7), not numbers
        assert again == data
    assert again.startswith(b"\xef\xbb\xbf") == layout["bom"]
    assert again.endswith(b"\n") == layout["newline"]
    if layout["ascii"]:
        assert again.removeprefix(b"\xef\xbb\xbf").isascii()
    if layout["indent"] is None:
        assert b"\n" not in again.rstrip(b"\n")
    # Read back, it is the same file: same entries, same spelling, same layout.
    second = formats.decode(path, again)
    assert second.dialect == ff.dialect
    assert formats.encode(second) == again
    # And every generated entry is a valid fact, its unknown fields kept as they were.
    facts, bad = ff.facts()
    assert bad == []
    raw = value if isinstance(value, list) else value[ff.dialect.shape]
    for fact, entry in zip(facts, raw, strict=True):
        assert fact.id == entry["id"]
        extras = fact.model_extra or {}
        for key, item in entry.items():
            if key.startswith("x"):
                assert typed(extras[key]) == typed(item)


# -- a vault scan's tier counts are the facts' tiers, one by one ------------------------------

odd_times = st.one_of(
    iso_times,
    st.dates().map(str),  # a date alone: fromisoformat reads it, the typed decoder does not
    st.sampled_from(["", "not a date", "2026-13-01T00:00:00", "2026-01-01T10:00:00.1234567"]),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
)
odd_entries = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(["a", "b", "c"]) | st.integers(0, 2),
        "lastAccessed": odd_times,
        "timestamp": odd_times,
        "created": odd_times,
        "accessCount": st.one_of(
            st.integers(-5, 2**70), st.booleans(), st.floats(0, 30), st.none(), st.text(max_size=2)
        ),
        "status": st.sampled_from(["active", "superseded", "historical", None, 3]),
        "supersededBy": st.none() | st.sampled_from(["", "a", "b"]),
        "supersedes": st.none() | st.sampled_from(["", "a", "b", "c"]),
    },
)


def reference_counts(ff: formats.FactFile, counter: decay.RawTierCounter) -> tuple[int, ...]:
    """Tier counts the slow way: each entry's lineage, then its tier (`tier` on the dict)."""
    successor, _ = ff.lineage()
    tiers = Counter(
        "superseded"
        if formats.is_superseded_raw(e, successor)
        else counter.tier(e, ff.dialect.time_key).value
        for e in ff.raw
        if isinstance(e, dict)
    )
    return tuple(tiers[name] for name in ("hot", "warm", "cold", "superseded"))


def check_scan_counts(value: Any, data: bytes, now: dt.datetime) -> None:
    path = Path("items.json")
    ff = formats.decode(path, data)
    counter = decay.RawTierCounter(decay.DecayPolicy(), now)
    expected = reference_counts(ff, counter)
    for tiers in (formats.decode_tier_fields(path, data), formats.tier_file(ff.raw, "timestamp")):
        if tiers.time_key == ff.dialect.time_key:
            assert tuple(counter.count(tiers)) == expected
        assert tiers.total == len(ff.raw)
    assert formats.decode_tier_fields(path, data).time_key == ff.dialect.time_key


@settings(max_examples=300, deadline=None)
@given(fact_files(), moments)
def test_scan_counts_every_shape_as_its_facts(
    case: tuple[Any, dict[str, Any]], now: dt.datetime
) -> None:
    value, layout = case
    check_scan_counts(value, dump(value, layout), now)


@settings(max_examples=500, deadline=None)
@given(
    # ids unique: with two facts of one id, whether the second is replaced too is moot
    # (`doctor` reports the duplicate), and the scan counts each fact by its own fields
    st.lists(
        odd_entries | json_scalars,
        max_size=8,
        unique_by=lambda e: ("id", e["id"]) if isinstance(e, dict) and "id" in e else id(e),
    ),
    moments,
    st.booleans(),
)
@example([{"id": "a"}, {"id": "b", "supersedes": "a", "timestamp": "2026-01-01"}], BASE, False)
def test_scan_counts_odd_entries_as_their_facts(
    entries: list[Any], now: dt.datetime, wrapped: bool
) -> None:
    value = {"facts": entries} if wrapped else entries
    check_scan_counts(value, json.dumps(value).encode(), now)
