"""Reverting an agent's fact write (issue 16): a supersede back to the version before it,
or the added fact withdrawn; never a delete; refused, naming the change, when the version
changed since."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.grants import let_write_global
from vault_app.core import activity, errors, revert
from vault_app.core import vault as vault_module

RENT = "projects/rent"


@pytest.fixture
def root(vault: vault_module.Vault) -> Path:
    vault.create_agent("finance")
    vault.create_entity(RENT)
    let_write_global(vault.root, "finance")
    return vault.root


def person(root: Path) -> vault_module.Vault:
    return vault_module.Vault(root, actor="gui")


def agent(root: Path) -> vault_module.Vault:
    return vault_module.Vault(root, actor="agent:finance")


def ids(root: Path) -> list[str]:
    return [f.id for f in person(root).entity(RENT).facts]


def test_a_changed_fact_goes_back_to_its_predecessor(root: Path) -> None:
    first = person(root).add_fact(RENT, "Rent is 900", "status", related=["projects/flat"])
    _, changed = agent(root).supersede_fact(first.id, "Rent is 950", confidence=0.6)
    done = revert.revert_fact(person(root), changed.id)
    assert done.entity == RENT and not done.withdrawn
    restored = done.restored
    assert restored is not None and restored.is_active
    assert (restored.fact, restored.category, restored.related_entities) == (
        "Rent is 900",
        first.category,
        ["projects/flat"],
    )
    assert float(restored.confidence) == 1.0  # the predecessor's, not the agent's
    assert restored.supersedes == changed.id
    assert restored.metadata["reverted"] == {"fact": changed.id, "restores": first.id, "by": "gui"}
    assert done.taken_back.superseded_by == restored.id
    assert ids(root) == [first.id, changed.id, restored.id]  # nothing removed
    line = activity.recent(root, limit=1)[0]
    assert (line["action"], line["actor"], line["reverts"]) == ("fact.supersede", "gui", changed.id)
    history = [f.fact for _, f in person(root).fact_history(restored.id)]
    assert history == ["Rent is 900", "Rent is 950", "Rent is 900"]


def test_an_added_fact_is_withdrawn_not_deleted(root: Path) -> None:
    added = agent(root).add_fact(RENT, "The landlord sold the flat", "milestone")
    line = activity.recent(root, limit=1)[0]
    done = revert.revert_line(person(root), line)
    assert done.withdrawn and done.restored is None
    assert not done.taken_back.is_active and done.taken_back.superseded_by is None
    assert done.taken_back.metadata["archived"]["by"] == "gui"
    assert ids(root) == [added.id]
    # withdrawn like an archive: reinstating it is the way back (the window's undo)
    assert person(root).set_fact_status(added.id, True).is_active


def test_refused_precisely_when_the_version_changed_since(root: Path) -> None:
    first = person(root).add_fact(RENT, "Rent is 900", "status")
    _, changed = agent(root).supersede_fact(first.id, "Rent is 950")
    person(root).supersede_fact(changed.id, "Rent is 975 from April")
    before = (root / "global/life/projects/rent/items.json").read_bytes()
    with pytest.raises(revert.ChangedSinceError, match=r"superseded by .*Rent is 975 from April"):
        revert.revert_fact(person(root), changed.id)
    other = agent(root).add_fact(RENT, "Water is included", "status")
    person(root).archive_fact(other.id, reason="wrong")
    with pytest.raises(revert.ChangedSinceError, match="it was archived by gui at"):
        revert.revert_fact(person(root), other.id)
    assert (root / "global/life/projects/rent/items.json").read_bytes() != before  # the archive
    third = agent(root).add_fact(RENT, "Heating is extra", "status")
    person(root).set_fact_status(third.id, False)  # an undone add
    with pytest.raises(revert.ChangedSinceError, match="it was withdrawn by gui"):
        revert.revert_fact(person(root), third.id)
    assert isinstance(revert.ChangedSinceError("x"), errors.VaultError)


def test_reading_the_fact_is_not_a_change(root: Path) -> None:
    added = agent(root).add_fact(RENT, "The boiler is new", "status")
    agent(root).mark_accessed([added.id])
    assert revert.revert_fact(person(root), added.id).withdrawn


def test_lines_that_are_no_fact_version_are_refused(root: Path) -> None:
    with pytest.raises(errors.InvalidFactError, match="only a fact added or changed"):
        revert.revert_line(person(root), {"action": "daily.append", "target": "x"})
    with pytest.raises(errors.InvalidFactError, match="only a fact added or changed"):
        revert.revert_line(person(root), {"action": "fact.add"})
    with pytest.raises(errors.NotFoundError):
        revert.revert_fact(person(root), "fact-nowhere")
