"""How the rules read a turn of a conversation: who speaks, and which of its sentences
tell something of the speaker.

A turn is an entry with a speaker prefix (`speaking`): "User: …", "**Maya**: …", a chat
turn as `record_interaction` writes it, a LoCoMo turn "**Melanie** (D14:4): …". In a
turn "I" is its speaker, and people speak as they do, not as a note is written. Once
the opening interjection is gone ("Yeah, ", "Since we last spoke, ": `rulebook`), a
sentence of a turn is read in steps, each undoing one habit of talk:

    opening      a lead clause that only announces what follows is skipped ("Something
                 awesome happened - I'm writing articles…", "Woah Joanna, I won…", and
                 a longer one that says where the talk left off, "So much has happened
                 since we last spoke - I went…", read from the "I"; never a request to
                 remember, "Remember - I'm…"), an "I"
                 left out is put back ("Just been helping some friends…", "Gonna
                 volunteer at shelters next month": `_SUBJECTLESS` lists the verbs), and
                 an event told before how it feels since is read alone ("Since I lost my
                 job at Door Dash, things have been tough": `_SINCE`)
    (asides)     what is said besides the fact is cut (`asides`: an opinion, a feeling,
                 a word to the other person after it, the other's name)
    disclosure   whether what is left is the speaker's own: it opens with the first
                 person, maybe after a time or a short lead ("Last week I…", "Besides
                 writing, I…"), or its subject is an activity and it holds "me"/"my"
                 ("Painting landscapes is my favorite", "Losing my job gave me the push");
                 long enough, needing no other turn, no feeling or need of the moment

A liking ("I love …", which the preference rule reads) must say what it likes too: one
of what another turn showed ("I love seeing them soak up the sun", "I love how it shows
the togetherness", "I love to!") is no fact (`points_around`).

The rules (`rules`) apply `opening` and `disclosure` to a turn's sentences only, and
`pointing` besides (what a sentence only points at: "this genre", "I had a blast there");
a note's sentence loses only an opinion, a reaction or a feeling after its fact, as before.

What a turn hands the assistant to work on is no one's disclosure (`without_material`):
after "Translate this to French:", "Fix the grammar please:", "Summarize this article for
me: …", or a first paragraph such as "Here is my essay, can you proofread it?", the rest
is the text to translate, fix or read, and "I love my cat" in it is not the user's
("I has been working at Acme since 2019" less so); a fenced block (code, a log) and a
quoted line ("> …") are material wherever they are.

A note an assistant saved to its memory of the user (a `memory` turn: ChatGPT's memory
notes, "User's sister Ana lives in Porto.", "Is vegetarian.") is what the user told it to
keep, or let it, and a `profile` turn what they wrote about themselves for it (ChatGPT's
custom instructions, "My name is Elin."): each sentence is read as the user's own
request to remember, in the first person (`as_told`: "My sister Ana lives in Porto.", "I
am vegetarian."), so the rules make of it what they make of the user saying so, and
keep it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vault_app.heartbeat import readings, rulebook

MIN_DISCLOSURE = 6  # words: "I went there." tells too little without the turns around it
MAX_LEAD = 6  # words
MAX_CATCH_UP = 12  # words of a lead that says where the conversation left off
# a lead about the time since the last talk, longer than most: "So much has happened
# since we last spoke - I went…", "Things have been great since we last talked - I've…"
_CATCH_UP = re.compile(
    r"\bsince\s+(?:(?:we|I)\s+(?:last\s+)?(?:talked|spoke|chatted|caught\s+up)|"
    r"(?:our|the)\s+last\s+(?:chat|talk)|last\s+time)\b",
    re.IGNORECASE,
)
# where a lead clause ends: "Guess what - I…", "Something awesome happened: I…", "Woah
# Joanna, I…" (a comma only before the first person)
_LEAD = re.compile(
    r"\s+[-–—]\s+|\s*(?:--|—)\s*|:\s+|,\s+(?=I\b|I['’]|My\b|We\b)"
    r"|(?<=[a-z])-\s+(?=(?:I|I['’]\w+|my|we|We)\s)"  # "they're good- we got another cat"
)
# what it took before the "I" who did it: "Took some trial and error but I…", "It took a
# while, but I…"
_TOOK = re.compile(
    r"(?:It\s+)?took\s+[^,.;:!?]{1,30}?,?\s+(?:but|and)\s+(?=I\b|I['’])", re.IGNORECASE
)
# the other's advice, taken, before what the speaker did: "I took your recommendation and
# watched "The Lord of the Rings" last night" (what they did is the fact)
_ADVISED = re.compile(
    r"^I\s+(?:finally\s+)?(?:took|followed|tried)\s+your\s+(?:\w+\s+)?(?:rec+om+endations?"
    r"|advice|suggestions?|tips?)\s+and\s+(?:finally\s+)?(?=[a-z])",
    re.IGNORECASE,
)
# a lead that says it is news for the other: "I wanted to tell ya I just joined a
# writers group", "Just wanted to let you know that I got the job", "I just wanted to say
# the boiler was serviced on Monday", "I wanted to remind you that Leo's recital is on
# May 3" (then what it tells, opening with whom or what it is about: not "I wanted to
# say thanks", "I wanted to tell you how much…")
_TELL_YOU = re.compile(
    r"^(?:I\s+)?(?:just\s+|really\s+)?(?:wanted|want|have|had|gotta|got)\s+to\s+"
    r"(?:(?:tell|let|remind)\s+(?:you|ya)(?:\s+know)?|say|mention)(?:\s+that)?,?\s+"
    r"(?=(?:I|I['’]\w+|my|we|our|the|his|her|their|(?-i:[A-Z][a-z]+['’]s))\s)",
    re.IGNORECASE,
)
# a sentence that leaves its "I" out: the verbs it then opens with ("been" only before
# what it did, not "Been a long week", which leaves out "It's"; "gonna" not before "be")
_SUBJECTLESS = re.compile(
    r"^(?:(?:just|also|finally|recently|still|now)\s+)?(?P<verb>been(?=\s+(?:[a-z]+ly\s+)?"
    r"(?:[a-z]+ing|to|busy|only)\b)|gonna(?!\s+be\b)|got|went|"
    r"started(?!\s+(?:when|as|at|in|out|back|again|over|with|after|before|young)\b)|"
    r"finished|tried|bought|made|"
    # "Took some trial and error but I figured…", "Took a while": what it took, no "I"
    r"took(?!\s+(?:(?:some|a\s+lot\s+of|a\s+bit\s+of|a\s+little|lots\s+of|so\s+much|ages"
    r"|forever|a\s+while|a\s+few|hours|days|weeks|months|years)\b|time\b))|signed|joined|visited|spent|picked|adopted|found|"
    r"learned|decided|had|lost|won|met|moved|graduated|completed|quit|landed|scored|passed|"
    r"wrote|ran|planning|thinking|working|heading)\b",
    re.IGNORECASE,
)


# what a liking points at when the turns around it say what it is: "them" in its first
# clause ("I love seeing them soak in the sun"; not "I love sci-fi movies, they're a great
# escape", where "they" is the movies), "'em", "how it", or no object at all ("I love to!")
_POINTS_AROUND = re.compile(
    r"['’]em\b|\bhow\s+(?:\w+\s+)?(?:it|they)\b|\sto\W*$", re.IGNORECASE
)  # "how it looks", "how uncomplicated it is": what "it" is, another turn says
_FIRST_CLAUSE = re.compile(r"[,;:]|\s[-–—]\s|\s--\s")

# "Since I lost my job at Door Dash, things have been tough": the clause tells an event
_SINCE = re.compile(
    r"^(?:(?:especially|ever|just)\s+)?(?:since|after|ever\s+since)\s+"
    r"(?P<what>(?:I|I['’](?:ve|d)|we|We|my|My)\s[^,]{10,200}),\s+\S",
    re.IGNORECASE,
)


# a turn's sentence that opens by asking the other to do something ("Draft a letter to my
# son's school…", "Write me a poem", "Please suggest some names") or advising them
_ASKS = re.compile(
    r"^(?:please\s+)?(?:draft|write|create|make|give|help|tell|show|list|suggest|generate|"
    r"compose|recommend|plan|build|design|describe|explain|translate|summari[sz]e|rewrite|"
    r"proofread|improve|edit|review|brainstorm|outline|act\s+as|pretend)\b(?!\s+(?:it|sure)\b)"
    # advice to the other: "I recommend finding a fantasy series", "I'd suggest…"
    r"|^I(?:\s+(?:would|really|highly|definitely|strongly)|['’]d)?\s+(?:recommend|reccomend|"
    r"suggest|advise)\b",
    re.IGNORECASE,
)
# what should or would be, not what is: a proposal ("We should plan a dance session
# soon!", "Let's explore some new moves", "I really should start doing that"), a wish or
# a counterfactual ("I would get two turtles if I could!", "I wish I wasn't allergic")
_SUPPOSES = re.compile(
    r"^(?:so\s+|maybe\s+|then\s+)?(?:we|I)\s+(?:really\s+|definitely\s+|totally\s+)?should\b"
    r"|^let['’]?s\b|^(?:I|we)\s+(?:just\s+|really\s+)?wish\s+(?!to\b)"
    r"|\bif\s+(?:only\b|I\s+could\b|we\s+could\b)",
    re.IGNORECASE,
)
# a standing instruction: "Always use metric units", "Please never call before 9", "Don't
# ever book aisle seats", "Do not ever share my address"
_STANDING = re.compile(
    r"^(?:please\s*,?\s+)?(?P<rule>(?:always|never|(?:don['’]t|do\s+not)\s+ever)\s+[a-z]+\b.*"
    # how to serve, not "Don't worry": "Don't schedule anything on Sunday mornings"
    r"|(?:don['’]t|do\s+not)\s+(?:schedule|book|call|text|email|send|share|order|buy|use|add"
    r"|put|plan|wake|disturb|ring|message|contact|give|serve|cook|suggest|recommend|pay"
    r"|charge|spend|transfer|sign|approve|renew|cancel|accept|leave|let|open)\b.*"
    r"|stop\s+(?:ordering|buying|booking|scheduling|sending|adding|getting|using|paying"
    r"|renewing|calling|texting|emailing)\b.*"  # "Stop ordering the almond milk"
    # a rule the writer set themselves: "Cutting back on coffee, max 2 cups a day from now on"
    r"|(?=[^?]*\bfrom\s+now\s+on\b)(?![^?]*\b(?:you|your)\b)[a-z][^?]{12,}"
    # a house rule told as a ban: "No screens after 8pm on school nights" (not "No problem
    # at all", "No worries on that"; nor one whose "her" the sentence before names)
    r"|no\s+(?![^.!?]*\b(?:his|her|their|its|him|them|this|that)\b)"
    r"(?!(?:problem|problems|worries|worry|way|idea|clue|doubt|rush|pressure|luck|one"
    r"|thanks|need|time|matter|chance|longer|more|less)\b)(?:[a-z-]{2,20}\s+){0,2}?[a-z-]{3,20}"
    r"\s+(?:after|before|past|until|at|on|in|during)\s+(?:the\s+)?[a-z0-9]\S*.*)",
    re.IGNORECASE,
)
# a short disclosure that ends on a placeholder for what it is about ("I did something
# new that had an impact on me", "I'm always down for something new", "I'll keep trying
# new things"): what it was is in the sentences after it, the sentence alone says nothing
MAX_VAGUE = 12
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")  # a year, a time, an amount: a word of what it tells
# a name after the first word ("I watched Little Women", "I was in Chicago"): says what
_NAMED = re.compile(r"(?<=\s)(?!I\b)" + rulebook.CAP_LOW + r"+")
_VAGUE = re.compile(
    r"\b(?:something|anything|stuff|(?:some\s+)?(?:big\s+)?(?:new\s+)?things)(?:\s+(?:new|good|"
    r"great|special|similar|else|cool|fun|nice|exciting|interesting|amazing|awesome))?"
    r"(?:\s+(?:that|which)\s[^,;.!?-]{0,60})?"
    # "- pretty wild journey!": a word on it, not what it was ("- I gave a presentation")
    r"(?:\s+[-–—]\s+(?![^.!?]*\b(?:I|my|we|our|he|she|they)\b)[^.!?]{0,40})?\s*[.!]*$",
    re.IGNORECASE,
)
_ME = re.compile(r"\b(?:me|myself)\b")  # an object "me": the one it does something to
# a need of the moment: "I need a recipe for dinner tonight", "I want a quick answer now"
_NEED_NOW = re.compile(
    r"\b(?:need|want|looking\s+for)\b[^.;]{0,80}?\b(?:tonight|today|right\s+now|asap|"
    r"this\s+(?:morning|afternoon|evening))\b"
    # or help asked of the one spoken to: "I need help writing a cover letter"
    r"|^I\s+(?:really\s+|just\s+)?(?:need|want|could\s+use|would\s+like|['’]d\s+like)\s+"
    r"(?:some\s+|a\s+little\s+|your\s+)?(?:help|advice|ideas|suggestions|tips|recommendations)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Turn:
    """An entry read as a turn of a conversation: who speaks, and what they say."""

    text: str  # the entry without its speaker prefix
    speaker: str | None  # the name "I" stands for; None: the user (or no prefix)
    assistant: bool = False  # the assistant speaks: its words are no fact about the user
    said: bool = False  # a speaker prefix was read: a turn of a conversation
    to_assistant: bool = False  # a user's turn ("User:", "**user**"): what they ask of it
    saved: bool = False  # an assistant's memory note of the user: kept, as asked (`as_told`)


def speaking(text: str) -> Turn:
    """The entry's speaker prefix read and removed: "User: …", "**Maya**: …", a chat turn
    as `record_interaction` writes it ("**user** (Jane, chat 42): …"), a LoCoMo turn
    ("**Melanie** (D14:4): …"). A user's turn names the user (or the person the turn
    gives); an assistant's is marked; a named speaker is who "I" is."""
    match = rulebook.patterns().turn.match(text)
    if match is None:
        return Turn(text, None)
    who = (match.group("bold") or match.group("role") or "").strip()
    rest = text[match.end() :]
    role = who.lower()
    if role in rulebook.ASSISTANT_ROLES:
        return Turn(rest, None, assistant=True)
    if role in rulebook.MEMORY_ROLES:
        return Turn(rest, None, saved=True)
    if role in rulebook.USER_ROLES:
        detail = (match.group("detail") or "").split(",")[0].strip()
        named = (
            detail if re.fullmatch(rulebook.NAME, detail) and not detail.startswith("D") else None
        )
        return Turn(rest, named, said=True, to_assistant=True)
    if not re.fullmatch(rulebook.NAME, who) or role in rulebook.patterns().not_names:
        return Turn(text, None)  # "**Note**: …" is no speaker
    return Turn(rest, who, said=True)


