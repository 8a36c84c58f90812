"""Daily notes: `YYYY-MM-DD.md` files made of `## HH:MM:SS` entries.

The reference writer appends `\\n## HH:MM:SS\\n\\n<content>\\n` to the day's file; a new file
starts with a `# YYYY-MM-DD` heading. Text before the first entry heading is the note's
preamble; each entry runs to the next entry heading. `## HH:MM` (no seconds) is read too.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from vault_app.core import models

ENTRY_HEADING = re.compile(r"^## (\d{2}:\d{2}(?::\d{2})?)[ \t]*$", re.MULTILINE)


def parse(text: str, day: dt.date, agent: str | None, path: Path) -> models.DailyNote:
    matches = list(ENTRY_HEADING.finditer(text))
    preamble = text[: matches[0].start()] if matches else text
    entries = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end].strip("\n").rstrip()
        entries.append(
            models.DailyEntry(date=day, time=match[1], text=body, index=index, agent=agent)
        )
    return models.DailyNote(
        date=day, agent=agent, path=path, preamble=preamble.strip(), entries=entries
    )


def new_note(day: dt.date) -> str:
    return f"# {day.isoformat()}\n"


def append(current: str | None, day: dt.date, moment: dt.time, content: str) -> str:
    """The note's new text with one more entry (the reference writer's format)."""
    text = new_note(day) if current is None else current
    body = content.strip("\n").rstrip()
    return f"{text}\n## {moment.strftime('%H:%M:%S')}\n\n{body}\n"
