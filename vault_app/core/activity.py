"""What happened lately: the newest lines of the audit log, `.vault/audit.jsonl`, read.

The log is append-only and may grow large (one line per write), so `recent` reads it
backwards from the end in blocks, stopping once it has `limit` matching lines or has read
`MAX_TAIL_BYTES`: the cost is bounded whatever the log's size. A line torn by a writer
still appending (the last one) or damaged by hand is skipped. Lines are dicts as
`storage.Storage.audit` writes them: `time`, `actor`, `action`, `target`, then the
write's own fields (`entity`, `factId`, `agent`, ...). Newest first.

Reading a line: `actor_kind` (an agent, the heartbeat, or a person: the app's faces and
any other name), `entity_of` (the entity whose facts or summary a line wrote, from its
target path), `family` (`fact` of `fact.add`), `moment` (its time, aware).

Filtering (`Query`, `query`): who (a kind of actor, one agent, one other actor), what
(an action family; the heartbeat's own bookkeeping only when asked for), entity words,
and a date range [start, end). Every face filters the same way: the window's Activity
page, the CLI's `activity`, the MCP's `recent_activity` (the last two through `recent`).
The read goes back until `limit` lines are kept or the tail window is exhausted, so a
rare filter (the heartbeat's few lines) still finds what the window holds.

"Changed since you last looked" (`agent_changes`): the entities and facts that agents
(and the heartbeat) wrote after a time, per entity, for the window's marks; and
`last_write`, the newest line that wrote a file, for the conflict bar ("finance changed
it at 14:05").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

import orjson

from vault_app.core import actors, decay, errors, layout, safe_fs, storage

MAX_TAIL_BYTES = 16 << 20  # read at most this much of the log's end
_BLOCK = 64 << 10
# A read with a start ends once OLD_RUN lines in a row are older than the start by more
# than SKEW: writers of several processes append a little out of order, and a writer with
# its own clock (a backfill, a test) may append a line far older than its neighbours
SKEW = dt.timedelta(minutes=10)
OLD_RUN = 1000


def recent(
    root: Path,
    *,
    limit: int = 50,
    agent: str | None = None,
    since: dt.datetime | None = None,
    action: str | None = None,
    log: Path | None = None,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> list[dict[str, Any]]:
    """The newest audit lines, newest first, at most `limit`.

    `agent` keeps the lines written by that agent (actor `agent:<id>`); `since` the lines
    at or after that time (a naive time is local); `action` an action (`fact.add`) or a
    family of them (`fact`: `fact.add`, `fact.supersede`, ...). `log` reads another
    audit log than the vault's, below `root` (a neighbour's folder's, in vault-app's
    state folder for it: `root` is then that state folder). `keep` keeps only the lines
    it answers True for (what an agent may see: `visible_to`).
    """
    if limit <= 0:
        return []
    moment = None if since is None else decay.as_aware(since)
    found: list[dict[str, Any]] = []
    path = log if log is not None else Path(root) / layout.STATE_DIR / storage.AUDIT_NAME
    for line in lines_backwards(path, Path(root)):
        entry = _parse(line)
        if entry is None:
            continue
        when = _time(entry)
        if moment is not None and (when is None or when < moment):
            continue  # not `break`: writers of several processes may append out of order
        # (a neighbour's agent may have an id a vault would not take: CHAT/PERSONA)
        if agent is not None and agent not in (_agent_of(entry), _named_agent(entry)):
            continue
        name = entry.get("action")
        if action is not None and not (name == action or str(name).startswith(action + ".")):
            continue
        if keep is not None and not keep(entry):
            continue
        found.append(entry)
        if len(found) >= limit:
            break
    return found


def visible_to(agent: str, reads: Callable[[str | None], bool]) -> Callable[[dict[str, Any]], bool]:
    """Which audit lines agent `agent` may see, `reads` saying which scopes it reads
    (None: global): a line about a file of a scope it reads; a line about the vault's own
    state (a review proposal, a token) only when it names the agent itself."""

    def keep(entry: dict[str, Any]) -> bool:
        parts = str(entry.get("target", "")).split("/")
        if parts[0] == "global":
            return reads(None)
        if parts[0] == "agents" and len(parts) > 1:
            return reads(parts[1])
        return agent in (_agent_of(entry), _named_agent(entry), entry.get("agent"))

    return keep


def lines_backwards(path: Path, root: Path) -> Iterator[bytes]:
    """An append-only log's lines (the audit log, the heartbeat's run log) from the last,
    within the last MAX_TAIL_BYTES (the first, maybe partial, line of that window
    dropped); none when the file is absent. Never through a symlink under `root`."""
    safe_fs.check_tree(root, path, safe_fs.STATE_READ)
    try:
        with safe_fs.reading(path) as handle:
            yield from _tail(handle)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None


def _tail(handle: BinaryIO) -> Iterator[bytes]:
    end = os.fstat(handle.fileno()).st_size
    floor = max(0, end - MAX_TAIL_BYTES)
    position, rest = end, b""
    while position > floor:
        size = min(_BLOCK, position - floor)
        position -= size
        handle.seek(position)
        pieces = (handle.read(size) + rest).split(b"\n")
        rest = pieces[0]  # maybe the end of a line that starts in the block before
        yield from reversed([p for p in pieces[1:] if p.strip()])
    if floor == 0 and rest.strip():
        yield rest


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        # a name that is not UTF-8 was written escaped (`Storage.audit`): lone surrogates,
        # which orjson refuses and the standard library reads
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            return None
    return entry if isinstance(entry, dict) else None


def _time(entry: Mapping[str, Any]) -> dt.datetime | None:
    try:
        return decay.as_aware(dt.datetime.fromisoformat(str(entry.get("time"))))
    except (ValueError, OverflowError):
        return None


def _named_agent(entry: Mapping[str, Any]) -> str | None:
    """The id after `agent:` in the line's actor, as written."""
    actor = str(entry.get("actor", ""))
    return actor[len("agent:") :] if actor.startswith("agent:") else None


