"""Which rule a sentence falls under: its category and whose it is (`category_of`).

The rules are tried in order and the first that fires decides: a birthday, who someone is
(a relationship), a dated event, what befell someone, a plan or a deadline, a month's or a
year's event, a preference, a condition one lives with, a medicine and its dose, a
favourite, a state or a change of one (an amount, a measure), a worker's advice, a house
rule, what someone is, one's job, a habit, a need, when a thing was built, what it is made
of or which make it is, who holds an account, a schedule, where someone lives, a pet, where
a thing is kept, who holds a way in, a labelled amount, a value of someone's. Each returns
the entity the fact is about when the sentence names one ("Theo started piano": Theo), "I"
or "We" for the speaker, or None. The patterns are `rulebook`'s; `rules` reads a sentence
down to what it says before it asks here.
"""

from __future__ import annotations

import datetime as dt
import re

from vault_app.core import models
from vault_app.heartbeat import dates, readings, rulebook, subjects

Category = models.FactCategory

# what lapses or renews, by its name: "TSA PreCheck for Jordan expires in March 2027"
_LAPSES = re.compile(
    r"^(?!(?:It|This|That|They|He|She)\b)[A-Z][\w'’&-]*(?:\s[\w'’&-]+){0,5}?"
    r"(?:\s+for\s+(?P<whose>" + rulebook.NAME + r"))?\s+"
    r"(?:expires|renews|ends|lapses|runs\s+out|is\s+up\s+for\s+renewal)\b"
)
_FOR_NAME = re.compile(r"\bfor\s+(?P<name>" + rulebook.NAME + r")[.!]?$")
_DOES = re.compile(r"\s+(?!(?:is|was|has|does)\b)[a-z]{2,20}s\b")  # "… takes the bus"
_TITLE = re.compile(r"(?:Dr|Mr|Mrs|Ms|St)\.?$").match
_I_ROUTINE = re.compile(r"(?:I|We)\s+(?!(?:am|was|were|will|would|could|should|might)\b)[a-z]")
_CLOCK = re.compile(r"\b\d{1,2}(?::[0-5]\d|\s*(?:am|pm|a\.m\.|p\.m\.))", re.IGNORECASE)
_JUST = re.compile(
    r"\b(?:just|recently)\s+(?:[a-z]+\s+)?(?:had|got|gave|passed|moved|started|retired"
    r"|graduated|adopted|bought|died)\b"
)

# a task someone does for others, and how often: "Graham does our taxes every March", "Rosa
# does the laundry on Mondays" (the habit rule leaves "does" out: "Maya does not …")
_DOES_ROUTINE = re.compile(
    r"^" + rulebook.NAME + r"\s+does\s+(?:the|our|my|his|her|their)\s+[^.!?]{2,60}?\s+"
    r"(?:every|each|once\s+a|twice\s+a|weekly|monthly|yearly|annually|on\s+[A-Z][a-z]+days)\b"
)
# a date of the calendar moved by someone else: "The dentist moved my appointment to
# Friday", "Dr. Patel rescheduled Leo's checkup for March 3" (whose it is: the possessive)
_RESCHEDULED = re.compile(
    r"\b(?:moved|rescheduled|pushed|bumped|postponed|shifted)\s+(?:back\s+)?"
    r"(?P<pos>my|our|the|his|her|their|" + rulebook.NAME + r"['’]s)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:appointment|meeting|conference|visit|pickup|delivery|class|lesson|session|practice"
    r"|party|dinner|call|interview|surgery|check-?up|exam|recital|inspection|service|flight"
    r"|reservation|booking|playdate|rehearsal|game|match)s?\s+(?:back\s+)?(?:to|until|till"
    r"|for)\s+\S"
)
_PERSON = {"my": "I", "our": "We"}  # a possessive's person, as `_entity` reads it
# a liking's verb in its plain form, which one named person never takes ("Maya likes"): after
# a single capitalised word it is no verb of theirs ("Almost like taking us back in time"),
# but after a plural ("Kids love pancakes"); "like" after one word is "as" ("Themes like…")
_PLAIN_LIKING = frozenset(("like", "love", "hate", "prefer", "enjoy", "dislike", "want", "avoid"))


