"""The one tokenizer of the search engine, applied alike to documents and to queries.

A text becomes tokens in five steps:

1. **Fold.** Unicode NFKC normalisation, then `str.casefold`, then NFKC again (so "ＦＵＬＬ",
   "ﬁle", "ℌ" and "Straße" become "full", "file", "h" and "strasse"). The typographic
   apostrophes ’ and ʼ become '. Pure-ASCII text takes a fast path (`str.lower`, which is
   the same thing there).
2. **Split.** A word is a run of Unicode letters and digits (`\\w` without `_`, so
   "snake_case" is two words) plus the combining marks that Python's `\\w` leaves out
   (Devanagari vowel signs, the dot of a casefolded "İ"), so "हिन्दी" stays one word.
   Everything else separates words: spaces, punctuation, and **hyphens** ("follow-up" is
   "follow" and "up", "2024-03-15" is "2024", "03" and "15"), so a query spelt either way
   still finds the words. **Digits** are kept: "q3", "401k" and "2024" are words, and a
   number with inner dots or commas stays whole ("3.5", "1,000", "10.0.1"). An
   **apostrophe** between letters stays inside the word for the next step ("jane's",
   "don't", "o'neill"); a leading or trailing one is dropped. Han ideographs and hiragana,
   written without spaces, are one token per character (katakana runs stay whole).
3. **Possessives.** A final "'s" is removed: "Jane's" is "jane", "it's" is "it".
4. **Stopwords.** A word in the stopword list is dropped, looked up with its apostrophe
   ("don't", "we'll" and "i'd" are stopwords, but "well", "ill" and "id" are not); then the
   remaining apostrophes are removed ("o'neill" is "oneill"), and the result is looked up
   once more. `DEFAULT_STOPWORDS` is a deliberate English list: articles, pronouns,
   auxiliaries, conjunctions, common prepositions and their contractions, negations
   included (BM25 cannot use "not"; "does not like coffee" should still match "coffee").
   It matters more than usual here: rank_bm25's idf floor (epsilon times the average idf)
   gives a word found in most documents, such as "the", a weight above that of rarer
   words, so such words must not reach the index. Left out on purpose: "may" (a month)
   and "us" (the country); in on purpose, despite the names and acronyms they also
   spell: "will", "it", "who".
5. **Stemming** (optional, on by default): the English Snowball stemmer of PyStemmer
   ("running" and "runs" become "run", "companies" "compani").

Each surface word's token is cached (up to a million words), so a word is looked up and
stemmed once per tokenizer: with the C regex and `map` over the cache, `tokenize_many`
costs about 8 µs for a 15-word fact.
`Tokenizer.fingerprint` names the settings, for caches built with one.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable

import Stemmer

TOKENIZER_VERSION = 1
"""Bumped whenever the rules above change, so that persisted indexes are rebuilt."""

_STOPWORD_TEXT = """
    a an the
    i me my mine myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs
    themselves
    what which who whom whose this that these those
    am is are was were be been being have has had having do does did doing
    will would shall should can could might must
    and but if or because as until while so than too very nor not no
    of at by for with about against between into through during before after above
    below to from up down in out on off over under again further then once
    here there when where why how all any both each few more most other some such
    only own same just now also
    i'm i've i'll i'd you're you've you'll you'd he'll he'd she'll she'd it'll it'd
    we're we've we'll we'd they're they've they'll they'd that'll that'd there'll
    there'd what'll who'll who'd
    isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't
    wouldn't shan't shouldn't can't cannot couldn't mustn't mightn't needn't ain't
