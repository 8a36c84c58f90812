"""An explicit request to remember is always kept as a fact (issue 29): whatever its
phrasing and case, after a speaker prefix ("User:", "**Maya**:", a recorded chat turn,
a LoCoMo turn), routed to the entity it names when it names one, else to the agent's
own workspace (`resources/remembered`), never deferred; and with the LLM extractor too."""

from __future__ import annotations

import datetime as dt

import pytest

from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import extraction, routing, rules, runlog, runs

DAY = dt.date(2026, 11, 20)
NOW = dt.datetime(2026, 11, 21, 12, 0).astimezone()
MARIA = layout.EntityRef.parse("areas/people/maria")
OWN = layout.EntityRef.parse("agent:household:resources/remembered")


def at(hh: int, mm: int = 0) -> dt.datetime:
    return dt.datetime.combine(DAY, dt.time(hh, mm)).astimezone()


def beat(vault: Vault, extractor: extraction.Extractor | None = None) -> runlog.RunRecord:
    return runs.run_heartbeat(
        vault.root, runner="cli", trigger="once", extractor=extractor, now=NOW
    )


def active(vault: Vault, ref: layout.EntityRef) -> list[str]:
    return [f.fact for f in vault.entity(ref).facts if f.is_active]


def entry(text: str, agent: str | None = "household") -> extraction.Entry:
    where = f"agents/{agent}/daily" if agent else "global/daily"
    return extraction.Entry(
        path=f"{where}/{DAY}.md", date=DAY, time="09:00:00", text=text, agent=agent
    )


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("User: Remember that the recycling pickup moved to Thursdays.",
         "The recycling pickup moved to Thursdays."),
        ("remember the recycling pickup moved to Thursdays",
         "The recycling pickup moved to Thursdays."),
        ("REMEMBER: the recycling pickup moved to Thursdays.",
         "The recycling pickup moved to Thursdays."),
        ("**Maya**: Don't forget that the spare key is under the blue pot.",
         "The spare key is under the blue pot."),
        ("**user** (chat 42): Please note that the gate code is 4512.",
         "The gate code is 4512."),
        ("Keep in mind the dishwasher needs the eco tab.",
         "The dishwasher needs the eco tab."),
        ("**Melanie** (D14:4): Remember that I signed up for a pottery class.",
         "Melanie signed up for a pottery class."),
        ("User: remember I prefer window seats.", "The user prefers window seats."),
        # a remember before a dash or a comma is the request, not a lead to skip
        ("**Maya** (D2:3): Remember - I'm allergic to penicillin.",
         "Maya is allergic to penicillin."),
        ("**Maya** (D2:4): Remember, my locker code is 4411.", "Maya's locker code is 4411."),
        # asked as a question or a wish, as people ask assistants
        ("User: could you remember that Lisa is vegan?", "Lisa is vegan."),
        ("User: Can you please note that the gate code is 4512?", "The gate code is 4512."),
        ("User: I'd like you to remember that Theo is allergic to cats.",
         "Theo is allergic to cats."),
        ("User: make sure you remember that the bins go out on Mondays.",
         "The bins go out on Mondays."),
        # as people ask an assistant that has a memory
        ("User: Remember this: the spare key is under the blue pot.",
         "The spare key is under the blue pot."),
        ("User: remember this - the spare key is under the blue pot",
         "The spare key is under the blue pot."),
        ("User: From now on, remember that I take my coffee black.",
         "The user takes their coffee black."),
        ("User: Save to memory that I'm allergic to penicillin.",
         "The user is allergic to penicillin."),
        ("User: Add to your memory: Theo's school is Park Lane Primary.",
         "Theo's school is Park Lane Primary."),
        ("User: Memorize that the gate code is 4512.", "The gate code is 4512."),
        ("User: For future reference, the gate code is 4512.", "The gate code is 4512."),
        # when the one asked does something: what the person is stands without it
        ("User: Don't forget I'm lactose intolerant when you suggest recipes.",
         "The user is lactose intolerant."),
        ("Remember that Maria is vegan if you cook for the party.", "Maria is vegan."),
        # the request after the fact
        ("User: I'm left-handed, keep that in mind when you suggest tools.",
         "The user is left-handed."),
        ("User: My passport expires in June 2027 - please remember that!",
         "The user's passport expires in June 2027."),
        ("User: The gate code is 4512, don't forget.", "The gate code is 4512."),
        ("User: Priya is vegetarian, so remember that when you plan meals.",
         "Priya is vegetarian."),
    ],
)  # fmt: skip
def test_every_phrasing_is_one_explicit_candidate(text: str, fact: str) -> None:
    found = rules.candidates(entry(text))
    assert [(c.fact, c.explicit) for c in found] == [(fact, True)]


