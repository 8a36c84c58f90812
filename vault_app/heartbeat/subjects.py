"""Who a sentence is about, as the rules read it: the name opening it when a verb or a
possessive follows ("Theo started", "Maya's recital"), the entity a rule's subject names
("Jordan's car" is Jordan's; "the boiler" names no one; "Payment is $2,100" opens on a
common noun, "Last year's premium" on a time), the owner of its subject, and the other
capitalised names and `[[links]]` it holds (`related`: month and day words, titles and
a sentence's first word that is no name aside). Names are cleaned as written: a trailing
"'s" or stop dropped, curly apostrophes straightened.
"""

from __future__ import annotations

import re

from vault_app.heartbeat import holidays, rulebook

NOUN_ENDINGS = ("s", "ed", "ment", "tion", "sion", "ness", "ity", "ance", "ence", "ing", "ery")
_TIME_LEAD = re.compile(r"(?:last|next|this|every|each|yesterday|today|tomorrow|tonight)\b", re.I)


# words that are first names as well as a modal or a month ("Will", "May"): a name when
# a capitalised word follows them
_NAMES_TOO = frozenset(("will", "may", "june", "april", "august"))
# a name's word that is as often a common one (`kin.KnownNames` never sets it in capitals
# however it was met), `_NAMES_TOO` among them
WORDS_TOO = _NAMES_TOO | frozenset(
    ("bill", "pat", "rose", "grace", "hope", "joy",
     "faith", "mark", "art", "rob", "sue", "jack", "frank", "summer", "dawn", "eve", "sky",
     "river", "ray", "penny", "ruby", "amber", "lily", "daisy", "holly", "ivy", "iris",
     "jade", "olive", "violet", "robin", "jay", "drew", "chase", "hunter", "miles", "angel",
     "sunny", "sandy", "rusty", "buddy", "max", "bob", "don", "gene", "guy", "harry", "wade",
     "cliff", "dale", "glen", "heath", "lane", "reed", "rich", "star", "storm", "wren", "win",
     "pepper", "ginger", "honey", "cookie", "peanut", "biscuit", "muffin", "bean", "chip",
     "sugar", "spice", "buster", "lucky", "shadow", "smokey", "tiger", "bear", "duke", "king",
     "prince", "major", "happy", "bailey", "cooper", "ace")
)  # fmt: skip


def is_name(text: str | None, pats: rulebook.Patterns) -> bool:
    if not text:
        return False
    words = text.split()
    first = words[0].rstrip(".").lower()
    if first in _NAMES_TOO and len(words) > 1 and words[1][:1].isupper():
        return True  # "Will Smith", "May Chen": a first name before a surname
    if len(words) == 1 and first in pats.household_roles:
        return False  # "Vet put her on a renal diet": a trade, no one's name
    return first not in pats.not_names or first in ("dr", "st", "mr", "mrs", "ms")


def subject_ok(subj: str, pats: rulebook.Patterns) -> bool:
    if subj in ("I", "We") or subj.lower().startswith(("the ", "our ", "my ", "both ", "all ")):
        return True
    if re.search(r"['’]s\s", subj):  # "Jordan's car"
        return True
    return is_name(subj, pats)


# a common noun ending in "s" that takes a verb in "-s" as a name would ("Class starts at
# 9", "The news is…"): never a name opening a sentence
_SINGULAR_NOUNS = frozenset(
    ("class", "glass", "grass", "gas", "bus", "boss", "chess", "news", "business", "address",
     "progress", "access", "stress", "mass", "press", "dress", "series", "physics",
     "mathematics", "measles", "lens", "tennis", "bonus", "census", "campus", "virus",
     "status", "process", "success", "focus", "canvas", "atlas", "moss", "loss", "guess",
     "fitness", "illness", "kindness", "witness", "mess", "bass", "pass", "compass",
     "crisis", "basis", "analysis", "thesis", "diagnosis", "emphasis", "synopsis", "chorus",
     "cactus", "circus", "fungus", "syllabus", "citrus", "hummus", "lotus", "asparagus")
)  # fmt: skip
# a verb that agrees with one ("Jess works", "James is"), not with many ("Groceries came",
# "Kids love")
_ONES_VERB = re.compile(
    r"\s+(?:(?:just|also|still|now|often|usually|always|never|really)\s+)?"
    r"(?:is|was|has|does|isn['’]t|wasn['’]t|hasn['’]t|doesn['’]t|[a-z]{2,20}(?<![su])s)\b"
)


