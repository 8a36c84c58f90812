"""What the agents did, told as a person reads it: audit lines made sentences (issue 30).

Design
------
The audit log says what was written and where (`core.activity`); a person checking on
their agents asks *who did what, where*, in words: "maintenance added “Marcus Bell now
charges $110 an hour from January” to Marcus Bell". `tell(v, lines)` reads the lines
the Activity page shows (any face may) and gives one `Told` each:

* **who**: the agent's id, "heartbeat", or "You" for the person at vault-app's faces
  (`gui`, `cli`, `api`, `demo`: never those names); another person by their name;
* **did**: the verb with the fact's own text, read from the entity's fact file by the
  line's `factId` (each entity read once for all its lines); a revert says so ("reverted
  a fact to …"), a held-back write what the agent proposed, read from its proposal;
* **where**: the entity's title ("Marcus Bell", an agent's entity with its agent in
  brackets), a daily note by whose it is and its day, the review queue for a held-back
  write (with `review_id`, so a face opens the item), else the file's path;
* **reverted**: the fact version the line wrote has been taken back since (a revert
  superseded it, `metadata.reverted`, or withdrew it, `revert.REASON`), read from the
  fact file, so an undone revert is no longer marked and a face offers Revert only
  where it can act.

Nothing here writes; a fact file or a proposal that cannot be read leaves its lines told
without the text ("added a fact"), never an error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from vault_app.core import activity, actors, errors, layout, models, revert, review, vault

YOU = "You"  # the person at vault-app's faces
TEXT_LIMIT = 120  # characters of a fact's text in a sentence


@dataclasses.dataclass(frozen=True)
class Told:
    """One audit line in words (see the module docstring)."""

    who: str
    kind: str  # "agent", "heartbeat" or "person"
    did: str  # 'added “…”', 'changed a fact to “…”', 'proposed to add “…”'
    where: str  # the entity's title, "the review queue", a daily note, a file
    address: str | None = None  # the entity, when the line wrote one
    review_id: str | None = None  # a held-back write's review item
    reverted: bool = False  # the version written was taken back since

    @property
    def sentence(self) -> str:
        """ "maintenance added “…” to Marcus Bell" (a held-back write: "… — held back")."""
        verb, _, rest = self.did.partition(" ")
        joint = _JOINTS.get(verb, "in") if rest else ""  # "archived Marcus Bell"
        told = " ".join(part for part in (self.who, self.did, joint, self.where) if part)
        return told + (" (since reverted)" if self.reverted else "")


_JOINTS = {"added": "to", "proposed": "for", "approved": "for", "rejected": "for", "rewrote": "of"}


def tell(
    v: vault.Vault | None, lines: Iterable[Mapping[str, Any]], agent_ids: Iterable[str] = ()
) -> list[Told]:
    """Each line in words, in order (see the module docstring). Without a vault (a
    neighbour's folder: no fact files, no proposals here) from the lines alone."""
    ids = tuple(agent_ids)
    entities = _Entities(v)
    proposals: dict[str, dict[str, Any] | None] = {}
    return [_tell(v, line, ids, entities, proposals) for line in lines]


def who(actor: str, agent_ids: Iterable[str] = ()) -> str:
    """An actor as the person reads it: an agent's id, "heartbeat", "You" for the app's
    faces, another person's name."""
    ids = tuple(agent_ids)
    if activity.actor_kind(actor, ids) == "person" and actors.is_face(actor):
        return YOU
    return activity.actor_title(actor, ids)


def title(address: str) -> str:
    """An entity's title ("areas/people/marcus-bell" → "Marcus Bell"; an agent's entity
    with its agent: "Budget Review (finance)"); the address itself if it is none."""
    try:
        ref = layout.EntityRef.parse(address)
    except errors.VaultError:
        return address
    return f"{ref.title} ({ref.agent})" if ref.agent else ref.title


def quoted(text: str) -> str:
    text = " ".join(text.split())
    return f"“{text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + '…'}”"


def _tell(
    v: vault.Vault | None,
    line: Mapping[str, Any],
    ids: tuple[str, ...],
    entities: _Entities,
    proposals: dict[str, dict[str, Any] | None],
) -> Told:
    actor = str(line.get("actor", ""))
    kind = activity.actor_kind(actor, ids)
    person = who(actor, ids)
    action = str(line.get("action", ""))
    address = activity.entity_of(line)
    where = title(address) if address else _place(str(line.get("target", "")))
    fact_id = line.get("factId")
    fact = entities.fact(address, fact_id) if address and isinstance(fact_id, str) else None
    text = quoted(fact.fact) if fact is not None else None
    reverted = bool(fact_id) and entities.reverted(address, fact_id)
    told = Told(person, kind, _did(action, line, text, entities, address), where, address)
    if action.startswith("review."):
        review_id = str(line.get("review") or PurePosixPath(str(line.get("target"))).stem)
        if review.is_id(review_id):
            told = _held(v, told, action, review_id, proposals)
    return dataclasses.replace(told, reverted=reverted)


def _did(
    action: str,
    line: Mapping[str, Any],
    text: str | None,
    entities: _Entities,
    address: str | None,
) -> str:
    reverts = line.get("reverts")
    if isinstance(reverts, str) and reverts and address:
        taken = entities.fact(address, reverts)
        what = quoted(taken.fact) if taken is not None else "an agent's write"
        back = f", back to {text}" if text and action == "fact.supersede" else ""
        return f"reverted {what}{back}"
    if action == "fact.add":
        return f"added {text}" if text else "added a fact"
    if action == "fact.supersede":
        return f"changed a fact to {text}" if text else "changed a fact"
    if action in ("fact.archive", "fact.retract", "fact.reinstate"):
        verb = action.split(".", 1)[1] + "d"
        return f"{verb} {text}" if text else f"{verb} a fact"
    if action == "daily.append":
        return "wrote an entry"
    if action in _ACTION_WORDS:
        return _ACTION_WORDS[action]
    return _plain(action)  # "wrote a memory tier"


ACTIONS = {  # each audit action titled, as a list shows it
    "fact.add": "Added a fact",
    "fact.supersede": "Changed a fact",
    "fact.archive": "Archived a fact",
    "fact.retract": "Retracted a fact",
    "fact.reinstate": "Reinstated a fact",
    "fact.access": "Marked facts read",
    "daily.append": "Wrote in a daily note",
    "daily.retract": "Retracted a daily entry",
    "document.edit": "Edited a document",
    "summary.edit": "Edited a summary",
    "summary.synthesize": "Rewrote a summary",
    "index.synthesize": "Rewrote an index",
    "entity.create": "Created an entity",
    "entity.archive": "Archived an entity",
    "entity.restore": "Restored an entity",
    "config.save": "Changed the settings",
    "review.propose": "Held back for review",
    "review.approve": "Approved a held-back write",
    "review.reject": "Rejected a held-back write",
    "file.create": "Created a file",
    "doctor.restore": "Restored a file from backup",
    "file.restore": "Restored a file from backup",
    "sync.merge": "Merged another device's changes",
    "sync.resolve": "Merged a sync conflict by hand",
    "heartbeat.cursor": "Moved its cursor",
    "heartbeat.schedule": "Noted its schedule",
    "heartbeat.lease": "Took the runner lease",
    "heartbeat.mentions": "Counted mentions",
    # a neighbour's folder (Hermes' § notes, PicoClaw's profile, MicroClaw's tiers)
    "notes.add": "Added a notes entry",
    "notes.replace": "Replaced a notes entry",
    "notes.remove": "Removed a notes entry",
    "notes.batch": "Changed notes entries",
    "notes.write": "Rewrote the notes",
    "notes.drift_backup": "Kept a .bak of the notes",
    "profile.set": "Set a profile key",
    "profile.delete": "Deleted a profile key",
    "profile.write": "Rewrote the profile",
    "tiers.write": "Wrote a memory tier",
}


_ACTION_WORDS = {
    "fact.access": "read facts",
    "daily.retract": "retracted a daily entry",
    "document.edit": "edited",
    "summary.edit": "edited the summary",
    "summary.synthesize": "rewrote the summary",
    "index.synthesize": "rewrote the index",
    "entity.create": "created",
    "entity.archive": "archived",
    "entity.restore": "restored",
    "config.save": "changed the settings",
    "file.create": "created",
    "doctor.restore": "restored from a backup",
    "file.restore": "restored from a backup",
    "sync.merge": "merged another device's changes",
    "sync.resolve": "merged a sync conflict by hand",
}


def _place(target: str) -> str:
    """Where a line that wrote no entity went, in words: a daily note by whose it is and
    its day, else the file's path in the vault."""
    parts = PurePosixPath(target).parts
    if len(parts) >= 3 and parts[-2] == "daily" and parts[-1].endswith(".md"):
        day = parts[-1][: -len(".md")]
        owner = f"{parts[1]}'s" if parts[0] == "agents" else "the global"
        return f"{owner} daily note of {day}"
    return target


def _held(
    v: vault.Vault | None,
    told: Told,
    action: str,
    review_id: str,
    proposals: dict[str, dict[str, Any] | None],
) -> Told:
    """A review line told by its proposal: what the agent proposed, and where."""
    if review_id not in proposals and v is None:
        proposals[review_id] = None
    if review_id not in proposals:
        assert v is not None
        try:
            proposals[review_id] = review.describe(review.get(v, review_id))
        except (errors.VaultError, OSError, ValueError):
            proposals[review_id] = None
    d = proposals[review_id]
    if d is None:  # no proposal to read (a neighbour's folder, or it is gone)
        return dataclasses.replace(
            told, did=_plain(action), where="the review queue", review_id=review_id
        )
    target = str(d["target"]) if d else ""
    shown = quoted(str(d["text"])) if d and d.get("text") else "a write"
    kind = str(d["kind"]).replace("_", " ") if d else "write"
    place = title(target) if target else "the review queue"
    if action == "review.propose":
        did = f"proposed to {kind} {shown} (held back for review)"
    elif action == "review.approve":
        did = f"approved {d['agent'] if d else 'an agent'}'s held-back {shown}"
    elif action == "review.reject":
        did = f"rejected {d['agent'] if d else 'an agent'}'s held-back {shown}"
    else:
        did = f"could not apply the held-back {shown}"
    return dataclasses.replace(told, did=did, where=place, review_id=review_id)


def _plain(action: str) -> str:
    titled = ACTIONS.get(action, action)
    return titled[:1].lower() + titled[1:]


class _Entities:
    """Each entity's facts read once, by id, for all the lines that name it."""

    def __init__(self, v: vault.Vault | None) -> None:
        self.v = v
        self._facts: dict[str, dict[str, models.Fact]] = {}

    def _of(self, address: str) -> dict[str, models.Fact]:
        if address not in self._facts:
            facts: list[models.Fact] = []
            if self.v is not None:
                try:
                    facts = list(self.v.entity(address).facts)
                except (errors.VaultError, OSError):
                    facts = []
            self._facts[address] = {f.id: f for f in facts}
        return self._facts[address]

    def fact(self, address: str, fact_id: str) -> models.Fact | None:
        return self._of(address).get(fact_id)

    def reverted(self, address: str | None, fact_id: Any) -> bool:
        """Whether the version `fact_id` was taken back: superseded by a revert, or
        withdrawn by one."""
        if not address or not isinstance(fact_id, str):
            return False
        facts = self._of(address)
        fact = facts.get(fact_id)
        if fact is None or fact.is_active:
            return False
        archived = fact.metadata.get("archived")
        if isinstance(archived, dict) and archived.get("reason") == revert.REASON:
            return True
        after = facts.get(fact.superseded_by or "")
        note = after.metadata.get("reverted") if after is not None else None
        return isinstance(note, dict) and note.get("fact") == fact_id
