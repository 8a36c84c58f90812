"""The rules on what a household tells its agents in passing: what someone lives with,
what the house is made of, who holds an account, what a worker found, how often a thing
is done, and sentences of two clauses (issue 29; the extraction set's `fresh4` slice)."""

from __future__ import annotations

import datetime as dt

import pytest

from vault_app.core import models
from vault_app.heartbeat import extraction as model
from vault_app.heartbeat import rules

ON = dt.date(2026, 12, 16)  # a Wednesday
Cat = models.FactCategory


def _made(text: str) -> list[tuple[str, Cat, str | None]]:
    entry = model.Entry(path=f"global/daily/{ON}.md", date=ON, time="09:00:00", text=text)
    return [(c.fact, c.category, c.entity) for c in rules.candidates(entry)]


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # what someone lives with is theirs, for good
        ("User: Leo has a peanut allergy, so no nuts in anything you plan for his lunches.",
         "Leo has a peanut allergy.", "Leo"),
        ("My wife has type 1 diabetes.", "The user's wife has type 1 diabetes.", None),
        ("User: I have asthma.", "The user has asthma.", None),
        ("**Tim** (D1:1): I have asthma.", "Tim has asthma.", "Tim"),
        ("Jordan was diagnosed with high blood pressure.",
         "Jordan was diagnosed with high blood pressure.", "Jordan"),
    ],
)  # fmt: skip
def test_a_condition_someone_lives_with_is_a_fact(text: str, fact: str, entity: str) -> None:
    assert _made(text) == [(fact, Cat.CONTEXT, entity)]


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # what the house is made of or runs on, who holds what
        ("The kitchen drain line is cast iron.", "The kitchen drain line is cast iron.", None),
        ("Our stove is gas.", "The household's stove is gas.", None),
        ("Our checking account is with First Harbor Bank.",
         "The household's checking account is with First Harbor Bank.", "First Harbor Bank"),
        ("My phone plan is through Mint Mobile.",
         "The user's phone plan is through Mint Mobile.", "Mint Mobile"),
        # what a worker found is the fact, without who said it
        ("The plumber from Rivera Plumbing said the drain line is cast iron and will need "
         "replacing within five years.",
         "The drain line is cast iron and will need replacing within five years.", None),
        # how often a thing is done
        ("The furnace filter is a 16x25x1 MERV 11, changed every three months.",
         "The furnace filter is a 16x25x1 MERV 11, changed every three months.", None),
        ("The gutters get cleaned every six months.",
         "The gutters get cleaned every six months.", None),
        ("Greg is around most Saturdays.", "Greg is around most Saturdays.", "Greg"),
    ],
)  # fmt: skip
def test_what_a_thing_is_and_who_holds_it(text: str, fact: str, entity: str | None) -> None:
    assert _made(text) == [(fact, Cat.CONTEXT, entity)]


@pytest.mark.parametrize(
    "text",
    [
        "My brother is solid as a rock.",  # a person is made of no material
        "The kids are with Grandma Rose this weekend.",  # where they are now: no provider
        "The plumber thinks the drain line is cast iron.",  # a guess
        "The party was electric.",
    ],
)
def test_what_only_looks_like_a_material_or_a_provider_is_no_fact(text: str) -> None:
    assert all(cat is not Cat.CONTEXT or "electric" not in fact for fact, cat, _ in _made(text))
    assert not any("cast iron" in fact or "Grandma" in fact for fact, _cat, _ in _made(text))
    assert not any("solid" in fact for fact, _cat, _ in _made(text))


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # money in cents, and what someone charges or a plan gets
        ("We switched our electricity to Brightline Energy; the new rate is 14.2 cents per "
         "kWh.",
         [("The household switched their electricity to Brightline Energy.", Cat.STATUS,
           "Brightline Energy"),
          ("The new rate is 14.2 cents per kWh.", Cat.STATUS, None)]),
        ("The 529 plan for Leo gets $200 on the 15th of each month.",
         [("The 529 plan for Leo gets $200 on the 15th of each month.", Cat.STATUS, "Leo")]),
        # a check-up with a day is a milestone
        ("Biscuit had his annual checkup at Oak Hill Vet today, all clear.",
         [("Biscuit had his annual checkup at Oak Hill Vet on 2026-12-16, all clear.",
           Cat.MILESTONE, "Biscuit")]),
    ],
)  # fmt: skip
def test_money_and_check_ups(text: str, facts: list[tuple[str, Cat, str | None]]) -> None:
    assert _made(text) == facts


def test_a_clause_with_a_subject_of_its_own_after_a_comma_and_is_cut() -> None:
    made = _made("Theo's new teacher is Mr. Abara, and the conferences are on January 12.")
    assert made == [
        ("Theo's new teacher is Mr. Abara.", Cat.RELATIONSHIP, "Mr. Abara"),
        ("The conferences are on January 12, 2027.", Cat.MILESTONE, None),
    ]


def test_a_list_before_and_is_no_clause() -> None:
    made = _made("**Tim** (D1:1): Sisterhood, love, and chasing dreams were the themes we wrote.")
    assert all(not fact.startswith("Sisterhood, love.") for fact, _cat, _entity in made)


def test_the_rest_of_an_appositive_is_cut_into_its_clauses() -> None:
    made = _made("User: My sister Nadia lives in Denver and is flying in on the 23rd.")
    assert made == [
        ("Nadia is the user's sister.", Cat.RELATIONSHIP, "Nadia"),
        ("Nadia lives in Denver.", Cat.CONTEXT, "Nadia"),
        ("Nadia is flying in on 2026-12-23.", Cat.MILESTONE, "Nadia"),
    ]


