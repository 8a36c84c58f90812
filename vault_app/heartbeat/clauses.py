"""An entry cut into the sentences and clauses the rules read, one fact each.

Lines first, so bullets stand alone (list marks and checkboxes stripped, headings
skipped), then sentence ends and semicolons, not after "Dr.", "St." or an initial (a
closing quote stays with its sentence: 'called "Finding Home."'); a sentence that tells,
then asks, is what it tells ("My mum has diabetes type 2, what foods should she avoid?",
`_before_asking`); two first-person sentences joined by a comma are two ("I'm 41, I live
in Denver", `_spliced`); a first-person reason before what one does is cut from it
("Since I'm vegetarian, I cook…", `_reason_first`); two clauses on one person at "and
she/he/her/his" or at "and" before a verb the opening name or she/he governs ("Grandma
Rose lives in Tucson and her landline is…", "Nadia lives in Denver and is flying in…",
`and_clauses`), and two clauses at ", and" before a subject of their own ("Theo's teacher
is Mr. Abara, and the conferences are on January 12"; not after a list: "A, B, and C
were…"), or at "and" before one's kin or helper ("Our VAT return is due every quarter and
our accountant is Helen Park"). A short lead-in before a colon is set apart from the
first-person sentence after it ("Quick intro so you can help me: I'm Sam…"); "I'm Sam,
41" is a name and an age; one's children named in a list are each one's
(`kin.children`). An explicit request to remember is kept whole.

Every pattern is anchored or bounded (no nested quantifiers), and an entry gives at most
`MAX_SENTENCES`, so a hostile entry costs time linear in its size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vault_app.heartbeat import kin, rulebook, subjects

MAX_SENTENCES = 2000  # an entry's sentences looked at; the rest of a pasted dump is not

_REASON = re.compile(
    r"^(?:[A-Z][a-z]{1,10}[,!]\s+)?(?:[Ss]ince|[Bb]ecause|[Aa]s)\s+"
    r"(?P<why>(?:I|I['’]m|I['’]ve|I\s+am|[Mm]y)\s[^,;]{4,120}?)(?:,\s*|\s+)"
    r"(?P<main>(?:I|I['’](?:m|ve|d|ll))\s[^;]{10,})$"
)
_AND_CLAUSE = re.compile(
    r",?\s+and\s+(?:(?=(?:she|he|her|his)\s+[a-z])|(?P<modal>(?:can|can['’]t|cannot|will|"
    r"won['’]t|usually|always|never|also|finally|just|recently|is|was|has|charges|lives|"
    r"works|teaches|drives|"
    r"takes|owns|runs|needs)\s+(?=[a-z$\d])))"
)
# ", and" before a clause with a subject of its own: "Theo's new teacher is Mr. Abara,
# and parent-teacher conferences are on January 12"
_AND_SUBJECT = re.compile(
    r",\s+and\s+(?=(?:the\s+|our\s+|my\s+|his\s+|her\s+|their\s+)?[a-z][\w'’-]{1,30}"
    r"(?:\s[a-z][\w'’-]{1,30}){0,2}\s+(?:is|are|was|were|will|has|have)\s)"
)
# "and" before someone named with a verb of their own: "I'm lactose intolerant and Alex
# is coeliac" (no comma; a lowercase subject needs one, `_AND_SUBJECT`)
_AND_NAMED = re.compile(  # or someone's someone: "… and Omar's cousin has a nut allergy"
    r"\s+and\s+(?="
    + rulebook.CAP_LOW
    + r"+(?:\s"
    + rulebook.CAP_LOW
    + r"+)?(?:['’]s\s+[a-z]+(?:-in-law)?)?\s+"
    r"(?:is|are|was|has|had|can['’]t|cannot|"
    r"doesn['’]t|won['’]t|loves|hates|lives|works)\s)"
)
# "and I" again after a first-person clause, on to what one is or has for good: a second
# fact of the same one ("I live in Denver and I work at Kaiser"); not a story going on ("…
# and I decided to include this", "… and I want to pass it on")
_AND_I = re.compile(
    r",?\s+and\s+(?=(?:I|we)\s+(?:live|work|have|own|study|teach|play|drive|use|speak"
    r"|volunteer|coach)\b|(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:a|an|allergic|married)\b"
    # or a change for good: "…, and I just accepted a postdoc in Berlin"
    r"|(?:I|we)\s+(?:just\s+|finally\s+|recently\s+)?(?:accepted|got\s+(?:a\s+)?(?:new\s+)?"
    r"(?:job|offer|position|promotion)|started|joined|adopted|moved)\b)"
)
_I_OPENS = re.compile(r"(?:I|I['’](?:m|ve|d)|We|We['’](?:re|ve))\s")
_PRONOUN_OPENS = re.compile(r"(?:[Ss]he|[Hh]e)\b")
_PRONOUN_IS = re.compile(r"(?:[Ss]he|[Hh]e|[Ii]t)['’]s\s")
_APPOSED = re.compile(
    r",\s*" + rulebook.CAP_LOW + r"+$"
)  # "…my dog, Pickle": a name said in passing
_SPLICE = re.compile(
    r",\s+(?=(?:I|I['’](?:m|ve|d|ll)|We|We['’](?:re|ve)|[Ss]he|[Hh]e|[Ss]he['’]s|[Hh]e['’]s)"
    r"\s+[a-z])"
)
# a comma before one's own thing that is something: "…, my A1C is 6.8"
_MY_SPLICE = re.compile(
    r",\s+(?=(?:[Mm]y|[Oo]ur)\s+[\w'’-]+(?:\s[\w'’-]+){0,2}\s+(?:is|are|was|were)\s)"
)
# a comma before "she"/"he" and a verb of theirs, after any opening
_SHE_SPLICE = re.compile(
    r",\s+(?=(?:[Ss]he|[Hh]e)(?:['’]s|\s+(?:is|was|has|had|[a-z]{2,20}(?<!s)s))\s)"
)
# a comma before someone named and what they are: "We skipped the snorkeling tour, Theo is
# scared of deep water"
_NAMED_SPLICE = re.compile(
    r",\s+(?=" + rulebook.NAME + r"(?:\s+|['’]s\s+[a-z]{2,20}\s+)"
    r"(?:is|are|was|were|has|have|had|gets|loves|hates|prefers)\s)"
)  # (or someone's: "The budget is now $48,000, Daniel's parents are chipping in $3,000")
# a standing instruction after what it is for: "Jordan gets motion sick, always book window
# seats near the front for him"
_RULE_SPLICE = re.compile(
    r",\s+(?=(?:please\s+)?(?:(?:always|never)\s+(?![a-z]+ing\b)(?!(?:by|with|on|in|at|for"
    r"|after|before|when|again|ever|been|had|was|were|is|the|a|an)\b)|(?:don['’]t|do\s+not)\s+)"
    r"[a-z]{2,20}\s)"
)  # not "…, never carrying a balance", "…, never by card": the same preference going on
# what it means for the writer, after a fact of another: ", so I'm on school runs"
_SO_I = re.compile(
    r",\s+so\s+(?=(?:I|I['’](?:m|ll|ve)|[Ww]e|[Ww]e['’](?:re|ll))\s)"
    r"(?!(?:I|[Ww]e)\s+(?:could|can|would|might|may)\b)"  # "so I could help": its purpose
)
# a first-person clause going on with the writer's next deed, its "I" left out
_I_AGAIN = re.compile(
    r",\s+(?=(?:just\s+|finally\s+|also\s+)?(?:had|got|went|started|finished|moved|bought"
    r"|found|booked|signed|lost|won|adopted|joined|quit|left)\s)"
)
_FIRST_PERSON = re.compile(r"(?:I|I['’]\w+|My|We|We['’]\w+|Our)\b")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BULLET = re.compile(r"^\s{0,12}(?:[-*+•]|\d{1,3}[.)]|\[[ xX]\])\s+(?:\[[ xX]\]\s+)?")
# a sentence's end: a stop before a capital, a "!" or "?" before anything (talk goes on in
# lower case: "I did! the sky was so gorgeous"), a semicolon, a dash
_SENT_END = re.compile(
    r"([.!?][\"'”’)\]]?)\s+(?=[\"'“(\[$]?[A-Z0-9$])|([!?])\s+(?=[a-z])|(;|\s[—–])\s+"
)


def sentences(text: str) -> Iterator[str]:
    """The entry's lines (bullets stripped), each cut at its sentence ends."""
    count = 0
    for raw in CONTROL.sub(" ", text).splitlines():
        line = _BULLET.sub("", raw).strip()
        if not line or line.startswith("#"):
            continue
        for told in _split_line(line):
            pieces = (i for lead in _after_lead_in(told) for i in _introduced(lead))
            kids = (c for p in pieces for c in kin.children(p) or kin.team(p) or [p])
            named = (
                b
                for k in kids
                for b in kin.bracketed(k)
                or kin.role_bracketed(k)
                or kin.hired(k)
                or kin.has_new(k)
                or [k]
            )
            for piece in (kin.bare_role(n) or n for n in named):
                for part in _clauses_of(_before_asking(piece)):
                    yield part
                    count += 1
                    if count >= MAX_SENTENCES:
                        return