def test_an_instruction_keeps_its_when() -> None:
    found = rules.candidates(entry("User: Always text me when you're running late."))
    assert [c.fact for c in found] == ["Always text the user when you're running late."]


def test_an_assistant_turn_is_not_the_user_asking() -> None:
    assert rules.candidates(entry("**assistant**: I will remember that you like tea.")) == []


@pytest.mark.parametrize(
    "text",
    [
        "**Gina** (D19:12): Remember Jon, Just do it!",
        "**Gina** (D10:10): Don't forget, believe in yourself and your abilities.",
        "**Maya**: Remember, always trust your gut on these things.",
        "User: remember to stay positive this week, okay.",
        "**Gina** (D5:11): And remember, I'm always here for you.",  # an offer
        "**Gina** (D4:2): Can you remember when we went to Paris?",  # a question
        "User: Could you remember to call me?",  # a task, not a fact
        "**Jon** (D3:3): Remember this, you can do anything.",
        "User: Remember this place?",
    ],
)
def test_advice_to_the_person_spoken_to_is_no_request_to_remember(text: str) -> None:
    assert not any(c.explicit for c in rules.candidates(entry(text)))


def test_a_remember_of_where_the_user_is_is_still_one() -> None:
    (found,) = rules.candidates(entry("User: Remember, I'm here until Friday at the lake house."))
    assert found.explicit and found.fact == "The user is here until Friday at the lake house."


def test_a_remember_opening_with_a_name_or_a_noun_is_still_one() -> None:
    (found,) = rules.candidates(entry("**Gina**: Remember, Jon starts at the studio on Monday."))
    assert found.explicit and found.fact.startswith("Jon starts at the studio")
    (found,) = rules.candidates(entry("User: remember, keys are under the blue pot."))
    assert found.explicit


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("User: Remember that my sister Ana lands on Friday.",
         ["Ana is the user's sister.", "Ana lands on 2026-11-27."]),
        ("User: remember that my brother Tom's flight is at 6.",
         ["Tom is the user's brother.", "Tom's flight is at 6."]),
        ("User: remember that my daughter is named Maya and she is 7.",
         ["Maya is the user's daughter.", "Maya is 7."]),
    ],
)  # fmt: skip
def test_a_remember_about_someone_named_with_their_role_keeps_what_was_asked(
    text: str, facts: list[str]
) -> None:
    """Before, the role was kept ("Ana is the user's sister.") and what the person asked
    to remember was dropped as a one-off."""
    found = rules.candidates(entry(text))
    assert [(c.fact, c.explicit) for c in found] == [(f, True) for f in facts]


@pytest.mark.parametrize(
    ("note", "facts"),
    [
        ("User prefers Python for scripting.", ["The user prefers Python for scripting."]),
        ("The user's sister Ana lives in Porto.",
         ["Ana is the user's sister.", "Ana lives in Porto."]),
        ("User's daughter is named Maya and she is 7.",
         ["Maya is the user's daughter.", "Maya is 7."]),
        ("Is vegetarian.", ["The user is vegetarian."]),
        ("Studies law at Coimbra.", ["The user studies law at Coimbra."]),
        ("User often travels to Spain for work.", ["The user often travels to Spain for work."]),
        ("Ana's birthday is May 3.", ["Ana's birthday is May 3."]),
    ],
)  # fmt: skip
def test_an_assistants_memory_note_is_kept_as_the_user_telling_it(
    note: str, facts: list[str]
) -> None:
    """ChatGPT's memory notes, imported as `**memory**` entries (`core.chat_exports`),
    name the user in the third person or not at all; they are read as the user saying it,
    and kept as asked."""
    found = rules.candidates(entry(f"**memory** (from ChatGPT: Trip): {note}", agent=None))
    assert [(c.fact, c.explicit) for c in found] == [(f, True) for f in facts]


def test_a_memory_note_goes_where_a_remember_goes(vault: Vault) -> None:
    vault.create_agent("household")
    vault.append_daily(
        "**memory** (from ChatGPT: Bins): Bins go out on Wednesday nights.",
        agent="household",
        at=at(9),
    )
    record = beat(vault, _Nothing())  # kept with any extractor, as a remember is
    assert (record.written, record.deferred) == (1, 0)
    assert active(vault, OWN) == ["Bins go out on Wednesday nights."]


