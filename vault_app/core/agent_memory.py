"""An agent's own memory files in a PARA vault: tiers, `§` notes and the key–value profile.

Per agent, beside its TACIT.md and CONTEXT.md:

* `agents/<id>/MEMORY.md` — MicroClaw's tiered memory (`tiers`): read, or replace one
  tier with every other byte kept;
* `agents/<id>/memories/MEMORY.md` and `USER.md` — Hermes' agent notes and user profile
  (`notes`), targets `memory` and `user`, budgets from `[agents.memory.<id>]`
  (`config.AgentMemorySettings`, 2,200 and 1,375 characters by default);
* `agents/<id>/profile.json` — PicoClaw's flat string map (`profile`).

The text rules are the pure modules' (`tiers`, `notes`, `profile`); this module adds the
vault around them. Every change is one storage transaction (the file's cross-process
lock held while it is read, changed and atomically replaced; the old version kept in
`.vault/backups`; an audit line naming the actor), so that two processes adding notes at
once both land. A refused change (over budget, no unique match, a duplicate, a tier
twice) raises before anything is written.

Who may act: people (the CLI, the window) on any agent; an agent (a vault opened as
`agent:<id>`) only on its own files (`AccessDeniedError` otherwise); `global/AGENTS.md`
is never reachable from here. An agent's notes or profile switched off in the config
refuse every write, and an agent's own reads (`DisabledError`); people still read them.

A notes file someone edited by hand so that it would not be written back the same
(blank lines around a separator, say) is never rewritten by `replace` / `remove`
(`DriftError`, as Hermes refuses); `add` appends to it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from vault_app.core import config, errors, layout, notes, profile, storage, tiers

if TYPE_CHECKING:  # vault imports most of core; only its type is needed here
    from vault_app.core.vault import Vault

Target = Literal["memory", "user"]
Action = Literal["add", "replace", "remove"]
TARGETS: dict[str, str] = {"memory": "MEMORY.md", "user": "USER.md"}
TARGET_NAMES = {"memory": "agent notes", "user": "user profile"}
NOTES_DIR = "memories"
TIERS_NAME = "MEMORY.md"
PROFILE_NAME = "profile.json"


class DisabledError(errors.VaultError):
    """The agent's notes or user profile are switched off in `.vault/config.toml`."""


class DriftError(notes.NotesError):
    """A notes file that would not be written back as it is: left untouched."""

    kind = "not_round_trip"


@dataclass(frozen=True)
class NotesState:
    """One notes file as read (or as just written)."""

    agent: str
    target: str
    path: Path
    entries: list[str]
    limit: int
    enabled: bool
    sha256: str | None

    @property
    def usage(self) -> notes.Usage:
        return notes.Usage(notes.usage(self.entries), self.limit)

    def to_dict(self, root: Path) -> dict[str, Any]:
        usage = self.usage
        return {
            "agent": self.agent,
            "target": self.target,
            "path": _relative(root, self.path),
            "enabled": self.enabled,
            "entries": list(self.entries),
            "entry_count": len(self.entries),
            "used": usage.used,
            "limit": usage.limit,
            "usage": usage.fraction(),
            "meter": usage.meter(),
        }


@dataclass(frozen=True)
class TiersState:
    agent: str
    path: Path
    text: str | None  # None: no file yet
    sha256: str | None

    @property
    def memory(self) -> tiers.TieredMemory:
        return tiers.split(self.text or "")

    def to_dict(self, root: Path, tier: int | None = None) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "agent": self.agent,
            "path": _relative(root, self.path),
            "exists": self.text is not None,
            "sha256": self.sha256,
        }
        if tier is None:
            answer["tiers"] = {str(n): body for n, body in self.memory.tiers().items()}
            answer["text"] = self.text or ""
        else:
            answer["tier"] = tier
            answer["text"] = self.memory.tier(tier)
        return answer


@dataclass(frozen=True)
class ProfileState:
    agent: str
    path: Path
    values: dict[str, str]
    enabled: bool
    sha256: str | None

    def to_dict(self, root: Path) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "path": _relative(root, self.path),
            "enabled": self.enabled,
            "profile": dict(self.values),
        }


# -- where, and who --------------------------------------------------------------------


def agent_folder(vault: Vault, agent: str) -> Path:
    """`agents/<agent>/`, checked: a valid id, an existing agent, and an actor allowed."""
    layout.validate_agent_id(agent)
    acting = vault.acting_agent()
    if acting is not None and acting != agent:
        raise errors.AccessDeniedError(
            f"agent {acting!r} may not read or write the memory of agent {agent!r}: "
            "an agent acts only on its own folder"
        )
    folder = vault.paths.agent_dir(agent)
    if not folder.is_dir():
        raise errors.NotFoundError(f"no agent {agent!r} in {vault.root}")
    return folder


def settings(vault: Vault, agent: str) -> config.AgentMemorySettings:
    return vault.config.agents.memory_of(agent)


def notes_path(vault: Vault, agent: str, target: str) -> Path:
    return agent_folder(vault, agent) / NOTES_DIR / TARGETS[check_target(target)]