# one introducing oneself by name and age or by what they go on to tell: "I'm Sam, 41, I
# run a bakery", "I'm Dana, I'm an ER nurse"
_INTRO = re.compile(
    r"^(?P<lead>[A-Z][\w ]{0,30}:\s+)?I['’]m\s+(?P<name>" + rulebook.CAP_LOW + r"{1,20}),\s+"
    r"(?:(?P<age>\d{1,2})(?:\s+years\s+old)?(?=[,.!]|$)"
    r"|(?:and\s+)?(?P<next>(?:I|I['’]m|I['’]ve|my|My)\s))"
)


def _introduced(sentence: str) -> list[str]:
    """ "I'm Sam, 41, I run a bakery" as "My name is Sam.", "I'm 41, I run a bakery", and
    "I'm Dana, I'm an ER nurse" as "My name is Dana.", "I'm an ER nurse": a name the age
    or the next clause after it shows is one (not "I'm British, I live in Leeds")."""
    intro = _INTRO.match(sentence)
    if intro is None or intro["name"].lower() in rulebook.patterns().not_names:
        return [sentence]
    lead = intro["lead"] or ""  # "Quick background: I'm Dana, …": the lead read on each
    if intro["next"]:
        rest = sentence[intro.start("next") :]
        return [f"{lead}My name is {intro['name']}.", lead + rest[:1].upper() + rest[1:]]
    rest = sentence[intro.end() :]
    return [f"{lead}My name is {intro['name']}.", f"{lead}I'm {intro['age']}{rest}"]


