"""The rules across clauses: an age reached, "she" after a semicolon, two clauses on one
person cut in two, a reason before what one does, and a turn's "too" (issue 29)."""

from __future__ import annotations

import datetime as dt

import pytest

from vault_app.core import models
from vault_app.heartbeat import extraction as model
from vault_app.heartbeat import rules

ON = dt.date(2026, 11, 20)  # a Friday
Cat = models.FactCategory


def _entry(text: str) -> model.Entry:
    return model.Entry(path=f"global/daily/{ON}.md", date=ON, time="09:00:00", text=text)


def _made(text: str) -> list[tuple[str, Cat, str | None]]:
    return [(c.fact, c.category, c.entity) for c in rules.candidates(_entry(text))]


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # an age reached is a milestone, however few its words
        ("User: I turned 41 today.", "The user turned 41 on 2026-11-20.", None),
        ("User: I just turned forty-one yesterday.",
         "The user just turned forty-one on 2026-11-19.", None),
        ("**Maya** (D1:1): I turned 30 last Friday.", "Maya turned 30 on 2026-11-13.", "Maya"),
        ("Theo turned eight on Saturday.", "Theo turned eight on 2026-11-14.", "Theo"),
        # and one to come
        ("Theo turns 8 on Saturday.", "Theo turns 8 on 2026-11-21.", "Theo"),
        ("User: I'm turning 30 tomorrow!", "The user is turning 30 on 2026-11-21.", None),
    ],
)  # fmt: skip
def test_an_age_reached_is_a_milestone(text: str, fact: str, entity: str | None) -> None:
    assert _made(text) == [(fact, Cat.MILESTONE, entity)]


@pytest.mark.parametrize("text", ["The milk turned sour.", "User: I turned the heater off."])
def test_turning_something_else_is_no_age(text: str) -> None:
    assert all(c.category is not Cat.MILESTONE for c in rules.candidates(_entry(text)))


def test_she_after_a_semicolon_is_the_one_just_named() -> None:
    made = _made("Our accountant is Priya Nair at Nair & Co; she needs the 1099s by January 31.")
    assert made == [
        ("The household's accountant is Priya Nair at Nair & Co.", Cat.RELATIONSHIP, "Priya Nair"),
        ("Priya Nair needs the 1099s by January 31, 2027.", Cat.MILESTONE, "Priya Nair"),
    ]


def test_his_after_a_semicolon_is_the_one_just_named() -> None:
    made = _made("Leo's best friend is Sam Ortiz; his mom Carla does the carpool on Fridays.")
    assert [(fact, entity) for fact, _cat, entity in made] == [
        ("Leo's best friend is Sam Ortiz.", "Sam Ortiz"),
        ("Carla is Sam Ortiz's mom.", "Carla"),
        ("Carla does the carpool on Fridays.", "Carla"),
    ]


def test_two_clauses_on_one_person_are_two_facts() -> None:
    made = _made("Grandma Rose lives in Tucson and her landline is the best way to reach her.")
    # where she lives stands alone; "the best way to reach her" needs more: no fact
    assert made == [("Grandma Rose lives in Tucson.", Cat.CONTEXT, "Grandma Rose")]
    made = _made("Jordan hates cilantro, and he loves lemon in everything.")
    assert [fact for fact, _cat, _entity in made] == [
        "Jordan hates cilantro.",
        "Jordan loves lemon in everything.",
    ]


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # the second clause too short to stand, or its "he" someone the first one needs
        ("My daughter is named Maya and she is 7.", "Maya is the user's daughter."),
        ("User: I just got a new puppy named Rex and he keeps chewing shoes. Any tips?",
         "The user just got a new puppy named Rex and he keeps chewing shoes."),
    ],
)  # fmt: skip
def test_a_clause_that_needs_the_other_stays_with_it(text: str, fact: str) -> None:
    assert [made[0] for made in _made(text)][:1] == [fact]


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # what one is, told as the reason for what one does: both kept, each alone
        ("**Joanna** (D20:10): Yeah, since I'm lactose intolerant I'm trying out dairy-free "
         "options like almond milk instead.",
         ["Joanna is lactose intolerant.",
          "Joanna is trying out dairy-free options like almond milk instead."]),
        ("User: Since I'm vegetarian, I cook a lot of lentils.",
         ["The user is vegetarian.", "The user cooks a lot of lentils."]),
        # a reason of the moment goes; what one did stays
        ("**Tim** (D1:1): Because my knee hurts, I stopped running for a month.",
         ["Tim stopped running for a month."]),
        ("**Tim** (D1:1): As I said, I love the mountains of Colorado.",
         ["Tim loves the mountains of Colorado."]),
    ],
)  # fmt: skip
def test_a_reason_before_what_one_does_is_a_fact_of_its_own(text: str, facts: list[str]) -> None:
    assert [fact for fact, _cat, _entity in _made(text)] == facts


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # a turn's last "too" is "like you": the fact stands without it
        ("**Melanie** (D7:18): Just got some new shoes, too!", "Melanie just got some new shoes."),
        ("**Tim** (D20:20): I love hiking in the Alps as well.", "Tim loves hiking in the Alps."),
    ],
)  # fmt: skip
def test_a_turns_last_too_is_left_out(text: str, fact: str) -> None:
    assert [made[0] for made in _made(text)] == [fact]


