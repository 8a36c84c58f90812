"""The labeled search evaluation set: the demo vault plus extra facts, and its questions.

    python benchmarks/eval/build.py --check            # build in a temp folder, validate
    python benchmarks/eval/build.py PATH [--today D]   # build the eval vault at PATH

The eval vault is the demo household (`vault-app init --demo`) plus the facts of
`extra_facts.json`, added through the library as an agent would (`Vault.add_fact`,
`Vault.supersede_fact`). `questions.jsonl` holds one question a line:

    {"id": "q001", "query": "...", "style": "keyword|name|number|paraphrase|question|temporal",
     "answers": [{"kind": "fact", "text": "<exact fact text>"},
                 {"kind": "daily", "agent": null | "finance", "date_offset": -3,
                  "contains": "<substring unique in that day's note>"},
                 {"kind": "summary", "entity": "areas/..." | "agent:ID:..."}]}

Styles: `keyword` (exact terms, brands, rare words), `name` (a person or a company),
`number` (amounts, codes), `paraphrase` (little word overlap with the answer), `question`
(a natural question sharing some words with it), `temporal` (the timeline: daily notes,
"when", "last"). Every answer is active: superseded facts are hidden from default search.

The demo is written relative to its `today`, so fact texts (theirs and ours) may hold
`{+N}` / `{-N}` day tokens, expanded exactly as the demo does (`demo.expand_days`), and
daily answers give a day offset from `today`. `resolve_answers` turns labels into stable
document keys: `fact:<fact id>`, `daily:<global|agent:ID>:<YYYY-MM-DD>:<entry index>`,
`summary:<entity address>`; a fact's key comes with its entity's summary key when the
summary (synthesized from the facts) quotes the fact word for word. It is strict: a label
that does not resolve to exactly one active fact, one daily entry or one existing summary
raises `LabelError`.

`extra_facts.json`: `{"entities": [{"entity", "summary", "facts": [{"fact", "category",
"related", "agent", "days_ago", "supersedes"?}]}]}`. `days_ago` dates the fact (its
timestamp, source and lastAccessed), so the extra facts spread over the decay tiers like
the demo's; `supersedes` names, by exact text, an earlier fact of the same entity that
this one replaces (the old one stays, superseded: a distractor hidden from default search).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_app.core import demo, errors, layout
from vault_app.core.vault import Vault

HERE = Path(__file__).resolve().parent
EXTRA_FACTS = HERE / "extra_facts.json"
QUESTIONS = HERE / "questions.jsonl"

STYLES = ("keyword", "name", "number", "paraphrase", "question", "temporal")
KINDS = ("fact", "daily", "summary")
ACTOR = "eval"
# Accepted sizes of the set (checked by --check and the tests).
EXTRA_FACT_RANGE = (250, 350)
QUESTION_RANGE = (150, 200)


class LabelError(ValueError):
    """A question's label does not resolve to exactly one document of the eval vault."""


# -- data ---------------------------------------------------------------------------------


def load_extra_facts() -> list[dict[str, Any]]:
    """The entities of `extra_facts.json`, each with its summary and facts, in file order."""
    data = json.loads(EXTRA_FACTS.read_text(encoding="utf-8"))
    return list(data["entities"])


def load_questions() -> list[dict[str, Any]]:
    """The questions of `questions.jsonl`, in file order."""
    questions = []
    for number, line in enumerate(QUESTIONS.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                questions.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise LabelError(f"{QUESTIONS.name}:{number}: invalid JSON: {exc}") from None
    return questions


# -- building -----------------------------------------------------------------------------


def build_eval_vault(path: Path, today: dt.date | None = None) -> Path:
    """Create the demo vault at `path` (dated from `today`) and add the extra facts."""
    path = Path(path)
    day = today or dt.date.today()
    demo.create_demo(path, today=day)
    now = [_moment(day, 0, 0)]
    v = Vault(path, actor=ACTOR, clock=lambda: now[0])
    for entity in load_extra_facts():
        ref = layout.EntityRef.parse(entity["entity"])
        v.create_entity(ref, entity["summary"])
        ids: dict[str, str] = {}  # expanded text -> id, within this entity
        for number, item in enumerate(entity["facts"]):
            now[0] = _moment(day, int(item["days_ago"]), number)
            text = demo.expand_days(item["fact"], day)
            fields: dict[str, Any] = {
                "category": item["category"],
                "related": item.get("related", []),
                "agent_id": item.get("agent"),
                "source": now[0].date().isoformat(),
            }
            old = item.get("supersedes")
            if old is None:
                fact = v.add_fact(ref, text, create=True, **fields)
            else:
                _, fact = v.supersede_fact(ids[demo.expand_days(old, day)], text, **fields)
            ids[text] = fact.id
    return path


def _moment(today: dt.date, days_ago: int, number: int) -> dt.datetime:
    """A deterministic local moment between 08:00 and 20:00, `days_ago` days before today."""
    day = today - dt.timedelta(days=days_ago)
    seconds = 8 * 3600 + (number * 4177 + days_ago * 613) % (12 * 3600)
    return (dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)).astimezone()