def test_she_after_a_semicolon_goes_on_across_and() -> None:
    made = _made(
        "User: Our babysitter is Hannah Cole; she's free most Friday nights and charges $18 "
        "an hour."
    )
    assert made == [
        ("The household's babysitter is Hannah Cole.", Cat.RELATIONSHIP, "Hannah Cole"),
        ("Hannah Cole is free most Friday nights.", Cat.CONTEXT, "Hannah Cole"),
        ("Hannah Cole charges $18 an hour.", Cat.STATUS, "Hannah Cole"),
    ]


@pytest.mark.parametrize(
    ("text", "fact", "category", "entity"),
    [  # where one's own live and study, when a named one keeps a clock time
        ("User: My parents live in Ohio.", "The user's parents live in Ohio.", Cat.CONTEXT, None),
        ("Maya is in third grade at Lincoln Elementary.",
         "Maya is in third grade at Lincoln Elementary.", Cat.CONTEXT, "Maya"),
        ("Theo takes the bus at 7:40.", "Theo takes the bus at 7:40.", Cat.CONTEXT, "Theo"),
        # a value of one's own with a number or a name in it
        ("Our wifi password is bluefern22.", "The household's wifi password is bluefern22.",
         Cat.CONTEXT, None),
        ("User: My blood type is O negative.", "The user's blood type is O negative.",
         Cat.CONTEXT, None),
        # a pet named, a fear, the kids' doctor, a place on a street
        ("We have a dog named Biscuit.", "The household has a dog named Biscuit.",
         Cat.RELATIONSHIP, "Biscuit"),
        ("Leo is afraid of the dark.", "Leo is afraid of the dark.", Cat.PREFERENCE, "Leo"),
        ("The kids' pediatrician is Dr. Lee at Northside Pediatrics.",
         "The kids' pediatrician is Dr. Lee at Northside Pediatrics.", Cat.RELATIONSHIP,
         "Dr. Lee"),
        ("The nearest urgent care is on Elm Street.",
         "The nearest urgent care is on Elm Street.", Cat.CONTEXT, "Elm Street"),
    ],
)  # fmt: skip
def test_what_a_household_tells_in_passing(
    text: str, fact: str, category: Cat, entity: str | None
) -> None:
    assert _made(text) == [(fact, category, entity)]


@pytest.mark.parametrize(
    "text",
    [
        "**Gina** (D1:13): Sounds great, Jon! Next Friday works.",  # a day is no one
        "So Gina worked with the artist to make it happen.",  # "So Gina" opens on no name
        "Her coach, Mr. Feld, says she should try the regional in February.",  # advice
        "My day is going well.",  # nothing of one's own with a number or a name
        "User: I'm so done with this week, it was awful",  # a mood of the day
        "User: im so tired, stayed up till 3 doing homework",
    ],
)
def test_a_day_advice_or_a_mood_is_no_fact(text: str) -> None:
    assert _made(text) == []


@pytest.mark.parametrize(
    ("text", "fact", "category", "entity"),
    [  # one's own routine, what someone wears or is for good, when a thing was made
        ("User: I work from home on Tuesdays and Thursdays.",
         "The user works from home on Tuesdays and Thursdays.", Cat.CONTEXT, None),
        ("User: I get paid every other Friday.", "The user gets paid every other Friday.",
         Cat.CONTEXT, None),
        ("Maya takes ballet on Saturday mornings.", "Maya takes ballet on Saturday mornings.",
         Cat.CONTEXT, "Maya"),
        ("Leo wears glasses.", "Leo wears glasses.", Cat.CONTEXT, "Leo"),
        ("Grandpa uses a wheelchair.", "Grandpa uses a wheelchair.", Cat.CONTEXT, "Grandpa"),
        ("Theo is left-handed.", "Theo is left-handed.", Cat.CONTEXT, "Theo"),
        ("Jordan is gluten-free.", "Jordan is gluten-free.", Cat.CONTEXT, "Jordan"),
        ("The house was built in 1962.", "The house was built in 1962.", Cat.CONTEXT, None),
        # a year is when, as a month is ("expires in June 2027"): a milestone
        ("Leo's passport expires in 2028.", "Leo's passport expires in 2028.", Cat.MILESTONE,
         "Leo"),
        ("The babysitter's number is 555-0199.", "The babysitter's number is 555-0199.",
         Cat.CONTEXT, None),
        # what a thing needs done, and the place one goes to
        ("The deck needs restaining.", "The deck needs restaining.", Cat.STATUS, None),
        ("The Subaru needs new tires.", "The Subaru needs new tires.", Cat.STATUS, "Subaru"),
        ("The nearest hospital is St. Mary's.", "The nearest hospital is St. Mary's.",
         Cat.RELATIONSHIP, "St. Mary"),
    ],
)  # fmt: skip
def test_more_of_what_a_household_tells(
    text: str, fact: str, category: Cat, entity: str | None
) -> None:
    assert _made(text) == [(fact, category, entity)]


@pytest.mark.parametrize(
    "text", ["We were there every day.", "The kids need a ride on Friday.", "I use a lot of salt."]
)
def test_a_one_off_need_or_a_state_of_then_is_no_routine(text: str) -> None:
    assert _made(text) == []


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # what a thing or a named one does as a rule, work done, a worker named by role
        ("The basement dehumidifier drains into the floor drain by the water heater.",
         [("The basement dehumidifier drains into the floor drain by the water heater.",
           Cat.CONTEXT, None)]),
        ("Jordan's employer matches 401(k) contributions up to 5% of salary.",
         [("Jordan's employer matches 401(k) contributions up to 5% of salary.", Cat.CONTEXT,
           "Jordan")]),
        ("User: Leo sleeps with a nightlight.", [("Leo sleeps with a nightlight.", Cat.CONTEXT,
                                                  "Leo")]),
        ("The sprinkler system was blown out on October 30, 2026 by GreenCo.",
         [("The sprinkler system was blown out on October 30, 2026 by GreenCo.", Cat.STATUS,
           "GreenCo")]),
        ("Noticed a small crack in the driveway near the garage.",
         [("Noticed a small crack in the driveway near the garage.", Cat.STATUS, None)]),
        ("The electrician, Sam Okoro, replaced the panel's main breaker yesterday.",
         [("Sam Okoro is the electrician.", Cat.RELATIONSHIP, "Sam Okoro"),
          ("Sam Okoro replaced the panel's main breaker on 2026-12-15.", Cat.STATUS,
           "Sam Okoro")]),
    ],
)  # fmt: skip
def test_what_things_do_and_work_done(text: str, facts: list[tuple[str, Cat, str | None]]) -> None:
    assert _made(text) == facts