def asks(sentence: str) -> bool:
    """Whether a turn's sentence asks the other to do something ("Draft a letter to my
    son's school saying he'll miss class on Friday"): a request, no fact, even when what
    it asks for tells one; or proposes or wishes rather than tells (`_SUPPOSES`)."""
    return _ASKS.match(sentence) is not None or _SUPPOSES.search(sentence) is not None


# a named person's word in an agent's notes: "Per Alex: don't pay anything by card",
# "Jordan asked me to stop ordering the almond milk"
_PER = re.compile(
    r"^(?:Per\s+(?P<who>" + rulebook.NAME + r")\s*[:,]|(?P<asker>" + rulebook.NAME + r")\s+"
    r"(?:asked|told|wants|reminded)\s+(?:me|us)\s+to)\s+(?P<rest>\S.*)$"
)


def per_someone(sentence: str) -> tuple[str, str] | None:
    """(who, what they said) of "Per Alex: don't pay anything by card over $1,000"; None
    for any other sentence ("Per user:" is an interjection, read before)."""
    told = _PER.match(sentence)
    if told is None:
        return None
    who = told["who"] or told["asker"]
    if who.lower() in rulebook.patterns().not_names:
        return None
    return who, told["rest"]


def standing(sentence: str) -> str | None:
    """The rule a standing instruction gives, as given ("Please always use metric units"
    -> "Always use metric units."; "Don't ever call me before 9"), or None: how the person
    wants to be served, for good. Not a question, not a fragment."""
    match = _STANDING.match(sentence)
    if match is None or sentence.rstrip().endswith("?"):
        return None
    rule = match.group("rule").rstrip()
    if rulebook.word_count(rule) < rulebook.MIN_WORDS:
        return None
    return rule[:1].upper() + rule[1:]


