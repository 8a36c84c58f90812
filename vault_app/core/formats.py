"""Reading and writing fact files in every shape other writers produce.

A fact file is decoded into a `FactFile`: the raw JSON entries (kept as parsed, so unknown
fields, their order and the file's own spelling survive), the container object when the
file is a wrapper, and a `Dialect` describing how this file spells things:

=====================  =========================  =============================
aspect                 canonical                  variants seen in other writers
=====================  =========================  =============================
file name              items.json                 facts.json
top level              JSON array                 {"entityId", "items": [...]},
                                                  {"entity", "facts": [...]}
fact text              "fact"                     "content"
creation time          "timestamp"                "created"
lineage                old."supersededBy" = new   new."supersedes" = old
replaced status        "superseded"               "historical"
source                 "2026-01-31" (string)      {"type", "timestamp", "channel"}
layout                 2-space indent             compact, other indents, \\u00e9 escapes
=====================  =========================  =============================

`Fact` objects are built from raw entries on demand (lazy validation: a vault scan only
reads the few fields decay needs), and every edit goes through the helpers here, which
write each field under the name this file already uses.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import orjson
import pydantic

from vault_app.core import errors, models, strict_json

SUPERSEDED_WORDS = ("superseded", "historical")
ACCESS_BY = "accessBy"  # metadata: accesses counted per device (a synced vault)
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Dialect:
    """How one fact file spells things, so that it is written back in its own shape."""

    shape: str = "array"  # "array", or the wrapper's list key: "items" / "facts"
    text_key: str = "fact"
    time_key: str = "timestamp"
    backward_lineage: bool = False  # new."supersedes" instead of old."supersededBy"
    superseded_word: str = "superseded"
    source_object: bool = False
    indent: int | str | None = 2
    spaced: bool = False  # compact with ", " and ": " (Python's json.dumps default)
    ascii_only: bool = False
    bom: bool = False
    trailing_newline: bool = True
    stdlib_json: bool = False  # parsed by the standard library (e.g. integers over 64 bits)

    def describe(self) -> list[str]:
        """The ways this file departs from the canonical shape, for `info` and `show`."""
        notes = []
        if self.shape != "array":
            notes.append(f'wrapper object with "{self.shape}"')
        if self.text_key != "fact":
            notes.append(f'text in "{self.text_key}"')
        if self.time_key != "timestamp":
            notes.append(f'time in "{self.time_key}"')
        if self.backward_lineage:
            notes.append('lineage via "supersedes"')
        if self.superseded_word != "superseded":
            notes.append(f'status "{self.superseded_word}"')
        if self.source_object:
            notes.append("source objects")
        return notes


CANONICAL = Dialect()


@dataclass
class FactFile:
    """A decoded fact file: raw entries plus what is needed to write it back."""

    path: Path
    raw: list[Any]
    dialect: Dialect = CANONICAL
    container: dict[str, Any] | None = None
    digest: str | None = None  # sha256 of the bytes read; None for a file not yet on disk
    _lineage: tuple[dict[str, str], dict[str, str]] | None = field(default=None, repr=False)

    # -- lineage ----------------------------------------------------------------------

    def lineage(self) -> tuple[dict[str, str], dict[str, str]]:
        """(successor, predecessor) maps over fact ids, from either kind of pointer."""
        if self._lineage is None:
            successor: dict[str, str] = {}
            predecessor: dict[str, str] = {}
            for entry in self.raw:
                if not isinstance(entry, dict):
                    continue
                fid = entry.get("id")
                if not isinstance(fid, str):
                    continue
                new = entry.get("supersededBy")
                if isinstance(new, str) and new:
                    successor[fid] = new
                    predecessor.setdefault(new, fid)
                old = entry.get("supersedes")
                if isinstance(old, str) and old:
                    predecessor[fid] = old
                    successor.setdefault(old, fid)
            self._lineage = (successor, predecessor)
        return self._lineage

    def invalidate(self) -> None:
        self._lineage = None

    def index_of(self, fact_id: str) -> int:
        """Position of the fact with this id; raises if absent or duplicated."""
        hits = [i for i, e in enumerate(self.raw) if isinstance(e, dict) and e.get("id") == fact_id]
        if not hits:
            raise errors.NotFoundError(f"no fact {fact_id!r} in {self.path}")
        if len(hits) > 1:
            raise errors.CorruptFileError(
                self.path, f"fact id {fact_id!r} appears {len(hits)} times", f"[{hits[1]}].id"
            )
        return hits[0]

    def ids(self) -> list[str]:
        return [e["id"] for e in self.raw if isinstance(e, dict) and isinstance(e.get("id"), str)]

    # -- validated views ----------------------------------------------------------------

    def fact_at(self, index: int) -> models.Fact:
        successor, predecessor = self.lineage()
        return to_fact(self.raw[index], index, self.path, self.dialect, successor, predecessor)

    def fact(self, fact_id: str) -> models.Fact | None:
        """The fact `fact_id` as `facts` gives it, validating its entries alone: the last
        valid entry with that id (as a dict of `facts` by id keeps it), or None."""
        successor, predecessor = self.lineage()
        for index in range(len(self.raw) - 1, -1, -1):
            entry = self.raw[index]
            if not isinstance(entry, dict) or entry.get("id") != fact_id:
                continue
            try:
                return to_fact(entry, index, self.path, self.dialect, successor, predecessor)
            except errors.CorruptFileError:
                continue
        return None

    def facts(self) -> tuple[list[models.Fact], list[errors.CorruptFileError]]:
        """Every entry validated: the good facts, and one precise error per bad entry."""
        good: list[models.Fact] = []
        bad: list[errors.CorruptFileError] = []
        successor, predecessor = self.lineage()
        clean = models.entries_are_clean(self.raw)  # else each entry is looked at
        for index, entry in enumerate(self.raw):
            try:
                good.append(
                    to_fact(entry, index, self.path, self.dialect, successor, predecessor, clean)
                )
            except errors.CorruptFileError as exc:
                bad.append(exc)
        return good, bad


# -- decoding -------------------------------------------------------------------------------


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode(path: Path, data: bytes, digest: str | None = None) -> FactFile:
    """Decode the bytes of a fact file, or raise `CorruptFileError` saying where and why."""
    bom = data.startswith(_BOM)
    body = data[len(_BOM) :] if bom else data
    if not body.strip():
        return FactFile(path, [], replace(CANONICAL, bom=bom), None, digest or digest_of(data))
    raw, shape, container, stdlib = _entries(path, body)
    dialect = _detect(body, raw, shape, stdlib, bom)
    return FactFile(path, raw, dialect, container, digest or digest_of(data))


def is_blank(data: bytes | None) -> bool:
    """Whether a fact file holds no JSON at all: 0 bytes, white space, a lone BOM.

    Such a file reads as an entity without facts; whether that is true or the facts
    were lost is for the caller to tell (`Vault` looks at the file's backups).
    """
    if not data:
        return True
    if data[0] in b"[{":  # the common case, without copying the file to strip it
        return False
    return not (data[len(_BOM) :] if data.startswith(_BOM) else data).strip()


def check_lossless(ff: FactFile, data: bytes) -> None:
    """Refuse to write back a fact file that would not keep every value it holds: raises
    `CorruptFileError` at the place (`strict_json.refuse_lossy`: a repeated key, a number
    too small for a double).

    Free for a file this app wrote: encoding it again gives its exact bytes, so nothing
    can be lost. Another writer's file is parsed again by the standard library.
    """
    if is_blank(data) or encode(ff) == data:
        return
    strict_json.refuse_lossy(ff.path, data[len(_BOM) :] if data.startswith(_BOM) else data)


def decode_entries(path: Path, data: bytes) -> tuple[list[Any], str]:
    """Only the raw entries and the creation-time key (`Dialect.time_key`) of a fact file.

    For bulk reads that write nothing back (a vault scan): the same parsing and the same
    `CorruptFileError` as `decode`, without detecting the rest of the dialect or hashing.
    """
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    if not body.strip():
        return [], CANONICAL.time_key
    raw = _entries(path, body)[0]
    for entry in raw:  # `_first_key`, stopping at the first fact object that has one
        if isinstance(entry, dict) and ("timestamp" in entry or "created" in entry):
            return raw, "timestamp" if "timestamp" in entry else "created"
    return raw, CANONICAL.time_key


class TierFields(msgspec.Struct):
    """The fields of one fact that its tier depends on, as any JSON values: all that a
    vault scan reads of a fact (`decay.RawTierCounter.count`). `timestamp` and `created`
    are UNSET when the entry lacks the key, as the file's time key is chosen by presence."""

    id: Any = None
    status: Any = None
    supersededBy: Any = None
    supersedes: Any = None
    lastAccessed: Any = None
    timestamp: Any = msgspec.UNSET
    created: Any = msgspec.UNSET
    accessCount: Any = 0


class _StampedTierFields(TierFields):
    """The same fields with the times parsed by the decoder, in C, as it reads them."""

    lastAccessed: dt.datetime | None = None
    timestamp: dt.datetime | msgspec.UnsetType | None = msgspec.UNSET
    created: dt.datetime | msgspec.UnsetType | None = msgspec.UNSET


_TIER_DECODER = msgspec.json.Decoder(list[_StampedTierFields])


class TierFile(NamedTuple):
    """What counting a fact file's tiers needs: its fact objects' tier fields, its
    creation-time key (`Dialect.time_key`), and how many entries it holds (objects or not)."""

    facts: Sequence[TierFields]
    time_key: str
    total: int


def decode_tier_fields(path: Path, data: bytes) -> TierFile:
    """The tier fields of every fact object of a fact file: what opening a vault needs of
    each of its files.

    A typed decoder reads these few fields of each entry, skips the rest (the texts) in C,
    parses the times into datetimes and keeps integers exact (so no big-integer check is
    needed): half the cost of parsing whole entries and reading their times in Python.
    A file it refuses — a wrapper object, an entry that is not an object, a time that is
    not RFC 3339, invalid JSON — goes through `decode_entries`, which raises the same
    precise `CorruptFileError` as a full decode or returns the entries to convert. The
    decoder does not check the UTF-8 of the strings it skips, so text that is not ASCII
    is checked first, as the full decode would.
    """
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    try:
        if not body.isascii():
            body.decode("utf-8")
        entries: Sequence[TierFields] = _TIER_DECODER.decode(body)
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        # (msgspec meets nesting deeper than it recurses with a RecursionError)
        return tier_file(*decode_entries(path, data))
    time_key = CANONICAL.time_key
    for entry in entries:  # `_first_key`, as `decode_entries` chooses it
        if entry.timestamp is not msgspec.UNSET or entry.created is not msgspec.UNSET:
            time_key = "timestamp" if entry.timestamp is not msgspec.UNSET else "created"
            break
    return TierFile(entries, time_key, len(entries))


def tier_file(raw: list[Any], time_key: str) -> TierFile:
    """The `TierFile` of decoded entries (entries that are not objects have no fields)."""
    facts = [msgspec.convert(entry, TierFields) for entry in raw if isinstance(entry, dict)]
    return TierFile(facts, time_key, len(raw))


def _entries(path: Path, body: bytes) -> tuple[list[Any], str, dict[str, Any] | None, bool]:
    """Parse a non-empty body: (entries, shape, wrapper object or None, parsed by stdlib)."""
    value, stdlib = strict_json.parse_json(path, body)
    container: dict[str, Any] | None = None
    if isinstance(value, list):
        shape, raw = "array", value
    elif isinstance(value, dict):
        key = next((k for k in ("items", "facts") if isinstance(value.get(k), list)), None)
        if key is None:
            raise errors.CorruptFileError(
                path,
                'expected a JSON array of facts, or an object holding an "items" or '
                f'"facts" array; found an object with keys {sorted(value)[:6]}',
                "top level",
            )
        shape, raw, container = key, value[key], value
    else:
        raise errors.CorruptFileError(
            path,
            f"expected a JSON array of facts, found {strict_json.json_type(value)}",
            "top level",
        )
    return raw, shape, container, stdlib


def _detect(body: bytes, raw: list[Any], shape: str, stdlib: bool, bom: bool) -> Dialect:
    dicts = [e for e in raw if isinstance(e, dict)]
    text_key = _first_key(dicts, ("fact", "content"), "fact")
    time_key = _first_key(dicts, ("timestamp", "created"), "timestamp")
    backward = any("supersedes" in e for e in dicts) and not any("supersededBy" in e for e in dicts)
    word = "historical" if any(e.get("status") == "historical" for e in dicts) else "superseded"
    source_object = next(
        (isinstance(e["source"], dict) for e in dicts if e.get("source") is not None), False
    )
    # "[]" says nothing of a layout: a new entity's file takes the canonical one.
    indent = _detect_indent(body) if raw or shape != "array" else CANONICAL.indent
    return Dialect(
        shape=shape,
        text_key=text_key,
        time_key=time_key,
        backward_lineage=backward,
        superseded_word=word,
        source_object=source_object,
        indent=indent,
        spaced=indent is None and _detect_spaced(body),
        ascii_only=body.isascii() and b"\\u" in body,
        bom=bom,
        trailing_newline=body.endswith(b"\n"),
        stdlib_json=stdlib,
    )


def _first_key(entries: list[dict[str, Any]], keys: tuple[str, str], default: str) -> str:
    for entry in entries:
        for key in keys:
            if key in entry:
                return key
    return default


def _detect_spaced(body: bytes) -> bool:
    """Whether a compact file puts a space after its separators (`{"id": "x", ...`)."""
    colon = body.find(b'":')
    return colon >= 0 and body[colon + 2 : colon + 3] == b" "


def _detect_indent(body: bytes) -> int | str | None:
    start = body.lstrip()[:1]
    head = body.lstrip()[1:4096]
    if start not in (b"[", b"{") or not head.startswith((b"\n", b"\r\n")):
        compact = b"\n" not in body.strip()
        return None if compact else 2
    for line in head.splitlines()[1:]:
        if line.strip():
            lead = line[: len(line) - len(line.lstrip())]
            if lead.startswith(b"\t"):
                return "\t"
            return len(lead) or 2
    return 2


# -- encoding -------------------------------------------------------------------------------


def encode(ff: FactFile) -> bytes:
    """Serialize a fact file in its own shape."""
    d = ff.dialect
    if ff.container is not None:
        value: Any = dict(ff.container)
        value[d.shape] = ff.raw
    else:
        value = ff.raw
    data = None
    if not d.stdlib_json and not d.ascii_only and not d.spaced and d.indent in (2, None):
        option = orjson.OPT_INDENT_2 if d.indent == 2 else 0
        # orjson stops at 255 levels and at a lone surrogate (a fact left out for it
        # still goes back as it came): the standard library writes those, in this layout
        with contextlib.suppress(TypeError):
            data = orjson.dumps(value, option=option)
    if data is None:
        separators = ((", ", ": ") if d.spaced else (",", ":")) if d.indent is None else None
        try:
            text = json.dumps(
                value, indent=d.indent, separators=separators, ensure_ascii=d.ascii_only
            )
        except (RecursionError, ValueError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise errors.CorruptFileError(ff.path, f"cannot be written back: {reason}") from None
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate ("\ud800") the stdlib read: keep it escaped
            text = json.dumps(value, indent=d.indent, separators=separators, ensure_ascii=True)
            data = text.encode("ascii")
    if d.trailing_newline:
        data += b"\n"
    return (_BOM + data) if d.bom else data


# -- raw entry <-> Fact ------------------------------------------------------------------------


def canonical_dict(
    entry: dict[str, Any], successor: dict[str, str], predecessor: dict[str, str]
) -> dict[str, Any]:
    """The entry with variant spellings mapped to canonical names (a new dict)."""
    d = dict(entry)
    if "fact" not in d and "content" in d:
        d["fact"] = d.pop("content")
    if "timestamp" not in d and "created" in d:
        d["timestamp"] = d.pop("created")
    if d.get("status") == "historical":
        d["status"] = "superseded"
    for key in ("relatedEntities", "metadata"):
        if key in d and d[key] is None:
            del d[key]
    fid = d.get("id")
    if isinstance(fid, str):
        if not d.get("supersededBy") and fid in successor:
            d["supersededBy"] = successor[fid]
        if not d.get("supersedes") and fid in predecessor:
            d["supersedes"] = predecessor[fid]
    return d


def to_fact(
    entry: Any,
    index: int,
    path: Path,
    dialect: Dialect,
    successor: dict[str, str],
    predecessor: dict[str, str],
    clean: bool = False,
) -> models.Fact:
    """Validate one raw entry; a bad one raises `CorruptFileError` at `[index].field`.

    First what no field type sees (`models.json_value_problem`: a lone surrogate, deep
    nesting), unless the caller knows the entry `clean` (`models.entries_are_clean`).
    """
    if not isinstance(entry, dict):
        raise errors.CorruptFileError(
            path, f"expected a fact object, found {strict_json.json_type(entry)}", f"[{index}]"
        )
    problem = None if clean else models.json_value_problem(entry)
    if problem is not None:
        raise errors.CorruptFileError(path, problem[1], f"[{index}]{problem[0]}")
    try:
        return models.Fact.model_validate(canonical_dict(entry, successor, predecessor))
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        loc = ".".join(str(part) for part in first["loc"])
        name = loc.split(".", 1)[0]
        spelled = {"fact": dialect.text_key, "timestamp": dialect.time_key}.get(name, name)
        loc = spelled + loc[len(name) :]
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise errors.CorruptFileError(
            path, f"{message}{more}", f"[{index}].{loc}" if loc else f"[{index}]"
        ) from None


def is_superseded_raw(entry: dict[str, Any], successor: dict[str, str]) -> bool:
    status = entry.get("status")
    return (
        status in SUPERSEDED_WORDS
        or bool(entry.get("supersededBy"))
        or (entry.get("id") in successor)
    )


def iso(moment: dt.datetime) -> str:
    return moment.isoformat(timespec="seconds")


def new_entry(
    dialect: Dialect,
    *,
    fact_id: str,
    text: str,
    category: models.FactCategory,
    now: dt.datetime,
    source: str | None,
    related: Iterable[str],
    agent_id: str | None,
    confidence: float,
    metadata: dict[str, Any] | None,
    supersedes: str | None = None,
) -> dict[str, Any]:
    """A new raw fact spelled the way this file spells facts."""
    stamp = iso(now)
    source_value: Any = source if source is not None else now.date().isoformat()
    if dialect.source_object:
        source_value = {"type": "vault-app", "timestamp": stamp, "channel": source_value}
    entry: dict[str, Any] = {
        "id": fact_id,
        dialect.text_key: text,
        "category": category.value,
        dialect.time_key: stamp,
        "source": source_value,
        "status": "active",
    }
    if dialect.backward_lineage:
        if supersedes:
            entry["supersedes"] = supersedes
    else:
        entry["supersededBy"] = None
    entry.update(
        {
            "relatedEntities": list(related),
            "lastAccessed": stamp,
            "accessCount": 0,
            "confidence": confidence,
            "agentId": agent_id,
            "metadata": dict(metadata or {}),
        }
    )
    return entry


def mark_superseded(ff: FactFile, entry: dict[str, Any], new_id: str | None) -> None:
    """Flag `entry` as replaced by `new_id`, in this file's vocabulary."""
    word = "historical" if entry.get("status") == "historical" else ff.dialect.superseded_word
    entry["status"] = word
    if not ff.dialect.backward_lineage or "supersededBy" in entry:
        entry["supersededBy"] = new_id
    ff.invalidate()


def mark_accessed(entry: dict[str, Any], now: dt.datetime, device: str | None = None) -> None:
    """Count one access (up to `models.MAX_ACCESS_COUNT`, where the count stays); with
    `device` (a vault synced between devices), also under that device's id in
    `metadata.accessBy`, which a merge sums (`sync_merge`)."""
    count = entry.get("accessCount", 0)
    count = count if isinstance(count, int) and count >= 0 else 0
    entry["accessCount"] = min(count + 1, models.MAX_ACCESS_COUNT)
    entry["lastAccessed"] = iso(now)
    metadata = entry.setdefault("metadata", {}) if device else None
    if isinstance(metadata, dict):
        by = metadata.get(ACCESS_BY)
        by = dict(by) if isinstance(by, dict) else {}
        mine = by.get(device)
        by[device] = (mine if isinstance(mine, int) and mine >= 0 else 0) + 1
        metadata[ACCESS_BY] = by
