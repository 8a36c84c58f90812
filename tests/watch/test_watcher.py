"""The watcher end to end, on real inotify: another process writes, the batches follow."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest
from conftest import Batches
from vault_writer import Writer

from vault_app.core import layout, vault
from vault_app.watch import events, watcher
from vault_app.watch.events import AgentDocument, DailyNoteKey

JANE = "areas/people/jane"
HOUSE = "projects/house"
KITCHEN = "projects/house/kitchen"
BUDGET = "agent:ops:projects/budget"


def ref(address: str) -> layout.EntityRef:
    return layout.EntityRef.parse(address)


def folder(v: vault.Vault, address: str) -> Path:
    return v.paths.entity_dir(ref(address))


def names(batch: events.ChangeBatch) -> set[str]:
    return {str(r) for r in batch.entities}


def test_a_fact_written_by_another_process_is_reported(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    assert watching.status.state == "watching"
    writer.do("fact", path=folder(home, JANE) / "items.json", text="Jane charges 80 an hour")
    batch = batches.wait_for(lambda b: JANE in names(b))
    assert batch.reason == "events" and not batch.rescan
    assert batch.paths == ("global/life/areas/people/jane/items.json",)
    assert batch.removed_entities == () and batch.daily == ()
    writer.do("fact", path=folder(home, BUDGET) / "items.json", text="Budget is 5k")
    assert batches.wait_for(lambda b: BUDGET in names(b)).entities == (ref(BUDGET),)


def test_daily_notes_new_agents_and_new_entities(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    day = home.daily_dates()[0]
    writer.do("daily", path=home.paths.daily_file(day, None), text="called the plumber")
    batch = batches.wait_for(lambda b: bool(b.daily))
    assert batch.daily == (DailyNoteKey(None, day),)
    assert batch.paths == (f"global/daily/{day.isoformat()}.md",)

    # an agent's folders are made at once: watchdog then watches some twice and warns,
    # which (warnings being errors here) would kill its reader thread unless the watcher
    # silenced that warning
    writer.do("agent", root=home.root, id="scout")
    batch = batches.wait_for(lambda b: "scout" in b.agents)
    agent_batches = [b for b in batches.items if "scout" in b.agents or b.documents]
    documents = {d for b in agent_batches for d in b.documents}
    assert documents == {AgentDocument("scout", "TACIT.md"), AgentDocument("scout", "CONTEXT.md")}

    writer.do("daily", path=home.paths.daily_file(day, "scout"), text="scout's first day")
    assert batches.wait_for(lambda b: DailyNoteKey("scout", day) in b.daily)

    writer.do("entity", folder=home.paths.para_root("scout") / "projects" / "trail")
    batch = batches.wait_for(lambda b: "agent:scout:projects/trail" in names(b))
    assert batch.removed_entities == ()


def test_an_entity_moved_to_archives_and_one_deleted(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    archives = home.paths.life_dir / "archives"
    writer.do("move", source=folder(home, HOUSE), target=archives / "house")
    batch = batches.wait_for(lambda b: bool(b.moved_entities))
    assert batch.moved_entities == (
        (ref(HOUSE), ref("archives/house")),
        (ref(KITCHEN), ref("archives/house/kitchen")),
    )
    assert set(batch.removed_entities) == {ref(HOUSE), ref(KITCHEN)}
    assert set(batch.entities) == {ref("archives/house"), ref("archives/house/kitchen")}

    writer.do("remove", path=folder(home, JANE))
    batch = batches.wait_for(lambda b: ref(JANE) in b.removed_entities)
    assert batch.entities == ()

    writer.do("move", source=folder(home, BUDGET), target=home.root.parent / "elsewhere")
    assert batches.wait_for(lambda b: ref(BUDGET) in b.removed_entities)


def test_a_folder_moved_into_a_folder_that_did_not_exist_yet_is_a_move(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    """`mkdir -p archives/people; mv jane archives/people/`: watchdog may see the rename
    whole, or (the new folder not watched yet) the new place created and the old one
    deleted half a second later; either way the batches say it moved."""
    writer.do(
        "move", source=folder(home, JANE), target=home.paths.life_dir / "archives/people/jane"
    )
    moved = (ref(JANE), ref("archives/people/jane"))
    batch = batches.wait_for(lambda b: moved in b.moved_entities)
    assert ref(JANE) in batch.removed_entities
    assert "archives/people/jane" in batches.everything_reported()


def test_a_move_in_two_halves_is_reported_as_a_move(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches
) -> None:
    """The same files turn up elsewhere first (hard links: the stats a rename keeps), and
    the old folder goes a batch later: the removal comes as the move."""
    old, new = folder(home, HOUSE) / "kitchen", home.paths.life_dir / "archives" / "kitchen"
    new.mkdir()
    for name in ("items.json", "summary.md"):
        os.link(old / name, new / name)
    batches.wait_for(lambda b: ref("archives/kitchen") in b.entities)
    for name in ("items.json", "summary.md"):
        (old / name).unlink()
    old.rmdir()
    batch = batches.wait_for(lambda b: ref(KITCHEN) in b.removed_entities)
    assert batch.moved_entities == ((ref(KITCHEN), ref("archives/kitchen")),)
    assert "moved projects/house/kitchen -> archives/kitchen" in batch.describe()


def test_editor_files_are_ignored_and_a_vim_save_is_a_change(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    writer.do("noise", folder=folder(home, JANE))
    writer.do("vim", path=folder(home, HOUSE) / "summary.md", text="# House\n\nRoof fixed.\n")
    batch = batches.wait_for(lambda b: HOUSE in names(b))
    assert batch.paths == ("global/life/projects/house/summary.md",)
    everything = [b for b in batches.items]
    assert all(JANE not in names(b) for b in everything)  # noise before the change: nothing
    assert all(not b.removed_entities for b in everything)  # the backup rename removed nothing


def test_own_writes_are_not_reported_but_a_later_external_one_is(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    home.add_fact(JANE, "Jane prefers mornings", "preference")
    home.append_daily("the app wrote this")
    home.write_document("TACIT.md", "# Tacit\n\nMine.\n", agent="ops", expected=vault.Check.ANY)
    home.create_entity("resources/tools")
    # a sentinel written by another process after the app's writes: once it is reported,
    # the app's writes (earlier in the same event queue) have been looked at too
    writer.do("fact", path=folder(home, HOUSE) / "items.json", text="sentinel")
    batches.wait_for(lambda b: HOUSE in names(b))
    assert all(names(b) <= {HOUSE} for b in batches.items), [b.describe() for b in batches.items]
    assert all(not b.daily and not b.documents for b in batches.items)

    writer.do("fact", path=folder(home, JANE) / "items.json", text="Jane moved to Leeds")
    assert batches.wait_for(lambda b: JANE in names(b))


def test_a_vault_written_by_the_app_in_quick_succession_stays_silent(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    for n in range(30):
        home.add_fact(JANE, f"Jane fact {n}", "status")
    writer.do("fact", path=folder(home, HOUSE) / "items.json", text="sentinel")
    batches.wait_for(lambda b: HOUSE in names(b))
    assert JANE not in batches.everything_reported()


def test_rescan_on_open_reports_what_changed_while_closed(
    home: vault.Vault, batches: Batches, writer: Writer
) -> None:
    first = watcher.VaultWatcher(home, batches, snapshot="app")
    first.start()
    assert first.wait_ready(30)
    opened = batches.wait_for(lambda b: b.reason == "open")
    assert opened.everything and opened.rescan  # no snapshot yet
    writer.do("fact", path=folder(home, JANE) / "items.json", text="seen live")
    batches.wait_for(lambda b: JANE in names(b))  # Jane's hash is known from now on
    first.stop()
    assert (home.root / ".vault" / "cache" / "watch" / "app.json").is_file()

    writer.do("fact", path=folder(home, HOUSE) / "items.json", text="written while closed")
    writer.do("remove", path=folder(home, KITCHEN))
    writer.do("daily", path=home.paths.daily_file(home.daily_dates()[0], None), text="closed")
    writer.do("agent", root=home.root, id="scout")
    writer.do("touch", path=folder(home, JANE) / "items.json")  # same content

    again = Batches()
    second = watcher.VaultWatcher(home.root, again, snapshot="app")
    second.start()
    assert second.wait_ready(30)
    batch = again.wait_for(lambda b: b.reason == "open")
    second.stop()
    assert batch.rescan and not batch.everything
    assert batch.entities == (ref(HOUSE),)
    assert batch.removed_entities == (ref(KITCHEN),)
    assert batch.daily == (DailyNoteKey(None, home.daily_dates()[0]),)
    assert batch.agents == ("scout",)
    assert {d.agent for d in batch.documents} == {"scout"}

    saved = home.root / ".vault" / "cache" / "watch" / "app.json"
    written = saved.stat().st_mtime_ns
    third = watcher.VaultWatcher(home.root, again, snapshot="app")
    unchanged = third.rescan()
    assert unchanged is not None and unchanged.empty
    assert len(again.items) == 1  # an unchanged vault reports nothing...
    assert saved.stat().st_mtime_ns == written  # ...and its snapshot is not rewritten


def test_a_dead_observer_is_restarted_and_nothing_is_lost(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    dead = watching.observer
    assert dead is not None
    dead.stop()  # as if its thread had died
    writer.do("fact", path=folder(home, JANE) / "items.json", text="while it was down")
    restarted = batches.wait_for(lambda b: b.reason == "restarted")
    assert restarted.rescan
    batches.wait_status("watching", "observer thread stopped")
    assert batches.wait_for(lambda b: JANE in names(b))  # in the restart batch, or live
    assert watching.observer is not None and watching.observer is not dead
    writer.do("fact", path=folder(home, HOUSE) / "items.json", text="after the restart")
    assert batches.wait_for(lambda b: HOUSE in names(b) and b.reason == "events")


def test_a_dead_inotify_reader_is_noticed_too(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    observer = watching.observer
    reader = getattr(observer, "_inotify_fd", None)  # watchdog's inotify reader thread
    if reader is None:
        pytest.skip("no inotify reader thread on this platform")
    reader.stop()  # the observer and its emitters live on, but no event comes any more
    reader.join(10)
    batches.wait_for(lambda b: b.reason == "restarted")
    assert watching.observer is not observer
    writer.do("fact", path=folder(home, JANE) / "items.json", text="after the reader died")
    assert batches.wait_for(lambda b: JANE in names(b) and b.reason == "events")


def test_the_vault_folder_vanishing_and_coming_back(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    away = home.root.with_name("v-away")
    os.rename(home.root, away)
    batches.wait_status("missing")
    assert watching.status.state == "missing"
    writer.do("fact", path=away / "global/life/areas/people/jane/items.json", text="moved away")
    os.rename(away, home.root)
    batch = batches.wait_for(lambda b: b.reason == "restarted")
    assert batch.entities == (ref(JANE),)
    batches.wait_status("watching", "back")
    writer.do("fact", path=folder(home, HOUSE) / "items.json", text="live again")
    assert batches.wait_for(lambda b: HOUSE in names(b) and b.reason == "events")


def test_a_replaced_vault_folder_is_watched_anew(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    copy = home.root.with_name("v-copy")
    os.rename(home.root, home.root.with_name("v-old"))
    os.rename(vault.Vault.create(copy).root, home.root)  # another vault in its place
    batch = batches.wait_for(lambda b: b.reason == "restarted" and bool(b.removed_entities))
    assert set(batch.removed_entities) == {ref(JANE), ref(HOUSE), ref(KITCHEN), ref(BUDGET)}
    assert batch.removed_agents == ("ops",)
    writer.do("entity", folder=home.paths.life_dir / "projects" / "fresh")
    assert batches.wait_for(lambda b: "projects/fresh" in names(b))


def test_global_folder_replaced_under_a_running_watcher(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    writer.do("move", source=home.root / "global", target=home.root.parent / "global-old")
    batch = batches.wait_for(lambda b: ref(JANE) in b.removed_entities)
    assert ref(BUDGET) not in batch.removed_entities
    writer.do("move", source=home.root.parent / "global-old", target=home.root / "global")
    batches.wait_for(lambda b: JANE in names(b))
    writer.do("fact", path=folder(home, HOUSE) / "items.json", text="watched again")
    assert batches.wait_for(lambda b: HOUSE in names(b) and not b.rescan)


def test_a_kernel_queue_overflow_makes_a_full_comparison(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches
) -> None:
    logging.getLogger("watchdog.observers.inotify_c").warning(
        "Inotify queue overflowed; filesystem events were lost"
    )
    batch = batches.wait_for(lambda b: b.reason == "overflow")
    assert batch.rescan and batch.empty  # nothing changed: said anyway


def test_too_many_folders_to_watch_degrades_to_polling(
    home: vault.Vault, batches: Batches, writer: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watcher, "_inotify_watch_limit", lambda: 10)
    watch = watcher.VaultWatcher(
        home, batches, on_status=batches.status, snapshot=None, health_s=0.1, poll_s=0.3
    )
    with watch:
        assert watch.wait_ready(30)
        assert watch.status.state == "degraded"
        assert "max_user_watches" in watch.status.message
        writer.do("fact", path=folder(home, JANE) / "items.json", text="found anyway")
        assert batches.wait_for(lambda b: JANE in names(b))
    assert watch.status.state == "stopped"


def test_rescans_from_many_threads_while_another_process_writes(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    results: list[events.ChangeBatch | None] = []
    failures: list[BaseException] = []

    def rescan_a_few_times() -> None:
        try:
            for _ in range(5):
                results.append(watching.rescan(timeout=30))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=rescan_a_few_times) for _ in range(4)]
    for thread in threads:
        thread.start()
    targets = [f"projects/p{n}" for n in range(8)]
    for target in targets:
        writer.do("entity", folder=home.paths.life_dir / target)
    for thread in threads:
        thread.join(60)
    assert not failures
    assert len(results) == 20 and all(r is not None and r.reason == "rescan" for r in results)
    for target in targets:
        batches.wait_for(lambda b, t=target: t in names(b))
    assert watching.rescan() is not None and watching.rescan().empty  # type: ignore[union-attr]


def test_a_failing_callback_does_not_stop_the_watcher(
    home: vault.Vault, writer: Writer, batches: Batches
) -> None:
    failed = threading.Event()

    def flaky(batch: events.ChangeBatch) -> None:
        if not failed.is_set():
            failed.set()
            raise RuntimeError("a bug in the app")
        batches(batch)

    with watcher.VaultWatcher(home.root, flaky, snapshot=None) as watch:
        assert watch.wait_ready(30)
        writer.do("fact", path=folder(home, JANE) / "items.json", text="first")
        assert failed.wait(20)
        writer.do("fact", path=folder(home, HOUSE) / "items.json", text="second")
        batches.wait_for(lambda b: HOUSE in names(b))
        assert watch.running


def test_starting_on_a_missing_folder_waits_for_it(tmp_path: Path, batches: Batches) -> None:
    root = tmp_path / "later"
    watch = watcher.VaultWatcher(
        root, batches, on_status=batches.status, snapshot="app", health_s=0.1
    )
    with watch:
        assert watch.wait_ready(30)
        assert watch.status.state == "missing"
        vault.Vault.create(root)
        batch = batches.wait_for(lambda b: b.everything)
        assert batch.reason == "restarted"
        batches.wait_status("watching")
