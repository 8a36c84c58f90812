"""Entity names as routing sees them: keys, junk words, kinds, and the vault's name index.

A name and an entity meet on a *key*: the text folded (accents dropped, case folded),
every run of other characters turned into one "-", a leading article or possessive
("the", "our", "my") dropped. So "Dr. Patel", "dr patel" and the folder `dr-patel` share
the key `dr-patel`, and "Théo" finds `theo`. An entity answers to its folder name, its
summary's title (`# Marcus Bell (plumber)`: the part before a bracket), either without
a leading honorific ("Patel" for `dr-patel`), and — under a `people/` group — its
first name, when no other entity of the scope answers to it.

`NameIndex` holds those keys for every entity of the vault, per scope, built once per
run (one walk, one read of each summary's first 512 bytes: its title, and a name its text
opens on, set apart — "# Pets", "Biscuit, the family's beagle mix." — which the entity
answers to when no other does) and told of the entities a run
creates. `mentioned` finds the longest name a fact's text contains, on word boundaries,
by looking its word n-grams up in the keys: a short or common word ("home", "notes")
never counts as a mention.

`junk` refuses what must never become an entity (pronouns, stopwords, days, months,
"today", a bare number), and `new_address` decides where an entity made from a name
goes, by what the name looks like: people to `areas/people/<slug>` and companies to
`areas/companies/<slug>` of the user's graph (the seed's `global/life/areas/people`,
`companies` groups, which the demo vault follows), a pet (a name said to be a cat, a
dog…) to `areas/pets/<slug>`, projects (a remodel, a trip) to
`projects/<slug>`, anything else to `areas/<slug>` — of the user's graph when a global
note named it, of the agent's own workspace when an agent's note did (the boiler the
maintenance agent watches is its business; a person is everyone's). What a name is
comes from its words: a company word last ("Summit Roofing", "… LLC"), an honorific
first ("Dr. Patel"), a project word ("Lisbon trip"), or a capitalised first and last
name ("Samir Haddad"; one capitalised word is a person only with a cue — a relationship
fact, "she", "our plumber"). A place can pass for a person ("New York"): the entity can
be moved; nothing is lost.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from vault_app.core import errors, layout, models, safe_fs


def _words_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


PETS = "areas/pets"  # the household's animals, one entity each, or one for all (below)
MAX_NAME_WORDS = 6  # longer than this is a phrase, not a name
MAX_NGRAM = 5  # the longest name (in words) a fact's text is searched for

ARTICLES = _words_set("the a an our my your their his her its this that these those")
HONORIFICS = _words_set(
    "dr doctor mr mrs ms miss mx prof professor sir madam aunt auntie uncle grandma "
    "grandpa granny nana papa baby"
)
PRONOUNS = _words_set(
    "i me my mine myself you your yours yourself he him his himself she her hers herself "
    "it its itself we us our ours ourselves they them their theirs themselves someone "
    "somebody anyone anybody everyone everybody nobody noone no-one one user assistant "
    "agent human people person everything something anything nothing"
)
STOPWORDS = _words_set(
    "a an the and or but if then else of to in on at by for with from about as into over "
    "after before under between through during without within is are was were be been "
    "being have has had do does did will would shall should can could may might must "
    "not no yes this that these those there here what which who whom whose when where "
    "why how all any both each few more most other some such only own same so than too "
    "very just also now again once ok okay thanks thank please hi hello hey"
)
DAYS = _words_set(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur "
    "thurs fri sat sun weekend weekday"
)
MONTHS = _words_set(
    "january february march april may june july august september october november "
    "december jan feb mar apr jun jul aug sep sept oct nov dec"
)
TIME_WORDS = _words_set(
    "today tomorrow yesterday tonight morning afternoon evening night noon midnight week "
    "month year day days weeks months years time now later soon earlier"
)
# Words too common to be a mention of an entity by themselves (a folder may be called so)
COMMON = _words_set(
    "home house note notes todo inbox misc general other stuff thing things info index "
    "readme list lists item items plan plans log logs new old"
)
JUNK_WORDS = ARTICLES | PRONOUNS | STOPWORDS | DAYS | MONTHS | TIME_WORDS | COMMON

COMPANY_WORDS = _words_set(
    "inc llc ltd co corp corporation company gmbh sa plc bank insurance mutual services "
    "solutions group plumbing roofing solar electric electrical renovations landscaping "
    "utilities security builders construction realty clinic pharmacy partners associates "
    "motors garage bakery cleaners brothers bros sons"
)
# the roles a place or an organisation plays: "Zoe's daycare is Little Acorns", "Our bank
# is First Harbor" name one, not someone
_PLACE_ROLES = (
    r"insurer|bank|pharmacy|school|preschool|daycare|gym|employer|provider|internet\s+provider"
    r"|supplier|hospital|clinic|urgent\s+care|church|grocery\s+store|supermarket"
    r"|hardware\s+store|library|nursery|kindergarten|camp|club|team|company|firm|agency"
    r"|venue|caterer|florist|bakery|restaurant|hotel"
)
PROJECT_WORDS = _words_set(
    "project remodel renovation replacement repair install installation trip vacation "
    "holiday wedding move moving party conversion upgrade build evaluation"
)
# what only someone does, the name its subject: "Alex prefers…", "Alex still works on…"
_DOES_AS_PEOPLE_DO = (
    r"\s+(?:(?:still|also|usually|always|never|often|just)\s+)?(?:prefers|wants|works|asked"
    r"|said|says|told|thinks|feels|likes|loves|hates|dislikes|mentioned|decided|agreed"
    r"|promised|is\s+allergic|is\s+vegetarian|is\s+vegan|is\s+pregnant|is\s+sick)\b"
)
PERSON_CUES = re.compile(
    r"\b(he|she|him|his|her|hers|birthday|born|married|sister|brother|mother|father|mom|"
    r"mum|dad|son|daughter|wife|husband|partner|friend|neighbou?r|cousin|aunt|uncle|"
    r"grandma|grandpa|nanny|babysitter|plumber|electrician|dentist|doctor|teacher|"
    r"accountant|cleaner|coach|tutor|vet)\b",
    re.IGNORECASE,
)

# an animal the household keeps: "our cat Miso", "Miso is the household's cat", "Rex, my
# old beagle" make a name a pet's
PET_WORDS = (
    "dog|cat|puppy|pup|kitten|kitty|pet|hamster|gerbil|guinea pig|rabbit|bunny|parrot|"
    "budgie|canary|horse|pony|tortoise|turtle|goldfish|lizard|gecko|snake|ferret|hen|"
    "chicken|beagle|labrador|lab|terrier|spaniel|retriever|poodle|collie|greyhound|"
    "dachshund|tabby|mutt"
)
_OWNED = r"(?:the|our|my|a|an|their|his|her|the\s+(?:user|household)['’]s|[A-Z]\w+['’]s)"

_NOT_WORD = re.compile(r"[\W_]+")  # any script's letters and digits make a name


def fold(text: str) -> str:
    """Lower case without accents: "Théo" -> "theo" (NFKD, combining marks dropped)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def key(name: str) -> str:
    """The key of a name or folder name: folded, "-"-joined, a leading article dropped."""
    parts = [p for p in _NOT_WORD.split(fold(name)) if p]
    while len(parts) > 1 and parts[0] in ARTICLES:
        parts = parts[1:]
    if len(parts) > 1 and parts[-1] == "s" and "'" in name:  # "Maria's" -> "maria"
        parts = parts[:-1]
    return "-".join(parts)


