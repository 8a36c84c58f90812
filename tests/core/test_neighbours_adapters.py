"""The neighbours' folders read and written in their own formats: Hermes' § stores
(budgets, its `.lock`, drift refused with a `.bak.<ts>`), PicoClaw's profile.json and
daily notes, MicroClaw's persona tiers, daily logs and principles. Round trips are byte
for byte; adds from two real processes at once all land."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from vault_app.core import agent_memory, decay, errors, notes
from vault_app.core.neighbours import files, folder, hermes, microclaw, open_folder, picoclaw

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"


def copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name))


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
        for p in sorted(root.rglob("*"))
    }


NOW = dt.datetime(2026, 11, 24, 9, 30, tzinfo=dt.UTC)
CLOCK = decay.fixed_clock(NOW)


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def hermes_home(tmp_path: Path, name: str = "hermes") -> hermes.HermesHome:
    return hermes.HermesHome(copy(name, tmp_path), actor="cli", clock=CLOCK)


# -- Hermes ----------------------------------------------------------------------------


def test_hermes_stores_read_as_hermes_reads_them(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    memory = home.read_notes(None, "memory")
    assert len(memory.entries) == 4
    assert "§ 4.2 of the contract" in memory.entries[2]  # a § inside an entry stays in it
    assert memory.entries[1].count("\n") == 1  # a multi-line entry is one entry
    raw = (home.root / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert memory.usage.used == len(raw) and memory.limit == 2200
    user = home.read_notes("hermes", "user")
    assert user.limit == 1375 and len(user.entries) == 2
    with pytest.raises(errors.NotFoundError, match="no agent 'other'"):
        home.read_notes("other", "memory")


@pytest.mark.parametrize(
    ("text", "memory", "user", "user_on"),
    [
        ("model: x\nmemory:\n  memory_char_limit: 900  # notes\n  user_profile_enabled: false\n",
         900, 1375, False),
        ("memory: {memory_char_limit: 500, user_char_limit: 300}\n", 500, 300, True),  # flow
        ("memory:   # the agent's\n  memory_char_limit: 700\n", 700, 1375, True),  # comment
        ("base: &limits\n  memory_char_limit: 650\nmemory:\n  <<: *limits\n  user_char_limit: 10\n",
         650, 10, True),  # an anchor and a merge key
        ("memory:\n  memory_char_limit: 0\n", 0, 1375, True),  # 0: every add refused
        ("memory: [not, a, mapping]\n", 2200, 1375, True),
        ("memory: {unclosed\n", 2200, 1375, True),  # not YAML: the defaults, as Hermes
    ],
)  # fmt: skip
def test_hermes_limits_and_toggles_come_from_its_config(
    text: str, memory: int, user: int, user_on: bool
) -> None:
    """config.yaml read with a YAML library, as Hermes reads it (4 of these 7 forms were
    missed by a hand-made reader)."""
    settings = hermes.memory_settings(text)
    assert hermes._limit(settings, "memory") == memory
    assert hermes._limit(settings, "user") == user
    assert hermes._enabled(settings, "user") is user_on


def test_hermes_add_writes_what_hermes_writes_under_its_lock(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    path = home.root / "memories" / "MEMORY.md"
    os.chmod(path, 0o600)  # Hermes' mkstemp files
    before = notes.entries(path.read_text(encoding="utf-8"))
    after = home.change_notes(None, "memory", "add", content="  Backups run at 03:00.  ")
    assert path.read_text(encoding="utf-8") == notes.join([*before, "Backups run at 03:00."])
    assert after.entries[-1] == "Backups run at 03:00." and after.usage.used == len(
        notes.join(after.entries)
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (home.root / "memories" / "MEMORY.md.lock").exists()
    kept = home.files.backups(path)
    assert len(kept) == 1 and notes.entries(kept[0].read_text(encoding="utf-8")) == before
    audit = (home.files.state / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(audit[-1])["action"] == "notes.add"
    assert not (home.root / ".vault").exists()


def test_hermes_budget_exactly_at_the_limit_and_one_over(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    path = home.root / "memories" / "USER.md"
    current = home.read_notes(None, "user")
    room = current.limit - current.usage.used - len(notes.ENTRY_DELIMITER)
    untouched = path.read_bytes()
    with pytest.raises(notes.BudgetError) as caught:
        home.change_notes(None, "user", "add", content="x" * (room + 1))
    assert caught.value.current == current.usage.used and caught.value.limit == 1375
    assert path.read_bytes() == untouched
    full = home.change_notes(None, "user", "add", content="y" * room)
    assert full.usage.used == full.limit == 1375


def test_hermes_replace_and_remove_by_unique_substring(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    replaced = home.change_notes(
        None, "memory", "replace", old_text="Fedora 41", content="User's laptop runs Fedora 42."
    )
    assert replaced.entries[0] == "User's laptop runs Fedora 42."
    with pytest.raises(notes.MatchError):
        home.change_notes(None, "memory", "remove", old_text="e")  # in every entry
    removed = home.change_notes(None, "memory", "remove", old_text="ISO dates")
    assert len(removed.entries) == 3
    with pytest.raises(notes.DuplicateError):
        home.change_notes(None, "memory", "add", content=removed.entries[0])


def test_hermes_refuses_to_rewrite_a_file_that_would_not_round_trip(tmp_path: Path) -> None:
    home = hermes_home(tmp_path, "hermes-drift")
    path = home.root / "memories" / "MEMORY.md"
    raw = path.read_bytes()
    with pytest.raises(hermes.DriftError) as caught:
        home.change_notes(None, "memory", "remove", old_text="Fedora")
    backup = caught.value.backup
    assert backup.name == f"MEMORY.md.bak.{int(NOW.timestamp())}"
    assert backup.read_bytes() == raw and path.read_bytes() == raw
    assert str(backup) in str(caught.value)
    with pytest.raises(hermes.DriftError):  # the same snapshot is reused, nothing lost
        home.change_notes(None, "memory", "replace", old_text="Fedora", content="Fedora 42")
    assert sorted(p.name for p in path.parent.glob("MEMORY.md.bak*")) == [backup.name]
    # an add appends to the bytes as they are: what was there stays, byte for byte
    home.change_notes(None, "memory", "add", content="New entry.")
    assert path.read_bytes() == raw + "\n§\nNew entry.".encode()
    assert notes.entries(path.read_text(encoding="utf-8"))[-1] == "New entry."


def test_hermes_entry_over_the_whole_budget_is_drift(tmp_path: Path) -> None:
    assert hermes.drift("a\n§\n" + "b" * 901, 900) is not None
    assert hermes.drift("a\n§\nb\n", 900) is None  # Hermes strips the file's ends
    assert hermes.drift("a\n§\n\nb", 900) is not None


def test_hermes_store_switched_off_is_read_only(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    config = home.root / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "user_profile_enabled: true", "user_profile_enabled: false"
        ),
        encoding="utf-8",
    )
    assert home.read_notes(None, "user").enabled is False
    with pytest.raises(agent_memory.DisabledError, match="user_profile_enabled"):
        home.change_notes(None, "user", "add", content="x")


def test_hermes_has_no_tiers_profile_or_daily_notes(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    for call in (
        lambda: home.read_tiers(None),
        lambda: home.read_profile(None),
        lambda: home.daily_dates(None),
    ):
        with pytest.raises(folder.UnsupportedError, match="§ notes only"):
            call()


def test_the_hermes_lock_is_exclusive_across_descriptors(tmp_path: Path) -> None:
    import fcntl

    home = hermes_home(tmp_path)
    path = home.root / "memories" / "MEMORY.md"
    held = os.open(path.with_name("MEMORY.md.lock"), os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        with (
            pytest.raises(errors.LockTimeoutError, match=r"MEMORY\.md\.lock"),
            files.sidecar_lock(path, timeout_s=0.05),
        ):
            pass
    finally:
        os.close(held)
    with files.sidecar_lock(path, timeout_s=0.05):
        pass


# -- PicoClaw --------------------------------------------------------------------------


def pico(tmp_path: Path) -> picoclaw.PicoClawWorkspace:
    return picoclaw.PicoClawWorkspace(copy("picoclaw", tmp_path), actor="cli", clock=CLOCK)


def test_picoclaw_profile_as_go_writes_it(tmp_path: Path) -> None:
    ws = pico(tmp_path)
    path = ws.profile_path()
    raw = path.read_bytes()
    assert ws.read_profile(None).values["user_name"] == "Mike <mike@example.org>"
    assert (
        picoclaw.go_json(ws.read_profile(None).values) == raw.decode()
    )  # the fixture is Go's shape
    ws.set_profile(None, "city", "Lyon")  # no change: no write
    assert path.read_bytes() == raw and ws.files.backups(path) == []
    ws.set_profile("picoclaw", "diet", "végétarien & sans gluten")
    text = path.read_text(encoding="utf-8")
    assert '"diet": "végétarien \\u0026 sans gluten"' in text
    assert list(json.loads(text)) == sorted(json.loads(text))
    assert ws.delete_profile(None, "theme_preference").values.keys() == {
        "city",
        "current_project",
        "diet",
        "user_name",
    }
    with pytest.raises(errors.NotFoundError, match="no profile key 'nope'"):
        ws.delete_profile(None, "nope")


def test_picoclaw_broken_profile_is_a_precise_error(tmp_path: Path) -> None:
    ws = pico(tmp_path)
    ws.profile_path().write_text('{"a": {"nested": 1}}', encoding="utf-8")
    with pytest.raises(errors.CorruptFileError, match=r"profile\.json"):
        ws.read_profile(None)
    with pytest.raises(errors.CorruptFileError):
        ws.set_profile(None, "b", "c")
    assert ws.profile_path().read_text(encoding="utf-8") == '{"a": {"nested": 1}}'


def test_picoclaw_daily_notes_in_append_today_shape(tmp_path: Path) -> None:
    ws = pico(tmp_path)
    assert ws.daily_dates(None) == [
        dt.date(2026, 10, 31),
        dt.date(2026, 11, 22),
        dt.date(2026, 11, 23),
    ]  # notes.md is no daily note
    old = ws.daily_note(None, dt.date(2026, 11, 22))
    assert old.text is not None and old.text.startswith("# 2026-11-22\n\n")
    added = ws.daily_append(None, "Night: checked the backups.", dt.date(2026, 11, 22))
    assert added.text == old.text + "\nNight: checked the backups.\n"
    new = ws.daily_append(None, "  First note of the day.\n\n")
    assert new.date == NOW.date() and new.path.name == "20261124.md"
    assert new.text == "# 2026-11-24\n\nFirst note of the day.\n"
    again = ws.daily_append(None, "Second.")
    assert again.text == "# 2026-11-24\n\nFirst note of the day.\n\nSecond.\n"
    with pytest.raises(errors.VaultError, match="empty"):
        ws.daily_append(None, "  \n")


# -- MicroClaw -------------------------------------------------------------------------


def micro(tmp_path: Path, actor: str = "cli") -> microclaw.MicroClawRuntime:
    return microclaw.MicroClawRuntime(copy("microclaw", tmp_path), actor=actor, clock=CLOCK)


def test_microclaw_personas_are_agents(tmp_path: Path) -> None:
    rt = micro(tmp_path)
    assert rt.agents() == ["-1001234567890/1", "-1001234567890/2", "42/7"]
    with pytest.raises(errors.VaultError, match=r"holds 3 agents .*name one with --agent"):
        rt.read_tiers(None)


def test_microclaw_tier_replaced_everything_else_kept(tmp_path: Path) -> None:
    rt = micro(tmp_path)
    agent = "-1001234567890/2"
    path = rt.tiers_path(agent)
    before = path.read_text(encoding="utf-8")
    after = rt.write_tier(agent, 2, "- Budget review (weekly).").text or ""
    assert path.read_text(encoding="utf-8") == after
    assert after.startswith("# Memory\nKept by hand too.\n")
    assert after.endswith(
        "## Tier 3 — Short term\nReviewing the budget.\n\n## Scratch\nnot a tier: kept as it is\n"
    )
    assert "- Budget review (weekly)." in after
    assert before.split("## Tier 2")[0] == after.split("## Tier 2")[0]


def test_microclaw_same_tier_written_again_changes_no_byte(tmp_path: Path) -> None:
    rt = micro(tmp_path)
    agent = "-1001234567890/1"
    path = rt.tiers_path(agent)
    raw = path.read_bytes()
    rt.write_tier(agent, 1, "User is vegetarian.")
    assert path.read_bytes() == raw and rt.files.backups(path) == []


def test_microclaw_daily_log_in_append_daily_log_shape(tmp_path: Path) -> None:
    rt = micro(tmp_path)
    agent = "-1001234567890/1"
    assert rt.daily_dates(agent) == [dt.date(2026, 11, 23), dt.date(2026, 11, 24)]
    note = rt.daily_append(agent, "Lunch booked.")
    assert note.path == rt.root / "groups" / "-1001234567890" / "memory" / "2026-11-24.md"
    assert note.text == "\nMorning check-in.\nLunch booked."
    assert rt.daily_append(agent, "Ends with newline.\n").text == (
        "\nMorning check-in.\nLunch booked.Ends with newline.\n"  # MicroClaw's own quirk
    )
    # newer MicroClaw: a persona with its own memory/ folder logs there
    assert rt.daily_note("42/7", NOW.date()).path.parent == rt.root / "groups/42/7/memory"


def test_microclaw_principles_are_read_only_for_agents(tmp_path: Path) -> None:
    rt = micro(tmp_path, actor="agent:persona-1")
    assert rt.principles() is not None and "Never share" in (rt.principles() or "")
    with pytest.raises(errors.AccessDeniedError, match="read-only for agents"):
        rt.write_principles("# Principles\n\n- anything goes\n")
    person = microclaw.MicroClawRuntime(rt.root, actor="jane", clock=CLOCK)
    assert person.write_principles("# Principles\n\n- Be kind.\n") is True


def test_microclaw_has_no_notes_or_profile(tmp_path: Path) -> None:
    rt = micro(tmp_path)
    with pytest.raises(folder.UnsupportedError, match="tiered memory per persona"):
        rt.read_notes("42/7", "memory")


# -- two processes at once -------------------------------------------------------------

WORKER = """
import sys
from vault_app.core.neighbours import open_folder
root, kind, tag, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
f = open_folder(root, actor="cli")
for i in range(count):
    if kind == "notes":
        f.change_notes(None, "memory", "add", content=f"{tag} entry {i}")
    elif kind == "daily":
        f.daily_append(sys.argv[5] if len(sys.argv) > 5 else None, f"{tag} line {i}")
    elif kind == "profile":
        f.set_profile(None, f"{tag}-{i}", str(i))
