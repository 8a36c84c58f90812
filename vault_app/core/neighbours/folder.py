"""What every neighbour's folder offers, and the refusals for what its format lacks.

A `ForeignFolder` is opened on a folder `detect` recognised; its subclass (`HermesHome`,
`PicoClawWorkspace`, `MicroClawRuntime`) reads and writes the owner's files in the
owner's format. The structures are asked for by the names `core.agent_memory` gives them
in a PARA vault (`read_notes`, `change_notes`, `batch_notes`, `read_tiers`, `write_tier`,
`write_tiers`, `read_profile`, `set_profile`, `delete_profile`, with the agent first
instead of the vault) and answered with its `NotesState` / `TiersState` /
`ProfileState`, so that every face shows both alike; daily notes and principles have
their own methods. A format that has no such structure refuses with `UnsupportedError`
saying what it does keep:

=============  ===========================  ===========================  =====================
structure      Hermes home                  PicoClaw workspace           MicroClaw runtime
=============  ===========================  ===========================  =====================
notes          memories/MEMORY.md, USER.md  -                            -
tiers          -                            -                            <chat>/<persona>/MEMORY.md
profile        -                            memory/profile.json          -
daily          -                            memory/YYYYMM/YYYYMMDD.md    <chat>/memory/YYYY-MM-DD.md
principles     -                            -                            groups/AGENTS.md (read-only
                                                                         for agents)
=============  ===========================  ===========================  =====================

Agents: a Hermes home and a PicoClaw workspace hold one agent (`hermes`, `picoclaw`), so
`agent(None)` is that one; a MicroClaw runtime holds one per persona, named
`CHAT/PERSONA` (`-1001234567890/1`), and `agent(None)` is the only one or a precise error
listing them.
"""

from __future__ import annotations

import abc
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_app.core import actors, agent_memory, decay, errors, notes
from vault_app.core.neighbours import detect, files

_AGENT_PREFIX = re.compile(r"\s*agent\s*:", re.IGNORECASE)
_NOTES = "§ notes (memories/MEMORY.md, USER.md)"
_TIERS = "tiered memory (## Tier 1/2/3 sections of a MEMORY.md)"
_PROFILE = "key-value profile (profile.json)"


class UnsupportedError(errors.VaultError):
    """A structure the folder's format does not have (tiers in a Hermes home...)."""


@dataclass(frozen=True)
class DailyText:
    """A day's note of a neighbour, its text as its owner wrote it (no entry structure
    imposed, unlike a vault's `models.DailyNote`)."""

    agent: str
    date: dt.date
    path: Path
    text: str | None  # None: no note that day

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "date": self.date.isoformat(),
            "path": str(self.path),
            "text": self.text,
        }


