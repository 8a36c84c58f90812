"""Every piece of a neighbour's memory, as an `Entry`: what search indexes and what
`import` files, listed once so that both see the same things and nothing is left out.

`entries(folder)` reads the folder (through its adapter: bounded, symlink-checked reads,
never a write) and cuts each structure the way its owner cuts it:

==============  =====================================================  ==========  ======
structure       one entry is                                           `part`      atomic
==============  =====================================================  ==========  ======
notes           a `§` entry of Hermes' memories/MEMORY.md or USER.md   memory/user yes
tiers           a paragraph or list item of one tier of a tiered        1, 2, 3     yes
                MEMORY.md (MicroClaw's `## Tier N` sections)
profile         a key and its value of PicoClaw's profile.json          the key     yes
memory          a paragraph or list item of PicoClaw's free-form        heading     no
                memory/MEMORY.md (its headings are context)
daily           a paragraph of a day's note (PicoClaw: after the        the date    no
                `# YYYY-MM-DD` title; MicroClaw: its log)
principles      a paragraph or list item of MicroClaw's groups/         heading     no
                AGENTS.md
document        Hermes' SOUL.md, whole                                  -           no
==============  =====================================================  ==========  ======

Atomic entries are statements (import makes them facts); the others are long-form
text (import keeps them as documents and daily notes). Every entry has a stable `key`
(`notes:memory:3`, `tiers:-1001234567890/1:2:1`, `memory:picoclaw:2`, `profile:picoclaw:city`,
`daily:picoclaw:2026-11-22:2`, `daily:chat:-1001234567890:2026-11-23:1`,
`principles:groups/AGENTS.md:1`...) and a `where` for people
(`memories/MEMORY.md § entry 3`). Indexes count from 1. A MicroClaw chat log shared by
several personas is listed once, under the chat's first persona, `shared` naming the
chat. A list item's text is what follows its marker (`- `, `1. `).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_app.core import errors, notes, tiers
from vault_app.core.neighbours import folder, hermes, microclaw, picoclaw

NOTES = "notes"
TIERS = "tiers"
PROFILE = "profile"
MEMORY = "memory"
DAILY = "daily"
PRINCIPLES = "principles"
DOCUMENT = "document"
ATOMIC = frozenset({NOTES, TIERS, PROFILE})

_HEADING = re.compile(r"^#{1,6} ")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_TITLE = re.compile(r"\A# (\d{4}-\d{2}-\d{2})\r?\n(\r?\n)?")


@dataclass(frozen=True)
class Entry:
    """One piece of a neighbour's memory and where it comes from."""

    structure: str  # notes, tiers, profile, memory, daily, principles, document
    agent: str | None  # the folder's agent (hermes, picoclaw, CHAT/PERSONA); None: shared
    path: Path  # the file (absolute)
    file: str  # the file, relative to the folder
    index: int  # position within its part, from 1
    text: str
    part: str | None = None  # notes target, tier number, profile key, date, heading
    day: dt.date | None = None  # daily entries
    modified: dt.datetime | None = None  # the file's mtime (UTC)
    shared: str | None = None  # a MicroClaw chat log read by every persona: the chat

    @property
    def atomic(self) -> bool:
        """A statement (import makes it a fact), not long-form text."""
        return self.structure in ATOMIC

    @property
    def key(self) -> str:
        """A stable name of the entry (the search key of its document)."""
        agent = self.agent or ""
        if self.structure == NOTES:
            return f"notes:{self.part}:{self.index}"
        if self.structure == TIERS:
            return f"tiers:{agent}:{self.part}:{self.index}"
        if self.structure == MEMORY:
            return f"memory:{agent}:{self.index}"
        if self.structure == PROFILE:
            return f"profile:{agent}:{self.part}"
        if self.structure == DAILY:
            scope = f"chat:{self.shared}" if self.shared else agent
            return f"daily:{scope}:{self.part}:{self.index}"
        return f"{self.structure}:{self.file}:{self.index}"

    @property
    def where(self) -> str:
        """Where the entry is, for people: the file and its place in it."""
        if self.structure == NOTES:
            return f"{self.file} § entry {self.index}"
        if self.structure == TIERS:
            return f"{self.file} tier {self.part}, entry {self.index}"
        if self.structure == PROFILE:
            return f"{self.file} key {self.part}"
        if self.structure == DOCUMENT:
            return self.file
        return f"{self.file} paragraph {self.index}"

    def origin(self, format_: str) -> dict[str, Any]:
        """The entry's place as JSON (what a face needs to open it)."""
        data: dict[str, Any] = {
            "format": format_,
            "structure": self.structure,
            "agent": self.agent,
            "file": self.file,
            "index": self.index,
            "where": self.where,
        }
        if self.structure == NOTES:
            data["target"] = self.part
        elif self.structure == TIERS:
            data["tier"] = int(self.part or 0)
        elif self.structure == PROFILE:
            data["key"] = self.part
        elif self.structure == DAILY:
            data["date"] = self.part
            if self.shared:
                data["chat"] = self.shared
        elif self.part:
            data["heading"] = self.part
        return data


