"""A MicroClaw runtime data folder (the one holding `groups/`) opened as it is.

MicroClaw (`src/memory.rs`, `src/tools/tiered_memory.rs`) keeps under `groups/`:

- `AGENTS.md`, the principles: the single source, injected first; agents read it and
  never write it (here: an agent actor is refused, a person may edit it);
- `<chat>/<persona>/MEMORY.md`, a persona's tiered memory: `# Memory` then
  `## Tier 1 — Long term`, `## Tier 2 — Mid term`, `## Tier 3 — Short term`
  (`write_tiered_memory` replaces one tier and keeps the others);
- `<chat>/memory/YYYY-MM-DD.md`, the chat's daily log (newer MicroClaw keeps one per
  persona, `<chat>/<persona>/memory/`: used when that folder exists), appended to with
  `append_daily_log`: a newline first when the text does not end with one, then the text.

Chat and persona folders are named by integer ids (a Telegram group's is negative); an
agent here is `CHAT/PERSONA`. A tier is replaced with `core.tiers.replace`, which keeps
everything else in the file byte for byte (MicroClaw's own writer re-renders the whole
file; vault-app does not need to), a missing file starts from MicroClaw's template.
MicroClaw writes with plain `std::fs::write` and no lock; vault-app's writers take a
cross-process lock in its state folder and replace atomically.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from vault_app.core import agent_memory, errors, storage, tiers
from vault_app.core.neighbours import detect, folder


def log_addition(content: str) -> str:
    """What `append_daily_log` appends: a newline first unless the text ends with one."""
    return content if content.endswith("\n") else "\n" + content


class MicroClawRuntime(folder.ForeignFolder):
    """`groups/` of a MicroClaw runtime; one agent per persona, `CHAT/PERSONA`."""

    format = detect.MICROCLAW
    keeps = (
        "tiered memory per persona (groups/<chat>/<persona>/MEMORY.md: vault-app tiers), "
        "daily logs (groups/<chat>/memory/YYYY-MM-DD.md: vault-app daily) and "
        "principles (groups/AGENTS.md)"
    )

    @property
    def groups(self) -> Path:
        return self.root / "groups"

    def agents(self) -> list[str]:
        return [f"{chat}/{persona}" for chat, persona in detect.micro_personas(self.groups)]

    def _persona_dir(self, agent: str | None) -> Path:
        chat, persona = self.agent(agent).split("/")
        return self.groups / chat / persona

    # -- tiers ----------------------------------------------------------------------

    def tiers_path(self, agent: str | None) -> Path:
        return self._persona_dir(agent) / "MEMORY.md"

    def read_tiers(self, agent: str | None) -> agent_memory.TiersState:
        name = self.agent(agent)
        path = self.tiers_path(name)
        data = self.files.read(path)
        if data is None:
            return agent_memory.TiersState(name, path, None, None)
        return agent_memory.TiersState(
            name, path, errors.decode_utf8(path, data), storage.sha256(data)
        )

    def write_tier(
        self, agent: str | None, tier: int, body: str, *, was: str | None = None
    ) -> agent_memory.TiersState:
        """Replace one tier (everything else byte for byte; a new file from MicroClaw's
        template). With `was` (the tier as the editor read it), a tier changed meanwhile
        is not overwritten (`ConflictError`), as `agent_memory.write_tier`."""
        tiers.check(tier)
        tiers.check_body(body)
        name = self.agent(agent)
        path = self.tiers_path(name)
        with self.files.lock(path):
            current = self.files.read_text(path) or ""
            now = tiers.read(current, tier)
            if was is not None and now != was:
                raise errors.ConflictError(
                    path, storage.sha256(was.encode("utf-8")), storage.sha256(now.encode("utf-8"))
                )
            text = tiers.replace(current, tier, body)  # "": MicroClaw's template
            self.files.replace(path, text, "tiers.write", tier=tier)
        return self.read_tiers(name)

    def write_tiers(self, agent: str | None, text: str) -> agent_memory.TiersState:
        """Replace the whole MEMORY.md (the old one kept in vault-app's backups)."""
        name = self.agent(agent)
        path = self.tiers_path(name)
        with self.files.lock(path):
            self.files.replace(path, text, "tiers.write")
        return self.read_tiers(name)

    # -- daily logs -----------------------------------------------------------------

    def _log_dir(self, agent: str | None) -> Path:
        persona = self._persona_dir(agent)
        own = persona / "memory"
        return own if own.is_dir() else persona.parent / "memory"

    def daily_dates(self, agent: str | None) -> list[dt.date]:
        days = []
        folder_ = self._log_dir(agent)
        for name in detect._names(folder_):
            m = detect.MICRO_DAY.match(name)
            if m and (folder_ / name).is_file():
                try:
                    days.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
                except ValueError:
                    continue
        return sorted(days)

    def daily_note(self, agent: str | None, day: dt.date) -> folder.DailyText:
        name = self.agent(agent)
        path = self._log_dir(name) / f"{day.isoformat()}.md"
        return folder.DailyText(name, day, path, self.files.read_text(path))

    def daily_append(
        self, agent: str | None, text: str, day: dt.date | None = None
    ) -> folder.DailyText:
        name = self.agent(agent)
        if not text.strip():
            raise errors.VaultError("nothing to append: the text is empty")
        day = day or self.clock().astimezone(dt.UTC).date()  # MicroClaw dates logs in UTC
        path = self._log_dir(name) / f"{day.isoformat()}.md"
        with self.files.lock(path):
            self.files.append(path, log_addition(text), "daily.append")
        return self.daily_note(name, day)

    # -- principles -----------------------------------------------------------------

    def principles_path(self) -> Path:
        return self.groups / "AGENTS.md"

    def principles(self) -> str | None:
        return self.files.read_text(self.principles_path())

    def write_principles(self, text: str) -> bool:
        """Replace `groups/AGENTS.md` (a person only: agents never write principles)."""
        path = self.principles_path()
        if self.who.is_agent:
            raise errors.AccessDeniedError(
                f"agent {self.who.agent!r} may not write {path}: the principles are "
                "read-only for agents (MicroClaw's rule, and vault-app's)"
            )
        with self.files.lock(path):
            return self.files.replace(path, text, "principles.write")

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        principles = self.principles()
        data["principlesChars"] = None if principles is None else len(principles)
        data["dailyNotes"] = {a: len(self.daily_dates(a)) for a in self.agents()}
        return data
