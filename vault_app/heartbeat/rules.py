"""The default extractor: durable facts found by rules, no model.

An entry is split into sentences (lines first, so bullets stand alone; then sentence
ends, not after "Dr." or "St."). Each sentence passes the quality gate or is dropped:
small talk ("thanks", "good morning"), hedges ("maybe", "I think", "probably"),
questions, requests to the agent ("can you", "remind me"), fragments (under three words,
or no verb) and run-ons (over `MAX_SENTENCE` characters). A sentence that passes is
tried against the rules in order, and the first that fires makes one candidate:

    remember     "remember (that) …", "note that …", "don't forget that …", "keep in
                 mind …": the rest is the fact, categorised by the rules below (context
                 when none fires)
    track        "keep track of X", "track X", "keep an eye on X": `track=True`, entity X
    milestone    "X's birthday is March 3", "we got married on …", "passed the exam
                 yesterday", "demolition is scheduled for …" (an event word and a date)
    relationship "X is my/our/the Y", "my Y X", "Y's name is X" (Y a role: rules.toml)
    preference   "<subject> prefer/like/love/hate/can't stand/always/never/usually/wants …",
                 "<subject>'s favourite X is Y"
    status       "X is now …", "the boiler is broken", "<subject> moved to / started /
                 stopped / switched to …", "X was replaced"

The fact text is the sentence made standalone, by one convention: the request words
go ("remember that"), relative dates are made absolute against the entry's date
(dates.resolve: "yesterday" -> "on 2026-11-19"), and the first person is named. When a
named speaker introduces the words ("Alex said I prefer …", "Jordan: we never …") the
speaker stands in for "I" and "my" ("Alex prefers …", "Alex's"); otherwise "I"/"me"
become "the user" and "we"/"us" "the household", with the verb after them agreeing
("I prefer" -> "The user prefers"; "my"/"our" -> "the user's"/"the household's").
Names are kept as written. `entity` is the name the rule found the fact to be about
(the subject of a preference or a relationship, "X" of "X's birthday"); `related` holds
the other capitalised names of the sentence and its `[[links]]`.

Word lists live in `data/rules.toml`. Every pattern is anchored or bounded (no nested
quantifiers, sentences capped in length), so a hostile entry costs time linear in its
size; control characters are read as spaces.
"""

from __future__ import annotations

import datetime as dt
import functools
import importlib.resources
import re
import tomllib
from collections.abc import Iterable, Iterator
from typing import Any

from vault_app.core import models
from vault_app.heartbeat import dates, model

MAX_SENTENCE = 400  # characters: longer is a run-on or a pasted blob, never one fact
MAX_SENTENCES = 2000  # an entry's sentences looked at; the rest of a pasted dump is not
MIN_WORDS = 3

Category = models.FactCategory
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BULLET = re.compile(r"^\s{0,12}(?:[-*+•]|\d{1,3}[.)]|\[[ xX]\])\s+(?:\[[ xX]\]\s+)?")
_SENT_END = re.compile(r"([.!?;])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{0,40}")
_NAME = (
    r"(?:Dr\.\s|Mr\.\s|Mrs\.\s|Ms\.\s|St\.\s)?[A-Z][a-zA-Z’-]{0,30}(?:\s[A-Z][a-zA-Z’-]{0,30}){0,3}"
)
_LINK = re.compile(r"\[\[([^\[\]|\n]{1,120})(?:\|[^\[\]\n]{0,120})?\]\]")
_CAPS = re.compile(
    r"(?<![\w’'])(?:Dr\.|St\.|[A-Z][a-zA-Z’-]{0,30})(?:\s(?:&\s)?[A-Z][a-zA-Z’-]{0,30}){0,4}"
)


@functools.cache
def _words() -> dict[str, Any]:
    text = importlib.resources.files("vault_app.heartbeat").joinpath("data/rules.toml")
    return tomllib.loads(text.read_text(encoding="utf-8"))


