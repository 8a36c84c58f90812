"""The rules of a neighbour's agents' writes (`core.neighbours.agents`): a folder opened
as one agent writes only that agent's memory, only the structures its format keeps
(never principles), and only people decide reviews and issue tokens, all of it kept in
vault-app's state folder for the folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.neighbour_folders import AGENTS, ATTACK, PERSONA, copied, digest
from vault_app.core import agent_writes, errors, neighbours
from vault_app.core.neighbours import agents as neighbour_agents
from vault_app.core.neighbours import files as neighbour_files


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def opened(root: Path, actor: str) -> neighbours.ForeignFolder:
    found = neighbours.open_folder(root, actor=actor)
    assert found is not None
    return found


def test_a_folder_opened_as_one_agent_refuses_writes_of_another(tmp_path: Path) -> None:
    root = copied("microclaw", tmp_path)
    write = agent_writes.AgentWrite(
        kind="tiers_write", agent="-1001234567890/2", params={"tier": 3, "text": "Mine now."}
    )
    with pytest.raises(errors.AccessDeniedError, match="must be made by a folder opened as"):
        neighbour_agents.submit(opened(root, f"agent:{PERSONA}"), write)
    with pytest.raises(errors.AccessDeniedError):  # a person's face is not the agent either
        neighbour_agents.submit(opened(root, "cli"), write)


@pytest.mark.parametrize(
    ("name", "kind", "params"),
    [
        ("hermes", "append_daily", {"text": "No daily notes in a Hermes home."}),
        ("hermes", "tiers_write", {"tier": 1, "text": "No tiers either."}),
        ("picoclaw", "memory", {"action": "add", "target": "memory", "content": "No § notes."}),
        ("microclaw", "profile_set", {"key": "k", "value": "no profile.json"}),
        ("microclaw", "write_document", {"name": "AGENTS.md", "text": "New principles."}),
        ("microclaw", "append_daily", {"text": "A global note?", "scope": "global"}),
    ],
)
def test_a_write_the_format_does_not_keep_is_refused_and_changes_nothing(
    name: str, kind: str, params: dict[str, Any], tmp_path: Path
) -> None:
    root = copied(name, tmp_path)
    before = digest(root)
    write = agent_writes.AgentWrite(kind=kind, agent=AGENTS[name], params=params)  # type: ignore[arg-type]
    with pytest.raises(errors.VaultError):
        neighbour_agents.submit(opened(root, f"agent:{AGENTS[name]}"), write)
    assert digest(root) == before


def test_agents_decide_no_review_and_issue_no_token(tmp_path: Path) -> None:
    root = copied("hermes", tmp_path)
    agent = opened(root, "agent:hermes")
    write = agent_writes.AgentWrite(
        kind="memory", agent="hermes", params={"action": "add", "target": "user", "content": ATTACK}
    )
    pending = neighbour_agents.submit(agent, write)
    assert isinstance(pending, agent_writes.Pending)
    with pytest.raises(errors.AccessDeniedError, match="a person decides"):
        neighbour_agents.approve(agent, pending.review_id)
    with pytest.raises(errors.AccessDeniedError):
        neighbour_agents.issue_token(agent, "hermes")
    person = opened(root, "jane")
    rejected = neighbour_agents.reject(person, pending.review_id, "an injection")
    assert rejected.status == "rejected" and rejected.decided_by == "jane"
    assert neighbour_agents.pending(person) == []
    assert neighbour_agents.describe(person, rejected)["target"] == "memories/USER.md (add)"


def test_an_agents_write_is_audited_with_it_as_actor_in_our_state(tmp_path: Path) -> None:
    root = copied("microclaw", tmp_path)
    write = agent_writes.AgentWrite(
        kind="append_daily", agent=PERSONA, params={"text": "Slept well."}
    )
    applied = neighbour_agents.submit(opened(root, f"agent:{PERSONA}"), write)
    assert isinstance(applied, agent_writes.Applied)
    assert applied.result["file"] == "groups/-1001234567890/memory/" + (
        applied.result["entry"]["date"] + ".md"
    )
    log = neighbour_files.state_dir(root.resolve()) / "audit.jsonl"
    assert f'"actor":"agent:{PERSONA}","action":"daily.append"' in log.read_text("utf-8")
    assert not (root / ".vault").exists()
