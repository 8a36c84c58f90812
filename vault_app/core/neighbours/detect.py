"""Which kind of memory folder a path is: a PARA vault or a neighbour's folder.

Each format is recognised by files only its owner writes, checked without following a
symlink out and without reading more than names:

==========  ==============================================================================
format      recognised by (any one of)
==========  ==============================================================================
para        `.vault/` (vault-app's state) or `global/life/` (the PARA graph)
hermes      `memories/MEMORY.md` or `memories/USER.md`, or an empty `memories/` (a Hermes
            home, `~/.hermes`, before its first memory)
picoclaw    `memory/MEMORY.md`, `memory/profile.json` or a daily note
            `memory/YYYYMM/YYYYMMDD.md` (a PicoClaw workspace, `~/.picoclaw/workspace`)
microclaw   `groups/AGENTS.md`, a persona's `groups/<chat>/<persona>/MEMORY.md` or a daily
            log `groups/<chat>/memory/YYYY-MM-DD.md` (MicroClaw's runtime data folder)
==========  ==============================================================================

A folder that shows the marks of two formats is ambiguous and refused, naming what was
found of each (vault-app never guesses whose files it is about to write). A folder that
shows none is unknown and refused, naming what was looked for, unless it is empty or
holds the start of a PARA vault (`agents/` or `global/`): that is a new PARA vault, as it
always was. The folder one level up or down is named when it is what the user meant
(`~/.picoclaw` holds the workspace; `~/.hermes/memories` is inside the home).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import errors, layout

PARA = "para"
HERMES = "hermes"
PICOCLAW = "picoclaw"
MICROCLAW = "microclaw"
FORMATS = (PARA, HERMES, PICOCLAW, MICROCLAW)
NAMES = {
    PARA: "PARA vault",
    HERMES: "Hermes home",
    PICOCLAW: "PicoClaw workspace",
    MICROCLAW: "MicroClaw runtime",
}

LOOKED_FOR = {
    PARA: ".vault/ or global/life/",
    HERMES: "memories/MEMORY.md or memories/USER.md",
    PICOCLAW: "memory/MEMORY.md, memory/profile.json or memory/YYYYMM/YYYYMMDD.md",
    MICROCLAW: "groups/AGENTS.md, groups/<chat>/<persona>/MEMORY.md or "
    "groups/<chat>/memory/YYYY-MM-DD.md",
}

PICO_MONTH = re.compile(r"^\d{6}$")
PICO_DAY = re.compile(r"^(\d{4})(\d{2})(\d{2})\.md$")
MICRO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
# MicroClaw names a chat's folder by its integer id (Telegram groups are negative)
MICRO_ID = re.compile(r"^-?\d{1,20}$")


class UnknownFormatError(errors.NotFoundError):
    """A folder that is none of the formats vault-app opens."""


class AmbiguousFormatError(errors.VaultError):
    """A folder that holds the marks of more than one format."""


@dataclass(frozen=True)
class Detected:
    """What `detect` found: the format and, per format that matched, the marks seen."""

    format: str
    root: Path
    evidence: tuple[str, ...]


def _kind(path: Path) -> str | None:
    """ "file" / "dir" for a regular file / folder (a symlink is looked at, not followed
    out: what it points to is checked by the reader), None when absent or special."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return None
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return None