def without_honorific(name_key: str) -> str | None:
    """`dr-patel` -> `patel`; None when the key has no leading honorific."""
    first, sep, rest = name_key.partition("-")
    return rest if sep and first in HONORIFICS and rest else None


# a thing a fact opens on, no name of its own: "The dishwasher is leaking again", "Our
# sump pump runs fine" (one or two words before its verb: "the kitchen ceiling stain" is
# a state of a thing, "the water heater anode rod" a part of one)
_THING = re.compile(
    r"^(?:The|Our|My)\s+(?P<np>[a-z][a-z-]{2,30}(?:\s+[a-z][a-z-]{1,30})?)"
    r"(?=\s+(?:(?:still|now|just|finally|also)\s+)?(?:is|are|was|were|has|have|had|needs|need"
    r"|keeps|won['’]t|doesn['’]t|isn['’]t|wasn['’]t|stopped|broke|failed|leaks|leaked|runs"
    r"|ran|drips|dripped|makes|made|takes|uses|lasts|expires|expired)\b)"
)
# what such a subject is that no entity should be made of: people, times, and words of a
# moment or of anything ("the kids", "the plan", "the quote")
_NO_THING = _words_set(
    "kids kid children child family wife husband partner baby son daughter mom dad mum "
    "parents boss user household guests guest neighbors neighbours friends team plan idea "
    "problem issue reason answer question quote price cost total result bill bills fee "
    "weather news trip game party meeting appointment call visit deadline budget goal "
    "rest same first last next other best worst"
)


