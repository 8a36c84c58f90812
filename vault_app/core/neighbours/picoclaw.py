"""A PicoClaw workspace (`~/.picoclaw/workspace`) opened as it is.

PicoClaw's `MemoryStore` (`pkg/agent/memory.go`, and the hybrid design of seed 004)
keeps under `memory/`:

- `MEMORY.md`, free-form long-term memory (read here; PicoClaw's plan mode edits it);
- `profile.json`, a flat string map (`memory_set` / `memory_delete` set or delete one key;
  Go marshals a `map[string]string`: keys sorted, 2-space indent, `<`, `>`, `&`
  escaped as `\\u003c`..., no final newline), rendered as a markdown list in context;
- daily notes `YYYYMM/YYYYMMDD.md`: a new day's file starts `# YYYY-MM-DD` and a blank
  line; each later append adds `"\\n" + content` (`AppendToday`).

PicoClaw serialises its writers with a mutex inside its one process and writes with
`os.WriteFile`; vault-app's writers take a cross-process lock in its state folder
(`files.Files.lock`) and write atomically (profile) or append in one `O_APPEND` write
(daily notes), so two vault-app processes never lose each other's adds. A profile edit
that changes nothing writes nothing: the file keeps its bytes. The workspace holds one
agent, `picoclaw`.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from vault_app.core import agent_memory, errors, profile, storage
from vault_app.core.neighbours import detect, folder

AGENT = "picoclaw"
_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def go_json(data: dict[str, str]) -> str:
    """`data` as Go's `json.MarshalIndent(map[string]string, "", "  ")` writes it."""
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True)
    for char, escape in _GO_ESCAPES.items():
        text = text.replace(char, escape)  # only ever inside strings in JSON
    return text


def daily_path(memory: Path, day: dt.date) -> Path:
    stamp = day.strftime("%Y%m%d")
    return memory / stamp[:6] / f"{stamp}.md"


def daily_addition(existing: str, day: dt.date, content: str) -> str:
    """What `AppendToday` adds to a day's note: the header and the paragraph on a new
    day, `"\\n" + paragraph` after; a paragraph is the text trimmed, ending in a newline
    (so that the next append leaves a blank line between them)."""
    paragraph = content.strip() + "\n"
    if not existing:
        return f"# {day.isoformat()}\n\n{paragraph}"
    return "\n" + paragraph


class PicoClawWorkspace(folder.ForeignFolder):
    """`memory/` of a PicoClaw workspace; one agent, `picoclaw`."""

    format = detect.PICOCLAW
    keeps = (
        "a key-value profile (memory/profile.json: vault-app profile), daily notes "
        "(memory/YYYYMM/YYYYMMDD.md: vault-app daily) and a free-form memory/MEMORY.md"
    )

    @property
    def memory(self) -> Path:
        return self.root / "memory"

    def agents(self) -> list[str]:
        return [AGENT]

    def long_term(self) -> str | None:
        """`memory/MEMORY.md` as it is (None when absent)."""
        return self.files.read_text(self.memory / "MEMORY.md")

    # -- profile.json ---------------------------------------------------------------

    def profile_path(self) -> Path:
        return self.memory / "profile.json"

    def _profile(self) -> tuple[dict[str, str], str | None]:
        path = self.profile_path()
        data = self.files.read(path)
        if data is None:
            return {}, None
        text = errors.decode_utf8(path, data)
        values = profile.load_text(text, str(path)) if text.strip() else {}
        return values, storage.sha256(data)

    def read_profile(self, agent: str | None) -> agent_memory.ProfileState:
        name = self.agent(agent)
        values, digest = self._profile()
        return agent_memory.ProfileState(name, self.profile_path(), values, True, digest)

    def _edit_profile(
        self, agent: str | None, key: str, value: str | None
    ) -> agent_memory.ProfileState:
        name = self.agent(agent)
        path = self.profile_path()
        with self.files.lock(path):
            current, _ = self._profile()
            if value is None:
                updated = profile.delete_key(current, key)
            else:
                updated = profile.set_key(current, key, value)
            if updated != current:  # a no-op writes nothing: the file keeps its bytes
                action = "profile.delete" if value is None else "profile.set"
                self.files.replace(path, go_json(updated), action, key=key)
            return self.read_profile(name)

    def set_profile(self, agent: str | None, key: str, value: str) -> agent_memory.ProfileState:
        return self._edit_profile(agent, key, value)

    def delete_profile(self, agent: str | None, key: str) -> agent_memory.ProfileState:
        return self._edit_profile(agent, key, None)

    def write_profile(
        self, agent: str | None, values: dict[str, str], *, expected: str | None
    ) -> agent_memory.ProfileState:
        """A person's edit of the whole table (as `agent_memory.write_profile`), if the
        file still has the hash `expected`; a corrupt file is never overwritten."""
        name = self.agent(agent)
        path = self.profile_path()
        checked = {profile.check_key(k): v for k, v in values.items()}
        with self.files.lock(path):
            _, actual = self._profile()  # reads, so a corrupt file is refused here
            if actual != expected:
                raise errors.ConflictError(path, expected, actual)
            self.files.replace(path, go_json(checked), "profile.write")
        return self.read_profile(name)

    # -- daily notes ----------------------------------------------------------------

    def daily_dates(self, agent: str | None) -> list[dt.date]:
        self.agent(agent)
        days = []
        for _month, name in detect.pico_daily_notes(self.memory):
            m = detect.PICO_DAY.match(name)
            assert m is not None
            try:
                days.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
            except ValueError:  # 20261340.md: not a day
                continue
        return sorted(days)

    def daily_note(self, agent: str | None, day: dt.date) -> folder.DailyText:
        name = self.agent(agent)
        path = daily_path(self.memory, day)
        return folder.DailyText(name, day, path, self.files.read_text(path))

    def daily_append(
        self, agent: str | None, text: str, day: dt.date | None = None
    ) -> folder.DailyText:
        name = self.agent(agent)
        if not text.strip():
            raise errors.VaultError("nothing to append: the text is empty")
        day = day or self.today()
        path = daily_path(self.memory, day)
        with self.files.lock(path):
            existing = self.files.read_text(path) or ""
            self.files.append(path, daily_addition(existing, day, text), "daily.append")
        return self.daily_note(name, day)

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        long_term = self.long_term()
        data["profileKeys"] = len(self.read_profile(None).values)
        data["dailyNotes"] = len(self.daily_dates(None))
        data["memoryChars"] = None if long_term is None else len(long_term)
        return data