@pytest.mark.parametrize(
    "text",
    [  # "too" after nothing of its own, or what it is said in another turn
        "**Tim** (D1:1): I do too.",
        "**Tim** (D1:1): I have been there too.",
        "**Joanna** (D1:1): I've been working on something exciting too.",
        "**Tim** (D1:1): I'm starting some big new things too!",
    ],
)
def test_a_too_that_needs_the_other_turn_is_no_fact(text: str) -> None:
    assert _made(text) == []


def test_a_plan_under_consideration_is_a_fact() -> None:
    text = "**John** (D9:6): I'm considering going into policymaking because of my degree."
    assert [fact for fact, _cat, _entity in _made(text)] == [
        "John is considering going into policymaking because of their degree."
    ]
    assert _made("User: Maybe we could get solar panels next year.") == []  # still a hedge


def test_an_activity_that_is_the_subject_gets_no_i_put_back() -> None:
    # "Thinking about…" with "me" after it is what the thinking does to the speaker
    assert _made("**John** (D2:2): Thinking about the possibilities pumps me up.") == []
    made = _made("**John** (D2:2): Thinking about moving to Denver next year with my family.")
    assert [fact for fact, _cat, _entity in made] == [
        "John is thinking about moving to Denver in 2027 with their family."
    ]


@pytest.mark.parametrize(
    "text",
    [  # what it is, or what "it" is, another turn says
        "**Joanna** (D12:2): Hey Nate! Just finished something - pretty wild journey!",
        "**John** (D18:12): I love how uncomplicated it is.",
    ],
)
def test_what_needs_another_turn_to_say_what_it_is_is_no_fact(text: str) -> None:
    assert _made(text) == []


def test_something_new_told_after_a_dash_is_a_fact() -> None:
    made = _made("**Tim** (D1:1): Last week I tackled something new - I gave a talk in class.")
    assert [fact for fact, _cat, _entity in made] == [
        "In the week of 2026-11-09 Tim tackled something new - they gave a talk in class."
    ]


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # a month with no day: when a named one's event happens or is due, of which year
        ("Clara starts at the university hospital in January.",
         "Clara starts at the university hospital in January 2027.", "Clara"),
        ("Priya Shah needs the donation receipts by the end of January.",
         "Priya Shah needs the donation receipts by the end of January.", "Priya Shah"),
        ("Maya will visit Grandma in June.", "Maya will visit Grandma in June 2027.", "Maya"),
    ],
)  # fmt: skip
def test_a_month_with_no_day_dates_a_milestone(text: str, fact: str, entity: str) -> None:
    assert _made(text) == [(fact, Cat.MILESTONE, entity)]


def test_a_month_that_is_no_time_makes_no_milestone() -> None:
    assert _made("Jordan loves May in Paris.") == [
        ("Jordan loves May in Paris.", Cat.PREFERENCE, "Jordan")
    ]