def _agent_of(entry: Mapping[str, Any]) -> str | None:
    try:
        return actors.parse(str(entry.get("actor", ""))).agent
    except errors.InvalidIdError:
        return None


# -- reading a line -----------------------------------------------------------------------

HEARTBEAT_ACTOR = "heartbeat"
KINDS = ("agent", "heartbeat", "person")
# `.vault/heartbeat/` state (cursor, schedule, lease, mention counts) is rewritten on
# every run: kept only when asked for, or it would crowd out the writes that matter
BOOKKEEPING = "heartbeat"
_ENTITY_FILES = (*layout.FACT_FILE_NAMES, layout.SUMMARY_NAME)


def actor_kind(actor: str, agent_ids: Iterable[str] = ()) -> str:
    """ "agent", "heartbeat" or "person": who an audit line's actor is."""
    return _kind(actor, tuple(agent_ids))


@functools.lru_cache(maxsize=1024)
def _kind(actor: str, agent_ids: tuple[str, ...]) -> str:
    # a log names a handful of actors many times over: each is read once (cached)
    if _heartbeat(actor):
        return "heartbeat"
    if _listed(actor, agent_ids) is not None:
        return "agent"
    try:
        return "agent" if actors.parse(actor, agent_ids).is_agent else "person"
    except errors.InvalidIdError:
        return "person"  # a damaged actor is nobody's agent


def actor_title(actor: str, agent_ids: Iterable[str] = ()) -> str:
    """The actor as a person reads it: an agent by its id ("finance"), others as named."""
    return _title(actor, tuple(agent_ids))


def _heartbeat(actor: str) -> bool:
    """The heartbeat: `heartbeat`, or `heartbeat:AGENT` (its writes for an agent's notes,
    made with that agent's rights)."""
    name = actor.strip().casefold()
    return name == HEARTBEAT_ACTOR or name.startswith(HEARTBEAT_ACTOR + ":")


@functools.lru_cache(maxsize=1024)
def _title(actor: str, agent_ids: tuple[str, ...]) -> str:
    if _heartbeat(actor):  # also its writes for an agent's notes (the line's actor says whose)
        return HEARTBEAT_ACTOR
    listed = _listed(actor, agent_ids)
    if listed is not None:
        return listed
    try:
        parsed = actors.parse(actor, agent_ids)
    except errors.InvalidIdError:
        return actor
    return parsed.agent or parsed.name


def _listed(actor: str, agent_ids: tuple[str, ...]) -> str | None:
    """The agent `agent:ID` names when ID is one of `agent_ids` as written — also an id a
    vault would not take, such as a MicroClaw persona's `CHAT/PERSONA`."""
    name = actor.strip()
    if name.startswith("agent:") and name[len("agent:") :].strip() in agent_ids:
        return name[len("agent:") :].strip()
    return None


def family(action: str) -> str:
    """`fact` of `fact.add`: the part before the first dot."""
    return action.split(".", 1)[0]


