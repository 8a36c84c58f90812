"""LoCoMo's conversations as vaults, and its questions scored as the shared data says.

    python benchmarks/eval/locomo.py             # build each sample's vault (temp), print counts
    python benchmarks/eval/locomo.py --into DIR  # keep the vaults in DIR/<sample_id>/

LoCoMo (Maharana et al., 2024, "Evaluating Very Long-Term Conversational Memory of LLM
Agents", github.com/snap-research/LoCoMo; CC BY-NC 4.0: evaluation only, never shipped)
holds real multi-session conversations between two people, each with questions whose
answers sit in named turns (`evidence`: dia_ids such as "D1:3") and, per session and
speaker, the facts a careful reader extracts (`observation`, each citing its turns).
The development half lives outside the repository, in `../shared/data/locomo-dev/`
(`DATA`; another copy of the same shape, such as the held-back half, with
`$VAULT_APP_LOCOMO`); `locate()` says None when there is none, and the benchmarks then
say so and skip.

A vault per sample, exactly as the data's README describes, so that figures compare:

- each session's turns are entries of the global daily note of the session's date, one
  entry per turn at the session's time plus one second per turn, the text
  `**Speaker** (D1:3): text`;
- each observation is a fact of its speaker's entity `areas/people/<speaker>` (category
  context, stamped with the session's date and time, `source` its dia_ids joined by
  spaces, `metadata.evidence` the list of them), and each speaker has a one-line summary.

Questions of categories 1-4 (`CATEGORIES`; 5, the adversarial ones with no answer, are
left out). A question's relevant facts are those citing one of its evidence turns; for
facts only questions with at least one such fact count. Its relevant entries are the
turns it cites. A hit@k is a relevant document among the top k.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from vault_app.core import facts, layout  # noqa: E402
from vault_app.core.vault import Vault  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
ENV = "VAULT_APP_LOCOMO"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
CREDIT = (
    "LoCoMo (Maharana et al., 2024, github.com/snap-research/LoCoMo), CC BY-NC 4.0, "
    "development half (conv-26, -30, -41, -42, -43)"
)
_DIA = re.compile(r"D\d+:\d+")
_SESSION = re.compile(r"session_(\d+)")
_WHEN = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", re.I)


def locate(path: Path | None = None) -> Path | None:
    """The LoCoMo file to use: `path`, else `$VAULT_APP_LOCOMO`, else `DATA`; None when
    it is not there."""
    for candidate in (path, os.environ.get(ENV), DATA):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def load(path: Path) -> list[dict[str, Any]]:
    samples = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(samples, list):
        raise ValueError(f"{path}: expected a list of LoCoMo samples")
    return samples


def moment(text: str) -> dt.datetime:
    """A session's "1:56 pm on 8 May, 2023" as a local time."""
    m = _WHEN.search(text)
    if m is None:
        raise ValueError(f"not a LoCoMo session time: {text!r}")
    hour, minute, half, day, month, year = m.groups()
    hh = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    date = dt.datetime.strptime(f"{day} {month[:3]} {year}", "%d %b %Y").date()
    return dt.datetime.combine(date, dt.time(hh, int(minute))).astimezone()


def dia_ids(value: Any) -> list[str]:
    """The dia_ids a field cites (a string, a list, or a string of several)."""
    if isinstance(value, list):
        return [d for v in value for d in dia_ids(v)]
    return _DIA.findall(value) if isinstance(value, str) else []


def sessions(sample: dict[str, Any]) -> list[tuple[dt.datetime, list[dict[str, Any]]]]:
    """The sample's sessions in order: (when, turns)."""
    conv = sample["conversation"]
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.fullmatch(k)))
    return [(moment(conv[f"session_{n}_date_time"]), conv[f"session_{n}"]) for n in numbers]


def person(speaker: str) -> layout.EntityRef:
    slug = re.sub(r"[^a-z0-9]+", "-", speaker.lower()).strip("-")
    return layout.EntityRef.parse(f"areas/people/{slug}")


@dataclass
class Built:
    """A sample's vault and where each turn went: dia_id -> fact keys, entry keys."""

    sample: str
    path: Path
    facts: dict[str, set[str]] = field(default_factory=dict)
    turns: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Question:
    sample: str
    query: str
    category: str
    facts: frozenset[str]  # relevant fact keys (empty: the question does not count for facts)
    turns: frozenset[str]  # relevant daily-entry keys


