"""Who someone is, as a message goes on telling it: the "my dad" told of, whom a later
"His name is Raymond" names and a "she"/"he" opening a sentence stands for, and the names
an entry gave before a fact that names no one (where that fact may go: routing's
`around`). Read sentence by sentence by `rules.candidates`, which carries the state, and
from one message to the next of the same speaker and conversation (`Thread`, `Threads`,
which `rules.RuleExtractor` keeps for a batch)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from vault_app.heartbeat import extraction, rulebook, subjects, turns

_HE_OPENS = re.compile(r"(?:(?P<he>He)|She)(?:(?P<s>['’]s)|(?=\s+[a-z]))")


def names_in(sentences: list[str]) -> tuple[str, ...]:
    """The names `sentences` give, the latest sentence's first."""
    pats = rulebook.patterns()
    found: list[str] = []
    for sentence in reversed(sentences):
        found += [n for n in subjects.related(sentence, None, pats) if n not in found]
    return tuple(found)


def named_kin(
    sentence: str, kin: tuple[str, str] | None, person: str | None
) -> tuple[str, tuple[str, str] | None]:
    """The sentence with a name given to someone told of before read as a relationship
    ("My dad moved in with us. His name is Raymond, he's 78." -> "My dad is named
    Raymond, he's 78.": "Raymond is the user's dad.", "Raymond is 78."), and a "she"/"he"
    opening it read as them when no one was named since ("My mum turns 60 in June. She
    loves Italian food." -> "My mum loves Italian food."); only a "his"/"he" of a dad, a
    "her"/"she" of a daughter. And the last "my <role>" it tells of, for the next."""
    pats = rulebook.patterns()
    sentence = pats.role_name.sub(r"\g<who> is named ", sentence)  # "My dad's name is …"
    sentence = pats.role_is.sub(r"\g<who>, \g<name>, ", sentence, 1)  # "My vet is Dr. Ames, she…"
    said = pats.name_is.match(sentence)
    if said and kin is not None:
        he = bool(said.group("his") or said.group("he"))
        if (kin[1].lower() in pats.his) == he:
            sentence = f"{kin[0].capitalize()} {kin[1]} is named {sentence[said.end() :]}"
    elif kin is not None and person is None and (pronoun := _HE_OPENS.match(sentence)):
        verb = " is" if pronoun["s"] else ""
        if (kin[1].lower() in pats.his) == (pronoun["he"] is not None):
            sentence = f"{kin[0].capitalize()} {kin[1]}{verb}{sentence[pronoun.end() :]}"
    found = list(pats.kin.finditer(sentence))
    return sentence, (found[-1]["pos"], found[-1]["role"]) if found else kin


_EVENTS = (
    "recital|party|appointment|game|concert|play|meeting|wedding|trip|interview|exam|"
    "tournament|surgery|checkup|check-up|ceremony|graduation|match|show|performance|"
    "conference|reunion|camp|visit|funeral|shower|barbecue|bbq|fundraiser|audition|race"
)
# an event someone has, named: "Maya's piano recital", "the school play", "our anniversary
# dinner" (not "a party": no one's in particular)
_EVENT = re.compile(
    r"\b(?P<np>(?:"
    + rulebook.CAP_LOW
    + r"+['’]s|[Tt]he|[Oo]ur|[Mm]y|[Hh]is|[Hh]er)\s+(?:[a-z0-9-]+\s+){0,2}"
    r"(?:" + _EVENTS + r"))\b"
)
# someone who has one: "Theo has a dentist appointment", "I have an interview"
_HAS_EVENT = re.compile(
    r"\b(?P<who>" + rulebook.CAP_LOW + r"+|I|We)\s+(?:has|have|got|had)\s+(?:a|an)\s+"
    r"(?P<what>(?:[a-z0-9-]+\s+){0,2}(?:" + _EVENTS + r"))\b"
)
_WHOSE = {"I": "my", "We": "our"}
# "It's December 14 at 3pm", "It is on Saturday": when the event just named is
_IT_WHEN = re.compile(
    r"^(?:It['’]s|It\s+is|It\s+will\s+be|It['’]ll\s+be)\s+(?=(?:on\s+|at\s+|from\s+|this\s+"
    r"|next\s+)?(?:\d|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|Jan|Feb|Mar|Apr|May|Jun|Jul"
    r"|Aug|Sep|Oct|Nov|Dec|tomorrow|tonight|today|the\s+\d))"
)