def _alt(phrases: Iterable[str]) -> str:
    """A regex alternation of literal phrases, longest first, spaces matching any blank."""
    ordered = sorted(set(phrases), key=len, reverse=True)
    return "|".join(re.escape(p).replace(r"\ ", r"\s+").replace("'", "['’]") for p in ordered)


class _Patterns:
    """The compiled rules (built once from rules.toml)."""

    def __init__(self, words: dict[str, Any]) -> None:
        gate = words["gate"]
        self.small_talk = re.compile(
            r"^(?:(?:"
            + _alt(gate["small_talk"])
            + r")[\s,.!]*){1,4}(?:\s*"
            + _NAME
            + r")?[\s.!]*$",
            re.IGNORECASE,
        )
        self.hedge = re.compile(r"\b(?:" + _alt(gate["hedges"]) + r")\b", re.IGNORECASE)
        self.chore = re.compile(r"(?:^|\b)(?:" + _alt(gate["chores"]) + r")", re.IGNORECASE)
        self.verb = re.compile(
            r"(?:\b(?:" + _alt(gate["verbs"]) + r")\b|\b[a-z]{3,20}ed\b|['’](?:s|re|ve|m|d|ll)\b)",
            re.IGNORECASE,
        )
        self.question = re.compile(
            r"^(?:who|what|when|where|why|how|which|should|shall|could|would|can|do|does|"
            r"did|is|are|was|were|will|have|has|any)\b[^.!]{0,200}$",
            re.IGNORECASE,
        )
        self.not_names = frozenset(words["names"]["not_names"])
        self.abbreviations = frozenset(words["names"]["abbreviations"])
        roles = _alt(words["relationship"]["roles"])
        subject = r"(?P<subj>I|We|" + _NAME + r"|The\s+kids|Both\s+kids|The\s+family)"
        self.speaker = re.compile(
            r"^(?P<who>" + _NAME + r")\s*(?:said|says|told\s+(?:me|us)|mentioned|wrote"
            r"|explained|confirmed)?(?:\s+that)?\s*[:,]?\s+[\"“](?P<rest>.{3,400}?)[\"”]?\s*$"
            r"|^(?P<who2>" + _NAME + r")\s+(?:said|says|told\s+(?:me|us)|mentioned)"
            r"(?:\s+that)?\s*[:,]?\s+(?P<rest2>.{3,400})$"
            r"|^(?P<who3>" + _NAME + r"):\s+(?P<rest3>.{3,400})$"
        )
        self.remember = re.compile(
            r"^(?:(?:please|also|and|oh|btw|fyi)[\s,]+)?(?:(?:" + _NAME + r"|I|we)\s+"
            r"(?:asked|wants|want|told)\s+(?:me|us|you)\s+to\s+)?"
            r"(?:remember|note|keep\s+in\s+mind|for\s+the\s+record|do\s+not\s+forget|"
            r"don['’]t\s+forget|never\s+forget|make\s+a\s+note|note\s+to\s+self)"
            r"(?:\s+that|\s*:|\s*,)\s*(?P<rest>.{3,400})$",
            re.IGNORECASE,
        )
        self.track = re.compile(
            r"^(?:(?:please|also|and)[\s,]+)?(?:(?:can|could)\s+you\s+)?"
            r"(?:keep\s+track\s+of|keep\s+tabs\s+on|keep\s+an\s+eye\s+on|track|start\s+tracking|"
            r"monitor)\s+(?P<what>(?:the\s+|our\s+|my\s+)?[A-Za-z][\w’'&-]{0,30}(?:\s[\w’'&-]{1,30}){0,3}?)"
            r"(?=\s*(?:$|[.,;:!(—-]|\s(?:for|from|and|so|because|until|please|now|going)\b))",
            re.IGNORECASE,
        )
        self.birthday = re.compile(
            r"\b(?P<who>" + _NAME + r")['’]s\s+(?:\w+\s+){0,2}(?P<what>birthday|anniversary|"
            r"name\s+day|due\s+date|wedding|graduation|recital|surgery|appointment|exam)\b",
        )
        self.event = re.compile(
            r"\b(?:" + _alt(words["milestone"]["events"]) + r")\b", re.IGNORECASE
        )
        self.rel_is = re.compile(
            r"^(?P<x>" + _NAME + r")(?:\s\([^)]{1,40}\))?\s+(?:is|was|are)\s+"
            r"(?:(?P<pos>my|our|the|(?:" + _NAME + r")['’]s)\s+(?:new\s+|old\s+|favou?rite\s+|"
            r"regular\s+|usual\s+|family\s+|youngest\s+|oldest\s+|older\s+|younger\s+|"
            r"little\s+|big\s+|best\s+|next-door\s+)?(?P<y>" + roles + r")"
            r"|(?P<pos2>my|our|(?:"
            + _NAME
            + r")['’]s)\s+(?P<y2>[a-z][a-z-]{1,30}(?:\s[a-z][a-z-]{1,30})?))\b",
        )
        self.rel_my = re.compile(
            r"\b(?P<pos>[Mm]y|[Oo]ur|(?:" + _NAME + r")['’]s)\s+(?:new\s+|old\s+|"
            r"favou?rite\s+|youngest\s+|oldest\s+|older\s+|younger\s+|little\s+|big\s+|best\s+)?"
            r"(?P<y>" + roles + r")\s*,?\s+(?:is\s+(?:called|named)\s+)?(?P<x>" + _NAME + r")\b",
        )
        self.rel_name = re.compile(
            r"\b(?P<pos>[Mm]y|[Oo]ur|[Tt]he|(?:" + _NAME + r")['’]s)\s+(?P<y>" + roles + r")"
            r"['’]s\s+name\s+is\s+(?P<x>" + _NAME + r")\b"
            r"|\b(?P<pos2>[Mm]y|[Oo]ur|(?:" + _NAME + r")['’]s)\s+(?P<y2>" + roles + r")\s+is\s+"
            r"(?:called\s+|named\s+)?(?P<x2>" + _NAME + r")\b",
        )
        self.preference = re.compile(
            r"^(?:(?:also|and|but|so|oh|btw)[\s,]+)?" + subject + r"\s+"
            r"(?:(?:really|also|still|definitely|strongly|much|both|all|absolutely|generally)\s+){0,2}"
            r"(?P<verb>" + _alt(words["preference"]["verbs"]) + r")\b(?!\s+(?:me|us|you)\s+to\b)",
            re.IGNORECASE,
        )
        self.favourite = re.compile(
            r"\b(?P<subj>[Mm]y|[Oo]ur|(?:"
            + _NAME
            + r")['’]s)\s+favou?rite\s+\w{2,30}(?:\s\w{2,30})?\s+is\b"
        )
        self.status_is = re.compile(
            r"^(?P<subj>(?:[Tt]he|[Oo]ur|[Mm]y|"
            + _NAME
            + r"['’]s)\s+[\w’'&-]{1,30}(?:\s[\w’'&-]{1,30}){0,4}?"
            r"|" + _NAME + r")\s+(?:is|are|was|were|has\s+been|have\s+been|got|went)\s+"
            r"(?:now\s+|finally\s+|already\s+|officially\s+|still\s+|fully\s+|all\s+){0,2}"
            r"(?:(?:" + _alt(words["status"]["states"]) + r")\b|now\b)",
        )
        self.status_change = re.compile(
            r"^(?:(?:also|and|so)[\s,]+)?(?P<subj>I|We|" + _NAME + r"|(?:[Tt]he|[Oo]ur|[Mm]y)\s+"
            r"[\w’'-]{1,30}(?:\s[\w’'-]{1,30}){0,2}?)\s+(?:(?:has|have|had|just|finally|officially)\s+){0,2}"
            r"(?:" + _alt(words["status"]["changes"]) + r")\b",
        )
        self.subject_name = re.compile(
            r"(?P<name>" + _NAME + r")(?=['’]s\b|\s+(?:(?:has|have|had|just|finally)\s+)?"
            r"(?:[a-z]{2,20}ed|[a-z]{2,20}s|" + _alt(gate["verbs"]) + r")\b)"
        )
        grammar = words["grammar"]
        self.keep = frozenset(grammar["keep"])
        self.first_person = re.compile(
            r"\b(?P<c>I['’]m|I['’]ve|I['’]d|I['’]ll|we['’]re|we['’]ve|we['’]d|we['’]ll)"
            r"|\b(?P<pro>I|we|We)\b(?P<tail>(?:\s+(?:" + _alt(grammar["adverbs"]) + r")){0,2}"
            r"\s+(?P<verb>[A-Za-z'’]{1,20}))?"
            r"|\b(?P<obj>me|us)\b|\b(?P<pos>[Mm]y|[Oo]ur|mine|ours)\b"
        )
        self.now_is = re.compile(r"\b(?:is|are)\s+now\b|\bno\s+longer\b", re.IGNORECASE)


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns(_words())


