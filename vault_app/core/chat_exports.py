"""The conversations people already have with assistants, read from their exports into a
vault's daily notes (`vault-app import FILE`).

Three shapes, told apart by their content (`detect`), never by their name:

- **ChatGPT's data export**: `conversations.json` (or the export's zip, which holds it):
  a list of conversations, each a tree of messages (`mapping`: node id -> `{message,
  parent, children}`, a message with `author.role`, `create_time`, `content.parts`). A
  regenerated answer is a side branch; only the branch the person kept is read: from
  `current_node` up through the parents. Attachments and images are named
  (`[attachment: name]`), never copied.
- **Claude's data export**: `conversations.json`, a list of conversations with
  `chat_messages` (`sender` human or assistant, `text`, `created_at`; files named).
- **JSON lines** of `{time, speaker, text, conversation}` for anything else.

Files are streamed (`ijson`, the well-kept incremental JSON parser with a C backend): a
500 MB export is read one conversation at a time, never whole; `progress(done, total)`
reports the bytes read. A conversation that cannot be read (a missing field, a time that
is no time) is reported by its id and the rest are imported (`Report.problems`).

Each message becomes an entry of the daily note of its (local) date — the global notes,
or `agent`'s — at its time, `**role** (from ChatGPT: title): text` (the heartbeat reads
that prefix: a user's turn speaks for the user, an assistant's gives no fact about them;
a JSON-lines speaker is a name, and "I" in their text is them). A conversation's entries
of one day are placed in one write, in time order among the note's entries
(`Vault.add_daily_entries`); an entry already there with the same time and text is not
added again, so importing twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from vault_app.core import errors

if TYPE_CHECKING:
    from vault_app.core.vault import Vault

FORMATS = ("chatgpt", "claude", "jsonl")
SOURCE_NAMES = {"chatgpt": "ChatGPT", "claude": "Claude", "jsonl": "chat"}
EXPORT_NAME = "conversations.json"  # in a ChatGPT or Claude export (and its zip)
MAX_TEXT = 100_000  # characters of one message kept in its entry (the rest is cut, said)
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Message:
    """One message of a conversation, as an entry will hold it."""

    moment: dt.datetime  # aware
    speaker: str  # a role (user, assistant) or a name
    text: str
    conversation: str  # its title, or its id when it has none


@dataclass
class Report:
    """What an import did: counts, and the conversations it could not read."""

    format: str
    conversations: int = 0
    messages: int = 0
    added: int = 0  # entries placed in daily notes (a message already there is not)
    days: int = 0  # notes written
    skipped: int = 0  # messages without text, system and tool messages
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "conversations": self.conversations,
            "messages": self.messages,
            "added": self.added,
            "already_there": self.messages - self.added,
            "days": self.days,
            "skipped": self.skipped,
            "problems": self.problems,
        }


class _Opened:
    """A file of the import, opened (from a zip when it is one) and sized for progress."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self.member: str | None = None
        self.size = path.stat().st_size
        if zipfile.is_zipfile(path):
            self._zip = zipfile.ZipFile(path)
            names = [n for n in self._zip.namelist() if n.rsplit("/", 1)[-1] == EXPORT_NAME]
            if not names:
                raise errors.VaultError(f"{path}: a zip without {EXPORT_NAME} (not an export)")
            self.member = min(names, key=len)
            self.size = self._zip.getinfo(self.member).file_size

    def open(self) -> IO[bytes]:
        if self._zip is not None and self.member is not None:
            return self._zip.open(self.member)
        return self.path.open("rb")

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def detect(path: Path) -> str:
    """The export's format, from its content: chatgpt, claude or jsonl."""
    opened = _Opened(path)
    try:
        with opened.open() as handle:
            head = handle.read(4096).lstrip()
            if head.startswith(b"["):
                first = _first_item(opened)
                if isinstance(first, dict) and "mapping" in first:
                    return "chatgpt"
                if isinstance(first, dict) and "chat_messages" in first:
                    return "claude"
                raise errors.VaultError(
                    f"{path}: a JSON list, but not of ChatGPT conversations (mapping) nor "
                    "Claude's (chat_messages)"
                )
            if head.startswith(b"{"):
                line = head.split(b"\n", 1)[0]
                try:
                    row = json.loads(line)
                except ValueError:
                    row = None
                if isinstance(row, dict) and {"time", "text"} <= row.keys():
                    return "jsonl"
            raise errors.VaultError(
                f"{path}: not a ChatGPT or Claude export ({EXPORT_NAME}, or its zip) nor "
                "JSON lines of {time, speaker, text, conversation}"
            )
    finally:
        opened.close()