def tiers_path(vault: Vault, agent: str) -> Path:
    return agent_folder(vault, agent) / TIERS_NAME


def profile_path(vault: Vault, agent: str) -> Path:
    return agent_folder(vault, agent) / PROFILE_NAME


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise errors.InvalidIdError(
            f"no notes target {target!r}: 'memory' (agent notes) or 'user' (user profile)"
        )
    return target


def notes_limit(vault: Vault, agent: str, target: str) -> int:
    chosen = settings(vault, agent)
    return chosen.memory_chars if target == "memory" else chosen.user_chars


def notes_enabled(vault: Vault, agent: str, target: str) -> bool:
    chosen = settings(vault, agent)
    return chosen.notes if target == "memory" else chosen.profile


def check_enabled(vault: Vault, agent: str, target: str) -> None:
    """Refuse (`DisabledError`) a write to a store switched off (`memory`, `user`,
    `profile`)."""
    _refuse_disabled(vault, agent, target, writing=True)


def _refuse_disabled(vault: Vault, agent: str, target: str, writing: bool) -> None:
    """Writes to a store switched off are refused; so are the agent's own reads of it."""
    if notes_enabled(vault, agent, target) or not (writing or vault.acting_agent()):
        return
    key = "notes" if target == "memory" else "profile"
    what = TARGET_NAMES.get(target, "key–value profile")
    raise DisabledError(
        f"the {what} of agent {agent!r} is switched off: set {key} = true under "
        f"[agents.memory.{agent}] in .vault/config.toml"
    )


# -- § notes ---------------------------------------------------------------------------


def read_notes(vault: Vault, agent: str, target: str) -> NotesState:
    """The entries of the agent's `memory` or `user` notes ([] when no file yet)."""
    path = notes_path(vault, agent, target)
    _refuse_disabled(vault, agent, target, writing=False)
    doc = vault.storage.read_text(path)
    text, digest = doc if doc is not None else ("", None)
    return _notes_state(vault, agent, target, path, text, digest)


def change_notes(
    vault: Vault,
    agent: str,
    target: str,
    action: str,
    *,
    content: str | None = None,
    old_text: str | None = None,
) -> NotesState:
    """Apply Hermes' `add` (content), `replace` (old_text, content) or `remove`
    (old_text) to the agent's notes, under the file's lock; the state after it."""
    path = notes_path(vault, agent, target)
    _refuse_disabled(vault, agent, target, writing=True)
    limit = notes_limit(vault, agent, target)
    with vault.storage.transaction(path) as tx:
        text = "" if tx.data is None else storage.decode_text(path, tx.data)
        before = notes.entries(text)
        if action in ("replace", "remove"):
            _refuse_drift(vault, path, text, action)
        changed = notes.change(before, action, content, old_text, limit)
        # A clean file is written clean; one edited by hand gets the added entry appended
        # as it stands, so that nothing in it is rewritten.
        if action == "add" and text.strip() and not notes.round_trips(text):
            new_text = text + notes.ENTRY_DELIMITER + changed[-1]
        else:
            new_text = notes.join(changed)
        if notes.entries(new_text) != changed:  # the pure rules guarantee it; never lose one
            raise errors.DataLossError(path, "the entries would not read back as written")
        digest = tx.commit(new_text.encode("utf-8"), f"notes.{action}", agent=agent, notes=target)
    return _notes_state(vault, agent, target, path, new_text, digest)


def batch_notes(
    vault: Vault, agent: str, target: str, operations: list[notes.Operation]
) -> NotesState:
    """Apply Hermes' batch `operations` to the agent's notes under the file's lock, all
    or none, the budget checked on the final list (`notes.apply_batch`); a file that
    would not be written back the same is not rewritten (`DriftError`)."""
    path = notes_path(vault, agent, target)
    _refuse_disabled(vault, agent, target, writing=True)
    limit = notes_limit(vault, agent, target)
    with vault.storage.transaction(path) as tx:
        text = "" if tx.data is None else storage.decode_text(path, tx.data)
        before = notes.entries(text)
        _refuse_drift(vault, path, text, "retry")
        changed = notes.apply_batch(before, operations, limit)
        new_text = notes.join(changed)
        if notes.entries(new_text) != changed:  # the pure rules guarantee it; never lose one
            raise errors.DataLossError(path, "the entries would not read back as written")
        digest = tx.commit(
            new_text.encode("utf-8"),
            "notes.batch",
            agent=agent,
            notes=target,
            operations=len(operations),
        )
    return _notes_state(vault, agent, target, path, new_text, digest)


def write_notes(
    vault: Vault, agent: str, target: str, items: list[str], *, expected: str | None
) -> NotesState:
    """Replace the agent's notes with `items` (a person's edit of the whole block),
    if the file still has the sha256 `expected` (None: no file yet; `ConflictError`
    otherwise); refused whole when an entry is invalid or twice, or over budget."""
    path = notes_path(vault, agent, target)
    _refuse_disabled(vault, agent, target, writing=True)
    limit = notes_limit(vault, agent, target)
    with vault.storage.transaction(path) as tx:
        tx.check(expected)
        text = "" if tx.data is None else storage.decode_text(path, tx.data)
        checked = notes.validate(items, limit, notes.usage(notes.entries(text)))
        new_text = notes.join(checked)
        digest = tx.commit(new_text.encode("utf-8"), "notes.write", agent=agent, notes=target)
    return _notes_state(vault, agent, target, path, new_text, digest)