@pytest.mark.parametrize(
    "text",
    [
        "The garden looks amazing this year.",  # how it looks, in the moment
        "The action scenes are awesome and the plot rocks.",  # a plural noun is no verb
        "The way the author builds the world is amazing.",
        "Gotta focus on success.",
    ],
)
def test_how_a_thing_seems_is_no_habit(text: str) -> None:
    assert _made(text) == []


@pytest.mark.parametrize(
    ("text", "fact", "category", "entity"),
    [  # a job and where, a team, a dose, a code, a bill's usual amount
        ("User: I'm a project manager at Acme Corp.", "The user is a project manager at Acme "
         "Corp.", Cat.CONTEXT, None),
        ("**Tim** (D1:1): I'm a teacher at Lincoln High.", "Tim is a teacher at Lincoln High.",
         Cat.CONTEXT, "Tim"),
        ("Maya is on the swim team.", "Maya is on the swim team.", Cat.CONTEXT, "Maya"),
        ("Biscuit eats two cups of kibble a day.", "Biscuit eats two cups of kibble a day.",
         Cat.CONTEXT, "Biscuit"),
        ("The alarm code is 4412.", "The alarm code is 4412.", Cat.CONTEXT, None),
        ("The basement floods when it rains hard.", "The basement floods when it rains hard.",
         Cat.CONTEXT, None),
        ("The electric bill averages about $140 in winter.",
         "The electric bill averages about $140 in winter.", Cat.STATUS, None),
        ("Theo's teacher this year is Ms. Brooks.", "Theo's teacher in 2026 is Ms. Brooks.",
         Cat.RELATIONSHIP, "Ms. Brooks"),
    ],
)  # fmt: skip
def test_a_job_a_team_a_dose_a_code(
    text: str, fact: str, category: Cat, entity: str | None
) -> None:
    assert _made(text) == [(fact, category, entity)]


@pytest.mark.parametrize("text", ["The score is 3-1.", "The plan is 2 days off."])
def test_a_number_of_the_moment_is_no_code(text: str) -> None:
    assert _made(text) == []


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # two verbs of one "I", someone and I, a pet's age and illness
        ("User: I'm 34 and live in Chicago.", ["The user is 34 and lives in Chicago."]),
        ("User: I live in Boston and work for Acme.",
         ["The user lives in Boston and works for Acme."]),
        ("User: My husband and I are both teachers.",
         ["The user and their husband are both teachers."]),
        ("**John** (D1:1): My wife and I just left for our European vacation.",
         ["John and their wife just left for their European vacation."]),
        ("User: My cat Luna is 14 and has kidney disease.",
         ["Luna is the user's cat.", "Luna is 14.", "Luna has kidney disease."]),
        ("Jordan has anxiety.", ["Jordan has anxiety."]),
        ("User: We owe about 310k at 6.8% and have 27 years left.",
         ["The household owes about 310k at 6.8% and has 27 years left."]),
        ("**Jon** (D1:1): We live in Ohio and love the lake.",
         ["Jon lives in Ohio and loves the lake."]),
    ],
)  # fmt: skip
def test_the_first_person_across_and(text: str, facts: list[str]) -> None:
    assert [fact for fact, _cat, _entity in _made(text)] == facts


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # "mine" / "ours" stand alone: named the first time, "theirs" once named
        ("User: We have an air fryer but no oven, because ours broke.",
         "The household has an air fryer but no oven, because theirs broke."),
        ("**Tim** (D1:1): My bike is old, mine was cheap.", "Tim's bike is old, theirs was cheap."),
        ("**Tim** (D1:1): The red bike is mine.", "The red bike is Tim's."),
        # the user's "us" is the household's, as the household's "I" is the user's
        ("User: My dad moved in with us.", "The user's dad moved in with the household."),
        ("User: I told my sister about our plan.",
         "The user told their sister about the household's plan."),
        ("User: We took our kids to the zoo.", "The household took their kids to the zoo."),
    ],
)  # fmt: skip
def test_a_possessive_standing_alone(text: str, fact: str) -> None:
    from vault_app.heartbeat import first_person, turns

    said = turns.speaking(text)
    assert first_person.standalone(said.text, said.speaker) == fact


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # "and" before another subject's clause, or a noun: no agreement made up
        ("**Maria** (D1:1): I wanted to make connections, laugh together and take in nature's "
         "beauty.", "Maria wanted to make connections, laugh together and take in nature's "
         "beauty."),
        ("**Caroline** (D1:1): I have been blessed with love, and I want to pass it on to "
         "others.", "Caroline has been blessed with love, and Caroline wants to pass it on to "
         "others."),
    ],
)  # fmt: skip
def test_a_verb_of_another_clause_keeps_its_form(text: str, fact: str) -> None:
    from vault_app.heartbeat import first_person, turns

    said = turns.speaking(text)
    assert first_person.standalone(said.text, said.speaker) == fact


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # an agent's log line: the day it is booked for, the amount approved, the pet's name
        ("Booked the plumber for Tuesday at 10.", "Booked the plumber for 2026-12-22 at 10.",
         None),
        ("Scheduled Biscuit's vet appointment for January 9 at 3 pm.",
         "Scheduled Biscuit's vet appointment for January 9, 2027 at 3 pm.", "Biscuit"),
        ("Moved the dentist appointment to Dec 20.",
         "Moved the dentist appointment to Dec 20, 2026.", None),  # "Dec" is no one
        ("Set up autopay for the electric bill.", "Set up autopay for the electric bill.", None),
        ("Alex approved the $2,400 quote for the fence.",
         "Alex approved the $2,400 quote for the fence.", "Alex"),
    ],
)  # fmt: skip
def test_an_agent_s_log_line(text: str, fact: str, entity: str | None) -> None:
    assert [(f, e) for f, _cat, e in _made(text)] == [(fact, entity)]


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # a named one's event with a day, moved to a day, a thing's days, a time away
        ("Theo's next dental cleaning is March 4.", "Theo's next dental cleaning is March 4, 2027.",
         "Theo"),
        ("Leo's pediatrician appointment got moved to Friday at 9.",
         "Leo's pediatrician appointment got moved to 2026-12-18 at 9.", "Leo"),
        ("Jordan's review is next week.", "Jordan's review is in the week of 2026-12-21.",
         "Jordan"),
        ("The kids' swim lessons are Saturdays at 10 at the Y.",
         "The kids' swim lessons are Saturdays at 10 at the Y.", None),
        ("We're out of town December 26 to January 2.",
         "The household is out of town December 26, 2026 to January 2, 2027.", None),
    ],
)  # fmt: skip
def test_events_and_days(text: str, fact: str, entity: str | None) -> None:
    assert [(f, e) for f, _cat, e in _made(text)] == [(fact, entity)]


