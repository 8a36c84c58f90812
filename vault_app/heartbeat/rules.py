"""The default extractor: durable facts found by rules, no model.

An entry is split into sentences and clauses, one fact each (`clauses.sentences`: lines,
sentence ends, a question after what is told, comma splices, a reason before what one
does, two clauses on one person).
Each sentence passes the quality gate or is dropped: small talk ("thanks", "good
morning"), hedges ("maybe", "I think", "probably"), questions, requests to the agent
("can you", "remind me"), guesses ("It must be scary"), fragments (under three words, no
verb, a heading ending in ":"), run-ons (over `MAX_SENTENCE` characters), sentences
whose subject points at what is around them ("It's super yummy", "Here's my new bowl"),
what holds of a group only ("We both love helping others", "We push each other": no name
can stand for "we" there), and in a conversation the reactions to the other person
("Sounds like…", "That must have been…"), what is said to them ("you", "your", "I'm
always here for…", "here's…", "I'll check it out"), opinions of the moment ("… is so
important"), and a liking of what another turn showed ("I love seeing them…",
`turns.points_around`).
A turn's speaker prefix ("**Maya** (D1:3): ") is read first (`turns.speaking`: who "I"
is), and its opening interjection ("Yeah, ", "Hey Mel! ", "Guess what - ", "Since we last
spoke, ") dropped; how a turn's sentence is read further is in `turns`.

Before the rules, a sentence is read in its entry's context: a `[[address|alias]]` link
reads as its name (the candidate then names the address); "She"/"He" ("she" after a
semicolon) opening it stands for the person the previous sentence was about; "Jordan
said she …" becomes "Jordan …"; a quoted speaker ("Alex said: "I prefer …"") stands in
for the first person.
Then the rules, in order; the first that fires makes the sentence a candidate:

    remember     "remember (that) …", "note that …", "don't forget that …", "keep in
                 mind …": the rest is the fact, categorised by the rules below (context
                 when none fires); not when the rest is advice or an offer to the person
                 spoken to ("Remember, just do it!", "Don't forget, believe in
                 yourself", "Remember, I'm always here for you": `advice`); an
                 assistant's memory note of the user ("**memory** (from ChatGPT: …): User
                 prefers Python.") is one too, read in the first person (`turns.as_told`)
    track        "keep track of X", "track X", "keep an eye on X": `track=True`, entity X
    instruction  a standing instruction, kept as given, a preference of the person the notes
                 speak for ("Please always use metric units" -> "Always use metric units.",
                 "Don't ever call me before 9"; `turns.standing`); not in a named
                 speaker's turn, where "Never give up!" is advice to a friend
    milestone    "X's birthday is March 3"; an event word and a date ("we got married on
                 …", "passed the exam yesterday", "demolition is scheduled for …"); a
                 subject, a future and a date ("Greenleaf will aerate the lawn next Tuesday");
                 a deadline ("Priya needs the 1099s by January 31")
    relationship "X is my/our/the/Y's <role>", "my <role> X", "the <role> is X", "<role>'s
                 name is X" (roles: rules.toml; "the kids' pediatrician is X" too), a pet
                 named ("We have a dog named Biscuit"); "My sister Clara lives in Boston"
                 makes two facts, "Clara is my sister." and "Clara lives in Boston."
    preference   "<subject> prefer/like/love/hate/can't stand/always/never/usually/wants/
                 would like/is afraid of …" (a subject may be one's kin: "My wife is allergic to
                 shellfish"; two verbs on one subject make two facts), "X's favourite
                 … is …", "… is (one of) X's/my favourite(s)" (X's or the speaker's); not
                 with a pronoun object ("wants him at 22", "It's my fave": not standalone)
    status       "the boiler is broken", "X is now …", "X has stayed dry"; "<subject>
                 moved to / started / stopped / switched to / chose …"; an amount ("the
                 premium dropped to $1,760", "Summit quoted $18,400"); an agent's log line
                 without a subject ("Replaced the furnace filter")
    context      a named subject or a thing doing something on a schedule ("Rosa cleans
                 every other Thursday", "Maya has piano on Tuesdays", "The trash pickup
                 is on Thursdays"); a thing with a time or a bound and no day ("The car's
                 registration runs through March", "The pharmacy closes at 9 pm"); where a
                 thing (no person) is kept ("The spare key is under the blue pot"); what
                 someone lives with ("Leo has a peanut allergy"); what a thing is made
                 of or runs on ("The drain line is cast iron", "Our stove is gas"); who
                 holds an account ("Our checking account is with First Harbor Bank");
                 what a worker found ("The plumber said the drain line is …": the
                 finding, read as the sentence); where one's own live or study ("My
                 parents live in Ohio", "Maya is in third grade"); a named one's clock
                 time ("Theo takes the bus at 7:40"; not "Dinner is at 7:30"); a value of
                 one's own holding a number or a name ("Our wifi password is bluefern22");
                 one's own routine ("I work from home on Tuesdays"); what someone wears,
                 uses or is for good ("Leo wears glasses", "Theo is left-handed"); when a
                 thing was made ("The house was built in 1962"); what a thing or a
                 named one does as a rule ("The dehumidifier drains into the floor
                 drain", "Leo sleeps with a nightlight"; not how it looks or feels);
                 what a thing needs done is a status ("The deck needs restaining"); a
                 job and where ("I'm a project manager at Acme Corp"); a team, a band
                 ("Maya is on the swim team"); a code or a setting ("The alarm code is
                 4412")
    disclosure   in a turn of a conversation (a speaker prefix was read), what the speaker
                 tells of themselves, when no rule above fired: "I signed up for a pottery
                 class", "My kids are spending the summer with their grandparents"
                 (`turns.disclosure` says which sentences are kept)

The fact text is the sentence made standalone, by one convention: the request words
go ("remember that"), a last "!" is a stop (a fact is stated: "… got a puppy."),
relative dates are made absolute against the entry's date (dates.resolve:
"yesterday" -> "on 2026-11-19"), and the first person is named: the
speaker when one was named, otherwise "I"/"me" become "the user" and "we"/"us" "the
household", with the verb after them agreeing ("I prefer" -> "The user prefers";
"my"/"our" -> "the user's"/"the household's"; `first_person`); once named, the speaker is "they",
"them", "their" for the rest of the sentence unless someone else was named since ("Tim
studied hard and it showed them how resilient they are"). Names are kept as written.

`entity` is the name the fact is about: the subject of a preference or relationship,
"X" of "X's birthday", the owner in "Biscuit's limp is better", the name opening the
sentence when a verb follows it, the speaker for "my" ("**Maya**: My dad loves
fishing"), else the sentence's first other name (what routing would fall back to
anyway); a common noun ("the boiler") is no entity unless a track request names it.
`related` holds the other capitalised names and `[[links]]` (`subjects` reads them).

The patterns live in `rulebook`, the word lists in `data/rules.toml`. Every pattern is
anchored or bounded (no nested quantifiers) and a sentence is capped before any runs,
so a hostile entry costs time linear in its size; control characters read as spaces.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from vault_app.core import models
from vault_app.heartbeat import (
    asides,
    classify,
    clauses,
    dates,
    first_person,
    names,
    pointing,
    readings,
    rulebook,
    subjects,
    turns,
    typed,
)
from vault_app.heartbeat import extraction as model
from vault_app.heartbeat import kin as kin_told

MAX_SENTENCE = 400  # characters: longer is a run-on or a pasted blob, never one fact
# a capitalised first word with one of these endings is a common noun, not a name

Category = models.FactCategory

# -- the gate ------------------------------------------------------------------------------


def passes_gate(text: str) -> bool:
    """Whether a sentence may hold a durable fact: not small talk, not a hedge, not a
    question or a request to the agent, not a fragment (too short, no verb), not a run-on,
    not about what "it", "this" or "here" points at around it."""
    sentence = " ".join(clauses.CONTROL.sub(" ", text).split())
    if not sentence or len(sentence) > MAX_SENTENCE:
        return False
    pats = rulebook.patterns()
    if pats.small_talk.match(sentence):
        return False
    if rulebook.word_count(sentence) < rulebook.MIN_WORDS and not pats.identity.search(sentence):
        return False  # a fragment, unless it says what one is ("I'm vegetarian")
    if sentence.rstrip().endswith("?") or pats.question.match(sentence):
        return False
    if pats.hedge.search(sentence) or pats.chore.search(sentence):
        return False
    if pats.reaction.search(sentence) or pats.addressed.search(sentence):
        return False  # a reaction to the other person, or about them in the moment
    if pats.opinion.search(sentence):
        return False  # "… is so important": an opinion in the moment
    if pats.ailing.search(sentence):
        return False  # "My son has a fever of 39 degrees": gone in a few days
    if sentence.endswith(":"):
        return False  # a heading for the bullets below it
    if pats.pointed.match(sentence):
        return False  # "It's super yummy", "Here's my new bowl": about what is around it
    if pats.together.search(sentence):
        return False  # "We both love helping others": the group's, not the speaker's
    return pats.verb.search(sentence) is not None


# -- the rules -----------------------------------------------------------------------------


def candidates(entry: model.Entry, thread: kin_told.Thread | None = None) -> list[model.Candidate]:
    """The candidate facts of one entry, in text order; read on from `thread` (what the
    speaker's message before it left), which is left as this one leaves it."""
    found: list[model.Candidate] = []
    seen: set[str] = set()
    thread = thread if thread is not None else kin_told.Thread()
    person = thread.person  # the last person named: "She" of the next sentence
    kin = thread.kin  # the last "my dad": whom "His name is …" names
    before: list[str] = []  # the entry's sentences so far: the names they gave, if asked
    turn = turns.speaking(entry.text)
    if turn.assistant:
        return []  # the assistant's words are not what the user told it
    told = turns.without_material(turn.text) if turn.said else turn.text
    if turn.to_assistant:
        told = typed.spelled(told)  # "remember im allergic to cats", typed in a hurry
    for sentence in clauses.sentences(told):
        if len(sentence) > MAX_SENTENCE:
            continue  # a run-on or a pasted blob: no fact, and no one to refer back to
        sentence, kin = kin_told.named_kin(sentence, kin, person)
        sentence, thread.event = kin_told.event_named(sentence, thread.event)
        made = _from_sentence(sentence, entry, person, turn) or _kin_aside(sentence, entry, turn)
        for candidate in made:
            if candidate.fact.lower() not in seen:
                seen.add(candidate.fact.lower())
                if before and not (candidate.entity or candidate.related or candidate.about_user):
                    candidate = dataclasses.replace(candidate, around=kin_told.names_in(before))
                found.append(candidate)
        before.append(sentence)
        named = made[0].entity if made and not made[0].track else None
        person = named if named and named[:1].isupper() else _person(sentence, person)
    thread.person, thread.kin = person, kin
    return found


_FILLER_IN = re.compile(
    r"\s+(?:btw|fyi|tbh|lol|lmao|haha+)(?=,|\s+(?:so|but|and)\s)", re.IGNORECASE
)
_FILLER_END = re.compile(
    r"(?:[\s,]+(?:honestly|lol|lmao|haha+|hehe|tbh|imo|xd|:\)|:D|:P|by\s+the\s+way|btw|fyi"
    r"|speaking\s+of"  # "I just reorganized my book shelf, speaking of"
    # a word on why it is told, after it: "…, good to know for both of us"
    r"|(?:(?:it['’]s|that['’]s)\s+)?good\s+to\s+know(?:\s+for\s+[\w\s]{1,20}?)?"
    r"|just\s+so\s+you\s+know|in\s+case\s+(?:it|that)\s+(?:ever\s+)?(?:matters|helps)"
    r"|if\s+that\s+(?:matters|helps)|for\s+what\s+it['’]s\s+worth"
    # whom the writer passed it on to: "…, told St. Luke's", "…, let the school know"
    # (a name, capitalised: not "… and just let our minds wander")
    r"|(?:please\s+)?(?:told|informed|notified|let(?=\s+(?:the\s+)?(?-i:[A-Z])[^.!?]*\bknow\b))"
    r"\s+(?:the\s+)?(?-i:(?:[A-Z][\w.'’-]*\s?){1,3})"
    r"(?:know)?|(?:told|informed|notified)\s+the\s+[a-z]{3,15}"
    r"|(?:please\s+)?let\s+the\s+[a-z]{3,15}\s+know))+"
    r"\s*([.!?]*)$",
    re.IGNORECASE,
)


def _kin_aside(sentence: str, entry: model.Entry, turn: turns.Turn) -> list[model.Candidate]:
    """Who someone is to the speaker, said in passing in a sentence that is no fact
    itself ("what's a good gift for a 5 year old? it's for my niece Ruby", "Can you
    write a card for my sister Ana?"): "Ruby is the user's niece." A "my <role> <Name>"
    is so whatever the sentence around it asks or feels."""
    if len(sentence) > MAX_SENTENCE or not _MY_OUR.search(sentence):
        return []
    pats = rulebook.patterns()
    plain, links = _unlink(sentence)
    rel = pats.rel_my.search(plain)
    if rel is None or rel["pos"].lower() not in ("my", "our"):
        return []
    name = subjects.clean_name(rel["x"])
    if name is None or not subjects.is_name(name, pats):
        return []
    said = f"{name} is {rel['pos'].lower()} {rel['y']}."
    return [
        model.Candidate(
            fact=first_person.standalone(said, turn.speaker),
            category=Category.RELATIONSHIP,
            entry=entry,
            entity=links.get(name, name),
            confidence=0.8,
        )
    ]


def _person(sentence: str, last: str | None) -> str | None:
    """Who "she"/"he" stands for after this sentence: its opening name, else the last;
    none after one opening on "my <role>", whom `kin.named_kin` reads it as."""
    pats = rulebook.patterns()
    if pats.pronoun.match(sentence):
        return last
    if pats.kin.match(sentence):
        return None  # "My sister lives in Leeds, she works…": the sister (`kin.named_kin`)
    name = subjects.subject_name(sentence, pats) or subjects.owner(sentence, pats)
    if name is None:  # "… see an ENT": a role or a thing, no one "she" could be
        named = subjects.related(sentence, None, pats)
        named = tuple(n for n in named if not names.articled(n, sentence))
        name = named[0] if len(named) == 1 and "/" not in named[0] else None
    return name if name else last


def explicit_candidates(entry: model.Entry) -> list[model.Candidate]:
    """The entry's explicit requests to remember, as the rules read them: what every
    extractor's candidates are completed with (an LLM that missed one does not lose it)."""
    return [c for c in candidates(entry) if c.explicit]


def _from_sentence(
    sentence: str, entry: model.Entry, person: str | None = None, turn: turns.Turn | None = None
) -> list[model.Candidate]:
    """The candidates of one sentence; `person`: who "she"/"he" stands for; `turn`: the
    entry read as a turn (its speaker is who "I" is when the sentence does not say)."""
    if len(sentence) > MAX_SENTENCE:
        return []
    pats = rulebook.patterns()
    sentence, links = _unlink(sentence)
    sentence = subjects.contracted(sentence)  # "Dev's allergic to …": "Dev is allergic …"
    sentence = readings.dose_as_its_own(sentence)  # "The GP upped his …": "His … went up"
    opened = pats.interjection.sub("", sentence, 1)  # "Update: His donepezil …": whose
    if opened != sentence and (pats.pronoun.match(opened) or pats.possessive.match(opened)):
        sentence = opened
    heard = turn is None or not turn.said or turn.to_assistant  # not a friend's advice
    sentence, speaker = _in_context(sentence, person, pats, objects=heard)
    speaker = speaker or (turn.speaker if turn else None)
    bare = pats.interjection.sub("", sentence, 1)  # "Yeah, I made it…"
    if bare and bare != sentence:
        sentence = bare[:1].upper() + bare[1:]  # "And my exam is…": "My exam is…"
    sentence = _FILLER_END.sub(r"\1", sentence)  # "… hates surprises honestly lol"
    sentence = _FILLER_IN.sub("", sentence)  # "She's allergic to amoxicillin btw, she…"
    if turn is not None and turn.said:
        sentence = turns.opening(sentence)
    else:  # the writer's own "I": "I noticed the sump pump is…", an agent's "I booked…"
        sentence = turns.first_hand(sentence, agent=entry.agent is not None)
        sentence = _with_article(sentence, pats)  # a log's "Backyard floodlight is out"
    asked = pats.remember.match(sentence)
    if asked and pats.advice.match(asked.group("rest").strip()):
        asked = None  # "Remember, just do it!": advice to the other person, no fact
    if asked:
        sentence = asked.group("rest").strip(" \t-–—:,;")
        if asked.group("asked") and sentence.endswith("?"):  # "Can you note that …?"
            sentence = sentence.rstrip("?").rstrip() + "."
        sentence = sentence[:1].upper() + sentence[1:]
    elif (after := pats.remember_after.search(sentence)) and after.start() > 0:
        asked = after  # "I'm left-handed, keep that in mind": the fact before the request
        sentence = sentence[: after.start()].rstrip() + "."
    elif turn is not None and turn.saved:  # an assistant's memory note: kept as asked
        sentence = turns.as_told(sentence)
    noted = (turn is None or not turn.said) and turns.of_the_user(sentence)
    if noted:  # an agent's "User prefers texts", "Remember the user is…": theirs, as told
        sentence = turns.as_told(sentence)
    explicit = asked is not None or (turn is not None and turn.saved)
    tracked = pats.track.match(sentence)
    if tracked:
        return [_track(sentence, tracked, entry)]
    sentence = asides.without_aside(sentence, said=turn is not None and turn.said)
    if heard:
        sentence = asides.without_when_you(sentence)  # "… when you suggest recipes"
    rule = turns.standing(sentence) if heard and not explicit else None
    per = turns.per_someone(sentence) if heard and rule is None else None
    if per and (theirs := turns.standing(per[1])):  # "Per Alex: don't pay by card…"
        said_so = f"Per {per[0]}: {theirs}"
        return [model.Candidate(said_so, Category.PREFERENCE, entry, per[0], confidence=0.8)]
    sentence = rule or sentence  # "Always use metric units": how to serve the person
    if not (rule or passes_gate(sentence) or (explicit and rulebook.enough_words(sentence))):
        return []
    said = turn is not None and turn.said and not explicit
    if said and (pats.offer.search(sentence) or turns.asks(sentence)):
        return []  # "I'm always here for you", "Draft a letter to…": said to the other
    ruled = (Category.PREFERENCE, "I") if rule else classify.category_of(sentence, entry.date)
    if ruled is None and (noted or (turn and turn.said)) and turns.disclosure(sentence):
        ruled = Category.CONTEXT, "We" if sentence.startswith(("We", "Our")) else "I"
    if ruled is None:
        if not explicit:
            return []
        ruled = Category.CONTEXT, None
    category, entity = ruled
    if said and category is Category.PREFERENCE and turns.points_around(sentence):
        return []  # "Nate likes holding them": what is liked is in the turns around it
    shown = said and turn is not None and turns.likes_what_was_shown(turn.text, sentence)
    if shown and category is Category.PREFERENCE:
        return []  # "That looks really good! I love the way the frosting turned out!"
    if said and pointing.shown_around(sentence):
        return []  # "Planning a trip there", "I'll make it for my family": pointed at
    entity = _entity(entity, sentence, speaker, pats)
    # "I prefer window seats" with no one named as "I": about the person the notes speak
    # for, not about the first other name in it (routing: their own entity); a person's
    # "we" to an assistant is their household, theirs too ("We have about $40k in
    # savings"), not an agent's "we" in its own notes
    ours = turn is not None and turn.to_assistant and _WE_OPENS.match(sentence) is not None
    opens = rule or _I_OPENS.match(sentence) or ours
    # what a person tells their assistant of a day, naming no one, is of their life:
    # "Report cards are due November 6"
    of_life = turn is not None and turn.to_assistant and category in _OF_A_LIFE
    of_life = of_life and not explicit and not subjects.related(sentence, None, pats)
    of_life = of_life and not _WITH_ME.match(sentence)  # "Tomás and I got engaged": theirs too
    about_user = entity is None and speaker is None and bool(opens or of_life)
    confidence = 1.0 if explicit else 0.8  # an explicit "remember" is surer than a rule
    out = []
    told = turn is not None and turn.said
    for part, kind in _parts(sentence, category, entry.date, explicit=explicit, said=told):
        if said and pointing.leans_on(part):
            continue  # "I'm a huge fan of this genre": which, another turn said
        text = first_person.standalone(dates.resolve(part, entry.date), speaker)
        whose, mine = entity, about_user
        if part is not sentence and re.match(r"(?:I|I['’]m|I['’]ve)\b", part):
            whose, mine = speaker, speaker is None  # "…and my partner Alex is coeliac": I'm …
        related = subjects.related(text, whose, pats)
        named = [r for r in related if not r.isupper()]  # "use ACH": no one
        of_user = mine and not (rule and named)  # "… for Leo": Leo's, not the user's
        about = whose or (None if of_user else subjects.fallback(related))
        out.append(
            model.Candidate(
                fact=text,
                category=kind,
                entry=entry,
                entity=links.get(about, about) if about else None,
                related=tuple(links.get(name, name) for name in subjects.without(related, about)),
                confidence=confidence,
                explicit=explicit,
                about_user=of_user,
                guessed=about is not None and not whose,
            )
        )
    return out


_I_OPENS = re.compile(r"(?:I|I['’](?:m|ve|d|ll)|My)\b")
_WE_OPENS = re.compile(r"(?:We|We['’](?:re|ve|d|ll)|Our)\b")


def _entity(
    ruled: str | None, sentence: str, speaker: str | None, pats: rulebook.Patterns
) -> str | None:
    """The name the fact is about: the rule's, the speaker's for "I"/"we" (and for "my":
    "**Maya**: My dad loves fishing" is Maya's), else the name opening the sentence or
    owning its subject."""
    opens_with_i = re.match(r"(?:I|We)\b", sentence) is not None
    if ruled in ("I", "We") or (ruled is None and opens_with_i):
        return speaker
    if ruled is None and speaker and re.match(r"(?:My|Our)\s", sentence):
        return speaker
    return ruled or subjects.subject_name(sentence, pats) or subjects.owner(sentence, pats)


def _unlink(sentence: str) -> tuple[str, dict[str, str]]:
    """The sentence with each `[[address|alias]]` read as its name (the alias, else the
    address's last part: "[[areas/people/greg-lindqvist]]" -> "Greg Lindqvist"), and the
    names' addresses, so the rules read a link like a name and the candidate names the
    address."""
    links: dict[str, str] = {}

    def name(match: re.Match[str]) -> str:
        address, alias = match.group(1).strip(), (match.group(2) or "").strip()
        shown = alias or address.rsplit("/", 1)[-1].replace("-", " ").replace("_", " ").title()
        shown = " ".join(shown.split()) or address
        links[shown] = address
        return shown

    return rulebook.LINK.sub(name, sentence), links


def _in_context(
    sentence: str, person: str | None, pats: rulebook.Patterns, *, objects: bool = False
) -> tuple[str, str | None]:
    """The sentence with its pronoun and reported speech read ("She loves orchids" ->
    "Helen loves orchids"; with `objects`, in notes or told to an assistant, where no
    "her" is the one spoken to, "I see her on Wednesdays" -> "I see Dr. Lin on
    Wednesdays"), and the speaker who stands for its "I", if one is named."""
    if person:
        sentence = pats.pronoun.sub(lambda m: person + _PRONOUN_VERB[m.group("c")], sentence, 1)
        sentence = pats.possessive.sub(person + "'s ", sentence, 1)
        if objects and (_I_OPENS.match(sentence) or _RULE_OPENS.match(sentence)):
            sentence = _OBJECT.sub(person, sentence, 1)  # what is done with them
    sentence = pats.reported.sub(
        lambda m: m.group("who") + _PRONOUN_VERB[m.group("c")], sentence, 1
    )
    found = pats.role_said.match(sentence)
    if found:  # "The plumber said the drain line is cast iron": what was found
        rest = found.group("rest")
        sentence = rest[:1].upper() + rest[1:]
    quoted = pats.speaker.match(sentence)
    if quoted:
        who = quoted.group("who") or quoted.group("who2") or quoted.group("who3")
        rest = quoted.group("rest") or quoted.group("rest2") or quoted.group("rest3")
        if who.split()[0].lower() not in pats.not_names and re.match(
            r"(?:I|We|My|Our|I['’]m|I['’]ve|We['’]re)\b", rest
        ):
            return rest.strip().rstrip('”"'), who
    return sentence, None


_OF_A_LIFE = (Category.MILESTONE,)
_WITH_ME = re.compile(rulebook.NAME + r"\s+and\s+(?:I|me|my)\b")
_FOR_HOURS = re.compile(r"\buntil\s+\d|\b(?:today|tonight|for\s+now|right\s+now)\b", re.I)
# a log line's thing without its article: "Backyard floodlight is out"
_BARE_THING = re.compile(r"[A-Z][a-z]{1,20}(?:\s[a-z][a-z-]{1,20}){0,3}\s+(?:is|are|was|were)\s")


def _with_article(sentence: str, pats: rulebook.Patterns) -> str:
    """A note's thing with the article a log line left out, when what follows is a state
    of it ("Backyard floodlight is out" -> "The backyard floodlight is out"); any other
    sentence as it is ("Trash day is Thursday")."""
    if (
        not _BARE_THING.match(sentence)
        or sentence.split(" ", 1)[0].lower() not in pats.house_things
    ):
        return sentence  # "Maya soccer is cancelled": a name's, not a thing of the house
    if _FOR_HOURS.search(sentence):
        return sentence  # "Water to the upstairs is off until 16:00": for the day only
    said = f"The {sentence[:1].lower()}{sentence[1:]}"
    return said if pats.status_is.match(said) else sentence


_RULE_OPENS = re.compile(r"(?:Please\s+)?(?:Always|Never|Don['’]t|Do\s+not)\s")
# after "my <role> is named X": "and she is 7", "and loves horses" go on about X
_AND_SHE = re.compile(r"^\s*,?\s*(?:and\s+(?:(?:she|he)\s+|(?=[a-z]+s\b))|(?:she|he)\s+(?=[a-z]))")
_MY_OUR = re.compile(r"\b(?:[Mm]y|[Oo]ur)\s")
# "him"/"her" as the one something is done to, not "her car": before a preposition or a
# time, or at the end
_OBJECT = re.compile(
    r"(?<=[a-z]\s)(?:him|her)(?=\s+(?:on|at|in|every|each|twice|once|about|for|with|to|from"
    r"|when|after|before|because|weekly|monthly|daily)\b|\s*[.,!?;]|$)"
)
_SHE_OPENS = re.compile(r"^(?:she|he)(?P<s>['’]s)?\b", re.IGNORECASE)  # "she takes…": Lina
_IS_AGE = re.compile(r"\s+is\s+\d{1,3}(?:\s+(?:years?|months?)\s+old)?\s*[.!]?$")
_SHE_IS = re.compile(r"^\s*(?:,\s*|and\s+)?(?:she|he)['’]s\b")  # "…, he's 78": " is 78"


def _parts(
    sentence: str, category: Category, on: dt.date, *, explicit: bool = False, said: bool = False
) -> list[tuple[str, Category]]:
    """The facts one sentence makes: an appositive relationship is a fact of its own ("My
    sister Clara lives in Boston" -> "Clara is my sister.", "Clara lives in Boston."). What
    a person asked to remember is kept even when it is a one-off ("Remember that my sister
    Ana lands on Friday": "Ana lands on Friday." too), and so is what a speaker tells of
    themselves (`said`: "I live in Denver with my wife Carla": "I live in Denver with
    Carla.")."""
    pats = rulebook.patterns()
    rel = pats.rel_my.search(sentence) if category is Category.RELATIONSHIP else None
    if rel is None:
        return [(part, category) for part in _clauses(sentence, category)]
    name, owner = rel.group("x"), rel.group("pos")
    owner = owner.lower() if owner.lower() in ("my", "our", "the") else owner
    parts = [(f"{name} is {owner} {rel.group('y')}.", Category.RELATIONSHIP)]
    tail = re.sub(r"^\s*,(?=\s)", "", sentence[rel.end() :])  # "Zoe's mom, Hannah, drives"
    lead = sentence[: rel.start()]
    of_them = _AND_SHE.match(tail) or _SHE_IS.match(tail)
    if of_them and lead.strip():  # "…near a park because of my dog, Pickle, she's a collie":
        lead = ""  # what is said of them stands alone; what led up to it is another thought
    tail = _AND_SHE.sub(" ", tail, 1)  # "My daughter is named Maya and she is 7"
    tail = _SHE_IS.sub(" is", tail, 1)  # "My dad is named Raymond, he's 78"
    rest = (lead + name + tail).strip()
    rest = rest[:1].upper() + rest[1:]
    if _IS_AGE.match(rest, len(name)):  # "My daughter is named Maya and she is 7"
        return [*parts, (rest.rstrip(".!") + ".", Category.CONTEXT)]
    enough = rulebook.word_count(rest) > len(name.split()) + (0 if explicit else 1)
    if enough and (passes_gate(rest) or (explicit and pats.verb.search(rest))):
        for clause in clauses.and_clauses(rest, loose=True):  # "Nadia lives in Denver and is…"
            clause = _SHE_OPENS.sub(lambda m: name + (" is" if m["s"] else ""), clause, 1)
            ruled = classify.category_of(clause, on)
            if ruled:  # "Zoe is sleeping over Friday": a one-off, no fact
                parts.append((clause, ruled[0]))
            elif explicit or (said and turns.disclosure(clause)):  # "I live in Denver with…"
                parts.append((clause, Category.CONTEXT))
    return parts


def _clauses(sentence: str, category: Category) -> list[str]:
    """A preference of two verbs on one subject made two: "Jordan hates cilantro and
    loves lemon" -> "Jordan hates cilantro.", "Jordan loves lemon."."""
    if category is not Category.PREFERENCE:
        return [sentence]
    pats = rulebook.patterns()
    head = pats.preference.match(sentence)
    if head is None:
        return [sentence]
    split = pats.and_preference.search(sentence, head.end())
    if split is None:
        return [sentence]
    if head.group("verb").endswith("s") and not split.group("verb").endswith("s"):
        return [sentence]  # "loves the self-acceptance and love theme": a noun, not a verb
    first = sentence[: split.start()].rstrip(" ,")
    second = head.group("subj") + " " + sentence[split.start("verb") :]
    return [first, second]


def _track(sentence: str, match: re.Match[str], entry: model.Entry) -> model.Candidate:
    what = match.group("what").strip()
    bare = re.sub(r"^(?:the|our|my)\s+", "", what, flags=re.IGNORECASE)
    named = re.match(rulebook.NAME, bare)  # "Maya's chess tournaments", "the Prius brakes"
    entity = subjects.clean_name(named.group(0)) if named else bare.lower()
    fact = first_person.standalone(f"The user asked to keep track of {what}", None)
    pats = rulebook.patterns()
    return model.Candidate(
        fact=fact,
        category=Category.CONTEXT,
        entry=entry,
        entity=entity,
        related=subjects.related(sentence, entity, pats),
        track=True,
    )


# -- the standalone sentence ---------------------------------------------------------------

_PRONOUN_VERB = {None: " ", "'d": " would ", "’d": " would ", "'s": " is ", "’s": " is ",
                 "'ll": " will ", "’ll": " will "}  # fmt: skip
# -- the extractor -------------------------------------------------------------------------


class RuleExtractor:
    """The default extractor: `candidates` over each entry (implements model.Extractor)."""

    name = "rules"

    def extract(self, entries: list[model.Entry]) -> model.Extraction:
        """Never fails an entry: a rule that trips on odd text skips that entry's rest."""
        extraction = model.Extraction()
        threads, known = kin_told.Threads(), kin_told.KnownNames()
        for entry in entries:
            text = known.recased(entry.text)  # "sam is vegan", Sam met before: a name
            read = entry if text == entry.text else entry.model_copy(update={"text": text})
            try:  # "My dad has Alzheimer's." / "His name is Raymond.": read on
                made = candidates(read, threads.of(read))
            except (ValueError, OverflowError, RecursionError):
                threads.drop(read)  # nothing durable in text the rules cannot read
                continue
            known.learn(made)
            if read is not entry:  # what is cited is the entry as written
                made = [dataclasses.replace(c, entry=entry) for c in made]
            extraction.candidates.extend(made)
        return extraction