# a short lead-in, then what one tells of oneself after a colon: "Quick intro so you can
# help me better: I'm Sam, I run a bakery" (a lead said to the one asked, or no clause)
_LEAD_IN = re.compile(
    r"^(?P<lead>[^:]{3,80}):\s+(?=(?:I|I['’](?:m|ve|d)|We|We['’](?:re|ve)|My|Our)\s+\w)"
)
_LABEL = re.compile(r"(?:[A-Z][\w.'’-]*\s?){1,3}$")  # a name, or "User", "Q", "PS": a label
# a note's topic, then what it says in lower case: "Garden: planted…", "Car: the Civic…"
_TOPIC = re.compile(r"^[A-Z][a-z]{2,15}:\s+(?=[a-z])")
_OWN_SUBJECT = re.compile(r"(?:the|our|my)\s")


def _after_lead_in(sentence: str) -> list[str]:
    """A lead-in of a few words before a colon, said to the one asked or no clause of its
    own ("Quick intro so you can help me:", "Some background:"), set apart from the
    first-person sentence after it, which is read alone; a lead that tells something
    stays with what follows ("My writing is going well: I'm in the middle of a novel"),
    and an explicit request to remember is kept whole. A note's topic before a colon goes
    when what follows names its own subject or is a log's deed ("Car: the Honda Civic
    failed its MOT" -> "The Honda Civic failed its MOT", "Garden: planted 40 tulip bulbs…"
    -> "Planted 40 tulip bulbs…")."""
    topic = _TOPIC.match(sentence)
    if topic and not rulebook.patterns().remember.match(sentence):
        rest = sentence[topic.end() :]
        if _OWN_SUBJECT.match(rest) or rulebook.patterns().done.match(rest):
            return [rest[:1].upper() + rest[1:]]
    lead = _LEAD_IN.match(sentence)
    if lead is None or rulebook.word_count(lead["lead"]) > 12 or _LABEL.match(lead["lead"]):
        return [sentence]  # "Alex: I prefer…": who says it, read as a quoted speaker
    pats = rulebook.patterns()
    if pats.remember.match(sentence):
        return [sentence]
    if pats.verb.search(lead["lead"]) and not pats.addressed.search(lead["lead"]):
        return [sentence]  # "My writing is going well: I'm in the middle of…" says it all
    return [lead["lead"] + ":", sentence[lead.end() :]]  # the lead a heading: no fact


# what is told, then asked of the other in the same sentence: "My mum has diabetes type 2,
# what foods should she avoid?"
_ASKED_AFTER = re.compile(
    r"^(?P<told>[^?]{12,400}?)\s*(?:,|;|:|\s[—–-])\s*(?:so\s+|and\s+|but\s+)?"
    r"(?:who|what|what's|when|where|why|how|which|should|could|would|can|do|does|is|are|any)"
    r"\b[^,;?]{0,200}\?+$",
    re.IGNORECASE,
)


