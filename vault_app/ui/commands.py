"""Every edit made in the window, as a QUndoCommand on the session's undo stack.

A command's `redo` and `undo` each queue one write on the session's writer thread, so
writes, undos and redos reach the disk in exactly the order the user made them, and a
command can use what an earlier step learnt (the id of the fact it added) because that
step ran before it on the same thread.

Undo never deletes a fact (spec §3):

* add fact → undo retracts it (status superseded by nothing, `metadata.retracted`); redo
  reinstates it;
* supersede → undo reinstates the old fact and retracts the new one; redo re-links them;
* save summary / document → undo writes the previous text back, but only if the file is
  still what this window wrote (expected hash); otherwise the undo is refused, in words;
* append daily entry → undo takes exactly that entry back out (others' entries stay);
* create entity → undo archives it (moved, not removed); archive → undo moves it back;
* revert an agent's fact write (`core.revert`: a supersede back to the version before, or
  an added fact withdrawn) → undo reinstates the agent's version and withdraws the
  restored one; redo re-links them (or withdraws the added fact again);
* unarchive → undo moves it back into archives/.

A step that fails is reported through `session.error` and marks its command obsolete, so
the stack drops it instead of undoing something that never happened.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from PySide6 import QtGui

from vault_app.core import errors, feed, layout, models, revert, vault
from vault_app.ui.session import Callback, ErrorCallback, Session, plural

Step = Callable[[vault.Vault], Any]


class VaultCommand(QtGui.QUndoCommand):
    """A command whose steps are writes; subclasses define `first`, `again` and `back`."""

    moves_entities = False  # True when a step adds, moves or archives entity folders

    def __init__(
        self,
        session: Session,
        text: str,
        *,
        on_done: Callback | None = None,
        on_error: ErrorCallback | None = None,
        entities: tuple[str, ...] = (),
        documents: tuple[Path, ...] = (),
        daily: tuple[tuple[str, dt.date], ...] = (),
    ) -> None:
        super().__init__(text)
        self.session = session
        self.on_done = on_done
        self.on_error = on_error
        self.entities = entities
        self.documents = documents
        self.daily = daily
        self.done_once = False
        self.failed = False

    # each subclass defines its three steps: the first redo, a later redo, and undo
    first: Step
    again: Step
    back: Step

    # QUndoCommand ----------------------------------------------------------------------------

    def redo(self) -> None:
        if self.failed:
            return
        if not self.done_once:
            self.done_once = True
            self._queue(self.first, self.on_done, self.on_error)
        else:
            self._queue(self.again, None, None)

    def undo(self) -> None:
        if not self.failed:
            self._queue(self.back, None, None)

    def _queue(self, step: Step, on_done: Callback | None, on_error: ErrorCallback | None) -> None:
        def guarded(v: vault.Vault) -> Any:
            if self.failed:  # an earlier step of this command failed: do nothing more
                return None
            return step(v)

        def failed(exc: BaseException) -> None:
            self.failed = True
            self.setObsolete(True)
            stack = self.session.undo_stack
            if stack.index() > 0 and stack.command(stack.index() - 1) is self:
                stack.undo()  # drops it now (obsolete), so no dead "Undo …" stays offered
            if on_error is not None:
                on_error(exc)
            else:
                self.session.report(exc)

        self.session.write(
            guarded,
            on_done,
            failed,
            entities=self.entities,
            documents=self.documents,
            daily=self.daily,
            rescan=self.moves_entities,
        )


class AddFact(VaultCommand):
    def __init__(self, session: Session, address: str, fields: dict[str, Any], **kw: Any) -> None:
        super().__init__(session, f"Add fact to {_title(address)}", entities=(address,), **kw)
        self.address = address
        self.fields = fields
        self.fact_id: str | None = None

    def first(self, v: vault.Vault) -> models.Fact:
        fact = v.add_fact(self.address, **self.fields)
        self.fact_id = fact.id
        return fact

    def again(self, v: vault.Vault) -> None:
        assert self.fact_id is not None
        v.set_fact_status(self.fact_id, True)

    def back(self, v: vault.Vault) -> None:
        assert self.fact_id is not None
        v.set_fact_status(self.fact_id, False)


class SupersedeFact(VaultCommand):
    def __init__(
        self, session: Session, address: str, fact_id: str, fields: dict[str, Any], **kw: Any
    ) -> None:
        super().__init__(session, f"Edit fact in {_title(address)}", entities=(address,), **kw)
        self.old_id = fact_id
        self.fields = fields
        self.new_id: str | None = None

    def first(self, v: vault.Vault) -> tuple[models.Fact, models.Fact]:
        old, new = v.supersede_fact(self.old_id, **self.fields)
        self.new_id = new.id
        return old, new

    def again(self, v: vault.Vault) -> None:
        assert self.new_id is not None
        v.set_fact_status(self.new_id, True)
        v.set_fact_status(self.old_id, False, superseded_by=self.new_id)

    def back(self, v: vault.Vault) -> None:
        assert self.new_id is not None
        v.set_fact_status(self.old_id, True)
        v.set_fact_status(self.new_id, False)


class SaveText(VaultCommand):
    """Write a markdown document over the version it was read as; undo writes it back."""

    def __init__(
        self,
        session: Session,
        label: str,
        read: Callable[[vault.Vault], vault.Document],
        write: Callable[[vault.Vault, str, vault.Expected], str],
        text: str,
        expected: str | None,
        path: Path,
        **kw: Any,
    ) -> None:
        super().__init__(session, f"Edit {label}", documents=(path,), **kw)
        self.read = read
        self.write_text = write
        self.new_text = text
        self.expected = expected
        self.previous: str | None = None
        self.digest: str | None = None
        self._before_digest: str | None = None

    def first(self, v: vault.Vault) -> str:
        current = self.read(v)
        if current.digest != self.expected:
            raise errors.ConflictError(current.path, self.expected, current.digest)
        self.previous = current.text
        self.digest = self.write_text(v, self.new_text, self.expected)
        return self.digest

    def again(self, v: vault.Vault) -> None:
        self.digest = self.write_text(v, self.new_text, self._before_digest)

    def back(self, v: vault.Vault) -> None:
        self._before_digest = self.write_text(v, self.previous or "", self.digest)


class AppendDaily(VaultCommand):
    def __init__(self, session: Session, text: str, agent: str | None, **kw: Any) -> None:
        scope = layout.GLOBAL_SCOPE if agent is None else f"agent:{agent}"
        super().__init__(session, "Append daily entry", **kw)
        self.scope = scope
        self.body = text
        self.agent = agent
        self.entry: models.DailyEntry | None = None

    def first(self, v: vault.Vault) -> models.DailyEntry:
        self.entry = v.append_daily(self.body, agent=self.agent)
        return self.entry

    def again(self, v: vault.Vault) -> None:
        assert self.entry is not None
        self.entry = v.append_daily(self.body, agent=self.agent, at=self.entry.moment)

    def back(self, v: vault.Vault) -> None:
        assert self.entry is not None
        v.retract_daily_entry(self.entry)

    def _queue(self, step: Step, on_done: Callback | None, on_error: ErrorCallback | None) -> None:
        # the day is known only once the entry is written (the writer's clock decides it)
        def announce(result: Any) -> None:
            if self.entry is not None:
                self.session.dailyChanged.emit(self.scope, self.entry.date)
            if on_done is not None:
                on_done(result)

        super()._queue(step, announce, on_error)


class CreateEntity(VaultCommand):
    moves_entities = True

    def __init__(self, session: Session, address: str, summary: str | None, **kw: Any) -> None:
        super().__init__(session, f"Create {_title(address)}", entities=(address,), **kw)
        self.address = address
        self.summary = summary
        self.archived: layout.EntityRef | None = None

    def first(self, v: vault.Vault) -> Path:
        return v.create_entity(self.address, self.summary)

    def again(self, v: vault.Vault) -> None:
        assert self.archived is not None
        v.restore_entity(self.archived, self.address)

    def back(self, v: vault.Vault) -> None:
        self.archived = v.archive_entity(self.address)


class ArchiveEntity(VaultCommand):
    moves_entities = True

    def __init__(self, session: Session, address: str, **kw: Any) -> None:
        super().__init__(session, f"Archive {_title(address)}", entities=(address,), **kw)
        self.address = address
        self.archived: layout.EntityRef | None = None

    def first(self, v: vault.Vault) -> layout.EntityRef:
        self.archived = v.archive_entity(self.address)
        return self.archived

    def again(self, v: vault.Vault) -> None:
        self.archived = v.archive_entity(self.address)

    def back(self, v: vault.Vault) -> None:
        assert self.archived is not None
        v.restore_entity(self.archived, self.address)


class UnarchiveEntity(VaultCommand):
    """Move an archived entity back out (where it came from, or under `category`);
    undo moves it back into archives/ at its old place."""

    moves_entities = True

    def __init__(self, session: Session, address: str, category: str | None, **kw: Any) -> None:
        super().__init__(session, f"Unarchive {_title(address)}", entities=(address,), **kw)
        self.address = address
        self.category = category
        self.back_to: layout.EntityRef | None = None

    def first(self, v: vault.Vault) -> layout.EntityRef:
        self.back_to = v.unarchive_entity(self.address, self.category)
        return self.back_to

    def again(self, v: vault.Vault) -> None:
        assert self.back_to is not None
        v.unarchive_entity(self.address, self.back_to.category)

    def back(self, v: vault.Vault) -> None:
        assert self.back_to is not None
        v.restore_entity(self.back_to, self.address)


class Synthesize(VaultCommand):
    """Rewrite summaries from their facts; undo writes each previous summary back."""

    def __init__(self, session: Session, addresses: Iterable[str], **kw: Any) -> None:
        self.addresses = tuple(addresses)
        super().__init__(
            session,
            f"Synthesize {plural(len(self.addresses), 'summary', 'summaries')}",
            entities=self.addresses,
            **kw,
        )
        self.before: dict[str, vault.Document] = {}
        self.after: dict[str, str | None] = {}

    def first(self, v: vault.Vault) -> tuple[list[vault.SynthesisResult], list[models.Problem]]:
        self.before = {a: v.summary(a) for a in self.addresses}
        results = v.synthesize(list(self.addresses))
        v.synthesize_indexes()  # index.md lists each entity's gist: keep it in step
        self.after = {a: v.summary(a).digest for a in self.addresses}
        return results

    def again(self, v: vault.Vault) -> None:
        v.synthesize(list(self.addresses))
        v.synthesize_indexes()
        self.after = {a: v.summary(a).digest for a in self.addresses}

    def back(self, v: vault.Vault) -> None:
        for address, doc in self.before.items():
            if self.after.get(address) != doc.digest:
                v.write_summary(address, doc.text or "", expected=self.after.get(address))


class RevertWrite(VaultCommand):
    """Take back the fact version an agent's audit line wrote (see `core.revert`)."""

    def __init__(self, session: Session, address: str, line: dict[str, Any], **kw: Any) -> None:
        who = feed.who(str(line.get("actor", "")))
        text = f"Revert {who}'s change to {_title(address)}"
        super().__init__(session, text, entities=(address,), **kw)
        self.line = dict(line)
        self.result: revert.Reverted | None = None

    def first(self, v: vault.Vault) -> revert.Reverted:
        self.result = revert.revert_line(v, self.line)
        return self.result

    def again(self, v: vault.Vault) -> None:
        assert self.result is not None
        taken_back, restored = self.result.taken_back, self.result.restored
        if restored is None:
            v.archive_fact(taken_back.id, reason=revert.REASON)
        else:
            v.set_fact_status(restored.id, True)
            v.set_fact_status(taken_back.id, False, superseded_by=restored.id)

    def back(self, v: vault.Vault) -> None:
        assert self.result is not None
        v.set_fact_status(self.result.taken_back.id, True)
        if self.result.restored is not None:
            v.set_fact_status(self.result.restored.id, False)


