"""A key–value profile (`profile.json`, PicoClaw's shape): a flat map of strings; no I/O.

The file is one JSON object whose keys and values are all strings. `load_text` reads it
and refuses anything else precisely (not an object, a nested value, a number, a
repeated key: each named with its place), since a write-back would otherwise lose or
change it; an empty file is an empty profile. `dumps` writes the map back in its own
order (a key set again keeps its place, a new key goes last), two-space indented, UTF-8
unescaped, with a final newline. `as_markdown` renders it as the markdown list the
context shows. `set_key` and `delete_key` act by key only and return a new map.

The file I/O (locks, atomic writes, backups, audit) lives in `agent_memory`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from vault_app.core import errors, strict_json

MAX_KEY_CHARS = 200  # a key is a name, not a note: long ones are refused


def load_text(text: str, source: str = "profile.json") -> dict[str, str]:
    """The profile held by `text` (the file's content); CorruptFileError if not flat strings."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _unique(pairs, source))
    except json.JSONDecodeError as exc:
        raise errors.CorruptFileError(
            source, f"not JSON ({exc.msg})", f"line {exc.lineno}, column {exc.colno}"
        ) from None
    if not isinstance(data, dict):
        raise errors.CorruptFileError(
            source, f"a profile is a JSON object of strings, not {strict_json.json_type(data)}"
        )
    for key, value in data.items():
        for text in (key, value if isinstance(value, str) else ""):
            if any("\ud800" <= ch <= "\udfff" for ch in text):  # a "\\udc80" escape
                raise errors.CorruptFileError(
                    source, "holds a lone surrogate (an escape that is no Unicode text)", repr(key)
                )
        if not isinstance(value, str):
            raise errors.CorruptFileError(
                source,
                f"a profile's values are strings, not {strict_json.json_type(value)} "
                "(nested or typed values are not kept by profile set/delete)",
                repr(key),
            )
    return data


def dumps(profile: Mapping[str, str]) -> str:
    """The file text of `profile`, in its order, with a final newline."""
    for key, value in profile.items():
        check_key(key)
        _text(value, f"the value of {key!r}")
    return json.dumps(dict(profile), ensure_ascii=False, indent=2) + "\n"


def set_key(profile: Mapping[str, str], key: str, value: str) -> dict[str, str]:
    """`profile` with `key` set to `value` (in place if present, else last)."""
    changed = dict(profile)
    changed[check_key(key)] = _text(value, f"the value of {key!r}")
    return changed


def delete_key(profile: Mapping[str, str], key: str) -> dict[str, str]:
    """`profile` without `key`; NotFoundError naming the keys there if it is absent."""
    if key not in profile:
        known = ", ".join(repr(k) for k in profile) or "none"
        raise errors.NotFoundError(f"no profile key {key!r} (keys: {known})")
    return {k: v for k, v in profile.items() if k != key}


def check_key(key: str) -> str:
    """`key` if usable as a profile key (non-empty, one line, no edge spaces, short)."""
    if not isinstance(key, str) or not key or key != key.strip():
        raise errors.VaultError(
            f"profile key {key!r} must be non-empty, without leading/trailing spaces"
        )
    _text(key, "a profile key")
    if any(ch in key for ch in "\r\n\t") or len(key) > MAX_KEY_CHARS:
        raise errors.VaultError(
            f"profile key {key[:40]!r} must be one line of at most {MAX_KEY_CHARS} characters"
        )
    return key


def as_markdown(profile: Mapping[str, str]) -> str:
    """`- **key**: value` lines; a multi-line value continues indented under its item."""
    lines = []
    for key, value in profile.items():
        first, *rest = value.splitlines() or [""]
        lines.append(f"- **{key}**: {first}".rstrip())
        lines.extend(f"  {line}".rstrip() for line in rest)
    return "\n".join(lines)


def _text(value: str, what: str) -> str:
    if not isinstance(value, str):
        raise errors.VaultError(f"{what} must be a string, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise errors.VaultError(
            f"{what} is not text UTF-8 can hold (character {exc.start})"
        ) from None
    return value


def _unique(pairs: list[tuple[str, Any]], source: str) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        raise errors.CorruptFileError(
            source, "a key appears twice (a rewrite would drop one of the values)", repr(key)
        )
    return data
