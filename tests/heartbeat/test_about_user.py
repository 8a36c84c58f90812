"""A fact of the person the notes speak for goes to their own entity, "Me" (issue 29):
"I prefer window seats" in the global notes, what a person told ChatGPT of themselves in an
imported chat. Before, it named no entity and stayed deferred in the notes for ever — so
months of imported conversation gave no fact about the one person they were about.

Variants thought of: the global notes' go to the global `areas/me`, an agent's to its own
(the policy lets an agent write there); a fact that also names someone known stays
about the person ("I work at St. Mary's" is the user's, not St. Mary's); a named speaker's
first person is that speaker, never "Me"; a model's "the user …" fact goes there too;
"we" in a note is the household, not the person — but a person's own "we" to an assistant
("We have about $40k in savings") is their household's, kept with them."""

from __future__ import annotations

import datetime as dt

from tests.grants import let_write_global
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import extraction, routing, runlog, runs

DAY = dt.date(2026, 11, 20)
NOW = dt.datetime(2026, 11, 21, 12, 0).astimezone()
ME = layout.EntityRef.parse("areas/me")


def at(hh: int) -> dt.datetime:
    return dt.datetime.combine(DAY, dt.time(hh)).astimezone()


def beat(vault: Vault, extractor: extraction.Extractor | None = None) -> runlog.RunRecord:
    return runs.run_heartbeat(
        vault.root, runner="cli", trigger="once", extractor=extractor, now=NOW
    )


def active(vault: Vault, ref: layout.EntityRef) -> list[str]:
    return sorted(f.fact for f in vault.entity(ref).facts if f.is_active)


def test_the_global_notes_facts_about_the_person_go_to_me(vault: Vault) -> None:
    vault.append_daily("User: I prefer window seats on long flights.", at=at(9))
    vault.append_daily(
        "**user** (from ChatGPT: Sleep): I work night shifts as a nurse at St. Mary's."
        " Any advice for sleeping during the day?",
        at=at(10),
    )
    record = beat(vault)
    assert (record.written, record.deferred, record.created) == (2, 0, 1)
    assert active(vault, ME) == [
        "The user prefers window seats on long flights.",
        "The user works night shifts as a nurse at St. Mary's.",
    ]
    summary = vault.entity(ME).summary.text  # listed as "Me" in the window, and said why
    assert summary.startswith("# Me\n\nWhat the notes tell of you:")


def test_an_agents_notes_keep_them_in_its_own_workspace(vault: Vault) -> None:
    vault.create_agent("household")
    vault.append_daily("User: I prefer oat milk in my coffee.", agent="household", at=at(9))
    assert beat(vault).written == 1
    assert active(vault, routing.user_entity_in("household")) == [
        "The user prefers oat milk in their coffee."
    ]
    assert not vault.paths.holds_entity(ME)  # the agent does not write the global graph


def test_each_agents_me_is_its_own_and_passes_the_policy(vault: Vault) -> None:
    """The heartbeat acts for the agent whose note it reads (`_allowed` asks the access
    policy): one agent's Me is never another's, nor the global one — even for an agent
    that may write global memory."""
    vault.create_agent("household")
    vault.create_agent("finance")
    let_write_global(vault.root, "finance")
    vault.append_daily("User: I prefer oat milk in my coffee.", agent="household", at=at(9))
    vault.append_daily("User: I prefer paying bills on the first.", agent="finance", at=at(10))
    assert beat(vault).written == 2
    assert active(vault, routing.user_entity_in("household")) == [
        "The user prefers oat milk in their coffee."
    ]
    assert active(vault, routing.user_entity_in("finance")) == [
        "The user prefers paying bills on the first."
    ]
    assert not vault.paths.holds_entity(ME)


def test_a_named_speaker_or_the_household_is_not_me(vault: Vault) -> None:
    vault.append_daily("**Jon** (D1:1): I have been working at Acme as a designer since 2019.",
                       at=at(9))  # fmt: skip
    vault.append_daily("We moved to Porto in 2021.", at=at(10))
    record = beat(vault)
    assert not vault.paths.holds_entity(ME)
    assert record.written == 0  # Jon and Porto are named once: they wait for a third