def _notes_state(
    vault: Vault, agent: str, target: str, path: Path, text: str, digest: str | None
) -> NotesState:
    return NotesState(
        agent,
        target,
        path,
        notes.entries(text),
        notes_limit(vault, agent, target),
        notes_enabled(vault, agent, target),
        digest,
    )


def _refuse_drift(vault: Vault, path: Path, text: str, then: str) -> None:
    """DriftError if rewriting `text` from its entries would lose any of it (line
    endings aside, and an entry repeated: kept once, as Hermes keeps it)."""
    if not notes.round_trips(text):
        raise DriftError(
            f"{_relative(vault.root, path)} holds text the § format would not "
            "write back the same (blank lines or spaces around a separator); "
            f"nothing changed: make it clean entries by hand first, then {then}"
        )


# -- tiered MEMORY.md ------------------------------------------------------------------


def read_tiers(vault: Vault, agent: str) -> TiersState:
    path = tiers_path(vault, agent)
    doc = vault.storage.read_text(path)
    if doc is None:
        return TiersState(agent, path, None, None)
    return TiersState(agent, path, doc[0], doc[1])


def write_tier(
    vault: Vault, agent: str, tier: int, body: str, *, was: str | None = None
) -> TiersState:
    """Replace tier `tier`'s body (the rest of MEMORY.md byte for byte; a new file from
    MicroClaw's template). With `was` (the tier's text as the editor read it), a tier
    someone changed meanwhile is not overwritten (`ConflictError`); changes to the other
    tiers meanwhile are no conflict, since they are kept."""
    tiers.check(tier)
    tiers.check_body(body)
    path = tiers_path(vault, agent)
    with vault.storage.transaction(path) as tx:
        text = "" if tx.data is None else storage.decode_text(path, tx.data)
        now = tiers.read(text, tier)
        if was is not None and now != was:
            raise errors.ConflictError(
                path, storage.sha256(was.encode("utf-8")), storage.sha256(now.encode("utf-8"))
            )
        new_text = tiers.replace(text, tier, body)
        digest = tx.commit(new_text.encode("utf-8"), "tiers.write", agent=agent, tier=tier)
    return TiersState(agent, path, new_text, digest)


def write_tiers(vault: Vault, agent: str, text: str) -> TiersState:
    """Replace the whole MEMORY.md with `text` (the old one kept in the backups)."""
    path = tiers_path(vault, agent)
    with vault.storage.transaction(path) as tx:
        digest = tx.commit(text.encode("utf-8"), "tiers.write", agent=agent)
    return TiersState(agent, path, text, digest)


# -- profile.json ----------------------------------------------------------------------


def read_profile(vault: Vault, agent: str) -> ProfileState:
    path = profile_path(vault, agent)
    _refuse_disabled(vault, agent, "profile", writing=False)
    doc = vault.storage.read_text(path)
    text, digest = doc if doc is not None else ("", None)
    values = profile.load_text(text, _relative(vault.root, path))
    return ProfileState(agent, path, values, settings(vault, agent).profile, digest)


def set_profile(vault: Vault, agent: str, key: str, value: str) -> ProfileState:
    return _change_profile(vault, agent, "set", lambda v: profile.set_key(v, key, value), key)


def delete_profile(vault: Vault, agent: str, key: str) -> ProfileState:
    return _change_profile(vault, agent, "delete", lambda v: profile.delete_key(v, key), key)


def write_profile(
    vault: Vault, agent: str, values: dict[str, str], *, expected: str | None
) -> ProfileState:
    """Replace profile.json with `values` (a person's edit of the whole table), if the
    file still has the sha256 `expected` (None: no file yet)."""
    path = profile_path(vault, agent)
    _refuse_disabled(vault, agent, "profile", writing=True)
    data = profile.dumps(values).encode("utf-8")  # every key and value checked first
    with vault.storage.transaction(path) as tx:
        tx.check(expected)
        if tx.data is not None:  # a corrupt file is never overwritten, even whole
            profile.load_text(storage.decode_text(path, tx.data), _relative(vault.root, path))
        digest = tx.commit(data, "profile.write", agent=agent)
    return ProfileState(agent, path, dict(values), True, digest)


def _change_profile(vault: Vault, agent: str, verb: str, change: Any, key: str) -> ProfileState:
    path = profile_path(vault, agent)
    _refuse_disabled(vault, agent, "profile", writing=True)
    where = _relative(vault.root, path)
    with vault.storage.transaction(path) as tx:
        text = "" if tx.data is None else storage.decode_text(path, tx.data)
        values = change(profile.load_text(text, where))
        digest = tx.commit(
            profile.dumps(values).encode("utf-8"), f"profile.{verb}", agent=agent, key=key
        )
    return ProfileState(agent, path, values, True, digest)


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
