"""What a sentence says besides its fact, cut so the fact stands alone.

The gate (`rules.passes_gate`) refuses a sentence with an aside of the moment in it; the
fact before the aside is worth keeping, so the aside goes first:

    without_aside     a last clause that is an aside of the moment: an opinion ("I went
                      to a support group yesterday and it was so powerful"), a reaction,
                      a feeling, and in a turn a word to the other person ("…, here's
                      what I made") or a hedge that opens a thought of its own ("I made a
                      dairy-free cake the other day, maybe you would like that!"; not "I
                      got the job, I think", unsure of all of it); a request the fact is
                      the reason for ("…, so go easy on the cheese"), one to pass it on
                      ("…, tell any contractor"); in a turn a last "too" ("like you") and
                      the name of the one spoken to ("I've had some tough times with my
                      business, Jon": Jon is addressed, not the business's)
    without_when_you  "… when you suggest recipes", said to the one asked, is cut

`turns` reads whose the sentence is; this module only takes away.
"""

from __future__ import annotations

import re

from vault_app.heartbeat import rulebook

_CLAUSE = re.compile(r",?\s+(?:and|but)\s+|[,;]\s+|\s+[-–—]\s+")  # where a clause starts
# a request after the fact that is its reason: "…, so go easy on the cheese", "…, so
# please book the early slot", "…, so don't plan anything that day", "…, so no hill
# repeats please", "… so anything food related, flag nuts", "…, so pet friendly cabins
# please", "… so we're thinking somewhere drivable" (not "…, so no one came")
_SO_ASK = re.compile(
    r"\bso\s+(?:please\b|(?!(?:I|we|he|she|they)\b)[^,;.!?]{0,40}\bplease\b"
    # a ban it calls for: "… so no seafood on the menu" (not "so no one came")
    r"|no\s+(?!(?:one|body|longer|way|matter|problem|idea|need|doubt|wonder|surprise)\b)"
    r"[a-z]+\s+(?:on|in|at|for|near|around|with)\b"
    # what they are weighing because of it: "… so we're thinking somewhere drivable"
    r"|(?:we|I)['’](?:re|m)\s+(?:thinking|looking|considering|hoping|leaning)\b"
    # what it asks of the other's help: "… so meal plans need to work for both"
    r"|(?!(?:he|she|they|it|I|we|you)\b)(?:the\s+|any\s+|all\s+)?[a-z]+(?:\s+[a-z]+)?\s+"
    r"(?:need|needs|have|has|should|must)\s+to\b"
    r"|(?:(?:anything|everything|any|all|for)\b[^,;.!?]{0,40},\s*)?(?:go|skip|avoid|don['’]t"
    r"|do\s+not|make\s+sure|keep|use|leave|flag|mention|double-check|watch\s+out|"
    r"stop|check|plan|book|add|get|buy|order|adjust|cut|hold|remind|schedule|call|text)\b)",
    re.IGNORECASE,
)
# a request to pass it on, after the fact: "Jordan is allergic to latex, tell any
# contractor", "…, please let the school know"
_PASS_ON = re.compile(
    r"(?<=,\s)(?:so\s+)?(?:please\s+)?(?:tell|warn|inform|notify|let\s+\w+(?:\s+\w+)?\s+know)\b"
    r"[^,;.!?]*[.!]?$",
    re.IGNORECASE,
)
_TOO = re.compile(r",?\s+(?:too|as\s+well)(?=[.!]*$)", re.IGNORECASE)
# the one spoken to, named last: "…with my business, Jon." (after a word in lower case, so
# not "Paris, France"; not the name of one just spoken of: "we got another cat, Bailey")
_CALLED = re.compile(r"(?<=[a-z]),\s+(?P<name>[A-Z][a-z]{1,15})(?=[.!]*$)")
_NAMED_ONE = frozenset((
    "kitten", "pup", "turtle", "hamster", "bird", "parrot", "horse", "bunny", "rabbit", "baby",
    "boy", "girl", "guy", "named", "called",
))  # fmt: skip


