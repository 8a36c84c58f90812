"""How `llm_responses.jsonl` was made: the answers a capable chat model plausibly gives.

Not a model's output: each answer is written from the entry's labeled facts, then varied
the way real answers vary, by a seeded script so the file can be remade and reviewed:
  - the wrapping: mostly plain JSON, some in a ```json fence, a few after a sentence of
    prose (and one with a note after the JSON);
  - the wording: "User"/"The family" for the labels' "The user"/"the household", and now
    and then a relative date left as the entry wrote it rather than resolved;
  - the misses: about one fact in twelve left out;
  - a few imperfect answers: a fact without "relatedEntities" or without "category",
    small talk turned into a fact, an extra one-off event kept as a fact.
The `--extractor llm` figure therefore measures the endpoint path (request, tolerant
parsing, the candidates made from an answer) against plausible answers, not a model.

    python benchmarks/data/extraction/make_llm_responses.py   # rewrites the file
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = re.compile(r"\b(?:Dr\.\s|Mr\.\s|Mrs\.\s)?[A-Z][a-zA-Z'&-]+(?:\s(?:&\s)?[A-Z][a-zA-Z'-]+)*")
NOT_NAMES = {
    "The",
    "A",
    "An",
    "User",
    "Every",
    "Kids",
    "Home",
    "Dining",
    "Groceries",
    "Roof",
    "Storm",
    "New",
    "Bathroom",
    "Property",
    "Recycling",
    "Transfers",
    "There",
}

CALENDAR = {
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Christmas",
    "Thanksgiving",
    "Halloween",
}
# answers where a model adds or bends something (by entry id)
EXTRA = {
    "e002": {
        "fact": "User thanked the assistant for the summary.",
        "category": "context",
        "relatedEntities": [],
        "entity": None,
    },
    "e038": {
        "fact": "The kids went to sleep early.",
        "category": "context",
        "relatedEntities": [],
        "entity": None,
    },
    "e117": {
        "fact": "Maya dressed as a detective and Theo as an astronaut for Halloween.",
        "category": "milestone",
        "relatedEntities": ["Maya", "Theo"],
        "entity": "Maya",
    },
    "e143": {
        "fact": "The kids picked pepperoni and plain cheese pizza.",
        "category": "preference",
        "relatedEntities": [],
        "entity": None,
    },
    "e150": {
        "fact": "User had a headache on 2026-11-09.",
        "category": "status",
        "relatedEntities": [],
        "entity": None,
    },
}
MISSING_FIELD = {"e029": "relatedEntities", "e091": "category", "e132": "relatedEntities"}
UNRESOLVED = {"e024": ("on 2026-10-06", "yesterday"), "e149": ("on 2026-11-08", "yesterday")}


def _related(fact: str, entity: str | None) -> list[str]:
    names = [n.removesuffix("'s") for n in NAME.findall(fact)]
    names = [n for n in names if n.split()[0].rstrip("s") not in NOT_NAMES | CALENDAR]
    return [n for n in dict.fromkeys(names) if n != entity]


def _reword(fact: str) -> str:
    fact = fact.replace("The user asked", "User asked").replace("The user ", "User ")
    return fact.replace("the household's", "the family's").replace("The household ", "The family ")


def answer(row: dict, rng: random.Random) -> str:
    facts = []
    for item in row["facts"]:
        if len(row["facts"]) > 1 and rng.random() < 0.08:
            continue  # a miss
        fact = _reword(item["fact"])
        if row["id"] in UNRESOLVED:
            old, new = UNRESOLVED[row["id"]]
            fact = fact.replace(old, new)
        out = {
            "fact": fact,
            "category": item["category"],
            "relatedEntities": _related(fact, item["entity"]),
            "entity": item["entity"],
        }
        missing = MISSING_FIELD.get(row["id"])
        if missing and not any(missing not in f for f in facts):
            del out[missing]
        facts.append(out)
    if row["id"] in EXTRA:
        facts.append(EXTRA[row["id"]])
    body = {"facts": facts}
    roll = rng.random()
    if roll < 0.62:
        return json.dumps(body, ensure_ascii=False)
    if roll < 0.85:
        return "```json\n" + json.dumps(body, ensure_ascii=False, indent=2) + "\n```"
    if roll < 0.97:
        lead = rng.choice(
            [
                "Here are the durable facts from this entry:",
                "Sure! Extracted facts:",
                "Here is the JSON you asked for.",
            ]
        )
        return lead + "\n\n" + json.dumps(body, ensure_ascii=False, indent=2)
    return json.dumps(body, ensure_ascii=False) + "\n\nNote: small talk was left out."


def main() -> None:
    rng = random.Random(14)
    rows = [json.loads(line) for line in (HERE / "entries.jsonl").read_text().splitlines() if line]
    lines = [
        json.dumps({"id": r["id"], "content": answer(r, rng)}, ensure_ascii=False) for r in rows
    ]
    (HERE / "llm_responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
