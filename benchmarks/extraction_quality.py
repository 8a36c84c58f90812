"""Extraction quality: precision and recall of an extractor on the labeled entries.

    python benchmarks/extraction_quality.py [--extractor rules|llm] [--show SPLIT|all]
    python benchmarks/extraction_quality.py --set locomo [--locomo FILE] [--show all]

The set (`benchmarks/data/extraction/entries.jsonl`, one entry a line) holds daily-note
entries of the demo household's agents with the facts a careful person would extract
(none for small talk, hedges and questions), in slices reported apart: `dev` (the
rules were tuned on it), `heldout` (never looked at), `fresh` (written after tuning,
scored once blind, then read once), `fresh2` (scored blind), `fresh3`, `fresh4` and
`fresh5` (each written after the last tuning, scored blind, then read once); the folder's README
tells the story and the blind figures.

Matching rule. A fact's content words are its lower-case alphanumeric tokens minus
stop words (and "user"/"household", the first-person stand-ins), a trailing plural "s"
cut. An extracted fact matches an expected one of the same entry when
  - their Dice overlap 2|E∩X| / (|E| + |X|) is at least `MATCH_DICE` (0.6), and
  - the expected fact names no entity, or the extracted one names the same: equal
    once lower-cased and stripped of titles and address folders, or one's words a
    subset of the other's ("Greg" and "Greg Lindqvist").
Pairs are taken one-to-one, greedily, best overlap first. Precision is matched
extracted / extracted, recall matched expected / expected; per category, precision goes
by the extracted fact's category and recall by the expected one's (a matched pair with
different categories counts for both, and the category agreement is printed apart).

`--extractor llm` serves the recorded answers (`llm_responses.jsonl`, the assistant
message a model would return for each entry; how they were made: the data folder's
README) from the tests' fake OpenAI-compatible endpoint on 127.0.0.1
(`tests/heartbeat/fake_llm.py`) and runs `vault_app.heartbeat.llm.LlmExtractor`
against it: real HTTP, the extractor's own parsing, dates and gate.

`--set locomo` runs the rules over LoCoMo's real conversations (`locomo_report`: recall
and precision against the observations a careful reader made), then a heartbeat over
their daily notes (`_locomo_heartbeat`: the facts it writes, each supersession, and what
those facts answer of LoCoMo's questions through hybrid search: the pipeline a user's
conversations go through, end to end).
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import hashlib
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vault_app.heartbeat import extraction as model  # noqa: E402
from vault_app.search.tokenizer import Tokenizer  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "extraction"
MATCH_DICE = 0.6
REPEAT = 5
_STOP_WORDS = (
    "a an the of to in on at for and or but is are was were be been being has have had "
    "do does did with by from that this it its his her their them they he she him as so "
    "no not s user household who which will would can could should there than then "
    "also into out up about any all each every"
)
STOP = frozenset(_STOP_WORDS.split())
TITLES = ("dr.", "dr", "mr.", "mr", "mrs.", "mrs", "ms.", "ms")


@dataclass(frozen=True)
class Expected:
    fact: str
    category: str
    entity: str | None


@dataclass(frozen=True)
class Labeled:
    entry: model.Entry
    facts: tuple[Expected, ...]
    split: str
    id: str


def load(path: Path = DATA / "entries.jsonl") -> list[Labeled]:
    items: list[Labeled] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        agent = row.get("agent")
        where = f"agents/{agent}/daily" if agent else "global/daily"
        entry = model.Entry(
            path=f"{where}/{row['date']}.md",
            date=dt.date.fromisoformat(row["date"]),
            time=row["time"],
            text=row["text"],
            agent=agent,
        )
        facts = tuple(Expected(f["fact"], f["category"], f.get("entity")) for f in row["facts"])
        items.append(Labeled(entry, facts, row.get("split", "dev"), row["id"]))
    return items


# -- matching ------------------------------------------------------------------------------


def content_words(text: str) -> frozenset[str]:
    words = set()
    for token in re.findall(r"[a-z0-9]+", text.lower()):
        if token in STOP:
            continue
        words.add(token[:-1] if len(token) > 3 and token.endswith("s") else token)
    return frozenset(words)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def _entity_words(name: str) -> frozenset[str]:
    name = name.strip().lower().rsplit("/", 1)[-1].replace("-", " ")
    words = [w.strip(".,'’") for w in name.split()]
    words = [w.removesuffix("'s").removesuffix("’s") for w in words if w and w not in TITLES]
    return frozenset(words)


def same_entity(expected: str | None, got: str | None) -> bool:
    if not expected:
        return True
    if not got:
        return False
    a, b = _entity_words(expected), _entity_words(got)
    return bool(a and b) and (a <= b or b <= a)


def match(expected: Iterable[Expected], got: Iterable[model.Candidate]) -> list[tuple[int, int]]:
    """One-to-one greedy pairs (expected index, extracted index), best overlap first."""
    exp, ext = list(expected), list(got)
    pairs = []
    for i, e in enumerate(exp):
        ew = content_words(e.fact)
        for j, x in enumerate(ext):
            score = dice(ew, content_words(x.fact))
            if score >= MATCH_DICE and same_entity(e.entity, x.entity):
                pairs.append((score, i, j))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    used_e: set[int] = set()
    used_x: set[int] = set()
    out = []
    for _, i, j in pairs:
        if i not in used_e and j not in used_x:
            used_e.add(i)
            used_x.add(j)
            out.append((i, j))
    return out


# -- scoring -------------------------------------------------------------------------------


@dataclass
class Tally:
    expected: int = 0
    extracted: int = 0
    matched_e: int = 0
    matched_x: int = 0

    def line(self, label: str) -> str:
        p = self.matched_x / self.extracted if self.extracted else float("nan")
        r = self.matched_e / self.expected if self.expected else float("nan")
        f = 2 * p * r / (p + r) if p + r else 0.0
        return (
            f"{label:<14} precision {p:5.3f}  recall {r:5.3f}  F1 {f:5.3f}"
            f"   (expected {self.expected}, extracted {self.extracted}, matched {self.matched_e})"
        )


def score(
    items: list[Labeled], results: dict[str, list[model.Candidate]], show: str | None
) -> None:
    overall, by_split = Tally(), defaultdict(Tally)
    by_cat: dict[str, Tally] = defaultdict(Tally)
    agree = pairs_total = 0
    empty_entries = empty_fp = 0
    for item in items:
        got = results.get(item.id, [])
        pairs = match(item.facts, got)
        for tally in (overall, by_split[item.split]):
            tally.expected += len(item.facts)
            tally.extracted += len(got)
            tally.matched_e += len(pairs)
            tally.matched_x += len(pairs)
        for fact in item.facts:
            by_cat[fact.category].expected += 1
        for cand in got:
            by_cat[str(cand.category)].extracted += 1
        for i, j in pairs:
            by_cat[item.facts[i].category].matched_e += 1
            by_cat[str(got[j].category)].matched_x += 1
            pairs_total += 1
            agree += item.facts[i].category == str(got[j].category)
        if not item.facts:
            empty_entries += 1
            empty_fp += bool(got)
        if show in (item.split, "all"):
            _show(item, got, pairs)
    print(overall.line("overall"))
    for split in sorted(by_split):
        print(by_split[split].line(split))
    for cat in sorted(by_cat):
        print(by_cat[cat].line(cat))
    if pairs_total:
        print(f"category agreement on matched pairs: {agree / pairs_total:.3f}")
    print(f"entries with nothing durable: {empty_entries}, of which given a fact: {empty_fp}")


def _show(item: Labeled, got: list[model.Candidate], pairs: list[tuple[int, int]]) -> None:
    hit_e = {i for i, _ in pairs}
    hit_x = {j for _, j in pairs}
    misses = [f for i, f in enumerate(item.facts) if i not in hit_e]
    extra = [c for j, c in enumerate(got) if j not in hit_x]
    if not misses and not extra:
        return
    print(f"--- {item.id} [{item.split}] {item.entry.text!r}")
    for f in misses:
        print(f"   MISS  {f.category:<12} {f.fact}  (entity {f.entity})")
    for c in extra:
        print(f"   EXTRA {c.category!s:<12} {c.fact}  (entity {c.entity})")


# -- extractors ----------------------------------------------------------------------------


def run_rules(items: list[Labeled]) -> tuple[dict[str, list[model.Candidate]], float]:
    """Each entry through `RuleExtractor`; the time is the best of `REPEAT` passes over
    the set (the machine is shared: the best pass is the one least disturbed)."""
    from vault_app.heartbeat import rules

    extractor = rules.RuleExtractor()
    extractor.extract([items[0].entry])  # the word lists load once, outside the timing
    results: dict[str, list[model.Candidate]] = {}
    best = float("inf")
    for _ in range(REPEAT):
        started = time.perf_counter()
        for item in items:
            results[item.id] = extractor.extract([item.entry]).candidates
        best = min(best, time.perf_counter() - started)
    return results, best


def run_llm(items: list[Labeled]) -> tuple[dict[str, list[model.Candidate]], float]:
    """The recorded answers, served by the tests' fake endpoint on 127.0.0.1 (each keyed
    by the entry's user message), read by `llm.LlmExtractor` one request per entry."""
    try:
        from tests.heartbeat import fake_llm
        from vault_app.heartbeat import llm
    except ImportError as exc:  # before the llm helper's branch is merged
        raise SystemExit(
            f"--extractor llm needs vault_app.heartbeat.llm and tests/heartbeat/fake_llm.py: {exc}"
        ) from exc
    recorded: dict[str, str] = {}
    for line in (DATA / "llm_responses.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row: dict[str, Any] = json.loads(line)
            recorded[row["id"]] = row["content"]
    answers = {llm.user_message(i.entry): recorded.get(i.id, '{"facts": []}') for i in items}
    results: dict[str, list[model.Candidate]] = {}
    with fake_llm.FakeChatEndpoint(fake_llm.recorded(answers)) as endpoint:
        extractor = llm.LlmExtractor(endpoint.base_url, "recorded", timeout_s=10.0, retries=0)
        started = time.perf_counter()
        for item in items:  # one batch per entry, so each entry's candidates stay apart
            extraction = extractor.extract([item.entry])
            results[item.id] = extraction.candidates
            for entry, why in extraction.failed:
                print(f"failed {item.id} ({entry.ref}): {why}")
        seconds = time.perf_counter() - started
    return results, seconds


LOCOMO_DICE = 0.4  # an extracted fact and an observation of the same turn: close in meaning


def meaning_words(text: str) -> frozenset[str]:
    """A text's words as search indexes them (`search.tokenizer`: Snowball stems, its
    stopwords out, so "hikes" and "hiking", "rereading" and "reread" are one word),
    without numbers: a date the rules resolved ("on 2023-07-28") and the observation's
    own ("two weeks ago") say the same time."""
    return frozenset(t for t in _search_tokens().tokenize(text) if not t[0].isdigit())


@functools.cache
def _search_tokens() -> Tokenizer:
    return Tokenizer()


def locomo_report(data: Path | None, show: bool) -> int:
    """The rules over LoCoMo's real conversations (`benchmarks/eval/locomo.py`): recall
    and precision against its observations, then the supersessions a heartbeat makes."""

    from benchmarks.eval import locomo
    from vault_app.heartbeat import rules

    source = locomo.locate(data)
    if source is None:
        print(f"LoCoMo: no data (--locomo, ${locomo.ENV}, {locomo.DATA}): skipped")
        return 0
    print(f"LoCoMo {source}: {locomo.CREDIT}")
    print(
        "match: the extracted fact cites a turn the observation cites, and their words "
        f"(stemmed, stopwords and numbers aside) overlap, Dice >= {LOCOMO_DICE}; one to one, "
        "best first"
    )
    totals = Counter()
    started = time.perf_counter()
    misses: list[str] = []
    extracted_all: dict[tuple[str, str], list[str]] = {}  # (sample, turn) -> facts
    for sample in locomo.load(source):
        got: dict[str, list[model.Candidate]] = {}
        for at, dia, text in locomo.turn_entries(sample):
            entry = model.Entry(
                path=f"global/daily/{at.date().isoformat()}.md",
                date=at.date(),
                time=at.strftime("%H:%M:%S"),
                text=text,
            )
            got[dia] = rules.candidates(entry)
        noted = list(locomo.observations(sample))
        pairs = []
        for o, (_speaker, text, cited) in enumerate(noted):
            words = meaning_words(text)
            for dia in cited:
                for c, candidate in enumerate(got.get(dia, [])):
                    d = dice(words, meaning_words(candidate.fact))
                    if d >= LOCOMO_DICE:
                        pairs.append((d, o, (dia, c)))
        pairs.sort(key=lambda p: -p[0])
        used_o, used_c = set(), set()
        for _d, o, c in pairs:
            if o not in used_o and c not in used_c:
                used_o.add(o)
                used_c.add(c)
        extracted = sum(len(v) for v in got.values())
        for dia, facts in got.items():
            extracted_all[(sample["sample_id"], dia)] = [c.fact for c in facts]
        totals.update(
            observations=len(noted), extracted=extracted, matched=len(used_o), turns=len(got)
        )
        print(
            f"{sample['sample_id']}: {len(got)} turns, {len(noted)} observations, "
            f"{extracted} extracted, {len(used_o)} matched"
        )
        if show:
            for dia, c in sorted(
                set((d, i) for d, v in got.items() for i in range(len(v))) - used_c
            ):
                misses.append(f"  extra {dia}: {got[dia][c].fact}")
    seconds = time.perf_counter() - started
    recall = totals["matched"] / max(totals["observations"], 1)
    precision = totals["matched"] / max(totals["extracted"], 1)
    print(
        f"rules on LoCoMo: recall {recall:.3f} ({totals['matched']} of "
        f"{totals['observations']} observations), precision {precision:.3f} "
        f"({totals['matched']} of {totals['extracted']} extracted); "
        f"{seconds / max(totals['turns'], 1) * 1000:.2f} ms a turn"
    )
    for line in misses[:80]:
        print(line)
    _judged_report(extracted_all, show)
    _locomo_heartbeat(source)
    return 0


JUDGED = ROOT / "benchmarks" / "data" / "locomo" / "judged.jsonl"
# the samples drawn and judged blind since the rules last changed, pooled into one figure
# (empty it when the rules change: a sample read to mend them is no longer blind)
BLIND_NOW: tuple[str, ...] = ("H",)


def fact_key(fact: str) -> str:
    """How `JUDGED` names a fact without its words (LoCoMo's text stays out of the repo)."""
    return hashlib.sha256(fact.encode("utf-8")).hexdigest()[:16]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (a sample's precision, not the set's)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    mid, half = p + z * z / (2 * n), z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, (mid - half) / (1 + z * z / n)), min(1.0, (mid + half) / (1 + z * z / n))