def event_named(sentence: str, event: str | None) -> tuple[str, str | None]:
    """The sentence with an "It's <when>" read as the event named before it ("Can you add
    Maya's piano recital to the calendar? It's December 14 at 3pm." -> "Maya's piano
    recital is December 14 at 3pm."), and the last event it names, for the next."""
    when = _IT_WHEN.match(sentence)
    if when is not None and event is not None:
        np = event[:1].upper() + event[1:]
        sentence = f"{np} is {sentence[when.end() :]}"
    found = [(m.start(), m["np"]) for m in _EVENT.finditer(sentence)]
    for had in _HAS_EVENT.finditer(sentence):  # "Theo has a dentist appointment"
        whose = _WHOSE.get(had["who"], had["who"] + "'s")
        found.append((had.start(), f"{whose} {had['what']}"))
    return sentence, max(found)[1] if found else event


@dataclasses.dataclass
class Thread:
    """What one message leaves to the next of the same speaker in the same conversation:
    the last person named ("She" of the next sentence) and the last "my dad" told of
    (whom "His name is Raymond" names)."""

    person: str | None = None
    kin: tuple[str, str] | None = None
    event: str | None = None  # "Maya's piano recital": what a later "It's on Dec 14" is


THREAD_GAP = dt.timedelta(minutes=30)  # a message this long after the last starts afresh


class Threads:
    """The thread each message of a batch reads on from (`of`): the one its speaker's
    message before it left, when that came within `THREAD_GAP` in the same note with the
    same speaker prefix ("**user** (from ChatGPT: Sleep)", "User"; none: the note's own
    voice); the assistant's answers between neither read on nor break it; another
    speaker's message does."""

    def __init__(self) -> None:
        self._last: tuple[tuple[str, str], dt.datetime | None, Thread] | None = None

    def of(self, entry: extraction.Entry) -> Thread:
        key, at, thread = _thread_key(entry), _at(entry), Thread()
        if key is None:
            return thread  # the assistant's answer: the user's next message reads on
        last = self._last
        if last is not None and last[0] == key and _soon(last[1], at):
            thread = last[2]
        self._last = (key, at, thread)
        return thread

    def drop(self, entry: extraction.Entry) -> None:
        """Start afresh after `entry` (its text could not be read)."""
        if (key := _thread_key(entry)) is not None:
            self._last = (key, _at(entry), Thread())


def _thread_key(entry: extraction.Entry) -> tuple[str, str] | None:
    turn = rulebook.patterns().turn.match(entry.text)
    if turn is not None and turns.speaking(entry.text).assistant:
        return None
    return entry.path, "" if turn is None else " ".join(turn.group(0).split())


def _at(entry: extraction.Entry) -> dt.datetime | None:
    try:
        return dt.datetime.combine(entry.date, dt.time.fromisoformat(entry.time))
    except ValueError:
        return None


def _soon(before: dt.datetime | None, at: dt.datetime | None) -> bool:
    """Whether a message at `at` follows one at `before` closely enough to read on."""
    return before is not None and at is not None and dt.timedelta(0) <= at - before <= THREAD_GAP


_COUNT = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "2": 2, "3": 3, "4": 4, "5": 5,
          "6": 6}  # fmt: skip
_CHILD = {"boys": "son", "sons": "son", "girls": "daughter", "daughters": "daughter",
          "kids": "child", "children": "child"}  # fmt: skip