"""


def run_two(root: Path, kind: str, count: int, *extra: str) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), kind, tag, str(count), *extra],
            stderr=subprocess.PIPE,
        )
        for tag in ("A", "B")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()


def test_concurrent_hermes_adds_from_two_processes_all_land(tmp_path: Path) -> None:
    root = copy("hermes", tmp_path)
    (root / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n", encoding="utf-8")
    run_two(root, "notes", 15)
    found = notes.entries((root / "memories" / "MEMORY.md").read_text(encoding="utf-8"))
    assert len(found) == 4 + 30
    assert {f"{t} entry {i}" for t in "AB" for i in range(15)} <= set(found)


def test_concurrent_picoclaw_appends_and_sets_all_land(tmp_path: Path) -> None:
    root = copy("picoclaw", tmp_path)
    run_two(root, "daily", 15)
    run_two(root, "profile", 10)
    ws = open_folder(root)
    assert ws is not None
    text = ws.daily_note(None, dt.date.today()).text or ""
    assert text.count("# ") == 1 and text.startswith(f"# {dt.date.today().isoformat()}\n\n")
    assert all(f"{t} line {i}\n" in text for t in "AB" for i in range(15))
    assert {f"{t}-{i}" for t in "AB" for i in range(10)} <= ws.read_profile(None).values.keys()


def test_concurrent_microclaw_log_appends_all_land(tmp_path: Path) -> None:
    root = copy("microclaw", tmp_path)
    run_two(root, "daily", 15, "42/7")
    rt = open_folder(root)
    assert rt is not None
    day = dt.datetime.now(dt.UTC).date()
    text = rt.daily_note("42/7", day).text or ""
    assert all(f"{t} line {i}" in text for t in "AB" for i in range(15))


def test_nothing_changed_nothing_written(tmp_path: Path) -> None:
    for name in ("hermes", "picoclaw", "microclaw"):
        root = copy(name, tmp_path / "once")
        before = tree_digest(root)
        opened = open_folder(root, clock=CLOCK)
        assert opened is not None
        opened.describe()
        assert tree_digest(root) == before, name
    assert FIXTURES.is_dir()


# -- a person's whole-block edits (the window's), against the hash read -----------------


def test_hermes_whole_store_edit_checks_the_hash_and_the_rules(tmp_path: Path) -> None:
    home = hermes_home(tmp_path)
    state = home.read_notes(None, "user")
    edited = [*state.entries, "Works from Lyon on Fridays."]
    after = home.write_notes(None, "user", edited, expected=state.sha256)
    assert after.entries == edited
    with pytest.raises(errors.ConflictError):  # the file changed since state was read
        home.write_notes(None, "user", state.entries, expected=state.sha256)
    with pytest.raises(notes.DuplicateError):
        home.write_notes(None, "user", ["a", "a"], expected=after.sha256)
    with pytest.raises(notes.BudgetError):
        home.write_notes(None, "user", ["z" * 1376], expected=after.sha256)
    assert home.read_notes(None, "user").entries == edited
    drifted = hermes_home(tmp_path / "d", "hermes-drift")
    seen = drifted.read_notes(None, "memory")
    with pytest.raises(hermes.DriftError):
        drifted.write_notes(None, "memory", seen.entries[:1], expected=seen.sha256)


def test_picoclaw_whole_profile_edit(tmp_path: Path) -> None:
    ws = pico(tmp_path)
    state = ws.read_profile(None)
    after = ws.write_profile(None, {"user_name": "Mike"}, expected=state.sha256)
    assert after.values == {"user_name": "Mike"}
    assert ws.profile_path().read_text(encoding="utf-8") == '{\n  "user_name": "Mike"\n}'
    with pytest.raises(errors.ConflictError):
        ws.write_profile(None, {}, expected=state.sha256)


def test_microclaw_tier_changed_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    rt = micro(tmp_path)
    agent = "-1001234567890/1"
    seen = rt.read_tiers(agent).memory.tier(3)
    rt.write_tier(agent, 3, "Someone else wrote this.")
    with pytest.raises(errors.ConflictError):
        rt.write_tier(agent, 3, "My edit.", was=seen)
    rt.write_tier(agent, 1, "Vegetarian; no nuts.", was="User is vegetarian.")
    assert rt.read_tiers(agent).memory.tier(3) == "Someone else wrote this."
