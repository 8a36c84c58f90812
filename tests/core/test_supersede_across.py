"""A fact superseded by one in another entity (a role passed from one person to another):
the new fact written first holding `supersedes`, then the old one marked; lineage, the
audit, a revert and `doctor` follow it across; refused as a supersede is, and a race
lost leaves the new fact standing on its own."""

from __future__ import annotations

import json

import pytest

from vault_app.core import errors, facts, formats, layout, models, revert
from vault_app.core.vault import Vault

OKAFOR = layout.EntityRef.parse("areas/people/dr-okafor")
BRANDT = layout.EntityRef.parse("areas/people/dr-brandt")
OLD = "Leila's neurologist is Dr. Okafor."
NEW = "Leila's new neurologist is Dr. Brandt."


@pytest.fixture
def two(vault: Vault) -> Vault:
    vault.create_entity(OKAFOR)
    vault.create_entity(BRANDT)
    return vault


def raw(vault: Vault, ref: layout.EntityRef) -> list[dict[str, object]]:
    folder = vault.paths.entity_dir(ref)
    data: list[dict[str, object]] = json.loads(vault.paths.facts_path(folder).read_text())
    return data


def test_the_new_fact_lives_in_the_other_entity_and_both_are_linked(two: Vault) -> None:
    old = two.add_fact(OKAFOR, OLD, "relationship", related=["areas/people/leila"])
    retired, new = two.supersede_fact(old.id, NEW, ref=OKAFOR, into=BRANDT)
    assert (retired.id, retired.superseded_by, retired.is_active) == (old.id, new.id, False)
    assert (new.fact, new.supersedes, new.is_active) == (NEW, old.id, True)
    assert new.related_entities == ["areas/people/leila"]  # the old one's, as a supersede
    assert [f.id for f in two.entity(OKAFOR).facts] == [old.id]  # nothing moved or lost
    assert [f.id for f in two.entity(BRANDT).facts] == [new.id]
    assert raw(two, BRANDT)[0]["supersedes"] == old.id  # the old file cannot say it here
    assert [(r, f.fact) for r, f in two.fact_history(new.id)] == [(OKAFOR, OLD), (BRANDT, NEW)]
    assert [(r, f.fact) for r, f in two.fact_history(old.id)] == [(OKAFOR, OLD), (BRANDT, NEW)]
    audit = [
        json.loads(line) for line in (two.paths.state_dir / "audit.jsonl").read_text().splitlines()
    ]
    changes = [(a["action"], a["entity"]) for a in audit if a.get("factId") == new.id]
    assert changes == [("fact.supersede", str(BRANDT)), ("fact.supersede", str(OKAFOR))]


def test_the_same_entity_given_as_into_is_an_ordinary_supersede(two: Vault) -> None:
    old = two.add_fact(OKAFOR, OLD, "relationship")
    _, new = two.supersede_fact(old.id, "Leila's neurologist is Dr. Okafor, Tuesdays.",
                                ref=OKAFOR, into=OKAFOR)  # fmt: skip
    assert [f.id for f in two.entity(OKAFOR).facts] == [old.id, new.id]
    assert "supersedes" not in raw(two, OKAFOR)[1]  # within one file its pointer says it


def test_what_a_supersede_refuses_it_refuses_across_too(two: Vault) -> None:
    old = two.add_fact(OKAFOR, OLD, "relationship")
    two.supersede_fact(old.id, "Leila's neurologist is Dr. Okafor (Tuesdays).")
    with pytest.raises(errors.InvalidFactError, match="already superseded"):
        two.supersede_fact(old.id, NEW, ref=OKAFOR, into=BRANDT)
    assert two.entity(BRANDT).facts == []  # nothing written
    archived = two.archive_entity(BRANDT)
    other = two.add_fact(OKAFOR, "Leila sees Dr. Okafor in March.", "context")
    with pytest.raises(errors.InvalidFactError, match="archived"):
        two.supersede_fact(other.id, NEW, ref=OKAFOR, into=archived)
    assert two.entity(OKAFOR).fact(other.id).is_active


def test_a_race_lost_between_the_two_writes_leaves_the_new_fact_on_its_own(two: Vault) -> None:
    old = two.add_fact(OKAFOR, OLD, "relationship")
    editor = facts.Facts(two.paths, two.storage, two.now, two.actor)
    first = True

    def changed_meanwhile(fact: models.Fact) -> models.Fact:
        nonlocal first
        if not first:  # between the two writes another writer retired it
            raise errors.InvalidFactError(f"fact {fact.id} was retracted meanwhile")
        first = False
        return fact

    def make(_old: models.Fact, new_id: str, dialect: formats.Dialect) -> dict[str, object]:
        return formats.new_entry(
            dialect, fact_id=new_id, text=NEW, category=models.FactCategory.RELATIONSHIP,
            now=two.now(), source=None, related=[], agent_id=None, confidence=1.0,
            metadata=None,
        )  # fmt: skip

    with pytest.raises(errors.InvalidFactError, match="meanwhile"):
        editor.supersede_across(OKAFOR, old.id, BRANDT, make, check=changed_meanwhile)
    (new,) = two.entity(BRANDT).facts
    assert new.fact == NEW and new.is_active and new.supersedes is None
    assert "supersedes" not in raw(two, BRANDT)[0]
    assert two.entity(OKAFOR).fact(old.id).is_active  # untouched: both stay


def test_a_revert_puts_the_old_holder_back_in_their_own_entity(two: Vault) -> None:
    old = two.add_fact(OKAFOR, OLD, "relationship")
    _, new = two.supersede_fact(old.id, NEW, ref=OKAFOR, into=BRANDT)
    done = revert.revert_fact(two, new.id)
    assert done.entity == str(OKAFOR) and done.restored is not None
    assert (done.restored.fact, done.restored.supersedes) == (OLD, new.id)
    assert [f.fact for f in two.entity(OKAFOR).facts if f.is_active] == [OLD]
    assert [f.fact for f in two.entity(BRANDT).facts if f.is_active] == []
    with pytest.raises(revert.ChangedSinceError, match="in another entity"):
        revert.revert_fact(two, new.id)
    assert [f.fact for _, f in two.fact_history(old.id)] == [OLD, NEW, OLD]


def test_facts_mentioning_reads_only_current_facts_with_the_word(two: Vault) -> None:
    kept = two.add_fact(OKAFOR, OLD, "relationship")
    gone = two.add_fact(BRANDT, "Mom's Neurologist is Dr. Brandt.", "relationship")
    two.add_fact(BRANDT, "Dr. Brandt works at St. Mary's.", "context")
    assert {f.id for _, f in two.facts_mentioning("neurologist")} == {kept.id, gone.id}
    two.supersede_fact(gone.id, "Mom's neurologist was Dr. Brandt.")
    found = two.facts_mentioning("NEUROLOGIST")
    assert [(r, f.fact) for r, f in found if r == OKAFOR] == [(OKAFOR, OLD)]
    assert [f.fact for r, f in found if r == BRANDT] == ["Mom's neurologist was Dr. Brandt."]
    assert two.facts_mentioning("cardiologist") == []
