"""Whether a clause speaks of the past: the side of today a bare date lies on.

"We went on Friday" is the Friday gone, "the plumber comes on Friday" the one to come;
`dates` asks `past` of the clause around a date that says no side ("on Friday", "in
June", "on the 23rd", "at Christmas"). A clause is past when it holds a past verb (the
common irregular ones, or a word in -ed) and no future ("will", "going to", "booked"),
unless its last verb tells a present after that past ("I got promoted, starting August
1": `_told_now`). Every look is bounded (100 characters either side of the date).
"""

from __future__ import annotations

import re

_PAST = re.compile(
    r"\b(?:was|were|did|had|went|got|came|ago|yesterday|last|passed|finished|happened"
    # the common irregular pasts ("Maya made the chess team on Friday": the Friday gone)
    r"|made|took|saw|met|bought|sold|left|found|gave|ran|won|lost|paid|sent|told|said|began"
    r"|brought|caught|felt|kept|spent|thought|wore|wrote|ate|drove|flew|fell|held|heard|led"
    r"|sat|stood|swam|sang|taught|threw|woke|broke|chose|fought|forgot|grew|knew|rode|rang"
    r"|spoke|slept|built|became|dug|drew|fed|froze|hung|meant|sank|shook|stuck|swept"
    r"|[a-z]{2,20}ed)\b",
    re.IGNORECASE,
)
FUTURE = re.compile(
    r"\b(?:will|going\s+to|'ll|is\s+coming|scheduled|planned|booked)\b", re.IGNORECASE
)
# a clause in the present or about to be, whatever the sentence around it did before
_NOW = re.compile(
    r"\b(?:is|are|starts?|starting|begins?|beginning|opens?|ends?|expires?|renews?|due"
    r"|effective|arrives|arriving|ships|lands|comes|pickup|pick-up|delivery|drop-off)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?\n]")
_HEAD_END = re.compile(r"[.!?](?=\s)|\n")  # a sentence's end before a date: not a decimal
_CLAUSE_END = re.compile(r"[,;]")
_WORDS = re.compile(r"[A-Za-z']+")


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence holding [start, end), at most 100 characters either side."""
    head, tail = text[max(0, start - 100) : start], text[end : end + 100]
    stop = _SENTENCE_END.search(tail)
    opening = max(head.rfind(mark) for mark in ".!?\n") + 1
    return head[opening:] + tail[: stop.start() if stop else None]


def past(text: str, start: int, end: int) -> bool:
    """Whether the clause around [start, end) reads as past (a bounded look around): the
    part of its sentence between commas or semicolons ("The pickup moved to Thursdays,
    the bins go out on Wednesday night": not past), or the whole sentence when the phrase
    stands alone in its clause ("On Friday, we went to the zoo") — not when the clause
    says its own present ("I got promoted, starting August 1": the August to come)."""
    lo = max(0, start - 100)
    head = text[lo:start]
    ends = [m.end() for m in _HEAD_END.finditer(head)]  # not "$89.99", "Dr. Lin"'s stop
    cut = ends[-1] if ends else 0
    tail = text[end : end + 100]
    stop = _SENTENCE_END.search(tail)
    head, tail = head[cut:], tail[: stop.start() if stop else len(tail)]
    near = head[max(head.rfind(","), head.rfind(";")) + 1 :]
    after = _CLAUSE_END.split(tail, maxsplit=1)[0]
    clause = f"{near} {after}"
    if _told_now(near):  # "…, lease starts sept 1", "I told Alex the quote expires on…"
        return False
    if len(_WORDS.findall(clause)) < 3:  # "On Friday," / "on Monday": no verb of its own
        clause = f"{head} {tail}"
    if FUTURE.search(clause):
        return False
    return _PAST.search(clause) is not None


def _told_now(clause: str) -> bool:
    """Whether a clause tells of a present after whatever past it has: "starting August 1"
    after "I got promoted", "the quote expires on" after "I told Alex" — the last verb
    before the date is a present one, not "was due"."""
    nows = list(_NOW.finditer(clause))
    if not nows:
        return False
    pasts = [p for p in _PAST.finditer(clause) if not _PASSIVE.search(clause, 0, p.start())]
    if not pasts:
        return True
    last = nows[-1]
    return last.start() > pasts[-1].end() and not _WAS.search(clause, 0, last.start())


_WAS = re.compile(r"\b(?:was|were|had|been)\s+$", re.IGNORECASE)  # "was due", not "is due"
# a present passive is no past: "the school is closed until …", "the bins are collected on …"
_PASSIVE = re.compile(r"\b(?:is|are|am|be|['’]s|['’]re)\s+$", re.IGNORECASE)
