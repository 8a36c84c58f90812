"""The conversation evaluation set: months of chat between two or three people, as memory.

    python benchmarks/eval/conversations.py --check        # build in a temp folder, validate
    python benchmarks/eval/conversations.py PATH           # build the vault at PATH
    python benchmarks/eval/conversations.py --heldout ...  # the held-out set instead

The generator takes its hand-written material and phrasing habits as a `Material`:
`TUNING` (the set below, which the ranking was tuned on) or `heldout.HELDOUT` (written
afterwards, never tuned on).

Eleven conversations (2 or 3 people each, 16-20 sessions from February 2025 to February
2026) are generated from the hand-written material of `story.py` and `chat.py` by a seeded
random generator: the same vault and questions on every run, built in a few seconds, so
the generated data is not committed (the material and this script are the source; a
reviewer reads the material, and `--dump` prints the questions). Each conversation is logged by its
own agent (`chat-01`...): every turn is one `## HH:MM:SS` entry of that agent's daily note,
`Name: text`. Between the events people make small talk, react, and come back to earlier
events without restating them.

A careful extractor's facts sit on each person's entity (`areas/people/maya-chen`), one per
event, stamped with the turn's time and citing it in `metadata.extractedFrom`
(`{"agent", "date", "time"}`). Questions (`questions()`) have a `kind`:

- `single-hop`: one event, asked in other words than it was told;
- `multi-hop`: needs two turns of different sessions (a `chat.PAIRS` event);
- `temporal`: "When did Maya ...?" or "What was Maya up to in May 2025?";
- `open-domain`: answered by inference from one event ("Would Maya need a pet sitter?");
- `no-answer`: about something that never happened to that person.

Labels are the relevant facts (by text, unique) and daily entries (agent, date, time);
`resolve(vault, question)` turns them into document keys (`fact:<id>`,
`daily:agent:<id>:<date>:<index>`) and raises `build.LabelError` when one does not resolve
to exactly one document.
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import json
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.eval import build, chat, story
from vault_app.core import facts
from vault_app.core.vault import Vault

SEED = 18
START = dt.date(2025, 2, 1)
TODAY = dt.date(2026, 2, 16)  # the vault's clock when the set is searched
KINDS = ("single-hop", "multi-hop", "temporal", "open-domain", "no-answer")
QUESTION_MIN = 500
SESSION_MIN = 15
REACTIONS = ("That's amazing, congrats!", "No way!", "Wow, tell me more!", "Oh no, I'm sorry.")


@dataclass
class Turn:
    speaker: str  # first name
    text: str
    moment: dt.datetime | None = None


@dataclass
class Event:
    person: str  # full name
    turn: str
    fact: str
    questions: list[tuple[str, str]]  # (kind, query)
    followup: tuple[str, str] | None = None  # (turn, fact) told in a later session
    later: Event | None = None  # that follow-up, once placed
    telling: bool = False  # the follow-up's fact repeats the event's detail (a slot)
    moment: dt.datetime | None = None
    agent: str = ""


@dataclass(frozen=True)
class Material:
    """The hand-written material a set is generated from, and its phrasing habits."""

    people: tuple[tuple[str, ...], ...]
    topics: tuple[story.Topic, ...]
    pairs: tuple[story.Pair, ...]
    small_talk: tuple[str, ...]
    small_talk_facts: dict[str, str]
    reactions: tuple[str, ...] = REACTIONS
    agent: str = "chat"  # the agents are chat-01, chat-02...
    seed: int = SEED
    when: tuple[str, ...] = ("When did {P} {when}?",)  # by event, in turn
    # "what was X up to in <month>", by month in turn ({month} {year})
    months: tuple[str, ...] = (
        "What news did {P} have last {month}?",
        "What was {P} up to in {month} {year}?",
    )
    typed: Callable[[int, str], str] | None = None  # how the n-th question is typed

    def agents(self) -> list[str]:
        return [f"{self.agent}-{n:02d}" for n in range(1, len(self.people) + 1)]


TUNING = Material(story.PEOPLE, story.TOPICS, chat.PAIRS, chat.SMALL_TALK, chat.SMALL_TALK_FACTS)


@dataclass
class Conversation:
    agent: str
    people: tuple[str, ...]
    sessions: list[tuple[dt.date, list[Turn | Event]]] = field(default_factory=list)


def first(name: str) -> str:
    return name.split()[0]


def slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def entity_of(name: str) -> str:
    return f"areas/people/{slug(name)}"


# -- generating -----------------------------------------------------------------------------


def generate(
    material: Material = TUNING,
) -> tuple[list[Conversation], list[dict[str, Any]]]:
    """The conversations and their questions (without labels resolved), deterministically."""
    rng = random.Random(material.seed)
    used: Counter[str] = Counter()  # topic -> options handed out (distinct per person)
    conversations = []
    questions: list[dict[str, Any]] = []
    for agent, people in zip(material.agents(), material.people, strict=True):
        events: list[Event] = []
        pairs: list[tuple[Event, Event]] = []
        absent: list[tuple[str, str]] = []
        for index, person in enumerate(people):
            p, q = first(person), first(people[(index + 1) % len(people)])
            topics = sorted(material.topics, key=lambda t: (used[t.key], rng.random()))[:6]
            for k, topic in enumerate(topics):
                slots = topic.options[used[topic.key] % len(topic.options)] | {"P": p, "Q": q}
                used[topic.key] += 1
                asked = [
                    ("single-hop", topic.single[k % len(topic.single)]),
                    ("open-domain", topic.inferred[(k + index) % len(topic.inferred)]),
                ]
                if (k + index) % 2 == 0:
                    when = material.when[(k + index) // 2 % len(material.when)]
                    asked.append(
                        ("temporal", when.replace("{when}", topic.when[k % len(topic.when)]))
                    )
                followup = rng.choice(topic.followups) if topic.followups else None
                events.append(
                    Event(
                        person,
                        rng.choice(topic.turns).format(**slots),
                        topic.fact.format(**slots),
                        [(kind, text.format(**slots)) for kind, text in asked],
                        tuple(x.format(**slots) for x in followup)  # type: ignore[arg-type]
                        if followup
                        else None,
                        telling=bool(followup and _has_slot(followup[1])),
                    )
                )
            mine = {t.key for t in topics}
            missing = [t for t in material.topics if t.key not in mine and t.absent]
            for topic in rng.sample(missing, 2):
                absent.append((person, rng.choice(topic.absent).format(P=p)))
            for pair in rng.sample(material.pairs, 2):
                slots = pair.options[used[pair.key] % len(pair.options)] | {"P": p, "Q": q}
                used[pair.key] += 1
                a = Event(person, pair.first[0].format(**slots), pair.first[1].format(**slots), [])
                b = Event(
                    person, pair.second[0].format(**slots), pair.second[1].format(**slots), []
                )
                b.questions.append(("multi-hop", rng.choice(pair.question).format(**slots)))
                pairs.append((a, b))
        conversation = _sessions(rng, material, agent, people, events, pairs)
        conversations.append(conversation)
        questions += _questions(material, conversation, events, pairs, absent)
    if material.typed is not None:
        for n, question in enumerate(questions):
            question["query"] = material.typed(n, question["query"])
    return conversations, questions


def _sessions(
    rng: random.Random,
    material: Material,
    agent: str,
    people: tuple[str, ...],
    events: list[Event],
    pairs: list[tuple[Event, Event]],
) -> Conversation:
    count = rng.randint(16, 20)
    span = (TODAY - START).days - 7
    days = sorted(START + dt.timedelta(days=d) for d in rng.sample(range(span), count))
    slots: list[list[Event]] = [[] for _ in range(count)]
    for a, b in pairs:
        at = rng.randrange(0, count - 3)
        slots[at].append(a)
        slots[rng.randrange(at + 2, count)].append(b)
    order = events[:]
    rng.shuffle(order)
    for i, event in enumerate(order):
        slots[(i * 7 + rng.randrange(3)) % count].append(event)
    conversation = Conversation(agent, people)
    pending: list[tuple[int, Event]] = []  # follow-ups for later sessions
    said: set[tuple[str, str]] = set()  # small talk already kept as a fact, by person

    def small_talk() -> Turn | Event:
        person = rng.choice(people)
        line = rng.choice(material.small_talk)
        fact = material.small_talk_facts.get(line)
        if fact is None or (person, line) in said:
            return Turn(first(person), line)
        said.add((person, line))
        other = first(rng.choice([p for p in people if p != person]))
        return Event(person, line, fact.format(P=first(person), Q=other), [])

    for number, (day, held) in enumerate(zip(days, slots, strict=True)):
        turns: list[Turn | Event] = [small_talk() for _ in range(rng.randint(2, 3))]
        turns += [event for at, event in pending if at == number]
        pending = [p for p in pending if p[0] != number]
        for event in held:
            turns.append(event)
            other = rng.choice([first(p) for p in people if p != event.person])
            turns.append(Turn(other, rng.choice(material.reactions)))
            if rng.random() < 0.5:
                turns.append(small_talk())
            if event.followup and number + 1 < count:
                event.later = Event(event.person, event.followup[0], event.followup[1], [])
                pending.append((rng.randrange(number + 1, count), event.later))
        turns += [small_talk() for _ in range(rng.randint(1, 3))]
        moment = dt.datetime.combine(day, dt.time(rng.randint(7, 21), rng.randint(0, 59)))
        for turn in turns:
            moment += dt.timedelta(seconds=rng.randint(40, 400))
            turn.moment = moment
            if isinstance(turn, Event):
                turn.agent = agent
        conversation.sessions.append((day, turns))
    return conversation


def _has_slot(template: str) -> bool:
    """Whether a template holds a topic's slot (not only the person's names)."""
    return "{" in template.replace("{P}", "").replace("{Q}", "")


def _label(event: Event) -> tuple[str, dict[str, str]]:
    assert event.moment is not None
    entry = {
        "agent": event.agent,
        "date": event.moment.date().isoformat(),
        "time": event.moment.strftime("%H:%M:%S"),
    }
    return event.fact, entry


def _questions(
    material: Material,
    conversation: Conversation,
    events: list[Event],
    pairs: list[tuple[Event, Event]],
    absent: list[tuple[str, str]],
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def ask(
        kind: str, query: str, cited: list[Event], person: str, also: Event | None = None
    ) -> None:
        labels = [_label(e) for e in cited]
        out.append(
            {
                "id": f"{conversation.agent}-q{len(out) + 1:03d}",
                "kind": kind,
                "query": query,
                "person": person,
                "facts": [fact for fact, _ in labels] + ([also.fact] if also else []),
                "entries": [entry for _, entry in labels],
            }
        )

    for event in events:
        for kind, query in event.questions:
            # the follow-up supports an inference from the event (a pet that chews cables
            # is a pet to look after); its fact answers a detail when it repeats it ("Maya's
            # ears rang after the Radiohead show": which show), its turn does not ("My
            # ears are still ringing")
            if kind == "open-domain" and event.later:
                ask(kind, query, [event, event.later], event.person)
            elif kind == "single-hop" and event.later and event.telling:
                ask(kind, query, [event], event.person, also=event.later)
            else:
                ask(kind, query, [event], event.person)
    for a, b in pairs:
        ask("multi-hop", b.questions[0][1], [a, b], a.person)
    for person in conversation.people:  # "what was X up to in <month>"
        mine = [e for e in [*events, *(x for p in pairs for x in p)] if e.person == person]
        months: dict[tuple[int, int], list[Event]] = {}
        for event in mine:
            assert event.moment is not None
            months.setdefault((event.moment.year, event.moment.month), []).append(event)
        for n, ((year, month), cited) in enumerate(sorted(months.items())):
            if n % 3 != 1 or (year, month) == (TODAY.year, TODAY.month):
                continue
            template = material.months[(n // 3 + 1) % len(material.months)]
            query = template.format(P=first(person), month=calendar.month_name[month], year=year)
            ask("temporal", query, cited, person)
    for person, query in absent:
        out.append(
            {
                "id": f"{conversation.agent}-q{len(out) + 1:03d}",
                "kind": "no-answer",
                "query": query,
                "person": person,
                "facts": [],
                "entries": [],
            }
        )
    return out


# -- building -------------------------------------------------------------------------------


def build_vault(path: Path, material: Material = TUNING) -> tuple[Path, list[dict[str, Any]]]:
    """Write the conversations' daily notes and facts into a new vault at `path`; returns
    it and the questions."""
    conversations, questions = generate(material)
    # the facts' ids drawn from the set's own seed, so that every build ranks alike (BM25
    # breaks ties by key, and random ids moved its figures by about 0.005 between builds)
    ids = random.Random(material.seed)
    with mock.patch.object(
        facts, "new_fact_id", lambda: f"fact-{uuid.UUID(int=ids.getrandbits(128), version=4).hex}"
    ):
        return _write(Path(path), conversations), questions


def _write(path: Path, conversations: list[Conversation]) -> Path:
    now = [dt.datetime.combine(START, dt.time(8)).astimezone()]
    v = Vault.create(path, actor="eval", clock=lambda: now[0])
    for conversation in conversations:
        v.create_agent(conversation.agent)
        for person in conversation.people:
            others = ", ".join(p for p in conversation.people if p != person)
            v.create_entity(entity_of(person), f"{person}: chats with {others}.")
        for _, turns in conversation.sessions:
            for turn in turns:
                assert turn.moment is not None
                moment = turn.moment.astimezone()
                now[0] = moment
                if isinstance(turn, Turn):
                    v.append_daily(
                        f"{turn.speaker}: {turn.text}", agent=conversation.agent, at=moment
                    )
                    continue
                v.append_daily(
                    f"{first(turn.person)}: {turn.turn}", agent=conversation.agent, at=moment
                )
                _, entry = _label(turn)
                v.add_fact(
                    entity_of(turn.person),
                    turn.fact,
                    "context",
                    source=f"{conversation.agent} {entry['date']} {entry['time']}",
                    agent_id=conversation.agent,
                    metadata={"extractedFrom": entry},
                    at=moment,
                )
    return path


def clock() -> dt.datetime:
    """The moment the set is searched at: noon of `TODAY`, local time."""
    return dt.datetime.combine(TODAY, dt.time(12)).astimezone()


def open_vault(path: Path) -> Vault:
    return Vault(path, actor="eval", clock=clock)


def resolve(vault: Vault, question: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(fact keys, daily-entry keys) of `question`; LabelError if a label does not resolve."""
    facts = _facts(vault)
    fact_keys: set[str] = set()
    entry_keys: set[str] = set()
    for text in question["facts"]:
        ids = facts.get(text, [])
        if len(ids) != 1:
            raise build.LabelError(f"{question['id']}: fact {text!r} found {len(ids)} times")
        fact_keys.add(f"fact:{ids[0]}")
    for entry in question["entries"]:
        day = dt.date.fromisoformat(entry["date"])
        note = vault.daily_note(day, entry["agent"])
        found = [e.index for e in note.entries if e.time == entry["time"]]
        if len(found) != 1:
            raise build.LabelError(f"{question['id']}: entry {entry} found {len(found)} times")
        entry_keys.add(f"daily:agent:{entry['agent']}:{entry['date']}:{found[0]}")
    return fact_keys, entry_keys