def test_days_of_no_one_named_are_no_schedule() -> None:
    assert _made("Practice is Wednesdays, games Saturday mornings.") == []


@pytest.mark.parametrize(
    ("text", "fact"),
    [  # where one will be is a plan of theirs; "I'll" before anything else is a chore
        ("User: I'll be staying at the Hotel Avenida.",
         "The user will be staying at the Hotel Avenida."),
        ("User: I'll be away from December 20 to January 3.",
         "The user will be away from December 20, 2026 to January 3, 2027."),
        ("User: I will be in Lisbon for a conference in March.",
         "The user will be in Lisbon for a conference in March 2027."),
        ("User: I'll call the plumber tomorrow.", None),
        ("User: I'll be in touch.", None),
        ("User: I will be at the store in ten minutes.", None),
        ("User: I'll check whether the boiler is staying on.", None),
    ],
)  # fmt: skip
def test_where_one_will_be(text: str, fact: str | None) -> None:
    assert [made for made, _cat, _entity in _made(text)] == ([fact] if fact else [])


@pytest.mark.parametrize(
    "text",
    [  # an ailment that passes in days is a status of the moment
        "Theo has a cold, staying home today.",
        "Maya had the flu last week.",
        "Dana is jetlagged after the flight from Lisbon.",
    ],
)
def test_an_ailment_of_the_moment_is_no_fact(text: str) -> None:
    assert _made(text) == []


def test_what_one_lives_with_is_a_fact() -> None:
    assert [fact for fact, _cat, _entity in _made("Theo has hay fever and gets migraines.")] == [
        "Theo has hay fever and gets migraines."
    ]


@pytest.mark.parametrize(
    ("text", "fact", "entity"),
    [  # a schedule moved to days; what make a thing is, with when it was bought
        ("Theo's basketball practice moved to Tuesdays and Thursdays at 6.",
         "Theo's basketball practice moved to Tuesdays and Thursdays at 6.", "Theo"),
        ("User: the garage door opener is a Chamberlain B970, bought in 2021",
         "The garage door opener is a Chamberlain B970, bought in 2021.", "Chamberlain"),
    ],
)  # fmt: skip
def test_a_schedule_moved_and_the_make_of_a_thing(text: str, fact: str, entity: str) -> None:
    assert [(made, found) for made, _cat, found in _made(text)] == [(fact, entity)]


def _agent_made(text: str) -> list[tuple[str, bool]]:
    entry = model.Entry(
        path=f"agents/manager/daily/{ON}.md", date=ON, time="09:00:00", text=text, agent="manager"
    )
    return [(c.fact, c.about_user) for c in rules.candidates(entry)]


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # an agent writing what the user is: the user's own, as if told
        ("User prefers texts over calls for anything non-urgent.",
         [("The user prefers texts over calls for anything non-urgent.", True)]),
        ("The user is allergic to shellfish.", [("The user is allergic to shellfish.", True)]),
        ("Per user: don't schedule anything on Sunday mornings, they go to church.",
         [("Don't schedule anything on Sunday mornings, they go to church.", True)]),
        # what it was asked to do is no fact; what it learned is, after its label
        ("The user asked me to book the car service at Midas.", []),
        ("Learned: Jordan's work schedule changed, nights Monday to Wednesday now.",
         [("Jordan's work schedule changed, nights Monday to Wednesday now.", False)]),
        # what someone said is the fact
        ("Alex mentioned the garage door is broken again.",
         [("The garage door is broken again.", False)]),
        ("Greg Lindqvist noticed the missing shingles from his yard.", []),
    ],
)  # fmt: skip
def test_what_an_agent_writes_down(text: str, facts: list[tuple[str, bool]]) -> None:
    assert _agent_made(text) == facts


def test_a_fact_naming_no_one_keeps_the_names_given_before_it() -> None:
    entry = model.Entry(
        path=f"agents/manager/daily/{ON}.md", date=ON, time="09:00:00", agent="manager",
        text="Called Summit Roofing; the quote is $14,200 for a full replacement.",
    )  # fmt: skip
    (quote,) = rules.candidates(entry)
    assert (quote.fact, quote.entity, quote.related) == (
        "The quote is $14,200 for a full replacement.",
        None,
        (),
    )
    assert quote.around == ("Summit Roofing",)