def test_a_persons_own_we_to_an_assistant_is_kept_with_them(vault: Vault) -> None:
    vault.append_daily(
        "**user** (from ChatGPT: Mortgage): We owe about 310k at 6.8% and have 27 years left."
        " Should we refinance?",
        at=at(9),
    )
    vault.append_daily("User: Our credit scores are around 760 and 745.", at=at(10))
    record = beat(vault)
    assert (record.written, record.deferred) == (2, 0)
    assert active(vault, ME) == [
        "The household owes about 310k at 6.8% and has 27 years left.",
        "The household's credit scores are around 760 and 745.",
    ]


class _Model:
    """An extractor (as a model answers) that writes of "the user" and names no entity."""

    name = "llm:test"

    def extract(self, entries: list[extraction.Entry]) -> extraction.Extraction:
        return extraction.Extraction(
            [extraction.Candidate("The user is vegetarian.", extraction.models.FactCategory
                                  .CONTEXT, entry) for entry in entries]
        )  # fmt: skip


def test_a_models_fact_of_the_user_goes_there_too(vault: Vault) -> None:
    vault.append_daily("**user** (from ChatGPT: Meals): I'm vegetarian, plan my week.", at=at(9))
    assert beat(vault, _Model()).written == 1
    assert active(vault, ME) == ["The user is vegetarian."]


def test_standing_instructions_and_short_disclosures_go_to_me(vault: Vault) -> None:
    vault.append_daily("User: Please always use metric units.", at=at(9))
    vault.append_daily("User: I'm allergic to shellfish.", at=at(10))
    vault.append_daily("User: Don't ever call me before 9.", at=at(11))
    record = beat(vault)
    assert (record.written, record.deferred) == (3, 0)
    assert active(vault, ME) == [
        "Always use metric units.",
        "Don't ever call the user before 9.",
        "The user is allergic to shellfish.",
    ]


def test_the_person_named_by_the_name_they_gave_is_me(vault: Vault) -> None:
    """An agent's note says "Alex wants…" of the person it works for: once they said their
    name, that is them, in the agent's own Me — not a person entity made on the third
    mention. A name an entity answers to stays that entity's."""
    vault.create_agent("household")
    vault.create_entity(layout.EntityRef.parse("areas/people/jordan"))
    vault.append_daily("User: My name's Alex Rivera.", at=at(8))
    assert beat(vault).written == 1 and active(vault, ME) == ["The user's name is Alex Rivera."]
    for hour, note in enumerate(
        ["Alex wants the thermostat at 68 during the day.",
         "Alex Rivera prefers texts over calls."], start=9,
    ):  # fmt: skip
        vault.append_daily(note, agent="household", at=at(hour))
    vault.append_daily("Jordan works nights Monday to Wednesday.", at=at(11))
    record = runs.run_heartbeat(
        vault.root, runner="cli", trigger="once", extractor=None, now=NOW + dt.timedelta(hours=1)
    )
    assert (record.written, record.deferred, record.created) == (3, 0, 1)
    assert active(vault, routing.user_entity_in("household")) == [
        "Alex Rivera prefers texts over calls.",
        "Alex wants the thermostat at 68 during the day.",
    ]
    assert active(vault, layout.EntityRef.parse("areas/people/jordan")) == [
        "Jordan works nights Monday to Wednesday."
    ]
    assert not vault.paths.holds_entity(layout.EntityRef.parse("areas/people/alex"))


def test_a_name_told_in_the_same_run_is_known_at_once_and_never_anothers(vault: Vault) -> None:
    vault.create_entity(layout.EntityRef.parse("areas/people/sam-okafor"))
    vault.append_daily("User: My name is Sam Lee.", at=at(9))
    vault.append_daily("Sam Lee prefers window seats.", at=at(10))
    vault.append_daily("Sam Okafor prefers aisle seats.", at=at(11))
    assert beat(vault).written == 3
    assert active(vault, ME) == ["Sam Lee prefers window seats.", "The user's name is Sam Lee."]
    assert routing.user_name("The user's name is Sam Lee.") == "Sam Lee"
    assert routing.user_name("The user goes by Sam.") == "Sam"
    assert routing.user_name("The user's name is on the lease.") is None