def build_vault(sample: dict[str, Any], path: Path, *, facts_too: bool = True) -> Built:
    """Write `sample` as a new vault at `path` (see the module doc); without `facts_too`,
    the daily notes and the speakers' entities only (what a heartbeat starts from). The
    facts' ids are drawn from the sample's id, so that every build ranks alike (BM25 breaks
    ties by key)."""
    ids = random.Random(sample["sample_id"])
    with mock.patch.object(
        facts, "new_fact_id", lambda: f"fact-{uuid.UUID(int=ids.getrandbits(128), version=4).hex}"
    ):
        return _build(sample, path, facts_too)


def turn_entries(sample: dict[str, Any]) -> Iterator[tuple[dt.datetime, str, str]]:
    """Each turn as the vault holds it: (its moment, its dia_id, its entry's text)."""
    for when, turns in sessions(sample):
        for i, turn in enumerate(turns):
            text = f"**{turn['speaker']}** ({turn['dia_id']}): {turn['text']}"
            yield when + dt.timedelta(seconds=i), turn["dia_id"], text


def observations(sample: dict[str, Any]) -> Iterator[tuple[str, str, list[str]]]:
    """Each observation: (its speaker, its text, the dia_ids it cites)."""
    for by_speaker in (sample.get("observation") or {}).values():
        for speaker, items in by_speaker.items():
            for item in items:
                if isinstance(item[0], str) and item[0].strip():
                    yield speaker, item[0], dia_ids(item[1:])


def _build(sample: dict[str, Any], path: Path, facts_too: bool) -> Built:
    now = [dt.datetime(2000, 1, 1).astimezone()]
    v = Vault.create(path, actor="eval", clock=lambda: now[0])
    built = Built(sample["sample_id"], path)
    conv = sample["conversation"]
    speakers = [conv["speaker_a"], conv["speaker_b"]]
    for speaker in speakers:
        other = next(s for s in speakers if s != speaker)
        v.create_entity(person(speaker), f"{speaker}: talks with {other}.")
    for at, dia, text in turn_entries(sample):
        now[0] = at
        entry = v.append_daily(text, at=at)
        key = f"daily:{layout.GLOBAL_SCOPE}:{entry.date.isoformat()}:{entry.index}"
        built.turns.setdefault(dia, set()).add(key)
    if not facts_too:
        return built
    noted = sample.get("observation") or {}
    for name, by_speaker in sorted(noted.items(), key=lambda kv: _number(kv[0])):
        when = moment(conv[f"session_{_number(name)}_date_time"])
        for speaker, items in by_speaker.items():
            ref = person(speaker)
            if not v.paths.holds_entity(ref):
                v.create_entity(ref, f"{speaker}.")
            for item in items:
                text, cited = item[0], dia_ids(item[1:])
                if not isinstance(text, str) or not text.strip():
                    continue
                now[0] = when
                fact = v.add_fact(
                    ref,
                    text,
                    "context",
                    source=" ".join(cited) or None,
                    metadata={"evidence": cited},
                    at=when,
                )
                for dia in cited:
                    built.facts.setdefault(dia, set()).add(f"fact:{fact.id}")
    return built


def _number(session_key: str) -> int:
    m = re.search(r"\d+", session_key)
    return int(m.group()) if m else 0


def questions(sample: dict[str, Any], built: Built) -> list[Question]:
    """The sample's questions of categories 1-4, with their relevant documents."""
    out = []
    for qa in sample.get("qa") or []:
        category = CATEGORIES.get(qa.get("category"))
        if category is None or not isinstance(qa.get("question"), str):
            continue
        cited = dia_ids(qa.get("evidence"))
        facts = frozenset(k for d in cited for k in built.facts.get(d, ()))
        turns = frozenset(k for d in cited for k in built.turns.get(d, ()))
        out.append(Question(built.sample, qa["question"], category, facts, turns))
    return out


def build_all(source: Path, into: Path) -> list[tuple[Built, list[Question]]]:
    """Every sample of `source` built under `into/<sample_id>/`."""
    out = []
    for sample in load(source):
        built = build_vault(sample, into / sample["sample_id"])
        out.append((built, questions(sample, built)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help=f"a LoCoMo file (default: ${ENV}, else {DATA})")
    parser.add_argument("--into", type=Path, help="keep the vaults here (default: a temp folder)")
    args = parser.parse_args(argv)
    source = locate(args.data)
    if source is None:
        print(f"no LoCoMo data (looked at --data, ${ENV}, {DATA}): skipped")
        return 0
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        into = args.into or Path(tmp)
        for built, qs in build_all(source, into):
            kinds = Counter(q.category for q in qs)
            print(
                f"{built.sample}: {len(built.turns)} turns, "
                f"{sum(len(k) for k in built.facts.values())} fact citations, "
                f"{len(qs)} questions ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), "
                f"{sum(1 for q in qs if q.facts)} with a citing fact"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