def opening(sentence: str) -> str:
    """A turn's sentence read from where it starts to tell: after a lead clause that
    only announces it, with an "I" that was left out put back. A request to remember
    ("Remember, I'm allergic to penicillin") is no lead: it stays for the rules to read."""
    pats = rulebook.patterns()
    if pats.remember.match(sentence):
        return sentence
    told = _SINCE.match(sentence)
    if told:  # what happened, before how it feels since
        return told.group("what").rstrip() + "."
    return _with_subject(_after_lead(sentence, pats))


def _after_lead(sentence: str, pats: rulebook.Patterns) -> str:
    """The sentence from the first person after a lead clause that only announces it:
    "Something awesome happened - I'm writing articles…", "Gina, you won't believe it -
    I got mentored…" read from the "I"; what the other advised goes ("I took your
    recommendation and watched …": "I watched …"), and so does saying it is news for them
    ("I wanted to tell ya I just joined a writers group": "I just joined …"; "I just wanted
    to say the boiler was serviced on Monday": "The boiler was serviced …")."""
    advised = _ADVISED.match(sentence)  # "I took your recommendation and watched …"
    if advised:
        return "I " + sentence[advised.end() :]
    told = _TELL_YOU.match(sentence)  # "I wanted to tell ya I just joined …"
    if told:
        return sentence[told.end() :][:1].upper() + sentence[told.end() :][1:]
    if pats.disclosure.match(sentence):
        return sentence
    took = _TOOK.match(sentence)  # "Took some trial and error but I figured out…"
    if took and pats.disclosure.match(sentence[took.end() :]):
        return sentence[took.end() :]
    lead = _LEAD.search(sentence)
    if lead is None:
        return sentence
    words = rulebook.word_count(sentence[: lead.start()])
    if words > MAX_LEAD and not (
        words <= MAX_CATCH_UP and _CATCH_UP.search(sentence, 0, lead.start())
    ):
        return sentence
    if lead.group().startswith(",") and pats.pointed.match(sentence):
        return sentence  # "It's Seattle, I'm stoked for my game there": the lead is the news
    rest = sentence[lead.end() :]
    return rest if pats.disclosure.match(rest) else sentence