def thing_of(fact: str) -> str | None:
    """The thing `fact` opens on when it names no one ("The dishwasher is leaking again"
    -> "dishwasher"; "The upstairs toilet runs…" -> "upstairs toilet"), or None: a name
    for routing to count as it counts an unknown name (`Router`). One or two words."""
    found = _THING.match(fact)
    if found is None:
        return None
    words = found["np"].split()
    if words[-1] in _NO_THING or any(w in JUNK_WORDS for w in words):
        return None
    return found["np"]


def junk(name: str) -> bool:
    """Whether `name` must never become an entity: empty, a pronoun, a stopword, a day,
    a month, a time word, a bare number, too long to be a name — or only such words."""
    parts = key(name).split("-") if key(name) else []
    if not parts or len(parts) > MAX_NAME_WORDS:
        return True
    meaningful = [p for p in parts if p not in JUNK_WORDS and not p.isdigit()]
    return not meaningful or all(len(p) < 2 for p in meaningful)


def slug(name: str) -> str:
    """The folder name made for `name`: its key ("Dr. Patel" -> "dr-patel")."""
    return key(name)


def _title_case(text: str) -> bool:
    return all(w[:1].isupper() for w in re.findall(r"[^\W\d_][\w'.&-]*", text)) and any(
        c.isalpha() for c in text
    )


# one who looks after animals, or a thing for them: "Sam is the dog walker"
_FOR_PETS = r"(?:walker|sitter|groomer|trainer|daycare|boarding|food|bowl|bed|park|owner)s?\b"


def is_pet(name: str, fact: str) -> bool:
    """Whether `fact` says `name` is an animal kept ("our cat Miso", "Miso, our cat",
    "Miso is the household's cat", "a rescue greyhound named Biscuit", "Pixel's vet is Dr.
    Amani"; not "Sam is the dog walker")."""
    named = re.escape(name)
    return bool(
        re.search(
            rf"\b(?:{PET_WORDS})s?\s*,?\s+(?:(?:called|named)\s+)?{named}\b"
            # what only an animal has: "Pixel's vet", "Biscuit's groomer", "Miso's litter"
            rf"|\b{named}['’]s\s+(?:vet|veterinarian|groomer|kennel|crate|litter|leash|collar"
            rf"|flea|heartworm|kibble)\b"
            rf"|\b{named}\s*(?:,|\s+(?:is|was))\s+{_OWNED}\s+(?:[\w-]+\s+){{0,3}}"
            rf"(?:{PET_WORDS})\b(?!-|\s+{_FOR_PETS})",
            fact,
            re.IGNORECASE,
        )
    )


def kind(name: str, fact: str = "", category: models.FactCategory | None = None) -> str:
    """What a name names: "person", "company", "project", "pet" or "thing"."""
    parts = key(name).split("-")
    if len(parts) <= 2 and _title_case(name) and is_pet(name, fact):
        return "pet"
    if parts[-1] in COMPANY_WORDS or _place_named(name, fact):
        return "company"
    if parts[0] in HONORIFICS and len(parts) > 1:
        return "person"
    if any(p in PROJECT_WORDS for p in parts):
        return "project"
    if _title_case(name) and len(parts) <= 3 and not articled(name, fact):
        # "Samir Haddad": a capitalised first and last name; one word ("Lisbon") needs
        # a cue that it is someone
        relational = category is models.FactCategory.RELATIONSHIP
        acts = re.match(re.escape(name) + _DOES_AS_PEOPLE_DO, fact) is not None
        if len(parts) > 1 or relational or acts or PERSON_CUES.search(fact):
            return "person"
    return "thing"


def _place_named(name: str, fact: str) -> bool:
    """Whether `fact` gives `name` as a place's or an organisation's: "Zoe's daycare is
    Little Acorns", "Little Acorns is our daycare"."""
    said = re.escape(name)
    return (
        re.search(
            rf"\b(?:{_PLACE_ROLES})\s+(?:is|are)\s+(?:called\s+|named\s+)?{said}\b"
            rf"|\b{said}\s+(?:is|are)\s+(?:(?:the\s+)?\w+['’]s|our|my|the|their|his|her)\s+"
            rf"(?:{_PLACE_ROLES})\b",
            fact,
            re.IGNORECASE,
        )
        is not None
    )


