"""Strict JSON for fact files: parse what can be written back unchanged, say where not.

`parse_json` reads with orjson, or with the standard library when a number may be beyond
orjson's 64-bit integers, and refuses what is not JSON even where Python's json module
takes it (`NaN`, `Infinity`, numbers beyond a double); `refuse_lossy` finds what a
write-back would lose (a repeated key, a number too small for a double). Every error is a
`CorruptFileError` with its place: line and column, or the entry and field. The fact-file
shape on top of this JSON (arrays, wrappers, dialects) is `formats`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from vault_app.core import errors


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


# orjson reads an integer beyond 64 bits as a float, silently rounding it: a file where a
# run of 19+ digits stands where a JSON number can (after "[", ":" or ",", spaces and a
# minus sign aside) is parsed by the standard library instead. Digit runs inside strings
# (uuid-hex ids, phone numbers) do not count, so ordinary files keep the fast parser.
_DIGITS_ONLY = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_DIGIT_RUN = b"0" * 19


def _may_hold_big_integers(data: bytes) -> bool:
    digits = data.translate(_DIGITS_ONLY)
    start = digits.find(_LONG_DIGIT_RUN)
    while start >= 0:
        before = start - 1
        while before >= 0 and data[before] in b" \t\r\n-":
            before -= 1
        if before < 0 or data[before] in b"[:,":
            return True
        end = digits.find(b" ", start)
        if end < 0:
            return False
        start = digits.find(_LONG_DIGIT_RUN, end)
    return False


def parse_json(path: Path, data: bytes) -> tuple[Any, bool]:
    """Parse JSON bytes; returns (value, parsed_by_stdlib). Errors say line and column.

    What is not JSON is refused even where Python's json module takes it: `NaN`,
    `Infinity`, and numbers beyond a double (`1e400`), which would come back as
    `Infinity` (not JSON) on the next write; so is an integer too long to convert.
    """
    orjson_error: Exception | None = None
    if not _may_hold_big_integers(data):
        try:
            return orjson.loads(data), False
        except orjson.JSONDecodeError as exc:
            orjson_error = exc
    text = _utf8(path, data)
    try:
        # The standard library reads exactly what orjson cannot (integers beyond 64
        # bits); whatever it also refuses is reported with its line and column.
        return _stdlib_loads(path, text), True
    except json.JSONDecodeError as exc:
        raise errors.CorruptFileError(
            path, f"invalid JSON: {exc.msg}", f"line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise errors.CorruptFileError(
            path, "JSON nested too deeply to read", _deep_place(text)
        ) from orjson_error


def _utf8(path: Path, data: bytes) -> str:
    return errors.decode_utf8(path, data, "utf-8")


class _Refused(Exception):
    """Raised by a json hook on a token the app does not read: the token and why."""

    def __init__(self, token: str, reason: str) -> None:
        super().__init__(reason)
        self.token = token
        self.reason = reason


def _refuse_constant(token: str) -> Any:
    raise _Refused(token, f"{token} is not a JSON number")


def _finite_float(token: str) -> float:
    value = float(token)
    if value in (math.inf, -math.inf):
        raise _Refused(
            token,
            f"number {_clip(token)} is beyond the range of a double "
            "(it would be written back as Infinity, which is not JSON)",
        )
    return value


def _exact_int(token: str) -> int:
    try:
        return int(token)
    except ValueError:  # over Python's limit on digits converted (4,300 by default)
        raise _Refused(token, f"integer of {len(token)} digits is too long to read") from None


def _stdlib_loads(
    path: Path,
    text: str,
    parse_float: Callable[[str], float] = _finite_float,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """`json.loads` refusing NaN, Infinity and numbers beyond a double, with their place."""
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=parse_float,
            parse_int=_exact_int,
            object_pairs_hook=object_pairs_hook,
        )
    except _Refused as exc:
        raise errors.CorruptFileError(path, exc.reason, _token_place(text, exc.token)) from None


# JSON tokens that matter for finding a number or constant: strings are skipped whole.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?(?:Infinity|NaN)|-?[0-9][0-9.eE+-]*')


def _token_place(text: str, token: str) -> str | None:
    """`line L, column C` of the first `token` outside a string."""
    for match in _TOKEN.finditer(text):
        if match.group() == token:
            return _line_column(text, match.start())
    return None


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f"line {line}, column {column}"


_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]')


def _deep_place(text: str, limit: int = 900) -> str | None:
    """Where nesting first goes past `limit` levels (about where a parser gives up):
    the entry of a top-level array holding it, and the line and column."""
    depth = 0
    entry = 0
    array = text.lstrip().startswith("[")
    for match in _NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                where = _line_column(text, match.start())
                return f"[{entry}] ({where})" if array else where
        elif token in "]}":
            depth -= 1
        elif token == "," and depth == 1:
            entry += 1
    return None


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else f"{text[: width - 1]}…"


def refuse_lossy(path: Path, body: bytes) -> None:
    """Raise `CorruptFileError` where writing this JSON back would lose a value it holds.

    That is a key given twice in one object (every JSON reader keeps the last value, so
    the first would be dropped by the next write) or a non-zero number too small for a
    double (`1e-400` would come back as 0.0). Numbers a double holds keep their value, not
    always their spelling (`1.0e0` comes back as `1.0`, `-0` as `0`), as with any JSON
    writer. The text is parsed again by the standard library, with hooks that see every
    key and number (a few milliseconds for 1,000 facts). JSON that does not parse is not
    this function's business (`parse_json` reports it): it returns.
    """
    text = _utf8(path, body)
    repeated: list[tuple[dict[str, Any], str, list[Any]]] = []
    tiny: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items) and not repeated:
            key = _first_repeated(k for k, _ in items)
            repeated.append((obj, key, [v for k, v in items if k == key]))
        return obj

    def parse_float(token: str) -> float:
        value = _finite_float(token)
        if value == 0.0 and not tiny and any(c in "123456789" for c in re.split("[eE]", token)[0]):
            tiny.append(token)
        return value

    try:
        value = _stdlib_loads(path, text, parse_float, pairs)
    except (json.JSONDecodeError, RecursionError):
        return  # not what `parse_json` read (it would have raised): nothing more to say here
    if repeated:
        obj, key, values = repeated[0]
        shown = ", then ".join(_clip(json.dumps(v, ensure_ascii=False)) for v in values)
        lost = "the first value" if len(values) == 2 else f"{len(values) - 1} of the values"
        raise errors.CorruptFileError(
            path,
            f'key "{key}" is given {len(values)} times in one object ({shown}); JSON '
            f"readers keep only the last, so writing the file back would lose {lost}: "
            "fix it by hand",
            f"{_place_of(value, obj)}.{key}".lstrip("."),
        )
    if tiny:
        raise errors.CorruptFileError(
            path,
            f"number {_clip(tiny[0])} is too small for a double: it reads as 0 and "
            "writing the file back would change it to 0.0",
            _token_place(text, tiny[0]),
        )


def _first_repeated(keys: Iterable[str]) -> str:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    raise ValueError("no key is repeated")


def _place_of(root: Any, target: Any) -> str:
    """The place of the object `target` (by identity) inside `root`: `[3].metadata`."""
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, place = stack.pop()
        if node is target:
            return place
        if isinstance(node, dict):
            stack.extend((v, f"{place}.{k}") for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, f"{place}[{i}]") for i, v in reversed(list(enumerate(node))))
    return ""
