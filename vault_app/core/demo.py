"""A realistic demo vault: a family home run by seven agents, dated relative to one day.

This module is the generator; the household's text (entities and their facts, recurring
records, daily notes, AGENTS.md, each agent's TACIT.md and CONTEXT.md) is package data in
`demo_data/`, read once at import (`importlib.resources`, so it works from a wheel too).
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
import tomllib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from vault_app.core import config, daily, decay, formats, layout, vault

SEED = 20260131  # the design's date: same seed and same `today`, same vault
ACTION = "demo.create"
AGENT_IDS = ("manager", "finance", "maintenance", "security", "contractors", "projects", "janitor")
CATEGORIES = {
    "r": "relationship",
    "m": "milestone",
    "s": "status",
    "p": "preference",
    "c": "context",
}
# Odds that a fact was read in the past week, by PARA category (less for older facts).
HEAT = {"projects": 0.5, "areas": 0.35, "resources": 0.25, "archives": 0.02}
AGENT_HEAT = 0.45
CONFIDENCES = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip

_LINE = re.compile(r"^([rmspc])(\d+)?\|(.+)$", re.DOTALL)
_DAY_TOKEN = re.compile(r"\{([+-]\d+)\}")

Line = str | tuple[str, ...]


@dataclass(frozen=True)
class Entity:
    """One entity of the demo and its hand-written facts (`demo_data/entities.toml`).

    A fact line reads `<category letter><age>|<text>`: `r` relationship, `m` milestone,
    `s` status, `p` preference, `c` context; the optional age is how many days ago the fact
    was written (else a random day within `span`). A tuple of lines is a chain, oldest
    first: each line supersedes the one before it. `{+N}` / `{-N}` in a text is the date N
    days after / before today. `keys` are the words that make other facts link here.
    """

    address: str
    title: str
    agents: str  # who writes its facts, space-separated; the first one writes most
    span: tuple[int, int]  # (newest, oldest) age in days of facts without an age
    keys: tuple[str, ...]
    blurb: str
    facts: tuple[Line, ...]


@dataclass(frozen=True)
class Series:
    """A recurring record (a bill, a visit, a check), `count` of them `every` days apart
    (`demo_data/series.toml`)."""

    address: str
    category: str
    every: int
    count: int
    latest: int  # age in days of the most recent record
    origin: str  # what the record was extracted from: "bank-statement", "system-check"…
    texts: tuple[str, ...]  # "{date}" and "{amount}" are filled in
    amount: tuple[float, float, float] = (0.0, 0.0, 1.0)  # low, high, step


@dataclass(frozen=True)
class _Draft:
    """A fact about to be written: category, text, age in days, and its origin if a record."""

    category: str
    text: str
    age: int
    origin: str | None = None


# -- the household's text (package data) ----------------------------------------------------

DATA = resources.files("vault_app.core") / "demo_data"


def _text(*parts: str) -> str:
    node = DATA
    for part in parts:
        node = node / part
    return node.read_text(encoding="utf-8")


def _table(name: str) -> dict[str, Any]:
    return tomllib.loads(_text(name))


def _entity(row: dict[str, Any]) -> Entity:
    newest, oldest = row["span"]
    return Entity(
        address=row["address"],
        title=row["title"],
        agents=row["agents"],
        span=(newest, oldest),
        keys=tuple(row["keys"]),
        blurb=row["blurb"],
        facts=tuple(line if isinstance(line, str) else tuple(line) for line in row["facts"]),
    )


def _series(row: dict[str, Any]) -> Series:
    low, high, step = row.get("amount", (0.0, 0.0, 1.0))
    return Series(
        address=row["address"],
        category=row["category"],
        every=row["every"],
        count=row["count"],
        latest=row["latest"],
        origin=row["origin"],
        texts=tuple(row["texts"]),
        amount=(low, high, step),
    )


# The knowledge graph and the recurring records, in the order they are written: the order
# feeds the seeded random draws, so the same data gives the same vault.
ENTITIES: tuple[Entity, ...] = tuple(_entity(row) for row in _table("entities.toml")["entity"])
SERIES: tuple[Series, ...] = tuple(_series(row) for row in _table("series.toml")["series"])

_DAILY = _table("daily.toml")
# (days ago, "HH:MM", "global" or an agent id, text)
DAILY: tuple[tuple[int, str, str, str], ...] = tuple(
    (row["age"], row["time"], row["scope"], row["text"]) for row in _DAILY["note"]
)
# Routine entries, one per agent every day of the fortnight: (agent, hour, texts to pick from).
ROUTINE: tuple[tuple[str, int, tuple[str, ...]], ...] = tuple(
    (row["agent"], row["hour"], tuple(row["texts"])) for row in _DAILY["routine"]
)

# The agent documents: AGENTS.md (the principles) and each agent's TACIT.md and CONTEXT.md.
PRINCIPLES = _text("AGENTS.md")
TACIT: dict[str, str] = {agent: _text("agents", agent, "TACIT.md") for agent in AGENT_IDS}
CONTEXT: dict[str, str] = {agent: _text("agents", agent, "CONTEXT.md") for agent in AGENT_IDS}


# -- building ---------------------------------------------------------------------------------


def create_demo(
    path: Path | str,
    *,
    today: dt.date | None = None,
    clock: decay.Clock | None = None,
) -> vault.Vault:
    """Lay out a new vault at `path` and fill it with the demo household, dated from `today`.

    `today` defaults to the clock's local date. The same `today` gives the same files, byte
    for byte (apart from the app state under `.vault/`), and every fact keeps its tier all
    day long, so summaries written now stay right until midnight.
    """
    clock = clock or decay.system_clock
    day = today or decay.as_aware(clock()).astimezone().date()
    v = vault.Vault.create(path, clock=clock, actor="demo")
    rng = random.Random(SEED)
    for agent in AGENT_IDS:
        v.create_agent(agent)
    _grant(v)
    _write_documents(v, day)
    writer = _FactWriter(v, day, rng, ENTITIES)
    records = _series_records(day, rng)
    for entity in ENTITIES:
        writer.write_entity(entity, records.get(entity.address, []))
    _write_daily_notes(v, day, rng)
    noon = dt.datetime.combine(day, dt.time(12)).astimezone()
    _, problems = v.synthesize(at=noon)
    if problems:
        raise RuntimeError(f"demo vault has problems: {problems}")
    return v


def _grant(v: vault.Vault) -> None:
    """The household's consent (`.vault/config.toml`, the access policy's): its agents keep
    the shared memory (they write global entities, as the demo's facts show), and the
    manager reads every agent's workspace."""
    settings = config.VaultConfig.load(v.root)
    settings.agents.global_writers = list(AGENT_IDS)
    settings.agents.grants = {"manager": config.AgentGrant(read=["*"])}
    settings.save(v.storage)
    v.adopt_config(settings)


def ensure_demo_vault() -> tuple[Path, bool]:
    """The demo vault in the user's data folder (`config.demo_vault_path`), created on
    first use: what the window and the command line open when given no vault. Returns
    the path and whether it was created now."""
    target = config.demo_vault_path()
    if layout.is_vault(target):
        return target, False
    target.parent.mkdir(parents=True, exist_ok=True)
    create_demo(target)
    return target, True


def expand_days(text: str, today: dt.date) -> str:
    """Replace each `{+N}` / `{-N}` token with the date N days after / before `today`."""
    return _DAY_TOKEN.sub(lambda m: _day_label(today + dt.timedelta(days=int(m[1])), today), text)


def _day_label(day: dt.date, today: dt.date) -> str:
    label = f"{MONTHS[day.month - 1]} {day.day}"
    return label if day.year == today.year else f"{label}, {day.year}"


def _moment(day: dt.date, seconds: int) -> dt.datetime:
    """An aware local datetime, `seconds` after the start of `day`."""
    naive = dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)
    return naive.astimezone()


