"""Two versions of a vault file merged with nothing lost (`core.sync_merge`, issue 31).

Variants thought of: facts added on both sides (union, ours' order then theirs' new
ones); an access counted on both sides (the ancestor's count plus both increases; the
larger without an ancestor; the later last access); one fact's text changed on both sides
(the later active, the other kept superseded with a derived id, and a second merge adds
nothing); changed on one side only (that side's, nothing kept beside it); superseded on
one side; superseded by two different new versions (chained, the later active); a
wrapper file with "content" and "created" keys (written back in its shape); entries
without an id; daily notes (entries of both, in time order, each once); § notes, tiers,
profile keys; documents with the true ancestor among newer kept versions (nothing of
either side dropped), with the same line changed on both sides (not clean, marked), and
with no ancestor at all; random edits on both sides (a property: every fact of either
side survives, every count at least either side's, every text a side wrote, the same
answer twice, and a side merged in again against itself changes nothing).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vault_app.core import formats, sync_merge

FACTS = Path("global/life/areas/people/jane/items.json")
T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def fact(fid: str, text: str, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": fid,
        "fact": text,
        "category": "context",
        "timestamp": "2026-11-01T10:00:00+00:00",
        "status": "active",
        "supersededBy": None,
        "relatedEntities": [],
        "lastAccessed": "2026-11-01T10:00:00+00:00",
        "accessCount": 0,
    }
    entry.update(more)
    return entry


def dump(entries: list[Any]) -> bytes:
    return json.dumps(entries, indent=2).encode() + b"\n"


def merged(ours: list[Any], theirs: list[Any], base: list[Any] | None = None, **kw: Any) -> Any:
    out = sync_merge.merge_file(
        FACTS, dump(ours), dump(theirs), [dump(base)] if base is not None else [], **kw
    )
    assert out.clean and out.kind == "facts"
    return json.loads(out.data)


def by_id(entries: list[Any]) -> dict[str, Any]:
    return {e["id"]: e for e in entries}


def test_facts_added_on_both_sides_are_all_kept() -> None:
    base = [fact("a", "Jane is the plumber")]
    ours = [*base, fact("b", "Jane charges $90")]
    theirs = [*base, fact("c", "Jane has a van")]
    result = merged(ours, theirs, base)
    assert [e["id"] for e in result] == ["a", "b", "c"]


def test_access_counts_combine_and_the_later_access_stays() -> None:
    base = [fact("a", "Jane is the plumber", accessCount=5)]
    ours = [fact("a", "Jane is the plumber", accessCount=7, lastAccessed="2026-11-03T08:00:00Z")]
    theirs = [fact("a", "Jane is the plumber", accessCount=9, lastAccessed="2026-11-02T08:00:00Z")]
    one = merged(ours, theirs, base)[0]
    assert one["accessCount"] == 11 and one["lastAccessed"] == "2026-11-03T08:00:00Z"
    assert merged(ours, theirs)[0]["accessCount"] == 9  # without the ancestor: the larger


def test_accesses_counted_per_device_sum_exactly_without_an_ancestor() -> None:
    def counted(total: int, **by: int) -> dict[str, Any]:
        return fact("a", "Jane is the plumber", accessCount=total, metadata={"accessBy": by})

    ours = counted(7, laptop=2)  # 5 before any device counted, 2 here
    theirs = counted(8, server=3)  # the same 5, 3 on the server
    one = merged([ours], [theirs])[0]  # Syncthing: no ancestor
    assert one["accessCount"] == 10 and one["metadata"]["accessBy"] == {"laptop": 2, "server": 3}
    assert merged([one], [theirs]) == [one]  # merging again counts nothing twice
    later = counted(11, laptop=2, server=4)  # the server counted one more meanwhile
    assert merged([one], [later])[0]["accessCount"] == 11
    assert len(merged([ours], [theirs])) == 1  # counts are no change of content


def test_a_text_changed_on_both_sides_keeps_both_versions() -> None:
    base = [fact("a", "Jane charges $90")]
    ours = [fact("a", "Jane charges $95")]
    theirs = [fact("a", "Jane charges $110")]
    later_theirs = {"ours_time": T0, "theirs_time": T0 + dt.timedelta(minutes=1)}
    result = merged(ours, theirs, base, **later_theirs)
    active = [e for e in result if e["status"] == "active"]
    assert [e["fact"] for e in active] == ["Jane charges $110"]
    kept = next(e for e in result if e["id"] != "a")
    assert kept["fact"] == "Jane charges $95" and kept["status"] == "superseded"
    assert kept["supersededBy"] == "a" and kept["id"].startswith("a-")
    again = merged(result, theirs, base, **later_theirs)  # merging twice adds nothing
    assert again == result
    flipped = merged(ours, theirs, base, ours_time=T0 + dt.timedelta(hours=1), theirs_time=T0)
    assert by_id(flipped)["a"]["fact"] == "Jane charges $95"


def test_a_change_on_one_side_only_is_taken_alone() -> None:
    base = [fact("a", "Jane charges $90", accessCount=2)]
    ours = [fact("a", "Jane charges $90", accessCount=3)]
    theirs = [fact("a", "Jane charges $95", accessCount=2)]
    result = merged(ours, theirs, base)
    assert len(result) == 1
    assert result[0]["fact"] == "Jane charges $95" and result[0]["accessCount"] == 3


def test_a_fact_superseded_on_one_side_stays_superseded() -> None:
    base = [fact("a", "Jane charges $90")]
    ours = [fact("a", "Jane charges $90", accessCount=1)]
    theirs = [
        fact("a", "Jane charges $90", status="superseded", supersededBy="b"),
        fact("b", "Jane charges $110", supersedes="a", timestamp="2026-11-05T09:00:00+00:00"),
    ]
    result = by_id(merged(ours, theirs, base))
    assert result["a"]["status"] == "superseded" and result["a"]["supersededBy"] == "b"
    assert result["a"]["accessCount"] == 1 and result["b"]["status"] == "active"


def test_two_new_versions_of_one_fact_are_chained() -> None:
    base = [fact("a", "Jane charges $90")]
    ours = [
        fact("a", "Jane charges $90", status="superseded", supersededBy="b"),
        fact("b", "Jane charges $95", supersedes="a", timestamp="2026-11-05T09:00:00+00:00"),
    ]
    theirs = [
        fact("a", "Jane charges $90", status="superseded", supersededBy="c"),
        fact("c", "Jane charges $110", supersedes="a", timestamp="2026-11-06T09:00:00+00:00"),
    ]
    result = by_id(merged(ours, theirs, base))
    assert result["a"]["supersededBy"] == "b"
    assert result["b"]["status"] == "superseded" and result["b"]["supersededBy"] == "c"
    assert result["c"]["status"] == "active" and result["c"]["supersedes"] == "b"
    ff = formats.decode(FACTS, dump(list(result.values())))
    successor, _ = ff.lineage()
    assert successor == {"a": "b", "b": "c"}


def test_a_wrapper_file_is_written_back_in_its_own_shape() -> None:
    def wrapped(entries: list[Any]) -> bytes:
        return json.dumps({"version": 2, "facts": entries}, indent=2).encode() + b"\n"

    one = {"id": "a", "content": "Jane is the plumber", "category": "context",
           "created": "2026-11-01T10:00:00Z"}  # fmt: skip
    two = {"id": "b", "content": "Jane has a van", "category": "context",
           "created": "2026-11-02T10:00:00Z"}  # fmt: skip
    out = sync_merge.merge_file(Path("facts.json"), wrapped([one]), wrapped([one, two]), [])
    data = json.loads(out.data)
    assert data["version"] == 2 and [e["content"] for e in data["facts"]] == [
        "Jane is the plumber",
        "Jane has a van",
    ]


def test_entries_without_an_id_are_kept_once() -> None:
    odd = {"fact": "no id here", "category": "context"}
    result = merged([fact("a", "x"), odd], [fact("a", "x"), odd, {"note": "other"}])
    assert result[1:] == [odd, {"note": "other"}]


def test_daily_notes_keep_every_entry_in_time_order() -> None:
    path = Path("global/daily/2026-11-29.md")
    base = "# 2026-11-29\n\n## 09:00:00\n\nBreakfast.\n"
    ours = base + "\n## 11:00:00\n\nOurs at eleven.\n"
    theirs = base + "\n## 10:00:00\n\nTheirs at ten.\n\n## 12:00:00\n\nTheirs at noon.\n"
    out = sync_merge.merge_file(path, ours.encode(), theirs.encode(), [base.encode()])
    text = out.data.decode()
    order = [text.index(s) for s in ("Breakfast", "at ten", "at eleven", "at noon")]
    assert order == sorted(order) and text.count("Breakfast") == 1
    assert out.kind == "daily" and out.said == ["2 entries added from the other side"]


def test_notes_tiers_and_profile_merge_by_entry_or_key() -> None:
    notes_path = Path("agents/finance/memories/MEMORY.md")
    out = sync_merge.merge_file(notes_path, b"one\n\xc2\xa7\ntwo", b"one\n\xc2\xa7\nthree", [])
    assert out.kind == "notes" and out.data.decode().count("\u00a7") == 2
    assert all(w in out.data.decode() for w in ("one", "two", "three"))

    tiers_path = Path("agents/finance/MEMORY.md")
    ours = "# Memory\n\n## Tier 1 — Long term\n- a\n\n## Tier 2 — Mid term\n- b\n"
    theirs = "# Memory\n\n## Tier 1 — Long term\n- a\n- c\n\n## Tier 2 — Mid term\n- b\n"
    out = sync_merge.merge_file(tiers_path, ours.encode(), theirs.encode(), [])
    assert out.kind == "tiers" and "- c" in out.data.decode() and "- b" in out.data.decode()

    profile_path = Path("agents/finance/profile.json")
    out = sync_merge.merge_file(
        profile_path,
        b'{"name": "Ana", "city": "Oslo"}',
        b'{"name": "Ana", "city": "Bergen", "pet": "cat"}',
        [],
        ours_time=T0,
        theirs_time=T0 + dt.timedelta(seconds=5),
    )
    assert json.loads(out.data) == {"name": "Ana", "city": "Bergen", "pet": "cat"}


SUMMARY = Path("global/life/areas/people/jane/summary.md")


def test_a_document_merges_against_the_version_both_sides_shared() -> None:
    shared = "# Jane\n\nThe plumber.\n\nNotes:\n- one\n"
    ours_earlier = shared + "- two (ours, synced to nobody yet)\n"
    ours = ours_earlier + "- three (ours)\n"
    theirs = shared.replace("The plumber.", "The plumber, since 2019.")
    bases = [b.encode() for b in (ours, ours_earlier, shared)]  # newest first
    out = sync_merge.merge_file(SUMMARY, ours.encode(), theirs.encode(), bases)
    text = out.data.decode()
    assert out.clean and "since 2019" in text and "- two" in text and "- three" in text
    assert "The plumber.\n" not in text  # their edit, taken


def test_the_same_line_changed_on_both_sides_is_left_to_a_person() -> None:
    shared = "# Jane\n\nThe plumber.\n"
    ours = shared.replace("The plumber.", "The plumber (Bell & Sons).")
    theirs = shared.replace("The plumber.", "The plumber, since 2019.")
    out = sync_merge.merge_file(SUMMARY, ours.encode(), theirs.encode(), [shared.encode()])
    assert not out.clean and "<<<<<<<" in out.data.decode()
    alone = sync_merge.merge_file(SUMMARY, b"# Jane\n\nA\n", b"# Jane\n\nA\nB\n", [])
    assert alone.clean and alone.data == b"# Jane\n\nA\nB\n"  # no ancestor: nothing dropped


texts = st.sampled_from(["Jane is the plumber", "Jane has a van", "Jane charges $95", "x"])


@st.composite
def two_sides(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[Any]]:
    base = [fact(f"f{i}", draw(texts), accessCount=draw(st.integers(0, 5))) for i in range(4)]

    def side(tag: str) -> list[Any]:
        entries = [dict(e) for e in base]
        for _ in range(draw(st.integers(0, 6))):
            move = draw(st.sampled_from(["add", "access", "edit", "supersede"]))
            target = draw(st.sampled_from(entries))
            if move == "add":
                entries.append(fact(f"{tag}{len(entries)}", draw(texts)))
            elif move == "access":
                target["accessCount"] += 1
            elif move == "edit":
                target["fact"] = draw(texts) + f" ({tag})"
            elif target["status"] == "active":
                new = fact(f"{tag}s{len(entries)}", draw(texts), supersedes=target["id"])
                target.update(status="superseded", supersededBy=new["id"])
                entries.append(new)
        return entries

    return base, side("a"), side("b")


@settings(max_examples=150, deadline=None)
@given(two_sides())
def test_random_edits_on_both_sides_lose_nothing(sides: tuple[list[Any], ...]) -> None:
    base, ours, theirs = sides
    result = merged(ours, theirs, base)
    assert result == merged(ours, theirs, base)  # the same answer on every device
    got = by_id(result)
    before = {e["id"]: e["fact"] for e in base}
    texts_here = {e["fact"] for e in result}
    for side in (ours, theirs):
        for entry in side:  # every fact of either side, with at least its count
            assert entry["id"] in got
            assert got[entry["id"]]["accessCount"] >= entry["accessCount"]
            if entry["status"] == "superseded":
                assert got[entry["id"]]["status"] == "superseded"
            if before.get(entry["id"]) != entry["fact"]:
                assert entry["fact"] in texts_here  # what a side wrote is never lost
    # merging a side in again, against itself as the ancestor (as git does after a
    # merge commit), changes nothing
    assert merged(result, ours, ours) == result
    assert merged(result, theirs, theirs) == result