def entity_of(line: Mapping[str, Any]) -> str | None:
    """The address of the entity whose facts or summary the line wrote, or None.

    Read from the target path: `global/life/PATH/items.json` is PATH,
    `agents/ID/workspace/PATH/summary.md` is `agent:ID:PATH`.
    """
    return _entity_at(str(line.get("target", "")))


@functools.lru_cache(maxsize=8192)
def _entity_at(target: str) -> str | None:
    # targets repeat (one file is written again and again): each is read once (cached)
    parts = PurePosixPath(target).parts
    if len(parts) < 4 or parts[-1] not in _ENTITY_FILES:
        return None
    if parts[:2] == ("global", "life"):
        address = "/".join(parts[2:-1])
    elif parts[0] == "agents" and len(parts) >= 5 and parts[2] == "workspace":
        address = f"agent:{parts[1]}:" + "/".join(parts[3:-1])
    else:
        return None
    return layout.EntityRef.canonical(address)


def moment(line: Mapping[str, Any]) -> dt.datetime | None:
    """When the line was written (aware; a naive time is local), or None if unreadable."""
    return _time(line)


# -- filtering ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Query:
    """Which audit lines to keep.

    `actor`: "" (everyone), a kind ("kind:agent", "kind:heartbeat", "kind:person"), one
    agent ("agent:finance": also its lines written under its bare id) or one other actor
    as written ("gui", "jane"). `family`: an action family ("fact"), or "" for every
    family but the heartbeat's bookkeeping. `entity`: words that the target, the entity's
    address or the line's `entity` must all contain (any case). `start` and `end`: the
    range [start, end) of the lines' times (a naive time is local); None leaves that side
    open. `agent_ids`: the vault's agents, so that a bare id is read as its agent.
    """

    actor: str = ""
    family: str = ""
    entity: str = ""
    start: dt.datetime | None = None
    end: dt.datetime | None = None
    agent_ids: tuple[str, ...] = ()

    @property
    def agent(self) -> str | None:
        """The one agent asked for, if any."""
        return self.actor.removeprefix("agent:") if self.actor.startswith("agent:") else None

    def covers(self, when: dt.datetime | None) -> bool:
        """Whether a time falls in the range (an unreadable time only in an open one)."""
        if self.start is None and self.end is None:
            return True
        if when is None:
            return False
        when = decay.as_aware(when)
        if self.start is not None and when < decay.as_aware(self.start):
            return False
        return self.end is None or when < decay.as_aware(self.end)

    def needles(self) -> list[bytes]:
        """Entity words that a raw line must hold as they are (lower-cased) to be kept:
        plain ASCII words with no colon (an address's `agent:ID:` is not in the target
        path) and nothing JSON escapes. A cheap test before a line is parsed."""
        return [
            word.encode()
            for word in self.entity.casefold().split()
            if word.isascii() and not any(c in word for c in ':"\\') and word.isprintable()
        ]

    def keeps(self, line: Mapping[str, Any]) -> bool:
        if not self.covers(_time(line)):
            return False
        return self._keeps_actor(str(line.get("actor", ""))) and self._keeps_what(line)

    def _keeps_actor(self, actor: str) -> bool:
        if not self.actor:
            return True
        if self.actor.startswith("kind:"):
            return actor_kind(actor, self.agent_ids) == self.actor.removeprefix("kind:")
        if self.agent is not None:
            return (
                actor_kind(actor, self.agent_ids) == "agent"
                and actor_title(actor, self.agent_ids).casefold() == self.agent.casefold()
            )
        return actor.strip() == self.actor.strip()

    def _keeps_what(self, line: Mapping[str, Any]) -> bool:
        what = family(str(line.get("action", "")))
        if (what != self.family) if self.family else (what == BOOKKEEPING):
            return False
        words = self.entity.casefold().split()
        if not words:
            return True
        haystack = f"{line.get('target', '')} {line.get('entity', '')}".casefold()
        if all(word in haystack for word in words):
            return True
        return all(word in f"{haystack} {entity_of(line) or ''}".casefold() for word in words)


@dataclasses.dataclass(frozen=True)
class Found:
    """The lines a `query` kept (newest first), whether more were left behind `limit`,
    and every actor met on the way (for a face's list of whom to filter by)."""

    lines: list[dict[str, Any]]
    more: bool
    actors: frozenset[str]


