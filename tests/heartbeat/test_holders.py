"""A role passed to someone else, across entities (`heartbeat/holders.py`): "Leila's new
neurologist is Dr. Brandt" retires "Leila's neurologist is Dr. Okafor" in Dr. Okafor's
entity, when the new one is said to be new (or "now") and the role is not kin's;
another owner's, or another memory's (an agent's private fact and a global one) stays."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.grants import let_write_global
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import clauses, holders, runs

NOW = dt.datetime(2026, 11, 30, 12, 0).astimezone()


def at(day: int, hh: int = 9) -> dt.datetime:
    return dt.datetime(2026, 11, day, hh).astimezone()


def beat(vault: Vault, day: int) -> runs.runlog.RunRecord:
    now = dt.datetime(2026, 11, day, 23, 0).astimezone()
    return runs.run_heartbeat(vault.root, runner="cli", trigger="once", now=now)


def person(name: str, agent: str | None = None) -> layout.EntityRef:
    return layout.EntityRef(agent, f"areas/people/{name}")


def current(vault: Vault, ref: layout.EntityRef) -> list[str]:
    return [f.fact for f in vault.entity(ref).facts if f.is_active]


@pytest.mark.parametrize(
    ("text", "owner", "role", "new"),
    [
        ("Leila's neurologist is Dr. Okafor.", "Leila", "neurologist", False),
        ("Leila's new neurologist is Dr. Brandt.", "Leila", "neurologist", True),
        ("The household's landlord is now Sandra Ortiz.", "The household", "landlord", True),
        ("The household's dentist is Dr. Lee now.", "The household", "dentist", True),
        ("Dr. Wu is Mom's cardiologist.", "Mom", "cardiologist", False),
        ("Dr. Okafor is the household's dentist.", "The household", "dentist", False),
        ("Maria is the user's accountant now.", "The user", "accountant", True),
        ("Theo's teacher in 2026 is Ms. Park.", "Theo", "teacher", False),
        ("The user's new dentist is Dr. Lee.", "The user", "dentist", True),
    ],
)
def test_a_fact_naming_the_holder_of_someone_s_role_is_read(
    text: str, owner: str, role: str, new: bool
) -> None:
    assert holders.holding(text) == holders.Holding(owner, role, new)


@pytest.mark.parametrize(
    "text",
    [
        "Leila's neurologist is very thorough.",  # no one named
        "Leila's neurologist appointment is on Tuesday.",  # not the role
        "Dr. Okafor is a neurologist.",  # no one's
        "Maya's favorite dessert is Tiramisu.",
    ],
)
def test_other_facts_name_no_holder(text: str) -> None:
    assert holders.holding(text) is None


@pytest.mark.parametrize(
    ("text", "replaces"),
    [
        ("Leila's neurologist is Dr. Brandt.", False),  # a second opinion, maybe
        ("The household's landlord is Greg Mills.", False),  # two flats, maybe
        ("The household's landlord is now Greg Mills.", True),  # a change, said
        ("Mom's doctor is Dr. Ames.", False),  # one has several doctors
        ("Mom's new doctor is Dr. Ames.", True),  # … but this one is new
        ("The household's new babysitter is Priya Raman.", True),
        ("The household's babysitter is Priya Raman.", False),
        ("Leila's new friend is Sam Ortiz.", False),  # a new friend is one more
        ("The user's new cousin is Ana.", False),
    ],
)
def test_which_holdings_replace_the_one_before(text: str, replaces: bool) -> None:
    told = holders.holding(text)
    assert told is not None and holders.replaces(told) is replaces


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("We have a new landlord, Sandra Ortiz.", "Our new landlord is Sandra Ortiz."),
        ("Mom has a new cardiologist, Dr. Ames.", "Mom's new cardiologist is Dr. Ames."),
        ("My sister has a new boss, Tom Reyes.", "My sister's new boss is Tom Reyes."),
        ("I found a new dentist named Dr. Lee.", "My new dentist is Dr. Lee."),
        ("Leila just got a new neurologist: Dr. Brandt.", "Leila's new neurologist is Dr. Brandt."),
        ("We've got a new vet, Dr. Ames.", "Our new vet is Dr. Ames."),
        # what is told of another after it stands on its own
        (
            "I've got a new accountant actually, Sofia Brandt, Graham retired.",
            "My new accountant is Sofia Brandt.|Graham retired.",
        ),
        ("We have a new car, a Subaru.", "We have a new car, a Subaru."),  # not a role
        ("He has a new boss, Tom Reyes.", "He has a new boss, Tom Reyes."),  # whose?
    ],
)
def test_a_new_one_had_is_told_as_who_they_are(said: str, told: str) -> None:
    assert list(clauses.sentences(said)) == told.split("|")


def test_a_role_passed_on_retires_the_fact_naming_the_one_before(vault: Vault) -> None:
    vault.append_daily("Our dentist is Dr. Patel.", at=at(2))
    vault.append_daily("Our landlord is Greg Mills.", at=at(2, 10))
    vault.append_daily("The babysitter is Jenna Cole.", at=at(2, 11))
    vault.append_daily("Our plumber is Joe Ruiz.", at=at(2, 12))
    vault.append_daily("User: my accountant is Graham Whitlow", at=at(2, 13))
    assert beat(vault, 2).written == 5
    vault.append_daily("User: I've got a new accountant actually, Sofia Brandt", at=at(19))
    vault.append_daily("We have a new dentist, Dr. Lee.", at=at(20))
    vault.append_daily("Our landlord is now Sandra Ortiz.", at=at(20, 10))
    vault.append_daily("Our new babysitter is Priya Raman.", at=at(21))
    vault.append_daily("The plumber is Marco Diaz.", at=at(21, 10))  # one of two plumbers
    record = beat(vault, 21)
    assert (record.superseded, record.written, record.created) == (4, 1, 5)
    for gone in ("dr-patel", "greg-mills", "jenna-cole", "graham-whitlow"):
        assert current(vault, person(gone)) == []
    assert current(vault, person("joe-ruiz")) == ["The household's plumber is Joe Ruiz."]
    new = vault.entity(person("dr-lee")).facts[0]
    assert new.fact == "The household's new dentist is Dr. Lee."
    assert [f.fact for _, f in vault.fact_history(new.id)] == [
        "The household's dentist is Dr. Patel.",
        "The household's new dentist is Dr. Lee.",
    ]
    assert beat(vault, 22).entries == 0  # and a rerun changes nothing


def test_a_role_in_one_entity_is_compared_with_its_own_owner_only(vault: Vault) -> None:
    okafor, wu = vault_person(vault, "dr-okafor"), vault_person(vault, "dr-wu")
    vault.add_fact(okafor, "Leila's neurologist is Dr. Okafor.", "relationship")
    vault.add_fact(wu, "Mom's neurologist is Dr. Wu.", "relationship")
    vault.add_fact(wu, "Mom's doctor is Dr. Wu.", "relationship")
    brandt, ames = vault_person(vault, "dr-brandt"), vault_person(vault, "dr-ames")
    vault.append_daily("Leila has a new neurologist, Dr. Brandt.", at=at(20))
    vault.append_daily("Dr. Ames is Mom's doctor.", at=at(20, 10))  # a second doctor
    assert beat(vault, 20).superseded == 1
    assert current(vault, okafor) == []
    assert current(vault, wu) == ["Mom's neurologist is Dr. Wu.", "Mom's doctor is Dr. Wu."]
    assert current(vault, brandt) == ["Leila's new neurologist is Dr. Brandt."]
    assert current(vault, ames) == ["Dr. Ames is Mom's doctor."]


def vault_person(vault: Vault, name: str) -> layout.EntityRef:
    ref = person(name)
    vault.create_entity(ref)
    return ref


def test_an_agent_s_private_fact_never_retires_a_global_one(vault: Vault) -> None:
    vault.create_agent("health")
    let_write_global(vault.root, "health")
    okafor = vault_person(vault, "dr-okafor")
    vault.add_fact(okafor, "Leila's neurologist is Dr. Okafor.", "relationship")
    mine = person("dr-brandt", "health")
    vault.create_entity(mine)
    vault.append_daily("Leila's new neurologist is Dr. Brandt.", agent="health", at=at(20))
    record = beat(vault, 20)
    assert (record.written, record.superseded) == (1, 0)
    assert current(vault, mine) == ["Leila's new neurologist is Dr. Brandt."]
    assert current(vault, okafor) == ["Leila's neurologist is Dr. Okafor."]


def test_in_an_agent_s_workspace_its_own_holder_is_retired(vault: Vault) -> None:
    vault.create_agent("helper")  # writes global memory only through a person's review
    okafor = vault_person(vault, "dr-okafor")
    vault.add_fact(okafor, "Leila's neurologist is Dr. Okafor.", "relationship")
    brandt = person("dr-brandt", "helper")
    vault.create_entity(brandt)
    vault.create_entity(person("dr-lee", "helper"))
    vault.add_fact(brandt, "Leila's neurologist is Dr. Brandt.", "relationship")
    vault.append_daily("Leila's new neurologist is Dr. Lee.", agent="helper", at=at(20))
    record = beat(vault, 20)
    assert record.superseded == 1  # its own Dr. Brandt, in its own workspace
    assert current(vault, brandt) == []
    assert current(vault, okafor) == ["Leila's neurologist is Dr. Okafor."]


def test_a_holder_changed_in_their_own_entity_is_not_retired_twice(vault: Vault) -> None:
    dana, wu, ravi = (vault_person(vault, n) for n in ("dana-whitaker", "dr-wu", "ravi-menon"))
    vault.add_fact(dana, "Dana Whitaker is the household's dentist.", "relationship")
    vault.append_daily("Mom's new dentist is Dr. Wu.", at=at(20, 9))  # (reads the dentists)
    vault.append_daily("Dana Whitaker is our vet.", at=at(20, 10))  # her own fact changes
    vault.append_daily("Our new dentist is Ravi Menon.", at=at(20, 11))  # none to retire now
    record = beat(vault, 20)
    assert (record.failed, record.error) == (0, None)
    assert current(vault, dana) == ["Dana Whitaker is the household's vet."]
    assert current(vault, ravi) == ["The household's new dentist is Ravi Menon."]
    assert current(vault, wu) == ["Mom's new dentist is Dr. Wu."]


def test_a_fact_of_the_user_s_kin_goes_to_whom_the_vault_knows_as_them(vault: Vault) -> None:
    vault.create_agent("care")
    let_write_global(vault.root, "care")
    vault.append_daily("My dad (Walter) moved into Maple Grove on Oct 1.", agent="care", at=at(2))
    vault.append_daily("User: remember my dad hates cilantro.", agent="care", at=at(2, 10))
    vault.append_daily("Dad's birthday is November 22.", agent="care", at=at(2, 11))
    vault.append_daily("My mom is allergic to shellfish.", agent="care", at=at(2, 12))
    vault.append_daily("Dad is allergic to penicillin.", agent="care", at=at(2, 13))
    record = beat(vault, 2)
    assert (record.failed, record.deferred) == (0, 0)
    assert current(vault, person("walter")) == [
        "Walter is the user's dad.",
        "Walter moved into Maple Grove on Oct 1, 2026.",
        "The user's dad hates cilantro.",
        "Dad's birthday is November 22.",  # "Dad" as a name: the one who is the user's dad
        "Dad is allergic to penicillin.",
    ]
    me = layout.EntityRef("care", layout.USER_ENTITY)  # no one known as the user's mom
    assert current(vault, me) == ["The user's mom is allergic to shellfish."]


def test_two_known_as_the_user_s_one_kin_leave_the_fact_with_the_user(vault: Vault) -> None:
    for name in ("walter", "walt-senior"):
        ref = vault_person(vault, name)
        vault.add_fact(ref, f"{name.title()} is the user's dad.", "relationship")
    vault.append_daily("My dad hates cilantro.", at=at(3))
    assert beat(vault, 3).written == 1
    assert current(vault, layout.EntityRef(None, layout.USER_ENTITY)) == [
        "The user's dad hates cilantro."
    ]


def test_another_agent_s_private_facts_are_neither_retired_nor_followed(vault: Vault) -> None:
    for agent in ("care", "health"):
        vault.create_agent(agent)
    let_write_global(vault.root, "care")
    theirs, walter = person("dr-okafor", "health"), person("walter", "health")
    for ref, fact in ((theirs, "Leila's neurologist is Dr. Okafor."),
                      (walter, "Walter is the user's dad.")):  # fmt: skip
        vault.create_entity(ref)
        vault.add_fact(ref, fact, "relationship")
    vault.create_entity(person("dr-brandt"))
    vault.append_daily("Leila's new neurologist is Dr. Brandt.", agent="care", at=at(20))
    vault.append_daily("My dad hates cilantro.", agent="care", at=at(20, 10))
    record = beat(vault, 20)
    assert (record.written, record.superseded, record.failed) == (2, 0, 0)
    assert current(vault, theirs) == ["Leila's neurologist is Dr. Okafor."]
    assert current(vault, walter) == ["Walter is the user's dad."]
    assert current(vault, person("dr-brandt")) == ["Leila's new neurologist is Dr. Brandt."]
    me = layout.EntityRef("care", layout.USER_ENTITY)  # its own Me: Walter is not its to know
    assert current(vault, me) == ["The user's dad hates cilantro."]
