"""An agent's tiers, § notes and profile.json in a PARA vault: safe writes, budgets, rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vault_app.core import agent_memory, errors, notes, storage, tiers
from vault_app.core import vault as vault_module

WORKER = Path(__file__).with_name("_vault_worker.py")


@pytest.fixture
def v(vault: vault_module.Vault) -> vault_module.Vault:
    vault.create_agent("household")
    vault.create_agent("other")
    return vault


def configure(v: vault_module.Vault, table: str) -> vault_module.Vault:
    config = v.root / ".vault" / "config.toml"
    config.write_text(config.read_text() + "\n" + table)
    return vault_module.Vault(v.root, actor=v.actor)


def audit_lines(v: vault_module.Vault) -> list[dict[str, object]]:
    text = (v.root / ".vault" / storage.AUDIT_NAME).read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_notes_add_replace_remove_on_disk_in_hermes_format(v: vault_module.Vault) -> None:
    agent_memory.change_notes(v, "household", "memory", "add", content="Uses vim")
    state = agent_memory.change_notes(
        v, "household", "memory", "add", content="Project X:\nship in May"
    )
    path = v.root / "agents/household/memories/MEMORY.md"
    assert path.read_text() == "Uses vim\n§\nProject X:\nship in May"
    assert state.usage.fraction() == f"{len(path.read_text())}/2,200"
    agent_memory.change_notes(
        v, "household", "memory", "replace", old_text="vim", content="Uses helix"
    )
    state = agent_memory.change_notes(v, "household", "memory", "remove", old_text="Project")
    assert path.read_text() == "Uses helix" and state.entries == ["Uses helix"]
    actions = [
        line["action"] for line in audit_lines(v) if str(line["target"]).endswith("MEMORY.md")
    ]
    assert actions == ["notes.add", "notes.add", "notes.replace", "notes.remove"]
    assert len(v.storage.backups(path)) >= 3  # every earlier version kept


def test_user_profile_budget_is_1375_and_over_budget_changes_nothing(v: vault_module.Vault) -> None:
    agent_memory.change_notes(v, "household", "user", "add", content="x" * 1372)
    path = v.root / "agents/household/memories/USER.md"
    before = path.read_bytes()
    with pytest.raises(notes.BudgetError) as caught:
        agent_memory.change_notes(v, "household", "user", "add", content="y")  # 1372 + 3 + 1 = 1376
    assert (caught.value.current, caught.value.limit, caught.value.attempted) == (1372, 1375, 1376)
    assert path.read_bytes() == before
    state = agent_memory.read_notes(v, "household", "user")
    assert state.usage.fraction() == "1,372/1,375"


def test_budgets_and_toggles_per_agent_from_the_config(v: vault_module.Vault) -> None:
    v = configure(v, "[agents.memory.household]\nmemory_chars = 10\nprofile = false\n")
    agent_memory.change_notes(v, "household", "memory", "add", content="0123456789")
    with pytest.raises(notes.BudgetError):
        agent_memory.change_notes(v, "household", "memory", "add", content="a")
    agent_memory.change_notes(v, "other", "memory", "add", content="a" * 2000)  # default budget
    with pytest.raises(
        agent_memory.DisabledError, match=r"profile = true under \[agents.memory.household\]"
    ):
        agent_memory.change_notes(v, "household", "user", "add", content="likes tea")
    with pytest.raises(agent_memory.DisabledError):
        agent_memory.set_profile(v, "household", "name", "Zoé")
    assert agent_memory.read_notes(v, "household", "user").enabled is False  # people still read
    as_agent = vault_module.Vault(v.root, actor="agent:household")
    with pytest.raises(agent_memory.DisabledError):
        agent_memory.read_notes(as_agent, "household", "user")


def test_bad_memory_config_is_refused_precisely(v: vault_module.Vault) -> None:
    config = v.root / ".vault" / "config.toml"
    config.write_text(config.read_text() + "\n[agents.memory.household]\nmemory_chars = 0\n")
    with pytest.raises(errors.CorruptFileError, match="memory_chars"):
        vault_module.config.VaultConfig.load(v.root)


def test_a_hand_edited_file_is_appended_to_but_not_rewritten(v: vault_module.Vault) -> None:
    path = v.root / "agents/household/memories/MEMORY.md"
    path.parent.mkdir()
    path.write_text("first\n\n§\n\nsecond\n")
    agent_memory.change_notes(v, "household", "memory", "add", content="third")
    assert path.read_text() == "first\n\n§\n\nsecond\n\n§\nthird"
    with pytest.raises(agent_memory.DriftError, match="nothing changed"):
        agent_memory.change_notes(v, "household", "memory", "remove", old_text="first")
    assert path.read_text() == "first\n\n§\n\nsecond\n\n§\nthird"


def test_a_trailing_newline_from_an_editor_is_not_drift(v: vault_module.Vault) -> None:
    path = v.root / "agents/household/memories/USER.md"
    path.parent.mkdir()
    path.write_text("likes tea\n§\nlives in Lyon\n")
    agent_memory.change_notes(v, "household", "user", "remove", old_text="tea")
    assert path.read_text() == "lives in Lyon"


def test_tiers_write_one_tier_keeps_the_rest(v: vault_module.Vault) -> None:
    state = agent_memory.write_tier(v, "household", 2, "Kitchen renovation")
    path = v.root / "agents/household/MEMORY.md"
    assert path.read_text() == tiers.template({2: "Kitchen renovation"})
    path.write_text(path.read_text() + "\n<!-- kept -->\n")
    agent_memory.write_tier(v, "household", 1, "Family of four")
    state = agent_memory.read_tiers(v, "household")
    assert state.memory.tiers() == {
        1: "Family of four",
        2: "Kitchen renovation",
        3: "<!-- kept -->",
    }
    assert state.text is not None and state.text.endswith("<!-- kept -->\n")
    assert audit_lines(v)[-1]["action"] == "tiers.write" and audit_lines(v)[-1]["tier"] == 1


def test_profile_set_delete(v: vault_module.Vault) -> None:
    agent_memory.set_profile(v, "household", "name", "Zoé")
    agent_memory.set_profile(v, "household", "city", "Lyon")
    agent_memory.set_profile(v, "household", "name", "Zoé M.")
    path = v.root / "agents/household/profile.json"
    assert json.loads(path.read_text()) == {"name": "Zoé M.", "city": "Lyon"}
    assert list(json.loads(path.read_text())) == ["name", "city"]
    state = agent_memory.delete_profile(v, "household", "city")
    assert state.values == {"name": "Zoé M."}
    with pytest.raises(errors.NotFoundError, match="keys: 'name'"):
        agent_memory.delete_profile(v, "household", "city")


def test_a_corrupt_profile_is_never_overwritten(v: vault_module.Vault) -> None:
    path = v.root / "agents/household/profile.json"
    path.write_text('{"name": {"first": "Zoé"}}')
    with pytest.raises(errors.CorruptFileError, match=r"agents/household/profile\.json"):
        agent_memory.set_profile(v, "household", "city", "Lyon")
    assert path.read_text() == '{"name": {"first": "Zoé"}}'


def test_an_agent_acts_only_on_its_own_folder(v: vault_module.Vault) -> None:
    as_agent = vault_module.Vault(v.root, actor="agent:household")
    agent_memory.change_notes(as_agent, "household", "memory", "add", content="mine")
    for call in (
        lambda: agent_memory.read_notes(as_agent, "other", "memory"),
        lambda: agent_memory.change_notes(as_agent, "other", "memory", "add", content="x"),
        lambda: agent_memory.write_tier(as_agent, "other", 1, "x"),
        lambda: agent_memory.set_profile(as_agent, "other", "k", "v"),
    ):
        with pytest.raises(errors.AccessDeniedError, match="only on its own folder"):
            call()
    assert audit_lines(v)[-1]["actor"] == "agent:household"


@pytest.mark.parametrize("agent", ["../global", "no such", "ghost"])
def test_unknown_or_hostile_agent_ids(v: vault_module.Vault, agent: str) -> None:
    with pytest.raises((errors.InvalidIdError, errors.NotFoundError)):
        agent_memory.change_notes(v, agent, "memory", "add", content="x")
    assert not (v.root / "global" / "memories").exists()


def test_principles_stay_out_of_reach_of_agents(v: vault_module.Vault) -> None:
    as_agent = vault_module.Vault(v.root, actor="agent:household")
    before = (v.root / "global/AGENTS.md").read_bytes()
    with pytest.raises(errors.VaultError, match="principles"):
        as_agent.write_document("AGENTS.md", "obey me", expected=vault_module.Check.SKIP)
    assert (v.root / "global/AGENTS.md").read_bytes() == before


def test_two_processes_adding_at_once_lose_nothing(v: vault_module.Vault) -> None:
    configure(v, "[agents.memory.household]\nmemory_chars = 100000\n")
    count = 30
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "notes", str(v.root), "household", str(count), tag],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        outputs = [worker.communicate(timeout=300)[0] for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert [w.returncode for w in workers] == [0, 0]
    written = [line for out in outputs for line in out.splitlines()]
    assert len(written) == 2 * count
    on_disk = agent_memory.read_notes(v, "household", "memory").entries
    assert sorted(on_disk) == sorted(written)


def test_a_person_writes_a_whole_block_against_the_hash_read(v: vault_module.Vault) -> None:
    first = agent_memory.write_notes(v, "household", "memory", ["a", "b"], expected=None)
    path = v.root / "agents/household/memories/MEMORY.md"
    assert path.read_text() == "a\n§\nb"
    agent_memory.change_notes(v, "household", "memory", "add", content="c")  # someone else
    with pytest.raises(errors.ConflictError):
        agent_memory.write_notes(v, "household", "memory", ["a"], expected=first.sha256)
    now = agent_memory.read_notes(v, "household", "memory")
    with pytest.raises(notes.DuplicateError):
        agent_memory.write_notes(v, "household", "memory", ["a", "a"], expected=now.sha256)
    with pytest.raises(notes.BudgetError) as caught:
        agent_memory.write_notes(v, "household", "memory", ["x" * 2201], expected=now.sha256)
    assert caught.value.current == len("a\n§\nb\n§\nc")
    assert path.read_text() == "a\n§\nb\n§\nc"


def test_a_tier_changed_meanwhile_is_not_overwritten(v: vault_module.Vault) -> None:
    agent_memory.write_tier(v, "household", 1, "one")
    agent_memory.write_tier(v, "household", 2, "two", was="")  # tier 2 was empty: fine
    agent_memory.write_tier(v, "household", 1, "uno")  # someone else
    with pytest.raises(errors.ConflictError):
        agent_memory.write_tier(v, "household", 1, "mine", was="one")
    assert agent_memory.read_tiers(v, "household").memory.tier(1) == "uno"


def test_a_person_writes_the_whole_profile(v: vault_module.Vault) -> None:
    state = agent_memory.write_profile(v, "household", {"b": "2", "a": "1"}, expected=None)
    path = v.root / "agents/household/profile.json"
    assert list(json.loads(path.read_text())) == ["b", "a"]
    with pytest.raises(errors.VaultError):
        agent_memory.write_profile(v, "household", {" bad": "x"}, expected=state.sha256)
    with pytest.raises(errors.ConflictError):
        agent_memory.write_profile(v, "household", {}, expected=None)
    assert json.loads(path.read_text()) == {"b": "2", "a": "1"}


def test_symlinks_toward_the_principles_are_never_written_through(v: vault_module.Vault) -> None:
    principles = v.root / "global/AGENTS.md"
    before = principles.read_bytes()
    (v.root / "agents/household/memories").symlink_to(v.root / "global")
    (v.root / "agents/household/MEMORY.md").symlink_to(principles)
    (v.root / "agents/household/profile.json").symlink_to(principles)
    as_agent = vault_module.Vault(v.root, actor="agent:household")
    for call in (
        lambda: agent_memory.change_notes(as_agent, "household", "memory", "add", content="x"),
        lambda: agent_memory.write_tier(as_agent, "household", 1, "obey"),
        lambda: agent_memory.write_tiers(as_agent, "household", "obey"),
        lambda: agent_memory.set_profile(as_agent, "household", "k", "v"),
    ):
        with pytest.raises(errors.VaultError):
            call()
    assert principles.read_bytes() == before
    assert not (v.root / "global/MEMORY.md").exists()


def test_a_notes_file_that_is_not_utf8_is_reported_and_kept(v: vault_module.Vault) -> None:
    path = v.root / "agents/household/memories/USER.md"
    path.parent.mkdir()
    path.write_bytes(b"likes tea\n\xa7\nlatin-1 section sign")
    with pytest.raises(errors.CorruptFileError, match=r"USER\.md.*UTF-8"):
        agent_memory.read_notes(v, "household", "user")
    with pytest.raises(errors.CorruptFileError):
        agent_memory.change_notes(v, "household", "user", "add", content="x")
    assert path.read_bytes() == b"likes tea\n\xa7\nlatin-1 section sign"
