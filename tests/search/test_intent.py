"""Hybrid ranking knows whom a query names and which days it speaks of (`search.intent`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from vault_app.core import decay, vault
from vault_app.search import engine, intent

NOW = dt.datetime(2026, 2, 16, 12, 0).astimezone()


def _at(day: str, time: str = "10:00") -> dt.datetime:
    return dt.datetime.fromisoformat(f"{day} {time}").astimezone()


@pytest.fixture
def chats(tmp_path: Path) -> vault.Vault:
    """Two people who both got a pet, in facts and in a chat agent's daily turns."""
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    v.create_agent("chat")
    v.add_fact(
        "areas/people/maya-chen",
        "Maya adopted a beagle puppy and named her Pepper.",
        "context",
        create=True,
        at=_at("2025-05-10"),
    )
    v.add_fact(
        "areas/people/maya-chen", "Maya has a busy week at work.", "context", at=_at("2025-09-02")
    )
    v.add_fact(
        "areas/people/leo-park",
        "Leo brought home a tabby kitten called Miso.",
        "context",
        create=True,
        at=_at("2025-09-03"),
    )
    v.add_fact(
        "areas/people/leo-park", "Leo is learning the cello.", "context", at=_at("2025-05-12")
    )
    v.append_daily(
        "Maya: We came home from the shelter with a puppy!", agent="chat", at=_at("2025-05-10")
    )
    v.append_daily("Leo: There's a kitten living with us now.", agent="chat", at=_at("2025-09-03"))
    v.append_daily("Wren: Morning all.", agent="chat", at=_at("2025-09-03", "10:05"))
    return v


def _keys(search: engine.SearchEngine, texts: list[str]) -> list[str]:
    by_text = {search.document(k).text: k for k in search.columns.keys if search.document(k)}
    return [by_text[t] for t in texts]


def test_names_come_from_entity_titles_and_daily_speakers(chats: vault.Vault) -> None:
    search, _ = engine.open_engine(chats, semantic=False)
    known = search.names.update(search)
    assert {"maya", "chen", "leo", "park", "wren"} <= known  # Wren only ever speaks
    assert intent.named("What is Maya's pet called?", search) == ["maya"]
    assert intent.named("Did Wren say good morning?", search) == ["wren"]
    # a capitalised word the vault never names is none
    assert intent.named("What did Zelda adopt?", search) == []


def test_a_name_typed_in_lower_case_counts_when_the_vault_rarely_writes_it_so(
    chats: vault.Vault,
) -> None:
    """A "maya" is a name in lower case (the notes write it capitalised, never plain); "may"
    is not, in a vault whose notes say "may" as a word, though May speaks there too; a name
    the notes never write (an entity title alone, "Chen") counts only capitalised."""
    for n, text in enumerate(
        [
            "Maya: Pepper chewed my shoe.",
            "Maya: Off to the park with Pepper.",
            "May: Hi all!",
            "May: Back from the oboe lesson.",
            "May: Anyone up for lunch?",
            "Leo: I may come by later.",
            "Maya: We may be late, it may rain.",
        ]
    ):
        chats.append_daily(text, agent="chat", at=_at("2025-09-04", f"1{n}:00"))
    search, _ = engine.open_engine(chats, semantic=False)
    assert {"maya", "may", "chen"} <= search.names.update(search)
    assert intent.named("what is maya's pet called", search) == ["maya"]
    assert intent.named("what did maya do in may", search) == ["maya"]
    assert intent.named("What did May play?", search) == ["may"]  # capitalised: a name
    assert intent.named("what did maya chen adopt", search) == ["maya"]
    assert intent.named("What did Maya Chen adopt?", search) == ["maya", "chen"]
    assert search.names.lower == {"maya"}  # Leo and Wren speak once: too little to tell
    # only the names' counts are kept, not the vocabulary's
    assert set(search.names.plain) <= search.names.words
    # the name left out of the embedded meaning, in lower case as capitalised
    assert intent.meaning("what did maya do in may", ["maya"], search) == "what did do in may"
    assert intent.meaning("what did may do", [], search) == "what did may do"


def test_reading_the_speakers_holds_no_document(chats: vault.Vault) -> None:
    """The speakers are read from the saved documents without keeping them in memory."""
    engine.open_engine(chats, semantic=False)  # builds and saves the index
    search, _ = engine.open_engine(chats, semantic=False)  # loads it: documents unread
    assert search.state.docs.held == {}
    assert "wren" in search.names.update(search)
    assert search.state.docs.held == {}


