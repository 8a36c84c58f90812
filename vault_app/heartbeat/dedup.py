"""Does the entity know this already? Exact and near duplicates, and changed values.

A candidate is compared with the ACTIVE facts of the entity it was routed to, never
with superseded history (an old value said again is news: it supersedes the new one).
Each entity's facts are read and prepared once per run (`Deduper` caches them; `added`
keeps the cache current as the run writes), so a check costs one read per entity and
then set arithmetic: 1.2 ms a check on the 200,000-fact vault, each entity read once.

- "same": the same text once normalised (`normalize`: case, accents, punctuation,
  British/American spellings, filler words like "now" set aside).
- "update": the same subject with a changed value. The two texts' word sequences share
  a beginning (the subject: at least one content word) and possibly an end, and differ
  in a short middle (the value, at most `MAX_VALUE` words a side), and the attribute
  holds one value at a time: the subject names such an attribute ("favourite colour",
  "pressure", "address", "budget"); or the relation is one ("works at", "lives in", "is
  married to"); or both values are only numbers, dates, amounts or schedules ("every
  other Thursday" -> "every Friday"); or the value follows "is" directly ("the garage
  door is locked" -> "unlocked"). Not an update: "Theo is allergic to peanuts" -> "...
  to cats" (a many-valued attribute: two facts), a past event on another date ("was
  serviced on ..."), a change of the subject itself ("colour is blue" -> "food is
  lasagna"), two texts that share less than `MIN_UPDATE` of their words (an opening in
  common is no subject in common). A statement and its denial ("likes" / "doesn't
  like", the rest the same but for `DENIAL_SLACK` word) is an update; "does not like"
  and "dislikes" agree.
- "update" by what an event implies: a change told as an event states the new value of
  a one-valued attribute an older fact holds, and is compared as that state
  (`implied_states`): "The user moved to Boulder in October 2026" as "The user lives in
  Boulder" (a move to a named place), "… started a new job at Google" as "… works at
  Google", "Lina turned 7 on …" as "Lina is 7" (an age's "years old" is set aside for
  every update: "Kabir is 5 years old" -> "Kabir is now 6"). The date the
  event carries is set aside for the comparison; the fact written is the event as told,
  superseding the state it ends. Only the event side is read so (a later "lives in
  Boulder" retires no move: both stay true), and the subject must be the same words.
  A schedule that "moved to Thursdays" (changed, switched, rescheduled…) is a value as
  "is on Tuesdays" is, and a habit is its activity's schedule, a medicine with a dose its
  dose (`readings`: "Lina takes piano lessons on Tuesdays" as "Lina's piano lessons are on
  Tuesdays", "Pat takes donepezil 5mg" as "Pat's donepezil dose is 5 mg"), either side.
- "near": word-shingle Jaccard (words and word pairs) at or above `jaccard`, or, when an
  `embed` callable is given (L2-normalised float32 rows), embedding cosine at or above
  `cosine` — never when the numbers differ, one text denies the other, or a few content
  words were swapped for others ("the kitchen faucet drips" / "the bathroom faucet
  drips"; two a side around a word kept, "window seats on long flights" / "aisle seats
  on short flights"): those are other facts however alike they read. Embeddings are computed only
  when the words did not decide (an entity's facts once, then one vector a check).
- "new": none of those.

Order: same, then near, then update (a text that is near one fact and an update of
another — the old value still active beside the new — is skipped, not written twice),
then new. `judge` is that decision on prepared facts, shared by `Deduper.check` and the
calibration benchmark. The thresholds' defaults were calibrated on
`benchmarks/data/dedup_pairs.jsonl` by `benchmarks/bench_dedup.py` (F0.5 of "skip" on
the calibration split: a fact wrongly skipped is lost from the graph, a duplicate kept
can be retired), which prints the table they were chosen from and the blind scores.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from vault_app.core import errors, layout, models
from vault_app.core.vault import Vault
from vault_app.heartbeat import readings

if TYPE_CHECKING:
    from vault_app.search import embedding_cache, encoders

JACCARD = 0.35  # calibrated on benchmarks/data/dedup_pairs.jsonl: benchmarks/bench_dedup.py
COSINE = 0.78  # calibrated the same way, all-MiniLM-L6-v2 vectors
MAX_VALUE = 5  # words a changed value may span, each side
# an update shares at least this share of the longer text's words (subject and the rest
# around the value): sure of both the subject and the attribute. Every update of the
# calibration pairs shares 0.45 or more; two of a speaker's unrelated sentences that open
# alike ("**Melanie** (D14:4): Yeah, …" / "**Melanie** (D17:4): Yeah, …") share 0.15.
MIN_UPDATE = 0.4
# a denial updates the statement it denies when it says the same otherwise, each side
# with at most this many content words of its own: "Alex is a vegetarian" / "Alex is not
# a vegetarian anymore" (one), not "Jon is gonna keep on believing in himself" / "… keep
# on going and never quit" (two a side: another statement, not a denial)
DENIAL_SLACK = 1
MAX_SWAP = 4  # words a swapped value (`substituted`) may span, each side
POSTINGS_FROM = 64  # facts from which an entity's facts are indexed by shared words


def _words_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


Embed = Callable[[list[str]], npt.NDArray[np.float32]]

_TOKEN = re.compile(r"\d+(?:[.,:/-]\d+)*(?:st|nd|rd|th|am|pm|k)?|[^\W\d_]+", re.UNICODE)
_SPELLING = {
    "favourite": "favorite",
    "favourites": "favorites",
    "colour": "color",
    "colours": "colors",
    "neighbour": "neighbor",
    "neighbours": "neighbors",
    "organise": "organize",
    "organised": "organized",
    "centre": "center",
    "theatre": "theater",
    "cheque": "check",
    "mum": "mom",
    "grey": "gray",
    "tyre": "tire",
    "tyres": "tires",
    "metre": "meter",
    "metres": "meters",
    "litre": "liter",
    "litres": "liters",
    "programme": "program",
    "licence": "license",
    "cancelled": "canceled",
    "travelling": "traveling",
}
FILLER = _words_set("now currently still actually really also just already nowadays")
_NOT_THAT = re.compile(r"\s*,\s+not\s+(?:the\s+|a\s+|an\s+)?[\w'-]+(?:\s+[\w'-]+){0,3}\s*[.!]?\s*$")
_NOWADAYS = re.compile(r"\b(?:these\s+days|at\s+the\s+moment|right\s+now)\b")
STOP = _words_set(
    "a an the and or of to in on at by for with from is are was were be been being has "
    "have had do does did will would can could should it its this that these those as "
    "s our my your their his her we i you he she they them us me"
)
NEGATIONS = _words_set("not no never none nothing nobody t dont doesnt isnt cant wont")
DISLIKES = _words_set("dislike dislikes disliked hate hates hated detest detests loathe loathes")
LIKES = _words_set(
    "like likes liked love loves loved enjoy enjoys enjoyed prefer prefers preferred adore "
    "adores adored fond into"
)
COPULAS = _words_set("is are am s")
ARTICLES = _words_set("a an the")
# Nouns naming an attribute that holds one value at a time
ATTRIBUTES = _words_set(
    "favorite color pressure number phone mobile address email budget price cost rate "
    "deadline date time day age name password code pin passcode wifi schedule birthday "
    "size temperature thermostat setting limit balance salary rent premium provider plan "
    "status location bedtime appointment dentist doctor pediatrician vet school teacher "
    "coach job employer weight height mileage due mortgage payment deductible fee bill "
    "contractor plumber electrician insurer carrier tariff speed capacity version model "
    "owner manager agent broker lawyer accountant"
)
# Verbs (and participles) of a relation that holds one value at a time
RELATIONS = _words_set(
    "works work lives live married engaged employed moved switched costs cost expires "
    "expire renews renew due scheduled located attends attend drives set "
    "planned starts start ends end opens closes runs"
)
PAST_EVENT = re.compile(r"^(was|were)$")
# Words a schedule or an amount is made of: "every other Thursday", "8 pm", "twice a week"
TEMPORAL = _words_set(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays january february march april may june july "
    "august september october november december"
)
# Verbs that only say a value changed, before the new one: "moved to Thursdays"
CHANGED = _words_set("moved changed switched rescheduled shifted pushed bumped postponed")
SCHEDULE = _words_set(
    "every other each second first third fourth last next week weeks month months day "
    "days morning mornings evening evenings night nights am pm weekly monthly daily "
    "yearly twice once"
)


def cached_embed(
    vault: Vault,
    encoder: encoders.Encoder,
    cache: embedding_cache.EmbeddingCache | None = None,
) -> Embed:
    """An `embed` for `Deduper` that goes through the vault's embedding cache
    (`.vault/cache/embeddings`, the one semantic search keeps, keyed by model and text):
    a fact search has embedded is not encoded again, and one the heartbeat encodes is
    there for search. Without it every entity's facts are encoded on its first check
    (about 0.2 s for 20 facts on this machine's ONNX model)."""
    if cache is None:  # a loaded search engine passes its own: its keys are read already
        from vault_app.search import embedding_cache as cache_module

        cache = cache_module.EmbeddingCache(
            vault.paths.state_dir / "cache" / "embeddings", root=vault.root
        )
    held = cache
    return lambda texts: held.get_or_encode(texts, encoder)


def _fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def tokens(text: str) -> list[str]:
    """The words of `text` as dedup compares them: folded, spellings unified, "n't" -> "not",
    "these days" and "at the moment" left out as "now" is (`FILLER`), and a last ", not
    sushi" too (the value is what it is, not what it is not)."""
    folded = _NOWADAYS.sub(" ", _fold(text).replace("\u2019", "'"))
    folded = _NOT_THAT.sub("", folded)  # "… is ramen, not sushi": the value is ramen
    if "n't" in folded:
        folded = folded.replace("can't", "can not").replace("won't", "will not")
        folded = folded.replace("n't", " not")
    return [_SPELLING.get(t, t) for t in _TOKEN.findall(folded)]


def normalize(text: str) -> str:
    """`text` reduced to what makes two statements the same: folded words and numbers,
    one space between, filler words ("now", "currently") left out."""
    return " ".join(t for t in tokens(text) if t not in FILLER)


def shingles(words: list[str]) -> frozenset[str]:
    """Word shingles: every content word and every pair of adjacent words."""
    unigrams = {w for w in words if w not in STOP}
    bigrams = {f"{a} {b}" for a, b in itertools.pairwise(words)}
    return frozenset(unigrams | bigrams)


def shingle_jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _numbers(words: list[str]) -> frozenset[str]:
    return frozenset(w for w in words if w[0].isdigit())  # a token with a digit starts with one


def _negated(words: list[str]) -> bool:
    """Whether `words` deny or dislike: a negation, or a verb of dislike, not both
    ("does not like" and "dislikes" agree; "doesn't hate" is neither)."""
    return any(w in NEGATIONS for w in words) != any(w in DISLIKES for w in words)


def _denies(old: list[str], new: list[str]) -> bool:
    """Whether one of two statements, one negated, can deny the other: a dislike denies a
    liking ("Maya loves sushi" / "Maya hates sushi"), not any statement ("Walter is the
    user's dad" / "The user's dad hates cilantro"); a "not" denies whatever it negates."""
    negated, plain = (old, new) if _negated(old) else (new, old)
    if any(w in NEGATIONS for w in negated):
        return True
    return any(w in LIKES for w in plain)


def _content_stems(words: list[str]) -> set[str]:
    """Content words with a plural or third-person "s" cut: "likes" ~ "like"."""
    return {
        w[:-1] if len(w) > 3 and w.endswith("s") else w
        for w in words
        if w not in STOP and w not in NEGATIONS and w not in DISLIKES
    }


def _difference(old: list[str], new: list[str]) -> tuple[list[str], list[str], list[str], int]:
    """(the shared beginning, old's middle, new's middle, shared words) of two word
    sequences aligned on their common beginning and end."""
    limit = min(len(old), len(new))
    pre = 0
    while pre < limit and old[pre] == new[pre]:
        pre += 1
    suf = 0
    while suf < limit - pre and old[-1 - suf] == new[-1 - suf]:
        suf += 1
    return old[:pre], old[pre : len(old) - suf], new[pre : len(new) - suf], pre + suf


def update_score(old: list[str], new: list[str]) -> float | None:
    """How much of two word sequences is shared when they state one subject with two
    values (see the module's rules), or None when they do not."""
    if _negated(old) != _negated(new):
        if not _denies(old, new):
            return None
        said, says = _content_stems(old), _content_stems(new)
        shared = len(said & says) / max(len(said), len(says), 1)
        slack = max(len(said - says), len(says - said))
        return shared if shared >= 0.6 and slack <= DENIAL_SLACK else None
    subject, was, now, shared_words = _difference(old, new)
    if not was or not now:
        return None
    if len(was) > MAX_VALUE or len(now) > MAX_VALUE:
        # a number changed first and the rest was reworded: "capped at $15,000 after the
        # budget review" / "capped at $16,000 after the review": the number is the value
        if not (was[0][0].isdigit() and now[0][0].isdigit()):
            return None
        was, now = was[:1], now[:1]
    if set(was) == set(now) or not any(w not in STOP for w in subject):
        return None
    if not _single_valued(subject, was, now):
        return None
    share = shared_words / max(len(old), len(new))
    return share if share >= MIN_UPDATE else None


_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
_NAMED = r"(?P<value>[A-Z][\w'&.-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'&.-]*)*)"
# An event and the state it implies, with the value it names: a move to a named place
# (not "moved to Thursdays", a schedule), a new job at a named employer, a birthday's age
_IMPLIES = (
    (re.compile(r"\bmoved\s+(?:back\s+)?(?:from\s+\S+(?:\s+\S+)?\s+)?to\s+"
                rf"(?!(?:{_MONTH}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?)\b){_NAMED}"),
     "lives in"),
    (re.compile(r"\b(?:(?:started|starts|began|begins|got|landed|took|accepted)\s+"
                r"(?:a\s+|the\s+|an?\s+)?(?:new\s+)?(?:job|position|role)\s+(?:at|with)"
                rf"|started\s+working\s+(?:at|for))\s+{_NAMED}"), "works at"),
    (re.compile(r"\bturned\s+(?P<value>\d{1,3})\b"), "is"),
)  # fmt: skip
_AGE = re.compile(r"^\d{1,3}$")


def implied_states(text: str) -> list[list[str]]:
    """The words of the state an event of change implies, with the value it names and
    nothing after ("The user moved to Boulder in October 2026" -> "the user lives in
    boulder"); the household's move is the user's too ("We moved …": two readings).
    Empty when `text` tells no such event."""
    for pattern, state in _IMPLIES:
        found = pattern.search(text)
        if found is not None:
            said = f"{text[: found.start()]}{state} {found['value']}"
            words = [w for w in tokens(said) if w not in FILLER]
            if words[:2] == ["the", "household"]:  # the user is of the household
                return [words, ["the", "user", *words[2:]]]
            return [words]
    return []


def read_as_attribute(text: str) -> tuple[list[str], list[str]] | None:
    """The words of `text` read as the one-valued attribute it states, and of that
    attribute alone (`readings`: "Lina takes piano lessons on Tuesdays" -> "lina s piano
    lessons are on tuesdays", "Pat takes donepezil 5mg" -> "pat s donepezil dose is 5 mg"),
    so that "Lina's piano lessons moved to Thursdays" and "Pat's donepezil went up to
    10mg" are updates; None for others."""
    said = readings.reading(text)
    if said is None:
        return None
    attribute = [w for w in tokens(said.attribute) if w not in FILLER]
    return attribute + [w for w in tokens(said.value) if w not in FILLER], attribute


def _ageless(words: list[str]) -> list[str]:
    """`words` with "years old" after an age left out: "is 6 years old" reads "is 6"."""
    out: list[str] = []
    for word in words:
        if word == "old" and len(out) >= 2 and out[-1] in ("years", "year") and _AGE.match(out[-2]):
            out.pop()
            continue
        out.append(word)
    return out


def substituted(old: list[str], new: list[str]) -> bool:
    """Whether `new` is `old` with a few content words swapped for others, all else
    equal: "allergic to peanuts" / "to cats", "the kitchen faucet" / "the bathroom
    faucet", "Theo's lessons" / "Maya's lessons", "window seats on long" / "aisle seats on
    short". Another value, not a rewording, however alike the two read."""
    _, was, now, _ = _difference(old, new)
    said, says = _content_stems(was), _content_stems(now)
    short = 0 < len(was) <= MAX_SWAP and 0 < len(now) <= MAX_SWAP
    if not (short and said and says):
        return False
    # all swapped, or two words a side with a word kept between them ("window seats on
    # long flights" / "aisle seats on short flights"; one a side is a rewording: "we buy
    # coffee beans" / "our coffee beans come")
    return not said & says or (len(said - says) >= 2 and len(says - said) >= 2)


def _valued(words: list[str]) -> bool:
    """Whether a changed span is only a value: numbers, days, months and the words of a
    schedule ("every other Thursday", "8:30 pm"), at least one number, day or month."""
    values = [w for w in words if w[0].isdigit() or w in TEMPORAL]
    rest = [w for w in words if w not in STOP and w not in SCHEDULE and w not in CHANGED]
    return bool(values) and len(values) == len(rest)


def _single_valued(subject: list[str], was: list[str], now: list[str]) -> bool:
    # a shared "is"/relation inside both changed spans: the subject itself changed
    # ("colour is blue" / "food is lasagna"), not its value
    pivots = COPULAS | RELATIONS
    if set(was) & set(now) & pivots:
        return False
    past = any(PAST_EVENT.match(w) for w in subject)
    # an attribute the subject ends on, its verb following: "the boiler pressure is",
    # "Theo's school starts at" — not "Maya walks to school with" (a companion of many)
    verbs = pivots | {"was", "were"}
    for i, word in enumerate(subject):
        if word in ATTRIBUTES and (
            any(w in verbs for w in subject[i + 1 :]) or was[0] in verbs or now[0] in verbs
        ):
            return True
    if any(w in RELATIONS for w in subject) or (was[0] in RELATIONS and now[0] in RELATIONS):
        return True
    if _valued(was) and _valued(now) and not past:
        return True
    head = [w for w in subject if w not in ARTICLES]
    # "the garage door is | locked / unlocked": a one- or two-word state after "is",
    # both numbers or neither ("7 years old" / "in second grade" are two facts)
    alike = bool(_numbers(was)) == bool(_numbers(now)) and max(len(was), len(now)) <= 2
    return bool(head) and head[-1] in COPULAS and not past and alike


@dataclass(frozen=True)
class Verdict:
    kind: Literal["new", "same", "near", "update"]  # same/near: skip + mark accessed;
    fact_id: str | None  # update: supersede fact_id
    score: float


@dataclass
class _Known:
    """One active fact, prepared for comparison."""

    id: str
    text: str
    words: list[str]
    shingles: frozenset[str]
    numbers: frozenset[str]
    negated: bool
    # `read_as_attribute`: a habit as its schedule, a medicine as its dose; and the
    # attribute's words alone
    reading: tuple[list[str], list[str]] | None = None


@dataclass
class _EntityFacts:
    facts: list[_Known] = field(default_factory=list)
    exact: dict[str, str] = field(default_factory=dict)  # normalised text -> fact id
    vectors: npt.NDArray[np.float32] | None = None  # rows of `facts`, when embedding
    postings: dict[str, list[int]] | None = None  # `_keys` -> rows of `facts` holding it

    def add(self, item: _Known) -> None:
        self.facts.append(item)
        self.exact.setdefault(" ".join(item.words), item.id)
        if self.postings is not None:
            for key in _keys(item):
                self.postings.setdefault(key, []).append(len(self.facts) - 1)

    def remove(self, position: int) -> None:
        gone = self.facts.pop(position)
        text = " ".join(gone.words)
        if self.exact.get(text) == gone.id:
            del self.exact[text]
            twin = next((f.id for f in self.facts if " ".join(f.words) == text), None)
            if twin is not None:
                self.exact[text] = twin
        if self.vectors is not None:
            self.vectors = np.delete(self.vectors, position, axis=0)
        self.postings = None  # rows moved: made again when next needed

    def postings_if_worth(self) -> dict[str, list[int]] | None:
        """The postings of an entity large enough for them to pay (`POSTINGS_FROM`
        facts); None for a small one, whose facts are all compared (cheaper than
        indexing them for one or two checks)."""
        return self.index() if len(self.facts) >= POSTINGS_FROM else None

    def index(self) -> dict[str, list[int]]:
        if self.postings is None:
            postings: dict[str, list[int]] = {}
            for row, item in enumerate(self.facts):
                for key in _keys(item):
                    postings.setdefault(key, []).append(row)
            self.postings = postings
        return self.postings


def _keys(item: _Known) -> set[str]:
    """What two facts must share to be near or an update of each other: a shingle (a
    Jaccard above 0) or a content word, stemmed (a shared subject, or "likes" against
    "doesn't like")."""
    return set(item.shingles) | _content_stems(item.words)


def _known(fact_id: str, text: str) -> _Known:
    words = [w for w in tokens(text) if w not in FILLER]
    known = _Known(fact_id, text, words, shingles(words), _numbers(words), _negated(words))
    known.reading = read_as_attribute(text)
    return known


def prepare(fact_id: str, text: str) -> _Known:
    """A fact as `judge` compares it (words, shingles, numbers, negation)."""
    return _known(fact_id, text)


def judge(
    facts: list[_Known],
    text: str,
    *,
    jaccard: float = JACCARD,
    cosine: float = COSINE,
    cosines: npt.NDArray[np.float32] | None = None,
    exact: dict[str, str] | None = None,
    postings: dict[str, list[int]] | None = None,
) -> Verdict:
    """The verdict on `text` against `facts` (prepared, active), with `cosines[i]` the
    embedding cosine of `text` to `facts[i]` when embeddings are used: the rules of the
    module's docstring, in their order. The one decision `Deduper.check` and the
    calibration benchmark share.

    With `postings` (`_keys` -> rows), only the facts sharing a key with `text` are
    compared, and those the cosine alone brings near: no other can be near or an
    update, so the verdict is the same as over all of them, at the cost of the few."""
    new = _known("", text)
    implied = implied_states(text)
    reading = new.reading
    key = " ".join(new.words)
    if exact is None:
        exact = {" ".join(f.words): f.id for f in reversed(facts)}
    if key in exact:
        return Verdict("same", exact[key], 1.0)
    near: tuple[float, str] | None = None
    update: tuple[float, str] | None = None
    best = 0.0
    for row in _rows(len(facts), new, cosine, cosines, postings):
        fact = facts[row]
        changed = update_score(_ageless(fact.words), _ageless(new.words))
        for state in implied if changed is None else ():  # the state the event ends
            changed = update_score(_ageless(fact.words), state)
            if changed is not None:
                break
        if changed is None and _may_read(fact.reading, reading):  # a habit as its schedule…
            changed = update_score(
                fact.reading[0] if fact.reading else fact.words,
                reading[0] if reading else new.words,
            )
        if changed is not None:
            if update is None or changed > update[0]:
                update = (changed, fact.id)
            continue
        if fact.numbers != new.numbers or fact.negated != new.negated:
            continue  # another date, amount or a denial: never the same statement
        if substituted(fact.words, new.words):
            continue  # another value of a many-valued attribute: a fact of its own
        score = shingle_jaccard(fact.shingles, new.shingles)
        best = max(best, score)
        if score >= jaccard and (near is None or score > near[0]):
            near = (score, fact.id)
        if cosines is not None and cosines[row] >= cosine:
            similarity = float(cosines[row])
            if near is None or similarity > near[0]:
                near = (similarity, fact.id)
    if near is not None:
        return Verdict("near", near[1], near[0])
    if update is not None:
        return Verdict("update", update[1], update[0])
    return Verdict("new", None, best)


def _may_read(
    old: tuple[list[str], list[str]] | None, new: tuple[list[str], list[str]] | None
) -> bool:
    """Whether two facts are compared as the attributes they state: when either states
    one, and not when both do and they are two attributes (two medicines of one person:
    the words of their doses alike, the facts two)."""
    return bool(old or new) and not (old and new and old[1] != new[1])


def _rows(
    count: int,
    new: _Known,
    cosine: float,
    cosines: npt.NDArray[np.float32] | None,
    postings: dict[str, list[int]] | None,
) -> list[int] | range:
    if postings is None:
        return range(count)
    rows: set[int] = set()
    for key in _keys(new):
        rows.update(postings.get(key, ()))
    if cosines is not None:
        rows.update(int(r) for r in np.flatnonzero(cosines >= cosine))
    return sorted(rows)


class Deduper:
    """Checks candidates against the active facts of their entities, one run long."""

    def __init__(
        self,
        vault: Vault,
        *,
        embed: Embed | None = None,
        jaccard: float = JACCARD,
        cosine: float = COSINE,
    ) -> None:
        self.vault = vault
        self.embed = embed
        self.jaccard = jaccard
        self.cosine = cosine
        self._cache: dict[layout.EntityRef, _EntityFacts] = {}

    def check(
        self, ref: layout.EntityRef, text: str, category: models.FactCategory | None = None
    ) -> Verdict:
        """What `text` is to the entity `ref` knows: same, near, an update of a fact, or new.

        `category` is accepted for the runner's sake; the rules do not need it (a changed
        value is one whatever its category)."""
        known = self._facts(ref)
        verdict = judge(
            known.facts,
            text,
            jaccard=self.jaccard,
            cosine=self.cosine,
            exact=known.exact,
            postings=known.postings_if_worth(),
        )
        if self.embed is None or verdict.kind in ("same", "near"):
            return verdict  # the words decided: no encoding needed
        return judge(
            known.facts,
            text,
            jaccard=self.jaccard,
            cosine=self.cosine,
            cosines=self._cosines(known, text),
            exact=known.exact,
            postings=known.postings_if_worth(),
        )

    def added(self, ref: layout.EntityRef, fact: models.Fact) -> None:
        """Tell the cache about a fact the run wrote to `ref`: an active one joins it, an
        inactive one (the old side of a supersede) leaves it. An entity not read yet
        is left alone: it will be read with the fact."""
        known = self._cache.get(ref)
        if known is None:
            return
        position = next((i for i, k in enumerate(known.facts) if k.id == fact.id), None)
        if position is not None:
            known.remove(position)
        if not fact.is_active:
            return
        known.add(_known(fact.id, fact.fact))
        if known.vectors is not None and self.embed is not None:
            known.vectors = np.vstack([known.vectors, self._vectors([fact.fact])])

    def forget(self, ref: layout.EntityRef | None = None) -> None:
        """Drop the cache of `ref` (of every entity when None): read again on next use."""
        if ref is None:
            self._cache.clear()
        else:
            self._cache.pop(ref, None)

    # -- the cache -----------------------------------------------------------------------

    def _facts(self, ref: layout.EntityRef) -> _EntityFacts:
        known = self._cache.get(ref)
        if known is None:
            known = _EntityFacts()
            try:
                view = self._entity(ref)
            except errors.NotFoundError:  # about to be made (a route with create=True)
                self._cache[ref] = known
                return known
            for fact in view.facts:
                if fact.is_active:
                    known.add(_known(fact.id, fact.fact))
            self._cache[ref] = known
        return known

    def _entity(self, ref: layout.EntityRef) -> models.EntityFacts:
        """`vault.entity(ref)` without its summary (a second read dedup never needs)."""
        folder = self.vault.paths.existing_entity_dir(ref)
        facts_path = self.vault.paths.facts_path(folder)
        try:
            data: bytes | errors.CorruptFileError | None = self.vault.read_bytes(facts_path)
        except errors.CorruptFileError as exc:
            data = exc
        summary = models.Document(folder / layout.SUMMARY_NAME, None, None)
        return self.vault.entity_view(ref, folder, facts_path, data, summary)

    def _cosines(self, known: _EntityFacts, text: str) -> npt.NDArray[np.float32] | None:
        if self.embed is None or not known.facts:
            return None
        if known.vectors is None:
            known.vectors = self._vectors([k.text for k in known.facts])
        query = self._vectors([text])[0]
        return np.asarray(known.vectors @ query, dtype=np.float32)

    def _vectors(self, texts: list[str]) -> npt.NDArray[np.float32]:
        assert self.embed is not None
        rows: Any = self.embed(texts)
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