_FACTS: dict[int, dict[str, list[str]]] = {}


def _facts(vault: Vault) -> dict[str, list[str]]:
    cached = _FACTS.get(id(vault))
    if cached is None:
        cached = {}
        for ref in vault.entity_refs():
            for fact in vault.entity(ref).facts:
                cached.setdefault(fact.fact, []).append(fact.id)
        _FACTS.clear()
        _FACTS[id(vault)] = cached
    return cached


def check(
    vault: Vault, questions: list[dict[str, Any]], material: Material = TUNING
) -> tuple[dict[str, Any], list[str]]:
    """Counts of the set and every problem with its labels (empty when sound)."""
    problems: list[str] = []
    for question in questions:
        if question["kind"] not in KINDS:
            problems.append(f"{question['id']}: unknown kind {question['kind']!r}")
        try:
            facts, entries = resolve(vault, question)
        except build.LabelError as exc:
            problems.append(str(exc))
            continue
        if (question["kind"] == "no-answer") != (not facts) or len(entries) > len(facts):
            problems.append(
                f"{question['id']}: {question['kind']} with {len(facts)} facts, "
                f"{len(entries)} entries"
            )
    sessions = {a: len(vault.daily_dates(a)) for a in material.agents()}
    turns = sum(len(vault.daily_note(d, a).entries) for a in sessions for d in vault.daily_dates(a))
    counts = {
        "conversations": len(sessions),
        "sessions": sum(sessions.values()),
        "fewest_sessions": min(sessions.values()),
        "turns": turns,
        "facts": sum(len(ids) for ids in _facts(vault).values()),
        "questions": len(questions),
        "kinds": dict(Counter(q["kind"] for q in questions)),
    }
    if counts["fewest_sessions"] < SESSION_MIN:
        problems.append(f"a conversation has {counts['fewest_sessions']} sessions")
    if material is TUNING and len(questions) < QUESTION_MIN:
        problems.append(f"{len(questions)} questions, expected at least {QUESTION_MIN}")
    return counts, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, help="build the vault here")
    parser.add_argument("--check", action="store_true", help="validate the data and labels")
    parser.add_argument("--dump", action="store_true", help="print the questions as JSON lines")
    parser.add_argument("--heldout", action="store_true", help="the held-out set (heldout.py)")
    args = parser.parse_args(argv)
    material = TUNING
    if args.heldout:
        from benchmarks.eval import heldout  # it imports this module

        material = heldout.HELDOUT
    if args.dump:
        for question in generate(material)[1]:
            print(json.dumps(question))
        return 0
    if args.path is None and not args.check:
        parser.error("give a PATH to build, or --check")
    with tempfile.TemporaryDirectory(prefix="vault-conv-") as tmp:
        target = args.path or Path(tmp) / "vault"
        started = time.perf_counter()
        _, questions = build_vault(target, material)
        print(f"built {target} in {time.perf_counter() - started:.1f} s")
        if not args.check:
            return 0
        return build.report_check(*check(open_vault(target), questions, material))


if __name__ == "__main__":
    sys.exit(main())
