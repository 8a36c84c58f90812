"""What a turn of a conversation points at instead of saying: a sentence, or the part of
it that would be a fact, that means something only with the turns around it.

People talking lean on what was just said or shown. "I'm a huge fan of this genre!"
answers a turn that named fantasy; "I had a blast there last month" follows "have you
been to Italy?"; "I wanted to feel closer to a community and my faith" is why the
speaker joined the church the sentence before named. Kept alone, months later, such a
fact says nothing one could ask about ("Tim is a huge fan of this genre."), so the rules
make no fact of it. Two checks, both on the speaker's own words (before "I" becomes
their name, so "them" is still someone else):

    shown_around   a whole sentence: a place or a thing only pointed at ("planning a
                   trip there", "I'm going to make it for my family", "I haven't had one
                   in ages", "I thought I should do the same"), or what two did together,
                   which the speaker's name alone cannot stand for ("We had a lot in
                   common and hit it off")
    leans_on       the part of a sentence that becomes a fact: a "this"/"that" before a
                   noun that only stands for what was said ("this genre", "that
                   opportunity", "this spot", a *shell noun*: its content is elsewhere),
                   unless something after it says what ("this game Catan", "this story
                   about a turtle", "that trip to England"); the same with "the" when no
                   thing before it in the part is what it is of ("I'm down to join the
                   meeting", "I like the idea and the acting", "how to pick the right
                   ones"; not "I watched a classic movie - the story was gripping", nor
                   "the event at the library"); "something similar"; a favourite of a kind
                   another turn named ("Iron Man is my top pick."); "there" as a place
                   no word of the part names ("I had a blast there", not "there was a
                   leak", "my family is always there for me", "I moved to Lisbon and
                   love it there"); a past wish with its act told elsewhere ("I wanted
                   to capture everyone's unity", not "I've always wanted to learn the
                   cello", nor "I wanted to get fit, so I joined a gym"); "them" seen or
                   met, no one named before it ("I see them at least once a week");
                   "give it a go"

A demonstrative before a thing that says what it is ("Melanie made this bowl in her
class", "I took this photo at Whispering Falls") is a fact: the bowl is named.

`benchmarks/data/locomo/README.md` says how much each kind weighed in a person's reading
of the facts the rules kept from LoCoMo's conversations.
"""

from __future__ import annotations

import re

# what a turn points at instead of naming: a place ("a trip there", "volunteering here"),
# a thing to be done ("make it for my family", "continue doing it"); a thing shown and
# named ("Melanie made this bowl in her class") says enough to keep
_SHOWN = re.compile(
    r"\b(?:trip|go|going|goes|went|gone|move|moved|moving|stay|stayed|staying|visit|"
    r"visited|visiting|head|headed|heading)\s+there\b"
    r"|\b(?:make|making|try|trying|bake|baking|cook|cooking|bring|give|wear)\s+it\s+"
    r"(?:for|with|to|at|on)\b"
    r"|\bmade\s+it\s+(?:for|with|at|on)\b"  # not "made it to the finals": got there
    # what goes on, or what one would set up, said in another turn: "Gonna continue doing
    # it", "setting up something like this for my kids"
    r"|\b(?:keep|keeps|kept|continue|continuing)\s+(?:doing|making)\s+(?:it|this|that)\b"
    r"|\b(?:something|anything)\s+like\s+(?:this|that)\b(?!\s+(?!(?:for|with|to|soon)\b)[a-z])"
    # where the speaker is, unsaid: "I started volunteering here" (not "here at the bank")
    r"|\b(?:work|working|worked|volunteer|volunteering|volunteered|live|living|lived)"
    r"\s+here\b(?!\s+(?:at|in|on)\b)"
    r"|\b(?:take|takes|took|taking|bring|brings|brought)\s+(?:me|us|them|him|her)\s+there\b"
    # a thing the other turn named, taken up: "escaping to that world", "tinkering with
    # that recipe", "I decided to include this at the beginning"
    r"|\b(?:to|with|from|about|of|on|into|for|at)\s+that\s+[a-z]+(?:\s+[a-z]+)?"
    r"(?=\s*(?:[,.;!?]|\s-|$|and\b|but\b))"
    r"|(?<=[a-z]\s)this\s+(?:at|in|on|for|with|from|into)\b"
    # what it is, another turn said: "how to make this.", "stick around the people here.",
    # "determined to make it work", "going to try making it tonight"
    r"|\b(?:this|these|those|here)\W*$|\bmake\s+it\s+(?:work|happen)\b"
    r"|\b(?:try|trying|tried)\s+(?:[a-z]+ing\s+)?it\b(?!['’])",
    re.IGNORECASE,
)

