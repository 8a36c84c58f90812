"""The snapshot: listing, comparing (touch vs change, own writes), persistence, and the
storage listener that feeds own writes. Real files in tmp_path, synthetic events."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import orjson
import pytest

from vault_app.core import demo, layout, storage, vault
from vault_app.watch import events, snapshot
from vault_app.watch.events import RawEvent


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "v"
    demo.create_demo(root)
    return root


def tracked_by_classify(root: Path) -> set[str]:
    found = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if events.classify(rel) is not None:
                found.add(rel)
    return found


def facts_path(v: vault.Vault, address: str) -> Path:
    return v.paths.entity_dir(layout.EntityRef.parse(address)) / "items.json"


def rel(v: vault.Vault, path: Path) -> str:
    return path.relative_to(v.root).as_posix()


def agent_write(path: Path, data: bytes) -> None:
    """Write the way agents do: a temp file in the same folder, then os.replace."""
    temp = path.with_name(f".{path.name}.999.abcd.vault-tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


# -- listing ------------------------------------------------------------------------------


def test_the_listing_holds_exactly_the_files_classify_tracks(demo_root: Path) -> None:
    listing = snapshot.scan_vault(demo_root)
    assert set(listing.stats) == tracked_by_classify(demo_root)
    entity_files = [p for p in listing.stats if p.endswith("/items.json")]
    assert len(entity_files) == 54
    assert listing.folders > 54
    for path, (mtime, size) in list(listing.stats.items())[:20]:
        info = (demo_root / path).stat()
        assert (mtime, size) == (info.st_mtime_ns, info.st_size)


def test_a_subtree_listing_is_the_matching_part_of_the_whole(demo_root: Path) -> None:
    whole = snapshot.scan_vault(demo_root).stats
    part = snapshot.scan_tree(demo_root, "agents").stats
    assert part == {p: s for p, s in whole.items() if p.startswith("agents/")}
    assert snapshot.scan_tree(demo_root, ".vault").stats == {}
    assert snapshot.scan_tree(demo_root, "global/life/areas/no-such").stats == {}


def test_the_listing_skips_state_temp_files_and_symlinked_folders(home: vault.Vault) -> None:
    jane = home.paths.entity_dir(layout.EntityRef.parse("areas/people/jane"))
    (jane / ".items.json.1.ff.vault-tmp").write_text("[]")
    (jane / ".summary.md.swp").write_text("x")
    outside = home.root.parent / "outside" / "thing"
    outside.mkdir(parents=True)
    (outside / "items.json").write_text("[]")
    (home.paths.life_dir / "projects" / "linked").symlink_to(outside)
    linked_file = home.paths.life_dir / "resources" / "notes"
    linked_file.mkdir()
    (linked_file / "summary.md").symlink_to(jane / "summary.md")
    stats = snapshot.scan_vault(home.root).stats
    assert not any(".vault" in p or "tmp" in p or ".swp" in p for p in stats)
    assert not any("linked" in p for p in stats)
    assert "global/life/resources/notes/summary.md" in stats  # a symlinked file counts
    assert "global/daily/" + home.daily_dates()[0].isoformat() + ".md" in stats


# -- comparing ----------------------------------------------------------------------------


def fresh_snapshot(v: vault.Vault) -> snapshot.Snapshot:
    return snapshot.Snapshot(snapshot.scan_vault(v.root).stats, agents=snapshot.agent_ids(v.root))


def test_an_unchanged_vault_compares_equal(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    assert snap.reconcile(home.root, snapshot.scan_vault(home.root).stats, None) == {}


def test_changes_while_closed_are_found_and_taken_in(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    jane = facts_path(home, "areas/people/jane")
    agent_write(jane, b'[{"id": "f1", "fact": "x"}]\n')
    kitchen = jane.parents[3] / "projects" / "house" / "kitchen"
    (kitchen / "items.json").unlink()
    (kitchen / "summary.md").unlink()
    home.create_entity("resources/tools")
    changes = snap.reconcile(home.root, snapshot.scan_vault(home.root).stats, None)
    assert changes == {
        rel(home, jane): "modified",
        "global/life/projects/house/kitchen/items.json": "removed",
        "global/life/projects/house/kitchen/summary.md": "removed",
        "global/life/resources/tools/items.json": "added",
        "global/life/resources/tools/summary.md": "added",
    }
    assert snap.reconcile(home.root, snapshot.scan_vault(home.root).stats, None) == {}


def test_a_touched_file_is_unchanged_once_its_hash_is_known(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    jane = facts_path(home, "areas/people/jane")
    later = jane.stat().st_mtime_ns + 5_000_000_000
    os.utime(jane, ns=(later, later))
    # no hash known yet: mtime and size are all there is to go by
    changes = snap.reconcile(home.root, snapshot.scan_vault(home.root).stats, None)
    assert changes == {rel(home, jane): "modified"}
    # a live refresh hashes what changed: nothing to compare that first hash with yet
    os.utime(jane, ns=(later + 10**9, later + 10**9))
    assert snap.refresh(home.root, [rel(home, jane)], []) == {rel(home, jane): "modified"}
    assert snap.digests[rel(home, jane)] == hashlib.sha256(jane.read_bytes()).hexdigest()
    # from then on a touch is recognised, by a live refresh or a full comparison
    os.utime(jane, ns=(later + 2 * 10**9, later + 2 * 10**9))
    assert snap.refresh(home.root, [rel(home, jane)], []) == {}
    os.utime(jane, ns=(later + 3 * 10**9, later + 3 * 10**9))
    assert snap.reconcile(home.root, snapshot.scan_vault(home.root).stats, None) == {}
    agent_write(jane, jane.read_bytes() + b" ")  # a real change is still seen
    assert snap.reconcile(home.root, snapshot.scan_vault(home.root).stats, None) == {
        rel(home, jane): "modified"
    }


def test_own_writes_are_taken_in_silently_other_content_is_reported(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    own = snapshot.OwnWrites()
    home.storage.add_listener(lambda path, digest: own.note(rel(home, path), digest))
    home.add_fact("areas/people/jane", "Jane charges 80 an hour", "status")
    home.append_daily("a second note")
    jane = rel(home, facts_path(home, "areas/people/jane"))
    daily = f"global/daily/{home.daily_dates()[0].isoformat()}.md"
    assert snap.refresh(home.root, [jane, daily], [], own=own) == {}
    assert len(own) == 0  # matched and forgotten
    agent_write(home.root / jane, (home.root / jane).read_bytes().replace(b"80", b"90"))
    assert snap.refresh(home.root, [jane], [], own=own) == {jane: "modified"}


def test_an_app_write_overwritten_by_another_writer_is_reported(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    own = snapshot.OwnWrites()
    home.storage.add_listener(lambda path, digest: own.note(rel(home, path), digest))
    home.write_summary("projects/house", "# House\n\nMine.\n", expected=vault.Check.ANY)
    summary = home.paths.life_dir / "projects" / "house" / "summary.md"
    agent_write(summary, b"# House\n\nTheirs.\n")  # before the watcher looked
    assert snap.refresh(home.root, [rel(home, summary)], [], own=own) == {
        rel(home, summary): "modified"
    }


def test_quick_successive_own_writes_all_count_as_own() -> None:
    own = snapshot.OwnWrites()
    own.note("a", "d1")
    own.note("a", "d2")
    assert own.match("a", "d1")  # the disk still had the first when the watcher looked
    assert own.match("a", "d2")
    assert not own.match("a", "d2")  # each is used once
    own.note("b", "x")
    assert not own.match("b", "y")
    assert not own.match("b", None)
    assert "b" in own


def test_own_writes_never_seen_expire() -> None:
    now = [0.0]
    own = snapshot.OwnWrites(clock=lambda: now[0])
    own.note("a", "d1")
    now[0] = snapshot.OWN_WRITE_TTL_S - 1
    own.note("b", "d2")
    own.expire()
    assert "a" in own
    now[0] = snapshot.OWN_WRITE_TTL_S + 1
    own.expire()
    assert "a" not in own and "b" in own


# -- synthetic events through the coalescer, against real files --------------------------


def flush(
    v: vault.Vault, snap: snapshot.Snapshot, raw: list[RawEvent], own: snapshot.OwnWrites | None
) -> events.ChangeBatch:
    """What the watcher does with one burst: coalesce, refresh the region, build the batch."""
    clock = [0.0]
    coalescer = events.Coalescer(clock=lambda: clock[0])
    for event in raw:
        coalescer.add(event)
    clock[0] += 1
    pending = coalescer.take()
    assert pending is not None
    changes = snap.refresh(v.root, pending.files, pending.trees, own=own)
    before, snap.agents = snap.agents, snapshot.agent_ids(v.root)
    return events.build_batch(
        v.root, changes, snap.stats, moves=pending.moves, agents_before=before,
        agents_after=snap.agents,
    )  # fmt: skip


def test_pipeline_temp_file_rename(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    jane = facts_path(home, "areas/people/jane")
    temp = jane.with_name(".items.json.5.beef.vault-tmp")
    temp.write_bytes(b"[]\n\n")
    os.replace(temp, jane)
    r, t = rel(home, jane), rel(home, temp)
    batch = flush(home, snap, [RawEvent("created", t), RawEvent("moved", t, r)], None)
    assert batch.entities == (layout.EntityRef.parse("areas/people/jane"),)
    assert batch.paths == (r,)


def test_pipeline_move_to_archives_and_deletion(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    life = home.paths.life_dir
    (life / "archives").mkdir(exist_ok=True)
    os.rename(life / "projects" / "house", life / "archives" / "house")
    old, new = "global/life/projects/house", "global/life/archives/house"
    jane = home.paths.entity_dir(layout.EntityRef.parse("areas/people/jane"))
    for name in ("items.json", "summary.md"):
        (jane / name).unlink()
    jane.rmdir()
    raw = [
        RawEvent("moved", old, new, is_dir=True),
        RawEvent("moved", f"{old}/items.json", f"{new}/items.json"),
        RawEvent("deleted", rel(home, jane / "items.json")),
        RawEvent("deleted", rel(home, jane / "summary.md")),
        RawEvent("deleted", rel(home, jane), is_dir=True),
    ]
    batch = flush(home, snap, raw, None)
    parse = layout.EntityRef.parse
    assert batch.moved_entities == (
        (parse("projects/house"), parse("archives/house")),
        (parse("projects/house/kitchen"), parse("archives/house/kitchen")),
    )
    assert set(batch.removed_entities) == {
        parse("areas/people/jane"),
        parse("projects/house"),
        parse("projects/house/kitchen"),
    }
    assert set(batch.entities) == {parse("archives/house"), parse("archives/house/kitchen")}


def test_pipeline_a_whole_agent_removed_and_another_created(home: vault.Vault) -> None:
    home.append_daily("ops note", agent="ops")
    snap = fresh_snapshot(home)
    other = vault.Vault(home.root, actor="agent:scout")  # another writer: not own
    other.create_agent("scout")
    ops = home.paths.agent_dir("ops")
    os.rename(ops, home.root.parent / "ops-elsewhere")  # moved out of the vault
    raw = [
        RawEvent("created", "agents/scout", is_dir=True),
        RawEvent("deleted", "agents/ops", is_dir=True),
    ]
    batch = flush(home, snap, raw, snapshot.OwnWrites())
    assert batch.agents == ("scout",)
    assert batch.removed_agents == ("ops",)
    assert batch.removed_entities == (layout.EntityRef.parse("agent:ops:projects/budget"),)
    assert {d.agent for d in batch.documents} == {"ops", "scout"}
    assert {d.name for d in batch.documents} == {"TACIT.md", "CONTEXT.md"}
    assert [d.agent for d in batch.daily] == ["ops"]


def test_pipeline_own_entity_creation_is_silent(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    own = snapshot.OwnWrites()
    home.storage.add_listener(lambda path, digest: own.note(rel(home, path), digest))
    home.create_entity("resources/manuals")
    folder = "global/life/resources/manuals"
    raw = [
        RawEvent("created", folder, is_dir=True),
        RawEvent("moved", f"{folder}/.summary.md.1.a.vault-tmp", f"{folder}/summary.md"),
        RawEvent("moved", f"{folder}/.items.json.1.b.vault-tmp", f"{folder}/items.json"),
    ]
    batch = flush(home, snap, raw, own)
    assert batch.empty
    assert f"{folder}/items.json" in snap  # but the snapshot knows it now


# -- persistence --------------------------------------------------------------------------


def test_save_and_load_round_trip(home: vault.Vault) -> None:
    snap = fresh_snapshot(home)
    jane = rel(home, facts_path(home, "areas/people/jane"))
    snap.refresh(home.root, [jane], [])
    os.utime(home.root / jane, ns=(1, 1))
    snap.refresh(home.root, [jane], [])  # hashed
    path = snapshot.Snapshot.location(home.root, "app")
    assert path == home.root / ".vault" / "cache" / "watch" / "app.json"
    snap.save(path)
    loaded = snapshot.Snapshot.load(path)
    assert loaded is not None
    assert loaded.stats == snap.stats
    assert loaded.digests == snap.digests and jane in loaded.digests
    assert loaded.agents == snap.agents == {"ops"}
    assert [p.name for p in path.parent.iterdir()] == ["app.json"]  # no temp file left


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b"[]", b'{"format": 99, "files": [], "agents": []}', b'{"format": 1}',
     b'{"format": 1, "files": [["a", 1]], "agents": []}'],
)  # fmt: skip
def test_an_unusable_snapshot_loads_as_none(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "app.json"
    path.write_bytes(content)
    assert snapshot.Snapshot.load(path) is None
    assert snapshot.Snapshot.load(tmp_path / "absent.json") is None


def test_the_saved_file_is_plain_json(home: vault.Vault) -> None:
    path = snapshot.Snapshot.location(home.root, "x")
    fresh_snapshot(home).save(path)
    data = orjson.loads(path.read_bytes())
    assert data["format"] == snapshot.FORMAT
    assert data["agents"] == ["ops"]
    assert all(len(row) == 4 for row in data["files"])


# -- the storage listener -----------------------------------------------------------------


def test_storage_listeners_hear_each_write_before_the_replace(home: vault.Vault) -> None:
    heard: list[tuple[Path, str, bytes]] = []

    def listener(path: Path, digest: str) -> None:
        heard.append((path, digest, path.read_bytes()))  # what the disk holds at that moment

    home.storage.add_listener(listener)
    summary = home.paths.life_dir / "projects" / "house" / "summary.md"
    before = summary.read_bytes()
    home.write_summary("projects/house", "# House\n\nNew.\n", expected=vault.Check.ANY)
    assert heard == [
        (summary, storage.sha256(b"# House\n\nNew.\n"), before)  # heard before the replace
    ]
    home.write_summary("projects/house", "# House\n\nNew.\n", expected=vault.Check.ANY)
    assert len(heard) == 1  # same content: nothing written, nothing heard
    home.storage.remove_listener(listener)
    home.write_summary("projects/house", "# House\n", expected=vault.Check.ANY)
    assert len(heard) == 1
    home.storage.remove_listener(listener)  # removing twice is harmless


def test_a_failing_listener_never_breaks_a_write(
    home: vault.Vault, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(path: Path, digest: str) -> None:
        raise RuntimeError("listener bug")

    home.storage.add_listener(broken)
    with caplog.at_level(logging.ERROR, logger="vault_app.core.storage"):
        fact = home.add_fact("areas/people/jane", "Still written", "status")
    assert home.entity("areas/people/jane").fact(fact.id).fact == "Still written"
    assert "listener" in caplog.text
