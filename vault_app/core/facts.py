"""Fact edits and look-ups: add, supersede, reinstate or retract, count an access, locate.

Every edit is one read-modify-write of an entity's fact file under its lock
(`Facts.edit`): the raw JSON objects are edited so that unknown fields, key order and the
file's own spelling survive, and a file never comes out holding fewer facts than it held
(`DataLossError`). Nothing here deletes a fact: edits supersede. The user-supplied parts
of a fact are checked first (`checked_fields`, `checked_json`).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from vault_app.core import decay, errors, formats, layout, models, scanner, storage, sync_setup

T = TypeVar("T")


def check_takes_facts(ref: layout.EntityRef) -> None:
    """Refuse (`errors.InvalidFactError`) a new fact for an archived entity."""
    if ref.category == "archives":
        raise errors.InvalidFactError(
            f"{ref} is archived and takes no new facts: unarchive it first "
            "(vault-app entity unarchive), or add the fact to another entity"
        )


def _replaceable(old: models.Fact) -> models.Fact:
    """`old` if a new version may supersede it, else InvalidFactError saying why."""
    if old.superseded_by is not None:
        raise errors.InvalidFactError(
            f"fact {old.id} is already superseded by {old.superseded_by}; "
            "supersede that one instead"
        )
    if not old.is_active and "archived" not in old.metadata:
        raise errors.InvalidFactError(
            f"fact {old.id} was retracted (an undone add); reinstate it before superseding it"
        )
    return old


def new_fact_id() -> str:
    return f"fact-{uuid.uuid4().hex}"


@dataclass(frozen=True)
class Facts:
    """Edits and finds the facts of the vault laid out by `paths`, writing through `store`
    as `actor` at the time `now()` gives (the `Vault` facade makes one per call)."""

    paths: layout.VaultLayout
    store: storage.Storage
    now: decay.Clock
    actor: str

    def edit(
        self,
        ref: layout.EntityRef,
        action: str,
        change: Callable[[formats.FactFile], T],
        **audit: Any,
    ) -> T:
        """Read-modify-write an entity's fact file under its lock; never shrink it."""
        folder = self.paths.existing_entity_dir(ref)
        path = self.paths.facts_path(folder)
        with self.store.transaction(path) as tx:
            if not folder.is_dir():
                raise errors.NotFoundError(f"entity {ref} was moved or removed meanwhile")
            ff = formats.decode(path, tx.data or b"", tx.digest)
            if tx.data is not None:  # never build on a file that lost facts or would
                scanner.check_not_emptied(self.store, path, tx.data)
                formats.check_lossless(ff, tx.data)
            before = len(ff.raw)
            result = change(ff)
            if len(ff.raw) < before:  # the invariant that keeps every fact
                raise errors.DataLossError(
                    path, f"it would lose facts ({before} before, {len(ff.raw)} after)"
                )
            tx.commit(formats.encode(ff), action, entity=str(ref), **audit)
        return result

    def add(
        self,
        ref: layout.EntityRef,
        text: str,
        category: models.FactCategory | str,
        *,
        related: Iterable[str] = (),
        source: str | None = None,
        agent_id: str | None = None,
        confidence: float = 1.0,
        metadata: dict[str, Any] | None = None,
        at: dt.datetime | None = None,
    ) -> models.Fact:
        """Append a new active fact to an existing entity, stamped `at` (default now).

        An archived entity takes no new facts (its old ones can still be superseded)."""
        check_takes_facts(ref)
        fields = checked_fields(text, category, related, confidence, agent_id)
        checked_json(source=source, metadata=metadata)
        moment = checked_time(at)
        fact_id = new_fact_id()

        def change(ff: formats.FactFile) -> models.Fact:
            entry = formats.new_entry(
                ff.dialect,
                fact_id=fact_id,
                now=moment or self.now(),
                source=source,
                metadata=metadata,
                **fields,
            )
            ff.raw.append(entry)
            ff.invalidate()
            return ff.fact_at(len(ff.raw) - 1)

        return self.edit(ref, "fact.add", change, factId=fact_id)

    def supersede(
        self,
        fact_id: str,
        text: str,
        *,
        category: models.FactCategory | str | None = None,
        related: Iterable[str] | None = None,
        source: str | None = None,
        agent_id: str | None = None,
        confidence: float | None = None,
        metadata: dict[str, Any] | None = None,
        at: dt.datetime | None = None,
        ref: layout.EntityRef | None = None,
        into: layout.EntityRef | None = None,
    ) -> tuple[models.Fact, models.Fact]:
        """Replace a fact by a new one (stamped `at`, default now); the old one stays,
        marked superseded, both linked. `ref`, the entity holding the fact when the caller
        knows it, spares the search of the vault (a wrong one: NotFoundError).

        The new fact is written in the old one's entity, or in `into` when that is another
        (a role that passed to someone else: "Leila's new neurologist is Dr. Brandt" in
        Dr. Brandt's entity retires "Leila's neurologist is Dr. Okafor" in Dr. Okafor's):
        the new fact first, naming the old one, then the old one marked — two writes, so
        a crash between them leaves both active, never a fact retired for one not written.

        An archived fact can be superseded too (a withdrawn statement made true again in
        new words): it stays withdrawn, its `metadata.archived` note kept, and the new
        version is active. A fact superseded by another, or retracted (an undone add),
        is refused: history does not fork, and an undo is undone by a redo."""
        checked_json(source=source, metadata=metadata)
        moment = checked_time(at)
        if ref is None:
            ref = self.locate([fact_id])[fact_id]

        def make(old: models.Fact, new_id: str, dialect: formats.Dialect) -> dict[str, Any]:
            fields = checked_fields(
                text,
                category if category is not None else old.category,
                related if related is not None else old.related_entities,
                confidence if confidence is not None else float(old.confidence),
                agent_id if agent_id is not None else old.agent_id,
            )
            return formats.new_entry(
                dialect,
                fact_id=new_id,
                now=moment or self.now(),
                source=source,
                metadata=metadata,
                supersedes=old.id,
                **fields,
            )

        if into is not None and into != ref:
            return self.supersede_across(ref, fact_id, into, make)
        new_id = new_fact_id()

        def change(ff: formats.FactFile) -> tuple[models.Fact, models.Fact]:
            index = ff.index_of(fact_id)
            entry = make(_replaceable(ff.fact_at(index)), new_id, ff.dialect)
            formats.mark_superseded(ff, ff.raw[index], new_id)
            ff.raw.append(entry)
            ff.invalidate()
            return ff.fact_at(index), ff.fact_at(len(ff.raw) - 1)

        return self.edit(ref, "fact.supersede", change, factId=new_id, supersedes=fact_id)

    def supersede_across(
        self,
        ref: layout.EntityRef,
        fact_id: str,
        into: layout.EntityRef,
        make: Callable[[models.Fact, str, formats.Dialect], dict[str, Any]],
        *,
        check: Callable[[models.Fact], models.Fact] | None = None,
        **audit: Any,
    ) -> tuple[models.Fact, models.Fact]:
        """Supersede fact `fact_id` of entity `ref` by a new one in entity `into`: the raw
        entry `make(old, new_id, dialect)` gives, written first, then the old one marked
        (see `supersede`), holding the backward pointer `supersedes` (lineage within one
        file is read from `supersededBy`; across two it needs both); `check` (default: it
        may be superseded) refuses an old fact as it is before each write. Both writes are
        logged as `fact.supersede`."""
        check = check or _replaceable
        folder = self.paths.existing_entity_dir(ref)
        path = self.paths.facts_path(folder)
        ff = formats.decode(path, self.store.read(path) or b"")
        old = check(ff.fact_at(ff.index_of(fact_id)))
        new_id = new_fact_id()

        def add(ff: formats.FactFile) -> models.Fact:
            entry = make(old, new_id, ff.dialect)
            entry.setdefault("supersedes", fact_id)  # (the old file cannot say it here)
            ff.raw.append(entry)
            ff.invalidate()
            return ff.fact_at(len(ff.raw) - 1)

        def retire(ff: formats.FactFile) -> models.Fact:
            index = ff.index_of(fact_id)
            check(ff.fact_at(index))  # again: another writer may have been first
            formats.mark_superseded(ff, ff.raw[index], new_id)
            return ff.fact_at(index)

        def unlink(ff: formats.FactFile) -> None:
            ff.raw[ff.index_of(new_id)].pop("supersedes", None)
            ff.invalidate()

        check_takes_facts(into)
        new = self.edit(into, "fact.supersede", add, factId=new_id, supersedes=fact_id, **audit)
        try:
            old = self.edit(ref, "fact.supersede", retire, factId=new_id, supersedes=fact_id,
                            **audit)  # fmt: skip
        except errors.VaultError:  # changed meanwhile: the new fact stands on its own
            self.edit(into, "fact.unlink", unlink, factId=new_id)
            raise
        return old, new

    def set_status(
        self, fact_id: str, active: bool, *, superseded_by: str | None = None
    ) -> models.Fact:
        """Reinstate a fact (`active`) or withdraw it again; the fact itself stays.

        This is how the app undoes its own edits without deleting anything: undoing an
        added fact retracts it (status superseded, by nothing, `metadata.retracted` says
        when and by whom); undoing a supersede reinstates the old fact and retracts the
        new one; redo reverses each step (`superseded_by` re-links the old fact).
        """
        ref = self.locate([fact_id])[fact_id]
        if superseded_by is not None:
            self.locate([superseded_by])

        def change(ff: formats.FactFile) -> models.Fact:
            index = ff.index_of(fact_id)
            ff.fact_at(index)  # an entry that does not validate is reported, not edited
            entry = ff.raw[index]
            metadata = entry.get("metadata")
            if active:
                entry["status"] = "active"
                if "supersededBy" in entry:
                    entry["supersededBy"] = None
                if isinstance(metadata, dict):
                    metadata.pop("retracted", None)
                    metadata.pop("archived", None)
            elif superseded_by is not None:
                formats.mark_superseded(ff, entry, superseded_by)
                if isinstance(metadata, dict):
                    metadata.pop("retracted", None)
            else:
                formats.mark_superseded(ff, entry, None)
                if not isinstance(metadata, dict):
                    metadata = entry["metadata"] = {}
                metadata["retracted"] = {"at": formats.iso(self.now()), "by": self.actor}
            ff.invalidate()
            return ff.fact_at(index)

        action = "fact.reinstate" if active else "fact.retract"
        return self.edit(ref, action, change, factId=fact_id, supersededBy=superseded_by)

    def archive(self, fact_id: str, reason: str | None = None) -> models.Fact:
        """Withdraw an active fact, kept: status superseded by nothing, with
        `metadata.archived` saying when, by whom and why (`set_status(active=True)` brings
        it back and drops the note)."""
        if reason is not None:
            checked_json(reason=reason)
        ref = self.locate([fact_id])[fact_id]

        def change(ff: formats.FactFile) -> models.Fact:
            index = ff.index_of(fact_id)
            if not ff.fact_at(index).is_active:
                raise errors.InvalidFactError(f"fact {fact_id} is not active; nothing to archive")
            entry = ff.raw[index]
            formats.mark_superseded(ff, entry, None)
            metadata = entry.get("metadata")
            if not isinstance(metadata, dict):
                metadata = entry["metadata"] = {}
            note = {"at": formats.iso(self.now()), "by": self.actor}
            metadata["archived"] = note if reason is None else {**note, "reason": reason}
            ff.invalidate()
            return ff.fact_at(index)

        return self.edit(ref, "fact.archive", change, factId=fact_id)

    def mark_accessed(
        self, fact_ids: Iterable[str], where: Mapping[str, layout.EntityRef] | None = None
    ) -> dict[str, int]:
        """Count one access of each fact (batched per file); returns the new counts.
        `where` (fact id -> entity), when the caller knows, spares the search for those."""
        wanted = list(dict.fromkeys(fact_ids))
        if not wanted:
            return {}
        known = {fid: where[fid] for fid in wanted if where is not None and fid in where}
        unknown = [fid for fid in wanted if fid not in known]
        where = {**known, **(self.locate(unknown) if unknown else {})}
        by_entity: dict[layout.EntityRef, list[str]] = {}
        for fid in wanted:
            by_entity.setdefault(where[fid], []).append(fid)
        counts: dict[str, int] = {}
        for ref, ids in by_entity.items():

            def change(ff: formats.FactFile, ids: list[str] = ids) -> None:
                now = self.now()
                device = sync_setup.device_id(self.paths.root)  # a synced vault counts per device
                for fid in ids:
                    index = ff.index_of(fid)
                    ff.fact_at(index)  # an entry that does not validate is reported, not edited
                    entry = ff.raw[index]
                    current = entry.get("accessCount", 0)
                    if not isinstance(current, int) or isinstance(current, bool) or current < 0:
                        raise errors.CorruptFileError(
                            ff.path,
                            f"accessCount is {current!r}, not a count",
                            f"[{index}].accessCount",
                        )
                    formats.mark_accessed(entry, now, device)
                    counts[fid] = entry["accessCount"]

            self.edit(ref, "fact.access", change, factIds=ids)
        return counts

    def locate(self, fact_ids: Sequence[str]) -> dict[str, layout.EntityRef]:
        """The entity holding each fact id; raises NotFoundError naming the missing ones.

        Scans the raw bytes of fact files for the quoted id before decoding any of them,
        so finding a fact in a 200,000-fact vault costs about one read of it.
        """
        pending = {fid: f'"{fid}"'.encode() for fid in fact_ids}
        for fid in pending:
            if not fid or not isinstance(fid, str):
                raise errors.InvalidIdError(f"invalid fact id {fid!r}")
        found: dict[str, layout.EntityRef] = {}
        for folder in self.store.entities():
            if not pending:
                break
            if folder.facts_file is None:
                continue
            try:
                data = self.store.read(folder.facts_file)
            except (errors.CorruptFileError, errors.AccessDeniedError):  # (a link elsewhere)
                continue
            if not data:
                continue
            hits = [fid for fid, needle in pending.items() if needle in data]
            if not hits:
                continue
            try:
                ids = set(formats.decode(folder.facts_file, data).ids())
            except errors.CorruptFileError:
                continue
            for fid in hits:
                if fid in ids:
                    found[fid] = folder.ref
                    del pending[fid]
        if pending:
            missing = ", ".join(sorted(pending))
            raise errors.NotFoundError(f"no fact with id {missing} in {self.paths.root}")
        return found

    def mentioning(
        self, word: str, folders: Iterable[layout.EntityFolder] | None = None
    ) -> list[tuple[layout.EntityRef, models.Fact]]:
        """Current facts whose text holds `word`, any case, in `folders` (default: every
        entity the store may read; `Vault.facts_mentioning`)."""
        wanted = word.casefold()
        needle = wanted.encode()  # (a file spelling it escaped, "\u00e9", is decoded too)
        escaped = not needle.isascii()
        found: list[tuple[layout.EntityRef, models.Fact]] = []
        for folder in self.store.entities() if folders is None else folders:
            if folder.facts_file is None:
                continue
            try:
                data = self.store.read(folder.facts_file)
                if not data or not (escaped or needle in data.lower()):
                    continue
                ff = formats.decode(folder.facts_file, data)
            except (errors.CorruptFileError, errors.AccessDeniedError):
                continue
            found.extend(
                (folder.ref, fact)
                for fact in ff.facts()[0]
                if fact.is_active and wanted in fact.fact.casefold()
            )
        return found

    def related(self, ref: layout.EntityRef, own: list[models.Fact]) -> dict[str, list[str]]:
        """relatedEntities both ways: what this entity's active facts (`own`) name, as
        written, and the entities whose active facts name it — each reference resolved by
        the one rule (`layout.resolve_reference`, as `links.LinkIndex` does), so that an
        agent's bare id names its own entity first and a reference to a moved entity
        follows it into archives/. Files that cannot hold its name are not decoded."""
        from vault_app.core import links  # (not needed to start a server)

        outgoing = sorted({r for f in own if f.is_active for r in f.related_entities})
        incoming: set[str] = set()
        needle = f'/{ref.path.rsplit("/", 1)[-1]}"'.encode()  # any folder's same name

        def exists(candidate: layout.EntityRef) -> bool:
            try:
                return self.paths.entity_dir(candidate).is_dir()
            except errors.VaultError:
                return False

        for folder in self.store.entities():
            if folder.ref == ref or folder.facts_file is None:
                continue
            try:
                data = self.store.read(folder.facts_file)
                if not data or needle not in data:
                    continue
                written = links.entity_links(folder.ref, folder.facts_file, data)
            except (errors.CorruptFileError, errors.AccessDeniedError):
                continue
            names = {name for _fact_id, name in written.references}
            if any(layout.resolve_reference(n, folder.ref.agent, exists) == ref for n in names):
                incoming.add(str(folder.ref))
        return {"outgoing": outgoing, "incoming": sorted(incoming)}