"""
DEFAULT_STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())

_CACHE_LIMIT = 1_000_000
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


def _combining_marks() -> str:
    """A regex class body of the combining marks (Mn, Mc, Me) of the common scripts."""
    blocks = [(0x0300, 0x1DFF), (0x20D0, 0x20FF), (0x302A, 0x302F), (0xA670, 0xABFF)]
    blocks += [(0xFE00, 0xFE0F), (0xFE20, 0xFE2F)]
    marks = [
        code
        for first, last in blocks
        for code in range(first, last + 1)
        if unicodedata.category(chr(code)) in ("Mn", "Mc", "Me")
    ]
    ranges: list[str] = []
    start = prev = marks[0]
    for code in [*marks[1:], -1]:
        if code != prev + 1:
            ranges.append(f"\\u{start:04x}-\\u{prev:04x}" if prev > start else f"\\u{start:04x}")
            start = code
        prev = code
    return "".join(ranges)


_CJK = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_LETTER = f"[^\\W_{_CJK}]"
_LETTER_OR_MARK = f"(?:{_LETTER}|[{_combining_marks()}])"
_NUMBER = r"\d+(?:[.,]\d+)+"
_UNICODE_TOKEN = re.compile(
    f"{_NUMBER}|{_LETTER}{_LETTER_OR_MARK}*(?:'{_LETTER_OR_MARK}+)*|[{_CJK}]"
)
_ASCII_TOKEN = re.compile(rf"{_NUMBER}|[a-z0-9]+(?:'[a-z0-9]+)*")


def fold(text: str) -> str:
    """NFKC, casefold, NFKC (repeated until stable) and one kind of apostrophe."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text)
    for _ in range(8):  # a fixed point is reached in one or two rounds
        again = unicodedata.normalize("NFKC", folded.casefold())
        if again == folded:
            break
        folded = again
    return folded.translate(_APOSTROPHES)


class Tokenizer:
    """Text to BM25 tokens by the rules of this module; safe to share between threads."""

    def __init__(self, *, stem: bool = True, stopwords: Iterable[str] = DEFAULT_STOPWORDS):
        self._stem = stem
        self._stopwords = frozenset(fold(word) for word in stopwords)
        self._stemmer = Stemmer.Stemmer("english") if stem else None
        self._stemmer_lock = threading.Lock()  # a PyStemmer object is not thread-safe
        self._cache = _TokenCache(self._token)  # surface word -> token, "" when dropped

    def clear_cache(self) -> None:
        """Forget every word's cached token: after a bulk build, whose hundred thousand
        words would pin the memory it freed (they are cached again as queries use them)."""
        self._cache.clear()

    @property
    def stem(self) -> bool:
        return self._stem

    @property
    def stopwords(self) -> frozenset[str]:
        return self._stopwords

    @property
    def fingerprint(self) -> str:
        """Names the rules and settings: equal fingerprints give equal tokens."""
        digest = hashlib.sha256("\n".join(sorted(self._stopwords)).encode()).hexdigest()
        stemmer = "snowball-english" if self._stem else "none"
        return f"tokenizer-v{TOKENIZER_VERSION};stem={stemmer};stopwords={digest[:16]}"

    def tokenize(self, text: str) -> list[str]:
        """The tokens of one text, in order, repeats kept."""
        if text.isascii():
            words = _ASCII_TOKEN.findall(text.lower())
        else:
            words = _UNICODE_TOKEN.findall(fold(text))
        return list(filter(None, map(self._cache.__getitem__, words)))

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """The tokens of each text; the fast path for indexing."""
        tokenize = self.tokenize
        return [tokenize(text) for text in texts]

    def _token(self, word: str) -> str:
        """The token of one surface word, "" to drop it (called once a word, by the cache)."""
        token = word[:-2] if word.endswith("'s") else word
        if token in self._stopwords:
            token = ""
        elif "'" in token:
            token = token.replace("'", "")
            if token in self._stopwords:
                token = ""
        if token and self._stemmer is not None:
            with self._stemmer_lock:
                token = self._stemmer.stemWord(token)
        return token


class _TokenCache(dict[str, str]):
    """Surface word -> token; a missing word's token is computed, stored and returned."""

    def __init__(self, compute: Callable[[str], str]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, word: str) -> str:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        token = self[word] = self._compute(word)
        return token
