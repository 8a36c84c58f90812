"""The unknown names the heartbeat met, counted until the third, and the facts that wait
for their entity: `.vault/heartbeat/mentions.json` (`MentionCounts`, which the router
keeps: `routing`), what waits, for a person to see (`waiting_names`), and the note that
asks for one at once (`ask_to_keep`, `keep_request`).

`MentionCounts` is written only through the vault's `Storage` (locked, atomic, backed
up), and stays bounded: the `MAX_NAMES` names mentioned most recently are kept (a name
dropped after a single mention years ago starts counting again; its fact stays in the
notes). A file another process changed since `load` is merged, not overwritten; a corrupt
file raises `CorruptFileError` with its place and is never replaced.
"""

from __future__ import annotations

import datetime as dt
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


def better_place(current: str, proposed: layout.EntityRef) -> bool:
    """Whether a later mention places a name better: as a person, a company or a pet (a
    name first seen without a cue of what it is, then with one)."""
    pets = f"{names.PETS}/"
    if proposed.path.startswith(pets):  # an animal's cue is surer than a pronoun's
        return not current.startswith(pets)
    grouped = ("areas/people/", "areas/companies/", pets)
    return proposed.path.startswith(grouped) and not current.startswith(grouped)


# -- the file -------------------------------------------------------------------------


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
        elif better_place(record.address, address):
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