def _with_subject(sentence: str) -> str:
    """A sentence that leaves its "I" out ("Just been helping some friends…", "Gonna
    volunteer at shelters next month") with it put back; never before an activity that
    is the subject ("Thinking about the possibilities pumps me up": the "me" after it)."""
    m = _SUBJECTLESS.match(sentence)
    if m is None or _ME.search(sentence, m.end()):
        return sentence
    verb = m.group("verb").lower()
    rest = sentence[:1].lower() + sentence[1:]
    if verb == "gonna":
        return "I'm " + rest.replace("gonna", "going to", 1)
    if verb == "been":
        return "I've " + rest
    if verb in ("planning", "thinking", "working", "heading"):
        return "I'm " + rest
    return "I " + rest


def points_around(sentence: str) -> bool:
    """Whether a turn's liking points at what the turns around it show or said: "them",
    "those", "her"… in its first clause, "'em", "how it", a "to" with nothing after it, or
    an "it"/"that" it ends on ("I want my kids to learn that"). "I love sci-fi movies,
    they're a great escape" says what it likes."""
    first = _FIRST_CLAUSE.split(sentence, 1)[0]
    pats = rulebook.patterns()
    return bool(
        pats.pointer.search(first)
        or _POINTS_AROUND.search(sentence)
        or pats.pronoun_end.search(sentence)  # "I want my kids to learn that"
        or pats.object_back.search(sentence)  # "I never want to go through this again"
    )