# -- the gate ------------------------------------------------------------------------------


def passes_gate(text: str) -> bool:
    """Whether a sentence may hold a durable fact: not small talk, not a hedge, not a
    question or a request to the agent, not a fragment (too short, no verb), not a run-on."""
    sentence = " ".join(_CONTROL.sub(" ", text).split())
    if not sentence or len(sentence) > MAX_SENTENCE:
        return False
    pats = _patterns()
    if pats.small_talk.match(sentence):
        return False
    if len(_WORD.findall(sentence)) < MIN_WORDS:
        return False
    if sentence.rstrip().endswith("?") or pats.question.match(sentence):
        return False
    if pats.hedge.search(sentence) or pats.chore.search(sentence):
        return False
    if sentence.endswith(":"):
        return False  # a heading for the bullets below it
    return pats.verb.search(sentence) is not None


# -- splitting -----------------------------------------------------------------------------


def sentences(text: str) -> Iterator[str]:
    """The entry's lines (bullets stripped), each cut at its sentence ends."""
    count = 0
    for raw in _CONTROL.sub(" ", text).splitlines():
        line = _BULLET.sub("", raw).strip()
        if not line or line.startswith("#"):
            continue
        for part in _split_line(line):
            yield part
            count += 1
            if count >= MAX_SENTENCES:
                return


