"""A message typed to an assistant in a hurry, written out before the rules read it
(`spelled`): "i", "im", "dont", "dr feldman", a sentence begun in lower case. What was
written properly comes back unchanged."""

from __future__ import annotations

import re

from vault_app.heartbeat import rulebook

# what a person types to an assistant in a hurry: "i", "im", "dont", a sentence begun
# in lower case ("just passed my driving test!!! first try")
_LOWER_I = re.compile(r"(?<![\w.'’-])i(?=['’](?:m|ve|d|ll)\b|(?![\w.'’-]))")
_NO_APOSTROPHE = {
    "im": "I'm", "ive": "I've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't",
    "cant": "can't", "wont": "won't", "isnt": "isn't", "wasnt": "wasn't", "arent": "aren't",
    "werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't",
    "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't", "shes": "she's",
    "thats": "that's", "whats": "what's", "theyre": "they're", "youre": "you're",
}  # fmt: skip
_UNWRITTEN = re.compile(r"\b(?:" + "|".join(_NO_APOSTROPHE) + r")\b")
# a title before a name typed in lower case: "dr feldman", "mrs. okafor"
_TITLED = re.compile(r"\b(dr|mr|mrs|ms|prof)\b\.?\s+([A-Za-z][a-z'’-]{1,30})\b")
_TITLES = {"dr": "Dr.", "mr": "Mr.", "mrs": "Mrs.", "ms": "Ms.", "prof": "Prof."}
_LOWER_START = re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=[.!?]\s\s))[a-z](?=[a-z'’]*(?:[\s,;:!?]|$))", re.MULTILINE
)


def spelled(text: str) -> str:
    """A message typed in a hurry, written out: "i"/"im"/"dont" -> "I"/"I'm"/"don't", a
    name after a title capitalised ("dr feldman" -> "Dr. Feldman"), a sentence's first
    word capitalised ("remember im allergic to cats" -> "Remember I'm
    allergic to cats"; "…test!!! first try" -> "…test!!! First try"). What was written
    properly comes back unchanged; a word with a capital inside ("iPhone") is left, and so is
    what follows an abbreviation ("e.g. this")."""
    text = _LOWER_I.sub("I", text)
    text = _UNWRITTEN.sub(lambda m: _NO_APOSTROPHE[m.group()], text)
    text = _TITLED.sub(lambda m: f"{_TITLES[m[1]]} {m[2].capitalize()}", text)  # "dr feldman"

    def capital(match: re.Match[str]) -> str:
        before = text[: match.start()].rstrip().rsplit(None, 1)
        after = before[-1].rstrip(".").lower() if before else ""
        if (len(after) == 1 and after.isalpha()) or after in rulebook.patterns().abbreviations:
            return match.group()  # "e.g. this", "Dr. who": no sentence ended
        return match.group().upper()

    return _LOWER_START.sub(capital, text)
