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

Unlike Hermes, a duplicate add is refused (`notes.DuplicateError`) rather than ignored,
and a disabled store (`memory_enabled: false`) can be read but not written.
"""

from __future__ import annotations

import contextlib
import re
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
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_SUB_KEY = re.compile(r"^[ \t]+([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")


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


def memory_settings(text: str) -> dict[str, str]:
    """The scalar keys of the top-level `memory:` block of a Hermes `config.yaml`.

    Only the block form Hermes writes is read (`memory:` then indented `key: value`
    lines, `# comments` dropped); anything else leaves the defaults, as Hermes' own
    fallback does when its config cannot be read.
    """
    found: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        top = _TOP_KEY.match(line)
        if top:
            inside = top.group(1) == "memory" and top.group(2) in ("", "{}")
            continue
        sub = _SUB_KEY.match(line) if inside else None
        if sub:
            value = sub.group(2).split(" #", 1)[0].strip().strip("'\"")
            found[sub.group(1)] = value
    return found


def _limit(settings: dict[str, str], target: str) -> int:
    raw = settings.get(_LIMIT_KEYS[target])
    try:
        value = int(raw) if raw is not None else DEFAULT_LIMITS[target]
    except ValueError:
        return DEFAULT_LIMITS[target]
    return value if value > 0 else DEFAULT_LIMITS[target]


def _enabled(settings: dict[str, str], target: str) -> bool:
    return settings.get(_TOGGLE_KEYS[target], "true").lower() not in ("false", "no", "off", "0")


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

    def settings(self) -> dict[str, str]:
        text = self.files.read_text(self.root / "config.yaml")
        return memory_settings(text) if text else {}

    def _state(
        self, target: str, raw: str | None, settings: dict[str, str]
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
    ) -> Iterator[tuple[Path, dict[str, str], int]]:
        """A write's start: the store's path, settings and limit, under Hermes' `.lock`."""
        self.agent(agent)
        path = self.path(target)
        settings = self._writable(target)
        limit = _limit(settings, target)
        with files.sidecar_lock(path):
            yield path, settings, limit

    def _writable(self, target: str) -> dict[str, str]:
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