# -- resolving labels ---------------------------------------------------------------------


@dataclass
class _Catalog:
    """Every fact of a vault by text, read once per Vault object."""

    today: dt.date
    # fact text -> (fact id, active, entity address) of every fact with that text
    facts: dict[str, list[tuple[str, bool, str]]] = field(default_factory=dict)
    summaries: dict[str, str | None] = field(default_factory=dict)  # address -> summary.md


_CATALOGS: weakref.WeakKeyDictionary[Vault, _Catalog] = weakref.WeakKeyDictionary()


def eval_today(vault: Vault) -> dt.date:
    """The demo's `today`: the date of the newest global daily note (the demo writes today's)."""
    dates = vault.daily_dates(None)
    if not dates:
        raise LabelError(f"{vault.root} has no global daily notes: not an eval vault")
    return max(dates)


def _catalog(vault: Vault) -> _Catalog:
    catalog = _CATALOGS.get(vault)
    if catalog is None:
        catalog = _Catalog(today=eval_today(vault))
        for ref in vault.entity_refs():
            view = vault.entity(ref)
            for fact in view.facts:
                catalog.facts.setdefault(fact.fact, []).append((fact.id, fact.is_active, str(ref)))
            catalog.summaries[str(ref)] = view.summary.text
        _CATALOGS[vault] = catalog
    return catalog


def resolve_answers(vault: Vault, question: dict[str, Any]) -> set[str]:
    """The document keys that answer `question` in the eval `vault`; LabelError if a label
    does not resolve to exactly one active fact, daily entry or existing summary.

    Facts are read once per Vault object (labels refer to texts and ids, which do not change
    when the vault is searched or facts are marked accessed)."""
    catalog = _catalog(vault)
    keys: set[str] = set()
    problems: list[str] = []
    answers = question.get("answers") or []
    if not answers:
        problems.append("no answers")
    for answer in answers:
        try:
            keys.update(_resolve_one(vault, catalog, answer))
        except LabelError as exc:
            problems.append(str(exc))
    if problems:
        raise LabelError(f"{question.get('id', '?')}: " + "; ".join(problems))
    return keys


def _resolve_one(vault: Vault, catalog: _Catalog, answer: dict[str, Any]) -> list[str]:
    kind = answer.get("kind")
    if kind == "fact":
        text = demo.expand_days(answer["text"], catalog.today)
        found = catalog.facts.get(text, [])
        if len(found) != 1:
            raise LabelError(f"fact {text!r} occurs {len(found)} times, not once")
        fact_id, active, address = found[0]
        if not active:
            raise LabelError(f"fact {text!r} is superseded")
        keys = [f"fact:{fact_id}"]
        # A synthesized summary that quotes the fact answers the question just as well.
        if text in (catalog.summaries.get(address) or ""):
            keys.append(f"summary:{address}")
        return keys
    if kind == "daily":
        agent = answer.get("agent")
        day = catalog.today + dt.timedelta(days=int(answer["date_offset"]))
        scope = "global" if agent is None else f"agent:{agent}"
        try:
            note = vault.daily_note(day, agent)
        except errors.NotFoundError as exc:
            raise LabelError(f"daily {scope} {day}: {exc}") from None
        needle = answer["contains"]
        hits = [e.index for e in note.entries if needle in e.text]
        if len(hits) != 1:
            raise LabelError(f"daily {scope} {day}: {needle!r} is in {len(hits)} entries")
        return [f"daily:{scope}:{day.isoformat()}:{hits[0]}"]
    if kind == "summary":
        try:
            ref = layout.EntityRef.parse(answer["entity"])
        except errors.InvalidIdError as exc:
            raise LabelError(str(exc)) from None
        if catalog.summaries.get(str(ref)) is None:
            raise LabelError(f"summary of {ref} does not exist")
        return [f"summary:{ref}"]
    raise LabelError(f"unknown answer kind {kind!r}")


# -- metrics ------------------------------------------------------------------------------


