"""Which entity a candidate fact goes to, and the unknown names counted until the third.

`Router.route` tries, in order:

1. the candidate's `entity`, when it resolves: an address (`areas/family`,
   `agent:household:resources/kitchen`; a bare one from an agent's note tries the
   agent's workspace first, as `layout.resolve_reference` does) or a name an entity
   answers to (`names.NameIndex`: "Dr. Patel" ~ `dr-patel`, case and accents aside; a
   first name only when one person answers to it, and no one else of that name waits
   for their third mention: "Marcus" while "Marcus Lee" waits is counted for him, not
   written to Marcus Bell's);
2. else its first `related` entity that resolves (none resolving, the unknown one the
   notes spoke of most is counted); an `entity` that is only the first name in a fact
   asked to be remembered (`guessed`) and resolves to nothing is one of them: "Dad hates
   being called Wally, only Walt or Walter" makes Walter, met twice before, not a Wally;
3. else the existing entity whose name the fact's text contains (the longest wins).

The person the notes speak for is known by name once they said it ("My name is Alex
Rivera": "The user's name is Alex Rivera." in a Me): a fact naming them ("Alex wants the
thermostat at 68", an agent's note) goes to Me as an "I" would, when no entity answers to
the name otherwise (`user_name`; the full name and the first, the Me of the notes'
agent, else the global one).

A fact of one of their kin, when the vault knows who that is ("The user's dad hates being
called Wally" beside "Walter is the user's dad." in Walter's entity: `kin_of_user`, one
entity so named, in the notes' agent's memory or the global one), goes to that entity.
A fact of the person the notes speak for that names no other entity ("I prefer window
seats" in the global notes, a ChatGPT prompt's "I've been vegetarian for ten years":
`about_user`) goes to their own entity, `user_entity_in(agent)`: "Me", `areas/me` in the
agent's workspace for its notes, the global one for the global notes, made on first use.
It was deferred before and never written: no name in it is the person's.

An explicit request to remember (`Candidate.explicit`: "remember that …") is never
deferred: a name it gives that is unknown is made at once (as a track request's is),
and when it names nothing routable it goes to `remembered_in(agent)`: the agent's own
`resources/remembered` (for the global notes, the global one), made on first use.

A named `entity` that resolves to nothing is an *unknown name*: its facts wait in the
daily notes (`reason="deferred"`, no fallback to a merely mentioned entity — the
extractor said what the fact is about). Each entry that names it is counted once in
`.vault/heartbeat/mentions.json` (a rerun of the same entry adds nothing), with the
waiting candidates. On the third entry, or at once when the candidate asks to track it
(`track=True`), or when it states who the name is to the user (`kin_of_user`: "Ingrid
is the user's mom") or to a person the vault knows ("Theo's orthodontist is Dr. Farah
Kim"), the route says `create=True` with the new entity's address
(`names.new_address`: people and companies in the user's graph, other things in the
workspace of the agent whose note named them), and `released(name)` hands back the
waiting candidates so the runner writes them too. With no `entity`, the first unknown
`related` name is counted the same way, and so, with no name at all, is the thing the fact
opens on (`names.thing_of`: "The dishwasher is leaking again" counts "dishwasher", an
entity of the agent's workspace on its third entry, as the boiler the maintenance agent
watches). The counts and what waits are kept by `mentions` (`MentionCounts`, which also
lists what waits for a person to see and writes the note that asks for one at once). Junk
names (pronouns, days, "today"…) are never counted; a candidate that names nothing
routable is `unrouted`.

The runner calls `released(route.name)` whenever a route has both a `ref` and a `name`,
and `restore(route.name, candidates)` with those it then failed to write. That is also
how a run that stopped between creating an entity and writing its waiting facts gets
them written on the next run: the name is then found in the index, its candidates still
wait, and the route names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from vault_app.core import errors, layout, models
from vault_app.core.vault import Vault
from vault_app.heartbeat import names
from vault_app.heartbeat.extraction import Candidate
from vault_app.heartbeat.mentions import CREATE_AT, MentionCounts, better_place

_ADDRESS_PREFIXES = ("agent:", "global:")


# the name the person the notes speak for gave, as a fact of their Me says it
_USER_NAME = re.compile(
    r"(?i:the user(?:['’]s (?:first |full )?name is| goes by| is called))\s+"
    r"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})\s*[.!]?"
)


def user_name(fact: str) -> str | None:
    """The name a fact of Me gives its person ("The user's name is Alex Rivera."), or None."""
    said = _USER_NAME.fullmatch(fact.strip())
    return None if said is None else said["name"].rstrip(".")


# the animal a fact of the Pets opens on: "Rufus is a 9-year-old lab mix.", "Mochi's…"
_PET_NAMED = re.compile(r"(?P<name>[A-Z][a-z]{1,20})(?=['’]s\s|\s+[a-z])")


REMEMBERED = "resources/remembered"  # where an explicit remember naming nothing goes


def remembered_in(agent: str | None) -> layout.EntityRef:
    """The entity an explicit remember that names nothing goes to: the agent's own
    `resources/remembered`, or the global one for the global notes."""
    return layout.EntityRef(agent, REMEMBERED)


def user_entity_in(agent: str | None) -> layout.EntityRef:
    """The entity of the person the notes speak for ("Me"): the agent's own `areas/me`
    for its notes, the global one for the global notes."""
    return layout.EntityRef(agent, layout.USER_ENTITY)


_FIRST_SUMMARIES = {
    layout.USER_ENTITY: "What the notes tell of you: facts the heartbeat found about the "
    'person they speak for ("I prefer…", "I\'ve been vegetarian for ten years").',
    REMEMBERED: "What you asked to be remembered that names no one and nothing else.",
}


def first_summary(ref: layout.EntityRef) -> str | None:
    """The summary a heartbeat-made entity starts with, for the two it makes by itself
    (Me and Remembered); None for the others (the synthesis writes theirs)."""
    return _FIRST_SUMMARIES.get(ref.path)


def about_user(candidate: Candidate) -> bool:
    """Whether the fact is of the person the notes speak for and names no other entity:
    the rules say so ("I prefer window seats"), or a model wrote it of "the user"."""
    if candidate.entity:
        return False
    return candidate.about_user or candidate.fact.lower().startswith(("the user ", "the user's "))


# a fact that opens on one of the user's kin: "The user's dad hates being called Wally"
_USERS_KIN = re.compile(
    r"^The user['’]s (?P<role>mom|mum|mother|dad|father|wife|husband|partner|spouse"
    r"|grandma|grandmother|grandpa|grandfather|stepmom|stepmother|stepdad|stepfather"
    r"|fiancée?|boyfriend|girlfriend)(?:['’]s)?\s"
)
_MOM, _DAD = ("mom", "mum", "mother", "mama"), ("dad", "father", "papa")
_GRANDMA, _GRANDPA = (
    ("grandma", "grandmother", "granny", "nana", "gran"),
    ("grandpa", "grandfather"),
)
# what one calls them as a name, and the words a fact may name them by
_CALLED_KIN = {
    **dict.fromkeys(_MOM, _MOM),
    **dict.fromkeys(_DAD, _DAD),
    **dict.fromkeys(_GRANDMA, _GRANDMA),
    **dict.fromkeys(_GRANDPA, _GRANDPA),
}
_OWNER = re.compile(r"(?P<owner>[A-Z][\w.-]*(?:\s[A-Z][\w.-]*){0,2})['’]s\s+[a-z]")
_IS_OWNERS = re.compile(r"[A-Z][\w.-]*(?:\s[A-Z][\w.-]*){0,2}\s+is\s+" + _OWNER.pattern)
_OF_THE_USER = re.compile(
    r"\bthe (?:user|household)['’]s\b|^The (?:user|household) (?:has|have|adopted|got|rescued)"
    r" an? (?:new |little |rescue )?[a-z]+(?: pig)?(?:,| named| called) [A-Z]",  # a pet of theirs
    re.IGNORECASE,
)


def kin_of_user(candidate: Candidate) -> bool:
    """Whether the fact states who someone is to the person the notes speak for ("Ingrid
    is the user's mom.", "The household's landlord is Mr. Okafor.", "The household has a
    dog, Mochi."): a direct relationship
    to the user makes the entity at once, as the design's creation rules say, not on its
    third mention."""
    return candidate.category == models.FactCategory.RELATIONSHIP and bool(
        _OF_THE_USER.search(candidate.fact)
    )


@dataclass(frozen=True)
class Route:
    ref: layout.EntityRef | None  # where the fact goes; None = deferred (stays in the notes)
    create: bool  # the entity must be created first
    name: str | None  # the unknown name that was counted, if any
    reason: str  # "entity" | "related" | "mentioned" | "created" | "remembered" | "user" |
    # "kin" | "deferred" | "unrouted"


# -- the router ----------------------------------------------------------------------------


def _is_address(text: str) -> bool:
    return "/" in text or text.startswith(_ADDRESS_PREFIXES)


class Router:
    """Routes one run's candidates; knows the vault's entity names (read on first use)."""

    def __init__(
        self,
        vault: Vault,
        mentions: MentionCounts,
        kin_of_user: Callable[[str | None, str], layout.EntityRef | None] | None = None,
    ) -> None:
        self.vault = vault
        self.mentions = mentions
        self.kin_of_user = kin_of_user  # (agent, "dad") -> the entity who is the user's dad
        self._index: names.NameIndex | None = None
        self._created: set[layout.EntityRef] = set()  # routed with create=True this run

    @property
    def index(self) -> names.NameIndex:
        if self._index is None:
            index = names.NameIndex()
            mes, herds = [], []
            for folder in self.vault.paths.iter_all_entities():
                summary = folder.folder / layout.SUMMARY_NAME
                title, lead = names.read_head(summary) if folder.has_summary else (None, None)
                index.add(folder.ref, title, lead)
                if folder.ref.path == layout.USER_ENTITY:
                    mes.append(folder.ref)
                elif folder.ref.path == names.PETS:
                    herds.append(folder.ref)
            self._index = index
            for ref in mes:  # after every entity: a name one answers to is theirs
                self._also_named(ref, self._user_names(ref))
            for ref in herds:  # "Rufus is a 9-year-old lab mix" in Pets: Rufus is there
                self._also_named(ref, self._pet_names(ref))
        return self._index

    def route(self, candidate: Candidate) -> Route:
        if about_user(candidate) and (kin := self._kin(candidate)) is not None:
            return Route(kin, False, None, "kin")  # "The user's dad …": to Walter's
        if about_user(candidate):  # their own entity, made on first use
            ref = user_entity_in(candidate.entry.agent)
            if (name := user_name(candidate.fact)) is not None:  # "My name is Alex"
                self._also_named(ref, [name])
            return Route(ref, not self.vault.paths.holds_entity(ref), None, "user")
        route = self._route(candidate)
        mine = user_entity_in(candidate.entry.agent)
        if (
            route.ref is not None
            and route.ref.path == layout.USER_ENTITY
            and not _is_address(candidate.entity or "")
        ):  # the person named by name (the global Me in an agent's notes): as an "I" is
            return Route(mine, not self.vault.paths.holds_entity(mine), None, "user")
        if route.ref is None and candidate.explicit:  # asked to be remembered: kept
            ref = remembered_in(candidate.entry.agent)
            return Route(ref, not self.vault.paths.holds_entity(ref), None, "remembered")
        return route

    def _route(self, candidate: Candidate) -> Route:
        agent = candidate.entry.agent
        entity: str | None = candidate.entity
        related = candidate.related
        guessed = entity and candidate.guessed and candidate.explicit and related
        if guessed and entity and self._resolve(entity, agent) is None:
            related = (entity, *related)  # a first name guessed, asked to keep: any of
            entity = None  # them, as the related names are
        if entity and (_is_address(entity) or not names.junk(entity)):
            ref = self._resolve(entity, agent) or self._kin_called(entity, agent)
            if ref is not None and (other := self._other_of_that_name(entity, agent)):
                return self._unknown(other, candidate)  # "Marcus": Marcus Lee, who waits
            if ref is not None:
                return self._found(ref, "entity", entity)
            return self._unknown(entity, candidate)
        unknown, heard = None, 0  # the unknown name the notes spoke of most, else the first
        for name in related:
            ref = self._resolve(name, agent)
            if ref is not None:
                return self._found(ref, "related", None)
            if _is_address(name) or not names.junk(name):
                count = 0 if _is_address(name) else self.mentions.count(self._key(name))
                if unknown is None or count > heard:
                    unknown, heard = name, count
        scopes: list[str | None] = [agent, None] if agent else [None]
        ref = self.index.mentioned(candidate.fact, scopes)
        if ref is not None:
            return self._found(ref, "mentioned", None)
        if unknown is not None:
            return self._unknown(unknown, candidate)
        for name in candidate.around:  # "Called Summit Roofing; the quote is $14,200"
            ref = self._resolve(name, agent)
            if ref is not None:
                return self._found(ref, "related", None)
        thing = None if candidate.explicit else names.thing_of(candidate.fact)
        if thing is not None:  # "The dishwasher is leaking again" (asked: Remembered)
            return self._unknown(thing, candidate)
        return Route(None, False, None, "unrouted")

    def _other_of_that_name(self, name: str, agent: str | None) -> str | None:
        """The one waiting name a first name may be, when an entity answers to it only as
        its first name ("Marcus" for Marcus Bell, the plumber, while "Marcus Lee", the
        tenant, waits for his third mention): the fact is counted for the one who waits,
        not written to the other; None otherwise."""
        first = names.key(name)
        scopes = [agent, None] if agent else [None]
        if not first or "-" in first or self.index.answers(first, scopes):
            return None
        waiting = [n for k, n in self.mentions.names().items() if k.startswith(first + "-")]
        waiting = [n for n in waiting if self.mentions.waiting(self._key(n))]
        return waiting[0] if len(waiting) == 1 else None

    def _kin(self, candidate: Candidate) -> layout.EntityRef | None:
        """The entity of the one the fact opens on as the user's kin ("The user's dad
        hates…"), when the vault knows who that is (`_kin_of_user`)."""
        told = _USERS_KIN.match(candidate.fact)
        return None if told is None else self._kin_of_user(told["role"], candidate.entry.agent)

    def _kin_called(self, name: str, agent: str | None) -> layout.EntityRef | None:
        """The entity of the one called "Mom", "Dad" … as a name ("Dad's birthday is
        November 22"), when the vault knows who that is (`_kin_of_user`)."""
        role = name.strip().lower()
        return self._kin_of_user(role, agent) if role in _CALLED_KIN else None

    def _kin_of_user(self, role: str, agent: str | None) -> layout.EntityRef | None:
        """The one entity a fact names as the user's `role` or a word for it (`kin_of_user`:
        in the notes' agent's memory, else the global one), not the user's own Me."""
        if self.kin_of_user is None:
            return None
        for scope in [agent, None] if agent else [None]:
            for word in _CALLED_KIN.get(role.lower(), (role.lower(),)):
                ref = self.kin_of_user(scope, word)
                if ref is not None and ref.path != layout.USER_ENTITY:
                    return ref
        return None

    def _user_names(self, ref: layout.EntityRef) -> list[str]:
        return [n for f in self._active(ref) if (n := user_name(f)) is not None]

    def _pet_names(self, ref: layout.EntityRef) -> list[str]:
        """The animals the Pets' facts say are pets ("Rufus is a 9-year-old lab mix.")."""
        found = ((_PET_NAMED.match(f), f) for f in self._active(ref))
        return [m["name"] for m, f in found if m is not None and names.is_pet(m["name"], f)]

    def _active(self, ref: layout.EntityRef) -> list[str]:
        try:
            facts = self.vault.entity(ref).facts
        except errors.VaultError:  # unreadable: no name learnt from it (the run says so)
            return []
        return [f.fact.strip() for f in facts if f.is_active]

    def _also_named(self, ref: layout.EntityRef, said: list[str]) -> None:
        """Let the names said of an entity's own find it (`ref`: the person's Me, the
        Pets), each only where no entity of its scope answers to it already: "Alex
        Rivera" and "Alex"."""
        for name in said:
            if names.junk(name):
                continue
            for alias in dict.fromkeys((name, name.split()[0])):
                if self.index.lookup(names.key(alias), [ref.agent]) is None:
                    self.index.add(ref, None, alias)

    def released(self, name: str) -> list[Candidate]:
        """The candidates that waited for `name` (as `Route.name` gives it: the name as
        written, or an address in full), now that its entity is made; forgotten from the
        counts. Each is written to the route's entity (`route(c)` resolves it there too)."""
        return self.mentions.release(self._key(name))

    def restore(self, name: str, candidates: list[Candidate]) -> None:
        """Put back released candidates that could not be written (a write failed): they
        wait in the counts again, and the next route to their entity names `name` so
        that they are released once more. Without this, a failed write after `released`
        would leave them only in the daily notes."""
        self.mentions.restore(self._key(name), candidates)

    # -- steps ---------------------------------------------------------------------------

    def _key(self, name: str) -> str:
        if _is_address(name):
            return layout.EntityRef.canonical(name) or name
        return self._counted_as(names.key(name))

    def _resolve(self, name: str, agent: str | None) -> layout.EntityRef | None:
        if _is_address(name):
            ref = self.vault.resolve_reference(name, agent)
            if ref is None:
                pending = self._address_for(name, agent)
                return pending if pending in self._created else None
            return ref
        scopes = [agent, None] if agent else [None]
        found = self.index.lookup(names.key(name), scopes)
        short = names.without_honorific(names.key(name))  # "Grandma Helen": Helen Moreau
        return found if found is not None or short is None else self.index.lookup(short, scopes)

    def _found(self, ref: layout.EntityRef, reason: str, name: str | None) -> Route:
        create = ref in self._created and not self.vault.paths.holds_entity(ref)
        # a name whose candidates still wait (a run that stopped before releasing them);
        # an address is counted, and named, as the full address it resolved to
        if name is not None and _is_address(name):
            name = str(ref)
        waiting = name if name is not None and self.mentions.waiting(self._key(name)) else None
        return Route(ref, create, waiting, reason)

    def _address_for(self, name: str, agent: str | None) -> layout.EntityRef | None:
        """Where an unknown address would be made: as written when scoped; bare, in the
        agent's workspace (the first place `resolve_reference` looks), but people and
        companies in the user's graph."""
        try:
            ref = layout.EntityRef.parse(name)
        except errors.InvalidIdError:
            return None
        if name.startswith(_ADDRESS_PREFIXES) or agent is None:
            return ref
        if ref.path.startswith(("areas/people/", "areas/companies/")):
            return ref
        return layout.EntityRef(agent, ref.path)

    def _unknown(self, name: str, candidate: Candidate) -> Route:
        agent = candidate.entry.agent
        if _is_address(name):
            address = self._address_for(name, agent)
            name = name_key = str(address) if address is not None else ""
        else:
            kind = names.kind(name, candidate.fact, candidate.category)
            if candidate.explicit and kind == "thing" and names.articled(name, candidate.fact):
                return Route(None, False, None, "unrouted")  # "… is the Babyletto Hudson":
                # a thing's make named in passing is no entity to make: Remembered keeps it
            herd = layout.EntityRef(None, names.PETS)
            if kind == "pet" and self.vault.paths.holds_entity(herd):
                self._also_named(herd, [name])  # the rest of the run finds it there too
                return self._found(herd, "related", None)  # one entity for all the pets
            address = names.new_address(name, kind, agent)
            name_key = self._counted_as(names.key(name))
        if address is None or not name_key or not self._creatable(address):
            return Route(None, False, None, "unrouted")
        stored = self.mentions.address(name_key)
        if stored is not None and not better_place(stored, address):
            address = layout.EntityRef.parse(stored)
        count = self.mentions.note(name_key, name, address, candidate, defer=False)
        stated = kin_of_user(candidate) or self._kin_of_someone_known(candidate)
        if count >= CREATE_AT or candidate.track or candidate.explicit or stated:
            self._created.add(address)
            self.index.add(address, None if _is_address(name) else name)
            return Route(address, not self.vault.paths.holds_entity(address), name, "created")
        self.mentions.note(name_key, name, address, candidate, defer=True)
        return Route(None, False, name, "deferred")

    def _kin_of_someone_known(self, candidate: Candidate) -> bool:
        """Whether the fact states who someone is to a person or company the vault knows
        ("Theo's orthodontist is Dr. Farah Kim", "Bill is Jordan's parent", "Northside's
        project manager is Dana Ruiz"): as good as said of the user."""
        owner = _OWNER.match(candidate.fact) or _IS_OWNERS.match(candidate.fact)
        if candidate.category != models.FactCategory.RELATIONSHIP or owner is None:
            return False
        scopes = [candidate.entry.agent, None] if candidate.entry.agent else [None]
        known = self.index.lookup(names.key(owner.group("owner")), scopes)
        return known is not None and known.path.startswith(("areas/people/", "areas/companies/"))

    def _counted_as(self, name_key: str) -> str:
        """The key a name is counted under: one already counted that differs from it only
        by a leading honorific ("Dr. Patel" and "Patel" are one unknown person)."""
        if self.mentions.count(name_key):
            return name_key
        for counted in self.mentions.names():
            if names.without_honorific(counted) == name_key or (
                names.without_honorific(name_key) == counted
            ):
                return counted
        return name_key

    def _creatable(self, ref: layout.EntityRef) -> bool:
        """Whether an entity may be made at `ref` (a portable name, its agent there)."""
        if ref.agent is not None and not self.vault.paths.agent_dir(ref.agent).is_dir():
            return False
        if self.vault.paths.holds_entity(ref):
            return True
        try:
            self.vault.paths.check_new_entity(ref)
        except errors.VaultError:
            return False
        return True
