"""Who someone is, as a message goes on telling it: the "my dad" told of, whom a later
"His name is Raymond" names and a "she"/"he" opening a sentence stands for, and the names
an entry gave before a fact that names no one (where that fact may go: routing's
`around`). Read sentence by sentence by `rules.candidates`, which carries the state, and
from one message to the next of the same speaker and conversation (`rules.Thread`)."""

from __future__ import annotations

import re

from vault_app.heartbeat import rulebook, subjects

_HE_OPENS = re.compile(r"(?:(?P<he>He)|She)(?:(?P<s>['’]s)|(?=\s+[a-z]))")


def names_in(sentences: list[str]) -> tuple[str, ...]:
    """The names `sentences` give, the latest sentence's first."""
    pats = rulebook.patterns()
    found: list[str] = []
    for sentence in reversed(sentences):
        found += [n for n in subjects.related(sentence, None, pats) if n not in found]
    return tuple(found)


def named_kin(
    sentence: str, kin: tuple[str, str] | None, person: str | None
) -> tuple[str, tuple[str, str] | None]:
    """The sentence with a name given to someone told of before read as a relationship
    ("My dad moved in with us. His name is Raymond, he's 78." -> "My dad is named
    Raymond, he's 78.": "Raymond is the user's dad.", "Raymond is 78."), and a "she"/"he"
    opening it read as them when no one was named since ("My mum turns 60 in June. She
    loves Italian food." -> "My mum loves Italian food."); only a "his"/"he" of a dad, a
    "her"/"she" of a daughter. And the last "my <role>" it tells of, for the next."""
    pats = rulebook.patterns()
    sentence = pats.role_name.sub(r"\g<who> is named ", sentence)  # "My dad's name is …"
    sentence = pats.role_is.sub(r"\g<who>, \g<name>, ", sentence, 1)  # "My vet is Dr. Ames, she…"
    said = pats.name_is.match(sentence)
    if said and kin is not None:
        he = bool(said.group("his") or said.group("he"))
        if (kin[1].lower() in pats.his) == he:
            sentence = f"{kin[0].capitalize()} {kin[1]} is named {sentence[said.end() :]}"
    elif kin is not None and person is None and (pronoun := _HE_OPENS.match(sentence)):
        verb = " is" if pronoun["s"] else ""
        if (kin[1].lower() in pats.his) == (pronoun["he"] is not None):
            sentence = f"{kin[0].capitalize()} {kin[1]}{verb}{sentence[pronoun.end() :]}"
    found = list(pats.kin.finditer(sentence))
    return sentence, (found[-1]["pos"], found[-1]["role"]) if found else kin
