"""The rules' patterns, compiled once from the word lists in `data/rules.toml`.

`rules` reads sentences with these; they live apart so the extractor's logic reads on
its own. Case matters in them: a name is a capitalised word, so no pattern that holds
`NAME` is compiled with re.IGNORECASE (it would take any four words for a name); the
case-blind parts are scoped with `(?i:...)`. Every quantifier is bounded and none is
nested, and `rules` caps a sentence's length before any of them runs.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from vault_app.core import daily
from vault_app.heartbeat.wordlists import alt, words

# a name's letters: Latin with its accents ("Tomás", "Zoë", "Søren", "Łukasz", "Renée")
UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽ"
LETTER = "a-zA-Zß-öø-ÿÀ-ÖØ-ÞĀ-ž"
CAP_LOW = "[" + UPPER + "][a-zß-öø-ÿĀ-ž]"  # a name's first letter, then its small ones
NAME = (
    r"(?:Dr\.\s|Mr\.\s|Mrs\.\s|Ms\.\s|St\.\s)?[" + UPPER + "][" + LETTER + r"’-]{0,30}"
    r"(?:\s[" + UPPER + "][" + LETTER + r"’-]{0,30}){0,3}"
)
_FUNCTION = "and|or|of|in|on|at|for|with|to|from|under|by|over|near|into|the|a|an|down|up|out"
# after a word in -s these make it a plural noun, not a verb: "Home repairs will need"
_AUX = "will|are|were|have|had|can|could|should|would|must|need|cost|go|come|do|don't"
_WEEKDAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# a word a whole-sentence verdict does not run over: the clause of its own it opens
_NOT_A_VERDICTS_OWN = r"(?:I|it|that|this|which|they|we|he|she|you)\b"
_MONTH = "January|February|March|April|May|June|July|August|September|October|November|December"
# a turn's speaker who is the user, the assistant, or a note it kept of the user
# ("**memory** (from ChatGPT: …): User prefers Python."): `core.daily` names them
USER_ROLES = daily.USER_ROLES
ASSISTANT_ROLES = daily.ASSISTANT_ROLES
MEMORY_ROLES = daily.MEMORY_ROLES
MIN_WORDS = 3  # a sentence's fewest words: fewer is a fragment
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
# an age reached: "turned 41", "turns eight", "turning forty-one" (what one is, in few words)
# "love" before a noun it makes ("the self-acceptance and love theme"): no second verb
LOVE_NOUN = r"(?!\s+(?:theme|story|song|letter|life|language|interest|affair|note|triangle)s?\b)"
# "I'm 41.", "Pat is 64.", "He's 64 now.": an age, no fragment
_AGE_ALONE = r"^(?:I(?:['’]m|\s+am)|[A-Z][\w’'-]{0,30}(?:['’]s|\s+is))\s+\d{1,3}(?:\s+now)?[.!]?$"
AGE = (
    r"turn(?:ed|s|ing)\s+(?:\d{1,3}|(?:" + _TENS + r")(?:[\s-]+(?:one|two|three|four|five|"
    r"six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|a\s+hundred)"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{0,40}")
LINK = re.compile(r"\[\[([^\[\]|\n]{1,120})(?:\|([^\[\]\n]{0,120}))?\]\]")
_CAP_WORD = (
    "[" + UPPER + "][" + LETTER + "’]{0,30}"
    "(?:-[" + LETTER + "][" + LETTER + r"’]{0,30}){0,3}(?![\w-])"
)
CAPS = re.compile(
    r"(?<![\w’'-])(?:Dr\.|St\.|Mrs?\.|Ms\.|" + _CAP_WORD + r")(?:\s(?:&\s)?" + _CAP_WORD + r"){0,4}"
)


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def enough_words(sentence: str) -> bool:
    """Whether a sentence says something on its own: `MIN_WORDS` words, not a question
    (what is left of a sentence once its aside or its request words are gone)."""
    return word_count(sentence) >= MIN_WORDS and sentence.rstrip()[-1:] != "?"


class Patterns:
    """The compiled rules (built once from rules.toml)."""

    def __init__(self, lists: dict[str, Any]) -> None:
        gate = lists["gate"]
        # case-blind for the words, never for the name: under re.IGNORECASE `NAME`
        # would take any four words ("ok the boiler is broken")
        self.small_talk = re.compile(
            r"^(?:(?i:" + alt(gate["small_talk"]) + r")[\s,.!]*){1,4}(?:\s*" + NAME + r")?[\s.!]*$"
        )
        self.hedge = re.compile(r"\b(?:" + alt(gate["hedges"]) + r")\b", re.IGNORECASE)
        # "to remind me" is what a thing is for, not a request ("…in my room to remind me");
        # "I'll be staying at the Hotel Avenida", "I'll be in Lisbon": where one will be
        away = r"\s+be\s+(?:" + alt(gate["away"]) + r"|(?:in|at)\s+(?:the\s+)?(?-i:[A-Z]))"
        chores = [c for c in gate["chores"] if c not in ("remind me", "i'll", "i will")]
        self.chore = re.compile(
            r"(?:^|\b)(?:" + alt(chores) + r"|(?<!\bto\s)remind\s+me"
            r"|i(?:['’]ll|\s+will)\b(?!" + away + r"))",
            re.IGNORECASE,
        )
        self.reaction = re.compile(r"\b(?:" + alt(gate["reactions"]) + r")\b", re.IGNORECASE)
        self.addressed = re.compile(r"\b(?:" + alt(gate["addressed"]) + r")\b", re.IGNORECASE)
        self.opinion = re.compile(
            r"\b(?:is|are|was|were|'s)\s+(?:so|such|really|very|super|pretty|truly|a)\s+"
            r"(?:" + alt(gate["opinions"]) + r")\b"
            # or the verdict is all a sentence or its last clause says: "Family love and
            # support is the best.", "…, and it was great.", "… - the skill is awesome."
            r"|(?:^(?:(?!" + _NOT_A_VERDICTS_OWN + r")[\w'’-]+\s+){0,9}"
            r"(?!" + _NOT_A_VERDICTS_OWN + r")[\w'’-]+"
            r"|\b(?:it|that|this|which|they|she|he|everything|the\s+[a-z]+(?:\s+and\s+[a-z]+)?))(?:\s+(?:is|are|was|were)|['’]s)\s+(?:(?:so|really|just|"
            r"truly|pretty|super|absolutely)\s+)?(?:the\s+best|" + alt(gate["opinions"]) + r")"
            r"\s*[.!]*$",
            re.IGNORECASE,
        )
        self.moment = re.compile(r"\b(?:" + alt(gate["moments"]) + r")\b", re.IGNORECASE)
        self.ailing = re.compile(r"\b(?:" + alt(gate["ailments"]) + r")\b", re.IGNORECASE)
        self.identity = re.compile(
            r"\b(?:"
            + alt(gate["identity"])
            + r"|"
            + AGE
            + r")\b|"
            + _AGE_ALONE
            # "I'm a nurse", "I work as a high school teacher": a living, said as one's being
            + r"|(?:\bam|['’]m|\bas)\s+an?\s+(?:[\w-]+\s+){0,2}?(?:"
            + alt(gate["occupations"])
            + r")\b",
            re.IGNORECASE,
        )
        self.offer = re.compile(r"\b(?:" + alt(gate["offers"]) + r")\b", re.IGNORECASE)
        # a conversation's first-person turn opening with its speaker: "I signed up…",
        # "My kids are…", "We're going camping…", maybe after a time or a short lead
        # ("Last week I scored…", "Besides writing, I…"; turns.disclosure reads the rest)
        self.disclosure = re.compile(
            r"^(?:(?:(?:Last|This|Next|Every)\s+(?:week|weekend|month|year|night|summer|"
            r"winter|spring|fall|autumn|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|"
            r"Sunday|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun)|Yesterday|Today|Tonight|Recently|"
            r"Lately|Earlier|Finally|Actually|Also|"
            r"(?:Apart from|Aside from|Besides|Other than|Along with|Outside of)"
            r" [a-z]+(?: [a-z]+){0,2})\s*,?\s+)?"
            r"(?:I|I['’](?:m|ve|d)|[Ww]e|[Ww]e['’](?:re|ve|d)|[Mm]y|[Oo]ur"
            r"|(?:I|[Ww]e)(?:['’]ll|\s+will)(?=(?i:" + away + r")))\s+\S"
        )
        # a turn's sentence whose subject is an activity of the speaker's, told with "me"
        # or "my": "Painting landscapes is my favorite", "Losing my job gave me the push"
        self.about_me = re.compile(
            r"^(?!(?:Some|No|Any|Every)thing|Morning|Evening)[A-Z][a-z]{2,20}ing\s"
            r"[^.!?]{0,200}\b(?:me|my|myself)\b"
        )
        # what ends on a pointer, or on "too" after a verb with nothing of its own ("I do
        # too", "I am too"); a "too" after what one has is "also" ("Just got new shoes, too!")
        self.pronoun_end = re.compile(
            r"\b(?:it|that|this|them|those|these|so|(?:I|me|do|does|did|am|was|were|is|are|"
            r"have|has|had|will|can|could|would)\W+too"
            r"|(?:a|an)\s+(?:[a-z-]+\s+){0,2}one)\W*$",  # "he wants a dinosaur one": which?
            re.IGNORECASE,
        )
        # "it"/"this"/"that" after a preposition, then nothing more of it: what it is was
        # in another turn ("I put so much into this and…", "I never want to go through
        # this again", "I'm a huge fan of it, that's why I go")
        self.object_back = re.compile(
            r"\b(?:into|about|for|with|on|of|from|at|through|to|like|over)\s+(?:this|that|it)\b"
            r"(?=\s*(?:[,.;!?]|-|(?:and|but|so|because|too|again)\b|$))",
            re.IGNORECASE,
        )
        # (not "these days", "those days": a time, pointing at nothing)
        self.pointer = re.compile(
            r"\b(?:" + alt(gate["pointers"]) + r")\b(?!\s+days\b)", re.IGNORECASE
        )
        # a sentence whose subject points at what is shown or said around it: "It's super
        # yummy", "This is a book Tim found", "Here's a recent self-portrait" (not "There's
        # a leak": that one says what is there; not "This week …": a time, no subject)
        self.pointed = re.compile(
            r"^(?:(?:It|This|That|These|Those)(?:['’]s\b|\s+(?:is|was|are|were|has|had|made"
            r"|makes|reminds|reminded|looks|looked|means|meant|became|gets|got)\b)"
            r"|Here(?:['’]s|\s+is|\s+are)\b)"
        )
        # a "we" that holds of the group only ("We both love helping others", "We push each
        # other", "I'm glad we have each other's backs"): what it says is not the speaker's
        # alone, and their name cannot stand for it ("Tim both has so much potential")
        self.together = re.compile(
            r"\bwe(?:['’](?:re|ve|d|ll))?\s+(?:both|all)\b|\bboth of us\b"
            r"|\b(?:we|us|our)\b(?=.*\b(?:each other|one another|ourselves)\b)",
            re.IGNORECASE,
        )
        # the rest of "remember, …" when it is advice or an offer to the person spoken to,
        # not a fact ("Jon, just do it!", "I'm always here for you")
        self.advice = re.compile(
            r"^(?:" + NAME + r"\s*,\s*)?(?i:(?:just|always|never|please)\s+)?"
            r"(?i:(?:don['’]t|do\s+not)\s+)?(?i:" + alt(gate["advice"]) + r")\b"
            # or an offer: "Remember, I'm always here for you"
            r"|^(?i:(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:always\s+)?here\s+(?:for|to)\b)"
        )
        # "it" among the first words, the thing done: "I made it in pottery class"
        self.early_it = re.compile(r"^(?:\S+\s+){1,3}it\b", re.IGNORECASE)
        self.interjection = re.compile(
            r"^(?:(?i:" + alt(gate["interjections"]) + r")(?:\s*,?\s*" + NAME + r"(?=\s*[,.!]))?"
            r"[\s,.!:-]+)+"  # "Yeah, ", "Hey Mel! ", "Update: ": not the "I" after it
        )
        self.verb = re.compile(
            r"(?i:\b(?:" + alt(gate["verbs"]) + r")\b|\b[a-z]{3,20}ed\b|['’](?:s|re|ve|m|d|ll)\b"
            r"|\b(?:never|always|usually|often|rarely|sometimes|to)\s+[a-z]{2,20}\b)"
            r"|^(?:I|We|They|He|She|You)\s+[a-z]|,\s+(?:she|he|they)\s+[a-z]{2,20}s\b"
            r"|\b[a-z]{3,20}\s+on\s+the\s+\d{1,2}(?:st|nd|rd|th)\s+of\s+(?:every|each)\b"
            r"|^(?!(?:My|Our|Your|His|Her|Their|Its)\s)"  # "My family, …": a noun, no verb
            r"(?:(?:Mr|Mrs|Ms|Dr)\.?\s)?[A-Z][a-z]{1,30}(?:\s[A-Z][a-z]{1,30}){0,2}\s+"
            r"(?!(?:" + _FUNCTION + r")\b)[a-z]{2,20}\b"  # "Rosa cleans", "Mr. Delgado wants"
        )
        self.question = re.compile(
            r"^(?!Will\s+[A-Z][a-z]+\s+[a-z])"  # "Will Smith is our neighbour": a name
            r"(?:who|what|when|where|why|how|which|should|shall|could|would|can|do|does|"
            r"did|is|are|was|were|will|have|has|any)\b[^.!]{0,200}$",
            re.IGNORECASE,
        )
        self.not_names = frozenset(lists["names"]["not_names"])
        self.abbreviations = frozenset(lists["names"]["abbreviations"])
        roles = alt(lists["relationship"]["roles"])
        kin = r"(?:[Mm]y|[Oo]ur)\s+(?:" + roles + r"|kids|children|sons|daughters|parents)"
        kin_of = NAME + r"['’]s\s+(?:" + roles + r")"  # "Omar's cousin has a nut allergy"
        subject = (
            r"(?P<subj>I|We|"
            + kin_of
            + "|"
            + NAME
            + r"|The\s+kids|Both\s+kids|The\s+family|"
            + kin
            + ")"
        )
        self.speaker = re.compile(
            r"^(?P<who>" + NAME + r")\s*(?:said|says|told\s+(?:me|us)|mentioned|wrote"
            r"|explained|confirmed)?(?:\s+that)?\s*[:,]?\s+[\"“](?P<rest>.{3,400}?)[\"”]?\s*$"
            r"|^(?P<who2>" + NAME + r")\s+(?:said|says|told\s+(?:me|us)|mentioned)"
            r"(?:\s+that)?\s*[:,]?\s+(?P<rest2>.{3,400})$"
            r"|^(?P<who3>" + NAME + r"):\s+(?P<rest3>.{3,400})$"
        )
        # a turn's speaker: "User: ", "**Maya**: ", "**user** (Jane, chat 42): "
        self.turn = daily.TURN
        self.remember = re.compile(
            r"^(?:(?i:please|also|and|oh|btw|fyi|hey|from\s+now\s+on|going\s+forward"
            r"|in\s+(?:the\s+)?future)[\s,]+)?(?:(?:" + NAME + r"|I|[Ww]e)\s+"
            r"(?:asked|wants|want|told)\s+(?:me|us|you)\s+to\s+"
            # asked as a question or a wish: "Can you remember…?", "I'd like you to note…"
            r"|(?i:(?P<asked>can|could|would|will)\s+you|I['’]d\s+like\s+you\s+to|I\s+need\s+you\s+to"
            r"|make\s+sure\s+(?:you|to))\s+(?i:please\s+|also\s+|just\s+)?)?"
            r"(?i:remember|memori[sz]e|commit\s+to\s+memory|note|keep\s+in\s+mind|"
            r"for\s+the\s+record|for\s+future\s+reference|do\s+not\s+forget|"
            r"don['’]t\s+forget|never\s+forget|make\s+a\s+note|note\s+to\s+self|"
            # as people ask an assistant with a memory: "Save to memory that …"
            r"(?:save|add|store|put|keep)\s+(?:this\s+|that\s+|it\s+)?(?:to|in|into)\s+"
            r"(?:your\s+|the\s+)?memory)"
            r"(?:\s+(?i:this|the\s+following)\s*(?::|[-–—]\s)"  # "Remember this: …"
            r"|\s+that|\s*:|\s*,|\s+(?!(?i:when|how|what|who|where|why|whether|if|to|me|us"
            r"|him|her|them|it|this|that|everything|anything)\b))"
            r"\s*(?P<rest>.{3,400})$"
        )
        # the request after the fact: "I'm left-handed, keep that in mind (when you suggest
        # tools)", "My passport expires in June - please remember that!"
        self.remember_after = re.compile(
            r"\s*(?:[,;]|\s[-–—]|(?=\s(?i:so|and)\s))\s*(?i:and\s+|so\s+)?(?:please\s+)?(?i:"
            r"(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind|remember(?:\s+(?:that|this|it))?"
            r"|(?:do\s+not|don['’]t)\s+forget(?:\s+(?:that|this|it))?"
            r"|(?:make\s+a\s+)?note\s+(?:(?:of\s+)?(?:that|this|it))"
            r"|(?:save|store|add)\s+(?:that|this|it)(?:\s+to\s+(?:your\s+)?memory)?)"
            r"(?:\s+(?i:please|for\s+(?:later|the\s+future|next\s+time)|going\s+forward"
            r"|from\s+now\s+on|(?:when|for|with|if)\s[^.!?]{3,80}))?\s*(?:please)?\s*[.!]*$"
        )
        self.track = re.compile(
            r"^(?:(?:please|also|and)[\s,]+)?(?:(?:can|could)\s+you\s+)?"
            r"(?:keep\s+track\s+of|keep\s+tabs\s+on|keep\s+an\s+eye\s+on|track|start\s+tracking|"
            r"monitor)\s+(?P<what>(?:the\s+|our\s+|my\s+)?(?:(?:Dr|Mr|Mrs|Ms|St)\.\s)?"
            r"[A-Za-z][\w’'&-]{0,30}(?:\s[\w’'&-]{1,30}){0,3}?)"
            r"(?=\s*(?:$|[.,;:!(—-]|\s(?:for|from|and|so|because|until|please|now|going|this|next"
            r"|every|at|in|on|while|over|during)\b))",
            re.IGNORECASE,
        )
        self.birthday = re.compile(
            r"\b(?P<who>" + NAME + r")['’]s\s+(?:\w+\s+){0,2}(?P<what>birthday|anniversary|"
            r"name\s+day|due\s+date|wedding|graduation|recital|surgery|appointment|exam|cleaning"
            r"|checkup|check-up|physical|visit|lesson|lessons|game|concert|conferences?|play"
            r"|performance|tournament|match|flight|party|interview|review|shots?)\b",
        )
        self.event = re.compile(
            r"\b(?:" + alt(lists["milestone"]["events"]) + r")\b", re.IGNORECASE
        )
        self.rel_is = re.compile(
            r"^(?P<x>" + NAME + r")(?:\s\([^)]{1,40}\))?(?:\s(?:at|from|of)\s" + NAME + r")?"
            r"\s+(?:is|was|are)\s+"
            r"(?:(?P<pos>my|our|the|(?:" + NAME + r")['’]s)\s+(?:new\s+|old\s+|favou?rite\s+|"
            r"regular\s+|usual\s+|family\s+|youngest\s+|oldest\s+|older\s+|younger\s+|"
            r"little\s+|big\s+|best\s+|next-door\s+)?(?P<y>" + roles + r")"
            r"|(?P<pos2>my|our|(?:"
            + NAME
            + r")['’]s)\s+(?P<y2>[a-z][a-z-]{1,30}(?:\s[a-z][a-z-]{1,30})?))\b",
        )
        self.rel_my = re.compile(
            r"\b(?P<pos>[Mm]y|[Oo]ur|(?:" + NAME + r")['’]s|[Tt]he(?=\s+(?:" + roles + r"),\s))"
            r"\s+(?:new\s+|old\s+|"
            r"favou?rite\s+|youngest\s+|oldest\s+|older\s+|younger\s+|little\s+|big\s+|best\s+"
            r"|other\s+|eldest\s+|twin\s+)?"
            r"(?P<y>" + roles + r")\s*,?\s+(?:is\s+(?:called|named)\s+)?(?P<x>" + NAME + r")\b",
        )
        # "and" before one's kin or helper with a verb of their own, no comma needed: "Our
        # VAT return is due every quarter and our accountant is Helen Park"
        self.and_my_role = re.compile(
            r"\s+and\s+(?=(?:my|our)\s+(?:(?:new|old|regular|usual)\s+)?(?:" + roles + r")\s+"
            r"(?:is|are|was|has|lives|works|loves|hates|can['’]t|doesn['’]t)\s)"
        )
        # "my dad", "our youngest daughter": whom a later "His name is …" names
        self.kin = re.compile(
            r"\b(?P<pos>[Mm]y|[Oo]ur)\s+(?:(?:older|younger|little|big|eldest|oldest|youngest"
            r"|baby|twin)\s+)?(?P<role>"
            + alt(lists["relationship"]["his"] + lists["relationship"]["her"])
            + r")\b(?![-'’])"
        )
        self.his = frozenset(lists["relationship"]["his"])
        self.roles = frozenset(lists["relationship"]["roles"])
        self.household_roles = frozenset(lists["relationship"]["household"])
        self.house_things = frozenset(lists["house"]["things"])
        # "His name is Raymond", "Her name's Lina", "He's called Raymond"
        self.name_is = re.compile(
            r"^(?:(?P<his>His)|Her)\s+name(?:['’]s|\s+is)\s+(?=" + NAME + r")"
            r"|^(?:(?P<he>He)|She)(?:['’]s|\s+is)\s+(?:called|named)\s+(?=" + NAME + r")"
        )
        # "My accountant is Priya Nair, she said…" read as "My accountant, Priya Nair, …"
        self.role_is = re.compile(
            r"^(?P<who>(?:My|Our)\s+(?:" + roles + r"))\s+is\s+(?P<name>" + NAME + r"),\s+"
        )
        # "My dad's name is Raymond" read as "My dad is named Raymond" (one rule, `rel_my`)
        self.role_name = re.compile(
            r"\b(?P<who>(?:[Mm]y|[Oo]ur)\s+(?:" + roles + r"))['’]s\s+name(?:['’]s|\s+is)\s+"
            r"(?=" + NAME + r")"
        )
        self.rel_name = re.compile(
            r"\b(?P<pos>[Mm]y|[Oo]ur|[Tt]he|(?:" + NAME + r")['’]s)\s+(?P<y>" + roles + r")"
            r"['’]s\s+name\s+is\s+(?P<x>" + NAME + r")\b"
            r"|\b(?P<pos2>[Mm]y|[Oo]ur|[Tt]he|(?:" + NAME + r")['’]s|(?:[Mm]y|[Oo]ur|[Tt]he)\s+"
            r"(?:(?:kids|children|boys|girls|twins)['’]|(?:" + roles + r")['’]s))\s+(?:(?:nearest"
            r"|closest|local|usual|regular"
            r"|main|new|family|[A-Z]{2,6})\s+)?(?P<y2>"
            + roles
            + r")(?:\s+(?:this\s+year|now|these\s+days))?"
            r"\s+is\s+(?:now\s+)?(?:called\s+|named\s+)?(?P<x2>" + NAME + r")\b",
        )
        self.preference = re.compile(
            r"^(?:(?i:also|and|but|so|oh|btw)[\s,]+)?" + subject + r"\s+"
            r"(?:(?:really|also|still|definitely|strongly|much|both|all|absolutely|generally)\s+){0,2}"
            r"(?P<verb>" + alt(lists["preference"]["verbs"]) + r")\b(?!\s+(?:me|us|you)\s+to\b)"
        )
        self.favourite = re.compile(
            r"\b(?P<subj>[Mm]y|[Oo]ur|(?:"
            + NAME
            + r")['’]s)\s+favou?rite(?:\s\w{2,30}){0,2}\s+is\b"
        )
        # "Pad thai is Maya's favorite dinner", "The Hobbit is one of my favorites": what
        # is liked opens the sentence (never a pointer: "It's one of my faves")
        self.favourite_of = re.compile(
            r"^(?!(?:It|This|That|These|Those|They|Here|There|He|She|Which|What)\b)"
            r"[A-Z][^,;:!?]{1,60}?(?:\s+(?:is|are|was|were)|['’]s|['’]re)\s+"
            r"(?:(?:still|definitely|always|also|really)\s+)?(?:(?:one|some)\s+of\s+)?"
            r"(?P<subj>[Mm]y|[Oo]ur|(?:" + NAME + r")['’]s)\s+(?:all-time\s+|new\s+)?"
            r"(?:favou?rites?|faves?)\b"
        )
        self.status_is = re.compile(
            r"^(?P<subj>(?:[Tt]he|[Oo]ur|[Mm]y|[Aa]ll|[Bb]oth|"
            + NAME
            + r"['’]s)\s+[\w’'&-]{1,30}(?:\s[\w’'&-]{1,30}){0,4}?"
            r"|" + NAME + r")\s+(?:is|are|was|were|has\s+been|have\s+been|got|went|"
            r"(?:has\s+|have\s+)?(?:stayed|remained)|stays|remains)\s+"
            r"(?:now\s+|finally\s+|already\s+|officially\s+|still\s+|fully\s+|all\s+|last\s+"
            r"|badly\s+|slightly\s+|completely\s+|partly\s+|partially\s+|totally\s+){0,2}"
            r"(?:(?:" + alt(lists["status"]["states"]) + r")\b|now\b)",
        )
        self.status_change = re.compile(
            r"^(?:(?:also|and|so)[\s,]+)?(?P<subj>I|We|"
            + NAME
            + r"|(?:[Tt]he|[Oo]ur|[Mm]y|"
            + NAME
            + r"['’]s)\s+"
            r"[\w’'-]{1,30}(?:\s[\w’'-]{1,30}){0,2}?)\s+(?:(?:has|have|had|just|finally|officially)\s+){0,2}"
            r"(?:" + alt(lists["status"]["changes"]) + r")\b",
        )
        self.subject_name = re.compile(
            r"(?P<name>" + NAME + r")(?=['’]s\b|\s+(?:and|&)\s+[A-Z]"
            r"|\s+(?:(?:has|have|had|just|finally|still|also|now|usually|often|always|never"
            r"|sometimes|rarely)\s+)?"
            r"(?:[a-z]{2,20}ed|[a-z]{2,20}s\b(?!\s+(?:"
            + _AUX
            + r")\b)|"
            + alt(gate["verbs"])
            + r")\b)"
        )
        grammar = lists["grammar"]
        self.keep = frozenset(grammar["keep"])
        self.first_person = re.compile(
            r"\b(?P<c>I['’]m|I['’]ve|I['’]d|I['’]ll|[Ww]e['’]re|[Ww]e['’]ve|[Ww]e['’]d|[Ww]e['’]ll)"
            r"|\b(?P<pro>I|we|We)\b(?P<tail>(?:\s+(?:"
            + alt(grammar["adverbs"])
            # an adverb in -ly ("totally"), not a verb ("apply", "rely", "rally")
            + r"|(?!(?:bul|tal|ral|sul)ly\b)[a-z]{2,14}[a-oq-z]ly|even)){0,2}"
            r"\s+(?P<verb>[A-Za-z'’]{1,20}))?"
            r"|\b(?P<obj>me|us)\b(?!-)|\b(?P<pos>[Mm]y|[Oo]ur|mine|ours)\b"
            r"|\b(?P<self>myself|ourselves)\b"
        )
        self.pronoun = re.compile(r"^(?:[Ss]he|[Hh]e)(?P<c>['’](?:d|s|ll))?\s+(?=[a-z\d])")
        self.possessive = re.compile(r"^(?:[Hh]er|[Hh]is)\s+(?=[a-z])")  # "Her coach, Mr. Feld, …"
        self.reported = re.compile(
            r"^(?P<who>" + NAME + r")\s+(?:says|said|mentioned|told\s+(?:me|us)|explained)"
            r"(?:\s+that)?\s+(?:she|he)(?P<c>['’](?:d|s|ll))?\s+(?=[a-z'’])"
        )
        self.and_preference = re.compile(
            r"\s(?:,\s*)?(?:and|but)\s+(?:also\s+|still\s+|really\s+)?(?P<verb>"
            + alt(lists["preference"]["verbs"])
            + r")\b"
            + LOVE_NOUN
        )
        self.routine = re.compile(
            r"\b(?:every|each)\s+(?:other\s+|single\s+)?(?:day|night|week|month|year|quarter|"
            r"morning|evening|weekday|weekend|spring|summer|fall|autumn|winter|"
            + _WEEKDAY
            + r")\b|\bon\s+(?:weekday|weekend|"
            + _WEEKDAY
            + r")s\b|\b(?:once|twice|\w+\s+times)\s+a\s+(?:day|week|month|year)\b"
            r"|(?:\d|\b(?:[a-z]{2,20}s|times|once|twice))\s+(?:a|an|per)\s+(?:day|week|month|year|hour)\b"
            r"|\bon\s+(?:" + _WEEKDAY + r")\s+(?:mornings|afternoons|evenings|nights)\b"
            r"|(?<!\bI\s)(?<!\bWe\s)\b(?:can\s+do|(?:is|are)\s+(?:available|free))\s+(?:on\s+)?(?:"
            + _WEEKDAY
            + r")s\b"  # "Priya can do Tuesdays and Thursdays after 3"
            r"|\b(?:most|many)\s+(?:" + _WEEKDAY + r")"
            r"(?:s|\s+(?:mornings|afternoons|evenings|nights))\b"
            r"|\bevery\s+(?:\d{1,3}|two|three|four|five|six|eight|ten|twelve|few|couple\s+of)"
            r"\s+(?:days|weeks|months|years|miles)\b"
            r"|\bof\s+[a-z]{2,20}\s+(?:a|per)\s+(?:day|week|month)\b"
            r"|\b(?:daily|weekly|monthly|yearly)\b"
            r"|\b(?:moved|changed|switched)\s+to\s+(?:" + _WEEKDAY + r")s\b",  # "… to Tuesdays"
            re.IGNORECASE,
        )
        # when something is, without a day: a clock time ("starts at 8:15", "by 7 am"), a
        # month or a year as a bound ("expires in March", "runs until 2027")
        self.timed = re.compile(
            r"\b(?:at|by|from|until|till|before|after)\s+\d{1,2}"
            r"(?::[0-5]\d\s*(?:am|pm|a\.m\.|p\.m\.)?|\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock))(?!\w)"
            r"|\b(?:in|until|till|by|through|before|after)\s+(?:" + _MONTH + r")\b"
            r"|\b(?:until|till|by|through)\s+(?:19|20)\d\d\b"
            r"|\b(?:expires?|ends|runs\s+out|renews|is\s+due|are\s+due)\s+in\s+(?:19|20)\d\d\b",
            re.IGNORECASE,
        )
        # where a thing is kept: "The spare key is under the blue pot", "The fuse box is in
        # the garage", "The wifi password is taped inside the pantry door"; not a person
        # ("My kids are in the other room": where they are now)
        self.location = re.compile(
            r"^(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?!(?:" + roles + r")s?\b)"
            r"[a-z][a-z'’-]{1,30}(?:\s[a-z][a-z'’-]{1,30}){0,5}\s+"
            r"(?:is|are)\s+(?:(?:kept|stored|hidden|located|taped|hung|hanging|filed)\s+)?"
            r"(?:in|on|under|underneath|behind|above|below|beside|inside|next\s+to|on\s+top\s+of)"
            r"\s+(?:(?:the|our|my|a|an)\s+[a-z]|[A-Z][a-z]+\s+(?:Street|St\.?|Avenue|Ave\.?|Road"
            r"|Rd\.?|Boulevard|Blvd\.?|Lane|Drive|Way|Plaza|Square|Mall|Center|Centre)\b)"
        )
        # who holds a way in: "Rosa Mendes has a key to the side door", "Greg keeps a spare
        # key", "Helen has the garage remote" (who has access, never the access itself)
        self.access = re.compile(
            r"^(?P<subj>" + NAME + r")\s+(?:has|have|keeps|holds|got)\s+(?:a|the|our|my|an)\s+"
            r"(?:spare\s+|extra\s+|copy\s+of\s+the\s+|house\s+|door\s+)?(?:key|keys|fob|"
            r"garage\s+(?:door\s+)?(?:remote|opener)|alarm\s+code|door\s+code|code)\b"
        )
        # what someone lives with: "Leo has a peanut allergy", "My wife has type 1 diabetes"
        self.condition = re.compile(
            r"^(?:(?i:also|and|but|so)[\s,]+)?" + subject + r"\s+(?:(?:also|still)\s+)?"
            r"(?:(?:has|have|had|was\s+diagnosed\s+with|got\s+diagnosed\s+with|suffers\s+from|"
            r"lives\s+with|wears|wear|uses|use)\s+(?:[\w-]{1,20}\s+){0,3}?(?i:"
            + alt(lists["health"]["conditions"])
            + r")|(?:is|are)\s+(?:(?:a|an)\s+)?(?i:"
            + alt(lists["health"]["kinds"])
            + r")|gets?\s+(?:motion|car|sea|air)[\s-]?sick)\b"  # "Jordan gets motion sick"
        )
        # a thing of the house opening a sentence, in up to four words, never a person of
        # the rulebook's roles: "The kitchen drain line", "Our stove" (not "My brother")
        a_thing = (
            r"^(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?!(?:" + roles + r")s?\b)(?:[\w’'-]{1,30}\s+){0,3}?"
            r"[\w’'-]{2,30}\s+"
        )
        # what a thing of the house is made of or runs on: "The drain line is cast iron",
        # "Our stove is gas" (a thing, never a person: "My brother is solid as a rock")
        self.material = re.compile(
            a_thing + r"(?:is|are)\s+(?:all\s+|mostly\s+|made\s+of\s+|original\s+)?"
            r"(?:" + alt(lists["house"]["materials"]) + r")\b(?!\s+(?:to|for|about)\b)"
        )
        # what make a thing is: "The garage door opener is a Chamberlain B970", "Our car is a
        # 2019 Honda Civic" (a name and its model, nothing after but a clause)
        self.model_is = re.compile(
            a_thing + r"(?:is|are)\s+(?:an?\s+)?(?:(?:19|20)\d\d\s+)?[A-Z][\w-]+"
            r"(?:\s+[A-Z0-9][\w-]*){0,3}\s*(?:[,.;]|$)"
        )
        # a pet named: "We have a dog named Biscuit", "Jordan adopted a cat called Miso"
        self.pet_named = re.compile(
            r"\b(?:have|has|got|adopted|rescued)\s+(?:a|an)\s+(?:new\s+|little\s+|rescue\s+)?"
            r"(?:dog|cat|puppy|kitten|rabbit|bunny|hamster|parrot|bird|horse|guinea\s+pig|turtle"
            r"|tortoise|fish|lizard|gecko|snake)(?:\s+(?:named|called)\s+|,\s+)(?P<x>" + NAME + r")"
            r"(?=[\s,.!]|$)"  # "We have a dog, Mochi, so …"
        )
        # when a thing of the house was made or put in: "The house was built in 1962"
        self.built = re.compile(
            a_thing + r"(?:was|were)\s+(?:built|installed|bought|purchased|replaced|renovated"
            r"|added|put\s+in|redone|rebuilt|poured|planted|drilled)\s+(?:back\s+)?in\s+"
            r"(?:19|20)\d\d\b"
        )
        # what a thing needs done: "The Subaru needs new tires", "The deck needs restaining"
        self.needs = re.compile(
            a_thing + r"(?:needs|need)\s+(?:a\s+new|new|to\s+be|[a-z]{3,20}ing\b|(?:a|an)\s+"
            r"[a-z]{3,20}(?:\s+(?:job|check|inspection|service|replacement|repair)))"
        )
        # what a thing or a named one does, as a rule (present tense): "The dehumidifier
        # drains into the floor drain", "Jordan's employer matches 401(k) contributions",
        # "Leo sleeps with a nightlight" (not how it looks or feels: "The garden looks…")
        self.habit = re.compile(
            r"^(?:(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?!(?:" + roles + r")s?\b)(?:(?!(?:the|a|an)\s)[a-z]"
            r"[\w’'-]{1,30}\s+){0,2}[a-z][\w’'-]{1,30}|" + NAME + r"['’]s\s+[a-z][\w’'-]{1,30}"
            r"(?:\s+[a-z][\w’'-]{1,30})?"
            r"|(?P<name>" + NAME + r"))\s+(?!(?:is|has|was|does|says|seems|looks|sounds|feels"
            r"|smells|tastes|gets|needs|wants|loves|likes|hates|means|makes|goes|comes)\b)"
            r"[a-z]{3,20}s(?<!ss)(?<!us)(?<!is)\s+(?:(?:with|into|to|from|through|on|in|at|under"
            r"|up|off|out|a|an|the|his|her|their|our|my|all|every|each|when|whenever|if"
            r"|during|after|before)\b|\d)"
        )
        # what one does for a living, where: "I'm a project manager at Acme Corp"
        self.my_job = re.compile(
            r"^(?:I['’]m|I\s+am|I\s+work\s+as)\s+(?:a|an)\s+(?:[a-z-]{2,20}\s+){0,2}[a-z-]{3,20}\s+"
            r"(?:at|for|with)\s+(?:the\s+)?[A-Z]"
        )
        # who holds what: "Our checking account is with First Harbor Bank", "My phone plan
        # is through Mint Mobile" (the provider is the entity)
        self.provider = re.compile(
            r"^(?:[Tt]he|[Oo]ur|[Mm]y|"
            + NAME
            + r"['’]s)\s+(?:[\w’'()-]{1,30}\s+){0,3}?(?:"
            + alt(lists["house"]["held"])
            + r")\s+(?:is|are)\s+(?:now\s+|still\s+)?(?:with|through|at|from)\s+"
            r"(?P<who>" + NAME + r")"
        )
        # what a worker found, said plainly: "The plumber from Rivera Plumbing said the
        # drain line is cast iron" (what they said is the fact; not "thinks": a guess)
        self.role_said = re.compile(
            r"^(?:(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:" + roles + r")(?:\s+(?:from|at)\s+" + NAME + r")?"
            r"\s+(?:said|says|told\s+(?:me|us)|mentioned|confirmed|explained|found)"
            # anyone's word, only as speech: "Alex mentioned the basement smells musty"
            r"|(?:(?:[Tt]he\s+)?[Uu]ser|" + NAME + r")\s+(?:said|says|told\s+(?:me|us)|mentioned)"
            r")(?:\s+that)?\s+(?P<rest>(?:the|our|my|his|her|their)\s.{10,})$"
        )
        # what a worker or a named one advises, kept as advised: "Marcus Bell recommends
        # replacing the whole unit within a year", "The vet suggested a dental cleaning";
        # and what a worker found: "The vet said Biscuit needs to lose 5 pounds"
        advice = (
            r"(?:recommends|recommended|advises|advised|suggests|suggested)\s+(?:that\s+)?"
            r"(?:[a-z]{3,20}ing\b|(?:a|an|the)\s+[a-z]|\d)"
        )
        found = (
            r"(?:said|says|told\s+(?:us|me))\s+(?:that\s+)?(?:[A-Z][a-z]+|he|she|it|the\s+[a-z]+"
            r"|his\s+[a-z]+|her\s+[a-z]+)\s+(?:needs|should|must|has\s+to|will\s+need)\b"
        )
        self.advised = re.compile(
            r"^(?:(?:(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:" + roles + r")"
            # a trade's worker by its trade: "Tile guy recommends…", "The pool guy suggested…"
            r"|(?:(?:[Tt]he|[Oo]ur|[Mm]y)\s+)?[A-Za-z]{3,15}\s+(?:guy|man|lady|woman|person))"
            r"\s+(?:" + advice + "|" + found + r")|" + NAME + r"\s+" + advice + ")"
        )
        # a month with no day, when something happens or is due ("in January", "by the
        # end of June", "early in March")
        self.in_month = re.compile(
            r"\b(?:in|by|until|till|til|before|to(?=\s+(?:the\s+)?(?:end|middle|start|beginning)"
            r"\s))\s+(?:(?:the\s+)?(?:end|middle|start|beginning)\s+of\s+|"
            r"early\s+|late\s+|mid-?)?(?:" + _MONTH + r")\b(?!\s+\d)",
            re.IGNORECASE,
        )
        # a year, maybe with its month, when something happened: "in 2019", "back in March
        # 2019", "since 2021" (a day is a date `dates` reads; a year alone is not one)
        self.in_year = re.compile(
            r"\b(?:in|since|by)\s+(?:(?:early|late|mid-?)\s*)?(?:(?:" + _MONTH + r")\s+)?"
            r"(?:19|20)\d\d\b(?!\s*[-/]\d)",
            re.IGNORECASE,
        )
        # what befell someone, kept though no date is told ("Maya lost her retainer at
        # school", "Grandma Rose fell and broke her wrist"): a harm or a loss of theirs
        self.incident = re.compile(
            r"\b(?:(?:broke|sprained|fractured|tore|dislocated|injured|hurt|cracked|chipped"
            r"|lost|burned)\s+(?:his|her|their)\s+"
            r"(?!(?:temper|cool|patience|mind|balance|way|voice|appetite|train|nerve)\b)[a-z]"
            r"|fell\s+(?:off|down|over|and|at|in|on|from|while)\b"
            r"|(?:was|got)\s+(?:hospitali[sz]ed|admitted\s+to|stitches|a\s+concussion)"
            r"|had\s+(?:\w+\s+){0,2}(?:teeth|tooth|tonsils|appendix|gallbladder)\s+(?:out|removed)"
            r"|ended\s+up\s+in\s+(?:the\s+)?(?:ER|hospital|emergency)"
            # an illness a doctor names, with its course ("Maya has strep throat, on
            # amoxicillin"; not "a cold", a fever: the gate's ailments, gone in days)
            r"|(?:has|had|got|caught|came\s+down\s+with|(?:was\s+)?diagnosed\s+with"
            r"|tested\s+positive\s+for)\s+(?:an?\s+|the\s+)?(?:strep(?:\s+throat)?|pneumonia"
            r"|bronchitis|covid(?:-19)?|rsv|mono|pink\s+eye|chicken\s*pox|(?:double\s+)?ear"
            r"\s+infection|sinus\s+infection|uti|croup|shingles|lice|hand[\s,]+foot\s+and\s+mouth"
            r"|scarlet\s+fever|whooping\s+cough|appendicitis|kidney\s+stones?)\b)"
        )
        # a deadline: "needs the 1099s by January 31", "must be done by March 3"
        self.deadline = re.compile(
            r"\bby\s+(?:the\s+)?(?:end\s+of\s+)?(?:" + _MONTH + r"|\d{1,2}(?:st|nd|rd|th)?\b|"
            r"tomorrow|next\s+\w+|" + _WEEKDAY + r")",
            re.IGNORECASE,
        )
        self.future = re.compile(
            r"\b(?:will|is\s+coming|are\s+coming|can\s+come|comes|arrives|is\s+due|are\s+due|"
            r"(?:is|are)\s+(?:flying|arriving|landing|visiting|moving)|lands|visits|"
            r"starts|begins|is\s+on|are\s+on)\b"
        )
        self.money = re.compile(
            r"^(?P<subj>(?:[A-Z]|the\s|our\s|my\s)[\w’'&-]{0,30}(?:\s[\w’'&-]{1,30}){0,6}?)\s+"
            r"(?:(?:now|still|already)\s+)?(?:is|are|was|were|costs?|quoted|holds|approved|"
            r"charges|earns|gets|receives|pays|owes|saves|makes|averages|runs|"
            r"(?:went\s+up|dropped|rose|fell|came\s+down|was\s+raised|was\s+lowered|goes\s+up"
            r"|goes|will\s+go|increases|rises|drops|will\s+be)\s+to|will\s+be|"
            # who set a price: "Harbor Mutual raised the home insurance premium to $1,342"
            r"(?:raised|increased|lowered|cut|reduced|hiked|bumped(?:\s+up)?|dropped)\s+"
            r"(?:the|our|my|its|their|his|her)\s+(?:[\w’'-]{1,30}\s+){0,4}?(?:to|by)|"
            r"came\s+(?:in\s+)?(?:at|to)|(?:is|are|was|stands|sits)\s+at)\s+"
            r"(?:about\s+|around\s+|roughly\s+|the\s+|a\s+)?"
            r"(?:[$€£]\d|\d[\d,.]{0,12}\s*(?:cents|¢|dollars|euros|pounds)\b)"
        )
        # what someone weighs or measures: "Noor weighed 11 lb 3 oz at the last visit"
        self.measure = re.compile(
            r"^(?P<subj>" + NAME + r"|I)\s+(?:weighs|weighed(?:\s+in\s+at)?|measures|measured"
            r"|is\s+now|was)\s+"
            r"(?:about\s+|almost\s+|nearly\s+|just\s+over\s+|just\s+under\s+)?\d{1,3}"
            r"(?:\.\d{1,2})?\s*(?:lbs?|pounds|kg|kilos|oz|ounces|inches|cm|feet|ft)\b"
        )
        # a labelled amount of someone's: "Maya's orthodontist payment plan: $180/month …"
        self.labelled = re.compile(
            r"^(?P<name>" + NAME + r")['’]s\s+[a-z][\w’'-]{1,30}(?:\s[\w’'-]{1,30}){0,3}:\s+"
            r"(?=[$€£]?\d)"
        )
        self.now_verb = re.compile(r"^(?P<subj>.{1,60}?)\s+now\s+(?:[a-z]{2,20}s|is|are|has)\b")
        self.done = re.compile(
            r"^(?i:"
            + alt(lists["status"]["done"])
            + r")\s+(?:the|our|my|a|an|two|three|\d+|autopay|auto-pay|"
            + NAME
            + r")\b"
        )
        # where someone lives, works, studies: "Clara lives in Boston", "My parents live in
        # Ohio", "Maya is in third grade"
        self.about = re.compile(
            r"^(?:" + NAME + r"\s+(?:lives|lived|works|worked|studies|studied|goes\s+to|is\s+from"
            r"|grew\s+up|was\s+born|teaches|is\s+in\s+(?:[\w-]+\s+){1,2}grade"
            r"|is\s+(?:now\s+|still\s+)?(?:based\s+)?in\s+(?=[A-Z][a-z])"  # "Declan is in Dubai"
            r"|is\s+in\s+(?:kindergarten|preschool|pre-k|college|high\s+school|middle\s+school)"
            r"|(?:is|plays)\s+on\s+the\s+(?:[\w-]+\s+){0,2}team|is\s+in\s+the\s+(?:[\w-]+\s+){0,2}"
            r"(?:band|choir|orchestra|club))"
            r"|(?P<kin>" + kin + r")\s+(?:live|lives|lived|work|works|worked|study|studies|go\s+to"
            r"|goes\s+to|are\s+from|is\s+from|grew\s+up|teaches|teach))\b"
        )
        # a standing rule of the house: "the side gate has to stay closed", "must be clear"
        self.house_rule = re.compile(
            r"^(?:[Tt]he|[Oo]ur|[Mm]y|[Aa]ll|[Ee]very|" + NAME + r")(?:\s[\w’'&-]{1,30}){0,5}?\s+"
            r"(?:must|has\s+to|have\s+to|should\s+always|should\s+never)\s+(?:always\s+|never\s+)?"
            r"(?:be|stay|go|get|have|use|keep)\b"
        )
        # what someone or something is: "Jordan is an ICU nurse", "The roof is 22 years old",
        # "Raymond used to be a joiner"
        self.descriptor = re.compile(
            r"^(?:"
            + NAME
            + r"|(?:[Tt]he|[Oo]ur|[Mm]y)\s+[a-z][\w’'-]{1,30}(?:\s[a-z][\w’'-]{1,30})?)"
            r"\s+(?:is|are|used\s+to\s+be)\s+(?:(?:a|an)\s+(?!bit\b|little\b|lot\b|good\s+day\b)"
            r"[a-zA-Z0-9]"
            r"|(?:about\s+|nearly\s+|almost\s+|over\s+)?\d{1,3}\s+(?:years?|months?)\s+old\b)"
        )
        # a thing's days, "on" left out: "The kids' swim lessons are Saturdays at 10"
        self.are_days = re.compile(r"\b(?:is|are)\s+(?:" + _WEEKDAY + r")s\b", re.IGNORECASE)
        self.age_is = re.compile(
            r"^(?:" + NAME + r"\s+is|I['’]m|I\s+am)\s+\d{1,3}(?:\s+(?:now|this\s+year))?[.!]?$"
        )
        # a thing opening a sentence: "The boiler", "Our stove", "The API keys"
        self.thing = re.compile(r"^(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:[a-z]|[A-Z]{2,5}\s)")
        self.pronoun_object = re.compile(r"\s+(?:him|her|it|them|that|this|those|these)\b")
        self.owner = re.compile(r"^(?P<name>" + NAME + r")['’]s\s")
        # what a named one has, said plainly: "Jordan's work number is 555-0142", "Maya's
        # shoe size is 2" (a role of the rulebook's is `rel_name`'s; no praise: "Caroline's
        # painting is amazing" is an opinion); a name for a value is someone of theirs
        # ("Theo's soccer coach is Mr. Daniels")
        self.attribute = re.compile(
            r"^(?:(?P<name>" + NAME + r")['’]s|[Tt]he(?=(?:\s[\w'’-]+){0,3}\s(?:code|number"
            r"|password|pin|combination|model|size|extension|address|plate|setting|temperature"
            r"|frequency|pressure|count|headcount|list|reading|level|limit|capacity|mileage)"
            r"\s(?:is|are)\s[^.!?]{0,20}?\d)"
            r"|(?:[Oo]ur|[Mm]y|(?:[Tt]he|[Oo]ur|[Mm]y)\s+(?:"
            + roles
            + r")['’]s)(?=[^.!?]{4,60}?\s(?:is|are)\s"
            r"[^.!?]{0,40}?(?:\d|\b[A-Z])))\s+(?!(?:" + roles + r")\b)"
            r"(?:[A-Z][\w'’-]{1,30}\s+){0,2}[a-z][a-z'’-]{1,30}"  # "… United MileagePlus number"
            r"(?:\s[a-z][a-z'’-]{1,30}){0,3}\s+(?:is|are)\s+(?!(?:so|such|really|very|pretty|"
            r"super|too|quite|amazing|awesome|great|beautiful|cute|adorable|incredible|gorgeous|"
            r"lovely|nice|cool|the\s+best|one\s+of)\b)(?P<value>\S)"
        )
        self.now_is = re.compile(
            r"\b(?:is|are)\s+now\b|\bno\s+longer\b|\b(?:can['’]t|cannot|won['’]t|doesn['’]t|"
            r"don['’]t|isn['’]t|aren['’]t)\b(?:(?!\b(?:it|this|that)\b)[^.;!?]){1,60}"
            r"\bany\s?more\b",
            re.IGNORECASE,
        )  # "is now", "no longer", "can't do weekdays anymore" (not "can't take it anymore")


@functools.cache
def patterns() -> Patterns:
    return Patterns(words())