def test_a_plain_statement_is_not_explicit() -> None:
    (found,) = rules.candidates(entry("Maria prefers oat milk in her coffee."))
    assert not found.explicit


def test_a_remember_naming_nothing_goes_to_the_agents_own_workspace(vault: Vault) -> None:
    vault.create_agent("household")
    vault.append_daily(
        "User: Remember that the recycling pickup moved to Thursdays.", agent="household", at=at(9)
    )
    record = beat(vault)
    assert (record.entries, record.extracted, record.written, record.deferred) == (1, 1, 1, 0)
    assert active(vault, OWN) == ["The recycling pickup moved to Thursdays."]
    assert vault.entity(OWN).summary.text  # a titled entity the window lists


def test_a_remember_in_the_global_notes_goes_to_global_memory(vault: Vault) -> None:
    vault.append_daily("Remember that the water meter is read in March.", at=at(9))
    record = beat(vault)
    assert (record.written, record.deferred) == (1, 0)
    assert active(vault, routing.remembered_in(None)) == ["The water meter is read in March."]


def test_a_remember_naming_a_known_entity_goes_there(vault: Vault) -> None:
    vault.create_entity(MARIA)
    vault.append_daily("User: remember that Maria is allergic to kiwi.", at=at(9))
    assert beat(vault).written == 1
    assert active(vault, MARIA) == ["Maria is allergic to kiwi."]


def test_an_agents_remember_about_a_global_entity_waits_for_a_person(vault: Vault) -> None:
    """The agent may not write global memory: the access policy holds the fact for a
    person's review (approving it writes it there); it is not deferred."""
    vault.create_agent("household")
    vault.create_entity(MARIA)
    vault.append_daily(
        "User: remember that Maria is allergic to kiwi.", agent="household", at=at(9)
    )
    record = beat(vault)
    assert (record.held, record.deferred, record.written) == (1, 0, 0)


def test_a_remember_naming_someone_new_makes_them_at_once(vault: Vault) -> None:
    vault.append_daily("Remember that Dr. Okafor moved her practice to Elm Street.", at=at(9))
    record = beat(vault)
    assert (record.written, record.deferred, record.created) == (1, 0, 1)
    made = vault.resolve_reference("areas/people/dr-okafor", None)
    assert made is not None and active(vault, made) == [
        "Dr. Okafor moved her practice to Elm Street."
    ]
    # headed with the name as written, not its folder's ("Dr Okafor")
    assert vault.entity(made).summary.text.startswith("# Dr. Okafor\n")


def test_an_entity_made_for_a_name_with_accents_keeps_them(vault: Vault) -> None:
    vault.append_daily("Remember that Zoë Brontë is our new neighbor.", at=at(9))
    assert beat(vault).created == 1
    made = vault.resolve_reference("areas/people/zoe-bronte", None)
    assert made is not None and vault.entity(made).summary.text.startswith("# Zoë Brontë\n")


def test_a_remember_naming_a_things_make_goes_to_remembered(vault: Vault) -> None:
    """ "the Babyletto Hudson", after an article, is a crib's make, not someone to make a
    person of (a blind probe made areas/people/babyletto-hudson)."""
    vault.append_daily(
        "User: Remember that the crib we ordered is the Babyletto Hudson, it arrives April 20.",
        at=at(9),
    )
    record = beat(vault)
    assert (record.written, record.deferred, record.created) == (1, 0, 1)  # Remembered made
    assert active(vault, routing.remembered_in(None)) == [
        "The crib the household ordered is the Babyletto Hudson, it arrives April 20, 2027."
    ]  # told on 2026-11-20: the April to come, though "ordered" is past
    assert vault.resolve_reference("areas/people/babyletto-hudson", None) is None


class _Nothing:
    """An extractor (as an LLM that missed it) that finds no fact at all."""

    name = "llm:nothing"

    def extract(self, entries: list[extraction.Entry]) -> extraction.Extraction:
        return extraction.Extraction()


def test_a_remember_is_kept_when_the_extractor_misses_it(vault: Vault) -> None:
    vault.create_agent("household")
    vault.append_daily(
        "user: Remember that bins go out on Wednesday nights.", agent="household", at=at(9)
    )
    record = beat(vault, _Nothing())
    assert record.written == 1
    assert active(vault, OWN) == ["Bins go out on Wednesday nights."]
