"""The conversations people already have with assistants, read from their exports into a
vault's daily notes (`vault-app import FILE`).

Three shapes, told apart by their content (`detect`), never by their name:

- **ChatGPT's data export**: `conversations.json` (or the export's zip, or the folder it
  unzips to), a list of conversations, each a tree of messages (`mapping`: node id ->
  `{message, parent}`, a message with `author.role`, `create_time`, `content.parts`). A
  newer export splits that list into parts (`conversations-000.json`, …, in the order a
  manifest's `logical_files` gives, else by name); all are read. A regenerated answer or an
  edited question is a side branch; only the branch the person kept is read: from
  `current_node` (else the newest leaf) up through the parents. What is read is what the
  person saw: a voice turn's transcription, never the audio; an image or attachment named
  (`[attachment: name]`), never copied; citation markers (`\ue200cite\ue202…\ue201`,
  `【3†source】`) gone and an entity marker shown as its name, as ChatGPT's page shows them;
  not the assistant's calls to its tools (`recipient` other than all), its hidden reasoning
  (`thoughts`, `reasoning_recap`) or the memory it was given. What it saved to its memory
  of the person (its call to `bio`, which the page shows as "Memory updated") is an entry
  of its own, `**memory** (from ChatGPT: title): User prefers Python.`, which the heartbeat
  keeps as the person's own request to remember (`heartbeat.turns`); what the person
  wrote about themselves in its custom instructions is one entry, the first time the
  import meets it, `**profile** (from ChatGPT: About you): My name is Elin. …`, kept the
  same way. A message the
  export dates before the one it answers (voice answers are) is placed at that one's
  time, so the branch's order is kept. A conversation the person kept out of ChatGPT's memory
  (`is_do_not_remember`) is left out and counted (`Report.opted_out`): a memory vault
  would otherwise remember what they asked to be forgotten.
- **Claude's data export**: `conversations.json`, a list of conversations with
  `chat_messages` (`sender` human or assistant, `content` blocks or `text`, `created_at`;
  files named). Its messages hold every branch; only the kept one is read, from
  `current_leaf_message_uuid` up through each `parent_message_uuid`, and of a message only
  its text blocks (not its `thinking`, its tools' calls or their results).
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
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from vault_app.core import daily, errors

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
    opted_out: int = 0  # conversations kept out of the assistant's memory: left out
    memories: int = 0  # of `messages`, what the assistant saved to its memory of the person
    profiles: set[str] = field(default_factory=set, repr=False)  # "About you" texts placed
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
            "opted_out": self.opted_out,
            "memories": self.memories,
            "problems": self.problems,
        }


_SHARD = re.compile(r"conversations[-_.]?\d+\.json")  # a part of a sharded export
MAX_MANIFEST = 1 << 20  # bytes of a manifest read to find the parts' order


class _Source:
    """The file(s) an import reads: the file given, or in an export's zip or folder its
    `conversations.json` — or a sharded export's parts, in the manifest's order when one
    names them, else by name. Sized for progress; `missing` names parts a manifest lists
    that are not there."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self.missing: list[str] = []
        self.sizes: dict[str, int]
        if path.is_dir():
            found = sorted([*path.glob("*.json"), *path.glob("*/*.json")])  # not deeper
            self.sizes = {
                f.relative_to(path).as_posix(): f.stat().st_size for f in found if f.is_file()
            }
            self.parts = self._choose(path.name + "/")
        elif zipfile.is_zipfile(path):
            self._zip = zipfile.ZipFile(path)
            self.sizes = {i.filename: i.file_size for i in self._zip.infolist() if not i.is_dir()}
            self.parts = self._choose(path.name + ": a zip ")
        else:
            self.sizes = {"": path.stat().st_size}
            self.parts = [""]
        self.total = sum(self.sizes[p] for p in self.parts)

    def _choose(self, what: str) -> list[str]:
        by_base: dict[str, list[str]] = {}
        for name in self.sizes:
            by_base.setdefault(name.rsplit("/", 1)[-1], []).append(name)
        listed = self._manifest()
        if listed:
            parts = [p for p in listed if p in self.sizes]
            self.missing = [p for p in listed if p not in self.sizes]
            if parts:
                return parts
        if EXPORT_NAME in by_base:
            return [min(by_base[EXPORT_NAME], key=len)]
        shards = sorted(
            (n for base, names in by_base.items() if _SHARD.fullmatch(base) for n in names),
            key=_natural,
        )
        if shards:
            return shards
        raise errors.VaultError(
            f"{what}without {EXPORT_NAME} or its parts (conversations-000.json, …): "
            "not a ChatGPT or Claude export"
        )

    def _manifest(self) -> list[str]:
        """The parts of `conversations.json` a sharded export's manifest lists, in order."""
        for name, size in self.sizes.items():
            if "manifest" not in name.rsplit("/", 1)[-1] or size > MAX_MANIFEST:
                continue
            try:
                with self.open(name) as handle:
                    data = json.loads(handle.read())
            except (OSError, ValueError):
                continue
            logical = data.get("logical_files") if isinstance(data, dict) else None
            for item in logical if isinstance(logical, list) else []:
                if isinstance(item, dict) and item.get("name") == EXPORT_NAME:
                    folder = name.rpartition("/")[0]
                    return [
                        f"{folder}/{f}" if folder else f
                        for f in item.get("files") or []
                        if isinstance(f, str)
                    ]
        return []

    def open(self, part: str) -> IO[bytes]:
        if self._zip is not None:
            return self._zip.open(part)
        return (self.path / part if part else self.path).open("rb")

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def _natural(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def is_export(path: Path) -> bool:
    """Whether `path` is an export's file, or the folder an export unzips to."""
    if path.is_file():
        return True
    if not path.is_dir():
        return False
    try:
        _Source(path).close()
    except errors.VaultError:
        return False
    return True


def detect(path: Path) -> str:
    """The export's format, from its content: chatgpt, claude or jsonl."""
    source = _Source(path)
    try:
        with source.open(source.parts[0]) as handle:
            head = handle.read(4096).lstrip()
        if head.startswith(b"["):
            first = _first_item(source)
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
        source.close()


def _items(handle: IO[bytes] | _Counting) -> Iterator[Any]:
    """The elements of the JSON list in `handle`, one at a time (the caller closes it)."""
    import ijson  # the incremental parser: only an import needs it

    yield from ijson.items(handle, "item", use_float=True)


def _first_item(source: _Source) -> Any:
    """The first element of the export's JSON list (None when it is empty)."""
    import ijson

    with source.open(source.parts[0]) as handle:
        try:
            return next(_items(handle), None)
        except ijson.JSONError as exc:
            raise errors.VaultError(f"{source.path}: damaged JSON at its start: {exc}") from exc


def read(
    path: Path, fmt: str, report: Report, progress: Progress | None = None
) -> Iterator[list[Message]]:
    """The export's conversations, one list of messages (in time order) at a time; a
    conversation that cannot be read goes to `report.problems` by its id."""
    if fmt not in FORMATS:
        raise errors.VaultError(f"unknown format {fmt!r}: use auto, {', '.join(FORMATS)}")
    source = _Source(path)
    report.problems.extend(
        f"{p}: listed in the export's manifest, not in it" for p in source.missing
    )
    try:
        counted = _Counting(source.total, progress)
        for part in source.parts:
            with source.open(part) as handle:
                counted.inner = handle
                if fmt == "jsonl":
                    yield from _jsonl(counted, report)
                else:
                    yield from _conversations(counted, fmt, report, part)
    finally:
        source.close()


def _conversations(
    counted: _Counting, fmt: str, report: Report, part: str
) -> Iterator[list[Message]]:
    import ijson

    parse = _chatgpt if fmt == "chatgpt" else _claude
    conversations = enumerate(_items(counted))
    while True:
        try:
            index, conversation = next(conversations)
        except StopIteration:
            return
        except ijson.JSONError as exc:  # the file itself is cut or damaged: stop there
            where = f"{part} " if part else "the file "
            report.problems.append(f"{where}is damaged after byte {counted.done:,}: {exc}")
            return
        name = _conversation_id(conversation, index)
        if isinstance(conversation, dict) and conversation.get("is_do_not_remember") is True:
            report.opted_out += 1  # "Don't remember this chat" in ChatGPT: not ours either
            continue
        try:
            messages = parse(conversation, report)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            report.problems.append(f"conversation {name}: {type(exc).__name__}: {exc}")
            continue
        report.conversations += 1
        yield sorted(messages, key=lambda m: m.moment)


class _Counting:
    """The stream being read (by chunks or by lines), reporting how many bytes of all the
    import's files were read."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.progress, self.done = total, progress, 0
        self.inner: IO[bytes] | None = None

    def _count(self, data: bytes) -> bytes:
        self.done += len(data)
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)
        return data

    def read(self, size: int = -1) -> bytes:  # what the JSON parser calls
        assert self.inner is not None
        return self._count(self.inner.read(size))

    def lines(self) -> Iterator[bytes]:
        assert self.inner is not None
        for line in self.inner:
            yield self._count(line)


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
    """The kept branch of a ChatGPT conversation, as the person saw it (the module doc)."""
    title = _title(conversation, _conversation_id(conversation, 0))
    mapping = conversation["mapping"]
    branch = []
    seen: set[str] = set()
    node = conversation.get("current_node") or _newest_leaf(mapping)
    while node is not None and node not in seen:  # a cycle is a damaged file: stop there
        seen.add(node)
        branch.append(mapping[node])
        node = mapping[node].get("parent")
    out: list[Message] = []
    last: dt.datetime | None = None
    for item in reversed(branch):
        message = item.get("message")
        if not message:
            continue
        when = message.get("create_time")
        if when is not None:
            moment = _epoch(when)
            last = moment if last is None else max(moment, last)  # never before its question
        noted = _memory_note(message)
        about = _about_you(message, report.profiles)
        text = noted or about or (_chatgpt_text(message) if _seen_by_person(message) else "")
        if not text.strip():
            report.skipped += 1
            continue
        if last is None:  # undated from the start: the conversation's time
            last = _epoch(conversation.get("create_time"))
        report.messages += 1
        report.memories += 1 if noted else 0
        if about:  # once an import, at its first conversation: "About you", not a title
            out.append(Message(last, daily.PROFILE_ROLE, about, ABOUT_YOU))
            continue
        role = daily.MEMORY_ROLE if noted else message["author"]["role"]
        out.append(Message(last, role, text, title))
    return out


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    """The leaf made last, when no `current_node` marks the kept branch (a node lists its
    parent; older exports list `children` too, newer ones do not)."""
    parents = {v.get("parent") for v in mapping.values()}
    leaves = [k for k in mapping if k not in parents]

    def made(key: str) -> float:
        when = (mapping[key].get("message") or {}).get("create_time")
        return float(when) if isinstance(when, int | float) else float("-inf")

    return max(reversed(leaves), key=made) if leaves else None


# What ChatGPT's page never shows, whoever wrote it: reasoning, memory, tool traffic.
_UNSEEN = frozenset({
    "thoughts", "reasoning_recap", "model_editable_context", "user_editable_context",
    "tether_browsing_display", "tether_quote", "execution_output", "system_error",
    "sonic_webpage",
})  # fmt: skip
_VOICE = frozenset({
    "audio_asset_pointer", "real_time_user_audio_video_asset_pointer",
    "video_container_asset_pointer",
})  # fmt: skip


def _seen_by_person(message: dict[str, Any]) -> bool:
    role = (message.get("author") or {}).get("role")
    content = message.get("content") or {}
    return (
        role in ("user", "assistant")
        and not (message.get("metadata") or {}).get("is_visually_hidden_from_conversation")
        and message.get("recipient") in (None, "all")  # not a call to a tool
        and content.get("content_type") not in _UNSEEN
    )


ABOUT_YOU = "About you"  # the custom instructions' entry: "User profile:\n```…```" in them
_PROFILE = re.compile(r"User profile:\s*```(?P<text>.*?)```", re.DOTALL)
_PROFILE_FIELD = re.compile(r"^(?P<key>Preferred name|Role|Other Information):\s*", re.MULTILINE)
_PROFILE_SAID = {"Preferred name": "My name is ", "Role": "My role is ", "Other Information": ""}


def _about_you(message: dict[str, Any], placed: set[str]) -> str:
    """What the person wrote of themselves in ChatGPT's custom instructions, the first
    time the import meets it (every conversation carries it), its fields in the first
    person ("Preferred name: Elin" -> "My name is Elin."); never how to answer."""
    content = message.get("content") or {}
    if content.get("content_type") != "user_editable_context":
        return ""
    found = _PROFILE.search(str(content.get("user_profile") or ""))
    text = _PROFILE_FIELD.sub(lambda m: _PROFILE_SAID[m.group("key")], found[1] if found else "")
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    told = "\n".join(line if line[-1] in ".!?" else line + "." for line in lines)
    if not told or told in placed:
        return ""
    placed.add(told)
    return told


def _memory_note(message: dict[str, Any]) -> str:
    """What the assistant saved to its memory of the person (its call to `bio`: "User
    prefers Python for scripting."), shown on ChatGPT's page as "Memory updated"."""
    content = message.get("content") or {}
    if (
        message.get("recipient") != "bio"
        or (message.get("author") or {}).get("role") != "assistant"
        or content.get("content_type") != "text"
    ):
        return ""
    parts = [p for p in content.get("parts") or [] if isinstance(p, str)]
    return " ".join(" ".join(parts).split())


def _chatgpt_text(message: dict[str, Any]) -> str:
    content = message.get("content") or {}
    named = [
        a["name"]
        for a in (message.get("metadata") or {}).get("attachments") or []
        if isinstance(a, dict) and a.get("name")
    ]
    parts = []
    voice = False
    for part in content.get("parts") or []:
        if isinstance(part, str):
            parts.append(_visible(part))
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("content_type", "attachment")
        if kind == "audio_transcription" and isinstance(part.get("text"), str):
            parts.append(part["text"])  # what was said, in a voice turn
        elif kind in _VOICE:
            voice = True
        elif kind == "image_asset_pointer":
            if not named:  # an upload is named below; a made picture only said
                parts.append("[image]")
        else:
            parts.append(f"[{kind.replace('_', ' ')}]")
    if voice and not any(p.strip() for p in parts):
        parts.append("[voice message]")
    if not parts and isinstance(content.get("text"), str):
        parts.append(_visible(content["text"]))
    parts.extend(f"[attachment: {name}]" for name in named)
    return "\n\n".join(p for p in parts if p.strip())


# ChatGPT's markers in an answer's text, drawn by its page as chips, cards or nothing:
# \ue200 kind \ue202 value … \ue201, and the older 【3†source】.
_MARKER = re.compile(r"(\s*)\ue200([^\ue201]*)\ue201")
_OLD_CITATION = re.compile(r"\s*【[^】]{0,80}†[^】]{0,80}】")
_PRIVATE = re.compile(r"[\ue200-\ue2ff]")


def _visible(text: str) -> str:
    """`text` as ChatGPT's page shows it: an entity marker is its name, the rest gone."""

    def shown(match: re.Match[str]) -> str:
        kind, _, value = match.group(2).partition("\ue202")
        if kind == "entity":
            try:
                about = json.loads(value)
            except ValueError:
                about = None
            if isinstance(about, list) and len(about) > 1 and isinstance(about[1], str):
                return match.group(1) + about[1]
        return ""

    if "\ue200" not in text and "【" not in text:
        return text
    return _PRIVATE.sub("", _OLD_CITATION.sub("", _MARKER.sub(shown, text)))


def _claude(conversation: dict[str, Any], report: Report) -> list[Message]:
    title = _title(conversation, _conversation_id(conversation, 0))
    out = []
    for message in _claude_branch(conversation):
        sender = message.get("sender")
        role = "user" if sender == "human" else sender
        text = _claude_text(message)
        if role not in ("user", "assistant") or not text:
            report.skipped += 1
            continue
        report.messages += 1
        out.append(Message(_iso(message["created_at"]), role, text, title))
    return out


def _claude_branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of the kept branch: `chat_messages` holds every branch (an edited
    question, a retried answer), so the walk goes from `current_leaf_message_uuid` (else
    the newest leaf) up through each `parent_message_uuid`. An export that names no
    parents is one line of messages, read whole."""
    messages = conversation["chat_messages"]
    by_id = {m.get("uuid"): m for m in messages if isinstance(m, dict)}
    parents = {m.get("parent_message_uuid") for m in by_id.values()}
    if parents <= {None}:
        return list(messages)
    node = conversation.get("current_leaf_message_uuid")
    if node not in by_id:
        leaves = [m for key, m in by_id.items() if key not in parents]
        node = max(leaves, key=lambda m: str(m.get("created_at"))).get("uuid") if leaves else None
    branch: list[dict[str, Any]] = []
    seen: set[Any] = set()
    while node in by_id and node not in seen:  # a cycle is a damaged file: stop there
        seen.add(node)
        branch.append(by_id[node])
        node = by_id[node].get("parent_message_uuid")
    return branch[::-1]


# What Claude's export writes in a message's `text` for a block it cannot show (a tool's
# call or result); the `content` blocks say what each one is.
_UNSHOWN = re.compile(r"\s*```\s*This block is not supported on your current device yet\.?\s*```")


def _claude_text(message: dict[str, Any]) -> str:
    """What the person saw: the text blocks (not `thinking`, `tool_use`, `tool_result`),
    files named once, a large paste (an attachment without a name) said."""
    blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
    if blocks:
        parts = [
            b["text"]
            for b in blocks
            if b.get("type") in (None, "text") and isinstance(b.get("text"), str)
        ]
    else:
        parts = [_UNSHOWN.sub("", message.get("text") or "")]
    names: dict[str, None] = {}
    pasted = False
    for key in ("attachments", "files", "files_v2"):
        for item in message.get(key) or []:
            if isinstance(item, dict) and item.get("file_name"):
                names[item["file_name"]] = None
            elif isinstance(item, dict) and item.get("extracted_content"):
                pasted = True
    parts += [f"[attachment: {n}]" for n in names] + (["[pasted text]"] if pasted else [])
    return "\n\n".join(p.strip() for p in parts if p.strip())


def _jsonl(handle: _Counting, report: Report) -> Iterator[list[Message]]:
    """JSON lines, one message each; a run of lines of one conversation is yielded
    together, counted once however many runs it comes in (a file in time order
    interleaves them); a line that cannot be read is a problem named by its number."""
    batch: list[Message] = []
    current: str | None = None
    seen: set[str] = set()
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
            yield sorted(batch, key=lambda m: m.moment)
            batch = []
        report.conversations += message.conversation not in seen
        seen.add(message.conversation)
        batch.append(message)
        current = message.conversation
    if batch:
        yield sorted(batch, key=lambda m: m.moment)


def entry_text(message: Message, fmt: str) -> str:
    """The daily-note entry of `message`: `**role** (from ChatGPT: title): text`."""
    text, cut = message.text[:MAX_TEXT], len(message.text) - MAX_TEXT
    text += f"\n\n[… {cut:,} more characters]" if cut > 0 else ""
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
    if not path.exists():
        raise errors.NotFoundError(f"no file or folder {path}")
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
    if report.memories:
        yield (
            f"  {report.memories} of them {'is a note' if report.memories == 1 else 'are notes'}"
            f" {SOURCE_NAMES[report.format]} saved to its memory of you: the heartbeat keeps"
            " them as facts"
        )
    if report.opted_out:
        yield (
            f"  left out: {report.opted_out} conversation{'' if report.opted_out == 1 else 's'}"
            f" kept out of {SOURCE_NAMES[report.format]}'s memory"
        )
    for problem in report.problems:
        yield f"  not imported: {problem}"