# what a sentence takes from the turn before it, with no word of its own for it: a "one"
# had or been ("I haven't had one in ages", "I've been one 'cause I lost my job"), "the
# same" done ("I thought I should do the same"), a "this" then how long ("I've been
# dreaming of this for a while now")
_TAKES_BACK = re.compile(
    r"\b(?:have|has|had|having|been|got|get|getting|want|wanted|bought|buy|need|needed|own"
    r"|owned|make|made)\s+one(?=\s+(?:in|for|since|because|too|yet|now|already|and|but|so"
    r"|before|either|again|ago|last\s+(?:week|month|year))\b|\s+['’]?cause\b|\s*[,;]|\W*$)"
    r"|\b(?:do|did|does|doing|done|feel|felt|say|said|think|thought)\s+the\s+same"
    r"(?:\s+(?:thing|way))?(?=\s*[,;]|\W*$)"
    r"|\b(?:of|for|about|on|with|into|to)\s+(?:this|that|it)\s+(?:for|since)\s+(?:a\s+(?:long\s+)?"
    r"while|ages|years|months|weeks|a\s+long\s+time|so\s+long|forever|some\s+time)\b",
    re.IGNORECASE,
)
# what "one" or "the same" stands for, said before it in the sentence: "… a family for kids
# who need one", "I want to live authentically and help others to do the same"
_SAID_BEFORE = {
    "one": re.compile(r"\b(?:a|an)\s+[a-z]", re.IGNORECASE),
    "same": re.compile(r"\s(?:and|to)\s", re.IGNORECASE),
}
# what two do together, which the speaker's name alone cannot stand for ("We had a lot
# in common and hit it off": not "Nate had a lot in common")
_MUTUAL = re.compile(
    r"^We(?:['’](?:ve|d))?\s+(?:\w+\s+)?(?:have|had)\s+(?:a\s+lot|so\s+much|lots|loads|tons"
    r"|nothing|everything|plenty|much)\s+in\s+common\b"
    r"|^We\s+(?:\w+\s+)?(?:hit\s+it\s+off|clicked|bonded|got\s+along|get\s+along)\b"
    # who the others are, another turn says: "We were teammates for four years", "We hang
    # out a lot", "We already planned a gaming session together"
    r"|^We(?:\s+were|\s+are|['’]re)\s+(?:\w+\s+)?(?:teammates|classmates|roommates|friends"
    r"|neighbou?rs|colleagues|partners)\b"
    r"|^We\s+(?:\w+\s+)?(?:hang|hung|hanging)\s+out\b"
    r"|^We\s+(?:\w+\s+)?planned\s+[^.!?]{0,40}\btogether\b",
    re.IGNORECASE,
)


def shown_around(sentence: str) -> bool:
    """Whether a turn's sentence names a place or a thing only by pointing at what the
    turns around it said: "planning a trip there", "I'm going to make it for my family",
    "I haven't had one in ages" (not "… a family for kids who need one"), "I thought I
    should do the same"; or tells what two did together, which the speaker's name alone
    cannot stand for ("We had a lot in common and hit it off")."""
    back = _TAKES_BACK.search(sentence)
    if back:  # "… a family for kids who need one", "… and help others to do the same"
        said = _SAID_BEFORE.get(back.group().split()[-1].lower())
        back = None if said and said.search(sentence, 0, back.start()) else back
    return bool(_SHOWN.search(sentence) or back or _MUTUAL.search(sentence))