def test_a_new_speaker_in_a_note_already_read_is_a_name_at_the_next_query(
    chats: vault.Vault,
) -> None:
    """Today's note gains turns after the names were read: its new speakers count."""
    search, _ = engine.open_engine(chats, semantic=False)
    assert intent.named("What did Ottilie say?", search) == []
    chats.append_daily("Ottilie: Hello!", agent="chat", at=_at("2025-09-03", "11:00"))
    search.refresh()
    assert intent.named("What did Ottilie say?", search) == ["ottili"]


def test_a_new_entity_is_a_name_at_the_next_query(chats: vault.Vault) -> None:
    search, _ = engine.open_engine(chats, semantic=False)
    assert intent.named("Has Omar moved?", search) == []
    chats.add_fact("areas/people/omar-haddad", "Omar moved to Lisbon.", "context", create=True)
    search.refresh()
    assert intent.named("Has Omar moved?", search) == ["omar"]


def test_the_meaning_leaves_the_names_out(chats: vault.Vault) -> None:
    search, _ = engine.open_engine(chats, semantic=False)
    assert intent.meaning("What is Maya's pet called?", ["maya"], search) == "What is pet called?"
    assert intent.meaning("Maya", ["maya"], search) == "Maya"  # nothing else: kept
    assert intent.meaning("What is Maya's pet called?", [], search) == "What is Maya's pet called?"


def test_boosts_favour_the_named_person_and_the_days_asked_about(chats: vault.Vault) -> None:
    search, _ = engine.open_engine(chats, semantic=False)
    puppy, busy, kitten, cello = _keys(
        search,
        [
            "Maya adopted a beagle puppy and named her Pepper.",
            "Maya has a busy week at work.",
            "Leo brought home a tabby kitten called Miso.",
            "Leo is learning the cello.",
        ],
    )
    keys = [puppy, busy, kitten, cello]
    got = intent.boosts(search, "What pet did Maya get?", ["maya"], keys)
    assert got.bonus == {puppy: intent.NAME_BOOST, busy: intent.NAME_BOOST}
    assert got.named == {puppy, busy}
    # "in May 2025": the facts stamped that month, whoever they are about
    got = intent.boosts(search, "What happened in May 2025?", [], keys)
    assert got.bonus == {puppy: intent.DATE_BOOST, cello: intent.DATE_BOOST}
    assert got.named == set()
    both = intent.boosts(search, "What did Leo start in May 2025?", ["leo"], keys).bonus
    assert both[cello] == pytest.approx(intent.NAME_BOOST + intent.DATE_BOOST)
    assert both[kitten] == pytest.approx(intent.NAME_BOOST)
    assert intent.boosts(search, "pets", [], keys).bonus == {}


def test_a_name_a_document_only_mentions_counts_less_than_its_owners(
    tmp_path: Path,
) -> None:
    """A fact of Maya's entity and a turn Maya speaks are *of* Maya; Leo's fact that
    names her and a turn said to her only mention her (`documents.owner`)."""
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    v.add_fact("areas/people/maya-chen", "Maya took up bouldering.", "context", create=True)
    v.add_fact("areas/people/leo-park", "Leo drove Maya to the gym.", "context", create=True)
    v.append_daily("**Maya** (D1:1): I finally climbed the orange route!", at=_at("2025-05-10"))
    v.append_daily("**Leo** (D1:2): Maya, that is huge, well done!", at=_at("2025-05-10", "10:01"))
    v.append_daily("**user** (Maya Chen, chat 7): my arms hurt", at=_at("2025-05-11"))
    search, _ = engine.open_engine(v, semantic=False)
    hers, his, said, told, chat = _keys(
        search,
        [
            "Maya took up bouldering.",
            "Leo drove Maya to the gym.",
            "**Maya** (D1:1): I finally climbed the orange route!",
            "**Leo** (D1:2): Maya, that is huge, well done!",
            "**user** (Maya Chen, chat 7): my arms hurt",
        ],
    )
    got = intent.boosts(search, "What did Maya do?", ["maya"], [hers, his, said, told, chat])
    full, fact = intent.NAME_BOOST, intent.NAME_BOOST * intent.MENTION
    turn = intent.NAME_BOOST * intent.MENTION_TURN
    assert intent.MENTION_TURN < intent.MENTION < 1.0
    assert got.bonus == pytest.approx({hers: full, his: fact, said: full, told: turn, chat: full})
    assert got.named == {hers, his, said, told, chat}  # all hold the name: all are matches
    # two names: Leo's fact is of Leo and mentions Maya
    two = intent.boosts(search, "Maya and Leo", ["maya", "leo"], [hers, his]).bonus
    assert two == pytest.approx({hers: full / 2, his: (full + fact) / 2})