def articled(name: str, fact: str) -> bool:
    """Whether `fact` names `name` after an article, as no one is named: "the crib is the
    Babyletto Hudson", "see an ENT" (a thing, a role); not "the Smiths" (a family)."""
    if " " not in name and name.endswith("s") and not name.isupper():
        return False
    return re.search(r"\b(?:the|an?)\s+" + re.escape(name) + r"\b", fact, re.IGNORECASE) is not None


def new_address(name: str, kind_: str, agent: str | None) -> layout.EntityRef:
    """Where an entity made for `name` goes.

    People and companies always go to the user's graph (global): the household's people
    are the same for every agent, and the seed keeps them in `global/life/areas/people`
    and `companies`; so are pets, in `areas/pets` (where a vault keeps all its animals in
    one `areas/pets` entity, routing writes there instead: `Router`). Projects and things
    named in an agent's note go to that agent's workspace (its own PARA: the boiler the
    maintenance agent watches); from a global note, to the user's graph.
    """
    folder = slug(name)
    if kind_ == "person":
        return layout.EntityRef(None, f"areas/people/{folder}")
    if kind_ == "company":
        return layout.EntityRef(None, f"areas/companies/{folder}")
    if kind_ == "pet":
        return layout.EntityRef(None, f"{PETS}/{folder}")
    category = "projects" if kind_ == "project" else "areas"
    return layout.EntityRef(agent, f"{category}/{folder}")


def read_head(path: Path) -> tuple[str | None, str | None]:
    """The title of the summary at `path` and the name its text opens on (`summary_lead`),
    from its first 512 bytes: a regular file reached through no symlink (an entity's
    summary that is a symlink, a FIFO or unreadable names nothing more than its folder)."""
    try:
        fd, _ = safe_fs.open_read(path)
    except (OSError, errors.VaultError):
        return None, None
    try:
        data = os.read(fd, 512)
    except OSError:
        return None, None
    finally:
        os.close(fd)
    return summary_title(data), summary_lead(data)


# a summary's text opening on a name set apart: "Biscuit, the family's beagle mix."
_LEAD = re.compile(r"(?P<name>[A-Z][\w'’.-]*(?:\s[A-Z][\w'’.-]*){0,3}),\s+(?:the|a|an|our|my)\s")


def summary_lead(data: bytes | None) -> str | None:
    """The name a summary's first paragraph opens on, set apart by a comma ("# Pets" then
    "Biscuit, the family's five-year-old beagle mix." -> "Biscuit"): whom the entity is
    about besides its title. None when it opens otherwise."""
    if not data:
        return None
    lines = data[:512].decode("utf-8", "replace").lstrip("\ufeff").split("\n")
    if not lines[0].startswith("# "):
        return None
    body = next((line.strip() for line in lines[1:] if line.strip()), "")
    lead = _LEAD.match(body)
    return lead["name"] if lead and not junk(lead["name"]) else None


def summary_title(data: bytes | None) -> str | None:
    """The title of a summary (its first `# ` line), without a trailing bracket."""
    if not data:
        return None
    first = data[:512].decode("utf-8", "replace").lstrip("\ufeff").split("\n", 1)[0]
    if not first.startswith("# "):
        return None
    return re.sub(r"\s*[(\[].*$", "", first[2:]).strip() or None


def aliases(ref: layout.EntityRef, title: str | None) -> set[str]:
    """Every key an entity answers to (its first name aside: see `NameIndex`)."""
    found = {key(ref.name)}
    if title:
        found.add(key(title))
    found |= {short for k in list(found) if (short := without_honorific(k))}
    return {k for k in found if k}


def mentionable(name_key: str) -> bool:
    """Whether finding `name_key` in a fact's text counts as naming the entity: not a
    common or junk word, and at least 4 letters for a one-word name."""
    parts = name_key.split("-")
    if len(parts) == 1:
        return len(name_key) >= 4 and name_key not in JUNK_WORDS and not name_key.isdigit()
    return not all(p in JUNK_WORDS for p in parts)


