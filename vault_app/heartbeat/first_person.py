"""A sentence's first person named, so that the fact stands alone (and stated: it ends
with a stop, a last "!" too).

"I"/"me"/"my" become the speaker when one was named (a conversation's turn: "**Tim**"),
otherwise "the user" ("we"/"us"/"our": "the household"), with the verb after them
agreeing ("I prefer" -> "The user prefers", "I'd never felt" -> "… had never felt", a
past with a prefix kept: "I retook" -> "… retook");
once named, the speaker is "they", "them", "their" for the rest of the sentence unless
someone else was named since (`_someone`: a pronoun, or a capitalised word that is no
month or day, nor a place after a preposition or a name after an article). The patterns
of the first person are `rulebook`'s (`first_person`), the verbs that keep their form
after "the user" `data/rules.toml`'s `[grammar] keep`.
"""

from __future__ import annotations

import re

from vault_app.heartbeat import rulebook

_AGREE = {
    "am": "is", "are": "is", "have": "has", "do": "does", "don't": "doesn't", "were": "was",
    "aren't": "isn't", "haven't": "hasn't", "weren't": "wasn't", "wanna": "wants to",
    "gotta": "has to",
}  # fmt: skip
# present tenses that end as a past does: "I need" -> "needs", as "I moved" stays
_PRESENT_ED = frozenset(
    ("need", "feed", "bleed", "breed", "proceed", "succeed", "exceed", "speed", "seed",
     "heed", "shred", "embed", "wed")
)  # fmt: skip
_PREFIX = re.compile(r"^(?:re|over|under|out|mis|with|fore|up)(?=[a-z]{2})")
# what `[grammar] keep` holds that takes no prefix: "can", "will" ("rewill" is no word)
_BARE = frozenset(("can", "could", "will", "would", "should", "must", "might", "may", "ought"))
_CONTRACTION = {"'m": " is", "'ve": " has", "'d": " would", "'ll": " will", "'re": " is"}
# after "I'd", a past participle makes it "had" ("I'd been", "I'd never felt", "I'd
# finished"), else it is "would" ("I'd love", "I'd need")
_PARTICIPLE = re.compile(
    r"\s+(?:(?:never|already|just|always|ever|finally|recently)\s+)?(?:been|felt|seen|done"
    r"|gone|had|made|known|heard|thought|taken|given|met|found|left|lost|got|gotten|told"
    r"|won|written|read|eaten|spent|begun|built|bought|brought|[a-z]+(?<!e)ed)\b",
    re.IGNORECASE,
)


# what two people do together that is each one's: "We got engaged", "We're married"
_COUPLE = re.compile(
    r"We(?P<adv>\s+(?:just|finally|recently|officially))?"
    r"(?:\s+(?P<are>are)|(?P<re>['’]re)|(?=\s+got))"
    r"(?=\s+(?:(?:just|finally|now|officially)\s+)?(?:got\s+|getting\s+)?"
    r"(?:engaged|married|divorced|separated)\b)"
)


_NAME_IS = re.compile(r"\b((?:[Mm]y|[Oo]ur)\s+(?:first\s+|full\s+|last\s+)?names?)['’]s\b")


