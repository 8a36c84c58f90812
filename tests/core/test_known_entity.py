"""Edits that name the entity holding a fact skip the search of the vault for it (the
heartbeat knows it from dedup): the same result, and a wrong entity is refused."""

from __future__ import annotations

import pytest

from vault_app.core import errors, facts
from vault_app.core.vault import Vault


@pytest.fixture
def two(vault: Vault) -> Vault:
    vault.create_entity("areas/people/maria")
    vault.create_entity("areas/people/tom")
    return vault


def test_supersede_in_a_named_entity_does_not_search(
    two: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = two.add_fact("areas/people/maria", "Maria's locker is 12.", "context")

    def no_search(*args: object) -> None:
        raise AssertionError("searched the vault")

    monkeypatch.setattr(facts.Facts, "locate", no_search)
    before, after = two.supersede_fact(old.id, "Maria's locker is 14.", ref="areas/people/maria")
    assert before.superseded_by == after.id and after.fact == "Maria's locker is 14."
    with pytest.raises(errors.NotFoundError, match=after.id):
        two.supersede_fact(after.id, "Maria's locker is 15.", ref="areas/people/tom")
    counts = two.mark_accessed([after.id], where={after.id: "areas/people/maria"})
    assert counts == {after.id: 1}
    with pytest.raises(errors.NotFoundError):
        two.mark_accessed([after.id], where={after.id: "areas/people/tom"})


def test_ids_without_a_known_entity_are_still_searched(two: Vault) -> None:
    a = two.add_fact("areas/people/maria", "Maria likes tea.", "preference")
    b = two.add_fact("areas/people/tom", "Tom likes coffee.", "preference")
    counts = two.mark_accessed([a.id, b.id], where={a.id: "areas/people/maria"})
    assert counts == {a.id: 1, b.id: 1}