def query(root: Path, chosen: Query, *, limit: int = 500, log: Path | None = None) -> Found:
    """The newest audit lines `chosen` keeps, newest first, at most `limit`.

    Reads the log backwards (its last MAX_TAIL_BYTES at most) until `limit` + 1 lines are
    kept, or the lines are well past the range's start (`OLD_RUN` of them in a row older
    than it by more than `SKEW`). `log` reads another audit log than the vault's, below
    `root`, as `recent` does (a neighbour's folder's, in vault-app's state folder for it).
    """
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    floor = None if chosen.start is None else decay.as_aware(chosen.start) - SKEW
    needles = chosen.needles()
    old = 0
    path = log if log is not None else Path(root) / layout.STATE_DIR / storage.AUDIT_NAME
    for line in lines_backwards(path, Path(root)):
        if needles:
            lowered = line.lower()
            if not all(needle in lowered for needle in needles):
                continue
        entry = _parse(line)
        if entry is None:
            continue
        when = _time(entry)
        if floor is not None and when is not None and when < floor:
            old += 1
            if old >= OLD_RUN:
                break
            continue
        old = 0
        seen.add(str(entry.get("actor", "")))
        if chosen.keeps(entry):
            kept.append(entry)
            if len(kept) > limit:
                break
    return Found(kept[: max(limit, 0)], len(kept) > limit, frozenset(seen))


# -- what agents changed ------------------------------------------------------------------

# writes that change what an entity says (reads, `fact.access`, are not changes)
CHANGES = frozenset(
    {
        "fact.add",
        "fact.supersede",
        "fact.archive",
        "fact.retract",
        "fact.reinstate",
        "summary.edit",
        "entity.create",
        "entity.restore",
    }
)


@dataclasses.dataclass
class EntityChanges:
    """What agents changed in one entity: when last, by whom (newest first), and the
    facts written or withdrawn, each with its newest time and who wrote it then."""

    entity: str
    latest: dt.datetime
    actors: list[str]
    facts: dict[str, dt.datetime]
    by: dict[str, str] = dataclasses.field(default_factory=dict)  # fact id -> actor title


def agent_changes(
    root: Path,
    since: dt.datetime,
    *,
    looked: Mapping[str, dt.datetime] | None = None,
    agent_ids: Iterable[str] = (),
) -> dict[str, EntityChanges]:
    """The entities (by address) that agents or the heartbeat changed after `since`, or
    after the entity's own time in `looked` when that is later (when the person last
    looked at it). People's writes (the app, the CLI, anyone not an agent) are no news.

    A fact counts by the id the line names: the new version of a supersede, the fact
    added, archived, retracted or reinstated.
    """
    ids = tuple(agent_ids)
    floor = decay.as_aware(since)
    seen = {k: decay.as_aware(v) for k, v in (looked or {}).items()}
    found: dict[str, EntityChanges] = {}
    old = 0
    for line in lines_backwards(Path(root) / layout.STATE_DIR / storage.AUDIT_NAME, Path(root)):
        entry = _parse(line)
        when = None if entry is None else _time(entry)
        if entry is None or when is None:
            continue
        if when < floor - SKEW:
            old += 1
            if old >= OLD_RUN:  # well past `since` (see `query`)
                break
            continue
        old = 0
        if entry.get("action") not in CHANGES or when <= floor:
            continue
        address = entity_of(entry)
        actor = str(entry.get("actor", ""))
        if address is None or actor_kind(actor, ids) == "person":
            continue
        if address in seen and when <= seen[address]:
            continue
        change = found.get(address)
        if change is None:
            change = found[address] = EntityChanges(address, when, [], {})
        change.latest = max(change.latest, when)
        name = actor_title(actor, ids)
        if name not in change.actors:
            change.actors.append(name)
        fact_id = entry.get("factId")
        if isinstance(fact_id, str) and fact_id and when >= change.facts.get(fact_id, when):
            change.facts[fact_id] = when
            change.by[fact_id] = name
    return found


def last_write(root: Path, path: Path) -> dict[str, Any] | None:
    """The newest audit line that wrote `path` (a file in the vault), or None.

    A face compares its `after` hash with the file's: equal, that line's actor made the
    version on disk; otherwise the file was changed outside vault-app.
    """
    root = Path(root)
    relative = _inside(root, Path(path))
    if relative is None:
        return None
    for line in lines_backwards(root / layout.STATE_DIR / storage.AUDIT_NAME, root):
        if relative.encode() not in line and b"\\" not in line:
            continue  # cheap: the target is written as is, unless escaped
        entry = _parse(line)
        if entry is not None and entry.get("target") == relative:
            return entry
    return None


def _inside(root: Path, path: Path) -> str | None:
    """`path` relative to `root` as the audit log writes targets, or None if outside."""
    for base, full in ((root, path), (root.resolve(), path.resolve())):
        try:
            return full.relative_to(base).as_posix()
        except ValueError:
            continue
    return None