def standalone(text: str, speaker: str | None) -> str:
    """`text` with its first person named: the speaker, or the user / the household. Once
    named, with no one else named between, the speaker is "they"/"them"/"their" ("I take
    my coffee black" -> "The user takes their coffee black", not "… the user's coffee";
    "I feel like I could write a movie when I'm out there" -> "Joanna feels like they
    could write a movie when they're out there"); after another name it is the
    speaker's name again ("Jon told Gina about Jon's plan"). "My husband and I" opens with
    the person, as one says it of others: "The user and their husband"."""
    text = _NAME_IS.sub(r"\1 is", " ".join(text.split()).strip())  # "My name's Alex"
    text = _ME_AND.sub(r"\1 and I", text, 1)  # "Me and Daniel set the date": "Daniel and I"
    if couple := _COUPLE.match(text):  # "We got engaged": the user did, with someone
        verb = " am" if couple["are"] or couple["re"] else ""
        text = "I" + (couple["adv"] or "") + verb + text[couple.end() :]
    named_at = [-1]  # where the speaker was last named in `text`, -1 before
    first_at = [-1]  # where the speaker was first named, -1 before
    plural_at = [False]  # whether it was first named as "we": the household, not the user
    if mine := _MINE_AND_I.match(text):  # "My husband and I are" -> "The user and their
        lead = f"{speaker or 'the user'} and their {mine.group('kin')}"  # husband are"
        text = lead + text[mine.end() :]
        named_at[0] = first_at[0] = len(lead)

    def who(word: str) -> str:
        singular = word.lower() in ("i", "me", "my", "mine") or word.lower().startswith("i")
        if speaker:
            return speaker
        return "the user" if singular else "the household"

    def swap(match: re.Match[str]) -> str:
        if match.group("c"):
            word = match.group("c").replace("’", "'")
            head, _, tail = word.partition("'")
            if tail.lower() == "d" and _PARTICIPLE.match(text, match.end()):
                return who(head) + " had"  # "I'd never felt" -> "… had never felt"
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
            if _with_me(text, match.start()):  # "My husband and I are": two
                return who(pro) + head + verb
            return who(pro) + head + agree(verb)
        if match.group("obj"):
            return who(match.group("obj"))
        if match.group("self"):  # "to remind myself": "themselves" once they are named
            return who(match.group("self")) if first_at[0] < 0 else "themselves"
        return who(match.group("pos")) + "'s"

    def again(match: re.Match[str]) -> str | None:
        """The speaker named a second time: a pronoun, when no one else was named since
        the first time (since the last, for "their")."""
        since = named_at[0] if match.group("pos") else first_at[0]
        if since < 0 or _someone(text, since, match.start()):
            return None
        if speaker is None and _plural(match.group(0)) != plural_at[0]:
            return None  # "My dad moved in with us": the household, not "them"
        if match.group("c"):
            tail = match.group("c").replace("’", "'").partition("'")[2].lower()
            return "they're" if tail in ("m", "re") else "they'" + tail
        if match.group("pro"):
            if match.group("pro") == "I" and match.start() > 0 and text[match.start() - 1] == "-":
                return None
            if text.endswith(" and ", 0, match.start()):
                return None  # "My colleagues and I went": "… and John went", not "… and they"
            verb = match.group("verb")
            if verb is None:
                return "they"
            tail = match.group("tail")
            plural = _PLURAL.get(verb.lower(), verb)
            return "they" + tail[: len(tail) - len(verb)] + plural
        if match.group("obj"):
            return "them"
        if match.group("self"):
            return "themselves"
        return "theirs" if match.group("pos").lower() in ("mine", "ours") else "their"

    def named(match: re.Match[str]) -> str:
        out = again(match) or swap(match)
        named_at[0] = match.end()
        if first_at[0] < 0:
            first_at[0] = match.end()
            plural_at[0] = _plural(match.group(0))
        return out

    out = rulebook.patterns().first_person.sub(named, text)
    if _I_DO.match(text):  # "I'm 34 and live in Chicago": the second verb is theirs too
        out = _AND_VERB.sub(lambda m: m.group(1) + agree(m.group(2)), out, 1)
    out = _EMOJI_END.sub("", out)  # "… got engaged!!! 💍": the fact, not the feeling
    out = _EXCLAIMED.sub(".", out[:1].upper() + out[1:])  # a fact is stated: "… a puppy."
    if out and out.rstrip("\"'”’)]")[-1:] != ".":  # 'called "Finding Home."'
        out = out.rstrip(";,") + "."
    return out


def _plural(words: str) -> bool:
    """Whether a first person's words are "we", "us", "our"…: the household."""
    return re.match(r"(?i:we|us|our)", words) is not None