def checked_time(at: dt.datetime | None) -> dt.datetime | None:
    """`at` as an aware time (a naive one is local time), or None; InvalidFactError for
    a time the fact models refuse (`models.time_problem`) or that is not a datetime."""
    if at is None:
        return None
    if not isinstance(at, dt.datetime):
        raise errors.InvalidFactError(f"a fact's time must be a datetime, not {at!r}")
    problem = models.time_problem(at)
    if problem is not None:
        raise errors.InvalidFactError(problem)
    return decay.as_aware(at)


def checked_json(**values: Any) -> None:
    """Refuse what a fact file cannot hold as given: a string that is not Unicode text
    (a lone surrogate), nesting past `models.MAX_JSON_DEPTH`, NaN or infinities, or a
    value JSON has no type for."""
    for name, value in values.items():
        if value is None:
            continue
        problem = models.json_value_problem(value)
        if problem is not None:
            raise errors.InvalidFactError(f"{name}{problem[0]}: {problem[1]}")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise errors.InvalidFactError(f"{name} is not JSON: {exc}") from None


def checked_fields(
    text: str,
    category: models.FactCategory | str,
    related: Iterable[str],
    confidence: float,
    agent_id: str | None,
) -> dict[str, Any]:
    """Validate the user-supplied parts of a fact; raise InvalidFactError saying which."""
    if not isinstance(text, str) or not text.strip():
        raise errors.InvalidFactError("a fact needs text")
    try:
        category = models.FactCategory(category)
    except ValueError:
        names = ", ".join(c.value for c in models.FactCategory)
        raise errors.InvalidFactError(
            f"unknown category {category!r}: use one of {names}"
        ) from None
    related = list(related)
    checked_json(text=text, relatedEntities=related)
    for item in related:
        layout.EntityRef.parse(item)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 <= confidence <= 1.0)
    ):
        raise errors.InvalidFactError(f"confidence must be between 0 and 1, not {confidence!r}")
    if agent_id is not None:
        layout.validate_agent_id(agent_id)
    return {
        "text": text.strip(),
        "category": category,
        "related": related,
        "confidence": confidence,
        "agent_id": agent_id,
    }