def test_the_window_is_the_days_in_local_time() -> None:
    start, end = intent.window("what did we do in March 2025", dt.date(2026, 2, 16)) or (0, 0)
    assert dt.datetime.fromtimestamp(start).date() == dt.date(2025, 3, 1)
    assert end - start == pytest.approx(31 * 86400, abs=3600)  # a DST change moves an hour
    assert intent.window("what pets do we have", dt.date(2026, 2, 16)) is None


def test_hybrid_ranks_the_named_persons_fact_and_turn_first(chats: vault.Vault) -> None:
    pytest.importorskip("onnxruntime")
    search, _ = engine.open_engine(chats)
    assert search.semantic is not None, search.semantic_notice
    facts = engine.Filters(kinds=frozenset({"fact"}))
    for query, wanted in (
        ("Which animal did Leo take in?", "Leo brought home a tabby kitten called Miso."),
        ("Which animal did Maya take in?", "Maya adopted a beagle puppy and named her Pepper."),
    ):
        hits = search.search(query, mode="hybrid", filters=facts, explain=True).hits
        assert hits[0].text == wanted
        assert hits[0].parts["boost"] == pytest.approx(intent.NAME_BOOST)
        # its lexical match is mostly the name, weighed by the boost: BM25 counts less
        weight = search.bm25_weight * intent.NAMED_BM25
        assert hits[0].parts["bm25Weight"] == pytest.approx(weight) != search.bm25_weight
    plain = search.search("which animal was taken in", mode="hybrid", explain=True).hits
    assert plain[0].parts["bm25Weight"] == search.bm25_weight
    turns = engine.Filters(kinds=frozenset({"daily"}))
    hits = search.search("Which animal did Leo take in?", mode="hybrid", filters=turns).hits
    assert hits[0].text.startswith("Leo:")
    # the names are not boosted in the single modes: they stay what they were
    plain = search.search("Which animal did Leo take in?", mode="semantic", explain=True).hits
    assert all("boost" not in h.parts for h in plain)


def test_a_named_query_keeps_the_persons_documents_above_the_floor(chats: vault.Vault) -> None:
    """The meaning is measured without the name: a fact of that person is a match even if
    its cosine to the rest of the question is weak."""
    pytest.importorskip("onnxruntime")
    search, _ = engine.open_engine(chats)
    hits = search.search("What is Leo up to?", mode="hybrid", limit=10).hits
    texts = {h.text for h in hits}
    assert {"Leo brought home a tabby kitten called Miso.", "Leo is learning the cello."} <= texts


def test_a_month_that_is_someones_name_is_a_date_only_when_said_as_one(
    chats: vault.Vault,
) -> None:
    """With June in the vault, "What did June say?" asks about her, not about June's days;
    "in June 2025" is still a date."""
    chats.append_daily("June: The oboe recital went well.", agent="chat", at=_at("2025-06-10"))
    search, _ = engine.open_engine(chats, semantic=False)
    names = intent.named("What did June say?", search)
    assert names == ["june"]
    assert intent.undated("What did June say?", names, search) == "What did  say?"
    keys = list(search.columns.keys)
    june = _keys(search, ["June: The oboe recital went well."])[0]
    asked = intent.boosts(search, "What did June say?", names, keys).bonus
    assert asked[june] == pytest.approx(intent.NAME_BOOST)  # her turn, no date bonus
    assert all(b == pytest.approx(intent.NAME_BOOST) for b in asked.values())
    query = "What did June say in June 2025?"
    dated = intent.boosts(search, query, intent.named(query, search), keys).bonus
    assert dated[june] == pytest.approx(intent.NAME_BOOST + intent.DATE_BOOST)
    assert intent.undated("June 2025 for June", ["june"], search) == "June 2025 for "
    # a month nobody is called is a date as before
    assert intent.undated("What did Maya do in May?", ["maya"], search) == "What did  do in May?"


def test_the_days_asked_about_come_first(chats: vault.Vault) -> None:
    """A fact of the days a query speaks of ranks above one that matches its words better
    outside them: the date is a constraint the asker stated."""
    pytest.importorskip("onnxruntime")
    chats.add_fact(
        "areas/people/leo-park", "Leo has a busy week at work.", "context", at=_at("2025-12-01")
    )
    search, _ = engine.open_engine(chats)
    facts = engine.Filters(kinds=frozenset({"fact"}))
    query = "Which animal did Leo bring home in {}?"
    hits = search.search(query.format("September 2025"), filters=facts).hits
    assert hits[0].text == "Leo brought home a tabby kitten called Miso."
    hits = search.search(query.format("December 2025"), filters=facts).hits
    assert hits[0].text == "Leo has a busy week at work."
    assert hits[1].text == "Leo brought home a tabby kitten called Miso."