def _split_line(line: str) -> Iterator[str]:
    abbreviations = _patterns().abbreviations
    start = 0
    for match in _SENT_END.finditer(line):
        before = line[max(start, match.start() - 8) : match.start()].rsplit(None, 1)
        word = before[-1].lower() if before else ""
        if match.group(1) == "." and (word in abbreviations or len(word) == 1):
            continue  # "Dr. Okafor", "St. Anne's", an initial
        piece = line[start : match.start() + 1].strip()
        if piece:
            yield piece
        start = match.end()
    tail = line[start:].strip()
    if tail:
        yield tail


# -- the rules -----------------------------------------------------------------------------


def candidates(entry: model.Entry) -> list[model.Candidate]:
    """The candidate facts of one entry, in text order."""
    found: list[model.Candidate] = []
    seen: set[str] = set()
    for sentence in sentences(entry.text):
        candidate = _from_sentence(sentence, entry)
        if candidate is not None and candidate.fact.lower() not in seen:
            seen.add(candidate.fact.lower())
            found.append(candidate)
    return found


def _from_sentence(sentence: str, entry: model.Entry) -> model.Candidate | None:
    if len(sentence) > MAX_SENTENCE:
        return None
    pats = _patterns()
    speaker = None
    quoted = pats.speaker.match(sentence)
    if quoted:
        who = quoted.group("who") or quoted.group("who2") or quoted.group("who3")
        rest = quoted.group("rest") or quoted.group("rest2") or quoted.group("rest3")
        if who.split()[0].lower() not in pats.not_names and re.match(
            r"(?:I|We|My|Our|I['’]m|I['’]ve|We['’]re)\b", rest
        ):
            speaker, sentence = who, rest.strip().rstrip('”"')
    explicit = pats.remember.match(sentence)
    if explicit:
        sentence = explicit.group("rest").strip()
        sentence = sentence[:1].upper() + sentence[1:]
    tracked = pats.track.match(sentence)
    if tracked:
        return _track(sentence, tracked, entry)
    if not passes_gate(sentence):
        return None
    ruled = _classify(sentence, entry.date)
    if ruled is None:
        if not explicit:
            return None
        ruled = Category.CONTEXT, None
    category, entity = ruled
    text = _standalone(dates.resolve(sentence, entry.date), speaker)
    first_person = re.match(r"(?:I|We)\b", sentence) is not None
    if entity in ("I", "We") or (entity is None and speaker and first_person):
        entity = speaker
    if entity in ("I", "We"):
        entity = None
    return model.Candidate(
        fact=text,
        category=category,
        entry=entry,
        entity=entity,
        related=_related(text, entity, pats),
        confidence=1.0 if explicit else 0.8,
    )


