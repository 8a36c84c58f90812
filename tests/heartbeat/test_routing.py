"""Routing candidates to entities, and unknown names counted until their third entry."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from vault_app.core import errors, layout, models
from vault_app.core.vault import Vault
from vault_app.heartbeat import mentions, names, routing
from vault_app.heartbeat.extraction import Candidate, Entry

DAY = dt.date(2026, 11, 20)


def ref(address: str) -> layout.EntityRef:
    return layout.EntityRef.parse(address)


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    vault = Vault.create(tmp_path / "v")  # laid out by a person; the router reads it
    vault.create_agent("household")
    for address in (
        "areas/family",
        "areas/people/dr-patel",
        "areas/people/maya",
        "areas/people/marcus-bell",
        "areas/companies/harbor-mutual",
        "projects/bathroom-remodel",
        "areas/home",
        "agent:household:resources/kitchen",
        "agent:household:areas/family",
    ):
        vault.create_entity(address)
    made = vault.summary("areas/people/maya").digest  # "# Maya" as create_entity wrote it
    vault.write_summary("areas/people/maya", "# Maya Moreau (daughter)\n", expected=made)
    return Vault(vault.root, actor="heartbeat")


def entry(n: int = 0, agent: str | None = None, text: str | None = None) -> Entry:
    day = DAY + dt.timedelta(days=n)
    folder = "global/daily" if agent is None else f"agents/{agent}/daily"
    body = text if text is not None else f"entry number {n}"
    return Entry(
        path=f"{folder}/{day.isoformat()}.md", date=day, time="09:30:00", text=body, agent=agent
    )


def candidate(
    fact: str,
    entity: str | None = None,
    related: tuple[str, ...] = (),
    *,
    n: int = 0,
    agent: str | None = None,
    track: bool = False,
    category: models.FactCategory = models.FactCategory.CONTEXT,
) -> Candidate:
    return Candidate(fact, category, entry(n, agent), entity, related, track)


def router(vault: Vault) -> routing.Router:
    return routing.Router(vault, mentions.MentionCounts.load(vault.root))


# -- the three rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entity", "agent", "expected"),
    [
        ("areas/family", None, "areas/family"),
        ("global:areas/family", "household", "areas/family"),
        ("areas/family", "household", "agent:household:areas/family"),  # the agent's first
        ("agent:household:resources/kitchen", None, "agent:household:resources/kitchen"),
        ("resources/kitchen", "household", "agent:household:resources/kitchen"),
        ("Dr. Patel", None, "areas/people/dr-patel"),
        ("dr patel", None, "areas/people/dr-patel"),
        ("Patel", None, "areas/people/dr-patel"),  # the honorific aside
        ("MAYA", None, "areas/people/maya"),
        ("Maya Moreau", None, "areas/people/maya"),  # the summary's title
        ("Marcus", None, "areas/people/marcus-bell"),  # one person's first name
        ("Harbor Mutual", None, "areas/companies/harbor-mutual"),
        ("the bathroom remodel", None, "projects/bathroom-remodel"),
        ("Kitchen", "household", "agent:household:resources/kitchen"),
    ],
)
def test_an_entity_that_resolves_is_where_the_fact_goes(
    vault: Vault, entity: str, agent: str | None, expected: str
) -> None:
    route = router(vault).route(candidate("A fact.", entity, agent=agent))
    assert route == routing.Route(ref(expected), False, None, "entity")


def test_names_match_without_case_or_accents(vault: Vault) -> None:
    vault.create_entity("areas/people/theo")
    vault.create_entity("areas/people/zoe")
    r = router(vault)
    assert r.route(candidate("x", "Théo")).ref == ref("areas/people/theo")
    assert r.route(candidate("x", "ZOË")).ref == ref("areas/people/zoe")


def test_the_first_related_entity_that_resolves(vault: Vault) -> None:
    route = router(vault).route(
        candidate(
            "Book the boiler check.",
            None,
            ("Nobody Known", "areas/nowhere", "Maya", "areas/family"),
        )
    )
    assert route == routing.Route(ref("areas/people/maya"), False, None, "related")


def test_an_entity_the_text_mentions_the_longest_name_winning(vault: Vault) -> None:
    r = router(vault)
    route = r.route(candidate("Marcus Bell quoted the bathroom remodel at $9,000."))
    assert route == routing.Route(ref("projects/bathroom-remodel"), False, None, "mentioned")
    assert r.route(candidate("Dr. Patel moved the family appointment.")).ref == ref(
        "areas/people/dr-patel"
    )


def test_short_common_and_partial_names_are_no_mention(vault: Vault) -> None:
    vault.create_entity("areas/people/ann")
    r = router(vault)
    assert r.route(candidate("We stayed home all day.")).reason == "unrouted"  # areas/home
    assert r.route(candidate("Ann called.")).reason == "unrouted"  # three letters
    assert r.route(candidate("Mayanna visited.")).reason == "unrouted"  # inside a word


# -- unknown names ---------------------------------------------------------------------


def test_an_unknown_name_is_made_on_its_third_entry(vault: Vault) -> None:
    r = router(vault)
    first = candidate("Samir Haddad fixed the gate.", "Samir Haddad", n=0)
    second = candidate("Samir Haddad will paint the fence.", "samir haddad", n=1)
    assert r.route(first) == routing.Route(None, False, "Samir Haddad", "deferred")
    assert r.route(second) == routing.Route(None, False, "samir haddad", "deferred")
    third = r.route(candidate("Samir Haddad charges $40 an hour.", "Samir Haddad", n=2))
    assert third == routing.Route(ref("areas/people/samir-haddad"), True, "Samir Haddad", "created")
    assert r.released("Samir Haddad") == [first, second]
    assert r.released("Samir Haddad") == []
    vault.add_fact(third.ref, "Samir Haddad charges $40 an hour.", "context", create=True)
    later = r.route(candidate("Samir Haddad is back on Monday.", "Samir", n=3))
    assert later == routing.Route(ref("areas/people/samir-haddad"), False, None, "entity")


def test_an_entry_counts_once_however_often_it_names_the_name(vault: Vault) -> None:
    r = router(vault)
    for fact in ("Lena is Maya's best friend.", "Lena lives on Oak Street.", "Lena is 9."):
        assert r.route(candidate(fact, "Lena", n=0)).reason == "deferred"
    assert r.route(candidate("Lena is Maya's best friend.", "Lena", n=0)).reason == "deferred"
    assert r.mentions.count("lena") == 1
    r.mentions.save(vault.storage)
    rerun = router(vault)  # the same entry read again after a crash: still one
    assert rerun.route(candidate("Lena is 9.", "Lena", n=0)).reason == "deferred"
    assert rerun.mentions.count("lena") == 1
    assert rerun.route(candidate("Lena came over.", "Lena", n=1)).reason == "deferred"
    assert rerun.route(candidate("Lena is 10.", "Lena", n=2)).reason == "created"
    assert [c.fact for c in rerun.released("Lena")] == [
        "Lena is Maya's best friend.",
        "Lena lives on Oak Street.",
        "Lena is 9.",
        "Lena came over.",
    ]


def test_track_makes_the_entity_at_once(vault: Vault) -> None:
    r = router(vault)
    route = r.route(candidate("Keep track of the boiler.", "boiler", track=True))
    assert route == routing.Route(ref("areas/boiler"), True, "boiler", "created")
    assert r.released("boiler") == []


def test_where_a_new_entity_goes(vault: Vault) -> None:
    r = router(vault)
    person = r.route(
        candidate(
            "Our nanny.",
            "Lucia",
            track=True,
            agent="household",
            category=models.FactCategory.RELATIONSHIP,
        )
    )
    company = r.route(candidate("Quote came in.", "Summit Roofing", track=True, agent="household"))
    thing = r.route(candidate("Pressure is 1.2 bar.", "boiler", track=True, agent="household"))
    project = r.route(candidate("Planned for May.", "Lisbon trip", track=True))
    address = r.route(candidate("x", "resources/recipes", track=True, agent="household"))
    assert person.ref == ref("areas/people/lucia")  # people: the user's graph
    assert company.ref == ref("areas/companies/summit-roofing")
    assert thing.ref == ref("agent:household:areas/boiler")  # the agent's own workspace
    assert project.ref == ref("projects/lisbon-trip")
    assert address.ref == ref("agent:household:resources/recipes")


@pytest.mark.parametrize(
    "name", ["it", "Tuesday", "today", "March", "the user", "We", "someone", "2026", "  "]
)
def test_junk_names_are_never_counted_nor_made(vault: Vault, name: str) -> None:
    r = router(vault)
    for n in range(3):
        route = r.route(candidate("Nothing of note.", name, n=n, track=True))
        assert route == routing.Route(None, False, None, "unrouted")
    assert r.mentions.names() == {}


def test_an_unknown_related_name_is_counted_when_no_entity_is_named(vault: Vault) -> None:
    r = router(vault)
    route = r.route(candidate("The quote is $9,000.", None, ("it", "Oakline Builders")))
    assert route == routing.Route(None, False, "Oakline Builders", "deferred")
    assert r.mentions.count("oakline-builders") == 1


def test_waiting_facts_are_named_again_after_a_crash_before_their_release(vault: Vault) -> None:
    r = router(vault)
    waiting = [candidate("Nora teaches piano.", "Nora Lind", n=n) for n in range(2)]
    for c in waiting:
        r.route(c)
    made = r.route(candidate("Nora Lind comes on Fridays.", "Nora Lind", n=2))
    assert made.create
    r.mentions.save(vault.storage)
    vault.create_entity(made.ref)  # then the run died: nothing released, nothing written
    rerun = router(vault)
    route = rerun.route(candidate("Nora Lind comes on Fridays.", "Nora Lind", n=2))
    assert route == routing.Route(made.ref, False, "Nora Lind", "entity")
    assert rerun.released("Nora Lind") == waiting
    assert rerun.route(candidate("x", "Nora Lind", n=2)).name is None


# -- mentions.json ---------------------------------------------------------------------


def test_counts_survive_a_reload(vault: Vault) -> None:
    r = router(vault)
    deferred = candidate("Oskar mows the lawn.", "Oskar", related=("areas/home",), n=4)
    r.route(deferred)
    r.route(candidate("x", "areas/garden", n=5))
    r.mentions.save(vault.storage)
    again = mentions.MentionCounts.load(vault.root)
    assert again.count("oskar") == 1 and again.count("areas/garden") == 1
    assert again.release("oskar") == [deferred]
    data = mentions.mentions_path(vault.root).read_bytes()
    assert (
        b'"entries"' in data
        and b"heartbeat.mentions" in (vault.root / ".vault/audit.jsonl").read_bytes()
    )


def test_two_savers_lose_nothing(vault: Vault) -> None:
    one, two = router(vault), router(vault)
    one.route(candidate("x", "Oskar", n=0))
    two.route(candidate("y", "Oskar", n=1))
    two.route(candidate("z", "Pia", n=1))
    one.mentions.save(vault.storage)
    two.mentions.save(vault.storage)
    merged = mentions.MentionCounts.load(vault.root)
    assert merged.count("oskar") == 2 and merged.count("pia") == 1
    assert merged.waiting("oskar") == 2


@pytest.mark.parametrize(
    ("content", "place", "reason"),
    [
        (b'{"version": 1, "names": {', "line 1", "invalid JSON"),
        (b"[]", None, "expected a JSON object, found an array"),
        (b'{"version": 2}', "version", "1"),
        (
            b'{"names": {"x": {"name": "X", "address": "../../etc"}}}',
            "names.x.address",
            "no entity",
        ),
        (
            b'{"names": {"x": {"name": "X", "address": "areas/x", "entries": 3}}}',
            "names.x.entries",
            "list",
        ),
        (
            b'{"names": {"x": {"name": "X", "address": "areas/x", "deferred": [{"fact": 1}]}}}',
            "names.x.deferred[0]",
            "",
        ),
    ],
)
def test_a_corrupt_file_is_reported_precisely_and_never_overwritten(
    vault: Vault, content: bytes, place: str | None, reason: str
) -> None:
    path = mentions.mentions_path(vault.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    with pytest.raises(errors.CorruptFileError) as caught:
        mentions.MentionCounts.load(vault.root)
    assert caught.value.path == path and reason in caught.value.reason
    if place is None:
        assert caught.value.location is None
    else:
        assert caught.value.location is not None and caught.value.location.startswith(place)
    assert path.read_bytes() == content


def test_a_file_corrupted_after_load_is_not_overwritten_by_save(vault: Vault) -> None:
    r = router(vault)
    r.route(candidate("x", "Oskar"))
    path = mentions.mentions_path(vault.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{not json")
    with pytest.raises(errors.CorruptFileError):
        r.mentions.save(vault.storage)
    assert path.read_bytes() == b"{not json"


def test_names_of_other_scripts_and_hostile_addresses(vault: Vault) -> None:
    r = router(vault)
    made = r.route(candidate("Мария приходит по вторникам.", "Мария", track=True))
    assert made.reason == "created" and made.ref == ref("areas/мария")
    vault.create_entity(made.ref)
    assert router(vault).route(candidate("x", "МАРИЯ")).ref == made.ref
    for hostile in ("areas/../../etc", "/etc/passwd", "agent:../x:areas/y", "areas/a\x00b"):
        assert r.route(candidate("x", hostile, track=True)).reason == "unrouted"
    spoof = r.route(candidate("x", "Pаypal", track=True))  # a Cyrillic "а" among Latin
    assert spoof.reason == "unrouted"


def test_released_candidates_not_written_can_be_put_back(vault: Vault) -> None:
    r = router(vault)
    waiting = [candidate("Ines walks Biscuit.", "Ines Costa", n=n) for n in range(2)]
    for c in waiting:
        r.route(c)
    made = r.route(candidate("Ines Costa is the dog walker.", "Ines Costa", n=2))
    assert made.create and made.ref is not None
    vault.create_entity(made.ref)
    earlier = r.released("Ines Costa")
    assert earlier == waiting
    r.restore("Ines Costa", earlier)  # say the write failed: they must wait again
    r.mentions.save(vault.storage)
    rerun = router(vault)
    route = rerun.route(candidate("Ines Costa is the dog walker.", "Ines Costa", n=2))
    assert route == routing.Route(made.ref, False, "Ines Costa", "entity")
    assert rerun.released("Ines Costa") == waiting


def test_an_unknown_address_is_counted_and_released_as_its_full_address(vault: Vault) -> None:
    r = router(vault)
    waiting = [
        candidate("Soup recipe.", "resources/recipes", n=n, agent="household") for n in range(2)
    ]
    for c in waiting:
        assert r.route(c) == routing.Route(
            None, False, "agent:household:resources/recipes", "deferred"
        )
    made = r.route(candidate("Pie recipe.", "resources/recipes", n=2, agent="household"))
    full = ref("agent:household:resources/recipes")
    assert made == routing.Route(full, True, str(full), "created")
    assert r.released(str(made.name)) == waiting
    Vault(vault.root, actor="heartbeat:household").create_entity(full)  # as the runner does
    again = r.route(candidate("Cake recipe.", "resources/recipes", n=3, agent="household"))
    assert again == routing.Route(full, False, None, "entity")


def test_who_someone_is_to_the_user_makes_them_at_once(vault: Vault) -> None:
    r = router(vault)
    kin = models.FactCategory.RELATIONSHIP
    made = r.route(candidate("Ingrid is the user's mom.", "Ingrid", category=kin))
    assert made == routing.Route(ref("areas/people/ingrid"), True, "Ingrid", "created")
    landlord = candidate("The household's landlord is Mr. Okafor.", "Mr. Okafor", category=kin)
    assert r.route(landlord).reason == "created"
    pet = candidate("The household has a dog, Mochi.", "Mochi", category=kin)
    assert r.route(pet) == routing.Route(ref("areas/pets/mochi"), True, "Mochi", "created")
    # someone else's, or not who they are: counted to the third mention as before
    theirs = candidate("Ana is Caroline's mom.", "Ana", category=kin)
    assert r.route(theirs).reason == "deferred"
    said = candidate("The user's aunt Rosa visits in May.", "Rosa", n=1)
    assert r.route(said).reason == "deferred"


def test_who_someone_is_to_a_known_person_makes_them_at_once(vault: Vault) -> None:
    vault.create_entity(ref("areas/people/theo"))
    r = router(vault)
    kin = models.FactCategory.RELATIONSHIP
    said = candidate("Theo's orthodontist is Dr. Farah Kim.", "Dr. Farah Kim", category=kin)
    assert r.route(said) == routing.Route(
        ref("areas/people/dr-farah-kim"), True, "Dr. Farah Kim", "created"
    )
    told = candidate("Bill is Theo's grandpa.", "Bill", n=3, category=kin)  # the other way
    assert r.route(told) == routing.Route(ref("areas/people/bill"), True, "Bill", "created")
    vault.create_entity(ref("areas/companies/northside-renovations"))  # a company's too
    r = router(vault)
    pm = candidate("Northside's project manager is Dana Ruiz.", "Dana Ruiz", n=4, category=kin)
    assert r.route(pm).ref == ref("areas/people/dana-ruiz")
    # of someone the vault does not know, or no relationship: to the third mention
    unknown = candidate("Lena's coach is Mr. Daniels.", "Mr. Daniels", n=1, category=kin)
    assert r.route(unknown).reason == "deferred"
    seen = candidate("Theo's friend Omar came over.", "Omar", n=2)
    assert r.route(seen).reason == "deferred"


def test_a_name_with_and_without_its_honorific_is_counted_once(vault: Vault) -> None:
    r = router(vault)
    assert r.route(candidate("Dr. Okafor is our new GP.", "Dr. Okafor", n=0)).reason == "deferred"
    assert r.route(candidate("Okafor moved to Elm St.", "Okafor", n=1)).reason == "deferred"
    made = r.route(candidate("Okafor sees Theo on Monday.", "Okafor", n=2))
    assert made == routing.Route(ref("areas/people/dr-okafor"), True, "Okafor", "created")
    assert [c.entity for c in r.released("Okafor")] == ["Dr. Okafor", "Okafor"]


def test_the_counts_keep_the_names_mentioned_latest(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mentions, "MAX_NAMES", 3)
    r = router(vault)
    for n, name in enumerate(["Anouk", "Bertil", "Cosima", "Dagny"]):
        r.route(candidate(f"{name} came by.", name, n=n))
    r.route(candidate("Anouk came back.", "Anouk", n=9))  # mentioned again: kept
    r.mentions.save(vault.storage)
    kept = mentions.MentionCounts.load(vault.root)
    assert sorted(kept.names().values()) == ["Anouk", "Cosima", "Dagny"]
    assert kept.count("anouk") == 2


def test_a_pet_goes_with_the_pets_not_the_people(vault: Vault) -> None:
    r = router(vault)
    kin = models.FactCategory.RELATIONSHIP
    made = r.route(candidate("Miso is the household's cat.", "Miso", category=kin))
    assert made == routing.Route(ref("areas/pets/miso"), True, "Miso", "created")
    # a pet first taken for someone ("she") is placed with the pets once said to be one
    met = candidate("Biscuit stays in the yard while she mops.", "Biscuit", n=1)
    assert r.route(met).reason == "deferred"
    assert r.mentions.address("biscuit") == "areas/people/biscuit"
    told = candidate("We adopted a rescue greyhound named Biscuit.", "Biscuit", n=2)
    assert r.route(told).reason == "deferred"
    assert r.mentions.address("biscuit") == "areas/pets/biscuit"


def test_a_vault_keeping_its_pets_in_one_entity_gets_them_there(vault: Vault) -> None:
    vault.create_entity(ref("areas/pets"))
    r = router(vault)
    said = candidate("Rex, our old beagle, limps after long walks.", "Rex")
    assert r.route(said) == routing.Route(ref("areas/pets"), False, None, "related")
    # anyone else is as before
    kin = models.FactCategory.RELATIONSHIP
    other = candidate("Rex Harper is the user's accountant.", "Rex Harper", n=1, category=kin)
    assert r.route(other).ref == ref("areas/people/rex-harper")


@pytest.mark.parametrize(
    ("name", "fact", "kind"),
    [
        ("Miso", "Our cat Miso needs her thyroid tablets twice a day.", "pet"),
        ("Biscuit", "We adopted a rescue greyhound named Biscuit.", "pet"),
        ("Rex", "Rex, my old beagle, limps.", "pet"),
        ("Luna", "Luna is Maya's hamster.", "pet"),
        ("Ana", "Ana is the user's sister.", "person"),  # a relationship's cue
        ("Maya", "Maya is the Lindqvists' dog walker.", "thing"),  # no cue it is a person
        ("Maya", "Maya has a cat.", "thing"),
    ],
)  # fmt: skip
def test_what_makes_a_name_a_pets(name: str, fact: str, kind: str) -> None:
    assert names.kind(name, fact) == kind


def test_a_fact_naming_no_one_goes_to_a_known_name_given_before_it(vault: Vault) -> None:
    r = router(vault)
    quote = candidate("The quote is $14,200 for a full replacement.")
    assert r.route(dataclasses.replace(quote, around=("Harbor Mutual", "Dr. Patel"))) == (
        routing.Route(ref("areas/companies/harbor-mutual"), False, None, "related")
    )
    # an unknown name around it is neither where it goes nor counted
    assert r.route(dataclasses.replace(quote, around=("Zed Okoro",))).reason == "unrouted"
    assert r.mentions.count("zed-okoro") == 0
    # a name of its own comes first
    own = dataclasses.replace(candidate("Dr. Patel moved his office."), around=("Harbor Mutual",))
    assert r.route(own).ref == ref("areas/people/dr-patel")


def test_an_entity_answers_to_the_name_its_summary_opens_on(vault: Vault) -> None:
    vault.create_entity(ref("areas/pets"))
    made = vault.summary("areas/pets").digest
    text = "# Pets\n\nBiscuit, the family's beagle mix.\n"
    vault.write_summary("areas/pets", text, expected=made)
    r = router(Vault(vault.root, actor="heartbeat"))
    said = candidate("Biscuit's allergy meds changed to Apoquel.", "Biscuit")
    assert r.route(said) == routing.Route(ref("areas/pets"), False, None, "entity")
    # never over an entity the name is of ("Maya" is Maya's, whatever a summary opens on)
    assert r.index.lookup("maya", [None]) == ref("areas/people/maya")


@pytest.mark.parametrize(
    ("data", "lead"),
    [
        (b"# Pets\n\nBiscuit, the family's five-year-old beagle mix.\n", "Biscuit"),
        (b"# Household Budget\n\nThe household's monthly budget, reviewed by Alex.\n", None),
        (b"# Home Security\n\nAlarm system monitored by Guardline Security.\n", None),
        (b"no title\n\nBiscuit, the dog.\n", None),
        (b"# Us\n\nThe, the first.\n", None),  # a junk word is no name
    ],
)
def test_the_name_a_summary_opens_on(data: bytes, lead: str | None) -> None:
    assert names.summary_lead(data) == lead


def test_a_thing_of_a_group_the_vault_keeps_is_a_mention_of_it(vault: Vault) -> None:
    for address in ("areas/vehicles", "areas/utilities", "areas/people/marks", "areas/taxes"):
        vault.create_entity(ref(address))
    r = router(Vault(vault.root, actor="heartbeat"))
    # a word of three letters is no mention of its own, but its plural a name is
    assert r.route(candidate("The property tax bill is due April 10, 2027.")).ref == ref(
        "areas/taxes"
    )
    assert r.route(candidate("The tax on the car is paid.")).ref == ref("areas/taxes")
    vehicle = r.route(candidate("The vehicle registration expires in March 2027."))
    assert (vehicle.ref, vehicle.reason) == (ref("areas/vehicles"), "mentioned")
    assert r.route(candidate("The utility bill was $240.")).ref == ref("areas/utilities")
    # a person's name is no plural of a word ("mark" is not Marks)
    assert r.route(candidate("Put a mark on the calendar for the recital.")).ref is None


def test_a_thing_no_entity_names_is_counted_as_a_name_is(vault: Vault) -> None:
    """ "The dishwasher is leaking again" in an agent's notes: no name, no entity it
    mentions. The thing it opens on waits as an unknown name does, and on its third entry
    is an entity of the agent's own workspace (as the boiler the maintenance agent
    watches), its waiting facts released to it."""
    r = router(vault)
    said = ["The dishwasher is leaking again.", "The dishwasher was repaired on 2026-11-02.",
            "The dishwasher needs a new door seal."]  # fmt: skip
    routes = [r.route(candidate(f, n=i, agent="household")) for i, f in enumerate(said)]
    assert [x.reason for x in routes] == ["deferred", "deferred", "created"]
    made = ref("agent:household:areas/dishwasher")
    assert routes[-1].ref == made and routes[-1].name == "dishwasher"
    assert [c.fact for c in r.released("dishwasher")] == said[:2]
    assert r.route(candidate("The dishwasher is quiet now.", n=4, agent="household")).ref == made


@pytest.mark.parametrize(
    "fact",
    [  # people, a moment's words, a long part of a thing, a name's: no thing of its own
        "The kids are at their grandparents' this week.",
        "The quote is $14,200 for a full replacement.",
        "The water heater anode rod is badly corroded.",
        "The hallway ceiling stain is dry.",
        "The plan is to repaint in spring.",
    ],
)
def test_what_is_no_thing_is_not_counted(vault: Vault, fact: str) -> None:
    route = router(vault).route(candidate(fact, agent="household"))
    assert (route.reason, route.name) == ("unrouted", None)


def test_an_explicit_remember_of_a_thing_is_kept_in_remembered(vault: Vault) -> None:
    fact = "The recycling pickup is on Thursdays now."
    assert names.thing_of(fact) == "recycling pickup"  # a thing, but asked to be remembered
    asked = dataclasses.replace(candidate(fact, agent="household"), explicit=True)
    route = router(vault).route(asked)
    assert (route.ref, route.reason) == (ref("agent:household:resources/remembered"), "remembered")


def test_a_pet_routed_to_the_pets_is_found_there_by_name(vault: Vault) -> None:
    """A vault that keeps its animals in one `areas/pets`: a pet routed there once is
    found there for the rest of the run, and in later runs by the facts it holds; one who
    walks the dog is no pet."""
    vault.create_entity("areas/pets")
    r = router(vault)
    assert r.route(candidate("Rufus is a 9-year-old lab mix.", "Rufus")).ref == ref("areas/pets")
    vaccine = r.route(candidate("Rufus's rabies vaccine is due in August 2027.", "Rufus", n=1))
    assert (vaccine.ref, vaccine.reason) == (ref("areas/pets"), "entity")
    walker = r.route(candidate("Sam is the dog walker.", "Sam", n=2,
                               category=models.FactCategory.RELATIONSHIP))  # fmt: skip
    assert walker.ref != ref("areas/pets")
    vault.add_fact("areas/pets", "Mochi is the household's cat.", "relationship")
    vault.add_fact("areas/pets", "Annual vaccines are due in May.", "milestone")  # no pet
    later = router(Vault(vault.root, actor="heartbeat"))
    assert later.route(candidate("Mochi's microchip number is 985112004567321.", "Mochi")).ref == (
        ref("areas/pets")
    )
    assert later.route(candidate("The annual boiler service is booked.")).ref != ref("areas/pets")


@pytest.mark.parametrize(
    ("name", "fact", "kind"),
    [  # a name after an article is a thing's (or a role's), not someone's
        ("Babyletto Hudson", "The crib we ordered is the Babyletto Hudson.", "thing"),
        ("Honda Civic", "We bought a Honda Civic in May.", "thing"),
        ("Samir Haddad", "Samir Haddad is the user's accountant.", "person"),
        ("Smiths", "We had dinner with the Smiths.", "thing"),  # one word: no cue either
        ("Dr. Lee", "The kids see Dr. Lee, the new pediatrician.", "person"),
        ("Alex", "Alex still works on Christmas Eve until noon.", "person"),  # what people do
        ("Alex", "Alex prefers presents on Christmas morning.", "person"),
        ("Lisbon", "Lisbon is lovely in May.", "thing"),
    ],
)  # fmt: skip
def test_a_name_after_an_article_is_no_ones(name: str, fact: str, kind: str) -> None:
    """And a name given as a place's or an organisation's is a company's (a probe made
    areas/people/little-acorns of a daycare)."""
    rel = models.FactCategory.RELATIONSHIP
    assert names.kind("Little Acorns", "Zoe's daycare is Little Acorns.", rel) == "company"
    assert names.kind("Little Acorns", "Little Acorns is our daycare.", rel) == "company"
    assert names.kind("Mr. Daniels", "Theo's soccer coach is Mr. Daniels.", rel) == "person"
    assert names.kind(name, fact) == kind
    assert names.articled("ENT", "The pediatrician wants us to see an ENT.")
    assert not names.articled("Smiths", "We had dinner with the Smiths.")  # a family


def test_what_only_an_animal_has_makes_a_name_a_pets() -> None:
    assert names.is_pet("Pixel", "Pixel's vet is Dr. Amani at Cedar Animal Clinic.")
    assert names.kind("Pixel", "Pixel's groomer moved to Elm Street.") == "pet"
    assert not names.is_pet("Jordan", "Jordan's doctor is Dr. Amani.")


def test_a_companys_short_name_finds_it(vault: Vault) -> None:
    """ "Northside" is Northside Renovations (its people are made at once: the test above)."""
    vault.create_entity(ref("areas/companies/northside-renovations"))
    crew = candidate("Northside starts demolition on Monday.", "Northside", n=1)
    assert router(vault).route(crew).ref == ref("areas/companies/northside-renovations")
    assert names.kind("Volt Brothers", "Volt Brothers is the household's electrician.") == "company"


def test_a_name_after_a_family_title_finds_the_person(vault: Vault) -> None:
    """ "Grandma Helen" is Helen Moreau when she is the one Helen; "Baby Noor" and "Noor"
    are one name counted."""
    vault.create_entity(ref("areas/people/helen-moreau"))
    r = router(vault)
    visit = candidate("Grandma Helen is visiting from Dec 20 to Jan 3.", "Grandma Helen")
    assert r.route(visit).ref == ref("areas/people/helen-moreau")
    assert names.without_honorific(names.key("Baby Noor")) == "noor"


def test_a_first_name_another_of_that_name_waits_for_is_counted_for_them(vault: Vault) -> None:
    r = router(vault)  # Marcus Bell, the plumber, answers to "Marcus"; Marcus Lee waits
    tenant = "Marcus Lee is the upstairs tenant."
    assert r.route(candidate(tenant, "Marcus Lee")).reason == "deferred"
    route = r.route(candidate("Marcus has a cat.", "Marcus", n=1))
    assert route == routing.Route(None, False, "Marcus Lee", "deferred")  # not Marcus Bell
    assert r.mentions.count(names.key("Marcus Lee")) == 2
    made = r.route(candidate("Marcus paid the deposit.", "Marcus", n=2))
    assert made == routing.Route(ref("areas/people/marcus-lee"), True, "Marcus Lee", "created")
    assert [c.fact for c in r.released("Marcus Lee")] == [tenant, "Marcus has a cat."]
    other = router(vault)  # with no one else of that name waiting: the one who answers
    assert other.route(candidate("Marcus fixed the tap.", "Marcus")).ref == ref(
        "areas/people/marcus-bell"
    )


def test_a_guessed_name_asked_to_keep_yields_to_one_the_notes_know(vault: Vault) -> None:
    r = router(vault)
    for n in (0, 1):  # Walter met twice, waiting for his third mention
        r.route(candidate(f"Walter note {n}.", "Walter", n=n))
    said = "Dad hates being called Wally, only Walt or Walter."
    asked = dataclasses.replace(
        candidate(said, "Wally", ("Walt", "Walter"), n=2), explicit=True, guessed=True
    )
    route = r.route(asked)
    assert route == routing.Route(ref("areas/people/walter"), True, "Walter", "created")
    plain = dataclasses.replace(asked, guessed=False)  # a rule's subject stays the entity
    assert router(vault).route(plain).ref == ref("areas/people/wally")
    known = dataclasses.replace(asked, related=("Maya",))  # one the vault knows
    assert router(vault).route(known) == routing.Route(
        ref("areas/people/maya"), False, None, "related"
    )