# a word on what the other showed: "That looks really good!", "that photo's amazing!"
_SHOWN_TO_ME = re.compile(
    r"\b(?:looks?|looked|photo['’]?s?|pics?|picture['’]?s?|so\s+cute|gorgeous)\b", re.IGNORECASE
)
_LIKING_THE = re.compile(r"\bI\s+(?:really\s+)?(?:love|like|adore)\s+(?:all\s+)?(?:the|how)\b")


def likes_what_was_shown(turn: str, sentence: str) -> bool:
    """Whether a turn's liking of "the …" follows its word on what the other showed ("That
    looks really good! I love the way the frosting turned out!"): the liking is of that
    picture or dish, no preference of the speaker's."""
    liking = _LIKING_THE.match(sentence)
    at = turn.find(sentence[:40]) if liking else -1
    return at > 0 and _SHOWN_TO_ME.search(turn, 0, at) is not None


def disclosure(sentence: str) -> bool:
    """Whether a turn's sentence tells something of its speaker worth keeping: it opens
    with the first person ("I signed up for a pottery class", "My kids are spending the
    summer with their grandparents", "We're going camping next month"), maybe after a
    time or a short lead ("Last week I scored 40 points", "Apart from meetings, I'm
    working on a project"), or its subject is an activity and "me"/"my" is in it
    ("Painting landscapes and still life is my favorite"); it says so in at least
    `MIN_DISCLOSURE` words (fewer when it says what one is: "I'm vegetarian", "I live
    in Lisbon"; a number or a name counts twice: "I watched Little Women recently"),
    says what it is about (not "I did something new"), needs no other turn to be
    understood (no "them", "her", no "it" done or at its end: "I painted it", "I made it
    in class") and is no feeling or wish of the moment ("I'm so grateful", "I'd love to",
    "I agree", "I need a recipe for dinner tonight", "I need help writing a cover
    letter"). The gate has passed it already."""
    pats = rulebook.patterns()
    if pats.disclosure.match(sentence) is None and pats.about_me.match(sentence) is None:
        return False
    told = rulebook.word_count(sentence) + len(_NUMBER.findall(sentence))  # "in 2019" too
    told += len(_NAMED.findall(sentence))
    if told < MIN_DISCLOSURE and not pats.identity.search(sentence):
        return False  # few words: enough only for what one is ("I'm allergic to cats")
    if pats.pointer.search(sentence) or pats.pronoun_end.search(sentence):
        return False
    if pats.object_back.search(sentence):
        return False  # "I put so much into this and…": what "this" is, another turn says
    if pats.early_it.match(sentence):
        return False
    if _NEED_NOW.search(sentence):
        return False  # "I need a recipe for dinner tonight": what is asked for, not who
    if rulebook.word_count(sentence) <= MAX_VAGUE and _VAGUE.search(sentence):
        return False  # "I did something new", "I've heard great things": what, the next says
    return pats.moment.search(sentence) is None