def _classify(sentence: str, on: dt.date) -> tuple[Category, str | None] | None:
    """(category, entity) by the first rule that fires, or None."""
    pats = _patterns()
    birthday = pats.birthday.search(sentence)
    if birthday and dates.dates_in(sentence, on):
        return Category.MILESTONE, _clean_name(birthday.group("who"))
    for rule in (pats.rel_name, pats.rel_my):
        rel = rule.search(sentence)
        if rel:
            return Category.RELATIONSHIP, _clean_name(rel.group("x") or rel.group("x2"))
    rel = pats.rel_is.match(sentence)
    if rel and _is_name(rel.group("x"), pats):
        return Category.RELATIONSHIP, _clean_name(rel.group("x"))
    if pats.event.search(sentence) and dates.dates_in(sentence, on):
        return Category.MILESTONE, _subject_name(sentence, pats)
    pref = pats.preference.match(sentence)
    if pref and _subject_ok(pref.group("subj"), pats):
        return Category.PREFERENCE, _subject(pref.group("subj"))
    fav = pats.favourite.search(sentence)
    if fav:
        return Category.PREFERENCE, _subject(
            fav.group("subj").removesuffix("'s").removesuffix("’s")
        )
    for rule in (pats.status_is, pats.status_change):
        status = rule.match(sentence)
        if status and _subject_ok(status.group("subj"), pats):
            return Category.STATUS, _subject(status.group("subj"))
    if pats.now_is.search(sentence):
        return Category.STATUS, _subject_name(sentence, pats)
    return None


def _track(sentence: str, match: re.Match[str], entry: model.Entry) -> model.Candidate:
    what = match.group("what").strip()
    bare = re.sub(r"^(?:the|our|my)\s+", "", what, flags=re.IGNORECASE)
    entity = _clean_name(bare) if bare[:1].isupper() else bare.lower()
    fact = _standalone(f"The user asked to keep track of {what}", None)
    pats = _patterns()
    return model.Candidate(
        fact=fact,
        category=Category.CONTEXT,
        entry=entry,
        entity=entity,
        related=_related(sentence, entity, pats),
        track=True,
    )


# -- names ---------------------------------------------------------------------------------


def _is_name(text: str | None, pats: _Patterns) -> bool:
    if not text:
        return False
    first = text.split()[0].rstrip(".").lower()
    return first not in pats.not_names or first in ("dr", "st", "mr", "mrs", "ms")


def _subject_ok(subj: str, pats: _Patterns) -> bool:
    if subj in ("I", "We") or subj.lower().startswith(("the ", "our ", "my ", "both ")):
        return True
    if re.search(r"['’]s\s", subj):  # "Jordan's car"
        return True
    return _is_name(subj, pats)


def _subject(subj: str) -> str | None:
    """The entity a subject names: a person for "Alex", "Jordan's car"; none for "the boiler"."""
    if subj in ("I", "We", "we", "i"):
        return subj.upper() if subj.lower() == "i" else "We"
    owner = re.match(r"^(" + _NAME + r")['’]s\s", subj)
    if owner:
        return None  # "Jordan's car is broken": about the car, which routing finds by name
    if subj[:1].isupper() and not subj.lower().startswith(("the ", "our ", "my ", "both ")):
        return _clean_name(subj)
    return None