def _before_asking(sentence: str) -> str:
    """A sentence that tells, then asks, as what it tells ("My mum has diabetes type 2,
    what foods should she avoid?" -> "My mum has diabetes type 2."); any other unchanged."""
    match = _ASKED_AFTER.match(sentence)
    if match is None or rulebook.patterns().question.match(match.group("told")):
        return sentence
    return match.group("told").rstrip(" ,;:") + "."


def _split_line(line: str) -> Iterator[str]:
    abbreviations = rulebook.patterns().abbreviations
    start, lower = 0, False
    for match in _SENT_END.finditer(line):
        before = line[max(start, match.start() - 8) : match.start()].rsplit(None, 1)
        word = before[-1].lstrip("([{\"'“‘").lower() if before else ""
        if match.group(1) == "." and (word in abbreviations or (len(word) == 1 and word.isalpha())):
            continue  # "Dr. Okafor", "St. Anne's", an initial; "(Dr. Alvarez)" too
        end = len(match.group(1) or match.group(2) or "")  # with its quote: 'called "X."'
        piece = line[start : match.start() + end].strip()
        if piece:
            yield _capital(piece) if lower else piece
        start, lower = match.end(), match.group(2) is not None  # "I did! the sky was…"
    tail = line[start:].strip()
    if tail:
        yield _capital(tail) if lower else tail


def _capital(piece: str) -> str:
    return piece[:1].upper() + piece[1:]


def _clauses_of(sentence: str) -> list[str]:
    """A sentence as the facts it tells one by one, never an explicit request to remember
    (it is kept as asked, whole: "Remember, since I'm vegetarian I cook lentils")."""
    if rulebook.patterns().remember.match(sentence):
        return [sentence]
    return [
        two for spliced in _spliced(sentence) for one in _reason_first(spliced)
        for two in and_clauses(one)
    ]  # fmt: skip


def _spliced(sentence: str) -> list[str]:
    """Two first-person sentences joined by a comma, cut in two: "I'm 41, I live in
    Denver with my wife Carla" -> "I'm 41.", "I live in Denver with my wife Carla"; so is
    a sentence and one's own thing after a comma ("Saw Dr. Feldman yesterday, my A1C is
    6.8"), "she"/"he" and a verb of theirs ("Took Pepper to the vet, she's 11 now"), and
    what it means for the writer after ", so I…" (not its purpose, "so I could…"), and the
    writer's next deed with its "I" left out ("I'm 42 now, had my birthday yesterday"). Not
    after a lead that is no clause of its own ("When I was young, I lived…"), nor after a
    hedge, a feeling or a word to the other, which is of all of it ("I think, I'm moving",
    "I remember when I did my first play, I was so nervous…")."""
    pieces: list[str] = []
    while len(pieces) < MAX_SPLICES:
        cut = _splice(sentence)
        if cut is None:
            break
        pieces.append(sentence[: cut[0]] + ".")
        rest = cut[2] + sentence[cut[1] :].lstrip(" ,")  # "…, had my birthday": "I had…"
        sentence = rest[:1].upper() + rest[1:]  # "…, she works at…": "She works at…"
    return [*pieces, sentence]


MAX_SPLICES = 4  # pieces cut from one sentence at its commas; the rest stays whole


def _splice(sentence: str) -> tuple[int, int, str] | None:
    """Where `sentence` is cut (`_spliced`): the first part's end, the second's start, and
    the subject the second takes from the first ("I " when it left it out)."""
    pats = rulebook.patterns()
    lead = ""
    cut = _SPLICE.search(sentence) if _FIRST_PERSON.match(sentence) else None
    if cut is None and _I_OPENS.match(sentence) and (cut := _I_AGAIN.search(sentence)):
        lead = "I "  # "I'm 42 now, had my birthday yesterday": "I had my birthday…"
    cut = cut or _MY_SPLICE.search(sentence)  # "Saw Dr. Feldman yesterday, my A1C is 6.8"
    cut = cut or _SHE_SPLICE.search(sentence)  # "Took Pepper to the vet, she's 11 now"
    if cut is None and (named := _NAMED_SPLICE.search(sentence)):  # "…, Theo is scared of…"
        after = re.sub(r"['’]s$", "", sentence[named.end() :].split(None, 1)[0])
        cut = named if subjects.is_name(after, pats) else None
    cut = cut or _SO_I.search(sentence)  # "Jordan is in Chicago Dec 8-11, so I'm on…"
    cut = cut or _RULE_SPLICE.search(sentence)  # "…, always book window seats for him"
    if cut is None:
        return None
    first, second = sentence[: cut.start()], sentence[cut.end() :]
    if _PRONOUN_OPENS.match(second) and (pats.role_is.match(sentence) or _APPOSED.search(first)):
        return None  # "My vet is Dr. Ames, she…", "my dog, Pickle, she's…": read whole
    asides = (pats.hedge, pats.moment, pats.reaction, pats.opinion, pats.addressed)
    if any(p.search(first) for p in asides) or not pats.verb.search(first):
        return None  # "I'm sure with hard work, I can…": of all of it
    return (cut.start(), cut.end(), lead) if says_enough(lead + second) else None


