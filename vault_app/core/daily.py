r"""Daily notes: `YYYY-MM-DD.md` files made of `## HH:MM:SS` entries.

The reference writer appends `\n## HH:MM:SS\n\n<content>\n` to the day's file; a new file
starts with a `# YYYY-MM-DD` heading. Text before the first entry heading is the note's
preamble; each entry runs to the next entry heading. `## HH:MM` (no seconds) is read too,
and so is a heading line ending in CRLF.

Entry text cannot forge an entry heading: on append, a line of the text that would read
as one (`## 12:00:00`, `## 12:00`, with trailing blanks or a CR) gets a backslash in front
(`\## 12:00:00`, which markdown shows as the plain text `## 12:00:00`), and a line that
already is such a heading behind backslashes gets one more, so reading the entry back
removes exactly one and gives the text as it was appended (`escape_text` /
`unescape_text`, exact inverses of each other).

An entry is often a turn of a conversation, opening with its speaker: "**Maya**: …",
"**Melanie** (D14:4): …" (LoCoMo), "**user** (Jane, chat 42): …" (`record_interaction`),
"User: …", "Maya: …". `TURN` reads that prefix (the heartbeat reads who "I" is with it)
and `speaker` says whose turn it is (search weighs a name the turn is *by* above one it
only mentions); `turn_id` reads the id in its brackets, which a fact may cite as its source.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from vault_app.core import models

_HEADING = r"## (\d{2}:\d{2}(?::\d{2})?)[ \t]*\r?"
ENTRY_HEADING = re.compile(rf"^{_HEADING}$", re.MULTILINE)
_FORGED = re.compile(rf"^(\\*{_HEADING})$", re.MULTILINE)  # a heading behind 0+ backslashes
_ESCAPED = re.compile(rf"^\\(\\*{_HEADING})$", re.MULTILINE)  # ... behind 1+ backslashes

# a turn's speaker: "**Maya**: ", "**user** (Jane, chat 42): ", "User: " (the heartbeat's
# rules read the groups: `bold` a name or a role, `role` a bare role, `detail` the brackets)
TURN = re.compile(
    r"^\s{0,4}(?:\*\*(?P<bold>[^*\n]{1,60})\*\*"
    r"|(?P<role>(?i:user|human|assistant|ai|bot|system)))"
    r"(?:\s{0,4}\((?P<detail>[^()\n]{0,80})\))?\s{0,4}:\s+"
)
# "Maya: …", "Maya Chen: …": a plain capitalised name of up to three words before a colon
_PLAIN_TURN = re.compile(r"^\s{0,4}([A-Z][\w'’.-]{0,30}(?: [A-Z][\w'’.-]{0,30}){0,2}):\s")
# the roles a turn's speaker may be instead of a name (the heartbeat reads them: `turns`)
USER_ROLES = frozenset({"user", "human", "me"})  # the user speaks
ASSISTANT_ROLES = frozenset({"assistant", "ai", "bot", "model", "system", "tool"})
MEMORY_ROLE = "memory"  # what an assistant saved to its memory of the user (ChatGPT's `bio`)
PROFILE_ROLE = "profile"  # what the user wrote about themselves for it (custom instructions)
MEMORY_ROLES = frozenset({MEMORY_ROLE, PROFILE_ROLE})
_ROLES = USER_ROLES | ASSISTANT_ROLES | MEMORY_ROLES


# a turn's id: the one word in its header's brackets that names it ("D14:4", "msg-42"),
# which a fact's `source` may cite (search weighs a fact by how well its turn matches)
_TURN_ID = re.compile(r"[A-Za-z]{0,12}[-_]?\d{1,9}(?:[:._-]\d{1,9}){0,3}")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def is_turn_id(word: str) -> bool:
    """Whether `word` reads as a turn's id ("D1:3", "msg-42", "17"), a day aside."""
    return _TURN_ID.fullmatch(word) is not None and _ISO_DAY.fullmatch(word) is None


def turn_id(text: str) -> str | None:
    """The id of the turn the entry `text` is ("**Melanie** (D14:4): …" -> "D14:4"): its
    header's brackets when they hold one word that reads as an id; else None."""
    match = TURN.match(text)
    detail = (match["detail"] or "").strip() if match is not None else ""
    return detail if detail and is_turn_id(detail) else None


def speaker(text: str) -> str | None:
    """Whose turn the entry `text` is, as written: the bold or plain name before its colon,
    or for a role ("**user** (Jane, chat 42)") the name in its brackets; None when it is no
    turn, or a role with no name."""
    match = TURN.match(text)
    if match is None:
        plain = _PLAIN_TURN.match(text)
        return plain[1] if plain else None
    who = (match["bold"] or match["role"] or "").strip()
    if who.lower() not in _ROLES:
        return who or None
    detail = (match["detail"] or "").split(",")[0].strip()
    return detail if _PLAIN_TURN.match(f"{detail}: ") else None  # not "chat 42", "D1:3"


def escape_text(text: str) -> str:
    """Entry text as written to the note: no line of it reads as an entry heading."""
    return _FORGED.sub(r"\\\1", text) if "## " in text else text


def unescape_text(text: str) -> str:
    """Entry text as read from the note: the inverse of `escape_text`."""
    return _ESCAPED.sub(r"\1", text) if "\\## " in text else text


def parse(text: str, day: dt.date, agent: str | None, path: Path) -> models.DailyNote:
    matches = list(ENTRY_HEADING.finditer(text))
    preamble = text[: matches[0].start()] if matches else text
    entries = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = unescape_text(text[match.end() : end].lstrip("\r\n").rstrip())
        entries.append(
            models.DailyEntry(date=day, time=match[1], text=body, index=index, agent=agent)
        )
    return models.DailyNote(
        date=day, agent=agent, path=path, preamble=preamble.strip(), entries=entries
    )


def new_note(day: dt.date) -> str:
    return f"# {day.isoformat()}\n"


def entry_body(content: str) -> str:
    """What an entry of `content` holds once appended and read back."""
    return content.lstrip("\r\n").rstrip()


def entry_segment(time: str, text: str) -> str:
    """The exact text an entry adds to its note (`text` as read back, unescaped)."""
    return f"\n## {time}\n\n{escape_text(text)}\n"


def insert(current: str | None, day: dt.date, items: list[tuple[dt.time, str]]) -> tuple[str, int]:
    """The note's new text with `items` (moment, content) placed in time order: each
    before the first entry of a later time, the note's own entries kept as and where they
    are; an item whose time and text an entry already has is left out (an import run
    twice adds nothing). Returns the text and how many entries were added."""
    text = new_note(day) if current is None else current
    have = {(e.time, e.text) for e in parse(text, day, None, Path()).entries}
    added = 0
    for moment, content in sorted(items, key=lambda item: item[0]):
        time, body = moment.strftime("%H:%M:%S"), entry_body(content)
        if not body or (time, body) in have:
            continue
        have.add((time, body))
        later = next((m for m in ENTRY_HEADING.finditer(text) if m[1] > time), None)
        at = len(text) if later is None else later.start() - 1  # before its "\n## "
        text = text[:at] + entry_segment(time, body) + text[at:]
        added += 1
    return text, added


def append(current: str | None, day: dt.date, moment: dt.time, content: str) -> str:
    """The note's new text with one more entry (the reference writer's format)."""
    text = new_note(day) if current is None else current
    return text + entry_segment(moment.strftime("%H:%M:%S"), entry_body(content))