def _judged_report(extracted: dict[tuple[str, str], list[str]], show: bool) -> None:
    """Precision as a person judges it: of the facts in `JUDGED` (a random sample of the
    rules' facts, each read against its turn; the folder's README says how) that the rules
    still extract, how many were kept: true to the turn, of the right person, standing
    alone. A sampled fact the rules no longer extract as judged is counted apart (its
    text changed: judge the new one). Against the observations a reader happened to
    write, a true fact they did not note counts as wrong; here it does not."""
    if not JUDGED.exists():
        return
    verdicts = {}
    for line in JUDGED.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            verdicts[(row["sample"], row["turn"], row["fact"])] = row
    seen: list[tuple[dict[str, Any], str]] = []
    for (sample, turn), facts in extracted.items():
        for fact in facts:
            row = verdicts.get((sample, turn, fact_key(fact)))
            if row is not None:
                seen.append((row, fact))
    for name in sorted({row["set"] for row in verdicts.values()}):
        mine = [row for row, _ in seen if row["set"] == name]
        kept = sum(1 for row in mine if row["keep"])
        why = Counter(row.get("why", "?") for row in mine if not row["keep"])
        low, high = wilson(kept, len(mine))
        gone = sum(1 for row in verdicts.values() if row["set"] == name) - len(mine)
        print(
            f"judged by a person, sample {name} ({JUDGED.relative_to(ROOT)}): {kept} of "
            f"{len(mine)} facts kept, precision {kept / max(len(mine), 1):.3f} (95% interval "
            f"{low:.2f}-{high:.2f}); dropped: "
            + (", ".join(f"{n} {w}" for w, n in why.most_common()) or "none")
            + f"; {gone} judged facts no longer extracted as judged"
        )
    pooled = [row for row, _ in seen if row["set"] in BLIND_NOW]
    if pooled:
        kept = sum(1 for row in pooled if row["keep"])
        low, high = wilson(kept, len(pooled))
        changed = sum(1 for r in verdicts.values() if r["set"] in BLIND_NOW) - len(pooled)
        print(
            f"judged blind at these rules (samples {'+'.join(BLIND_NOW)}): {kept} of "
            f"{len(pooled)} kept, precision {kept / len(pooled):.3f} (95% interval "
            f"{low:.2f}-{high:.2f})"
            + (
                f"; BUT {changed} of their facts changed since: the rules changed, these "
                "samples are not blind to them (empty BLIND_NOW and draw the next)"
                if changed
                else ""
            )
        )
    if show:
        for row, fact in seen:
            if not row["keep"]:
                print(
                    f"  {row['set']} dropped ({row['why']}) {row['sample']} {row['turn']}: {fact}"
                )