def _reason_first(sentence: str) -> list[str]:
    """A first-person reason before what one does, cut in two: "Since I'm lactose
    intolerant, I'm trying out dairy-free desserts" -> "I'm lactose intolerant.", "I'm
    trying out dairy-free desserts." (what one is stands without what it led to)."""
    told = _REASON.match(sentence)
    if told is None:
        return [sentence]
    why = told.group("why").strip()
    return [why[:1].upper() + why[1:] + ".", told.group("main")]


def and_clauses(sentence: str, *, loose: bool = False) -> list[str]:
    """A sentence of two clauses on one person cut in two at "and she/he/her/his", each a
    fact of its own ("Grandma Rose lives in Tucson and her landline is…": where she lives
    stands without her landline); the second's pronoun is read as the first's person.
    Only where each clause says something by itself (a verb, `MIN_WORDS` besides the
    pronoun): "My daughter is named Maya and she is 7" stays one ("Maya is 7."); and not
    after the first person, where "he" is someone else the clause needs ("I just got a
    puppy named Rex and he keeps chewing shoes"). A second clause with no subject, opening
    on "can", "will", "usually"…, is of the one the sentence opens on when that is a name
    or "she"/"he" ("Helen lives forty minutes away and can take the kids on Thursdays")."""
    verb = rulebook.patterns().verb
    again = _AND_I.search(sentence) if _I_OPENS.match(sentence) else None
    if again is not None:  # "I live in Denver and I work at Kaiser": two facts of one
        first, second = sentence[: again.start()].rstrip(" ,"), sentence[again.end() :]
        if says_enough(first) and says_enough(second):
            return [first + ".", second]
    named = _AND_NAMED.search(sentence)
    if named is not None:
        first, second = sentence[: named.start()], sentence[named.end() :]
        if verb.search(first) and verb.search(second) and not re.search(r",\s*\w+$", first):
            return [first.rstrip(" ,") + ".", second]
    own = _AND_SUBJECT.search(sentence) or rulebook.patterns().and_my_role.search(sentence)
    if own is not None:
        first, second = sentence[: own.start()], sentence[own.end() :]
        listed = re.search(r",\s*[\w'’-]+(?:\s[\w'’-]+){0,2}$", first)  # "A, B, and C were"
        if not listed and says_enough(first) and says_enough(second):
            return [first + ".", second[:1].upper() + second[1:]]
    cut = _AND_CLAUSE.search(sentence)
    if cut is None or _FIRST_PERSON.match(sentence):
        return [sentence]
    first, second = sentence[: cut.start()].rstrip(" ,"), sentence[cut.end() :]
    if cut.group("modal"):
        opens = _PRONOUN_OPENS.match(sentence)
        who = opens.group() if opens else subjects.subject_name(sentence, rulebook.patterns())
        if (
            who is None
            or not sentence.startswith(who)
            or (opens is None and sentence[len(who)] in "'’")
        ):
            return [sentence]  # "The boiler is old and can't be fixed", "Maya's teacher…"
        second = f"{who} {cut.group('modal')}{second}"

    def words(clause: str) -> int:  # "She's 11 now": "She is 11 now", four words
        return rulebook.word_count(clause) + bool(_PRONOUN_IS.match(clause))

    if (words(first) < rulebook.MIN_WORDS and not loose) or words(second) <= rulebook.MIN_WORDS:
        return [sentence]  # `loose`: each clause is classified apart ("Luna is 14 and has…")
    if rulebook.patterns().verb.search(first) is None:
        return [sentence]
    return [first + ".", second]


def says_enough(clause: str) -> bool:
    """Whether a clause stands as a sentence: more than `MIN_WORDS` words and a verb —
    fewer when it says what one is ("I'm a nurse", "I work nights", "I'm vegetarian":
    the rules' identity)."""
    pats = rulebook.patterns()
    if pats.verb.search(clause) is None:
        return False
    count = rulebook.word_count(clause)
    return count > rulebook.MIN_WORDS or (count >= 2 and pats.identity.search(clause) is not None)