def paragraphs(text: str) -> list[str]:
    """`text` cut at blank lines, each piece stripped; empty pieces dropped."""
    pieces = re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n"))
    return [p.strip() for p in pieces if p.strip()]


def blocks(text: str) -> list[tuple[str | None, str]]:
    """Markdown cut into (heading, block): paragraphs, and each item of a list on its
    own (its continuation lines with it); a heading line is the context of the blocks
    under it, not a block."""
    found: list[tuple[str | None, str]] = []
    heading: str | None = None
    for para in paragraphs(text):
        lines = para.split("\n")
        body: list[str] = []
        for line in lines:
            if _HEADING.match(line) and not body:
                heading = line.lstrip("#").strip()
                continue
            body.append(line)
        if not body:
            continue
        items: list[list[str]] = []
        if _ITEM.match(body[0]):
            for line in body:
                if _ITEM.match(line) or not items:
                    items.append([line])
                else:
                    items[-1].append(line)
            # the list marker is formatting: the item's text is what follows it
            found += [(heading, _ITEM.sub("", "\n".join(item), 1).strip()) for item in items]
        else:
            found.append((heading, "\n".join(body).strip()))
    return found


def _modified(path: Path) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(os.stat(path).st_mtime, dt.UTC)
    except OSError:
        return None


class _Lister:
    def __init__(self, source: folder.ForeignFolder, problems: list[str] | None) -> None:
        self.source = source
        self.problems = problems
        self.found: list[Entry] = []

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """A file that cannot be read: its error, or (lenient) a problem noted."""
        try:
            yield
        except errors.VaultError as exc:
            if self.problems is None:
                raise
            self.problems.append(str(exc))

    def read(self, path: Path) -> str | None:
        return self.source.files.read_text(path)

    def add(
        self,
        structure: str,
        agent: str | None,
        path: Path,
        pieces: list[str],
        *,
        part: str | None = None,
        parts: list[str | None] | None = None,
        **kw: Any,
    ) -> None:
        """`pieces` of the file `path`, numbered from 1, all of `part` (or each of its
        own, `parts`)."""
        rel = self.source.files.relative(path)
        when = _modified(path)
        each = parts if parts is not None else [part] * len(pieces)
        for i, (text, part) in enumerate(zip(pieces, each, strict=True), 1):
            self.found.append(
                Entry(structure, agent, path, rel, i, text, part, modified=when, **kw)
            )

    def add_blocks(self, structure: str, agent: str | None, path: Path, text: str) -> None:
        found = blocks(text)
        self.add(structure, agent, path, [b for _, b in found], parts=[h for h, _ in found])

    def tiers(self, agent: str, path: Path, text: str) -> None:
        """Each tier's blocks, then the blocks outside the tiers (a title is context)."""
        memory = tiers.split(text)
        for number in tiers.TIERS:
            pieces = [b for _, b in blocks(memory.tier(number))]
            self.add(TIERS, agent, path, pieces, part=str(number))
        self.add_blocks(MEMORY, agent, path, "".join(p for p in memory.parts if isinstance(p, str)))

    def daily(self, note: folder.DailyText, text: str, shared: str | None = None) -> None:
        day = note.date.isoformat()
        pieces = paragraphs(text)
        self.add(DAILY, note.agent, note.path, pieces, part=day, day=note.date, shared=shared)