# the user as a memory note names them: "User", "The user", "The user's", "User's"
_NOTED_USER = re.compile(r"^(?:the\s+)?user(?P<own>['’]s)?\b\s*", re.IGNORECASE)
# a memory note's verb, with or without its subject: "prefers", "is", "often travels"
_NOTED_VERB = re.compile(
    r"^(?P<adverb>(?:(?:often|usually|always|never|sometimes|also|currently|recently|"
    r"still|now|mostly|rarely|regularly|generally|frequently)\s+)?)(?P<verb>[A-Za-z]+)\b"
)
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "isn't": "am not",
              "doesn't": "don't", "hasn't": "haven't", "wasn't": "wasn't"}  # fmt: skip
_SUBJECTLESS_NOTE = frozenset({
    "is", "has", "was", "does", "prefers", "likes", "loves", "enjoys", "hates", "dislikes",
    "lives", "works", "wants", "plans", "uses", "owns", "needs", "studies", "speaks",
    "drives", "runs", "plays", "follows", "avoids", "eats", "drinks", "keeps", "goes",
    "attends", "teaches", "writes", "reads", "cooks", "travels", "values", "finds",
    "struggles", "tends", "intends", "recently", "often", "usually", "always", "never",
    "currently", "also", "sometimes",
})  # fmt: skip