def category_of(sentence: str, on: dt.date) -> tuple[Category, str | None] | None:
    """(category, entity) by the first rule that fires, or None."""
    pats = rulebook.patterns()
    birthday = pats.birthday.search(sentence)
    if birthday and dates.dates_in(sentence, on):  # not "Scheduled Biscuit": a log's verb
        words = birthday.group("who").split()
        while len(words) > 1 and words[0].lower() in pats.not_names and not _TITLE(words[0]):
            words = words[1:]
        return Category.MILESTONE, subjects.clean_name(" ".join(words))
    for rule in (pats.rel_name, pats.rel_my):
        rel = rule.search(sentence)
        if rel:
            return Category.RELATIONSHIP, subjects.clean_name(rel.group("x") or rel.group("x2"))
    rel = pats.rel_is.match(sentence)
    if rel and subjects.is_name(rel.group("x"), pats):
        return Category.RELATIONSHIP, subjects.clean_name(rel.group("x"))
    dated = bool(dates.dates_in(sentence, on))
    subject = subjects.subject_name(sentence, pats)
    if dated and pats.event.search(sentence):
        return Category.MILESTONE, subject
    if subject and _JUST.search(sentence) and pats.event.search(sentence):
        return Category.MILESTONE, subject  # "Priya just had a baby girl": on the entry's day
    if (subject or pats.kin.match(sentence)) and pats.incident.search(sentence):
        return Category.MILESTONE if dated else Category.STATUS, subject  # "Maya lost her…"
    if dated and pats.future.search(sentence) and (subject or pats.thing.match(sentence)):
        return Category.MILESTONE, subject  # "Greenleaf will aerate the lawn next Tuesday"
    if dated and pats.deadline.search(sentence) and (subject or pats.thing.match(sentence)):
        return Category.MILESTONE, subject  # "Priya needs the 1099s by January 31"
    moved = _RESCHEDULED.search(sentence)
    if moved:  # "The dentist moved my appointment to Friday": the user's appointment
        whose = moved.group("pos")
        owner = _PERSON.get(whose.lower()) or (whose[:-2] if whose[-2:-1] in "'’" else None)
        return Category.MILESTONE, owner or subject
    lapses = _LAPSES.match(sentence)  # "TSA PreCheck for Jordan expires in March 2027"
    month = not dated and (subject or lapses) and pats.in_month.search(sentence)
    if lapses and lapses["whose"] and subjects.is_name(lapses["whose"], pats):
        subject = subjects.clean_name(lapses["whose"])  # whose PreCheck it is
    if month and any(p.search(sentence) for p in (pats.event, pats.future, pats.deadline)):
        return Category.MILESTONE, subject  # "Clara starts at … in January", "… by June"
    year = not dated and (subject or lapses or pats.thing.match(sentence))
    year = year and pats.in_year.search(sentence)
    if year and pats.event.search(sentence):
        return Category.MILESTONE, subject  # "My dad died in 2019", "We moved in March 2021"
    pref = pats.preference.match(sentence)
    if pref and pats.pronoun_object.match(sentence, pref.end()):
        pref = None  # "wants him at 22", "I love it": not standalone
    subj, verb = (pref.group("subj"), pref.group("verb")) if pref else ("", "")
    one = subj not in ("I", "We") and " " not in subj  # "Kids love", not "Themes like …"
    if one and verb in _PLAIN_LIKING and (verb == "like" or not subj.endswith("s")):
        pref = None  # "Almost like taking us back in time": no one's liking
    if pref and subjects.subject_ok(pref.group("subj"), pats):
        return Category.PREFERENCE, subjects.subject_of(pref)
    condition = pats.condition.match(sentence)
    if condition and subjects.subject_ok(condition.group("subj"), pats):
        return Category.CONTEXT, subjects.subject_of(condition)  # "Leo has asthma"
    dose = readings.DOSE_TAKEN.match(sentence)
    if dose and subjects.subject_ok(dose.group("who"), pats):
        return Category.CONTEXT, subject  # "Pat takes donepezil 5mg at night"
    fav = pats.favourite.search(sentence) or pats.favourite_of.match(sentence)
    if fav:  # whose favourite it is: "my" is the speaker's, as "I" is
        owner = fav.group("subj").removesuffix("'s").removesuffix("’s")
        return Category.PREFERENCE, _PERSON.get(owner.lower()) or subjects.subject(owner)
    for rule in (pats.status_is, pats.status_change, pats.money, pats.measure, pats.now_verb):
        status = rule.match(sentence)
        if status and (rule is pats.money or subjects.subject_ok(status.group("subj"), pats)):
            return Category.STATUS, subjects.subject_of(status)
    if pats.advised.match(sentence):  # "Marcus Bell recommends replacing the unit"
        whom = _FOR_NAME.search(sentence)  # "… 20 minutes of reading a night for Theo"
        if whom and subjects.is_name(whom["name"], pats):
            return Category.STATUS, subjects.clean_name(whom["name"])
        return Category.STATUS, subjects.subject_name(sentence, pats)
    if pats.now_is.search(sentence) or pats.done.match(sentence):
        return Category.STATUS, subjects.subject_name(sentence, pats)
    if pats.house_rule.match(sentence) and not dated:
        return Category.PREFERENCE, subject
    if (pats.descriptor.match(sentence) or pats.age_is.match(sentence)) and not dated:
        return Category.CONTEXT, subject
    if pats.my_job.match(sentence):
        return Category.CONTEXT, "I"  # "I'm a project manager at Acme Corp"
    habit = pats.habit.match(sentence)
    if habit and not dated and (subject or not habit.group("name")):
        return Category.CONTEXT, subject  # "The dehumidifier drains into the floor drain"
    if subject and _DOES_ROUTINE.match(sentence):
        return Category.CONTEXT, subject  # "Graham does our taxes every March"
    if pats.needs.match(sentence):
        return Category.STATUS, subject  # "The Subaru needs new tires"
    if pats.built.match(sentence):
        return Category.CONTEXT, subject  # "The house was built in 1962"
    if pats.material.match(sentence) or pats.model_is.match(sentence):
        return Category.CONTEXT, subject  # "The drain line is cast iron", "… is a Chamberlain"
    provider = pats.provider.match(sentence)
    if provider:  # "Our checking account is with First Harbor Bank"
        return Category.CONTEXT, subjects.clean_name(provider.group("who"))
    thing = pats.thing.match(sentence) or pats.owner.match(sentence)  # "The…", "Maya's…"
    timed = pats.timed.search(sentence) and not dated  # "expires in March", "at 8:15"
    clocked = (  # "Theo takes the bus at 7:40"; not "Dinner is at 7:30": a time, no habit
        subject and timed and _CLOCK.search(sentence) and _DOES.match(sentence, len(subject))
    )
    mine = _I_ROUTINE.match(sentence)  # "I work from home on Tuesdays"
    routine = pats.routine.search(sentence)
    days = thing and pats.are_days.search(sentence)  # not "Practice is Wednesdays": whose?
    if (routine and (subject or thing or mine)) or (timed and thing) or clocked or days:
        return Category.CONTEXT, subject  # "The recycling goes out every other Monday"
    about = pats.about.match(sentence)
    if about and (subject or about.group("kin")):
        return Category.CONTEXT, subject  # "Clara lives in Boston", "My parents live in…"
    pet = pats.pet_named.search(sentence)
    if pet and subjects.is_name(pet.group("x"), pats):  # "We have a dog named Biscuit"
        return Category.RELATIONSHIP, subjects.clean_name(pet.group("x"))
    if pats.location.match(sentence):
        return Category.CONTEXT, subject  # "The spare key is under the blue pot"
    access = pats.access.match(sentence)
    if access and subjects.is_name(access.group("subj"), pats):
        return Category.CONTEXT, subjects.clean_name(access.group("subj"))  # "Rosa has a key to…"
    labelled = pats.labelled.match(sentence)
    if labelled:  # "Maya's orthodontist payment plan: $180/month for 18 months"
        return Category.STATUS, subjects.clean_name(labelled.group("name"))
    attribute = pats.attribute.match(sentence)
    if attribute and not dated:  # "Jordan's work number is 555-0142"
        value = sentence[attribute.start("value") :]
        found = (re.match(rulebook.NAME, value), rulebook.CAPS.match(value))
        names = [m.group() for m in found if m]
        if names and attribute.group("name"):  # "Theo's soccer coach is Mr. Daniels"
            return Category.RELATIONSHIP, subjects.clean_name(max(names, key=len))
        return Category.CONTEXT, subjects.clean_name(attribute.group("name"))
    return None