def _items(handle: IO[bytes] | _Counting) -> Iterator[Any]:
    """The elements of the JSON list in `handle`, one at a time (the caller closes it)."""
    import ijson  # the incremental parser: only an import needs it

    yield from ijson.items(handle, "item", use_float=True)


def _first_item(opened: _Opened) -> Any:
    """The first element of the export's JSON list (None when it is empty)."""
    import ijson

    with opened.open() as handle:
        try:
            return next(_items(handle), None)
        except ijson.JSONError as exc:
            raise errors.VaultError(f"{opened.path}: damaged JSON at its start: {exc}") from exc


def read(
    path: Path, fmt: str, report: Report, progress: Progress | None = None
) -> Iterator[list[Message]]:
    """The export's conversations, one list of messages (in time order) at a time; a
    conversation that cannot be read goes to `report.problems` by its id."""
    if fmt not in FORMATS:
        raise errors.VaultError(f"unknown format {fmt!r}: use auto, {', '.join(FORMATS)}")
    opened = _Opened(path)
    counted = None
    try:
        counted = _Counting(opened.open(), opened.size, progress)
        if fmt == "jsonl":
            yield from _jsonl(counted, report)
            return
        import ijson

        parse = _chatgpt if fmt == "chatgpt" else _claude
        conversations = enumerate(_items(counted))
        while True:
            try:
                index, conversation = next(conversations)
            except StopIteration:
                return
            except ijson.JSONError as exc:  # the file itself is cut or damaged: stop there
                report.problems.append(f"the file is damaged after byte {counted.done:,}: {exc}")
                return
            name = _conversation_id(conversation, index)
            try:
                messages = parse(conversation, report)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                report.problems.append(f"conversation {name}: {type(exc).__name__}: {exc}")
                continue
            report.conversations += 1
            yield sorted(messages, key=lambda m: m.moment)
    finally:
        if counted is not None:
            counted.close()
        opened.close()


class _Counting:
    """A binary stream read by chunks or by lines, reporting how many bytes were read."""

    def __init__(self, inner: IO[bytes], total: int, progress: Progress | None) -> None:
        self.inner, self.total, self.progress, self.done = inner, total, progress, 0

    def _count(self, data: bytes) -> bytes:
        self.done += len(data)
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)
        return data

    def read(self, size: int = -1) -> bytes:  # what the JSON parser calls
        return self._count(self.inner.read(size))

    def lines(self) -> Iterator[bytes]:
        for line in self.inner:
            yield self._count(line)

    def close(self) -> None:
        self.inner.close()


def _conversation_id(conversation: Any, index: int) -> str:
    if isinstance(conversation, dict):
        for key in ("conversation_id", "id", "uuid"):
            if isinstance(conversation.get(key), str):
                return conversation[key]
    return f"#{index + 1}"


def _title(conversation: dict[str, Any], index_name: str) -> str:
    title = conversation.get("title") or conversation.get("name")
    return " ".join(str(title).split())[:120] if title else index_name


def _epoch(value: Any) -> dt.datetime:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"create_time {value!r} is no time")
    return dt.datetime.fromtimestamp(float(value), dt.UTC)


def _iso(value: Any) -> dt.datetime:
    if not isinstance(value, str):
        raise ValueError(f"time {value!r} is no ISO time")
    moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.astimezone()


def _chatgpt(conversation: dict[str, Any], report: Report) -> list[Message]:
    """The kept branch of a ChatGPT conversation: from `current_node` up to the root."""
    title = _title(conversation, _conversation_id(conversation, 0))
    mapping = conversation["mapping"]
    node = conversation.get("current_node")
    if node is None:  # no marker: the last leaf made
        leaves = [k for k, v in mapping.items() if not v.get("children")]
        node = leaves[-1] if leaves else None
    branch = []
    seen: set[str] = set()
    while node is not None and node not in seen:  # a cycle is a damaged file: stop there
        seen.add(node)
        branch.append(mapping[node])
        node = mapping[node].get("parent")
    fallback = conversation.get("create_time")
    out = []
    for item in reversed(branch):
        message = item.get("message")
        if not message:
            continue
        role = (message.get("author") or {}).get("role")
        hidden = (message.get("metadata") or {}).get("is_visually_hidden_from_conversation")
        text = _chatgpt_text(message)
        if role not in ("user", "assistant") or hidden or not text.strip():
            report.skipped += 1
            continue
        report.messages += 1
        when = message.get("create_time") or fallback
        out.append(Message(_epoch(when), role, text, title))
    return out


