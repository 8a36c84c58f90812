"""`import`: a neighbour's memory copied into a PARA vault, nothing lost, the source only
read, a report of what went where; importing twice adds nothing."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.neighbour_folders import FIXTURES, digest, opened
from vault_app import cli
from vault_app.core import agent_memory, errors, notes, vault
from vault_app.core.neighbours import entries, importing


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_hermes_stores_land_byte_for_byte(tmp_path: Path) -> None:
    home = opened("hermes", tmp_path)
    before = digest(home.root)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    report = importing.import_folder(home, v)
    # three files (the two stores and SOUL.md), and six facts (one per § entry)
    assert report.count("imported") == 9 and report.count("skipped") == 0
    for name in ("MEMORY.md", "USER.md"):
        copied = v.root / "agents" / "hermes" / "memories" / name
        assert copied.read_bytes() == (home.root / "memories" / name).read_bytes()
    state = agent_memory.read_notes(v, "hermes", "memory")
    assert len(state.entries) == 4 and "§ 4.2" in state.entries[2]
    assert digest(home.root) == before  # the source is only read
    again = importing.import_folder(home, v)
    assert again.count("imported") == 0 and again.count("already there") == 9


def test_picoclaw_profile_memory_and_daily_notes(tmp_path: Path) -> None:
    ws = opened("picoclaw", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    report = importing.import_folder(ws, v)
    assert {m.kind for m in report.moved} == {"profile", "tiers", "daily", "fact"}
    assert agent_memory.read_profile(v, "picoclaw").values == ws.read_profile(None).values
    assert agent_memory.read_tiers(v, "picoclaw").text == ws.long_term()
    note = v.daily_note(dt.date(2026, 11, 23), "picoclaw")
    assert len(note.entries) == 1 and note.entries[0].time == "00:00:00"
    assert note.entries[0].text.startswith("Talked about the trip to Porto.")
    assert "Booked the train." in note.entries[0].text  # the odd heading line kept too
    assert importing.import_folder(ws, v).count("imported") == 0


def test_microclaw_personas_logs_and_principles(tmp_path: Path) -> None:
    rt = opened("microclaw", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    importing.import_folder(rt, v)
    assert sorted(a.id for a in v.agents()) == [
        "microclaw-42-7",
        "microclaw-n1001234567890-1",
        "microclaw-n1001234567890-2",
    ]
    mirrored = agent_memory.read_tiers(v, "microclaw-n1001234567890-2").text
    assert mirrored == rt.read_tiers("-1001234567890/2").text
    shared = v.daily_note(dt.date(2026, 11, 23))  # a chat's log with two personas
    assert shared.entries[0].text.startswith("(MicroClaw chat -1001234567890)\nChat log")
    own = v.daily_note(dt.date(2026, 11, 24), "microclaw-42-7")
    assert own.entries[0].text == "per-persona log (newer MicroClaw)"
    assert v.document("AGENTS.md").text == rt.principles()


def test_a_file_already_in_the_vault_is_never_overwritten(tmp_path: Path) -> None:
    home = opened("hermes", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    v.create_agent("hermes")
    agent_memory.change_notes(v, "hermes", "user", "add", content="Already here.")
    mine = (v.root / "agents" / "hermes" / "memories" / "USER.md").read_bytes()
    report = importing.import_folder(home, v)
    skipped = [m for m in report.moved if m.outcome.startswith("skipped")]
    assert [m.source for m in skipped] == ["memories/USER.md"]
    assert "exists in the vault with other content" in skipped[0].outcome
    assert (v.root / "agents" / "hermes" / "memories" / "USER.md").read_bytes() == mine
    assert notes.entries(mine.decode()) == ["Already here."]
    # the skipped file's entries still land, as facts
    profile = [f.fact for f in v.entity("agent:hermes:areas/profile").facts]
    assert profile == notes.entries((home.root / "memories" / "USER.md").read_text("utf-8"))


def test_the_vaults_own_principles_are_kept_and_microclaws_added(tmp_path: Path) -> None:
    rt = opened("microclaw", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    v.write_document(
        "AGENTS.md", "# Principles\n\n- Be honest.\n", expected=v.document("AGENTS.md").digest
    )
    importing.import_folder(rt, v)
    text = v.document("AGENTS.md").text
    assert text.startswith("# Principles\n\n- Be honest.\n\n## From MicroClaw (groups/AGENTS.md)")
    assert "Never share the user's address." in text
    importing.import_folder(rt, v)
    assert v.document("AGENTS.md").text == text


def test_an_agent_may_not_import(tmp_path: Path) -> None:
    home = opened("hermes", tmp_path)
    made = vault.Vault.create(tmp_path / "v", actor="cli")
    made.create_agent("finance")
    as_agent = vault.Vault(made.root, actor="agent:finance")
    with pytest.raises(errors.AccessDeniedError, match="a person's act"):
        importing.import_folder(home, as_agent)


def test_cli_import_makes_the_vault_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pico = shutil.copytree(FIXTURES / "picoclaw", tmp_path / "pico")
    code = cli.main(["import", str(pico), "--into", str(tmp_path / "new"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["format"] == "picoclaw" and report["imported"] == 9 and report["facts"] == 4
    assert {m["target"] for m in report["moved"]} >= {"agents/picoclaw/profile.json"}
    code = cli.main(["import", str(pico), "--into", str(FIXTURES / "hermes")])
    assert code == 1 and "is a Hermes home, not a PARA vault" in capsys.readouterr().err


# -- atomic entries become facts -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["hermes", "picoclaw", "microclaw"])
def test_every_entry_lands_somewhere(name: str, tmp_path: Path) -> None:
    """Nothing lost: each atomic entry is a fact of its agent (named in its metadata and in
    the report), each long-form entry's text is in a vault file."""
    src = opened(name, tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    report = importing.import_folder(src, v)
    reported = {m.entry: m for m in report.moved if m.kind == "fact"}
    texts = "\n".join(
        p.read_text(encoding="utf-8")
        for p in v.root.rglob("*")
        if p.is_file() and p.suffix == ".md" and ".vault" not in p.parts
    )
    listed = entries.entries(src)
    assert listed
    for entry in listed:
        if not entry.atomic:
            assert entry.text in texts, entry.key
            continue
        moved = reported.pop(entry.key)
        assert moved.outcome == "imported" and moved.entity and moved.fact_id
        ref, fact = v.fact(moved.fact_id)
        assert str(ref) == moved.entity and fact.fact == entry.text
        assert fact.agent_id == importing.vault_agent(entry.agent or "")
        assert fact.metadata["extractedFrom"]["entry"] == entry.key
        assert fact.metadata["extractedFrom"]["file"] == entry.file
        assert fact.source_text == f"{name} {entry.where}"
    assert not reported  # every fact reported stands for one entry


def test_hermes_entries_go_to_memory_and_profile_entities(tmp_path: Path) -> None:
    home = opened("hermes", tmp_path)
    stamp = dt.datetime(2026, 11, 20, 8, 0, tzinfo=dt.UTC).timestamp()
    os.utime(home.root / "memories" / "MEMORY.md", (stamp, stamp))
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    importing.import_folder(home, v)
    memory = v.entity("agent:hermes:resources/memory").facts
    profile = v.entity("agent:hermes:areas/profile").facts
    assert [f.fact for f in memory] == notes.entries(
        (home.root / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    )
    assert [f.fact for f in profile] == [
        "Name: Jane Doe; timezone Europe/Paris.",
        "Communication: short answers first, details on request.",
    ]
    assert all(f.agent_id == "hermes" and f.category.value == "context" for f in memory)
    assert memory[0].timestamp == dt.datetime(2026, 11, 20, 8, 0, tzinfo=dt.UTC)  # the file's
    lease = memory[2]
    assert "§ 4.2" in lease.fact  # a § inside an entry stays in it
    assert lease.metadata["extractedFrom"] == {
        "format": "hermes",
        "structure": "notes",
        "agent": "hermes",
        "file": "memories/MEMORY.md",
        "index": 3,
        "where": "memories/MEMORY.md § entry 3",
        "target": "memory",
        "entry": "notes:memory:3",
        "folder": str(home.root),
    }


def test_tiers_and_profile_keys_become_facts(tmp_path: Path) -> None:
    rt = opened("microclaw", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    importing.import_folder(rt, v)
    facts = v.entity("agent:microclaw-n1001234567890-1:resources/memory").facts
    by_text = {f.fact: f for f in facts}
    assert by_text["User is vegetarian."].category.value == "context"  # tier 1
    porto = by_text["Planning the Porto trip (December)."]  # tier 2, its list marker dropped
    assert porto.category.value == "status" and porto.metadata["extractedFrom"]["tier"] == 2
    ws = opened("picoclaw", tmp_path)
    importing.import_folder(ws, v)
    keys = {
        f.metadata["extractedFrom"]["key"]: f.fact
        for f in v.entity("agent:picoclaw:areas/profile").facts
    }
    assert keys["user_name"] == "user_name: Mike <mike@example.org>"
    assert set(keys) == set(ws.read_profile(None).values)


def test_a_second_import_adds_no_fact_and_a_changed_entry_adds_one(tmp_path: Path) -> None:
    home = opened("hermes", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    importing.import_folder(home, v)
    before = [f.id for f in v.entity("agent:hermes:resources/memory").facts]
    again = importing.import_folder(home, v)
    assert [m.outcome for m in again.moved if m.kind == "fact"] == ["already there"] * 6
    assert [f.id for f in v.entity("agent:hermes:resources/memory").facts] == before
    home.change_notes(None, "memory", "add", content="Backups go to the NAS nightly.")
    third = importing.import_folder(home, v)
    made = [m for m in third.moved if m.kind == "fact" and m.outcome == "imported"]
    assert [m.source for m in made] == ["memories/MEMORY.md § entry 5"]
    assert len(v.entity("agent:hermes:resources/memory").facts) == 5


def test_the_report_names_each_fact(tmp_path: Path) -> None:
    ws = opened("picoclaw", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    report = importing.import_folder(ws, v)
    data = report.as_json()
    city = next(m for m in data["moved"] if m.get("entry") == "profile:picoclaw:city")
    assert city["kind"] == "fact" and city["entity"] == "agent:picoclaw:areas/profile"
    assert city["source"] == "memory/profile.json key city" and city["factId"].startswith("fact-")
    assert city["target"] == "agents/picoclaw/workspace/areas/profile/items.json"
    files = [m for m in data["moved"] if m["kind"] != "fact"]
    assert all(set(m) == {"source", "target", "kind", "outcome"} for m in files)  # as before
    text = "\n".join(importing.lines(report))
    assert f"memory/profile.json key city -> agent:picoclaw:areas/profile {city['factId']}" in text


def test_a_fact_the_person_superseded_is_not_brought_back(tmp_path: Path) -> None:
    home = opened("hermes", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    importing.import_folder(home, v)
    old = v.entity("agent:hermes:resources/memory").facts[0]
    v.supersede_fact(old.id, "User's laptop runs Fedora 42 now.")
    again = importing.import_folder(home, v)
    assert not [m for m in again.moved if m.outcome == "imported"]
    texts = [f.fact for f in v.entity("agent:hermes:resources/memory").facts]
    assert texts.count(old.fact) == 1 and "User's laptop runs Fedora 42 now." in texts