def test_a_log_line_s_verb_is_no_name_and_maya_is_no_may() -> None:
    from vault_app.heartbeat import rulebook, subjects

    pats = rulebook.patterns()
    assert subjects.related("Took Maya to the dentist, she has a cavity", None, pats) == ("Maya",)
    assert subjects.related("Drove Theo and Ana to soccer.", None, pats) == ("Theo", "Ana")
    assert subjects.related("The Mondays are busy.", None, pats) == ()
    entry = model.Entry(
        path=f"global/daily/{ON}.md", date=ON, time="09:00:00",
        text="Took Maya to the dentist, she has a cavity; filling booked for Dec 12.",
    )  # fmt: skip
    (filling,) = rules.candidates(entry)
    assert filling.around == ("Maya",)


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # a maintenance agent's log (a blind probe): the wear a thing shows, upkeep done to
        # it, what a worker advises, a visit booked
        ("The water heater anode rod is badly corroded.",
         [("The water heater anode rod is badly corroded.", Cat.STATUS, None)]),
        ("The fridge water filter was changed on 2026-11-30; it lasts six months.",
         [("The fridge water filter was changed on 2026-11-30.", Cat.STATUS, None)]),
        ("All detectors were last tested 2026-10-01.",
         [("All detectors were last tested 2026-10-01.", Cat.STATUS, None)]),
        ("Marcus Bell recommends replacing the whole unit within a year.",
         [("Marcus Bell recommends replacing the whole unit within a year.", Cat.STATUS,
           "Marcus Bell")]),
        ("The vet suggested a dental cleaning for Biscuit.",
         [("The vet suggested a dental cleaning for Biscuit.", Cat.STATUS, "Biscuit")]),
        ("Chimney sweep booked with Clean Sweep Co. for October 3 at 10am.",
         [("Chimney sweep booked with Clean Sweep Co. for October 3, 2027 at 10am.",
           Cat.MILESTONE, "Clean Sweep Co")]),
        # and a finance agent's: where an amount stands
        ("The emergency fund is at $18,500.",
         [("The emergency fund is at $18,500.", Cat.STATUS, None)]),
        # a suggestion of what to do together is no fact
        ("Jess suggested we try the new Thai place.", []),
    ],
)  # fmt: skip
def test_what_a_maintenance_log_tells(text: str, facts: list[tuple[str, Cat, str | None]]) -> None:
    assert _made(text) == facts


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a household manager's December notes (2026-12): what it showed
        ("Maya has strep throat, on amoxicillin for 10 days.",
         [("Maya has strep throat, on amoxicillin for 10 days.", Cat.STATUS, "Maya")]),
        ("Zoe has an ear infection again.",
         [("Zoe has an ear infection again.", Cat.STATUS, "Zoe")]),
        ("Theo has a sleepover at Ben's house on Friday.",
         [("Theo has a sleepover at Ben's house on 2026-12-18.", Cat.MILESTONE, "Theo")]),
        ("Maya's winter concert is Thursday at 6:30pm in the school gym.",
         [("Maya's winter concert is on 2026-12-17 at 6:30pm in the school gym.",
           Cat.MILESTONE, "Maya")]),
        ("Alex still works on Christmas Eve until noon.",
         [("Alex still works on Christmas Eve (2026-12-24) until noon.", Cat.MILESTONE, "Alex")]),
        ("Jordan got the Friday before Christmas off work.",  # the one to come, though "got"
         [("Jordan got the Friday before Christmas (2026-12-25) off work.", Cat.MILESTONE,
           "Jordan")]),
        ("Jordan's parents (Bill and Carol) arrive December 21.",
         [("Bill is Jordan's parent.", Cat.RELATIONSHIP, "Bill"),
          ("Carol is Jordan's parent.", Cat.RELATIONSHIP, "Carol"),
          ("Jordan's parents arrive December 21, 2026.", Cat.MILESTONE, "Jordan")]),
        ("User: My sister (Rana) is vegan.",
         [("Rana is the user's sister.", Cat.RELATIONSHIP, "Rana"),
          ("Rana is vegan.", Cat.PREFERENCE, "Rana")]),
        ("Per user: no screens after 8pm on school nights, even during break.",
         [("No screens after 8pm on school nights, even during break.", Cat.PREFERENCE, None)]),
        ("Ordered the turkey from the farm, pickup on December 23.",  # to come, though ordered
         [("Ordered the turkey from the farm, pickup on December 23, 2026.", Cat.MILESTONE,
           None)]),
    ],
)  # fmt: skip
def test_an_illness_an_event_a_bracketed_name_and_a_ban(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


@pytest.mark.parametrize(
    "text",
    ["Maya has a cold.", "User: No problem at all.", "User: No worries on that.",
     "Trash day is Thursday.", "Sounds great, Jon! Next Friday works."],
)  # fmt: skip
def test_what_passes_is_still_no_fact(text: str) -> None:
    assert _made(text) == []


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a finance agent's December notes (2026-12): what it showed
        ("Harbor Mutual raised the home insurance premium to $1,342/yr at renewal.",
         [("Harbor Mutual raised the home insurance premium to $1,342/yr at renewal.",
           Cat.STATUS, "Harbor Mutual")]),
        ("Maya's orthodontist payment plan: $180/month for 18 months.",
         [("Maya's orthodontist payment plan: $180/month for 18 months.", Cat.STATUS, "Maya")]),
        ("Per Alex: don't pay anything by card over $1,000, use ACH.",
         [("Per Alex: Don't pay anything by card over $1,000, use ACH.", Cat.PREFERENCE,
           "Alex")]),
        ("Per user: don't pay anything by card over $1,000, use ACH.",  # "ACH" is no one
         [("Don't pay anything by card over $1,000, use ACH.", Cat.PREFERENCE, None)]),
    ],
)  # fmt: skip
def test_a_price_set_a_labelled_amount_and_someones_rule(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


def test_a_last_or_next_of_someones_is_no_time_from_today() -> None:
    """ "her last December cleaning" is her final one, not December 2025 (the probe wrote
    "with her in December 2025 cleaning")."""
    assert _made("Rosa gets a $150 holiday bonus with her last December cleaning.") == [
        ("Rosa gets a $150 holiday bonus with her last December cleaning.", Cat.STATUS, "Rosa")
    ]


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a contractors agent's kitchen remodel notes (2026-12)
        ("The electrician (Volt Brothers) needs access to the panel on Jan 14.",
         [("Volt Brothers is the household's electrician.", Cat.RELATIONSHIP, "Volt Brothers"),
          ("The electrician needs access to the panel on Jan 14, 2027.", Cat.MILESTONE, None)]),
        ("Tile guy recommends 12x24 porcelain for the floor.",
         [("Tile guy recommends 12x24 porcelain for the floor.", Cat.STATUS, None)]),
        ("Plumber rough-in moved from Jan 20 to Jan 22 because of the inspection backlog.",
         [("Plumber rough-in moved from Jan 20, 2027 to Jan 22, 2027 because of the "
           "inspection backlog.", Cat.MILESTONE, None)]),
    ],
)  # fmt: skip
def test_a_role_in_brackets_a_trades_advice_and_a_move_from_a_day(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a household agent's notes on a new baby (2026-12)
        ("Noor weighed 11 lb 3 oz at the last visit, 60th percentile.",
         [("Noor weighed 11 lb 3 oz at the last visit, 60th percentile.", Cat.STATUS, "Noor")]),
        ("Noor rolled over for the first time today!",
         [("Noor rolled over for the first time on 2026-12-16.", Cat.MILESTONE, "Noor")]),
        ("Jordan goes back to work on January 5.",
         [("Jordan goes back to work on January 5, 2027.", Cat.MILESTONE, "Jordan")]),
    ],
)  # fmt: skip
def test_a_weight_a_first_time_and_back_to_work(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a medicine with its dose is kept, and a dose a doctor set is the medicine's change
        ("Pat takes donepezil 5mg at night.",
         [("Pat takes donepezil 5mg at night.", Cat.CONTEXT, "Pat")]),
        ("My dad is on 20mg of atorvastatin.",
         [("The user's dad is on 20mg of atorvastatin.", Cat.CONTEXT, None)]),
        ("Biscuit gets 25mg of carprofen twice a day.",
         [("Biscuit gets 25mg of carprofen twice a day.", Cat.CONTEXT, "Biscuit")]),
        ("Saw the consultant with Pat today. She upped his donepezil to 10mg at night.",
         [("Pat's donepezil went up to 10mg at night.", Cat.STATUS, "Pat")]),
        ("Pat takes donepezil. Update: the consultant upped his donepezil to 10mg.",
         [("Pat's donepezil went up to 10mg.", Cat.STATUS, "Pat")]),  # whose after a label
        ("The GP lowered my sertraline dose to 50mg.",
         [("The user's sertraline dose went down to 50mg.", Cat.STATUS, None)]),
        ("Pat is on 3 teams.", []),  # a number with no unit of medicine: no dose
    ],
)  # fmt: skip
def test_a_medicine_and_its_dose(text: str, made: list[tuple[str, Cat, str | None]]) -> None:
    assert _made(text) == made


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a household manager's January (2027-01): what it showed
        ("Biscuit's vet visit moved to Jan 12 at 4:30pm (Dr. Alvarez, Maple Street Clinic).",
         [("Biscuit's vet visit moved to Jan 12, 2027 at 4:30pm (Dr. Alvarez, Maple Street "
           "Clinic).", Cat.MILESTONE, "Biscuit")]),
        ("The new babysitter is Priya Raman, she's a nursing student at State. $20/hr.",
         [("The household's new babysitter is Priya Raman.", Cat.RELATIONSHIP, "Priya Raman"),
          ("Priya Raman is a nursing student at State.", Cat.CONTEXT, "Priya Raman")]),
        ("The teacher is Mr. Delgado.",  # whose? a child's, maybe: not the household's
         [("The teacher is Mr. Delgado.", Cat.RELATIONSHIP, "Mr. Delgado")]),
        ("Priya can do Tuesdays and Thursdays after 3.",
         [("Priya can do Tuesdays and Thursdays after 3.", Cat.CONTEXT, "Priya")]),
        ("I can do Tuesdays.", []),  # an answer in the moment
        ("Parent-teacher meeting with Mr. Delgado set for Jan 14 at 3:15.",
         [("Parent-teacher meeting with Mr. Delgado set for Jan 14, 2027 at 3:15.",
           Cat.MILESTONE, "Mr. Delgado")]),
        ("The vet said Biscuit needs to lose 5 pounds; he's 72 lbs.",
         [("The vet said Biscuit needs to lose 5 pounds.", Cat.STATUS, "Biscuit")]),
        ("Jess said Maya needs a ride.", []),  # a worker's finding, not anyone's word
        ("Mr. Delgado recommends 20 minutes of reading every night for Theo.",
         [("Mr. Delgado recommends 20 minutes of reading every night for Theo.", Cat.STATUS,
           "Theo")]),
        ("Jordan asked me to stop ordering the almond milk, the kids won't drink it.",
         [("Per Jordan: Stop ordering the almond milk, the kids won't drink it.",
           Cat.PREFERENCE, "Jordan")]),
        ("Grandma Helen is allergic to latex, told St. Luke's.",
         [("Grandma Helen is allergic to latex.", Cat.PREFERENCE, "Grandma Helen")]),
    ],
)  # fmt: skip
def test_a_household_role_a_worker_s_finding_and_someone_s_word_to_the_agent(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a family trip planned in an agent's notes (2027-02): what it showed
        ("Jordan's United MileagePlus number is 00218841.",
         [("Jordan's United MileagePlus number is 00218841.", Cat.CONTEXT, "Jordan")]),
        ("TSA PreCheck for Jordan expires in March 2027, he needs to renew it.",
         [("TSA PreCheck for Jordan expires in March 2027.", Cat.MILESTONE, "Jordan")]),
        ("We decided to skip the snorkeling tour, Theo is scared of deep water.",
         [("Theo is scared of deep water.", Cat.PREFERENCE, "Theo")]),
        ("For the party, Theo is bringing chips.", []),  # a lead, no clause of its own
        ("Jordan gets motion sick, always book window seats near the front for him.",
         [("Jordan gets motion sick.", Cat.CONTEXT, "Jordan"),
          ("Always book window seats near the front for Jordan.", Cat.PREFERENCE, "Jordan")]),
        ("Alex prefers to pay contractors by check, never by card, because of the 3% fee.",
         [("Alex prefers to pay contractors by check, never by card, because of the 3% fee.",
           Cat.PREFERENCE, "Alex")]),  # one preference going on, no rule of its own
        ("Booked the hotel from May 22 to May 29.",
         [("Booked the hotel from May 22, 2027 to May 29, 2027.", Cat.MILESTONE, None)]),
    ],
)  # fmt: skip
def test_a_trip_a_programme_number_and_a_rule_after_its_reason(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


@pytest.mark.parametrize(
    ("text", "made"),
    [  # a blind probe of a person's own health notes (2027-03): what it showed
        ("I'm on ibuprofen 400mg as needed for the knee, max 3 a day.",
         [("The user is on ibuprofen 400mg as needed for the knee, max 3 a day.", Cat.CONTEXT,
           None)]),
        ("Weighed in at 182 lbs this morning.",  # one's own note: one's own weight
         [("The user weighed in at 182 lbs on 2026-12-16.", Cat.STATUS, None)]),
        ("Blood test results: LDL 142, doctor wants it under 100. Starting atorvastatin 10mg.",
         [("The user is starting atorvastatin 10mg.", Cat.CONTEXT, None)]),
        ("Dr. Patel is my GP, she's at Harbor Family Medicine.",
         [("Dr. Patel is the user's GP.", Cat.RELATIONSHIP, "Dr. Patel")]),
        ("Cutting back on coffee, max 2 cups a day from now on.",  # a rule one set oneself
         [("Cutting back on coffee, max 2 cups a day from now on.", Cat.PREFERENCE, None)]),
        ("From now on you should call me Sam.", []),  # said to someone: no rule of one's own
    ],
)  # fmt: skip
def test_ones_own_weight_medicine_doctor_and_a_rule_from_now_on(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made


def test_an_agents_weigh_in_is_no_one_s_own() -> None:
    entry = model.Entry(path=f"agents/vet/daily/{ON}.md", date=ON, time="09:00:00",
                        text="Weighed in at 71 lbs.", agent="vet")  # fmt: skip
    assert rules.candidates(entry) == []


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # a blind probe of a security agent's log (2027-01): a thing without its article
        ("Backyard floodlight is out.", [("The backyard floodlight is out.", False)]),
        ("Dishwasher is leaking again.", [("The dishwasher is leaking again.", False)]),
        ("Maya soccer is cancelled.", []),  # a name's, not a thing of the house
        ("Water to the upstairs is off until 16:00.", []),  # for the day only
    ],
)  # fmt: skip
def test_a_log_lines_thing_without_its_article(text: str, facts: list[tuple[str, bool]]) -> None:
    assert _agent_made(text) == facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [  # a blind probe of a coding assistant's notes on its user (2027-02)
        ("Reminder from user: the API keys rotate on the 1st of every month.",
         [("The API keys rotate on the 1st of every month.", False)]),
        ("Reminder: call the plumber tomorrow.", []),  # a chore, label or not
        ("User wants all tests written with pytest, never unittest.",
         [("The user wants all tests written with pytest, never unittest.", True)]),
    ],
)  # fmt: skip
def test_a_reminder_label_and_a_thing_named_by_an_acronym(
    text: str, facts: list[tuple[str, bool]]
) -> None:
    assert _agent_made(text) == facts