def _chatgpt_text(message: dict[str, Any]) -> str:
    content = message.get("content") or {}
    parts = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):  # an image or a file: named, not copied
            kind = part.get("content_type", "attachment").replace("_", " ")
            parts.append(f"[{kind}]")
    if not parts and isinstance(content.get("text"), str):
        parts.append(content["text"])
    for attachment in (message.get("metadata") or {}).get("attachments") or []:
        if isinstance(attachment, dict) and attachment.get("name"):
            parts.append(f"[attachment: {attachment['name']}]")
    return "\n\n".join(p for p in parts if p.strip())


def _claude(conversation: dict[str, Any], report: Report) -> list[Message]:
    title = _title(conversation, _conversation_id(conversation, 0))
    out = []
    for message in conversation["chat_messages"]:
        sender = message.get("sender")
        role = "user" if sender == "human" else sender
        text = message.get("text") or "\n\n".join(
            c.get("text", "") for c in message.get("content") or [] if isinstance(c, dict)
        )
        names = [
            f["file_name"]
            for key in ("attachments", "files")
            for f in message.get(key) or []
            if isinstance(f, dict) and f.get("file_name")
        ]
        text = "\n\n".join([text, *(f"[attachment: {n}]" for n in names)]).strip()
        if role not in ("user", "assistant") or not text:
            report.skipped += 1
            continue
        report.messages += 1
        out.append(Message(_iso(message["created_at"]), role, text, title))
    return out


def _jsonl(handle: _Counting, report: Report) -> Iterator[list[Message]]:
    """JSON lines, one message each; a run of lines of one conversation is yielded
    together (a line that cannot be read is a problem named by its line number)."""
    batch: list[Message] = []
    current: str | None = None
    for number, raw in enumerate(handle.lines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            text = row["text"]
            if not isinstance(text, str):
                raise ValueError("text is not a string")
            speaker = " ".join(str(row.get("speaker") or "user").split())[:60]
            conversation = " ".join(str(row.get("conversation") or "").split())[:120]
            message = Message(_iso(row["time"]), speaker, text, conversation)
        except (KeyError, TypeError, ValueError) as exc:
            report.problems.append(f"line {number}: {type(exc).__name__}: {exc}")
            continue
        if not text.strip():
            report.skipped += 1
            continue
        report.messages += 1
        if batch and message.conversation != current:
            report.conversations += 1
            yield sorted(batch, key=lambda m: m.moment)
            batch = []
        batch.append(message)
        current = message.conversation
    if batch:
        report.conversations += 1
        yield sorted(batch, key=lambda m: m.moment)


def entry_text(message: Message, fmt: str) -> str:
    """The daily-note entry of `message`: `**role** (from ChatGPT: title): text`."""
    text = (
        message.text
        if len(message.text) <= MAX_TEXT
        else (message.text[:MAX_TEXT] + f"\n\n[… {len(message.text) - MAX_TEXT:,} more characters]")
    )
    where = SOURCE_NAMES[fmt] + (f": {message.conversation}" if message.conversation else "")
    return f"**{message.speaker}** (from {where}): {text.strip()}"


def import_export(
    vault: Vault,
    path: Path,
    fmt: str = "auto",
    *,
    agent: str | None = None,
    progress: Progress | None = None,
) -> Report:
    """Read the export at `path` into `vault`'s daily notes (see the module doc)."""
    if not path.is_file():
        raise errors.NotFoundError(f"no file {path}")
    chosen = detect(path) if fmt == "auto" else fmt
    report = Report(chosen)
    days: set[tuple[dt.date, str | None]] = set()
    for messages in read(path, chosen, report, progress):
        by_day: dict[dt.date, list[tuple[dt.time, str]]] = {}
        for message in messages:
            local = message.moment.astimezone()
            by_day.setdefault(local.date(), []).append(
                (local.time().replace(microsecond=0), entry_text(message, chosen))
            )
        for day, items in by_day.items():
            added = vault.add_daily_entries(day, items, agent=agent)
            report.added += added
            if added:
                days.add((day, agent))
    report.days = len(days)
    return report


def lines(report: Report, path: Path) -> Iterator[str]:
    """The report in words."""
    yield (
        f"imported {report.format} export {path}: {report.conversations} conversations, "
        f"{report.messages} messages, {report.added} entries added in {report.days} daily "
        f"notes ({report.messages - report.added} already there, {report.skipped} without "
        "text or not a person's or assistant's)"
    )
    for problem in report.problems:
        yield f"  not imported: {problem}"