def untitled(text: str, day: dt.date) -> str:
    """A PicoClaw day's note without its `# YYYY-MM-DD` title and the blank line after
    it (the vault's note has its own title)."""
    m = _TITLE.match(text)
    return text[m.end() :] if m and m.group(1) == day.isoformat() else text


def _hermes(ls: _Lister, home: hermes.HermesHome) -> None:
    for target in hermes.TARGETS:
        path = home.path(target)
        with ls.guard():
            items = [e for e in notes.entries(ls.read(path) or "") if e.strip()]
            ls.add(NOTES, hermes.AGENT, path, items, part=target)
    soul = home.root / "SOUL.md"
    with ls.guard():
        text = ls.read(soul)
        if text and text.strip():
            ls.add(DOCUMENT, hermes.AGENT, soul, [text.strip()])


def _picoclaw(ls: _Lister, ws: picoclaw.PicoClawWorkspace) -> None:
    agent = picoclaw.AGENT
    with ls.guard():
        values = ws.read_profile(agent).values
        path = ws.profile_path()
        pairs = sorted(values.items())
        ls.add(PROFILE, agent, path, [f"{k}: {v}" for k, v in pairs], parts=[k for k, _ in pairs])
    with ls.guard():
        text = ws.long_term()
        if text and tiers.split(text).has_tiers:
            ls.tiers(agent, ws.memory / "MEMORY.md", text)
        elif text:
            ls.add_blocks(MEMORY, agent, ws.memory / "MEMORY.md", text)
    for day in ws.daily_dates(agent):
        with ls.guard():
            note = ws.daily_note(agent, day)
            ls.daily(note, untitled(note.text or "", day))


def _microclaw(ls: _Lister, rt: microclaw.MicroClawRuntime) -> None:
    logs: set[Path] = set()
    for agent in rt.agents():
        with ls.guard():
            state = rt.read_tiers(agent)
            if state.text:
                ls.tiers(agent, state.path, state.text)
        chat = agent.split("/")[0]
        for day in rt.daily_dates(agent):
            with ls.guard():
                note = rt.daily_note(agent, day)
                if note.path in logs:
                    continue
                logs.add(note.path)
                shared = note.path.parent == rt.groups / chat / "memory"
                ls.daily(note, note.text or "", chat if shared else None)
    with ls.guard():
        text = rt.principles()
        if text:
            ls.add_blocks(PRINCIPLES, None, rt.principles_path(), text)


def entries(source: folder.ForeignFolder, problems: list[str] | None = None) -> list[Entry]:
    """Every entry of `source`, file by file in a stable order (see the module's table).

    A file that cannot be read (corrupt JSON, not UTF-8, a symlink out) raises its
    `errors.VaultError`; given a `problems` list, its entries are left out instead and
    the reason is added to the list (search goes on over the rest)."""
    ls = _Lister(source, problems)
    if isinstance(source, hermes.HermesHome):
        _hermes(ls, source)
    elif isinstance(source, picoclaw.PicoClawWorkspace):
        _picoclaw(ls, source)
    elif isinstance(source, microclaw.MicroClawRuntime):
        _microclaw(ls, source)
    else:  # pragma: no cover - every adapter is listed above
        raise errors.VaultError(f"no entries for a {source.name}")
    return ls.found
