"""Who holds a role for someone, and the fact that named the holder before.

A relationship fact names the holder of a role for an owner — "Leila's neurologist is
Dr. Okafor.", "The household's new vet is Dr. Moss at Oak Street.", "Dr. Wu is Mom's
cardiologist.", "The household's landlord is now Greg Mills." — and is kept in the
holder's entity. When the role passes to someone else ("Leila's new neurologist is
Dr. Brandt"), the fact naming the one before lives in another entity, where dedup (which
compares the facts of one entity) never looks, and it would stay current beside the new
one: the agent asked "who is Leila's neurologist?" would find both.

`holding(text)` reads such a fact: its owner, its role, and whether it says the holder
is new ("new", "now"). A new holding *replaces* the one before only when it says so (a
person may have two doctors, two landlords: "Mom's doctor is Dr. Ames" beside "Mom's
doctor is Dr. Wu" is a second doctor, "Mom's new doctor is Dr. Ames" a change; a
supersede that is wrong hides a true fact) and its role is not one a person has several
of or that a new one does not replace (`[relationship] not_replaced` in the rules'
lists: kin, friends, pets — "Leila's new friend is Sam" is one more).

`Holders.previous` finds, among the current facts of the new fact's memory
(`Vault.facts_mentioning`: the role's word first, raw), the ones with the same owner and
role in an entity other than the new fact's; the run supersedes the newest across the two
entities (`Vault.supersede_fact(into=)`) when its agent may write there.

`Holders.holder` finds whom a fact names as someone's role, when one entity is named: the
router sends a fact of the user's kin there ("The user's dad hates being called Wally" to
the entity holding "Walter is the user's dad.", not to the user's own Me).

A scan reads one memory (global, or one agent's: a fact never retires one in another) for
one role, once a run, and costs about one read of that memory's fact files (0.8 s on the
200,000-fact vault, 10 ms on the demo's), paid only by a run that meets a new holder or a
fact of the user's kin; what the run writes and retires then keeps it current.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re

from vault_app.core import decay, layout, models
from vault_app.core.vault import Vault
from vault_app.heartbeat import wordlists


@dataclasses.dataclass(frozen=True)
class Holding:
    owner: str  # as written: "Leila", "The household", "Mom"
    role: str  # as in the rules' list: "neurologist"
    new: bool  # "new …", "is now …"

    @property
    def key(self) -> tuple[str, str]:
        return self.owner.casefold(), self.role.casefold()


@dataclasses.dataclass(frozen=True)
class _Lists:
    owned: re.Pattern[str]  # "Leila's new neurologist is now …"
    held: re.Pattern[str]  # "Dr. Wu is Mom's cardiologist"
    not_replaced: frozenset[str]


@functools.cache
def _lists() -> _Lists:
    relationship = wordlists.words()["relationship"]
    roles = wordlists.alt(relationship["roles"])
    owner = (
        r"(?P<owner>[Tt]he\s+(?:household|user)|[A-Z][\w’'. -]{0,40}?)['’]s\s+"
        r"(?P<new>new\s+)?(?P<role>" + roles + r")"
    )
    return _Lists(
        owned=re.compile(
            r"^" + owner + r"(?:\s+(?:in\s+\d{4}|this\s+year))?\s+is\s+(?P<now>now\s+)?[A-Z]"
        ),
        held=re.compile(
            r"^[A-Z][^,;]{0,60}?\s+is\s+(?P<now>now\s+)?" + owner + r"(?:\s+now)?\s*\.?$"
        ),
        not_replaced=frozenset(r.casefold() for r in relationship["not_replaced"]),
    )


_NOW_AT_END = re.compile(r"\bnow\W*$")  # "The household's dentist is Dr. Lee now."


def holding(text: str) -> Holding | None:
    """The owner and role a fact names a holder of, None if it names none."""
    lists = _lists()
    told = lists.owned.match(text) or lists.held.match(text)
    if told is None:
        return None
    role = " ".join(told["role"].split())
    owner = told["owner"].strip()
    new = told["new"] or told["now"] or _NOW_AT_END.search(text)
    return Holding(owner[0].upper() + owner[1:], role, bool(new))


def replaces(new: Holding) -> bool:
    """Whether `new` takes the role from whoever held it before (see the module doc)."""
    return new.new and new.role.casefold() not in _lists().not_replaced


_LONG_AGO = dt.datetime.min.replace(tzinfo=dt.UTC)


def _when(fact: models.Fact) -> dt.datetime:
    return _LONG_AGO if fact.timestamp is None else decay.as_aware(fact.timestamp)


class Holders:
    """The facts naming a holder of a role, found once a run for each memory (global, or
    one agent's) and role, and kept as the run writes and retires them."""

    def __init__(self) -> None:
        self._seen: dict[
            tuple[str | None, str], dict[str, tuple[layout.EntityRef, Holding, models.Fact]]
        ] = {}

    def previous(
        self, reader: Vault, ref: layout.EntityRef, text: str
    ) -> list[tuple[layout.EntityRef, models.Fact]]:
        """The current facts of `ref`'s memory (global, or its agent's) that name another
        holder of the role `text` gives someone, when it replaces them (outside `ref`,
        the new fact's entity), newest first; `reader` reads that memory."""
        if "new" not in text and "now" not in text:  # (most facts: no regex)
            return []
        new = holding(text)
        if new is None or not replaces(new):
            return []
        found = self._holdings(reader, ref.agent, new.role)
        same = [(w, f) for w, told, f in found.values() if w != ref and told.key == new.key]
        return sorted(same, key=lambda pair: _when(pair[1]), reverse=True)

    def holder(
        self, reader: Vault, scope: str | None, owner: str, role: str
    ) -> layout.EntityRef | None:
        """The entity of memory `scope` that a current fact names as `owner`'s `role`
        ("Walter is the user's dad." in Walter's), when exactly one does; else None."""
        key = Holding(owner, role, False).key
        found = self._holdings(reader, scope, role)
        held = {where for where, told, _fact in found.values() if told.key == key}
        return held.pop() if len(held) == 1 else None

    def _holdings(
        self, reader: Vault, scope: str | None, role: str
    ) -> dict[str, tuple[layout.EntityRef, Holding, models.Fact]]:
        key = (scope, role.casefold())
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = {}
            for where, fact in reader.facts_mentioning(role, scope):
                told = holding(fact.fact)
                if told is not None and told.role.casefold() == key[1]:
                    found[fact.id] = (where, told, fact)
        return found

    def wrote(self, ref: layout.EntityRef, fact: models.Fact, retired: str | None) -> None:
        """`fact` was written in `ref`, retiring fact id `retired` (if any: of any role,
        "… is our dentist" changed to "… is our vet")."""
        if not self._seen:  # no holder looked for yet this run: nothing to keep
            return
        if retired is not None:
            for seen in self._seen.values():
                seen.pop(retired, None)
        told = holding(fact.fact)
        found = None if told is None else self._seen.get((ref.agent, told.role.casefold()))
        if told is not None and found is not None:
            found[fact.id] = (ref, told, fact)
