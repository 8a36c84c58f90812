"""Write a large synthetic PARA vault, fast and deterministically, for the benchmarks.

    python benchmarks/make_vault.py --entities 10000 --facts-per-entity 20 --out bench-vaults/v

The vault is laid out by `Vault.create` (and `Vault.create_agent` for each agent), then
every entity's `items.json` and `summary.md` are written directly with plain file writes:
this is a generator, not a user of the safe-write path. Entities are spread over the four
PARA categories, the `areas/people/` and `areas/companies/` groups and a few agents'
workspaces. Facts follow the canonical schema (camelCase, spec section 3): word-like
English sentences of 8-25 words, all five categories, `lastAccessed` spread so that the
hot, warm and cold tiers all occur, `accessCount` 0-40, about 5 % superseded (with a valid
`supersededBy` pointing at a later fact of the same entity), some `relatedEntities`.

Timestamps are naive local times (as the reference writer produces), counted back from
`--now` (default: today at midnight), so the same seed and day give the same bytes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import itertools
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from vault_app.core import vault

CATEGORIES = ("relationship", "milestone", "status", "preference", "context")
VERIFIERS = ("user", "agent", "system")
AGENT_NAMES = ("finance", "research", "ops", "assistant", "coder", "health", "travel", "home")
SUPERSEDED_SHARE = 0.05
RELATED_SHARE = 0.2
AGENT_SHARE = 0.2  # of entities, split between the agents (when there are any)

# Frequent English words first: rank decides frequency (Zipf), as in real text.
_COMMON_TEXT = """
the of and to a in is for on that with was as at by it from be has are this have will
an or not his her their they which after before about more new into over than also
team project meeting plan budget review launch design report client contract price
week month quarter year today morning evening deadline call email note update draft
prefers likes wants needs asked agreed decided moved started finished joined left
signed sent paid booked shared approved rejected changed renewed scheduled delivered
jane john maria alex chen priya omar lena tom sara david emma lucas nina paul rosa
company office home school hospital bank store studio lab garden kitchen car house
coffee tea lunch dinner travel flight hotel train trip visit conference workshop
product feature release version customer partner vendor supplier investor board
doctor dentist lawyer teacher manager engineer designer analyst founder director
account invoice payment salary tax insurance loan rent mortgage savings pension
data server database backup cloud laptop phone app website api code bug test
health sleep exercise running yoga diet weight blood appointment medicine allergy
birthday anniversary wedding holiday vacation weekend party dinner gift family
friend sister brother mother father daughter son partner colleague neighbour
london paris berlin tokyo madrid lisbon boston chicago toronto sydney seoul rome
monday tuesday wednesday thursday friday saturday sunday january march june october
early late quickly slowly usually often rarely always never again still already
good bad big small long short high low first last next main key major minor
open closed ready busy late free quiet formal casual remote local urgent important
strategy roadmap milestone goal target metric growth revenue cost risk issue plan
prefers morning meetings async updates short emails written summaries dark mode
green blue red black white orange quiet loud warm cold fresh simple clear direct
"""
_SYLLABLE_TEXT = """
ka ri to mi na lo ve sa en ar de lu mo ta ni el or ba ce di fa go he ia jo ku la
ma ne po qu re si tu va wo xe yo za bri cla dra fre gli pro stra tri vel mon dar
"""
_COMMON = _COMMON_TEXT.split()
_SYLLABLES = _SYLLABLE_TEXT.split()


@dataclass(frozen=True)
class Layout:
    """Where the entities go: (scope agent or None, entity path)."""

    entities: list[tuple[str | None, str]]
    agents: list[str]


def vocabulary(rng: random.Random, size: int = 4000) -> tuple[list[str], list[float]]:
    """Real common words, then word-like inventions, with Zipf cumulative weights."""
    words = list(dict.fromkeys(_COMMON))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    cumulative = list(itertools.accumulate(1.0 / (rank**1.05) for rank in range(1, size + 1)))
    return words, cumulative


def _unique(make: Callable[[], str], taken: set[str]) -> str:
    name = make()
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate


def plan_layout(rng: random.Random, entities: int, agents: int, words: list[str]) -> Layout:
    """Decide every entity's scope and path (PARA category, nested groups)."""
    agent_ids = [
        AGENT_NAMES[i] if i < len(AGENT_NAMES) else f"agent-{i + 1}" for i in range(agents)
    ]
    nouns = words[60:600]
    people_first = [w for w in _COMMON[_COMMON.index("jane") : _COMMON.index("rosa") + 1]]

    def person() -> str:
        return f"{rng.choice(people_first)}-{rng.choice(words[600:3000])}"

    def company() -> str:
        return f"{rng.choice(words[600:3000])}-{rng.choice(('labs', 'inc', 'group', 'co'))}"

    def pair() -> str:
        return f"{rng.choice(nouns)}-{rng.choice(words[60:3000])}"

    # category, group, weight
    slots = (
        ("projects", None, 25),
        ("areas", "people", 14),
        ("areas", "companies", 10),
        ("areas", None, 11),
        ("resources", None, 25),
        ("archives", None, 15),
    )
    weights = list(itertools.accumulate(w for *_, w in slots))
    taken: dict[tuple[str | None, str], set[str]] = {}
    result: list[tuple[str | None, str]] = []
    for _ in range(entities):
        scope = None
        if agent_ids and rng.random() < AGENT_SHARE:
            scope = rng.choice(agent_ids)
        category, group, _w = rng.choices(slots, cum_weights=weights)[0]
        prefix = f"{category}/{group}" if group else category
        make = person if group == "people" else company if group == "companies" else pair
        name = _unique(make, taken.setdefault((scope, prefix), set()))
        result.append((scope, f"{prefix}/{name}"))
    return Layout(result, agent_ids)