class ForeignFolder(abc.ABC):
    """A neighbour's memory folder, read and written in its owner's format."""

    format = ""
    new_file_mode: int | None = None  # the mode the owner gives a file it makes

    def __init__(
        self, root: Path | str, *, actor: str = "api", clock: decay.Clock = decay.system_clock
    ) -> None:
        path = Path(root).expanduser()
        if not path.is_dir():
            raise errors.NotFoundError(f"no {detect.NAMES[self.format]} at {path}: not a folder")
        self.root = path.resolve()
        self.actor = actor
        self.who = self._actor(actor)
        self.clock = clock
        self.files = files.Files(self.root, actor, clock, new_file_mode=self.new_file_mode)

    @property
    def name(self) -> str:
        return detect.NAMES[self.format]

    def _actor(self, actor: str) -> actors.Actor:
        """`actor` as `actors.parse` reads it; `agent:ID` also names one of this folder's
        agents whose id a PARA vault would not take (MicroClaw's `CHAT/PERSONA`)."""
        prefix = _AGENT_PREFIX.match(actor) if isinstance(actor, str) else None
        if prefix is not None:
            agent = actor[prefix.end() :].strip()
            if agent in self.agents():
                return actors.Actor(actor.strip(), agent)
        return actors.parse(actor)

    # -- agents ----------------------------------------------------------------------

    @abc.abstractmethod
    def agents(self) -> list[str]:
        """The agents the folder holds (each format knows where they are)."""

    def agent(self, given: str | None) -> str:
        """The agent a command names, or the folder's only one when none is named."""
        known = self.agents()
        if given is None:
            if len(known) == 1:
                return known[0]
            if not known:
                raise errors.NotFoundError(f"{self.root}: this {self.name} holds no agent yet")
            raise errors.VaultError(
                f"{self.root}: this {self.name} holds {len(known)} agents "
                f"({', '.join(known)}); name one with --agent"
            )
        if given not in known:
            shown = ", ".join(known) or "none"
            raise errors.NotFoundError(
                f"no agent {given!r} in this {self.name} {self.root} (its agents: {shown})"
            )
        return given

    # -- the structures; a format lacking one says what it keeps instead --------------

    keeps = ""  # what the format keeps, for the refusals

    def _unsupported(self, what: str) -> UnsupportedError:
        return UnsupportedError(f"a {self.name} has no {what} ({self.root}); it keeps {self.keeps}")

    # The same names and answers as `core.agent_memory`'s functions for a PARA vault
    # (its `NotesState`, `TiersState`, `ProfileState`), so that every face shows both alike.

    def read_notes(self, agent: str | None, target: str) -> agent_memory.NotesState:
        raise self._unsupported(_NOTES)

    def change_notes(
        self,
        agent: str | None,
        target: str,
        action: str,
        *,
        content: str | None = None,
        old_text: str | None = None,
    ) -> agent_memory.NotesState:
        """Hermes' `add` (content), `replace` (old_text, content), `remove` (old_text)."""
        raise self._unsupported(_NOTES)

    def batch_notes(
        self, agent: str | None, target: str, operations: list[notes.Operation]
    ) -> agent_memory.NotesState:
        """Hermes' batch: the operations in order, all or none, budget on the result."""
        raise self._unsupported(_NOTES)

    def write_notes(
        self, agent: str | None, target: str, items: list[str], *, expected: str | None
    ) -> agent_memory.NotesState:
        """A person's edit of the whole block, if the file still has the hash `expected`."""
        raise self._unsupported(_NOTES)

    def read_tiers(self, agent: str | None) -> agent_memory.TiersState:
        raise self._unsupported(_TIERS)

    def write_tier(
        self, agent: str | None, tier: int, body: str, *, was: str | None = None
    ) -> agent_memory.TiersState:
        """One tier replaced; with `was`, refused if that tier changed meanwhile."""
        raise self._unsupported(_TIERS)

    def write_tiers(self, agent: str | None, text: str) -> agent_memory.TiersState:
        raise self._unsupported(_TIERS)

    def read_profile(self, agent: str | None) -> agent_memory.ProfileState:
        raise self._unsupported(_PROFILE)

    def set_profile(self, agent: str | None, key: str, value: str) -> agent_memory.ProfileState:
        raise self._unsupported(_PROFILE)

    def delete_profile(self, agent: str | None, key: str) -> agent_memory.ProfileState:
        raise self._unsupported(_PROFILE)

    def write_profile(
        self, agent: str | None, values: dict[str, str], *, expected: str | None
    ) -> agent_memory.ProfileState:
        """A person's edit of the whole table, if the file still has the hash `expected`."""
        raise self._unsupported(_PROFILE)

    def daily_dates(self, agent: str | None) -> list[dt.date]:
        raise self._unsupported("daily notes")

    def daily_note(self, agent: str | None, day: dt.date) -> DailyText:
        raise self._unsupported("daily notes")

    def daily_append(self, agent: str | None, text: str, day: dt.date | None = None) -> DailyText:
        raise self._unsupported("daily notes")

    def approval_needed(self) -> str | None:
        """Why every agent write here waits for a person (the owner's own setting, such
        as Hermes' `memory.write_approval`), or None: most formats have no such switch."""
        return None

    def principles(self) -> str | None:
        raise self._unsupported("principles file")

    # -- what `info` shows -------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The folder at a glance, for `vault-app info`."""
        return {
            "vault": str(self.root),
            "format": self.format,
            "agents": self.agents(),
            "state": str(self.files.state),
        }

    def today(self) -> dt.date:
        return self.clock().date()
