"""The watcher beside Syncthing (issue 31), on real inotify with another process writing:
Syncthing's temporary files are never reported, a file it renames into place is, and a
conflict copy is merged into its file as it arrives (or, when the watcher starts, if it
arrived while nobody watched); one a person must resolve is reported as unmerged.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Batches
from vault_writer import Writer

from vault_app.core import layout, vault
from vault_app.watch import watcher

JANE = "areas/people/jane"
HOUSE = "projects/house"
STAMP = "sync-conflict-20261129-120000-ABCDEF1"


def items(v: vault.Vault, address: str) -> Path:
    return v.paths.entity_dir(layout.EntityRef.parse(address)) / "items.json"


def names(batch: object) -> set[str]:
    return {str(r) for r in getattr(batch, "entities", ())}


def with_fact(path: Path, fid: str, text: str) -> str:
    facts = json.loads(path.read_text("utf-8"))
    facts.append({"id": fid, "fact": text, "category": "context"})
    return json.dumps(facts, indent=2)


def test_temporary_files_are_ignored_and_the_rename_is_seen(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    jane = items(home, JANE)
    writer.do("syncthing_tmp", folder=jane.parent)
    writer.do("fact", path=items(home, HOUSE), text="a later change, as a barrier")
    batches.wait_for(lambda b: HOUSE in names(b))
    assert JANE not in batches.everything_reported()  # its temporary files made no batch
    writer.do("syncthing", path=jane, text=with_fact(jane, "fact-in", "Jane has a van"))
    batch = batches.wait_for(lambda b: JANE in names(b))
    assert batch.paths == ("global/life/areas/people/jane/items.json",)


def test_a_conflict_copy_is_merged_as_it_arrives(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    home.add_fact(JANE, "Jane charges $95", "context")  # this device's change
    jane = items(home, JANE)
    theirs = [{"id": "fact-theirs", "fact": "Jane has a van", "category": "context"}]
    copy = jane.with_name(f"items.{STAMP}.json")
    writer.do("syncthing", path=copy, text=json.dumps(theirs))
    batches.wait_for(lambda b: JANE in names(b) and "Jane has a van" in jane.read_text("utf-8"))
    assert not copy.exists()
    texts = [f.fact for f in home.entity(JANE).facts]
    assert "Jane charges $95" in texts and "Jane has a van" in texts
    audit = (home.paths.state_dir / "audit.jsonl").read_text("utf-8").splitlines()
    merged = [json.loads(a) for a in audit if '"sync.merge"' in a]
    assert merged and merged[-1]["actor"] == "sync"


def test_a_copy_left_for_a_person_is_reported(
    home: vault.Vault, watching: watcher.VaultWatcher, batches: Batches, writer: Writer
) -> None:
    summary = home.paths.entity_dir(layout.EntityRef.parse(JANE)) / "summary.md"
    doc = home.summary(JANE)
    text = doc.text or ""
    home.write_summary(JANE, text.replace("family plumber", "our plumber"), expected=doc.digest)
    copy = summary.with_name(f"summary.{STAMP}.md")
    writer.do("syncthing", path=copy, text=text.replace("family plumber", "plumber since 2019"))
    batch = batches.wait_for(lambda b: bool(b.unmerged))
    assert batch.unmerged == (f"global/life/{JANE}/summary.{STAMP}.md",)
    assert copy.exists() and "our plumber" in summary.read_text("utf-8")


def test_copies_that_arrived_while_nobody_watched_are_merged_at_start(
    home: vault.Vault, batches: Batches
) -> None:
    jane = items(home, JANE)
    copy = jane.with_name(f"items.{STAMP}.json")
    copy.write_text(with_fact(jane, "fact-away", "Jane moved to Elm Street"), "utf-8")
    watch = watcher.VaultWatcher(home, batches, snapshot=None, health_s=0.2)
    watch.start()
    try:
        assert watch.wait_ready(30)
        assert not copy.exists()
        assert "Jane moved to Elm Street" in [f.fact for f in home.entity(JANE).facts]
    finally:
        watch.stop()