def _plural_like(word: str, rest: str) -> bool:
    """Whether a capitalised word opening a sentence reads as a common noun, not a name:
    a noun's ending ("Payment", "Groceries"), but for a word in "-s" whose verb agrees with
    one ("Jess works at the BBC", "James is 7"; not "Class starts at 9"), and a word in
    "-is" or "-us" that no common noun ends so ("Chris got a new job")."""
    folded = word.lower()
    if not folded.endswith(NOUN_ENDINGS):
        return False
    plain_s = folded.endswith("s") and not folded.endswith(("ness", "ies", "ings"))
    if plain_s and folded.endswith(("is", "us")) and folded not in _SINGULAR_NOUNS:
        return False  # "Chris got a new job", "Marcus left": a name, whatever its verb
    return not (plain_s and folded not in _SINGULAR_NOUNS and _ONES_VERB.match(rest))


_NAME_JOINS = frozenset(("and", "&", "of", "de", "da", "del", "la", "le", "van", "von", "der"))


def subject_of(found: re.Match[str]) -> str | None:
    """The entity the `subj` group of a sentence's match names (`subject`, with the
    words after it)."""
    return subject(found.group("subj"), found.string[found.end("subj") :])


def subject(subj: str, rest: str = "") -> str | None:
    """The entity a subject names: a person for "Alex", "Jordan's car"; none for "the
    boiler". `rest`: what follows the subject in its sentence (its verb tells a name in
    "-s", "Jess works", from a plural)."""
    if subj in ("I", "We", "we", "i"):
        return subj.upper() if subj.lower() == "i" else "We"
    owner = re.match(r"^(" + rulebook.NAME + r")['’]s\s", subj)
    if owner:
        return clean_name(owner.group(1))  # "Biscuit's limp is better": about Biscuit
    if subj[:1].isupper() and not subj.lower().startswith(("the ", "our ", "my ", "both ", "all ")):
        if _TIME_LEAD.match(subj):
            return None  # "Last year's premium was $1,120": a time, not a name
        if " " not in subj and _plural_like(subj, rest):
            return None  # "Payment is $2,100": a common noun opening the sentence
        if " " not in subj and not is_name(subj, rulebook.patterns()):
            return None  # "Budget is $45,000 total": a word that names no one
        if any(w[:1].islower() and w not in _NAME_JOINS for w in subj.split()[1:]):
            return None  # "Electric bill was $212": a noun phrase, no name
        return clean_name(subj)
    return None


def fallback(related: tuple[str, ...]) -> str | None:
    """The entity of a fact whose subject names none: its first name, as routing would
    pick; not a link to a folder nor an acronym ("MERV 11")."""
    return next((name for name in related if not name.isupper() and "/" not in name), None)


def without(names: tuple[str, ...], entity: str | None) -> tuple[str, ...]:
    return tuple(name for name in names if name != entity)


def subject_name(sentence: str, pats: rulebook.Patterns) -> str | None:
    """The name opening the sentence, when a verb or a possessive follows it ("Theo
    started", "Maya's"), so "Demolition of the bathroom" names nobody."""
    first = pats.subject_name.match(sentence)
    if first and is_name(first.group("name"), pats) and initial_name(sentence, pats):
        return clean_name(first.group("name"))
    return None


def initial_name(sentence: str, pats: rulebook.Patterns) -> bool:
    """Whether the sentence's capitalised first word reads as a name: a verb or "'s"
    follows it, and it has neither a plural's nor a common noun's ending."""
    first = pats.subject_name.match(sentence)
    if first is None or " " in first.group("name"):
        return first is not None
    return not _plural_like(first.group("name"), sentence[first.end("name") :])


def owner(sentence: str, pats: rulebook.Patterns) -> str | None:
    """The name owning the sentence's subject: "Maya's recital ..." -> "Maya"."""
    owned = pats.owner.match(sentence)
    if owned and is_name(owned.group("name"), pats):
        return clean_name(owned.group("name"))
    return None


def clean_name(name: str | None) -> str | None:
    if not name:
        return None
    return " ".join(name.replace("’", "'").removesuffix("'s").split()).rstrip(".,;:") or None


