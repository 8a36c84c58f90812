"""A fact read as the one-valued attribute it states, so that the fact that changes the
value retires it however each is worded (`dedup`'s "update").

- A habit is its activity's schedule: "Lina takes piano lessons on Tuesdays" reads
  "Lina's piano lessons are on Tuesdays", which "Lina's piano lessons moved to Thursdays"
  changes.
- A medicine someone takes with its dose is that medicine's dose: "Pat takes donepezil
  5mg at night", "Pat is on 5mg of donepezil" and "Pat's donepezil went up to 10mg" read
  "Pat's donepezil dose is 5 mg" / "… is 10 mg". The dose is the tell (a number and a
  unit of medicine), so no list of medicines is needed; another medicine of the same
  person is another attribute (two facts), and so is another person's.

`DOSE_TAKEN` is also how the rules know a sentence tells a medicine someone takes
(`rules`): one pattern for both, so what the rules keep is what dedup can update.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# "5mg", "2.5 mg", "500 mcg", "10 units", "1,000 IU"
DOSE = r"\d{1,4}(?:,\d{3})?(?:\.\d{1,2})?\s?(?:mg|mcg|µg|ml|mL|g|units?|iu|IU)\b"
_WHO = r"(?P<who>\S+?(?:\s+\S+)?)"
_DRUG = r"(?P<drug>[\w-]{3,30}(?:\s+[A-Za-z]{1,3})?)"  # "donepezil", "vitamin D", "ER"
_TAKES = (
    r"(?:\s+(?:takes?|(?:is|am|are)\s+(?:now\s+)?(?:on|taking|starting(?:\s+on)?)|now\s+takes?"
    r"|(?:was|were)\s+put\s+on|started(?:\s+on)?|gets)"
    r"|['’](?:m|re)\s+(?:now\s+)?(?:on|taking|starting(?:\s+on)?))"  # "I'm on …"
)
# who takes which medicine at which dose: "Pat takes donepezil 5mg", "… is on 5mg of …"
DOSE_TAKEN = re.compile(
    r"^" + _WHO + _TAKES + r"\s+(?:"
    + _DRUG + r"\s+(?P<dose>" + DOSE + r")|(?P<dose2>" + DOSE + r")\s+of\s+(?P<drug2>[\w-]{3,30}))"
)  # fmt: skip
# a dose changed: "Pat's donepezil went up to 10mg", "Dad's metformin dose was increased
# to 1000mg", "Pat's donepezil is now 10mg"
_DOSE_CHANGED = re.compile(
    r"^(?P<who>\S+(?:\s+\S+)?)['’]s\s+(?P<drug>[\w-]{3,30})(?:\s+dose|\s+dosage)?\s+"
    r"(?:went\s+(?:up|down)|was\s+(?:increased|raised|upped|bumped\s+up|lowered|reduced|cut"
    r"|decreased|changed|adjusted|doubled|halved)|has\s+been\s+(?:increased|raised|lowered"
    r"|reduced|changed|adjusted)|(?:is|was)\s+(?:now\s+)?|dropped|changed|increased"
    r"|decreased)\s+(?:to\s+)?(?P<dose>" + DOSE + r")"
)
# "Lina takes piano lessons on Tuesdays": a habit of a few words' activity, told by its
# day or hour
_HABIT = re.compile(
    r"^(?P<who>\S+(?:\s+\S+)?)\s+(?:takes|has|does|attends|goes\s+to|have|take|do|attend"
    r"|go\s+to)\s+(?P<what>(?:[\w'-]+\s+){0,3}?(?:lessons?|class(?:es)?|practice|training"
    r"|rehearsals?|sessions?|tutoring|therapy|appointments?|clinic))\s+(?P<when>(?:on|at|every)\s.*)",
    re.IGNORECASE,
)


class Reading(NamedTuple):
    attribute: str  # "Lina's piano lessons are", "Pat's donepezil dose is"
    value: str  # "on Tuesdays", "5mg"


def reading(text: str) -> Reading | None:
    """`text` read as the one-valued attribute it states and its value (the module's
    readings), or None when it states none of them."""
    habit = _HABIT.match(text)
    if habit is not None:
        return Reading(f"{habit['who']}'s {habit['what']} are", habit["when"])
    dose = DOSE_TAKEN.match(text) or _DOSE_CHANGED.match(text)
    if dose is not None:
        said = dose.groupdict()
        drug, amount = said["drug"] or said.get("drug2"), said["dose"] or said.get("dose2")
        return Reading(f"{said['who']}'s {drug} dose is", str(amount))
    return None


# a dose someone (a doctor) set: "The consultant upped his donepezil to 10mg"
_SET_DOSE = re.compile(
    r"^(?P<lead>[A-Za-z][A-Za-z ]{0,24}:\s+)?(?:[\w.'’-]+\s+){1,3}?"
    r"(?P<verb>upped|increased|raised|bumped\s+up|doubled|lowered|reduced|cut|decreased|halved|changed|adjusted)\s+(?P<whose>his|her|their|my|our"
    r"|[A-Z][\w-]+['’]s)\s+(?P<drug>[\w-]{3,30}(?:\s+dose|\s+dosage)?)\s+to\s+(?=" + DOSE + r")",
    re.IGNORECASE,
)
_DOWN = ("lowered", "reduced", "cut", "decreased", "halved")


def dose_as_its_own(sentence: str) -> str:
    """A dose someone set told as the medicine's own change, whose it is kept ("The
    consultant upped his donepezil to 10mg" -> "His donepezil went up to 10mg"), so that
    it reads as the dose it changes; other sentences as they are."""
    found = _SET_DOSE.match(sentence)
    if found is None:
        return sentence
    verb = found["verb"].lower()
    change = "went down" if verb in _DOWN else "was changed" if verb[0] in "ca" else "went up"
    whose = found["whose"][:1].upper() + found["whose"][1:]
    lead = found["lead"] or ""  # "Update: the consultant upped his …": the label kept
    return f"{lead}{whose} {found['drug']} {change} to {sentence[found.end() :]}"