def _parse_line(line: str, default_age: int) -> _Draft:
    match = _LINE.match(line)
    if match is None:
        raise ValueError(f"bad demo fact line {line!r}")
    letter, age, text = match.groups()
    return _Draft(CATEGORIES[letter], text, int(age) if age else default_age)


def _series_records(today: dt.date, rng: random.Random) -> dict[str, list[_Draft]]:
    """The recurring records of every series, by entity address."""
    records: dict[str, list[_Draft]] = {}
    for series in SERIES:
        low, high, step = series.amount
        for n in range(series.count):
            age = series.latest + n * series.every
            value = round(rng.uniform(low, high) / step) * step
            amount = f"{value:,.2f}" if step < 1 else f"{value:,.0f}"
            day = today - dt.timedelta(days=age)
            text = rng.choice(series.texts).format(date=_day_label(day, today), amount=amount)
            origin = f"{series.origin}-{day:%Y%m%d}"
            records.setdefault(series.address, []).append(
                _Draft(series.category, text, age, origin)
            )
    return records


class _FactWriter:
    """Turns the entities' fact lines into raw canonical facts and writes them."""

    def __init__(
        self, v: vault.Vault, today: dt.date, rng: random.Random, entities: Iterable[Entity]
    ) -> None:
        self.vault = v
        self.today = today
        self.rng = rng
        self.links: list[tuple[layout.EntityRef, re.Pattern[str]]] = []
        for entity in entities:
            if entity.keys:
                words = "|".join(re.escape(k) for k in entity.keys)
                pattern = re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)
                self.links.append((layout.EntityRef.parse(entity.address), pattern))

    def write_entity(self, entity: Entity, records: list[_Draft]) -> None:
        ref = layout.EntityRef.parse(entity.address)
        folder = self.vault.paths.entity_dir(ref)
        folder.mkdir(parents=True, exist_ok=True)
        entries = self._entries(entity, ref, records)
        summary = f"# {entity.title}\n\n{entity.blurb}\n"
        facts_path = folder / "items.json"
        data = formats.encode(formats.FactFile(facts_path, entries))
        for target, content in (
            (folder / layout.SUMMARY_NAME, summary.encode("utf-8")),
            (facts_path, data),
        ):
            self.vault.storage.write(target, content, expected=None, action=ACTION, entity=str(ref))

    def _entries(
        self, entity: Entity, ref: layout.EntityRef, records: list[_Draft]
    ) -> list[dict[str, Any]]:
        heat = AGENT_HEAT if ref.agent else HEAT[ref.category]
        agents = entity.agents.split()
        chains: list[list[_Draft]] = []
        for line in entity.facts:
            if isinstance(line, str):
                chains.append([_parse_line(line, self.rng.randint(*entity.span))])
                continue
            chain = [_parse_line(step, 0) for step in line]
            ages = [d.age for d in chain]
            if len(chain) < 2 or any(b >= a for a, b in itertools.pairwise(ages)) or ages[-1] < 1:
                raise ValueError(f"chain in {entity.address} needs decreasing ages: {line}")
            chains.append(chain)
        chains.extend([record] for record in records)
        entries: list[tuple[dt.datetime, dict[str, Any]]] = []
        for chain in chains:
            ids = [self._new_id() for _ in chain]
            for i, draft in enumerate(chain):
                later = chain[i + 1].age if i + 1 < len(chain) else None
                successor = ids[i + 1] if i + 1 < len(chain) else None
                agent = self._author(agents)
                created = self._time_on(draft.age)
                entry = self._entry(ref, draft, ids[i], created, later, successor, heat, agent)
                entries.append((created, entry))
        entries.sort(key=lambda pair: pair[0])
        return [entry for _, entry in entries]

    def _entry(
        self,
        ref: layout.EntityRef,
        draft: _Draft,
        fact_id: str,
        created: dt.datetime,
        later: int | None,
        successor: str | None,
        heat: float,
        agent: str,
    ) -> dict[str, Any]:
        text = expand_days(draft.text, self.today)
        if later is None:
            count = self._access_count(draft.age)
            last_age = self._last_access_age(draft.age, count, heat)
        else:  # superseded: read now and then until its successor was written
            count = self.rng.randint(0, 6)
            last_age = self.rng.randint(later, draft.age)
        if last_age == draft.age:
            last = created + dt.timedelta(minutes=self.rng.randint(0, 90))
        else:
            last = self._time_on(last_age)
        day = created.date()
        if draft.origin is not None:  # a record read from a statement, a log, a receipt
            confidence, verified, extracted = 1.0, "system", draft.origin
        else:
            confidence = 1.0 if self.rng.random() > 0.14 else self.rng.choice(CONFIDENCES)
            verified = "agent" if confidence < 1.0 else self._verifier()
            extracted = f"conversation-{day:%Y%m%d}-{self.rng.getrandbits(24):06x}"
        source = extracted if self.rng.random() < 0.2 else day.isoformat()
        return {
            "id": fact_id,
            "fact": text,
            "category": draft.category,
            "timestamp": formats.iso(created),
            "source": source,
            "status": "active" if successor is None else "superseded",
            "supersededBy": successor,
            "relatedEntities": self._related(ref, text),
            "lastAccessed": formats.iso(last),
            "accessCount": count,
            "confidence": confidence,
            "agentId": agent,
            "metadata": {"extractedFrom": extracted, "verifiedBy": verified},
        }

    def _new_id(self) -> str:
        return "fact-" + uuid.UUID(int=self.rng.getrandbits(128), version=4).hex

    def _time_on(self, age: int) -> dt.datetime:
        """A moment between 08:00 and 21:00, `age` days before today."""
        day = self.today - dt.timedelta(days=age)
        return _moment(day, self.rng.randrange(8 * 3600, 21 * 3600))

    def _author(self, agents: list[str]) -> str:
        """The entity's main writer seven times in ten, else one of the others."""
        if len(agents) == 1 or self.rng.random() < 0.7:
            return agents[0]
        return self.rng.choice(agents[1:])

    def _verifier(self) -> str:
        roll = self.rng.random()
        return "user" if roll < 0.6 else "agent" if roll < 0.9 else "system"

    def _access_count(self, age: int) -> int:
        roll = self.rng.random()
        if roll < 0.6:
            count = self.rng.randint(0, 10)
        elif roll < 0.85:
            count = self.rng.randint(11, 20)
        else:
            count = self.rng.randint(21, 48)
        return min(count, 2 + 3 * age)

    def _last_access_age(self, age: int, count: int, heat: float) -> int:
        """Days since the last access, never a tier boundary: the tier holds all day long.

        Read at any time today, a fact last accessed `d` days ago at some hour is `d - 1` or
        `d` whole days old; `d` is moved off the first day of a tier so both land in one tier.
        """
        recent = heat if age <= 14 else heat / 2 if age <= 90 else heat / 4  # old news fades
        roll = self.rng.random()
        if roll < recent:
            days = self.rng.randint(1, min(age, 7))
        elif roll < recent + 0.3 and age > 8:
            days = self.rng.randint(8, min(age, 30))
        else:
            days = self.rng.randint(min(age, 32), age)
        hot, warm = self.vault.config.decay.thresholds(count)  # the policy of this vault
        if days in (hot + 1, warm + 1):
            days = days + 1 if days < age else days - 1
        return days

    def _related(self, ref: layout.EntityRef, text: str) -> list[str]:
        """The entities a fact's text names (global ones, or the same agent's)."""
        return [
            target.path
            for target, pattern in self.links
            if target != ref and target.agent in (None, ref.agent) and pattern.search(text)
        ]