class NameIndex:
    """The keys of every entity of a vault, per scope (None: the user's graph)."""

    def __init__(self) -> None:
        self._keys: dict[str | None, dict[str, list[layout.EntityRef]]] = {}
        self._first_names: dict[str | None, dict[str, list[layout.EntityRef]]] = {}
        self._leads: dict[str | None, dict[str, list[layout.EntityRef]]] = {}

    def add(self, ref: layout.EntityRef, title: str | None = None, lead: str | None = None) -> None:
        if lead and (lead_key := key(lead)):  # "Biscuit, the family's beagle" in Pets
            refs = self._leads.setdefault(ref.agent, {}).setdefault(lead_key, [])
            if ref not in refs:
                refs.append(ref)
        scope = self._keys.setdefault(ref.agent, {})
        for alias in aliases(ref, title):
            refs = scope.setdefault(alias, [])
            if ref not in refs:
                refs.append(ref)
        folders = ref.path.split("/")[:-1]
        first = ""
        if "people" in folders:
            first = key(title or ref.name).split("-")[0]
        elif "companies" in folders:  # "Northside" of "Northside Renovations"
            words = key(title or ref.name).split("-")
            while len(words) > 1 and words[-1] in COMPANY_WORDS:
                words.pop()
            first = "-".join(words) if words != key(title or ref.name).split("-") else ""
        if first and first not in HONORIFICS:
            refs = self._first_names.setdefault(ref.agent, {}).setdefault(first, [])
            if ref not in refs:
                refs.append(ref)

    def answers(self, name_key: str, scopes: Iterable[str | None]) -> bool:
        """Whether an entity of `scopes` answers to `name_key` as its name (not only by
        its first name, nor by the name its summary opens on)."""
        return any(self._keys.get(scope, {}).get(name_key) for scope in scopes)

    def lookup(self, name_key: str, scopes: Iterable[str | None]) -> layout.EntityRef | None:
        """The entity of the first scope answering to `name_key`: a live entity before an
        archived one; a first name only when it is one person's (a company's name without
        its "Renovations", "Mutual", "Inc" likewise); the name a summary opens
        on only when no entity answers to it otherwise, and it is one entity's."""
        for scope in scopes:
            refs = self._keys.get(scope, {}).get(name_key)
            if not refs:
                firsts = self._first_names.get(scope, {}).get(name_key, [])
                taken = name_key in self._keys.get(scope, {})
                refs = firsts if len(firsts) == 1 and not taken else []
            if not refs:
                leads = self._leads.get(scope, {}).get(name_key, [])
                refs = leads if len(leads) == 1 else []
            if refs:
                return min(refs, key=lambda r: (r.category == "archives", len(r.path), r.path))
        return None

    def _plural_of(self, word: str, scopes: list[str | None]) -> layout.EntityRef | None:
        """The entity named by the plural of `word` ("utility" -> Utilities), none of the
        people: a group of things a fact speaks of one of."""
        plurals = (word + "s", word + "es", word[:-1] + "ies" if word.endswith("y") else "")
        for scope in scopes:
            for plural in filter(None, plurals):
                refs = [
                    r for r in self._keys.get(scope, {}).get(plural, []) if "people" not in r.path
                ]
                if refs:
                    return min(refs, key=lambda r: (r.category == "archives", len(r.path), r.path))
        return None

    def mentioned(self, text: str, scopes: list[str | None]) -> layout.EntityRef | None:
        """The entity whose name `text` contains (word boundaries), the longest name
        winning, then the earliest; None when the text names none."""
        tokens = [t for t in _NOT_WORD.split(fold(text)) if t]
        best: tuple[int, int, layout.EntityRef] | None = None  # (-length, start, ref)
        for start in range(len(tokens)):
            for size in range(min(MAX_NGRAM, len(tokens) - start), 0, -1):
                name_key = "-".join(tokens[start : start + size])
                if not mentionable(name_key):
                    # "the property tax bill": Taxes (a short word, its plural a name)
                    short = size == 1 and len(name_key) == 3 and name_key not in JUNK_WORDS
                    ref = self._plural_of(name_key, scopes) if short else None
                elif (ref := self.lookup(name_key, scopes)) is None and size == 1:
                    ref = self._plural_of(name_key, scopes)  # "the vehicle registration"
                if ref is not None:
                    rank = (-len(name_key), start, ref)
                    if best is None or rank[:2] < best[:2]:
                        best = rank
                    break  # the longest name starting here
        return None if best is None else best[2]
