"""Dedup against an entity's active facts: same, near, update, new, and the run's cache."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import dedup
from vault_app.search import encoders

REF = layout.EntityRef(None, "areas/household")


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    vault = Vault.create(tmp_path / "v", actor="heartbeat")
    vault.create_entity(REF)
    return vault


def _add(vault: Vault, text: str, category: str = "status") -> str:
    return vault.add_fact(REF, text, category).id


def test_normalize_sets_aside_case_accents_punctuation_spelling_and_filler() -> None:
    assert dedup.normalize("Maria's favourite colour is BLUE.") == "maria s favorite color is blue"
    assert dedup.normalize("Théo now likes the crêpes!") == "theo likes the crepes"
    assert dedup.normalize("The boiler pressure is 1.2 bar") == "the boiler pressure is 1.2 bar"
    assert dedup.normalize("Paid $4,350 on 2026-11-02") == "paid 4,350 on 2026-11-02"
    assert dedup.normalize("Jordan doesn't like it") == "jordan does not like it"


def test_the_same_text_normalised_is_same(vault: Vault) -> None:
    fid = _add(vault, "The boiler pressure is 1.2 bar.")
    verdict = dedup.Deduper(vault).check(REF, "the boiler pressure is now 1.2 bar")
    assert verdict == dedup.Verdict("same", fid, 1.0)


def test_a_reworded_statement_is_near(vault: Vault) -> None:
    fid = _add(vault, "The spare house key is with Greg next door.")
    verdict = dedup.Deduper(vault).check(REF, "Greg next door keeps our spare house key.")
    assert verdict.kind == "near" and verdict.fact_id == fid
    assert dedup.JACCARD <= verdict.score < 1.0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The boiler pressure is 1.2 bar", "The boiler pressure is 1.5 bar"),
        ("Maria's favourite colour is blue", "Maria's favourite colour is green"),
        ("Jordan works at Harbor Mutual", "Jordan works at First County Bank"),
        ("Theo's school starts at 8:15", "Theo's school now starts at 8:30"),
        ("The garage door is locked", "The garage door is unlocked"),
        ("Rosa cleans the house every other Thursday", "Rosa cleans the house every Friday"),
        ("Jordan likes coffee", "Jordan doesn't like coffee"),
        # "these days" is "now"; ", not sushi" says what it is not, the value is ramen
        ("The user's favourite food is sushi", "The user's favourite food these days is ramen"),
        ("The user's favourite food is sushi", "The user's favourite food is ramen, not sushi"),
        (
            "The bathroom remodel is capped at $15,000 after the budget review with Jordan",
            "The bathroom remodel is capped at $16,000 after the review",
        ),
    ],
)
def test_the_same_subject_with_a_changed_value_is_an_update(
    vault: Vault, old: str, new: str
) -> None:
    _add(vault, "Alex prefers oat milk in coffee.", "preference")
    fid = _add(vault, old)
    verdict = dedup.Deduper(vault).check(REF, new)
    assert verdict.kind == "update" and verdict.fact_id == fid


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Theo is allergic to peanuts", "Theo is allergic to cats"),  # many-valued
        ("The boiler was serviced on 2025-10-14", "The boiler was serviced on 2026-10-20"),
        ("The kitchen faucet drips", "The bathroom faucet drips"),
        # two words swapped with one kept between: another preference, not a rewording
        (
            "The user prefers window seats on long flights",
            "The user prefers aisle seats on short flights",
        ),
        ("Grandpa Leo calls every Sunday after lunch", "Grandpa Leo naps every day after lunch"),
        ("Maria's favourite colour is blue", "Maria's favourite food is lasagna"),
        ("Theo is 7 years old", "Theo is in second grade"),
        ("Jordan works at Harbor Mutual", "Jordan plays tennis on Saturdays"),
        ("Maya walks to school with the neighbour's kids", "Maya walks to school with Lena"),
        (
            "The deposit of $4,350 was paid on 2026-11-02 by Alex and Jordan together",
            "The deposit of $4,350 was paid on 2026-12-02 by the bank after the approval",
        ),
    ],
)
def test_another_fact_about_the_entity_is_new(vault: Vault, old: str, new: str) -> None:
    _add(vault, old)
    assert dedup.Deduper(vault).check(REF, new).kind == "new"


def test_only_active_facts_count(vault: Vault) -> None:
    old = _add(vault, "The boiler pressure is 1.2 bar")
    _, new = vault.supersede_fact(old, "The boiler pressure is 1.5 bar")
    deduper = dedup.Deduper(vault)
    # the old value said again is news: it updates the active fact, it is no duplicate
    assert deduper.check(REF, "The boiler pressure is 1.2 bar") == dedup.Verdict(
        "update", new.id, pytest.approx(5 / 6)
    )
    assert deduper.check(REF, "The boiler pressure is 1.5 bar.").kind == "same"


def test_an_entity_is_read_once_and_added_keeps_the_cache_current(
    vault: Vault, tmp_path: Path
) -> None:
    deduper = dedup.Deduper(vault)
    assert deduper.check(REF, "Biscuit the dog eats twice a day").kind == "new"
    # another writer adds it: the run's cache does not read the entity again
    Vault(vault.root).add_fact(REF, "Biscuit the dog eats twice a day", "context")
    assert deduper.check(REF, "Biscuit the dog eats twice a day").kind == "new"
    written = vault.add_fact(REF, "The recycling goes out on Tuesday evenings", "context")
    deduper.added(REF, written)
    assert deduper.check(REF, "The recycling goes out on Tuesday evenings!") == dedup.Verdict(
        "same", written.id, 1.0
    )
    old, new = vault.supersede_fact(written.id, "The recycling goes out on Monday evenings")
    deduper.added(REF, old)
    deduper.added(REF, new)
    assert deduper.check(REF, "The recycling goes out on Monday evenings").fact_id == new.id
    verdict = deduper.check(REF, "The recycling goes out on Tuesday evenings")
    assert verdict.kind == "update" and verdict.fact_id == new.id
    deduper.forget(REF)  # read again: the other writer's fact is there now
    assert deduper.check(REF, "Biscuit the dog eats twice a day").kind == "same"


def test_added_to_an_entity_not_read_yet_is_read_with_it(vault: Vault) -> None:
    deduper = dedup.Deduper(vault)
    written = vault.add_fact(REF, "Maya is learning the piano", "status")
    deduper.added(REF, written)  # nothing cached: the read will find it
    assert deduper.check(REF, "Maya is learning the piano").fact_id == written.id


def trigram_embed(texts: list[str]) -> npt.NDArray[np.float32]:
    """A small real embedding: hashed character trigrams of the normalised text, 256
    dimensions, L2-normalised rows (the contract of `Deduper(embed=...)`)."""
    rows = np.zeros((len(texts), 256), dtype=np.float32)
    for row, text in enumerate(texts):
        padded = f"  {dedup.normalize(text)}  "
        for i in range(len(padded) - 2):
            digest = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=2).digest()
            rows[row, int.from_bytes(digest, "little") % 256] += 1.0
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def test_the_cosine_path_decides_near_where_words_do_not(vault: Vault) -> None:
    fid = _add(vault, "The recycling goes out on Tuesday evenings")
    text = "Recycling goes out each Tuesday evening"
    words = dedup.prepare("a", "The recycling goes out on Tuesday evenings")
    jaccard = dedup.shingle_jaccard(words.shingles, dedup.prepare("b", text).shingles)
    vectors = trigram_embed(["The recycling goes out on Tuesday evenings", text])
    cosine = float(vectors[0] @ vectors[1])
    assert jaccard < 0.5 < cosine
    assert dedup.Deduper(vault, jaccard=0.5).check(REF, text).kind == "new"
    semantic = dedup.Deduper(vault, embed=trigram_embed, jaccard=0.5, cosine=cosine - 0.01)
    assert semantic.check(REF, text) == dedup.Verdict("near", fid, pytest.approx(cosine))
    strict = dedup.Deduper(vault, embed=trigram_embed, jaccard=0.5, cosine=cosine + 0.01)
    assert strict.check(REF, text).kind == "new"


def test_the_cosine_cache_follows_added_facts(vault: Vault) -> None:
    first = vault.add_fact(REF, "The trash pickup is Monday morning", "context")
    deduper = dedup.Deduper(vault, embed=trigram_embed, jaccard=0.99, cosine=0.9)
    assert deduper.check(REF, "Maya walks to school with the neighbour kids").kind == "new"
    second = vault.add_fact(REF, "Maya walks to school with the neighbours' kids", "context")
    deduper.added(REF, second)
    assert deduper.check(REF, "Maya walks to school with the neighbour kids").fact_id == second.id
    old, new = vault.supersede_fact(first.id, "The trash pickup is Tuesday morning")
    deduper.added(REF, old)
    deduper.added(REF, new)
    # rows stay aligned with the facts after one left and one joined
    assert deduper.check(REF, "Maya walks to school with the neighbour kids").fact_id == second.id
    verdict = deduper.check(REF, "The trash pickup is on Tuesday morning")
    assert verdict.kind == "near" and verdict.fact_id == new.id


def test_the_real_embedding_model_recognises_a_paraphrase(vault: Vault) -> None:
    from vault_app.search import semantic

    try:
        encoder = semantic.load_encoder(backend="torch")
    except semantic.SemanticUnavailable as exc:
        pytest.skip(f"no embedding model here: {exc}")
    fid = _add(vault, "Theo is allergic to peanuts.", "context")
    _add(vault, "Theo's school starts at 8:15.", "status")
    paraphrase = "Theo has a peanut allergy."
    assert dedup.Deduper(vault).check(REF, paraphrase).kind == "new"  # few shared words
    deduper = dedup.Deduper(vault, embed=lambda texts: encoder.encode(texts))
    verdict = deduper.check(REF, paraphrase)
    assert verdict.kind == "near" and verdict.fact_id == fid
    assert verdict.score >= dedup.COSINE
    assert deduper.check(REF, "Theo is allergic to cats.").kind == "new"


def test_an_entity_about_to_be_made_knows_nothing_yet(vault: Vault) -> None:
    new = layout.EntityRef(None, "areas/people/samir-haddad")
    deduper = dedup.Deduper(vault)
    assert deduper.check(new, "Samir fixed the gate.") == dedup.Verdict("new", None, 0.0)
    fact = vault.add_fact(new, "Samir fixed the gate.", "context", create=True)
    deduper.added(new, fact)
    assert deduper.check(new, "Samir fixed the gate").kind == "same"


def test_comparing_only_facts_that_share_a_key_changes_no_verdict(vault: Vault) -> None:
    """The Deduper compares a text only with the facts that share a shingle or a content
    word with it (and those the cosine brings near): the verdict must be the one a
    comparison with every fact gives."""
    rng = random.Random(14)
    vocabulary = VOCABULARY.split()
    texts = [" ".join(rng.choices(vocabulary, k=rng.randint(2, 9))) for _ in range(300)]
    facts = [
        {"id": f"fact-{n}", "fact": text, "category": "context", "status": "active"}
        for n, text in enumerate(texts)
    ]
    path = vault.paths.entity_dir(REF) / "items.json"
    before = vault.entity(REF).file
    digest = None if before is None else before.digest
    vault.storage.write(path, json.dumps(facts).encode(), expected=digest, action="test")
    prepared = [dedup.prepare(f["id"], f["fact"]) for f in facts]
    deduper = dedup.Deduper(vault)
    for _ in range(400):
        text = " ".join(rng.choices(vocabulary, k=rng.randint(2, 9)))
        assert deduper.check(REF, text) == dedup.judge(prepared, text)


VOCABULARY = (
    "the boiler pressure is 1.2 1.5 bar Maya Theo likes doesn't like dislikes school "
    "starts at 8:15 8:30 every other Tuesday Friday allergic to peanuts cats kitchen "
    "bathroom faucet drips was serviced on 2026-03-02 works Harbor Mutual a an of"
)


class TrigramEncoder:
    """`trigram_embed` as a search encoder (identity, dimension, encode): what
    `dedup.cached_embed` takes. It counts the texts it was asked to encode."""

    identity = "trigram-256|test|l2"
    dimension = 256
    backend = "trigram"

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(
        self, texts: Sequence[str], batch_size: int = 32, progress: encoders.Progress | None = None
    ) -> npt.NDArray[np.float32]:
        self.encoded.extend(texts)
        return trigram_embed(list(texts))


def test_cached_embed_encodes_a_fact_once_across_runs(vault: Vault) -> None:
    fid = _add(vault, "The recycling goes out on Tuesday evenings")
    _add(vault, "Biscuit the dog eats twice a day", "context")
    encoder = TrigramEncoder()
    text = "Recycling goes out each Tuesday evening"
    for _ in range(2):  # two runs, each with its own Deduper
        embed = dedup.cached_embed(vault, encoder)
        deduper = dedup.Deduper(vault, embed=embed, jaccard=0.5, cosine=0.6)
        assert deduper.check(REF, text).fact_id == fid
    assert sorted(encoder.encoded) == sorted(
        [text, "The recycling goes out on Tuesday evenings", "Biscuit the dog eats twice a day"]
    )
    assert any((vault.root / ".vault" / "cache" / "embeddings").rglob("*.npy"))


@pytest.mark.parametrize(
    ("old", "new"),
    [  # two of a speaker's unrelated sentences that open alike (issue 29, LoCoMo conv-26)
        ("**Melanie** (D14:4): Yeah, the user made it in pottery class on 2023-08-24.",
         "**Melanie** (D17:4): Yeah, a buddy of the user's adopted in 2022."),
        ("Yeah, Melanie made it in pottery class on 2023-08-24.",
         "Yeah, a buddy of Melanie's adopted in 2022."),
    ],
)  # fmt: skip
def test_an_opening_in_common_is_no_subject_in_common(old: str, new: str) -> None:
    facts = [dedup.prepare("f1", old)]
    assert dedup.judge(facts, new).kind == "new"


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [  # a denial updates what it denies; another statement with "never" in it does not
        ("Alex is a vegetarian.", "Alex is not a vegetarian anymore.", "update"),
        ("Jon is gonna keep on believing in himself.",
         "Jon is gonna keep on going and never quit.", "new"),
        ("Maya loves sushi.", "Maya hates sushi.", "update"),  # a dislike denies a liking
        ("Maya doesn't like sushi.", "Maya likes sushi.", "update"),
        ("Maya likes the dark.", "Maya does not like the dark.", "update"),
        ("Walter is the user's dad.", "The user's dad hates cilantro.", "new"),  # no liking
    ],
)  # fmt: skip
def test_a_denial_says_the_same_but_for_one_word(old: str, new: str, kind: str) -> None:
    assert dedup.judge([dedup.prepare("f1", old)], new).kind == kind


@pytest.mark.parametrize(
    ("old", "new"),
    [  # an event of change against the state it ends: compared as the state it implies
        ("The user lives in Denver.", "The user moved to Boulder in October 2026."),
        ("The user lives in Denver with his wife.",
         "The user moved to New York City with his wife on 2026-03-02."),
        ("The household lives in Denver.",
         "The household moved to Boulder on the weekend of 2026-05-30."),
        ("The user lives in Denver.", "The household moved to Boulder in May 2026."),
        ("The user works at Kaiser as a nurse.",
         "The user got a new job at Denver Health, the user starts in May."),
        ("The user works at Kaiser.", "The user just started a new job at Google."),
        ("Lina is 6.", "Lina turned 7 on 2026-08-20."),
        ("Lina is 6 years old.", "Lina turned 7 in the week of 2026-12-07."),
        ("Lina's piano lessons are on Tuesdays.", "Lina's piano lessons moved to Thursdays."),
        ("The dentist appointment is on December 3.",
         "The dentist appointment moved to December 10."),
        ("Kabir is 5 years old.", "Kabir is now 6."),  # an age's "years old" set aside
        # a habit is its activity's schedule, either way round
        ("Lina takes piano lessons on Tuesdays.", "Lina's piano lessons moved to Thursdays."),
        ("Lina's piano lessons are on Tuesdays.", "Lina takes piano lessons on Thursdays."),
        ("Maya has swim practice on Saturdays at 9.", "Maya's swim practice moved to Sundays."),
        ("The user takes yoga classes on Mondays.",
         "The user's yoga classes switched to Wednesdays."),
    ],
)  # fmt: skip
def test_an_event_of_change_updates_the_state_it_ends(old: str, new: str) -> None:
    verdict = dedup.judge([dedup.prepare("f1", old)], new)
    assert (verdict.kind, verdict.fact_id) == ("update", "f1")


@pytest.mark.parametrize(
    ("old", "new"),
    [  # another subject, another kind of value, or a state after its event: both kept
        ("The user lives in Denver.", "The user's sister moved to Boulder in October 2026."),
        ("The household lives in Denver.", "The user moved to Boulder in October 2026."),
        ("The user lives in Denver.", "The user moved to a new house in October 2026."),
        ("The user works at Kaiser.", "The user's wife started a new job at Google."),
        ("Lina is 6.", "Maya turned 7 on 2026-08-20."),
        ("The milk is 2 days old.", "The milk turned sour."),
        ("The user moved to Boulder in October 2026.", "The user lives in Boulder."),
        ("The user lives in Boulder.", "The user moved to Boulder in October 2026."),
        ("Lina's piano lessons are on Tuesdays.", "Lina's piano teacher moved to Thursdays."),
        ("Lina's piano lessons are on Tuesdays.", "Lina's piano lessons moved to the school."),
        ("Lina takes piano lessons on Tuesdays.", "Lina takes swim lessons on Thursdays."),
        ("Lina takes piano lessons on Tuesdays.", "Maya's piano lessons moved to Thursdays."),
        ("Lina takes piano lessons on Tuesdays.", "Lina's piano lessons moved to the school."),
        ("Lina takes piano lessons on Tuesdays.", "Lina's swim lessons moved to Thursdays."),
    ],
)  # fmt: skip
def test_an_event_of_another_change_is_no_update(old: str, new: str) -> None:
    assert dedup.judge([dedup.prepare("f1", old)], new).kind != "update"


def test_a_habit_reads_as_its_schedule_and_a_medicine_as_its_dose() -> None:
    assert dedup.read_as_attribute("Lina takes piano lessons on Tuesdays.") == (
        ["lina", "s", "piano", "lessons", "are", "on", "tuesdays"],
        ["lina", "s", "piano", "lessons", "are"],
    )  # fmt: skip
    assert dedup.read_as_attribute("Lina takes the bus to school.") is None  # no activity
    assert dedup.read_as_attribute("Lina loves piano lessons on Tuesdays.") is None
    assert dedup.read_as_attribute("Pat is on 5mg of donepezil.") == (
        ["pat", "s", "donepezil", "dose", "is", "5", "mg"],
        ["pat", "s", "donepezil", "dose", "is"],
    )  # fmt: skip
    assert dedup.read_as_attribute("Pat takes donepezil at night.") is None  # no dose
    assert dedup.read_as_attribute("Pat takes 5 minutes to get ready.") is None


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [  # a medicine's dose holds one value; another medicine or person is another fact
        ("Pat takes donepezil 5mg at night.", "Pat's donepezil went up to 10mg.", "update"),
        ("Pat takes donepezil 5mg at night.", "Pat is on 10mg of donepezil.", "update"),
        ("Pat takes donepezil 5mg at night.", "Pat's donepezil dose is now 10 mg.", "update"),
        ("The user takes sertraline 50mg every morning.",
         "The user's sertraline went up to 100mg.", "update"),
        ("Dad takes metformin 500mg twice a day.",
         "Dad's metformin was increased to 1000mg twice a day.", "update"),
        ("Pat takes donepezil 5mg at night.", "Pat takes memantine 10mg.", "new"),
        ("Pat takes donepezil 5mg at night.", "Pat's memantine went up to 10mg.", "new"),
        ("Pat takes donepezil 5mg at night.", "Jo takes donepezil 10mg at night.", "new"),
        ("Pat takes donepezil 5mg at night.", "Pat takes aspirin 81mg.", "new"),
    ],
)  # fmt: skip
def test_a_dose_changed_updates_that_medicine_only(old: str, new: str, kind: str) -> None:
    assert dedup.judge([dedup.prepare("f1", old)], new).kind == kind


def test_of_two_medicines_the_changed_one_is_updated() -> None:
    facts = [
        dedup.prepare("donepezil", "Pat takes donepezil 5mg at night."),
        dedup.prepare("memantine", "Pat takes memantine 10mg in the morning."),
    ]
    verdict = dedup.judge(facts, "Pat's memantine was reduced to 5mg.")
    assert (verdict.kind, verdict.fact_id) == ("update", "memantine")


def test_implied_states_names_the_value_and_nothing_after() -> None:
    assert dedup.implied_states("The user moved to Boulder in October 2026.") == [
        ["the", "user", "lives", "in", "boulder"]
    ]
    assert dedup.implied_states("We moved to Fort Collins and love it.") == [
        ["we", "lives", "in", "fort", "collins"]
    ]
    assert dedup.implied_states("The household moved to Boulder.")[1][:2] == ["the", "user"]
    assert dedup.implied_states("Theo's practice moved to Thursdays.") == []
    assert dedup.implied_states("Lina turned 7!") == [["lina", "is", "7"]]