# the writer's own "I" in a note: what they found out is the fact ("I noticed the
# dehumidifier is full again", "I told Alex the roof quote expires on December 15", "I
# confirmed with Rosa that she can come on Thursdays"); what an agent did, a log line ("I
# booked the plumber for Tuesday" as "Booked the plumber for Tuesday")
_NAMED_ONE = r"[A-Z][\w.'’-]*(?:\s[A-Z][\w.'’-]*)?"
_AGENT_FOUND = re.compile(
    r"^I\s+(?:just\s+|also\s+)?(?:noticed|learned|learnt|found\s+out|heard|realized|realised"
    r"|discovered|verified|checked|was\s+told|confirmed(?:\s+with\s+(?P<with>" + _NAMED_ONE + r"))?"
    r"|told\s+(?:" + _NAMED_ONE + r")|updated\s+(?:the\s+)?[a-z]+(?:\s[a-z]+)?(?=\s*:))"
    r"(?:\s*[:,]\s*|\s+that\s+|\s+(?=(?:the|a|an|our|my|his|her|their|[A-Z])\b))"
    r"(?P<rest>\S.{6,})$"
)
_AGENT_DID = re.compile(
    r"^I\s+(?:just\s+|also\s+)?(?=(?:booked|called|paid|scheduled|ordered|emailed|texted"
    r"|messaged|cancell?ed|canceled|renewed|replaced|fixed|set\s+up|signed|sent|bought"
    r"|rescheduled|moved|filed|submitted|returned|picked\s+up|dropped\s+off|hired)\b)"
)
_ONE_OPENS = re.compile(r"(?:she|he|they)\b", re.IGNORECASE)
# what a person's own note tells of their body with no "I": "Weighed in at 182 lbs this
# morning", "Starting atorvastatin 10mg"
_OWN_BODY = re.compile(
    r"^(?P<verb>Weighed\s+in\s+at|Starting(?:\s+on)?)\s+(?=\d|[\w-]{3,30}\s+" + readings.DOSE + ")"
)


def first_hand(sentence: str, *, agent: bool) -> str:
    """The first person of a note with no speaker, read for the fact: what the writer
    found out, told or had confirmed is that ("I noticed the dehumidifier is full again"
    -> "The dehumidifier is full again"; "I confirmed with Rosa that she can come on
    Thursdays" -> "Rosa can come on Thursdays"), as "Learned:" is read; and in an
    `agent`'s notes, where "I" is the agent, what it did is a log line with no subject ("I
    booked the plumber for Tuesday" -> "Booked the plumber for Tuesday", not "The user
    booked…"). Any other sentence comes back unchanged."""
    found = _AGENT_FOUND.match(sentence)
    if found is not None:
        rest = found["rest"]
        if found["with"] and (one := _ONE_OPENS.match(rest)):
            rest = found["with"] + rest[one.end() :]  # "with Rosa that she can…"
        return rest[:1].upper() + rest[1:]
    did = _AGENT_DID.match(sentence) if agent else None
    if did is not None:
        rest = sentence[did.end() :]
        return rest[:1].upper() + rest[1:]
    own = None if agent else _OWN_BODY.match(sentence)
    if own is not None:  # a person's own note: "Weighed in at 182 lbs" is theirs
        said = "I weighed in at" if own["verb"].startswith("W") else "I'm starting"
        return f"{said} {sentence[own.end() :]}"
    return sentence