def test_work_done_on_the_house_in_a_season_is_a_status() -> None:
    made = _made("Elena Ruiz is our electrician. She upgraded the panel last spring.")
    assert made[1:] == [
        ("Elena Ruiz upgraded the panel in the spring of 2026.", Cat.STATUS, "Elena Ruiz")
    ]


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # a second clause that leaves its subject out is of the one the sentence opens on
        ("Helen is Alex's mother. She lives forty minutes away and can take the kids on "
         "Thursdays.",
         ["Helen is Alex's mother.", "Helen lives forty minutes away.",
          "Helen can take the kids on Thursdays."]),
        ("Rosa Mendes cleans on Thursdays and always brings her own supplies.",
         ["Rosa Mendes cleans on Thursdays.", "Rosa Mendes always brings her own supplies."]),
        # not when what it opens on is a thing, or someone's
        ("The boiler is old and can't be fixed anymore.",  # one fact, not "The can't…"
         ["The boiler is old and can't be fixed anymore."]),
        ("Maya's teacher is strict and will call on Monday.",
         ["Maya's teacher is strict and will call on 2026-11-23."]),
    ],
)  # fmt: skip
def test_a_second_clause_without_its_subject(text: str, facts: list[str]) -> None:
    assert [fact for fact, _cat, _entity in _made(text)] == facts


@pytest.mark.parametrize(
    ("text", "entity"),
    [  # who has a way in (who has access, never the access itself)
        ("Rosa Mendes has a key to the side door.", "Rosa Mendes"),
        ("Greg keeps a spare key for emergencies.", "Greg"),
        ("Helen has the garage remote.", "Helen"),
    ],
)
def test_who_holds_a_key_is_a_fact_of_theirs(text: str, entity: str) -> None:
    assert _made(text) == [(text, Cat.CONTEXT, entity)]


@pytest.mark.parametrize(
    ("text", "category"),
    [  # how it stands from now on
        ("Greg can't do weekdays anymore.", Cat.STATUS),
        ("Maya made the school chess team!", Cat.STATUS),
        # a choice made
        ("Alex chose the full roof replacement.", Cat.STATUS),
        ("We went with Summit Roofing for the roof.", Cat.STATUS),
        ("**Tim** (D1:1): I don't play piano anymore.", Cat.STATUS),
    ],
)
def test_what_is_no_more_or_newly_so_is_a_status(text: str, category: Cat) -> None:
    assert [cat for _fact, cat, _entity in _made(text)] == [category]


def test_what_one_cannot_take_anymore_is_a_feeling() -> None:
    assert _made("User: I can't take it anymore.") == []


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # an explicit request to remember is kept as asked, whole
        ("User: Remember, since I'm vegetarian I cook a lot of lentils.",
         "Since the user is vegetarian they cook a lot of lentils."),
        ("Remember that Helen lives forty minutes away and can take the kids on Thursdays.",
         "Helen lives forty minutes away and can take the kids on Thursdays."),
    ],
)  # fmt: skip
def test_a_request_to_remember_is_not_cut(text: str, fact: str) -> None:
    made = rules.candidates(_entry(text))
    assert [(c.fact, c.explicit) for c in made] == [(fact, True)]


@pytest.mark.parametrize(
    ("text", "facts", "entity"),
    [  # what one's family likes, or cannot eat, is kept: of the one who tells it
        ("User: My wife is allergic to shellfish.",
         ["The user's wife is allergic to shellfish."], None),
        ("My dad likes golf but hates tennis.",
         ["The user's dad likes golf.", "The user's dad hates tennis."], None),
        ("Our son hates broccoli.", ["The household's son hates broccoli."], None),
        ("**Maya** (D1:2): My dad loves fishing.", ["Maya's dad loves fishing."], "Maya"),
    ],
)  # fmt: skip
def test_a_relative_s_preference_is_kept(text: str, facts: list[str], entity: str | None) -> None:
    made = rules.candidates(_entry(text))
    assert [c.fact for c in made] == facts
    assert {(c.category, c.entity) for c in made} == {(Cat.PREFERENCE, entity)}
    assert all(c.about_user == (entity is None and "My" in text) for c in made)


