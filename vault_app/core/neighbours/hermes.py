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

import re
from pathlib import Path
from typing import Any

from vault_app.core import errors, notes
from vault_app.core.neighbours import detect, files, folder

AGENT = "hermes"
TARGETS = {"memory": "MEMORY.md", "user": "USER.md"}
DEFAULT_LIMITS = {"memory": 2200, "user": 1375}
_LIMIT_KEYS = {"memory": "memory_char_limit", "user": "user_char_limit"}
_TOGGLE_KEYS = {"memory": "memory_enabled", "user": "user_profile_enabled"}
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_SUB_KEY = re.compile(r"^[ \t]+([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")


class DriftError(errors.VaultError):
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
    parsed = notes.entries(raw)
    if raw.strip() != notes.join(parsed):
        return "its text is not a clean §-separated list of entries"
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

    def _state(self, target: str, raw: str | None, settings: dict[str, str]) -> folder.Notes:
        entries = notes.entries(raw or "")
        return folder.Notes(
            AGENT,
            target,
            self.path(target),
            entries,
            notes.usage(entries),
            _limit(settings, target),
            _enabled(settings, target),
        )

    def notes(self, agent: str | None, target: str) -> folder.Notes:
        self.agent(agent)
        path = self.path(target)
        return self._state(target, self.files.read_text(path), self.settings())

    def _writable(self, agent: str | None, target: str) -> tuple[Path, dict[str, str]]:
        self.agent(agent)
        path = self.path(target)
        settings = self.settings()
        if not _enabled(settings, target):
            key = _TOGGLE_KEYS[target]
            raise errors.AccessDeniedError(
                f"{path}: this store is off in {self.root / 'config.yaml'} (memory.{key}: "
                "false); it can be read, not written"
            )
        return path, settings

    def notes_add(self, agent: str | None, target: str, content: str) -> folder.Notes:
        path, settings = self._writable(agent, target)
        limit = _limit(settings, target)
        with files.sidecar_lock(path):
            raw = self.files.read_text(path) or ""
            current = notes.entries(raw)
            updated = notes.add(current, content, limit)
            if drift(raw, limit) is None:
                self.files.replace(path, notes.join(updated), "notes.add", store=target)
            else:  # keep the odd bytes as they are; the new entry reads back the same
                self.files.append(
                    path, notes.ENTRY_DELIMITER + updated[-1], "notes.add", store=target
                )
            return self._state(target, self.files.read_text(path), settings)

    def _rewrite(self, path: Path, target: str, limit: int, raw: str) -> None:
        reason = drift(raw, limit)
        if reason is not None:
            stamp = files.now_stamp(self.clock)
            backup = self.files.write_new_file(path.with_name(f"{path.name}.bak.{stamp}"), raw)
            raise DriftError(path, backup, reason)

    def notes_replace(self, agent: str | None, target: str, old: str, new: str) -> folder.Notes:
        path, settings = self._writable(agent, target)
        limit = _limit(settings, target)
        with files.sidecar_lock(path):
            raw = self.files.read_text(path) or ""
            self._rewrite(path, target, limit, raw)
            updated = notes.replace(notes.entries(raw), old, new, limit)
            self.files.replace(path, notes.join(updated), "notes.replace", store=target)
            return self._state(target, self.files.read_text(path), settings)

    def notes_remove(self, agent: str | None, target: str, old: str) -> folder.Notes:
        path, settings = self._writable(agent, target)
        limit = _limit(settings, target)
        with files.sidecar_lock(path):
            raw = self.files.read_text(path) or ""
            self._rewrite(path, target, limit, raw)
            updated = notes.remove(notes.entries(raw), old)
            self.files.replace(path, notes.join(updated), "notes.remove", store=target)
            return self._state(target, self.files.read_text(path), settings)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data["notes"] = {t: self.notes(None, t).as_json() for t in TARGETS}
        for t in TARGETS:
            del data["notes"][t]["entries"]
            data["notes"][t]["entryCount"] = len(self.notes(None, t).entries)
        return data