def _locomo_heartbeat(source: Path) -> None:
    """A heartbeat (rules) over each sample's daily notes, in a fresh vault: how many
    facts it writes, every supersession it makes, old -> new, for a person to judge (a
    wrong one hides a true fact from every search and summary), and what its facts
    answer: for each question, the facts taken from its evidence turns are relevant
    (their `metadata.heartbeat.entry` names the turn), and hybrid search over the facts
    alone should rank one first. The memory a user gets from a conversation, end to end."""
    import tempfile

    from benchmarks.eval import build, locomo
    from vault_app.core.vault import Vault
    from vault_app.heartbeat import runs
    from vault_app.search import engine

    written = superseded = 0
    shown: list[str] = []
    asked: list[tuple[str, set[str], list[str]]] = []  # (category, relevant, ranked keys)
    with tempfile.TemporaryDirectory(prefix="locomo-beat-") as tmp:
        for sample in locomo.load(source):
            built = locomo.build_vault(sample, Path(tmp) / sample["sample_id"], facts_too=False)
            record = runs.run_heartbeat(built.path, runner="cli", trigger="once")
            written += record.written
            superseded += record.superseded
            turn_at = {
                (f"global/daily/{at.date().isoformat()}.md", at.strftime("%H:%M:%S")): dia
                for at, dia, _text in locomo.turn_entries(sample)
            }
            v = Vault(built.path)
            taken: dict[str, set[str]] = defaultdict(set)  # dia_id -> keys of its facts
            for folder in v.paths.iter_all_entities():
                by_id = {f.id: f for f in v.entity(folder.ref).facts}
                for fact in by_id.values():
                    if fact.superseded_by and fact.superseded_by in by_id:
                        shown.append(f"  {fact.fact!r} -> {by_id[fact.superseded_by].fact!r}")
                    ref = ((fact.metadata or {}).get("heartbeat") or {}).get("entry", "")
                    path, _, rest = ref.partition("@")
                    dia = turn_at.get((path, rest.split("#")[0]))
                    if dia:
                        taken[dia].add(f"fact:{fact.id}")
            search, _ = engine.open_engine(v, semantic=True)
            facts_only = engine.Filters(kinds=frozenset({"fact"}), status="active")
            for qa in sample.get("qa") or []:
                category = locomo.CATEGORIES.get(qa.get("category"))
                if category is None or not isinstance(qa.get("question"), str):
                    continue
                relevant = {k for d in locomo.dia_ids(qa.get("evidence")) for k in taken[d]}
                hits = search.search(qa["question"], mode="hybrid", limit=10, filters=facts_only)
                asked.append((category, relevant, [h.key for h in hits.hits]))
    print(
        f"heartbeat (rules) over the daily notes: {written} facts written, {superseded} superseded"
    )
    for line in shown:
        print(line)
    print(
        "what its facts answer (a fact taken from a question's evidence turn is relevant; "
        "hybrid, facts only):"
    )
    for category in (None, *locomo.CATEGORIES.values()):
        rows = [a for a in asked if category in (None, a[0])]
        held = [a for a in rows if a[1]]
        m = build.metrics([a[2] for a in held], [a[1] for a in held])
        found = sum(1 for a in held if set(a[2][:5]) & a[1])
        print(
            f"  {category or 'all':11} {len(rows):3} questions, {len(held):3} with such a fact "
            f"({len(held) / max(len(rows), 1):.3f}); on those hit@1 {m['hit@1']:.3f} hit@5 "
            f"{m['hit@5']:.3f} MRR {m['mrr']:.3f}; answered in the first 5: "
            f"{found / max(len(rows), 1):.3f} of all"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extractor", choices=("rules", "llm"), default="rules")
    parser.add_argument(
        "--show", metavar="SPLIT", help="print the misses and extra facts of a split, or all"
    )
    parser.add_argument(
        "--set", choices=("own", "imported", "locomo"), default="own", help="which set"
    )
    parser.add_argument("--locomo", type=Path, help="a LoCoMo file (--set locomo)")
    args = parser.parse_args(argv)
    if args.set == "locomo":
        return locomo_report(args.locomo, args.show is not None)
    if args.set == "imported" and args.extractor != "rules":
        parser.error("--set imported has no recorded model answers: --extractor rules only")
    items = load(DATA / "imported.jsonl") if args.set == "imported" else load()
    runner = run_rules if args.extractor == "rules" else run_llm
    results, seconds = runner(items)
    facts = sum(len(i.facts) for i in items)
    splits = ", ".join(f"{n} {k}" for k, n in sorted(Counter(i.split for i in items).items()))
    print(
        f"extractor {args.extractor}: {len(items)} entries ({splits}), {facts} "
        f"expected facts; match: Dice >= {MATCH_DICE} on content words + same entity"
    )
    score(items, results, args.show)
    per_entry = seconds / len(items)
    print(
        f"time: {per_entry * 1000:.3f} ms an entry ({seconds:.3f} s for the set; "
        f"1,000 entries: {per_entry * 1000:.2f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
