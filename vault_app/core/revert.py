"""Taking an agent's fact write back: a supersede back to the version before it, never a
delete.

Design
------
`revert_fact(v, fact_id)` takes the version an agent wrote (the `factId` of its audit
line) and:

* for a changed fact (the version supersedes another): supersedes it with a new active
  fact holding the predecessor's text, category, related entities, confidence and agent
  (`metadata.reverted` names the version taken back and the one restored). The agent's
  version stays, superseded, in the history; history does not fork.
* for an added fact (nothing before it): withdraws it as an archive does (status
  superseded by nothing, `metadata.archived` with the reason), kept in the history.

It refuses (`ChangedSinceError`, naming what changed) when the version is no longer the
current one: superseded since (by whom the audit log does not need to say: the successor
is named), archived, or retracted. The check and the write happen under the file's lock,
in the same read-modify-write (`facts.Facts.edit`), so nothing written between them is
overwritten. Access counts are not a change: an agent reading the fact does not stop a
revert.

`revert_line(v, line)` does the same from an audit line (`fact.add`, `fact.supersede`),
refusing lines that name no fact or a kind of write that is not a fact's version.
Undoing a revert is the faces' business (the window's undo command reinstates the agent's
version and withdraws the restored one, as undoing any supersede does).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from vault_app.core import errors, facts, formats, layout, models, vault

REVERTIBLE = ("fact.add", "fact.supersede")
_STATUS_NOTES = ("archived", "retracted", "reverted")
REASON = "reverted: an agent's added fact taken back"  # the withdrawn fact's archive note


class ChangedSinceError(errors.InvalidFactError):
    """The version to take back is no longer the current one; nothing was written."""


@dataclasses.dataclass(frozen=True)
class Reverted:
    """What a revert did: `taken_back` is the agent's version as it is now (superseded or
    withdrawn); `restored` the new active fact holding the predecessor's content (None
    when an added fact was withdrawn); `entity` the address."""

    entity: str
    taken_back: models.Fact
    restored: models.Fact | None

    @property
    def withdrawn(self) -> bool:
        return self.restored is None


def revert_line(v: vault.Vault, line: Mapping[str, Any]) -> Reverted:
    """Revert the fact version an audit line wrote (see `revert_fact`)."""
    action, fact_id = line.get("action"), line.get("factId")
    if action not in REVERTIBLE or not isinstance(fact_id, str) or not fact_id:
        raise errors.InvalidFactError(
            f"only a fact added or changed can be reverted, not {action or 'this write'!s}"
        )
    return revert_fact(v, fact_id)


def revert_fact(v: vault.Vault, fact_id: str) -> Reverted:
    """Supersede the version `fact_id` back to its predecessor (or withdraw it if it was
    added); refused with `ChangedSinceError` if it changed since (see the module doc)."""
    ref, version = v.fact(fact_id)
    editor = facts.Facts(v.paths, v.storage, v.now, v.actor)
    if not version.supersedes:
        return _withdraw(editor, ref, fact_id)
    where, before = v.fact(version.supersedes)
    return _supersede_back(editor, ref, fact_id, before, where)


def _current(ff: formats.FactFile, fact_id: str) -> tuple[int, models.Fact]:
    """The version's place and state, refused unless it is still the current one."""
    index = ff.index_of(fact_id)
    fact = ff.fact_at(index)
    _current_fact(fact, lambda fid: _text_of(ff, fid))
    return index, fact


def _current_fact(fact: models.Fact, text_of: Callable[[str], str]) -> None:
    """ChangedSinceError unless `fact` is the current version (`text_of` a fact id's
    text, for the message)."""
    fact_id = fact.id
    if fact.superseded_by is not None:
        raise ChangedSinceError(
            f"fact {fact_id} changed since: it was superseded by {fact.superseded_by} "
            f"(“{_short(text_of(fact.superseded_by))}”); revert that version instead"
        )
    if not fact.is_active:
        how = "archived" if "archived" in fact.metadata else "withdrawn"
        note = fact.metadata.get("archived") or fact.metadata.get("retracted")
        by = f" by {note.get('by')} at {note.get('at')}" if isinstance(note, dict) else ""
        raise ChangedSinceError(f"fact {fact_id} changed since: it was {how}{by}")


def _supersede_back(
    editor: facts.Facts,
    ref: layout.EntityRef,
    fact_id: str,
    before: models.Fact,
    where: layout.EntityRef,
) -> Reverted:
    """The predecessor's content back as a new version, in the predecessor's entity
    (`where`: another one when the version took a role to someone else)."""
    note = {"fact": fact_id, "restores": before.id, "by": editor.actor}
    # the predecessor's notes travel with its content; its own status notes do not
    kept = {k: v for k, v in before.metadata.items() if k not in _STATUS_NOTES}

    def restored(new_id: str, dialect: formats.Dialect) -> dict[str, Any]:
        return formats.new_entry(
            dialect,
            fact_id=new_id,
            text=before.fact,
            category=before.category,
            now=editor.now(),
            source=None,
            related=before.related_entities,
            agent_id=before.agent_id,
            confidence=float(before.confidence),
            metadata={**kept, "reverted": note},
            supersedes=fact_id,
        )

    if where != ref:

        def current(fact: models.Fact) -> models.Fact:
            _current_fact(fact, lambda _fid: "in another entity")
            return fact

        taken, back = editor.supersede_across(
            ref, fact_id, where, lambda _old, new_id, dialect: restored(new_id, dialect),
            check=current, reverts=fact_id,
        )  # fmt: skip
        return Reverted(str(where), taken, back)
    new_id = facts.new_fact_id()

    def change(ff: formats.FactFile) -> Reverted:
        index, _fact = _current(ff, fact_id)
        entry = restored(new_id, ff.dialect)
        formats.mark_superseded(ff, ff.raw[index], new_id)
        ff.raw.append(entry)
        ff.invalidate()
        return Reverted(str(ref), ff.fact_at(index), ff.fact_at(len(ff.raw) - 1))

    return editor.edit(ref, "fact.supersede", change, factId=new_id, supersedes=fact_id,
                       reverts=fact_id)  # fmt: skip


def _withdraw(editor: facts.Facts, ref: layout.EntityRef, fact_id: str) -> Reverted:
    def change(ff: formats.FactFile) -> Reverted:
        index, _fact = _current(ff, fact_id)
        entry = ff.raw[index]
        formats.mark_superseded(ff, entry, None)
        metadata = entry.get("metadata")
        if not isinstance(metadata, dict):
            metadata = entry["metadata"] = {}
        metadata["archived"] = {
            "at": formats.iso(editor.now()),
            "by": editor.actor,
            "reason": REASON,
        }
        ff.invalidate()
        return Reverted(str(ref), ff.fact_at(index), None)

    return editor.edit(ref, "fact.archive", change, factId=fact_id, reverts=fact_id)


def _text_of(ff: formats.FactFile, fact_id: str) -> str:
    try:
        return ff.fact_at(ff.index_of(fact_id)).fact
    except errors.VaultError:
        return "in another entity"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