def _subject_name(sentence: str, pats: _Patterns) -> str | None:
    """The name opening the sentence, when a verb or a possessive follows it ("Theo
    started", "Maya's"), so "Demolition of the bathroom" names nobody."""
    first = pats.subject_name.match(sentence)
    if first and _is_name(first.group("name"), pats) and not first.group("name").endswith("ed"):
        return _clean_name(first.group("name"))
    return None


def _clean_name(name: str | None) -> str | None:
    if not name:
        return None
    return " ".join(name.replace("’", "'").removesuffix("'s").split()).rstrip(".,;:") or None


def _related(text: str, entity: str | None, pats: _Patterns) -> tuple[str, ...]:
    """The sentence's `[[links]]` and capitalised names, entity and month/day words aside."""
    names: list[str] = [link.strip() for link in _LINK.findall(text)]
    for match in _CAPS.finditer(_LINK.sub(" ", text)):
        words = match.group(0).split()
        while (
            words
            and words[0].rstrip(".").lower() in pats.not_names
            and words[0] not in ("Dr.", "St.")
        ):
            words = words[1:]
        while words and words[-1].lower() in pats.not_names:
            words = words[:-1]
        name = _clean_name(" ".join(words))
        if name and name not in ("Dr.", "St.") and len(name) > 1:
            names.append(name)
    skip = {entity.lower()} if entity else set()
    out: list[str] = []
    for name in names:
        if name.lower() not in skip:
            skip.add(name.lower())
            out.append(name)
    return tuple(out[:12])


# -- the standalone sentence ---------------------------------------------------------------

_AGREE = {
    "am": "is", "are": "is", "have": "has", "do": "does", "don't": "doesn't", "were": "was",
    "aren't": "isn't", "haven't": "hasn't", "weren't": "wasn't",
}  # fmt: skip
_CONTRACTION = {"'m": " is", "'ve": " has", "'d": " would", "'ll": " will", "'re": " is"}


def _standalone(text: str, speaker: str | None) -> str:
    """`text` with its first person named: the speaker, or the user / the household."""
    text = " ".join(text.split()).strip()

    def who(word: str) -> str:
        singular = word.lower() in ("i", "me", "my", "mine") or word.lower().startswith("i")
        if speaker:
            return speaker
        return "the user" if singular else "the household"

    def swap(match: re.Match[str]) -> str:
        if match.group("c"):
            word = match.group("c").replace("’", "'")
            head, _, tail = word.partition("'")
            return who(head) + _CONTRACTION["'" + tail.lower()]
        if match.group("pro"):
            pro = match.group("pro")
            verb = match.group("verb")
            if pro == "I" and match.start() > 0 and text[match.start() - 1] == "-":
                return match.group(0)
            if verb is None:
                return who(pro)
            tail = match.group("tail")
            head = tail[: len(tail) - len(verb)]
            return who(pro) + head + _agree(verb)
        if match.group("obj"):
            return who(match.group("obj"))
        return who(match.group("pos")) + "'s"

    out = _patterns().first_person.sub(swap, text)
    out = out[:1].upper() + out[1:]
    if out and out[-1] not in ".!":
        out = out.rstrip(";,") + "."
    return out


def _agree(verb: str) -> str:
    """The third-person singular of the verb after I/we ("prefer" -> "prefers")."""
    word = verb.lower().replace("’", "'")
    if word in _AGREE:
        return _AGREE[word]
    if word in _patterns().keep or word.endswith(("ed", "'t")) or not word.isalpha():
        return verb
    if word.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# -- the extractor -------------------------------------------------------------------------


class RuleExtractor:
    """The default extractor: `candidates` over each entry (implements model.Extractor)."""

    name = "rules"

    def extract(self, entries: list[model.Entry]) -> model.Extraction:
        """Never fails an entry: a rule that trips on odd text skips that entry's rest."""
        extraction = model.Extraction()
        for entry in entries:
            try:
                extraction.candidates.extend(candidates(entry))
            except (ValueError, OverflowError, RecursionError):
                continue  # nothing durable in text the rules cannot read
        return extraction
