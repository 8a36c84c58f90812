"""A Hermes home (`~/.hermes`) opened as it is: its two `§` stores, in Hermes' own terms.

Hermes' memory tool (`tools/memory_tool.py`) keeps `memories/MEMORY.md` (the agent's
notes, 2,200 characters) and `memories/USER.md` (the user profile, 1,375), each a list of
entries joined by `"\\n§\\n"` with no final newline, the budget counted on the joined
text. Its limits and toggles are `memory.memory_char_limit`, `memory.user_char_limit`,
`memory.memory_enabled` and `memory.user_profile_enabled` in `config.yaml`.

What this adapter does the way Hermes does:

- every change holds Hermes' lock, an exclusive `flock` on `MEMORY.md.lock` /
  `USER.md.lock` beside the file (`files.sidecar_lock`), re-reads the file under it, and
  replaces the file atomically (temp file in `memories/`, fsync, `os.replace`), so
  Hermes and vault-app never lose each other's entries;
- a replace or remove refuses to rewrite a file that would not round-trip through the
  `§` parser (hand edits, a shell append, an entry longer than the whole budget): the
  bytes are first kept in `MEMORY.md.bak.<unix seconds>` beside it, as Hermes does, and
  the error names that file;
- an add to such a file appends `"\\n§\\n" + entry` to the bytes as they are (Hermes
  rewrites there; appending loses nothing and reads back the same);
- an add or replace over the budget is refused with `notes.BudgetError` and changes
  nothing; matching is by unique substring (`notes`).

- entries are read as Hermes reads them (any line ending, a repeated entry once), so a
  CRLF file keeps every entry through a replace or a remove;
- `config.yaml` is read with a YAML library (budgets, toggles, `write_approval`: with it
  on, every agent write waits in vault-app's review queue, as Hermes stages it);
- a new memory file is created 0600, as Hermes creates it;
- in a batch, an add of an entry already there is skipped, as Hermes skips it.

Unlike Hermes, a single add of an entry already there is refused (`notes.DuplicateError`)
rather than answered as done, and a disabled store (`memory_enabled: false`) can be read
but not written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vault_app.core import agent_memory, errors, notes, storage
from vault_app.core.neighbours import detect, files, folder

AGENT = "hermes"
TARGETS = {"memory": "MEMORY.md", "user": "USER.md"}
DEFAULT_LIMITS = {"memory": 2200, "user": 1375}
_LIMIT_KEYS = {"memory": "memory_char_limit", "user": "user_char_limit"}
_TOGGLE_KEYS = {"memory": "memory_enabled", "user": "user_profile_enabled"}


class DriftError(agent_memory.DriftError):
    """A store that would not round-trip, kept in a `.bak.<ts>` and left unchanged."""

    def __init__(self, path: Path, backup: Path, reason: str) -> None:
        self.path = path
        self.backup = backup
        super().__init__(
            f"refusing to rewrite {path}: {reason}, so a rewrite would lose what it holds "
            f"beyond its § entries; its bytes were kept in {backup}. Make it a clean list "
            "of entries separated by a line holding only § (or move the extra text out), "
            "then try again"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "drift_backup": str(self.backup)}


def memory_settings(text: str) -> dict[str, Any]:
    """The `memory:` mapping of a Hermes `config.yaml`, read with a YAML library as Hermes
    reads it (block or flow style, comments, anchors and aliases alike); {} when the file
    is not YAML or has no such mapping, which leaves the defaults, as Hermes' own fallback
    does when its config cannot be read."""
    import yaml  # PyYAML, what Hermes itself reads config.yaml with

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    memory = data.get("memory") if isinstance(data, dict) else None
    return memory if isinstance(memory, dict) else {}


def _limit(settings: dict[str, Any], target: str) -> int:
    """The store's budget as Hermes reads it (`int(...)`, a 0 kept: every add refused);
    an unreadable one leaves the default."""
    raw = settings.get(_LIMIT_KEYS[target], DEFAULT_LIMITS[target])
    try:
        return max(0, int(raw))
    except (TypeError, ValueError):
        return DEFAULT_LIMITS[target]


def _switch(value: Any, default: bool) -> bool:
    """A yes/no setting as Hermes reads one (YAML's booleans, and the usual words)."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in {"on", "true", "yes", "1", "approve", "enabled"}
    return bool(value)


def _enabled(settings: dict[str, Any], target: str) -> bool:
    return _switch(settings.get(_TOGGLE_KEYS[target]), True)


def write_approval(settings: dict[str, Any]) -> bool:
    """`memory.write_approval`: Hermes stages every memory write for the user's approval;
    vault-app holds them in its review queue (`agents.submit`)."""
    return _switch(settings.get("write_approval"), False)


def drift(raw: str, limit: int) -> str | None:
    """Why `raw` would not round-trip through Hermes' parser (None when it does):
    the check Hermes makes before a rewrite (`_detect_external_drift`)."""
    if not raw.strip():
        return None
    if not notes.round_trips(raw):
        return "its text is not a clean §-separated list of entries"
    parsed = notes.entries(raw)
    longest = max((len(e) for e in parsed), default=0)
    if longest > limit:
        return f"one entry is {longest:,} characters, over the whole store's {limit:,}"
    return None


class HermesHome(folder.ForeignFolder):
    """`memories/MEMORY.md` and `USER.md` of a Hermes home; one agent, `hermes`."""

    format = detect.HERMES
    new_file_mode = 0o600  # as Hermes makes them (mkstemp): memories are private
    keeps = (
        "§ notes only: memories/MEMORY.md (vault-app notes --target memory) and USER.md "
        "(--target user)"
    )

    def agents(self) -> list[str]:
        return [AGENT]

    def path(self, target: str) -> Path:
        try:
            return self.root / "memories" / TARGETS[target]
        except KeyError:
            raise errors.VaultError(f"no notes target {target!r}: memory or user") from None

    def settings(self) -> dict[str, Any]:
        text = self.files.read_text(self.root / "config.yaml")
        return memory_settings(text) if text else {}

    def approval_needed(self) -> str | None:
        if not write_approval(self.settings()):
            return None
        return (
            "memory.write_approval is on in config.yaml: Hermes stages every memory write "
            "for the user's approval, and so does vault-app"
        )

    def _state(
        self, target: str, raw: str | None, settings: dict[str, Any]
    ) -> agent_memory.NotesState:
        return agent_memory.NotesState(
            AGENT,
            target,
            self.path(target),
            notes.entries(raw or ""),
            _limit(settings, target),
            _enabled(settings, target),
            None if raw is None else storage.sha256(raw.encode("utf-8")),
        )

    def read_notes(self, agent: str | None, target: str) -> agent_memory.NotesState:
        self.agent(agent)
        path = self.path(target)
        return self._state(target, self.files.read_text(path), self.settings())

    def change_notes(
        self,
        agent: str | None,
        target: str,
        action: str,
        *,
        content: str | None = None,
        old_text: str | None = None,
    ) -> agent_memory.NotesState:
        """Hermes' add / replace / remove under its `.lock`, the file re-read under it."""
        with self._writing(agent, target) as (path, settings, limit):
            raw = self.files.read_text(path) or ""
            if action in ("replace", "remove"):
                self._refuse_drift(path, limit, raw)
            changed = notes.change(notes.entries(raw), action, content, old_text, limit)
            if action == "add" and drift(raw, limit) is not None:
                # keep the odd bytes as they are; the new entry reads back the same
                addition = notes.ENTRY_DELIMITER + changed[-1]
                self.files.append(path, addition, "notes.add", store=target)
            else:
                self.files.replace(path, notes.join(changed), f"notes.{action}", store=target)
            return self._state(target, self.files.read_text(path), settings)

    def batch_notes(
        self, agent: str | None, target: str, operations: list[notes.Operation]
    ) -> agent_memory.NotesState:
        """Hermes' `apply_batch` under its `.lock`: all or none, the budget on the final
        list (`notes.apply_batch`); a file that would not round-trip is refused
        (`DriftError`, its bytes kept in a `.bak.<ts>`), as Hermes refuses a batch."""
        with self._writing(agent, target) as (path, settings, limit):
            raw = self.files.read_text(path) or ""
            self._refuse_drift(path, limit, raw)
            changed = notes.apply_batch(notes.entries(raw), operations, limit)
            self.files.replace(
                path, notes.join(changed), "notes.batch", store=target, operations=len(operations)
            )
            return self._state(target, self.files.read_text(path), settings)

    def write_notes(
        self, agent: str | None, target: str, items: list[str], *, expected: str | None
    ) -> agent_memory.NotesState:
        """A person's edit of the whole store (as `agent_memory.write_notes`), under
        Hermes' lock; refused if the file changed since it was read (`ConflictError`),
        would not round-trip (`DriftError`, a `.bak.<ts>` kept) or breaks the rules."""
        with self._writing(agent, target) as (path, settings, limit):
            data = self.files.read(path)
            actual = None if data is None else storage.sha256(data)
            if actual != expected:
                raise errors.ConflictError(path, expected, actual)
            raw = "" if data is None else errors.decode_utf8(path, data)
            self._refuse_drift(path, limit, raw)
            checked = notes.validate(items, limit, notes.usage(notes.entries(raw)))
            self.files.replace(path, notes.join(checked), "notes.write", store=target)
            return self._state(target, self.files.read_text(path), settings)

    @contextlib.contextmanager
    def _writing(
        self, agent: str | None, target: str
    ) -> Iterator[tuple[Path, dict[str, Any], int]]:
        """A write's start: the store's path, settings and limit, under Hermes' `.lock`."""
        self.agent(agent)
        path = self.path(target)
        settings = self._writable(target)
        limit = _limit(settings, target)
        with files.sidecar_lock(path):
            yield path, settings, limit

    def _writable(self, target: str) -> dict[str, Any]:
        settings = self.settings()
        if not _enabled(settings, target):
            raise agent_memory.DisabledError(
                f"{self.path(target)}: this store is off in {self.root / 'config.yaml'} "
                f"(memory.{_TOGGLE_KEYS[target]}: false); it can be read, not written"
            )
        return settings

    def _refuse_drift(self, path: Path, limit: int, raw: str) -> None:
        reason = drift(raw, limit)
        if reason is not None:
            stamp = files.now_stamp(self.clock)
            backup = self.files.write_new_file(path.with_name(f"{path.name}.bak.{stamp}"), raw)
            self.files.audit("notes.drift_backup", path, backup=backup.name, reason=reason)
            raise DriftError(path, backup, reason)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data["notes"] = {}
        for target in TARGETS:
            state = self.read_notes(None, target).to_dict(self.root)
            del state["entries"]
            data["notes"][target] = state
        return data