def _write_documents(v: vault.Vault, today: dt.date) -> None:
    principles = v.document(vault.PRINCIPLES)
    v.write_document(vault.PRINCIPLES, PRINCIPLES, expected=principles.digest)
    for agent in AGENT_IDS:
        for name, texts in (("TACIT.md", TACIT), ("CONTEXT.md", CONTEXT)):
            current = v.document(name, agent=agent)
            text = expand_days(texts[agent], today)
            v.write_document(name, text, agent=agent, expected=current.digest)


def _write_daily_notes(v: vault.Vault, today: dt.date, rng: random.Random) -> None:
    """Two weeks of global and per-agent daily notes, in the reference writer's format."""
    notes: dict[tuple[str, int], list[tuple[dt.time, str]]] = {}
    for age, hhmm, scope, text in DAILY:
        hour, minute = (int(part) for part in hhmm.split(":"))
        moment = dt.time(hour, minute, rng.randrange(60))
        notes.setdefault((scope, age), []).append((moment, expand_days(text, today)))
    for age in range(14):
        for agent, hour, texts in ROUTINE:
            moment = dt.time(hour, rng.randrange(60), rng.randrange(60))
            notes.setdefault((agent, age), []).append((moment, rng.choice(texts)))
    for (scope, age), entries in sorted(notes.items()):
        day = today - dt.timedelta(days=age)
        owner = None if scope == "global" else scope
        note = daily.new_note(day)
        for moment, content in sorted(entries):
            note = daily.append(note, day, moment, content)
        path = v.paths.daily_file(day, owner)
        v.storage.write(path, note.encode("utf-8"), expected=None, action=ACTION, agent=owner)
