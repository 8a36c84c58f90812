"""Classification, coalescing and batch building, fed synthetic events (no OS, no timing)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from vault_app.core import layout
from vault_app.watch import events
from vault_app.watch.events import AgentDocument, DailyNoteKey, IndexFile, RawEvent

ROOT = Path("/vaults/home")
JANE = "global/life/areas/people/jane"
BUDGET = "agents/finance/workspace/projects/budget"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def coalescer(clock: Clock) -> events.Coalescer:
    return events.Coalescer(quiet=0.15, max_latency=0.5, atomic_quiet=0.02, clock=clock)


def ref(address: str) -> layout.EntityRef:
    return layout.EntityRef.parse(address)


# -- classification -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "key"),
    [
        (f"{JANE}/items.json", ref("areas/people/jane")),
        (f"{JANE}/facts.json", ref("areas/people/jane")),
        (f"{JANE}/summary.md", ref("areas/people/jane")),
        ("global/life/projects/bathroom/items.json", ref("projects/bathroom")),
        (f"{BUDGET}/items.json", ref("agent:finance:projects/budget")),
        ("agents/finance/workspace/archives/old/q/summary.md", ref("agent:finance:archives/old/q")),
        ("global/daily/2026-11-21.md", DailyNoteKey(None, dt.date(2026, 11, 21))),
        ("agents/ops/daily/2026-01-02.md", DailyNoteKey("ops", dt.date(2026, 1, 2))),
        ("agents/ops/TACIT.md", AgentDocument("ops", "TACIT.md")),
        ("agents/ops/CONTEXT.md", AgentDocument("ops", "CONTEXT.md")),
        ("agents/ops/SOUL.md", AgentDocument("ops", "SOUL.md")),
        ("agents/ops/MEMORY.md", AgentDocument("ops", "MEMORY.md")),
        ("agents/ops/profile.json", AgentDocument("ops", "profile.json")),
        ("agents/ops/memories/MEMORY.md", AgentDocument("ops", "memories/MEMORY.md")),
        ("agents/ops/memories/USER.md", AgentDocument("ops", "memories/USER.md")),
        ("global/AGENTS.md", AgentDocument(None, "AGENTS.md")),
        ("global/life/index.md", IndexFile(None)),
        ("agents/ops/workspace/index.md", IndexFile("ops")),
    ],
)
def test_tracked_files_are_classified_as_layout_reads_them(
    path: str, key: events.ChangeKey
) -> None:
    assert events.classify(path) == key


@pytest.mark.parametrize(
    "path",
    [
        # the app's own state, temp and lock files
        ".vault/audit.jsonl",
        ".vault/cache/watch/app.json",
        f".vault/backups/{JANE}/items.json/00001-abc",
        f"{JANE}/.items.json.4242.deadbeef.vault-tmp",
        f"{JANE}/items.json.lock",
        # editors' swap, backup and probe files
        f"{JANE}/.summary.md.swp",
        f"{JANE}/.summary.md.swx",
        f"{JANE}/summary.md~",
        f"{JANE}/#summary.md#",
        f"{JANE}/.#summary.md",
        f"{JANE}/4913",
        f"{JANE}/.goutputstream-XYZ123",
        "global/daily/.2026-11-21.md.swp",
        # not entities: a category or PARA root itself, hidden or bad folders
        "global/life/areas/items.json",
        "global/life/items.json",
        "global/life/README.md",
        "global/life/.git/items.json",
        "global/life/areas/.hidden/items.json",
        "global/life/areas/ jane/items.json",
        "global/life/other/jane/items.json",
        # not daily notes or documents
        "agents/ops/memories/TACIT.md",
        "agents/ops/memories/MEMORY.md.lock",
        "agents/ops/memories/sub/MEMORY.md",
        "global/memories/MEMORY.md",
        "global/daily/2026-02-30.md",
        "global/daily/notes.md",
        "agents/ops/NOTES.md",
        "agents/bad id/TACIT.md",
        "agents/.tmp/TACIT.md",
        "agents/AGENTS.md",
        "AGENTS.md",
        "items.json",
    ],
)
def test_everything_else_is_ignored(path: str) -> None:
    assert events.classify(path) is None


def test_folders_are_tracked_only_where_tracked_files_can_live() -> None:
    assert events.tracks_folder("global")
    assert events.tracks_folder("agents/ops")
    assert events.tracks_folder(JANE)
    assert not events.tracks_folder("")
    assert not events.tracks_folder(".vault")
    assert not events.tracks_folder(".vault/backups/global")
    assert not events.tracks_folder("global/life/.git")
    assert not events.tracks_folder("global/daily/sub")
    assert not events.tracks_folder("elsewhere")


def test_entity_folder_is_the_inverse_of_classify() -> None:
    for folder in (JANE, BUDGET):
        key = events.classify(f"{folder}/items.json")
        assert isinstance(key, layout.EntityRef)
        assert events.entity_folder(key) == folder


# -- coalescing ---------------------------------------------------------------------------


def test_temp_file_and_rename_is_one_hint_due_after_the_short_quiet(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    temp = f"{JANE}/.items.json.77.c0ffee.vault-tmp"
    assert not coalescer.add(RawEvent("created", temp))
    assert not coalescer.add(RawEvent("modified", temp))
    assert coalescer.due_in() is None  # a temp file alone is nothing
    clock.advance(0.01)
    assert coalescer.add(RawEvent("moved", temp, f"{JANE}/items.json"))
    assert coalescer.take() is None  # not quiet yet
    clock.advance(0.019)
    assert coalescer.take() is None
    clock.advance(0.002)
    pending = coalescer.take()
    assert pending is not None
    assert pending.files == {f"{JANE}/items.json"}
    assert pending.trees == frozenset()
    assert coalescer.due_in() is None


def test_a_write_in_place_waits_for_the_full_quiet_window(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    coalescer.add(RawEvent("created", f"{JANE}/summary.md"))
    clock.advance(0.1)
    coalescer.add(RawEvent("modified", f"{JANE}/summary.md"))  # still being written
    clock.advance(0.1)
    assert coalescer.take() is None  # 0.1 s since the last event < 0.15
    clock.advance(0.06)
    pending = coalescer.take()
    assert pending is not None and pending.files == {f"{JANE}/summary.md"}
    assert pending.events == 2


def test_a_rename_does_not_cut_short_a_slower_write_of_the_same_burst(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    coalescer.add(RawEvent("modified", "global/daily/2026-11-21.md"))
    clock.advance(0.01)
    coalescer.add(RawEvent("moved", f"{JANE}/.x.vault-tmp", f"{JANE}/items.json"))
    clock.advance(0.05)
    assert coalescer.take() is None  # the daily note may still be half written
    clock.advance(0.1)
    pending = coalescer.take()
    assert pending is not None
    assert pending.files == {"global/daily/2026-11-21.md", f"{JANE}/items.json"}


def test_vim_style_save_is_one_hint_and_waits_for_the_new_file(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    summary = f"{JANE}/summary.md"
    coalescer.add(RawEvent("created", f"{JANE}/4913"))
    coalescer.add(RawEvent("deleted", f"{JANE}/4913"))
    coalescer.add(RawEvent("moved", summary, f"{JANE}/summary.md~"))  # the backup
    clock.advance(0.03)
    assert coalescer.take() is None  # a file moved away is not a whole new file
    coalescer.add(RawEvent("created", summary))
    coalescer.add(RawEvent("modified", summary))
    coalescer.add(RawEvent("deleted", f"{JANE}/summary.md~"))
    coalescer.add(RawEvent("modified", f"{JANE}/.summary.md.swp"))
    clock.advance(0.16)
    pending = coalescer.take()
    assert pending is not None and pending.files == {summary}


def test_noise_alone_never_makes_a_batch(coalescer: events.Coalescer, clock: Clock) -> None:
    noise = [
        RawEvent("modified", ".vault/audit.jsonl"),
        RawEvent("created", ".vault/locks/abc.lock"),
        RawEvent("created", f"{JANE}/.summary.md.swp"),
        RawEvent("created", ".vault/backups", is_dir=True),
        RawEvent("modified", JANE, is_dir=True),  # a folder's listing changed
        RawEvent("created", "global/life/.git", is_dir=True),
        RawEvent("deleted", "", is_dir=True),  # the vault itself: the health check's job
    ]
    for event in noise:
        assert not coalescer.add(event), event
    clock.advance(10)
    assert coalescer.due_in() is None
    assert coalescer.take(force=True) is None


def test_a_steady_burst_is_cut_into_batches_at_the_latency_bound(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    batches: list[events.Pending] = []
    written = set()
    for i in range(40):  # one write in place every 50 ms for 2 s: never quiet
        path = f"global/life/projects/p{i}/items.json"
        written.add(path)
        coalescer.add(RawEvent("modified", path))
        clock.advance(0.05)
        due = coalescer.due_in()
        assert due is not None and due <= 0.5
        if (pending := coalescer.take()) is not None:
            batches.append(pending)
    clock.advance(1)
    last = coalescer.take()
    assert last is not None
    batches.append(last)
    assert 4 <= len(batches) <= 5
    assert all(b.last - b.first <= 0.5 for b in batches)
    assert set().union(*(b.files for b in batches)) == written
    assert sum(len(b.files) for b in batches) == 40


def test_renames_in_quick_succession_make_one_batch(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    for i in range(30):  # an agent saving 30 entities, one rename every 5 ms
        path = f"global/life/projects/p{i}/items.json"
        coalescer.add(RawEvent("moved", f"global/life/projects/p{i}/.t.vault-tmp", path))
        clock.advance(0.005)
        assert coalescer.take() is None
    clock.advance(0.02)
    pending = coalescer.take()
    assert pending is not None and len(pending.files) == 30


def test_an_entity_moved_to_archives_is_two_trees_and_a_move(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    old, new = "global/life/projects/garden", "global/life/archives/garden"
    coalescer.add(RawEvent("created", "global/life/archives", is_dir=True))
    coalescer.add(RawEvent("moved", old, new, is_dir=True))
    coalescer.add(RawEvent("moved", f"{old}/items.json", f"{new}/items.json"))  # sub-events
    coalescer.add(RawEvent("moved", f"{old}/summary.md", f"{new}/summary.md"))
    clock.advance(0.2)
    pending = coalescer.take()
    assert pending is not None
    assert pending.trees == {"global/life/archives", old}  # nested trees fold into one
    assert pending.files == frozenset()  # covered by the trees
    assert pending.moves == ((old, new),)


def test_deletions_are_hints_too(coalescer: events.Coalescer, clock: Clock) -> None:
    coalescer.add(RawEvent("deleted", f"{JANE}/items.json"))
    coalescer.add(RawEvent("deleted", BUDGET, is_dir=True))
    coalescer.add(RawEvent("deleted", "agents/ops", is_dir=True))
    clock.advance(0.2)
    pending = coalescer.take()
    assert pending is not None
    assert pending.files == {f"{JANE}/items.json"}
    assert pending.trees == {BUDGET, "agents/ops"}


def test_a_file_moved_in_from_outside_counts_as_created(
    coalescer: events.Coalescer, clock: Clock
) -> None:
    assert coalescer.add(RawEvent("created", f"{JANE}/facts.json"))
    clock.advance(0.2)
    pending = coalescer.take()
    assert pending is not None and pending.files == {f"{JANE}/facts.json"}


def test_take_with_force_flushes_early(coalescer: events.Coalescer) -> None:
    coalescer.add(RawEvent("modified", f"{JANE}/items.json"))
    assert coalescer.take() is None
    pending = coalescer.take(force=True)
    assert pending is not None and pending.files == {f"{JANE}/items.json"}


# -- batches ------------------------------------------------------------------------------


def test_an_entity_with_files_left_is_changed_one_with_none_is_removed() -> None:
    gone = "global/life/projects/gone"
    batch = events.build_batch(
        ROOT,
        [f"{JANE}/items.json", f"{gone}/items.json", f"{gone}/summary.md"],
        present={f"{JANE}/items.json", f"{JANE}/summary.md"},
    )
    assert batch.entities == (ref("areas/people/jane"),)
    assert batch.removed_entities == (ref("projects/gone"),)
    assert batch.paths == (f"{JANE}/items.json", f"{gone}/items.json", f"{gone}/summary.md")
    assert not batch.empty


def test_an_entity_keeping_only_its_summary_is_still_there() -> None:
    batch = events.build_batch(ROOT, [f"{JANE}/items.json"], present={f"{JANE}/summary.md"})
    assert batch.entities == (ref("areas/people/jane"),)
    assert batch.removed_entities == ()


def test_moves_pair_removed_and_new_entities_also_in_nested_groups() -> None:
    old, new = "global/life/projects/house", "global/life/archives/house"
    changed = [
        f"{old}/items.json",
        f"{old}/kitchen/items.json",
        f"{new}/items.json",
        f"{new}/kitchen/items.json",
        f"{JANE}/summary.md",
    ]
    present = {f"{new}/items.json", f"{new}/kitchen/items.json", f"{JANE}/summary.md"}
    batch = events.build_batch(ROOT, changed, present, moves=[(old, new)])
    assert batch.moved_entities == (
        (ref("projects/house"), ref("archives/house")),
        (ref("projects/house/kitchen"), ref("archives/house/kitchen")),
    )
    assert set(batch.removed_entities) == {ref("projects/house"), ref("projects/house/kitchen")}
    assert ref("archives/house") in batch.entities
    assert ref("areas/people/jane") in batch.entities
    assert "moved projects/house -> archives/house" in batch.describe()
    assert "changed areas/people/jane" in batch.describe()


def test_entities_of_every_scope_in_one_batch_come_global_first() -> None:
    other = "agents/a/workspace/areas/x/items.json"
    changed = [f"{BUDGET}/items.json", f"{JANE}/items.json", other]
    batch = events.build_batch(ROOT, changed, set(), moves=[(BUDGET, JANE)])
    assert [str(r) for r in batch.removed_entities] == [
        "areas/people/jane",
        "agent:a:areas/x",
        "agent:finance:projects/budget",
    ]


def test_a_move_whose_target_did_not_appear_is_only_a_removal() -> None:
    old = "global/life/projects/house"
    batch = events.build_batch(
        ROOT, [f"{old}/items.json"], set(), moves=[(old, "global/life/archives/house")]
    )
    assert batch.moved_entities == ()
    assert batch.removed_entities == (ref("projects/house"),)


def test_daily_notes_documents_indexes_and_agents() -> None:
    batch = events.build_batch(
        ROOT,
        [
            "global/daily/2026-11-21.md",
            "agents/ops/daily/2026-11-20.md",
            "agents/ops/TACIT.md",
            "global/AGENTS.md",
            "global/life/index.md",
            "global/life/README.md",  # not tracked: ignored
        ],
        present=set(),
        agents_before={"ops", "old"},
        agents_after={"ops", "scout"},
    )
    assert batch.daily == (
        DailyNoteKey(None, dt.date(2026, 11, 21)),
        DailyNoteKey("ops", dt.date(2026, 11, 20)),
    )
    assert batch.documents == (AgentDocument(None, "AGENTS.md"), AgentDocument("ops", "TACIT.md"))
    assert batch.indexes == (IndexFile(None),)
    assert batch.agents == ("scout",)
    assert batch.removed_agents == ("old",)
    assert batch.entities == batch.removed_entities == ()
    data = batch.to_json()
    assert data["daily"] == [
        {"scope": "global", "date": "2026-11-21"},
        {"scope": "agent:ops", "date": "2026-11-20"},
    ]
    tacit = {"agent": "ops", "name": "TACIT.md", "path": "agents/ops/TACIT.md"}
    assert data["documents"][1] == tacit
    assert data["agents"] == ["scout"] and data["removedAgents"] == ["old"]
    assert data["indexes"] == ["global"]
    assert data["reason"] == "events" and data["rescan"] is False


def test_an_empty_batch_and_one_that_says_everything() -> None:
    assert events.build_batch(ROOT, [], set()).empty
    assert events.build_batch(ROOT, ["global/life/README.md"], set()).empty
    everything = events.ChangeBatch(ROOT, "open", rescan=True, everything=True)
    assert not everything.empty
    assert "everything" in everything.describe()
    assert events.ChangeBatch(ROOT, "restarted").describe() == "restarted: nothing changed"


def test_batch_json_names_entities_by_address() -> None:
    batch = events.build_batch(
        ROOT, [f"{BUDGET}/items.json"], {f"{BUDGET}/items.json"}, reason="open", rescan=True
    )
    data = batch.to_json()
    assert data["entities"] == ["agent:finance:projects/budget"]
    assert data["paths"] == [f"{BUDGET}/items.json"]
    assert data["rescan"] is True and data["reason"] == "open"
    assert dt.datetime.fromisoformat(data["time"]).tzinfo is not None


# -- moves in two halves ------------------------------------------------------------------

NEW_JANE = "global/life/archives/people/jane"
JANE_FILES = {f"{JANE}/items.json": (111, 40), f"{JANE}/summary.md": (222, 30)}


def moved_stats(
    stats: dict[str, tuple[int, int]], old: str, new: str
) -> dict[str, tuple[int, int]]:
    """`stats` as a rename of `old` to `new` leaves them: same mtimes and sizes."""
    return {path.replace(old, new, 1): stat for path, stat in stats.items()}


def arrive(matcher: events.MoveMatcher, stats: dict[str, tuple[int, int]]) -> events.ChangeBatch:
    """The batch of entities that appeared with these files (all of them new)."""
    batch = events.build_batch(ROOT, stats, stats)
    return matcher.pair(batch, dict.fromkeys(stats, "added"), stats, {})


def depart(matcher: events.MoveMatcher, stats: dict[str, tuple[int, int]]) -> events.ChangeBatch:
    """The batch of entities whose files (with these last stats) are all gone."""
    batch = events.build_batch(ROOT, stats, set())
    return matcher.pair(batch, dict.fromkeys(stats, "removed"), {}, stats)


def test_fingerprint_is_an_entity_folders_data_files_with_their_stats() -> None:
    stats = {**JANE_FILES, f"{JANE}/notes.txt": (1, 1), f"{JANE}/kid/items.json": (5, 5)}
    assert events.fingerprint(JANE, stats) == (("items.json", 111, 40), ("summary.md", 222, 30))
    assert events.fingerprint(NEW_JANE, stats) is None


def test_a_move_in_two_halves_is_reported_with_the_removal(clock: Clock) -> None:
    """A folder moved into a folder that did not exist yet: watchdog reports the new place
    as created, and the old one as deleted half a second later."""
    matcher = events.MoveMatcher(window=5.0, clock=clock)
    first = arrive(matcher, moved_stats(JANE_FILES, JANE, NEW_JANE))
    assert first.entities == (ref("archives/people/jane"),) and first.moved_entities == ()
    clock.advance(0.5)
    second = depart(matcher, JANE_FILES)
    assert second.removed_entities == (ref("areas/people/jane"),)
    assert second.moved_entities == ((ref("areas/people/jane"), ref("archives/people/jane")),)
    assert "moved areas/people/jane -> archives/people/jane" in second.describe()
    assert "removed" not in second.describe()
    # once paired, the arrival is used up: the same removal again is only a removal
    assert depart(matcher, JANE_FILES).moved_entities == ()


def test_a_move_seen_as_removal_and_creation_in_one_batch(clock: Clock) -> None:
    """What a rescan (polling, after a restart) sees; a rename to another name too."""
    matcher = events.MoveMatcher(clock=clock)
    renamed = "global/life/areas/people/jane-doe"
    new = moved_stats(JANE_FILES, JANE, renamed)
    changes = {**dict.fromkeys(JANE_FILES, "removed"), **dict.fromkeys(new, "added")}
    batch = events.build_batch(ROOT, changes, new)
    batch = matcher.pair(batch, changes, new, JANE_FILES)
    assert batch.moved_entities == ((ref("areas/people/jane"), ref("areas/people/jane-doe")),)


def test_no_move_without_the_same_files_or_after_the_window(clock: Clock) -> None:
    matcher = events.MoveMatcher(window=5.0, clock=clock)
    arrive(matcher, moved_stats(JANE_FILES, JANE, NEW_JANE))
    touched = {**JANE_FILES, f"{JANE}/items.json": (112, 40)}  # written since: another file
    assert depart(matcher, touched).moved_entities == ()
    clock.advance(5.1)
    assert depart(matcher, JANE_FILES).moved_entities == ()  # too late
    fewer = {f"{JANE}/items.json": (111, 40)}  # the copy lacks the summary
    arrive(matcher, moved_stats(fewer, JANE, NEW_JANE))
    assert depart(matcher, JANE_FILES).moved_entities == ()


def test_an_entity_changed_in_place_is_no_arrival(clock: Clock) -> None:
    matcher = events.MoveMatcher(clock=clock)
    stats = moved_stats(JANE_FILES, JANE, NEW_JANE)
    changes = {f"{NEW_JANE}/items.json": "modified", f"{NEW_JANE}/summary.md": "added"}
    matcher.pair(events.build_batch(ROOT, changes, stats), changes, stats, {})
    assert depart(matcher, JANE_FILES).moved_entities == ()


def test_a_move_the_events_paired_is_not_paired_twice(clock: Clock) -> None:
    matcher = events.MoveMatcher(clock=clock)
    old, new = "global/life/projects/house", "global/life/archives/house"
    before = {f"{old}/items.json": (7, 7)}
    after = moved_stats(before, old, new)
    changes = {**dict.fromkeys(before, "removed"), **dict.fromkeys(after, "added")}
    batch = events.build_batch(ROOT, changes, after, moves=[(old, new)])
    batch = matcher.pair(batch, changes, after, before)
    assert batch.moved_entities == ((ref("projects/house"), ref("archives/house")),)