_KIDS = r"(?P<{}>kids|children|boys|girls|sons|daughters)"
# "We have two boys, Arjun who is 9 and Kabir who is 5"; "My kids are Maya, 7, and Theo, 4"
_CHILDREN = re.compile(
    r"^(?:(?:I|We)\s+(?:have|['’]ve\s+got|have\s+got)\s+(?P<n>two|three|four|five|[2-5])\s+"
    r"(?:(?:little|young|grown|wonderful|lovely)\s+)?"
    + _KIDS.format("kind")
    + r"\s*(?:[,:(—–-]\s*)"
    r"|(?:My|Our)\s+(?:two\s+|three\s+)?" + _KIDS.format("their") + r"\s+are\s+)"
    r"(?P<list>[" + rulebook.UPPER + r"][^.!?;]{2,160}?)\)?\s*[.!]?$"
)
_CHILD_ITEM = re.compile(
    r"(?P<name>"
    + rulebook.CAP_LOW
    + r"{1,20})(?:\s*(?:\(|,\s*|\s+who\s+is\s+|\s+who['’]s\s+|\s+aged\s+"
    r"|\s+is\s+)(?P<age>\d{1,2})(?:\s+years\s+old)?\)?)?(?:\s*,?\s*(?:and\s+)?|$)"
)


# one's staff named in a list: "I have 4 employees: Lena (head baker), Marco and Jess on
# the counter, and Dev who does deliveries"
_TEAM = re.compile(
    r"^(?P<who>I|We)\s+(?:have|['’]ve\s+got|employ)\s+(?P<n>two|three|four|five|six|[2-6])\s+"
    r"(?:(?:full-time|part-time|great|amazing|wonderful)\s+)?(?:employees|staff|people"
    r"|workers|team\s+members)(?:\s+on\s+staff)?\s*[:,—–-]\s*"
    r"(?P<list>[" + rulebook.UPPER + r"][^.!?;]{2,200}?)\s*[.!]?$"
)
_MEMBERS = re.compile(
    r"(?P<names>" + rulebook.CAP_LOW + r"{1,20}(?:\s+and\s+" + rulebook.CAP_LOW + r"{1,20})?)"
    r"(?:\s*\((?P<role>[a-z][a-z -]{2,30})\)|\s+(?P<what>(?:on|in|at|for|who)\s[^,]{2,60}))?"
    r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|$)"
)


def team(sentence: str) -> list[str] | None:
    """One's staff named in a list, as the sentences the rules read: "I have 4
    employees: Lena (head baker), Marco and Jess on the counter, and Dev who does
    deliveries" -> "Lena is my head baker.", "Marco is my employee on the counter.", …;
    None when the sentence is no such list, or its names are not as many as it says."""
    told = _TEAM.match(sentence)
    if told is None:
        return None
    whose = "my" if told["who"] == "I" else "our"
    said, at, listed = [], 0, told["list"]
    not_names = rulebook.patterns().not_names
    while at < len(listed):
        item = _MEMBERS.match(listed, at)
        if item is None or item.end() == at:
            return None  # not only names and what they do: "four people, all part-time"
        at = item.end()
        for name in item["names"].split(" and "):
            if name.lower() in not_names:
                return None
            what = f" {item['what'].strip()}" if item["what"] else ""
            said.append(f"{name} is {whose} {item['role'] or 'employee'}{what}.")
    return said if len(said) == _COUNT.get(told["n"], -1) else None


# one child, named after their age or role: "We have a 3 year old, Zoe, and we're
# expecting…", "I have a daughter named Ivy who is 6", "we have a 7-year-old son, Leo"
_ONE_CHILD = re.compile(
    r"^(?:I|We)\s+(?:have|['’]ve\s+got)\s+an?\s+(?:(?P<age>\d{1,2})[\s-]years?[\s-]old"
    r"(?:\s+(?P<kind>son|daughter|boy|girl|kid|child))?|(?P<role>son|daughter|little\s+boy"
    r"|little\s+girl))\s*,?\s+(?:named\s+|called\s+)?(?P<name>" + rulebook.CAP_LOW + r"{1,20})\b"
    r"(?:,?\s+who(?:\s+is|['’]s)\s+(?P<age2>\d{1,2})(?:\s+years\s+old)?)?"
    r"(?P<rest>(?:,?\s+and\s+|,\s+)(?P<tail>(?:I|we)\b.{3,200})|\s*[.!]?)$"
)
_ONE_ROLE = {"boy": "son", "girl": "daughter", "kid": "child", "little boy": "son",
             "little girl": "daughter"}  # fmt: skip