# -- the API the widgets use ---------------------------------------------------------------


def add_fact(
    session: Session,
    address: str,
    text: str,
    category: str | models.FactCategory,
    *,
    related: Iterable[str] = (),
    source: str | None = None,
    confidence: float = 1.0,
    agent_id: str | None = None,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> AddFact:
    fields = {
        "text": text,
        "category": category,
        "related": list(related),
        "source": source,
        "confidence": confidence,
        "agent_id": agent_id,
    }
    return _push(session, AddFact(session, address, fields, on_done=on_done, on_error=on_error))


def supersede_fact(
    session: Session,
    address: str,
    fact_id: str,
    text: str,
    *,
    category: str | models.FactCategory | None = None,
    related: Iterable[str] | None = None,
    confidence: float | None = None,
    source: str | None = None,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> SupersedeFact:
    fields = {
        "text": text,
        "category": category,
        "related": None if related is None else list(related),
        "confidence": confidence,
        "source": source,
    }
    command = SupersedeFact(session, address, fact_id, fields, on_done=on_done, on_error=on_error)
    return _push(session, command)


def save_summary(
    session: Session,
    address: str,
    text: str,
    expected_digest: str | None,
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> SaveText:
    path = session.vault.paths.entity_dir(layout.EntityRef.parse(address)) / layout.SUMMARY_NAME
    command = SaveText(
        session,
        f"summary of {_title(address)}",
        lambda v: v.summary(address),
        lambda v, t, e: v.write_summary(address, t, expected=e),
        text,
        expected_digest,
        path,
        on_done=on_done,
        on_error=on_error,
    )
    command.entities = (address,)
    return _push(session, command)


def save_document(
    session: Session,
    name: str,
    agent: str | None,
    text: str,
    expected_digest: str | None,
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> SaveText:
    path = session.vault.document_path(name, agent)
    command = SaveText(
        session,
        name if agent is None else f"{name} of {agent}",
        lambda v: v.document(name, agent),
        lambda v, t, e: v.write_document(name, t, agent=agent, expected=e),
        text,
        expected_digest,
        path,
        on_done=on_done,
        on_error=on_error,
    )
    return _push(session, command)


def append_daily(
    session: Session,
    text: str,
    *,
    agent: str | None = None,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> AppendDaily:
    return _push(session, AppendDaily(session, text, agent, on_done=on_done, on_error=on_error))


def create_entity(
    session: Session,
    address: str,
    summary: str | None = None,
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> CreateEntity:
    command = CreateEntity(session, address, summary, on_done=on_done, on_error=on_error)
    return _push(session, command)


def archive_entity(
    session: Session,
    address: str,
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> ArchiveEntity:
    return _push(session, ArchiveEntity(session, address, on_done=on_done, on_error=on_error))


def unarchive_entity(
    session: Session,
    address: str,
    category: str | None = None,
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> UnarchiveEntity:
    command = UnarchiveEntity(session, address, category, on_done=on_done, on_error=on_error)
    return _push(session, command)


def synthesize(
    session: Session,
    addresses: Iterable[str],
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> Synthesize:
    return _push(session, Synthesize(session, addresses, on_done=on_done, on_error=on_error))


def revert_write(
    session: Session,
    address: str,
    line: dict[str, Any],
    *,
    on_done: Callback | None = None,
    on_error: ErrorCallback | None = None,
) -> RevertWrite:
    """Revert the fact write of an audit `line` (an agent's add or supersede) in `address`."""
    command = RevertWrite(session, address, line, on_done=on_done, on_error=on_error)
    return _push(session, command)


def _push(session: Session, command: Any) -> Any:
    session.undo_stack.push(command)
    return command


def _title(address: str) -> str:
    """The entity as an Undo label names it: its title ("Marcus Bell")."""
    return feed.title(address)