@pytest.mark.parametrize("text", ["User: My wife loves it!", "My friend loves that place."])
def test_a_relative_s_liking_of_what_is_around_is_no_fact(text: str) -> None:
    assert rules.candidates(_entry(text)) == []


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # a title closing a sentence keeps its quotes, and no second stop is added
        ('**Gina** (D1:19): We just did a piece called "Finding Freedom." It was powerful.',
         'Gina just did a piece called "Finding Freedom."'),
        ('User: My favorite book is "The Hobbit." I read it every year.',
         'The user\'s favorite book is "The Hobbit."'),
    ],
)  # fmt: skip
def test_a_quoted_title_at_a_sentence_end_keeps_its_quotes(text: str, fact: str) -> None:
    assert _made(text)[0][0] == fact


def test_a_noun_after_and_is_not_a_second_liking() -> None:
    made = _made("Melanie loves the self-acceptance and love theme.")
    assert [fact for fact, _cat, _entity in made] == [
        "Melanie loves the self-acceptance and love theme."
    ]


def test_one_and_i_doing_a_thing_together_is_a_fact_naming_both() -> None:
    made = _made("**John** (D12:9): My colleagues and I went to a convention together last month.")
    assert [fact for fact, _cat, _entity in made] == [
        "John and their colleagues went to a convention together in October 2026."
    ]


@pytest.mark.parametrize(
    "text",
    ["**Jon** (D1:1): We can do it together!", "**Maria** (D1:1): Working together would be fun!"],
)
def test_together_as_encouragement_is_no_fact(text: str) -> None:
    assert _made(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "**Tim** (D10:9): By the way, I'm planning a trip there next month.",
        "**Joanna** (D16:11): I'm going to make it for my family this weekend.",
    ],
)
def test_a_place_or_a_thing_only_pointed_at_is_no_fact(text: str) -> None:
    assert _made(text) == []


def test_a_thing_shown_and_named_is_kept() -> None:
    made = _made("**Melanie** (D1:1): I made this bowl in my pottery class last week.")
    assert [fact for fact, _cat, _entity in made] == [
        "Melanie made this bowl in their pottery class in the week of 2026-11-09."
    ]


def test_a_past_told_without_its_i_gets_it_back() -> None:
    made = _made("**Jon** (D1:2): Lost my job as a banker yesterday, so I'm starting a business.")
    assert made[0][0].startswith("Jon lost their job as a banker on 2026-11-19")