def metrics(ranked: list[list[str]], relevant: list[set[str]]) -> dict[str, float]:
    """hit@1, hit@5, hit@10 and MRR@10 over queries (ranked keys, best first, vs relevant)."""
    if len(ranked) != len(relevant):
        raise ValueError(f"{len(ranked)} rankings for {len(relevant)} relevance sets")
    n = len(ranked)
    firsts = []
    for keys, good in zip(ranked, relevant, strict=True):
        first = next((rank for rank, key in enumerate(keys[:10], 1) if key in good), None)
        firsts.append(first)
    if n == 0:
        return {"n": 0, "hit@1": 0.0, "hit@5": 0.0, "hit@10": 0.0, "mrr": 0.0}
    return {
        "n": n,
        "hit@1": sum(1 for r in firsts if r is not None and r <= 1) / n,
        "hit@5": sum(1 for r in firsts if r is not None and r <= 5) / n,
        "hit@10": sum(1 for r in firsts if r is not None) / n,
        "mrr": sum(1 / r for r in firsts if r is not None) / n,
    }


# -- checking -----------------------------------------------------------------------------


def check(vault: Vault) -> tuple[dict[str, Any], list[str]]:
    """Counts of the set and every problem with its data and labels (empty when sound)."""
    problems: list[str] = []
    entities = load_extra_facts()
    questions = load_questions()
    demo_ids = {e.address for e in demo.ENTITIES}
    texts: Counter[str] = Counter()
    for entity in entities:
        if entity["entity"] in demo_ids:
            problems.append(f"extra entity {entity['entity']} collides with the demo")
        texts.update(f["fact"] for f in entity["facts"])
    problems += [f"extra fact written {n} times: {t!r}" for t, n in texts.items() if n > 1]
    n_facts = sum(texts.values())
    ids = Counter(q.get("id") for q in questions)
    problems += [f"question id {i!r} used {n} times" for i, n in ids.items() if n > 1]
    kinds: Counter[str] = Counter()
    with_kind: Counter[str] = Counter()
    styles: Counter[str] = Counter()
    n_keys = 0
    for q in questions:
        if q.get("style") not in STYLES:
            problems.append(f"{q.get('id')}: unknown style {q.get('style')!r}")
        if not str(q.get("query", "")).strip():
            problems.append(f"{q.get('id')}: empty query")
        styles[q.get("style")] += 1
        kinds.update(a.get("kind") for a in q.get("answers", []))
        with_kind.update({a.get("kind") for a in q.get("answers", [])})
        try:
            n_keys += len(resolve_answers(vault, q))
        except LabelError as exc:
            problems.append(str(exc))
    for name, count, (low, high) in (
        ("extra facts", n_facts, EXTRA_FACT_RANGE),
        ("questions", len(questions), QUESTION_RANGE),
    ):
        if not low <= count <= high:
            problems.append(f"{count} {name}, expected {low}-{high}")
    counts = {
        "extra_entities": len(entities),
        "extra_facts": n_facts,
        "extra_superseded": sum(1 for e in entities for f in e["facts"] if f.get("supersedes")),
        "vault_facts": sum(len(v) for v in _catalog(vault).facts.values()),
        "questions": len(questions),
        "styles": dict(sorted(styles.items())),
        "answer_labels": dict(sorted(kinds.items())),
        "questions_with_a": dict(sorted(with_kind.items())),
        "labels_per_question": round(sum(kinds.values()) / max(len(questions), 1), 2),
        "relevant_keys_per_question": round(n_keys / max(len(questions), 1), 2),
    }
    return counts, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, help="build the eval vault here")
    parser.add_argument("--check", action="store_true", help="validate the data and labels")
    parser.add_argument("--today", type=dt.date.fromisoformat, help="the demo's today")
    args = parser.parse_args(argv)
    if args.path is None and not args.check:
        parser.error("give a PATH to build, or --check")
    with tempfile.TemporaryDirectory(prefix="vault-eval-") as tmp:
        target = args.path or Path(tmp) / "vault"
        started = time.perf_counter()
        build_eval_vault(target, args.today)
        print(f"built {target} in {time.perf_counter() - started:.1f} s")
        if not args.check:
            return 0
        return report_check(*check(Vault(target)))


def report_check(counts: dict[str, Any], problems: list[str]) -> int:
    """Print a label check's counts and problems; the exit status (1 when any problem)."""
    for key, value in counts.items():
        print(f"{key}: {value}")
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    print("labels: OK" if not problems else f"labels: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