def of_the_user(sentence: str) -> bool:
    """Whether a note's sentence opens on the user, named so ("User prefers texts",
    "The user's sister Ana lives in Porto"): an agent writing what the person is."""
    return _NOTED_USER.match(sentence) is not None


def as_told(sentence: str) -> str:
    """A memory note's sentence as the user would have told it: "User prefers Python for
    scripting." -> "I prefer Python for scripting.", "The user's sister Ana lives in
    Porto." -> "My sister Ana lives in Porto.", "Is vegetarian." -> "I am vegetarian."
    A sentence about someone else ("Ana's birthday is May 3.") is left as it is."""
    noted = _NOTED_USER.match(sentence)
    if noted and noted.group("own"):
        return "My " + sentence[noted.end() :]
    rest = sentence[noted.end() :] if noted else sentence
    verb = _NOTED_VERB.match(rest)
    if verb is None or (
        noted is None
        and (verb.group("adverb") + verb.group("verb")).split()[0].lower() not in _SUBJECTLESS_NOTE
    ):
        return sentence
    said = _first_person_verb(verb.group("verb"))
    return f"I {verb.group('adverb').lower()}{said}{rest[verb.end() :]}"


def _first_person_verb(verb: str) -> str:
    """ "prefers" -> "prefer", "studies" -> "study", "watches" -> "watch", "is" -> "am"."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return low  # "can", "will", "plays"… already as "I" says them: "User can swim"


# a request that hands the assistant material to work on ("Translate this to French:",
# "Fix the grammar please:", "Summarize this article for me:", "Reply to this email:")
_TASK = re.compile(
    r"\b(?:translate|fix|rewrite|re-?word|summari[sz]e|proof-?read|correct|improve|"
    r"paraphrase|edit|polish|check|review|shorten|expand|simplify|format|convert|"
    r"reply\s+to|respond\s+to|answer|analy[sz]e|critique|grade|tl;?dr)\b",
    re.IGNORECASE,
)
# the request opening the message: "Translate this…", "Can you proofread this:" (not "I need
# to fix this: the sink leaks", which tells of the person)
_TASK_LEAD = re.compile(
    r"\s*(?:(?:please|pls|can\s+you|could\s+you|would\s+you|will\s+you)\s+)?" + _TASK.pattern,
    re.IGNORECASE,
)
# … or says it hands it over ("Here is my essay", "the following", "this email")
_HANDED = re.compile(
    r"\b(?:here(?:['’]s|\s+is|\s+are)|below\s+is|the\s+following|this\s+(?:text|email|"
    r"message|article|paragraph|essay|letter|code|post|passage|story|poem|draft))\b",
    re.IGNORECASE,
)
_HANDING = re.compile(r"\s*(?:here(?:['’]s|\s+is|\s+are)|below\s+is)\b", re.IGNORECASE)
_FENCED = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_QUOTED = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
MAX_REQUEST = 240  # characters of a request before the material it hands over


def without_material(text: str) -> str:
    """A turn without the material it hands the assistant (the module doc): its fenced
    blocks and quoted lines, and what follows a request that hands text over — after
    the request's colon, or after its first paragraph."""
    text = _QUOTED.sub("", _FENCED.sub("", text))
    head = text.lstrip()[:MAX_REQUEST]
    if rulebook.patterns().remember.match(head):
        return text  # "Remember to check: …" hands nothing over: all of it is asked
    colon = head.find(":")
    if colon > 0 and "\n" not in head[:colon] and _TASK_LEAD.match(head, 0, colon):
        return head[:colon].rstrip() + "."  # "Translate this to French: I love my cat"
    paragraph = _PARAGRAPH.search(text)
    if paragraph and paragraph.start() <= MAX_REQUEST:
        first = text[: paragraph.start()]
        asks = first.rstrip().endswith(("?", ":"))  # a request, not a statement
        if (asks and (_TASK.search(first) or _HANDED.search(first))) or _HANDING.match(first):
            return first  # "Here is my essay, can you proofread it?" and the essay
    return text  # "I'll check the boiler tomorrow.\n\nMy sister Ana…": a new paragraph