def children(sentence: str) -> list[str] | None:
    """One's children named in a list, as the sentences the rules read: "We have two
    boys, Arjun who is 9 and Kabir who is 5" -> "Arjun is my son.", "Arjun is 9 years old.",
    "Kabir is my son.", "Kabir is 5 years old."; None when the sentence is no such list, or its
    names are not as many as it says."""
    one = _ONE_CHILD.match(sentence)
    if one is not None:
        return _one_child(one)
    told = _CHILDREN.match(sentence)
    if told is None:
        return None
    items, at, listed = [], 0, told["list"]
    while at < len(listed):
        item = _CHILD_ITEM.match(listed, at)
        if item is None or item.end() == at:
            return None  # not only names (and ages): "two kids, both in school"
        items.append(item)
        at = item.end()
    count = _COUNT.get(told["n"] or "", len(items))
    not_names = rulebook.patterns().not_names
    if len(items) != count or any(i["name"].lower() in not_names for i in items):
        return None
    role = _CHILD[told["kind"] or told["their"]]
    said: list[str] = []
    for item in items:
        said.append(f"{item['name']} is my {role}.")
        if item["age"]:
            said.append(f"{item['name']} is {item['age']} years old.")
    return said


def _one_child(told: re.Match[str]) -> list[str] | None:
    """ "We have a 3 year old, Zoe, and we're expecting our second" -> "Zoe is my child.",
    "Zoe is 3 years old.", "We're expecting our second"."""
    name = told["name"]
    if name.lower() in rulebook.patterns().not_names:
        return None
    kind = " ".join((told["kind"] or told["role"] or "child").lower().split())
    said = [f"{name} is my {_ONE_ROLE.get(kind, kind)}."]
    if age := told["age"] or told["age2"]:
        said.append(f"{name} is {age} years old.")
    if tail := told["tail"]:
        said.append(tail[:1].upper() + tail[1:])
    return said


# whom a role names, in brackets: "Jordan's parents (Bill and Carol) arrive…", "my sister
# (Rana) is vegan"
_BRACKETED = re.compile(
    r"\b(?P<whose>[Mm]y|[Oo]ur|[Tt]he|"
    + rulebook.CAP_LOW
    + r"+['’]s)\s+(?P<role>[a-z][a-z-]{1,20})\s+\("
    r"(?P<names>"
    + rulebook.CAP_LOW
    + r"{1,20}(?:\s"
    + rulebook.CAP_LOW
    + r"{1,20})?(?:(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)"
    + rulebook.CAP_LOW
    + r"{1,20}(?:\s"
    + rulebook.CAP_LOW
    + r"{1,20})?){0,4})"
    r"\)"
)
_SINGULAR = {"children": "child", "kids": "child"}


def bracketed(sentence: str) -> list[str] | None:
    """Whom a role names in brackets, each a sentence of its own, then the sentence
    without them: "Jordan's parents (Bill and Carol) arrive December 21" -> "Bill is
    Jordan's parent.", "Carol is Jordan's parent.", "Jordan's parents arrive December
    21"; None when it names none (or the word is no role: "the bill (Comcast)")."""
    told = _BRACKETED.search(sentence)
    if told is None:
        return None
    pats = rulebook.patterns()
    role = told["role"]
    one = _SINGULAR.get(role) or (role[:-1] if role.endswith("s") else role)
    if one not in pats.roles and one not in ("parent", "grandparent", "in-law"):
        return None
    named = re.split(r"\s*(?:,\s*(?:and\s+)?|\band\b|&)\s*", told["names"])
    if any(n.lower() in pats.not_names for n in named):
        return None
    whose = told["whose"]
    if whose.lower() == "the":  # "The electrician (Volt Brothers) needs…": the household's
        whose = "our"
    elif len(named) == 1:  # "my sister (Rana) is vegan": "my sister Rana", as said
        return [f"{sentence[: told.end('role')]} {named[0]}{sentence[told.end() :]}"]
    said = [f"{n} is {whose.lower() if whose in ('My', 'Our') else whose} {one}." for n in named]
    rest = sentence[: told.end("role")] + sentence[told.end() :]
    return [*said, rest]


