"""The search tokenizer: folding, splitting, apostrophes, stopwords and stemming."""

from __future__ import annotations

import threading

import pytest
import Stemmer
from hypothesis import given
from hypothesis import strategies as st

from vault_app.search import tokenizer

PLAIN = tokenizer.Tokenizer(stem=False)
STEMMED = tokenizer.Tokenizer()


def test_lowercase_words_without_stopwords() -> None:
    text = "The Team agreed to MOVE the launch to March"
    assert PLAIN.tokenize(text) == ["team", "agreed", "move", "launch", "march"]


def test_stemming_is_on_by_default_and_can_be_turned_off() -> None:
    text = "Running runs; the companies ran"
    assert STEMMED.stem and not PLAIN.stem
    assert STEMMED.tokenize(text) == ["run", "run", "compani", "ran"]
    assert PLAIN.tokenize(text) == ["running", "runs", "companies", "ran"]


def test_repeats_and_order_are_kept() -> None:
    assert PLAIN.tokenize("coffee tea coffee") == ["coffee", "tea", "coffee"]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("ＦＵＬＬ ｗｉｄｔｈ", ["full", "width"]),  # NFKC
        ("ﬁle", ["file"]),  # ligature
        ("Straße STRASSE", ["strasse", "strasse"]),  # casefold, not lower
        ("Ünïcödé naïve CAFÉ café", ["ünïcödé", "naïve", "café", "café"]),
        ("cafe\u0301", ["café"]),  # combining accent composed by NFKC
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),  # vowel signs (combining marks) stay in the word
        ("İstanbul", ["i\u0307stanbul"]),  # the casefolded dot is a mark, not a separator
        ("Москва Αθήνα", ["москва", "αθήνα"]),
        ("東京タワー", ["東", "京", "タワー"]),  # one token per ideograph, katakana runs whole
    ],
)
def test_unicode(text: str, tokens: list[str]) -> None:
    assert PLAIN.tokenize(text) == tokens


def test_underscores_and_punctuation_separate_words() -> None:
    assert PLAIN.tokenize("snake_case, dots.and/slashes|pipes") == [
        "snake",
        "case",
        "dots",
        "slashes",
        "pipes",
    ]


def test_hyphens_split_words() -> None:
    assert PLAIN.tokenize("follow-up x-ray e-mail") == ["follow", "x", "ray", "e", "mail"]
    assert PLAIN.tokenize("follow up") == PLAIN.tokenize("follow-up")


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Q3 2024 401k", ["q3", "2024", "401k"]),
        ("2024-03-15", ["2024", "03", "15"]),
        ("3.5 kg, 1,000 USD, version 10.0.1.", ["3.5", "kg", "1,000", "usd", "version", "10.0.1"]),
        ("v2.1", ["v2", "1"]),
        ("item 7.", ["item", "7"]),
        ("０１２", ["012"]),
    ],
)
def test_numbers(text: str, tokens: list[str]) -> None:
    assert PLAIN.tokenize(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Jane's car", ["jane", "car"]),  # possessive removed
        ("Jane’s car", ["jane", "car"]),  # typographic apostrophe too
        ("the Joneses' house", ["joneses", "house"]),  # a trailing apostrophe is dropped
        ("O'Neill", ["oneill"]),  # inner apostrophes are removed
        ("don't, we'll, I'd, it's", []),  # contractions of stopwords are stopwords
        ("well ill id", ["well", "ill", "id"]),  # ... but not the words they spell
        ("'quoted'", ["quoted"]),
    ],
)
def test_apostrophes(text: str, tokens: list[str]) -> None:
    assert PLAIN.tokenize(text) == tokens


def test_stemming_sees_words_after_apostrophes() -> None:
    assert STEMMED.tokenize("Jane's meetings") == ["jane", "meet"]


def test_the_stopword_list_is_deliberate() -> None:
    stop = tokenizer.DEFAULT_STOPWORDS
    assert {"the", "of", "and", "a", "to", "is", "not", "don't"} <= stop
    assert not {"may", "us", "march", "well", "ill", "coffee"} & stop
    assert PLAIN.tokenize("the of and to in is") == []
    assert all(word == tokenizer.fold(word) for word in stop)


def test_custom_stopwords() -> None:
    everything = tokenizer.Tokenizer(stem=False, stopwords=())
    assert everything.tokenize("The cat") == ["the", "cat"]
    own = tokenizer.Tokenizer(stem=False, stopwords=["CAT"])  # folded like the text
    assert own.tokenize("The cat") == ["the"]
    assert own.stopwords == frozenset({"cat"})


def test_fingerprint_names_the_settings() -> None:
    fingerprints = {
        tokenizer.Tokenizer().fingerprint,
        tokenizer.Tokenizer(stem=False).fingerprint,
        tokenizer.Tokenizer(stopwords=()).fingerprint,
    }
    assert len(fingerprints) == 3
    assert tokenizer.Tokenizer().fingerprint == STEMMED.fingerprint
    assert f"v{tokenizer.TOKENIZER_VERSION}" in STEMMED.fingerprint


def test_tokenize_many_is_tokenize_of_each() -> None:
    texts = ["Jane prefers tea", "", "the", "Meetings on Monday", "Jane prefers tea"]
    assert STEMMED.tokenize_many(texts) == [STEMMED.tokenize(text) for text in texts]
    assert STEMMED.tokenize_many(iter(texts)) == STEMMED.tokenize_many(texts)


def test_the_cache_does_not_change_results() -> None:
    fresh = tokenizer.Tokenizer()
    text = "Running meetings with Jane's companies"
    first = fresh.tokenize(text)
    assert fresh.tokenize(text) == first == tokenizer.Tokenizer().tokenize(text)


def test_threads_share_a_tokenizer() -> None:
    shared = tokenizer.Tokenizer()
    words = [f"running{i} jumping{i} companies{i}" for i in range(2000)]
    expected = tokenizer.Tokenizer().tokenize_many(words)
    results: list[list[list[str]]] = []

    def work() -> None:
        results.append(shared.tokenize_many(words))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80) | st.lists(
    st.sampled_from(
        ["The", "jane's", "follow-up", "3.5", "naïve", "don't", "O'Neill", "_", " ", "-", "东京"]
    ),
    max_size=12,
).map(" ".join)


@given(TEXT)
def test_tokens_are_folded_nonempty_words(text: str) -> None:
    for tk in (PLAIN, STEMMED):
        for token in tk.tokenize(text):
            assert token
            assert token == token.casefold()
            assert not any(char.isspace() for char in token)
            assert "_" not in token
            assert "'" not in token


@given(TEXT)
def test_no_stopword_survives(text: str) -> None:
    assert not set(PLAIN.tokenize(text)) & tokenizer.DEFAULT_STOPWORDS


@given(TEXT)
def test_tokenizing_tokens_again_changes_nothing(text: str) -> None:
    tokens = PLAIN.tokenize(text)
    assert PLAIN.tokenize(" ".join(tokens)) == tokens


@given(TEXT)
def test_stemmed_tokens_are_the_stems_of_the_plain_ones(text: str) -> None:
    stemmer = Stemmer.Stemmer("english")
    assert STEMMED.tokenize(text) == stemmer.stemWords(PLAIN.tokenize(text))


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_the_ascii_fast_path_agrees_with_the_unicode_path(text: str) -> None:
    # A non-ASCII character that is a separator sends the text down the Unicode path.
    assert PLAIN.tokenize(text) == PLAIN.tokenize(text + " \u00a7")