class FactMaker:
    """Canonical raw facts, deterministic for a seed and an anchor time."""

    def __init__(self, rng: random.Random, anchor: dt.datetime, words: list[str], cum: list[float]):
        self.rng = rng
        self.anchor = anchor
        self.words = words
        self.cum = cum
        self._days: dict[int, str] = {}
        midnight = anchor.replace(hour=0, minute=0, second=0, microsecond=0)
        self._offset = int((anchor - midnight).total_seconds())

    def _stamp(self, seconds_ago: int) -> str:
        """The naive local time `seconds_ago` before the anchor, to the second."""
        day, rest = divmod(seconds_ago - self._offset, 86400)
        date = self._days.get(day)
        if date is None:
            date = (self.anchor.date() - dt.timedelta(days=day + (1 if rest else 0))).isoformat()
            self._days[day] = date
        clock = (86400 - rest) % 86400
        hh, rem = divmod(clock, 3600)
        mm, ss = divmod(rem, 60)
        return f"{date}T{hh:02d}:{mm:02d}:{ss:02d}"

    def _days_ago(self) -> int:
        """Whole days since last access: about a third each hot, warm, cold."""
        r = self.rng.random()
        if r < 0.3:
            return self.rng.randint(0, 7)
        if r < 0.55:
            return self.rng.randint(8, 30)
        if r < 0.7:
            return self.rng.randint(31, 60)
        return self.rng.randint(61, 540)

    def sentence(self) -> str:
        n = self.rng.randint(8, 25)
        chosen = self.rng.choices(self.words, cum_weights=self.cum, k=n)
        chosen[0] = chosen[0].capitalize()
        return " ".join(chosen) + "."

    def entity_facts(
        self, count: int, agent: str | None, related_pool: list[str]
    ) -> list[dict[str, Any]]:
        rng = self.rng
        times = []
        for _ in range(count):
            accessed = self._days_ago() * 86400 + rng.randrange(86400)
            created = accessed + rng.randrange(0, 300 * 86400)
            times.append((created, accessed))
        times.sort(reverse=True)  # oldest first, as a writer appends
        facts: list[dict[str, Any]] = []
        for created, accessed in times:
            fid = f"fact-{rng.getrandbits(128):032x}"
            created_at = self._stamp(created)
            if rng.random() < 0.25:
                source = f"conversation-{rng.getrandbits(48):012x}"
            else:
                source = created_at[:10]
            related: list[str] = []
            if related_pool and rng.random() < RELATED_SHARE:
                related = rng.sample(related_pool, k=min(len(related_pool), rng.randint(1, 2)))
            metadata: dict[str, Any] = {}
            if rng.random() < 0.5:
                metadata = {
                    "extractedFrom": f"conversation-id-{rng.randrange(10**6)}",
                    "verifiedBy": rng.choice(VERIFIERS),
                }
            access_count = min(40, int(rng.expovariate(1 / 9)))
            facts.append(
                {
                    "id": fid,
                    "fact": self.sentence(),
                    "category": rng.choice(CATEGORIES),
                    "timestamp": created_at,
                    "source": source,
                    "status": "active",
                    "supersededBy": None,
                    "relatedEntities": related,
                    "lastAccessed": self._stamp(accessed),
                    "accessCount": access_count,
                    "confidence": 1.0 if rng.random() < 0.8 else round(rng.uniform(0.5, 0.99), 2),
                    "agentId": agent,
                    "metadata": metadata,
                }
            )
        if count > 1:
            share = SUPERSEDED_SHARE * count / (count - 1)
            for i in range(count - 1):
                if rng.random() < share:
                    facts[i]["status"] = "superseded"
                    facts[i]["supersededBy"] = facts[rng.randint(i + 1, count - 1)]["id"]
        return facts