_VERBS = (
    r"(?:live|work|have|love|like|need|want|play|run|study|teach|own|drive|use|take|eat|speak"
    r"|prefer|hate|enjoy|owe|pay|rent|keep|go|wake|get|sleep|walk|cook|read|swim|drink|leave"
    r"|start|finish|watch|listen)"
)
# one clause of the first person with two verbs, the second's "I" left out: "I'm 34 and
# live in Chicago", "I live in Boston and work for Acme", "We owe 310k and have 27 years
# left" (no comma between, so not "…, and
# take in the view" of another subject)
_I_DO = re.compile(
    r"(?:I['’]m\s+\d{1,3}|(?:I|[Ww]e)\s+(?:(?:usually|always|often|normally|never)\s+)?"
    + _VERBS
    + r"\b[^,;]{1,60}?)\s+and\s+"
    + _VERBS
    + r"\b"
    + rulebook.LOVE_NOUN
)
_AND_VERB = re.compile(r"(\s+and\s+)(" + _VERBS + r")\b" + rulebook.LOVE_NOUN)
# someone and I, opening the sentence: "My husband and I are both teachers"
_MINE_AND_I = re.compile(r"My\s+(?P<kin>[a-z]+(?:\s[a-z]+)?)\s+and\s+I\b(?![’'])")
_WITH_ME = re.compile(r"(?:[Mm]y|[Oo]ur|[A-Z][a-z]+)(?:\s[\w'’-]+){0,3}\s+and\s+")


def _with_me(text: str, at: int) -> bool:
    """Whether the "I" at `at` closes "someone and I" opening its clause: "My husband and
    I are…", "…, Niamh and I are both attorneys" (two, so "are" stays)."""
    start = max(text.rfind(",", 0, at), text.rfind(";", 0, at)) + 1
    while start < at and text[start] == " ":
        start += 1
    return _WITH_ME.fullmatch(text, start, at) is not None


_ME_AND = re.compile(r"^Me\s+and\s+(" + rulebook.NAME + r")(?=\s+[a-z])")
_EMOJI_END = re.compile(
    r"(?:[\s!]*[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B50\u2764\uFE0F\u200D]+)+(?=[\s!.]*$)"
)
_EXCLAIMED = re.compile(r"\s*!+(?=[\"'”’)\]]?$)")  # a last "!", maybe inside a quote
_PLURAL = {"am": "are", "was": "were"}  # "I was" -> "they were", after the speaker's name
_SOMEONE = re.compile(r"\b" + rulebook.CAP_LOW + r"+|\b(?:he|she|him|her|his|they|them|you|your)\b")
# a capitalised word that names no one "they" could be mistaken for: a place after "in",
# "to", "from"… ("moved to Berlin with my wife"), a name after an article ("the Lisbon
# marathon"), a month or a day
_PLACE_BEFORE = re.compile(
    r"\b(?:in|to|at|from|near|into|around|across|through|visit|visited|visiting|the|a|an)\s+$",
    re.IGNORECASE,
)
_WHEN = frozenset({
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December", "Monday", "Tuesday", "Wednesday", "Thursday",
    "Friday", "Saturday", "Sunday",
})  # fmt: skip


def _someone(text: str, start: int, end: int) -> bool:
    """Whether someone else is named in `text[start:end]`: a pronoun, or a capitalised
    word that is no month or day, nor a place or name after a preposition or article."""
    for match in _SOMEONE.finditer(text, start, end):
        word = match.group()
        if word[0].islower():
            return True
        before = max(0, match.start() - 16)  # the word before it, no more
        if word not in _WHEN and not _PLACE_BEFORE.search(text, before, match.start()):
            return True
    return False


def agree(verb: str) -> str:
    """The third-person singular of the verb after I/we ("prefer" -> "prefers")."""
    word = verb.lower().replace("’", "'")
    if word in _AGREE:
        return _AGREE[word]
    past = word.endswith("ed") and word not in _PRESENT_ED  # "moved", not "need"
    keep = rulebook.patterns().keep
    # a past with a prefix is past as well: "retook", "overslept", "outgrew", "mistook"
    unprefixed = _PREFIX.sub("", word)
    past = past or (unprefixed != word and unprefixed in keep and unprefixed not in _BARE)
    if word in keep or past or word.endswith("'t") or not word.isalpha():
        return verb
    if word.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
