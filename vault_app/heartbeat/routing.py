"""Which entity a candidate fact goes to, and the unknown names counted until the third.

`Router.route` tries, in order:

1. the candidate's `entity`, when it resolves: an address (`areas/family`,
   `agent:household:resources/kitchen`; a bare one from an agent's note tries the
   agent's workspace first, as `layout.resolve_reference` does) or a name an entity
   answers to (`names.NameIndex`: "Dr. Patel" ~ `dr-patel`, case and accents aside);
2. else its first `related` entity that resolves;
3. else the existing entity whose name the fact's text contains (the longest wins).

The person the notes speak for is known by name once they said it ("My name is Alex
Rivera": "The user's name is Alex Rivera." in a Me): a fact naming them ("Alex wants the
thermostat at 68", an agent's note) goes to Me as an "I" would, when no entity answers to
the name otherwise (`user_name`; the full name and the first, the Me of the notes'
agent, else the global one).

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
watches). `waiting_names` lists what waits, for a person to
see; `ask_to_keep` writes the note that asks for one at once (`keep_request`). Junk names
(pronouns, days, "today"…) are never counted; a candidate that names nothing routable is
`unrouted`.

The runner calls `released(route.name)` whenever a route has both a `ref` and a `name`,
and `restore(route.name, candidates)` with those it then failed to write. That is also
how a run that stopped between creating an entity and writing its waiting facts gets
them written on the next run: the name is then found in the index, its candidates still
wait, and the route names it.

`MentionCounts` is written only through the vault's `Storage` (locked, atomic, backed
up), and stays bounded: the `MAX_NAMES` names mentioned most recently are kept (a name
dropped after a single mention years ago starts counting again; its fact stays in the
notes). A file another process changed since `load` is merged, not overwritten; a corrupt
file raises `CorruptFileError` with its place and is never replaced.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from vault_app.core import errors, layout, models, safe_fs, storage, strict_json
from vault_app.core.vault import Vault
from vault_app.heartbeat import names, state
from vault_app.heartbeat.extraction import Candidate, Entry

MENTIONS_NAME = "mentions.json"
CREATE_AT = 3  # entries naming an unknown entity before it is made
MAX_ENTRIES = 64  # entry refs kept per name (only the count up to CREATE_AT matters)
MAX_DEFERRED = 500  # waiting candidates kept per name
MAX_NAMES = 4000  # names kept, the most recently mentioned (the others wait in the notes)
MAX_BYTES = 32 << 20
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


_OWNER = re.compile(r"(?P<owner>[A-Z][\w.-]*(?:\s[A-Z][\w.-]*){0,2})['’]s\s+[a-z]")
_IS_OWNERS = re.compile(r"[A-Z][\w.-]*(?:\s[A-Z][\w.-]*){0,2}\s+is\s+" + _OWNER.pattern)
_OF_THE_USER = re.compile(r"\bthe (?:user|household)['’]s\b", re.IGNORECASE)


def kin_of_user(candidate: Candidate) -> bool:
    """Whether the fact states who someone is to the person the notes speak for ("Ingrid
    is the user's mom.", "The household's landlord is Mr. Okafor."): a direct relationship
    to the user makes the entity at once, as the design's creation rules say, not on its
    third mention."""
    return candidate.category == models.FactCategory.RELATIONSHIP and bool(
        _OF_THE_USER.search(candidate.fact)
    )


@dataclass(frozen=True)
class Waiting:
    """A name the heartbeat met but made no entity of yet, with the facts that wait for
    it (they are in the daily notes meanwhile; `keep_request` makes it now)."""

    name: str  # as first written
    address: str  # where it will be made
    mentions: int  # entries that named it (made at `CREATE_AT`)
    facts: tuple[Candidate, ...]  # oldest first

    @property
    def agent(self) -> str | None:
        """Whose notes named it last: where a request to keep it is written."""
        return self.facts[-1].entry.agent if self.facts else None


def waiting_names(root: Path) -> list[Waiting]:
    """The names with facts waiting for their entity, most mentioned first, then the
    latest mentioned (read only; a corrupt `mentions.json` is a precise error)."""
    counts = MentionCounts.load(root)
    found = [
        Waiting(r.name, r.address, len(r.entries), tuple(_candidate(c) for c in r.deferred))
        for r in reversed(counts._state.names.values())
        if r.deferred
    ]
    return sorted(found, key=lambda w: -w.mentions)  # stable: the latest first among equals


def keep_request(name: str) -> str:
    """The daily-note entry that asks the heartbeat to make `name`'s entity now: the rules
    read it as a track request, which makes the entity and writes what waited for it."""
    return f"Keep track of {' '.join(name.split())}."


def ask_to_keep(vault: Vault, name: str) -> Waiting:
    """Write the request to keep the waiting name `name` (case, accents and spacing aside,
    or its address) in the daily notes of whoever met it last, as `vault`'s actor; the
    next heartbeat makes its entity and writes what waited. NotFoundError when no name
    waits so."""
    wanted = names.key(name)
    found = next(
        (w for w in waiting_names(vault.root) if wanted in (names.key(w.name), w.address)),
        None,
    )
    if found is None:
        raise errors.NotFoundError(
            f"no name waits as {name!r}: `heartbeat --waiting` lists those that do"
        )
    vault.append_daily(keep_request(found.name), agent=found.agent, at=vault.now())
    return found


def mentions_path(root: Path) -> Path:
    return state.path(root, MENTIONS_NAME)


@dataclass(frozen=True)
class Route:
    ref: layout.EntityRef | None  # where the fact goes; None = deferred (stays in the notes)
    create: bool  # the entity must be created first
    name: str | None  # the unknown name that was counted, if any
    reason: str  # "entity" | "related" | "mentioned" | "created" | "remembered" | "user" |
    # "deferred" | "unrouted"


# -- mentions.json -------------------------------------------------------------------------


class _EntryJson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: StrictStr
    date: dt.date
    time: StrictStr
    text: StrictStr
    agent: StrictStr | None = None
    occurrence: StrictInt = Field(default=0, ge=0)


class _CandidateJson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact: StrictStr
    category: models.FactCategory
    entry: _EntryJson
    entity: StrictStr | None = None
    related: list[StrictStr] = Field(default_factory=list)
    track: StrictBool = False
    confidence: StrictFloat | StrictInt = 1.0


class _NameJson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr  # as first written
    address: StrictStr  # where it will be created
    entries: list[StrictStr] = Field(default_factory=list)  # refs of the entries naming it
    deferred: list[_CandidateJson] = Field(default_factory=list)

    @field_validator("address")
    @classmethod
    def _an_address(cls, value: str) -> str:
        if layout.EntityRef.canonical(value) is None:
            raise ValueError(f"{value!r} is no entity address")
        return value


class _MentionsJson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: Literal[1] = 1
    names: dict[str, _NameJson] = Field(default_factory=dict)


def _candidate_json(candidate: Candidate) -> _CandidateJson:
    e = candidate.entry
    return _CandidateJson(
        fact=candidate.fact,
        category=candidate.category,
        entry=_EntryJson(
            path=e.path,
            date=e.date,
            time=e.time,
            text=e.text,
            agent=e.agent,
            occurrence=e.occurrence,
        ),
        entity=candidate.entity,
        related=list(candidate.related),
        track=candidate.track,
        confidence=float(candidate.confidence),
    )


def _candidate(data: _CandidateJson) -> Candidate:
    e = data.entry
    entry = Entry(
        path=e.path, date=e.date, time=e.time, text=e.text, agent=e.agent, occurrence=e.occurrence
    )
    return Candidate(
        fact=data.fact,
        category=data.category,
        entry=entry,
        entity=data.entity,
        related=tuple(data.related),
        track=data.track,
        confidence=float(data.confidence),
    )


def _waiting_key(data: _CandidateJson) -> tuple[str, str]:
    """What makes a waiting candidate one: its entry and its text."""
    return _candidate(data).entry.ref, data.fact


def _place(error: ValidationError) -> str:
    first = error.errors()[0]
    place = ""
    for part in first["loc"]:
        place += f"[{part}]" if isinstance(part, int) else (f".{part}" if place else str(part))
    return place or "top level"


def _parse(path: Path, data: bytes) -> _MentionsJson:
    value, _ = strict_json.parse_json(path, data)
    if not isinstance(value, dict):
        raise errors.CorruptFileError(
            path, f"expected a JSON object, found {strict_json.json_type(value)}"
        )
    try:
        return _MentionsJson.model_validate(value)
    except ValidationError as exc:
        reason = exc.errors()[0]["msg"]
        raise errors.CorruptFileError(path, reason, _place(exc)) from None


class MentionCounts:
    """The unknown names seen so far: per name, the entries that named it (each once)
    and the candidates waiting for its entity. `.vault/heartbeat/mentions.json`."""

    def __init__(self, root: Path, state: _MentionsJson, loaded: bytes | None) -> None:
        self.root = Path(root)
        self._state = state
        self._loaded = loaded  # the bytes read, to tell another writer's change on save
        self._released: set[str] = set()
        self._handed: dict[str, _NameJson] = {}  # released this run, for `restore`

    @classmethod
    def load(cls, root: Path) -> MentionCounts:
        """The counts saved in the vault at `root` (none yet: empty). A file that cannot
        be read raises `CorruptFileError` with its place; it is left as it is."""
        path = mentions_path(root)
        safe_fs.check_tree(Path(root), path, safe_fs.STATE_READ)
        data = safe_fs.read_file(path, MAX_BYTES)
        state = _MentionsJson() if data is None else _parse(path, data)
        return cls(root, state, data)

    def save(self, store: storage.Storage) -> None:
        """Write the counts atomically under the file's lock; what another writer saved
        since `load` is merged in (names released here stay released)."""
        path = mentions_path(store.paths.root)
        with store.transaction(path) as tx:
            if tx.data is not None and tx.data != self._loaded:
                self._merge(_parse(path, tx.data))
            for stale in list(self._state.names)[: max(0, len(self._state.names) - MAX_NAMES)]:
                del self._state.names[stale]  # mentioned longest ago: the file stays bounded
            data = (
                orjson.dumps(self._state.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
                + b"\n"
            )
            tx.commit(data, "heartbeat.mentions")
        self._loaded = data

    def _merge(self, theirs: _MentionsJson) -> None:
        for name_key, record in theirs.names.items():
            if name_key in self._released:
                continue
            mine = self._state.names.get(name_key)
            if mine is None:
                self._state.names[name_key] = record
                continue
            mine.entries = list(dict.fromkeys([*record.entries, *mine.entries]))[-MAX_ENTRIES:]
            seen = {_waiting_key(c) for c in mine.deferred}
            extra = [c for c in record.deferred if _waiting_key(c) not in seen]
            mine.deferred = [*extra, *mine.deferred][-MAX_DEFERRED:]

    # -- what the router asks ----------------------------------------------------------

    def count(self, name_key: str) -> int:
        record = self._state.names.get(name_key)
        return 0 if record is None else len(record.entries)

    def names(self) -> dict[str, str]:
        """Each counted key with the name as first written."""
        return {k: r.name for k, r in self._state.names.items()}

    def waiting(self, name_key: str) -> int:
        record = self._state.names.get(name_key)
        return 0 if record is None else len(record.deferred)

    def address(self, name_key: str) -> str | None:
        record = self._state.names.get(name_key)
        return None if record is None else record.address

    def note(
        self,
        name_key: str,
        name: str,
        address: layout.EntityRef,
        candidate: Candidate,
        *,
        defer: bool,
    ) -> int:
        """Count the candidate's entry for `name_key` (once per entry) and, with `defer`,
        keep the candidate waiting (once); the count after."""
        record = self._state.names.pop(name_key, None)  # back in last: mentioned latest
        if record is None:
            record = _NameJson(name=name, address=str(address))
            self._released.discard(name_key)
        elif _upgrade(record.address, address):
            record.address = str(address)
        self._state.names[name_key] = record
        ref = candidate.entry.ref
        if ref not in record.entries:
            record.entries = [*record.entries, ref][-MAX_ENTRIES:]
        if defer:
            waiting = (candidate.entry.ref, candidate.fact)
            if all(_waiting_key(c) != waiting for c in record.deferred):
                record.deferred = [*record.deferred, _candidate_json(candidate)][-MAX_DEFERRED:]
        return len(record.entries)

    def release(self, name_key: str) -> list[Candidate]:
        """Forget `name_key` and hand back its waiting candidates, oldest first."""
        record = self._state.names.pop(name_key, None)
        if record is None:
            return []
        self._released.add(name_key)
        self._handed[name_key] = record
        return [_candidate(c) for c in record.deferred]

    def restore(self, name_key: str, candidates: list[Candidate]) -> None:
        """Keep `candidates` waiting for `name_key` again (released, then not written)."""
        record = self._handed.get(name_key) or self._state.names.get(name_key)
        if record is None:
            return
        record = self._state.names.setdefault(name_key, record.model_copy(update={"deferred": []}))
        self._released.discard(name_key)
        for candidate in candidates:
            self.note(
                name_key, record.name, layout.EntityRef.parse(record.address), candidate, defer=True
            )


def _upgrade(current: str, proposed: layout.EntityRef) -> bool:
    """Whether a later mention places a name better: as a person, a company or a pet (a
    name first seen without a cue of what it is, then with one)."""
    pets = f"{names.PETS}/"
    if proposed.path.startswith(pets):  # an animal's cue is surer than a pronoun's
        return not current.startswith(pets)
    grouped = ("areas/people/", "areas/companies/", pets)
    return proposed.path.startswith(grouped) and not current.startswith(grouped)


# -- the router ----------------------------------------------------------------------------


def _is_address(text: str) -> bool:
    return "/" in text or text.startswith(_ADDRESS_PREFIXES)


class Router:
    """Routes one run's candidates; knows the vault's entity names (read on first use)."""

    def __init__(self, vault: Vault, mentions: MentionCounts) -> None:
        self.vault = vault
        self.mentions = mentions
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
        entity = candidate.entity
        if entity and (_is_address(entity) or not names.junk(entity)):
            ref = self._resolve(entity, agent)
            if ref is not None:
                return self._found(ref, "entity", entity)
            return self._unknown(entity, candidate)
        unknown = None
        for name in candidate.related:
            ref = self._resolve(name, agent)
            if ref is not None:
                return self._found(ref, "related", None)
            if unknown is None and (_is_address(name) or not names.junk(name)):
                unknown = name
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
        if stored is not None and not _upgrade(stored, address):
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