def summary_text(path: str, sentence: str) -> str:
    title = path.rsplit("/", 1)[-1].replace("-", " ").title()
    return f"# {title}\n\n{sentence}\n"


def write_entity_files(folder: Path, facts: list[dict[str, Any]], summary: str) -> int:
    """Write items.json (2-space indent, like the reference writer) and summary.md."""
    folder.mkdir(parents=True, exist_ok=True)
    data = orjson.dumps(facts, option=orjson.OPT_INDENT_2)
    (folder / "items.json").write_bytes(data)
    (folder / "summary.md").write_text(summary, encoding="utf-8")
    return len(data)


def make_vault(
    out: Path,
    entities: int,
    facts_per_entity: int,
    *,
    seed: int = 1,
    agents: int = 3,
    now: dt.datetime | None = None,
    refresh_index: bool = True,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Create the vault at `out` (absent or empty); returns what was written."""
    started = time.perf_counter()
    anchor = now or dt.datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    rng = random.Random(seed)
    words, cum = vocabulary(rng)
    plan = plan_layout(rng, entities, agents, words)
    maker = FactMaker(rng, anchor, words, cum)
    target = vault.Vault.create(out, actor="bench")
    for agent in plan.agents:
        target.create_agent(agent)
    global_paths = [path for scope, path in plan.entities if scope is None]
    total_bytes = 0
    facts_written = 0
    was_enabled = gc.isenabled()
    gc.disable()  # 200,000 small dicts: the collector would dominate
    try:
        for scope, path in plan.entities:
            root = target.paths.para_root(scope)
            facts = maker.entity_facts(facts_per_entity, scope, global_paths)
            summary = summary_text(path, maker.sentence())
            total_bytes += write_entity_files(root / path, facts, summary)
            facts_written += len(facts)
    finally:
        if was_enabled:
            gc.enable()
    written = time.perf_counter() - started
    if refresh_index:
        target.synthesize_indexes()
    seconds = time.perf_counter() - started
    report = {
        "path": str(target.root),
        "entities": len(plan.entities),
        "global_entities": len(global_paths),
        "agents": plan.agents,
        "facts": facts_written,
        "items_json_bytes": total_bytes,
        "seconds_files": written,
        "seconds": seconds,
        "seed": seed,
        "now": anchor.isoformat(),
    }
    log(
        f"wrote {report['entities']:,} entities ({report['global_entities']:,} global, "
        f"{report['entities'] - report['global_entities']:,} in agents "
        f"{', '.join(plan.agents) or '-'}), {facts_written:,} facts, "
        f"{total_bytes / 1e6:.1f} MB of items.json to {target.root}"
    )
    log(
        f"in {seconds:.1f} s ({written:.1f} s for the entity files, "
        f"{seconds - written:.1f} s for index.md); seed {seed}, now {anchor:%Y-%m-%d}"
    )
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--facts-per-entity", type=int, default=20)
    parser.add_argument("--out", type=Path, required=True, help="an absent or empty folder")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agents", type=int, default=3, help="agents with a workspace")
    parser.add_argument(
        "--now",
        type=dt.datetime.fromisoformat,
        default=None,
        help="anchor of the timestamps (default: today 00:00 local)",
    )
    parser.add_argument("--no-index", action="store_true", help="skip refreshing index.md")
    args = parser.parse_args(argv)
    if args.entities < 1 or args.facts_per_entity < 0 or args.agents < 0:
        parser.error("--entities must be ≥ 1, --facts-per-entity and --agents ≥ 0")
    if args.out.exists() and any(args.out.iterdir()):
        parser.error(f"{args.out} exists and is not empty")
    make_vault(
        args.out,
        args.entities,
        args.facts_per_entity,
        seed=args.seed,
        agents=args.agents,
        now=args.now,
        refresh_index=not args.no_index,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