def _without_called(sentence: str, roles: frozenset[str]) -> str:
    """The sentence without the name of the one spoken to at its end (`_CALLED`), unless
    the word before names what the name is of ("another cat, Bailey", "my son, Jake")."""
    called = _CALLED.search(sentence)
    if called is None:
        return sentence
    word = sentence[: called.start()].rsplit(None, 1)[-1].lower()  # a letter ends it
    if word in roles or word.rstrip("s") in roles or word in _NAMED_ONE:
        return sentence
    return sentence[: called.start()] + sentence[called.end("name") :]


# what the one asked does, after what one is: "… when you suggest recipes"
_WHEN_YOU = re.compile(
    r",?\s+(?:when|whenever|if|while|as)\s+you(?:['’]re|\s+are)?\s+[a-z][^,;.!?]{0,80}[.!]?$",
    re.IGNORECASE,
)


# a statement of what someone is or does (not an instruction, whose "when" is its point)
_TELLS = re.compile(
    r"(?:I\b|I['’]|My\b|Our\b|We\b|[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s+(?:is|are|has|have|likes"
    r"|loves|prefers|needs|hates|can['’]t|cannot|doesn['’]t|does\s+not|don['’]t)\b)"
)


def without_when_you(sentence: str) -> str:
    """A request's last clause of when the one asked does something, cut: what the person
    is stands without it ("Don't forget I'm lactose intolerant when you suggest recipes"
    -> "… I'm lactose intolerant."). Unchanged when too little would be left, or when the
    sentence is an instruction ("Always text me when you're running late")."""
    match = _WHEN_YOU.search(sentence)
    if match is None or not _TELLS.match(sentence):
        return sentence  # "Always text me when you're running late": the when is the rule
    kept = sentence[: match.start()].rstrip(" ,;-")
    if not (rulebook.enough_words(kept) and rulebook.patterns().verb.search(kept)):
        return sentence
    return kept + "."


def without_aside(sentence: str, said: bool = False) -> str:
    """The sentence without a last clause that is an aside of the moment, which the gate
    refuses and would refuse it whole with: an opinion ("I went to a support group
    yesterday and it was so powerful", `Patterns.opinion`), a reaction to the other
    person ("I love discovering new cities - check out this pic", `reaction`), a
    feeling ("I got the job, I'm so grateful", `moment`), and in a turn (`said`) a word
    to the other person or a hedge that opens a new thought ("…the other day, maybe
    you would like that!", `addressed`, `hedge`). What is left must have a verb and
    enough words; a sentence that is the aside ("Unconditional love is so important")
    stays as it is. A request the fact is the reason for goes too ("I'm lactose
    intolerant, so go easy on the cheese", `_SO_ASK`), and so does one to pass it on
    ("Jordan is allergic to latex, tell any contractor", `_PASS_ON`). A last clause that is only the
    hedge is unsure of all the sentence ("I got the job, I think"): nothing is cut. In a
    turn, a last "too" or "as well" is "like you": the fact stands without it ("Just got
    some new shoes, too!" -> "…some new shoes!"; `first_person` ends it with a stop), and
    a last name after a comma is the one spoken to ("I've had some tough times with my
    business, Jon." -> "…with my business."; `_CALLED`)."""
    pats = rulebook.patterns()
    if said:
        sentence = _TOO.sub("", sentence) or sentence
        sentence = _without_called(sentence, pats.roles)
    asides = (pats.opinion, pats.reaction, pats.moment) + (
        (pats.addressed, pats.offer) if said else ()
    )
    so = _SO_ASK.search(sentence)
    found = [m for m in (*(p.search(sentence) for p in (*asides, _PASS_ON)), so) if m]
    hedge = pats.hedge.search(sentence) if said else None
    if hedge:
        opens = [c.end() for c in _CLAUSE.finditer(sentence, 0, hedge.start())]
        clause = sentence[opens[-1] if opens else 0 :]
        if rulebook.word_count(clause) - rulebook.word_count(hedge.group()) >= 2:
            found.append(hedge)  # the hedge opens a thought of its own
    if not found:
        return sentence
    first = min(m.start() for m in found)
    cuts = [c.start() for c in _CLAUSE.finditer(sentence, 0, first)]
    if so is not None and so.start() == first:
        cuts.append(first)  # "… a nut allergy so anything food related, flag nuts"
    if not cuts:
        return sentence
    kept = sentence[: cuts[-1]].rstrip(" ,;-")
    return kept + "." if rulebook.enough_words(kept) and pats.verb.search(kept) else sentence