def _names(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _para(root: Path) -> list[str]:
    return [
        mark
        for mark, rel in ((".vault/", layout.STATE_DIR), ("global/life/", "global/life"))
        if _kind(root / rel) == "dir"
    ]


def _hermes(root: Path) -> list[str]:
    marks = [
        f"memories/{n}" for n in ("MEMORY.md", "USER.md") if _kind(root / "memories" / n) == "file"
    ]
    if not marks and _kind(root / "memories") == "dir":  # Hermes' first run: still empty
        marks.append("memories/")
    return marks


def pico_daily_notes(memory: Path) -> list[tuple[str, str]]:
    """(month folder, file name) of every `YYYYMM/YYYYMMDD.md` under `memory/` whose
    month folder matches its date."""
    found = []
    for month in _names(memory):
        if not PICO_MONTH.match(month) or _kind(memory / month) != "dir":
            continue
        for name in _names(memory / month):
            if (
                PICO_DAY.match(name)
                and name.startswith(month)
                and _kind(memory / month / name) == "file"
            ):
                found.append((month, name))
    return found


def _picoclaw(root: Path) -> list[str]:
    memory = root / "memory"
    marks = [f"memory/{n}" for n in ("MEMORY.md", "profile.json") if _kind(memory / n) == "file"]
    notes = pico_daily_notes(memory)
    if notes:
        month, name = notes[0]
        marks.append(
            f"memory/{month}/{name}" + (f" (+{len(notes) - 1} more)" if len(notes) > 1 else "")
        )
    return marks


def micro_personas(groups: Path) -> list[tuple[str, str]]:
    """(chat, persona) of every `groups/<chat>/<persona>/MEMORY.md`."""
    found = []
    for chat in _names(groups):
        if not MICRO_ID.match(chat) or _kind(groups / chat) != "dir":
            continue
        for persona in _names(groups / chat):
            if MICRO_ID.match(persona) and _kind(groups / chat / persona / "MEMORY.md") == "file":
                found.append((chat, persona))
    return found


def micro_chats_with_logs(groups: Path) -> list[str]:
    return [
        chat
        for chat in _names(groups)
        if MICRO_ID.match(chat)
        and any(MICRO_DAY.match(n) for n in _names(groups / chat / "memory"))
    ]


def _microclaw(root: Path) -> list[str]:
    groups = root / "groups"
    if _kind(groups) != "dir":
        return []
    marks = ["groups/AGENTS.md"] if _kind(groups / "AGENTS.md") == "file" else []
    personas = micro_personas(groups)
    if personas:
        chat, persona = personas[0]
        more = f" (+{len(personas) - 1} more)" if len(personas) > 1 else ""
        marks.append(f"groups/{chat}/{persona}/MEMORY.md{more}")
    logs = micro_chats_with_logs(groups)
    if logs:
        marks.append(f"groups/{logs[0]}/memory/YYYY-MM-DD.md")
    return marks


_CHECKS = ((PARA, _para), (HERMES, _hermes), (PICOCLAW, _picoclaw), (MICROCLAW, _microclaw))


def marks(root: Path) -> dict[str, list[str]]:
    """Per format, the marks of it found in `root` (formats with none left out)."""
    found = {}
    for name, check in _CHECKS:
        seen = check(root)
        if seen:
            found[name] = seen
    return found


def _hint(root: Path) -> str:
    """The nearby folder the user may have meant, as a sentence ('' when none)."""
    nearby = [
        (root / below, f"{root / below} is")
        for below in ("workspace", ".hermes", "runtime", "microclaw.data/runtime")
    ]
    if root.parent != root:
        nearby.append((root.parent, f"its parent {root.parent} is"))
    for folder, words in nearby:
        if _kind(folder) == "dir" and marks(folder):
            try:
                return f"; {words} a {NAMES[detect(folder).format]}"
            except errors.VaultError:  # ambiguous there too: no hint
                continue
    return ""


def detect(path: Path | str) -> Detected:
    """The format of the folder at `path`; `UnknownFormatError` / `AmbiguousFormatError`
    (naming what was looked for, and found) when it is none or more than one.

    An empty folder, or one holding only the start of a PARA vault (`agents/`,
    `global/`), is a PARA vault: `vault-app init` and `Vault.create` lay out such folders.
    """
    root = Path(path).expanduser()
    if _kind(root) != "dir":
        raise errors.NotFoundError(f"no vault at {root}: not a folder")
    found = marks(root)
    if len(found) == 1:
        ((name, seen),) = found.items()
        return Detected(name, root, tuple(seen))
    if len(found) > 1:
        parts = "; ".join(f"{NAMES[n]} ({', '.join(s)})" for n, s in found.items())
        raise AmbiguousFormatError(
            f"{root} holds more than one kind of memory folder: {parts}; vault-app opens "
            "a folder of one kind only (move the other's files out, or open a subfolder)"
        )
    names = [n for n in _names(root) if n not in {".DS_Store", "Thumbs.db", "desktop.ini"}]
    if not names or any(_kind(root / n) == "dir" for n in ("agents", "global")):
        return Detected(PARA, root, ())
    looked = "; ".join(f"{LOOKED_FOR[n]} ({NAMES[n]})" for n in FORMATS)
    raise UnknownFormatError(
        f"{root} is not a memory folder vault-app knows: looked for {looked}{_hint(root)}"
    )