# who someone is, in brackets after their name: "Walter (my dad) moved…", "Miso (the cat)
# had two teeth out…", "Pepper (our dog, 7)" (an age after it)
_ROLE_BRACKETED = re.compile(
    r"\b(?P<name>" + rulebook.NAME + r")\s+\((?P<whose>[Mm]y|[Oo]ur|[Tt]he)\s+(?P<new>new\s+)?"
    r"(?P<role>[a-z][a-z-]{1,20}(?:\s[a-z-]{2,20})?)(?:,\s*(?P<age>\d{1,3}))?\)"
)


def role_bracketed(sentence: str) -> list[str] | None:
    """Who someone is, told in brackets after their name, a sentence of its own, then the
    sentence without it: "Miso (the cat) had two teeth out on Thursday" -> "Miso is our
    cat.", "Miso had two teeth out on Thursday" ("the": the household's, as a note says
    it); an age after the role is one more ("Pepper (our dog, 7)" -> "Pepper is 7 years
    old."). None when the word is no role ("Acme (the company)") or names no one."""
    told = _ROLE_BRACKETED.search(sentence)
    pats = rulebook.patterns()
    if told is None or told["role"] not in pats.roles or told["name"].lower() in pats.not_names:
        return None
    whose = "our" if told["whose"].lower() == "the" else told["whose"].lower()
    said = [f"{told['name']} is {whose} {told['new'] or ''}{told['role']}."]
    if told["age"]:
        said.append(f"{told['name']} is {told['age']} years old.")
    rest = sentence[: told.end("name")] + sentence[told.end() :]
    return [*said, rest]


# a role with no one's before it: "Landlord is Frau Becker.", "Plumber is Marcus Bell.",
# "The new babysitter is Priya Raman, she's …"
_BARE_ROLE = re.compile(
    r"^(?:The\s+(?P<new>(?:new|current)\s+)?)?(?P<of>[A-Z]{2,6}\s+)?"  # "HOA manager is …"
    r"(?P<role>[A-Za-z][a-z-]{1,20}(?:\s[a-z-]{2,20})?)"
    r"\s+(?:is|will\s+be)\s+(?P<name>" + rulebook.NAME + r")"
    r"(?P<rest>\s*[.!]?$|,\s+(?:she|he|they|we)['’\s].*)"
)


# someone hired, and as whom: "We hired Ana as our new nanny", "We just hired a nanny
# named Ana"
_HIRED = re.compile(
    r"^(?P<who>I|We)\s+(?:just\s+|finally\s+|also\s+)?hired\s+(?:(?P<name>" + rulebook.NAME + r")"
    r"\s+as\s+(?:our|my|a|an|the)\s+(?P<new>new\s+)?(?P<role>[a-z][a-z-]{1,20}(?:\s[a-z-]{2,20})?)"
    r"|(?:a|an)\s+(?P<new2>new\s+)?(?P<role2>[a-z][a-z-]{1,20}(?:\s[a-z-]{2,20})?)\s+"
    r"(?:named|called)\s+(?P<name2>" + rulebook.NAME + r"))(?=\s*[,.!;]|\s*$|\s+(?:and|who|to)\b)"
)


def hired(sentence: str) -> list[str] | None:
    """Someone hired, as whom, told as who they are to one, before the hiring itself: "We
    hired Ana as our new nanny, she starts Monday" -> "Ana is our new nanny.", then the
    sentence (a role of the rulebook's only); None for any other sentence."""
    told = _HIRED.match(sentence)
    if told is None:
        return None
    role = told["role"] or told["role2"]
    if role not in rulebook.patterns().roles:
        return None
    whose = "my" if told["who"] == "I" else "our"
    name, new = told["name"] or told["name2"], told["new"] or told["new2"] or ""
    return [f"{name} is {whose} {new}{role}.", sentence]


