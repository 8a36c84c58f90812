"""`import`: a neighbour's memory copied into a PARA vault, nothing lost, the source only
read, a report of what went where; importing twice adds nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from vault_app import cli
from vault_app.core import agent_memory, errors, notes, vault
from vault_app.core.neighbours import ForeignFolder, importing, open_folder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def source(name: str, tmp_path: Path) -> ForeignFolder:
    opened = open_folder(shutil.copytree(FIXTURES / name, tmp_path / name))
    assert opened is not None
    return opened


def digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_hermes_stores_land_byte_for_byte(tmp_path: Path) -> None:
    home = source("hermes", tmp_path)
    before = digest(home.root)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    report = importing.import_folder(home, v)
    assert report.count("imported") == 3 and report.count("skipped") == 0
    for name in ("MEMORY.md", "USER.md"):
        copied = v.root / "agents" / "hermes" / "memories" / name
        assert copied.read_bytes() == (home.root / "memories" / name).read_bytes()
    state = agent_memory.read_notes(v, "hermes", "memory")
    assert len(state.entries) == 4 and "§ 4.2" in state.entries[2]
    assert digest(home.root) == before  # the source is only read
    again = importing.import_folder(home, v)
    assert again.count("imported") == 0 and again.count("already there") == 3


def test_picoclaw_profile_memory_and_daily_notes(tmp_path: Path) -> None:
    ws = source("picoclaw", tmp_path)
    v = vault.Vault.create(tmp_path / "v", actor="cli")
    report = importing.import_folder(ws, v)
    assert {m.kind for m in report.moved} == {"profile", "tiers", "daily"}
    assert agent_memory.read_profile(v, "picoclaw").values == ws.read_profile(None).values
    assert agent_memory.read_tiers(v, "picoclaw").text == ws.long_term()
    note = v.daily_note(dt.date(2026, 11, 23), "picoclaw")
    assert len(note.entries) == 1 and note.entries[0].time == "00:00:00"
    assert note.entries[0].text.startswith("Talked about the trip to Porto.")
    assert "Booked the train." in note.entries[0].text  # the odd heading line kept too
    assert importing.import_folder(ws, v).count("imported") == 0


def test_microclaw_personas_logs_and_principles(tmp_path: Path) -> None:
    rt = source("microclaw", tmp_path)
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
    home = source("hermes", tmp_path)
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


def test_the_vaults_own_principles_are_kept_and_microclaws_added(tmp_path: Path) -> None:
    rt = source("microclaw", tmp_path)
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
    home = source("hermes", tmp_path)
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
    assert report["format"] == "picoclaw" and report["imported"] == 5
    assert {m["target"] for m in report["moved"]} >= {"agents/picoclaw/profile.json"}
    code = cli.main(["import", str(pico), "--into", str(FIXTURES / "hermes")])
    assert code == 1 and "is a Hermes home, not a PARA vault" in capsys.readouterr().err