# nouns whose content is said elsewhere (Schmid's "shell nouns", and a few kinds of
# thing that are only a kind): after "this"/"that" they point back at it
_SHELL = (
    r"genres?|opportunit(?:y|ies)|spots?|places?|stor(?:y|ies)|intensity|performances?|magic"
    r"|feelings?|ideas?|events?|experiences?|moments?|things?|stuff|ones?|support|energy"
    r"|vibes?|kinds?|types?|sorts?|stages?|trips?|journeys?|causes?|issues?|topics?|worlds?"
    r"|city|cities|towns?|style|approach|method|activit(?:y|ies)|hobb(?:y|ies)|passion"
)
_THIS_SHELL = re.compile(
    r"\b(?:this|that|these|those|the\s+same)\s+(?:(?:same|other|one|whole|very|super|really"
    r"|amazing|great|cool|new|awesome|popular|special|fun|exciting|incredible|wonderful"
    r"|beautiful|little|big|huge|crazy|wild)\s+)*(?:" + _SHELL + r")\b"
    # what says which: a name, a title, "called …", "about …", "of …", "to England"
    r"(?!\s*(?:,\s*)?(?:called|named|titled|about|of|as|featuring|where|which|who)\b"
    r"|\s+(?:to|in|at|from|on|with|for)\s+(?:the\s+)?(?-i:[A-Z0-9])|\s+(?-i:[A-Z0-9])|\s*[\"“'‘(:])",
    re.IGNORECASE,
)
# the same with "the", of what a noun before it in the part cannot be ("I watched a
# classic movie - the story was gripping" says whose story): "I'm down to join the
# meeting", "I really like the idea and the acting", "how to pick the right ones"
_THE_SHELL = re.compile(
    r"\bthe\s+(?:(?:other|whole|very|right|first|last|final|big|main)\s+)*(?:genres?"
    r"|opportunit(?:y|ies)|spots?|places?|stor(?:y|ies)|performances?|feelings?|ideas?|events?"
    r"|experiences?|moments?|ones?|trips?|journeys?|meetings?|situation|difficult(?:y|ies)"
    r"|plots?|acting)\b"
    # what says which: "the event at the library", "the idea that…", "the one who…"
    r"(?!\s*(?:,\s*)?(?:called|named|titled|about|of|as|featuring|where|which|who|that|when|I"
    r"|we|to|for|in|at|on|from|with|by)\b|\s+(?-i:[A-Z0-9])|\s*[\"“'‘(:])",
    re.IGNORECASE,
)
_A_THING = re.compile(r"\b(?:a|an)\s+[a-z]", re.IGNORECASE)  # what "the story" may be of
# what the speaker likes best, of a kind another turn named: "Iron Man is my top pick."
# (not "I love all dances, but contemporary is my top pick")
_PICK_ALONE = re.compile(
    r"^[A-Z][^,;:!?]{0,40}?\s+is\s+(?:my|our)\s+(?:(?:all-time|absolute)\s+)?"
    r"(?:top\s+pick|fav(?:ou)?rite|fave)\W*$"
)
# "I loved doing something similar": similar to what, the other turn said
_SIMILAR = re.compile(r"\bsomething\s+similar\b(?!\s+(?:to|as)\b)", re.IGNORECASE)
# "there" as a place: not "there is/was…" (what exists), "be there for" (support), "out
# there", nor after the place itself ("I moved to Lisbon and love it there")
_THERE = re.compile(
    r"\bthere\b(?!['’]s|\s+(?:is|are|was|were|will|would|has|have|had|must"
    r"|might|may|can|could|seems?|seemed|isn['’]t|wasn['’]t|aren['’]t|weren['’]t"
    r"|used)\b)",
    re.IGNORECASE,
)
_BE_THERE = re.compile(
    r"\b(?:am|is|are|was|were|be|been|being|I['’]m|['’]re|['’]s|out|over|up|down|in|right)"
    r"(?:\s+(?:always|still|really|all|just|never|not))?\s+$",
    re.IGNORECASE,
)
_PLACE_BEFORE = re.compile(r"\b(?:to|in|at|from|near|visit(?:ed|ing)?|around)\s+(?:the\s+)?[A-Z]")
# a past wish whose act the sentence before told ("I wanted to capture everyone's
# unity"): not a lifelong one ("I always wanted to…"), nor one with its act ("…, so I")
_WANTED = re.compile(
    r"^(?:(?:plus|and|so|also)\s*,?\s+)?(?:I|we)\s+(?:just\s+|really\s+)?wanted\s+"
    r"(?:to|a|an|the|some)\b(?![^.!?]*\b(?:so|and)\s+(?:I|we)\s+[a-z]+(?:ed|t)\b)",
    re.IGNORECASE,
)
_GO_AT_IT = re.compile(
    r"\b(?:give|gave|giving|gives)\s+it\s+(?:a\s+)?(?:go|try|shot|whirl)\b", re.IGNORECASE
)
# whom the speaker sees, right after the verb with no one named before: "I see them at
# least once a week" (not "I take my kids to the park and watch them play")
_THEM = re.compile(
    r"^(?:I|We)(?:['’][a-z]+)?\s+(?:(?!(?:my|our|the|a|an|his|her|their|some|all|and)\b)"
    r"[\w'’]+\s+){0,3}(?:them|him)\b"
)


def leans_on(part: str) -> bool:
    """Whether the part of a turn's sentence that would be a fact points at what another
    sentence or turn said (see the module's docstring): a demonstrative shell noun with
    nothing after it saying which (or "the" one, with no thing before it that it is of),
    "something similar", a favourite with no kind, "there" as an unnamed place, a past
    wish whose act is told elsewhere, "them" right after the verb, "give it a go"."""
    if any(p.match(part) for p in (_WANTED, _THEM, _PICK_ALONE)):
        return True
    if any(p.search(part) for p in (_THIS_SHELL, _GO_AT_IT, _SIMILAR)):
        return True
    the = _THE_SHELL.search(part)
    if the and not _A_THING.search(part, 0, the.start()):
        return True  # "join the meeting" (not "I watched a classic movie - the story …")
    return any(not _there_named(part, there.start()) for there in _THERE.finditer(part))


def _there_named(part: str, at: int) -> bool:
    """Whether the "there" at `at` is no unnamed place: "be there for" someone, "out
    there", or a place the part named before it ("moved to Lisbon and love it there")."""
    return bool(_BE_THERE.search(part, 0, at) or _PLACE_BEFORE.search(part, 0, at))
