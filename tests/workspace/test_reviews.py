"""One review queue whatever was opened (`workspace.reviews`): a PARA vault's and a
neighbour's folder's held writes are listed, described, told where they land, and
decided through the same calls the CLI and the window make."""

from __future__ import annotations

from pathlib import Path

import pytest
from neighbour_folders import AGENTS, ATTACK, copied

from vault_app.core import agent_writes, neighbours, vault
from vault_app.core.neighbours import agents as neighbour_agents
from vault_app.workspace import reviews


def test_a_vaults_queue(tmp_path: Path) -> None:
    owner = vault.Vault.create(tmp_path / "v")
    owner.create_agent("finance")
    as_agent = vault.Vault(owner.root, actor="agent:finance")
    held = agent_writes.submit(
        as_agent,
        agent_writes.AgentWrite(
            kind="add_fact",
            agent="finance",
            params={"entity": "agent:finance:projects/x", "text": ATTACK, "category": "status"},
        ),
    )
    assert isinstance(held, agent_writes.Pending)
    queue = reviews.queue_of(owner)
    assert isinstance(queue, reviews.VaultQueue)
    assert queue.folder == owner.root / ".vault" / "review"
    (pending,) = queue.proposals()
    described = queue.describe(pending)
    assert described["target"] == "agent:finance:projects/x" and described["text"] == ATTACK
    assert queue.written(described) == (("agent:finance:projects/x",), ())
    queue.approve(pending.id)
    assert queue.proposals() == [] and len(queue.proposals(every=True)) == 1
    (fact,) = owner.entity("agent:finance:projects/x").facts
    assert fact.fact == ATTACK and fact.agent_id == "finance"


@pytest.mark.parametrize("name", ["hermes", "picoclaw"])
def test_a_neighbours_queue(name: str, tmp_path: Path) -> None:
    root = copied(name, tmp_path)
    agent = AGENTS[name]
    as_agent = neighbours.open_folder(root, actor=f"agent:{agent}")
    assert as_agent is not None
    kind, params = (
        ("memory", {"action": "add", "target": "memory", "content": ATTACK})
        if name == "hermes"
        else ("profile_set", {"key": "note", "value": ATTACK})
    )
    write = agent_writes.AgentWrite(kind=kind, agent=agent, params=params)
    assert isinstance(neighbour_agents.submit(as_agent, write), agent_writes.Pending)
    person = neighbours.open_folder(root, actor="cli")
    assert person is not None
    queue = reviews.queue_of(person)
    assert isinstance(queue, reviews.FolderQueue)
    (pending,) = queue.proposals()
    described = queue.describe(pending)
    (changed,) = queue.written(described)[1]
    assert changed.is_relative_to(root)  # the folder's own file, reloaded once approved
    before = changed.read_bytes() if changed.exists() else b""
    queue.reject(pending.id, "not ours")
    assert queue.proposals() == [] and queue.get(pending.id).status == "rejected"
    assert (changed.read_bytes() if changed.exists() else b"") == before  # nothing written