@pytest.mark.parametrize(
    ("text", "made"),
    [  # last session's "noticed and left": someone's clause after a comma; a measured value
        ("The budget is now $48,000, Daniel's parents are chipping in $3,000.",
         [("The budget is now $48,000.", Cat.STATUS, None),
          ("Daniel's parents are chipping in $3,000.", Cat.CONTEXT, "Daniel")]),
        ("We moved in March, Jordan's office is downtown now.",
         [("The household moved in March 2026.", Cat.MILESTONE, None),
          ("Jordan's office is downtown now.", Cat.CONTEXT, "Jordan")]),
        ("The guest list is around 120 people.",
         [("The guest list is around 120 people.", Cat.CONTEXT, None)]),
        ("The boiler pressure is 1.5 bar.",
         [("The boiler pressure is 1.5 bar.", Cat.CONTEXT, None)]),
        ("The water meter reading is 04561.",
         [("The water meter reading is 04561.", Cat.CONTEXT, None)]),
        ("The guest list is so long.", []),  # no value
        # a role passed on, said as a new one had (holders.py retires the one before)
        ("We have a new landlord, Sandra Ortiz.",
         [("The household's new landlord is Sandra Ortiz.", Cat.RELATIONSHIP, "Sandra Ortiz")]),
        ("Mom has a new cardiologist, Dr. Ames.",
         [("Mom's new cardiologist is Dr. Ames.", Cat.RELATIONSHIP, "Dr. Ames")]),
        ("My sister's husband is Tom Reyes.",
         [("The user's sister's husband is Tom Reyes.", Cat.RELATIONSHIP, "Tom Reyes")]),
        ("The aide is Rosa Delgado.",
         [("The household's aide is Rosa Delgado.", Cat.RELATIONSHIP, "Rosa Delgado")]),
        # a landlord's notes (a blind probe): tenants and managers are roles, rent no one
        ("The tenant is Marcus Lee.",
         [("The household's tenant is Marcus Lee.", Cat.RELATIONSHIP, "Marcus Lee")]),
        ("Our property manager is now Cascade Property Group.",
         [("The household's property manager is now Cascade Property Group.",
           Cat.RELATIONSHIP, "Cascade Property Group")]),
        ("Rent is $1,850/month.", [("Rent is $1,850/month.", Cat.STATUS, None)]),
        # a new holder told with "'ve got" and "actually", what is told of another after it
        ("I've got a new accountant actually, Sofia Brandt, Graham retired.",
         [("The user's new accountant is Sofia Brandt.", Cat.RELATIONSHIP, "Sofia Brandt"),
          ("Graham retired.", Cat.STATUS, "Graham")]),
        ("We've got a new vet, Dr. Ames.",
         [("The household's new vet is Dr. Ames.", Cat.RELATIONSHIP, "Dr. Ames")]),
        # a name's "'s" that is "is" or "has"; not a thing of theirs, nor "Let's"
        ("Dev's allergic to penicillin btw, in case it ever matters.",
         [("Dev is allergic to penicillin.", Cat.PREFERENCE, "Dev")]),
        ("Mom's a retired teacher.", [("Mom is a retired teacher.", Cat.CONTEXT, "Mom")]),
        ("Theo's been sick all week.", [("Theo has been sick all week.", Cat.STATUS, "Theo")]),
        ("Maya's recital is on Friday at 6pm.",
         [("Maya's recital is on 2026-12-18 at 6pm.", Cat.MILESTONE, "Maya")]),
        ("Let's not plan anything on Sunday.", []),
        # a task done for others and how often; "does not like" as "doesn't like"
        ("My accountant is Graham Whitlow, he does my self assessment every January.",
         [("Graham Whitlow is the user's accountant.", Cat.RELATIONSHIP, "Graham Whitlow"),
          ("Graham Whitlow does the user's self assessment every January.", Cat.CONTEXT,
           "Graham Whitlow")]),
        ("Rosa does the laundry on Mondays.",
         [("Rosa does the laundry on Mondays.", Cat.CONTEXT, "Rosa")]),
        ("Theo does not eat mushrooms.",
         [("Theo does not eat mushrooms.", Cat.PREFERENCE, "Theo")]),
        # a contract or a lease extended, and to when
        ("Halden extended the contract to the end of June.",
         [("Halden extended the contract to the end of June.", Cat.MILESTONE, "Halden")]),
        ("The lease was extended to August 2027.",
         [("The lease was extended to August 2027.", Cat.STATUS, None)]),
        ("Theo gave the book to May.", []),  # "to May": no month it ends in
        # who someone is, in brackets after their name; what befell them, told as "had … out"
        ("Miso (the cat) had two teeth out on Thursday, soft food only for a week.",
         [("Miso is the household's cat.", Cat.RELATIONSHIP, "Miso"),
          ("Miso had two teeth out on 2026-12-10, soft food only for a week.", Cat.MILESTONE,
           "Miso")]),
        ("Walter (my dad) moved into Maple Grove in March.",
         [("Walter is the user's dad.", Cat.RELATIONSHIP, "Walter"),
          ("Walter moved into Maple Grove in March 2026.", Cat.MILESTONE, "Walter")]),
        ("Vet visit for Pepper (our dog, 7): weight 14.2 kg.",
         [("Pepper is the household's dog.", Cat.RELATIONSHIP, "Pepper"),
          ("Pepper is 7 years old.", Cat.CONTEXT, "Pepper")]),
        ("Acme (the company) raised prices.", []),  # no role
        # a note's topic before a colon goes when what follows names its subject or is a
        # log's deed; failing and passing a test are changes
        ("Car: the Honda Civic failed its MOT on the rear brake pads.",
         [("The Honda Civic failed its MOT on the rear brake pads.", Cat.STATUS,
           "Honda Civic")]),
        ("Kitchen: the dishwasher is leaking again.",
         [("The dishwasher is leaking again.", Cat.STATUS, None)]),
        ("Garden: planted 40 tulip bulbs along the front path.",
         [("Planted 40 tulip bulbs along the front path.", Cat.STATUS, None)]),
        ("Maya failed her driving test.", [("Maya failed her driving test.", Cat.STATUS, "Maya")]),
        ("Priya Shah gave notice.", [("Priya Shah gave notice.", Cat.STATUS, "Priya Shah")]),
        # a role named by an acronym before it
        ("HOA manager is Linda Park.",
         [("The household's HOA manager is Linda Park.", Cat.RELATIONSHIP, "Linda Park")]),
        ("My HR manager is Dana Cole.",
         [("The user's HR manager is Dana Cole.", Cat.RELATIONSHIP, "Dana Cole")]),
        # "Mom" and "Dad" as names, as "Grandpa" is (routing: the user's mom or dad when
        # the vault knows who that is, else counted as "Mom"); not "Mom, can you…"
        ("Mom is allergic to shellfish.",
         [("Mom is allergic to shellfish.", Cat.PREFERENCE, "Mom")]),
        ("Mom, can you call me back?", []),
        ("Tenant in Alder St upstairs is Marcus Lee, lease ends June 30, 2027.",  # a street
         [("Tenant in Alder St upstairs is Marcus Lee, lease ends June 30, 2027.",
           Cat.MILESTONE, "Marcus Lee")]),
        ("Our landlord is now Sandra Ortiz.",
         [("The household's landlord is now Sandra Ortiz.", Cat.RELATIONSHIP, "Sandra Ortiz")]),
    ],
)  # fmt: skip
def test_someone_s_clause_after_a_comma_a_measured_value_and_a_new_holder(
    text: str, made: list[tuple[str, Cat, str | None]]
) -> None:
    assert _made(text) == made