def test_a_noun_made_with_love_is_no_second_liking_in_the_first_person() -> None:
    made = _made("**Melanie** (D11:13): I love the self-acceptance and love theme.")
    assert [fact for fact, _cat, _entity in made] == [
        "Melanie loves the self-acceptance and love theme."
    ]
    two = _made("**Melanie** (D1:1): I love hiking and love swimming.")
    assert [fact for fact, _cat, _entity in two] == [
        "Melanie loves hiking.",
        "Melanie loves swimming.",
    ]


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # an instrument or a sport one plays is said in few words; "started" needs an object
        ("**Melanie** (D15:26): Yeah, I play clarinet! Started when I was young and it's "
         "been great.", ["Melanie plays clarinet."]),
        ("**Melanie** (D15:27): Started pottery classes in May.",
         ["Melanie started pottery classes in May 2026."]),
    ],
)  # fmt: skip
def test_what_one_plays_and_what_one_started(text: str, facts: list[str]) -> None:
    assert [fact for fact, _cat, _entity in _made(text)] == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # a liking of "the …" after a word on what the other showed is of that, not theirs
        ("**Nate** (D10:10): That looks really good! I love the way the frosting turned out!",
         []),
        ("**Caroline** (D16:3): Melanie, that photo's amazing! I love all the yellow leaves.",
         []),
        # a wish that ends pointing at what another turn said is no fact either
        ("**John** (D17:9): He taught us loyalty. I want my kids to learn that too.", []),
        # what one likes, said for itself, is kept
        ("**John** (D3:23): Thanks! Can't wait for the seafood too. I love the ocean.",
         ["John loves the ocean."]),
        ("**Joanna** (D15:5): Wow, Nate! That's awesome. I love the tech and funny jokes of "
         "Iron Man too.", ["Joanna loves the tech and funny jokes of Iron Man."]),
    ],
)  # fmt: skip
def test_a_liking_of_what_was_shown_is_no_preference(text: str, facts: list[str]) -> None:
    assert [fact for fact, _cat, _entity in _made(text)] == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # a name in "-s" whose verb agrees with one is a name; a plural noun is none
        ("Jess works at Google.", [("Jess works at Google.", Cat.CONTEXT, "Jess")]),
        ("Thomas has asthma.", [("Thomas has asthma.", Cat.CONTEXT, "Thomas")]),
        ("Lucas loves pizza.", [("Lucas loves pizza.", Cat.PREFERENCE, "Lucas")]),
        ("Class starts at 9 on Mondays.", []),
        ("Groceries came in at $910 for September.",
         [("Groceries came in at $910 for September.", Cat.STATUS, None)]),
    ],
)  # fmt: skip
def test_a_name_ending_in_s(text: str, facts: list[tuple[str, Cat, str | None]]) -> None:
    assert _made(text) == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # "she" after one's kin is them, across a comma or a stop; one's own thing after a
        # comma is a fact of its own, however the sentence opened
        ("User: My sister lives in Leeds, she works at the BBC.",
         ["The user's sister lives in Leeds.", "The user's sister works at the BBC."]),
        ("User: My sister lives in Leeds. She works at the BBC.",
         ["The user's sister lives in Leeds.", "The user's sister works at the BBC."]),
        ("User: I met Jess at uni. She works at the BBC.",
         ["The user met Jess at uni.", "Jess works at the BBC."]),
        ("User: Saw Dr. Feldman yesterday, my A1C is 6.8, she wants it under 6.5.",
         ["The user's A1C is 6.8."]),
        ("Took Pepper to the vet today, she's 11 now and has early kidney disease.",
         ["Pepper is 11 now.", "Pepper has early kidney disease."]),
        # what a fact of another means for the writer, after ", so": a sentence of its own;
        # what one does it for ("so I could…") stays with it
        ("User: Jordan is traveling to Chicago Dec 8-11 for work, so I'm on school runs.",
         ["Jordan is traveling to Chicago Dec 8-11, 2026 for work."]),
        ("User: My wife is lactose intolerant, so we're cooking vegan at home now.",
         ["The user's wife is lactose intolerant.", "The household is cooking vegan at home now."]),
        ("User: I moved to Leeds, so I could be near my mum.", ["The user moved to Leeds."]),
        # the writer's next deed, its "I" left out: theirs too
        ("User: I'm 42 now, had my birthday yesterday.",
         ["The user is 42 now.", "The user had their birthday on 2026-11-19."]),
        ("User: I'm 41, I live in Denver, I work at Kaiser.",
         ["The user is 41.", "The user lives in Denver.", "The user works at Kaiser."]),
    ],
)  # fmt: skip
def test_she_after_ones_kin_and_ones_own_thing_after_a_comma(text: str, facts: list[str]) -> None:
    assert [fact for fact, _, _ in _made(text)] == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # what one is, however few its words, and each of two such clauses a fact of its own
        ("User: I'm a nurse.", ["The user is a nurse."]),
        ("User: I work nights.", ["The user works nights."]),
        ("User: I work as a high school teacher.",
         ["The user works as a high school teacher."]),
        ("User: I'm a nurse and I work nights.",
         ["The user is a nurse.", "The user works nights."]),
        ("**Maya** (D2:3): I'm vegetarian and my husband is vegan.",
         ["Maya is vegetarian.", "Maya's husband is vegan."]),
    ],
)  # fmt: skip
def test_what_one_is_is_a_fact_however_short(text: str, facts: list[str]) -> None:
    assert [fact for fact, _, _ in _made(text)] == facts


@pytest.mark.parametrize("text", ["User: I'm a mess.", "User: I'm a nurse?", "User: I work."])
def test_a_short_clause_that_says_no_identity_is_no_fact(text: str) -> None:
    assert _made(text) == []