_SPEC = re.compile(r"[\s-]?\d")  # a number right after an all-capital word
# what a log line opens on, done to whom follows: "Called Summit Roofing", "Texted Greg"
_LOG_VERBS = frozenset(
    (
        "called",
        "emailed",
        "texted",
        "phoned",
        "messaged",
        "contacted",
        "booked",
        "scheduled",
        "asked",
        "helped",
        "picked",
        "dropped",
        "visited",
        "reminded",
        "thanked",
        "hired",
        "drove",
        "took",
        "met",
        "saw",
        "paid",
        "told",
        "sent",
        "gave",
        "brought",
        "bought",
    )
)


def _logged(word: str) -> bool:
    """Whether a sentence's first word is what a log line did ("Took", "Called", "Met"),
    not a name ("Will Smith", "Reed Hastings")."""
    return word.lower() in _LOG_VERBS


# a title kept with the name after it ("Mr. Delgado", as the rules' subjects keep it)
_TITLES = frozenset(("Dr.", "St.", "Mr.", "Mrs.", "Ms.", "Mr", "Mrs", "Ms"))


# a street as a note shortens it ("Alder St"), whose "St" would be cut as a word and leave
# "Alder" a name; "Elm Street" spelled out stays a place one may keep an entity of
_STREETS = frozenset(("St", "Ave", "Rd", "Blvd", "Ln", "Hwy", "Pkwy"))


def related(text: str, entity: str | None, pats: rulebook.Patterns) -> tuple[str, ...]:
    """The sentence's `[[links]]` and capitalised names, entity and month/day words aside."""
    names: list[str] = [link[0].strip() for link in rulebook.LINK.findall(text)]
    for match in rulebook.CAPS.finditer(rulebook.LINK.sub(" ", text)):
        words = match.group(0).split()
        if holidays.is_holiday(match.group(0)):
            continue  # "Christmas Eve": a day, not "Eve"
        if match.start() == 0 and len(words) == 1 and not initial_name(text, pats):
            continue  # "Payment comes by check": a sentence's first word, not a name
        if len(words) == 1 and words[0].isupper() and _SPEC.match(text, match.end()):
            continue  # "MERV 11", "HDMI 2.1": a rating or a standard, no one's name
        if match.start() == 0 and len(words) > 1 and _logged(words[0]):
            words = words[1:]  # "Took Maya to the dentist": what was done, then whom
        if len(words) > 1 and words[-1].rstrip(".") in _STREETS:
            continue  # "the duplex on Alder St": a street, no one's name
        while words and words[0].rstrip(".").lower() in pats.not_names and words[0] not in _TITLES:
            words = words[1:]
        while words and (
            words[-1].lower() in pats.not_names
            or (words[-1][-1:] == "s" and words[-1].lower()[:-1] in pats.not_names)
        ):  # "Mondays" as "Monday"; not "Maya" as "May"
            words = words[:-1]
        name = clean_name(" ".join(words))
        if name and name not in _TITLES and len(name) > 1:
            names.append(name)
    skip = {entity.lower()} if entity else set()
    out: list[str] = []
    for name in names:
        if name.lower() not in skip:
            skip.add(name.lower())
            out.append(name)
    return tuple(out[:12])


# a name's "'s" that is "is" or "has", as talk shortens it ("Dev's allergic to penicillin",
# "Maya's a nurse", "Theo's been sick", "Dev's got a new job"): what follows is no thing of
# theirs (never "Maya's recital", "Dev's running shoes")
_CONTRACTED = re.compile(
    r"^(?P<lead>(?:(?:Also|And|But|Oh|So|Btw|FYI),?\s+)?)(?P<name>" + rulebook.NAME + r")['’]s\s+"
    r"(?=(?P<has>been|got)\b|(?:allergic|intolerant|vegetarian|vegan|pescatarian|pregnant"
    r"|diabetic|coeliac|celiac|epileptic|asthmatic|retired|married|engaged|divorced|widowed"
    r"|single|a|an|the|now|still|also|always|never|not|just|moving|going|starting|working"
    r"|coming|leaving|getting|taking|doing|staying|flying|visiting|turning|planning"
    r"|allowed|scared|afraid|terrified)\b)"
)


def contracted(sentence: str) -> str:
    """`sentence` with a name's "'s" that stands for "is" or "has" written out: "Dev's
    allergic to penicillin" -> "Dev is allergic to penicillin", "Theo's been sick" ->
    "Theo has been sick"; any other sentence as it is."""
    told = _CONTRACTED.match(sentence)
    if told is None or told["name"].lower() in rulebook.patterns().not_names | {"let"}:
        return sentence  # "It's a …", "Let's not …"
    verb = " has " if told["has"] else " is "
    return told["lead"] + told["name"] + verb + sentence[told.end() :]