# a new one had: "We have a new landlord, Sandra Ortiz", "Mom has a new cardiologist,
# Dr. Ames", "I found a new dentist named Dr. Lee"
_HAS_NEW = re.compile(
    r"^(?P<who>I|We|(?:My|Our)\s+[a-z]{2,12}|(?!(?:He|She|It|They|This|That)\b)"
    + rulebook.NAME
    + r")(?:['’]ve)?\s+"
    r"(?:just\s+|finally\s+|now\s+)?(?:have|has|got|found|switched\s+to)\s+a\s+new\s+"
    r"(?P<role>[a-z][a-z-]{1,20}(?:\s(?!now\b|actually\b)[a-z-]{2,20})?)(?:\s+(?:now|actually))?"
    r"(?:,|:|\s+(?:named|called))\s+"
    r"(?P<name>" + rulebook.NAME + r")(?P<rest>\s*[.!]?$|,\s+(?:she|he|they|who)['’\s].*)?"
    # what is told of another after it: "…, Sofia Brandt, Graham retired" -> its own
    r"(?:,\s+(?P<after>(?!(?:she|he|they|who)\b)" + rulebook.NAME + r"\s[a-z][^.!?]{2,80})[.!]?$)?$"
)
_WHOSE_NEW = {"I": "My", "We": "Our"}


def has_new(sentence: str) -> list[str] | None:
    """A new one of a role someone has, told as who they are: "We have a new landlord,
    Sandra Ortiz." -> "Our new landlord is Sandra Ortiz." (a role of the rulebook's
    only; `holders` then retires the one before), and what is told of another after it
    on its own ("I've got a new accountant actually, Sofia Brandt, Graham retired" ->
    "My new accountant is Sofia Brandt.", "Graham retired."); None for any other
    sentence."""
    told = _HAS_NEW.match(sentence)
    if told is None or told["role"] not in rulebook.patterns().roles:
        return None
    who = told["who"]
    whose = _WHOSE_NEW.get(who) or f"{who}'s"
    rest = told["rest"].strip() if (told["rest"] or "").strip(" .!") else "."
    after = [told["after"] + "."] if told["after"] else []  # "Graham retired."
    return [f"{whose} new {told['role']} is {told['name']}{rest}", *after]


def bare_role(sentence: str) -> str | None:
    """A role told with no one's before it as the household's: "Landlord is Frau Becker."
    -> "Our landlord is Frau Becker.", "HOA manager is Linda Park" -> "Our HOA manager …",
    "The new babysitter is Priya Raman, she's a student" -> "Our new babysitter is Priya
    Raman, she's a student" (a household's notes: whose else); None for any other
    sentence."""
    told = _BARE_ROLE.match(sentence)
    pats = rulebook.patterns()
    if told is None or told["role"].lower() not in pats.roles:
        return None
    if sentence.startswith("The") and told["role"] not in pats.household_roles:
        return None  # "The teacher is Mr. Delgado": whose? a child's, maybe
    rest = told["rest"].strip() if told["rest"].strip(" .!") else "."
    role = f"{told['of'] or ''}{told['role'] if told['of'] else told['role'].lower()}"
    return f"Our {told['new'] or ''}{role} is {told['name']}{rest}"


# a lower-case word where a name fits: before "'s" or a verb of theirs
_NAME_FITS = re.compile(
    r"(?<![\w'’])([a-z][a-z]{2,20})(?=['’]s\b|\s+(?:and\s+I\b|is|was|has|had|says|said|got"
    r"|gets|wants|likes|loves|hates|needs|can|will|would|does|did|goes|went|starts|started"
    r"|works|lives|just|also)\b)"
)


class KnownNames:
    """The names a batch of entries has given in capitals, so that a later message
    written all in lower case reads them as names ("my girlfriend Sam" …, then "im
    vegetarian and sam is vegan": "Sam is vegan"). Only where a name fits — before a verb
    of theirs or "'s" — and never a name that is as often a word ("will", "may", "rose")."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}  # lower case -> as written

    def learn(self, found: list[extraction.Candidate]) -> None:
        pats = rulebook.patterns()
        for candidate in found:
            for name in (candidate.entity, *candidate.related):
                first = (name or "").split(" ", 1)[0]
                key = first.lower()
                if len(key) < 3 or not first[:1].isupper() or not first[1:].islower():
                    continue
                if key in subjects.WORDS_TOO or key in pats.not_names or key in self._names:
                    continue
                if subjects.is_name(first, pats):
                    self._names[key] = first

    def recased(self, text: str) -> str:
        """`text` with the known names it writes in lower case set as they were met."""
        if not self._names:
            return text
        names = self._names
        return _NAME_FITS.sub(lambda m: names.get(m.group(1), m.group(1)), text)
