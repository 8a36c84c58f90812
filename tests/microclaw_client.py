"""A faithful Python replica of how MicroClaw reads a memory server's answers.

Mirrors microclaw/microclaw `src/memory_backend.rs` (parse_json_loose,
parse_memory_list_strict, parse_single_memory_strict, extract_id, extract_bool_flag,
McpMemoryProvider::get_memory_by_id) and `src/mcp.rs` `call_tool_inner` (the text blocks
of a result joined with newlines; an `isError` result is a failure). serde_json's
`as_i64` / `as_f64` / `as_str` / `as_bool` are replicated exactly: an int64 `id` must be a
JSON integer in range (not 1.0, not "1", not a bool), a confidence any JSON number.
A failure is raised as `MicroClawParseError` with MicroClaw's own message, so the tests
assert the same reasons MicroClaw would log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult, TextContent

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


class MicroClawParseError(ValueError):
    """What MicroClaw would report as `[invalid_payload]` (or a tool error)."""


@dataclass(frozen=True)
class Memory:
    id: int
    chat_id: int | None
    content: str
    category: str
    created_at: str | None  # None: MicroClaw would use "now"
    updated_at: str | None
    embedding_model: str | None
    confidence: float
    source: str
    last_seen_at: str | None
    is_archived: bool
    archived_at: str | None


def as_i64(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if I64_MIN <= value <= I64_MAX else None


def as_f64(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def result_text(result: CallToolResult) -> str:
    """`call_tool_inner`: text blocks joined by newlines; an error result raises."""
    text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
    if not text:
        text = json.dumps([b.model_dump(mode="json") for b in result.content], indent=2)
    if result.is_error:
        raise MicroClawParseError(f"tool error: {text}")
    return text


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def parse_json_loose(text: str) -> Any:
    ok, value = _loads(text)
    if ok:
        return value
    for opening, closing in (("[", "]"), ("{", "}")):
        start, end = text.find(opening), text.rfind(closing)
        if start != -1 and end != -1 and start < end:
            ok, value = _loads(text[start : end + 1])
            if ok:
                return value
    raise MicroClawParseError("MCP memory response is not valid JSON")


def parse_single_memory_strict(value: Any) -> Memory:
    if not isinstance(value, dict):
        raise MicroClawParseError("memory item must be an object")
    number = as_i64(value.get("id"))
    if number is None:
        raise MicroClawParseError("missing numeric `id`")
    content = _str(value.get("content"))
    content = content.strip() if content is not None else None
    if not content:
        raise MicroClawParseError("missing non-empty `content`")
    confidence = as_f64(value.get("confidence"))
    return Memory(
        id=number,
        chat_id=as_i64(value.get("chat_id")),
        content=content,
        category=_str(value.get("category")) or "KNOWLEDGE",
        created_at=_str(value.get("created_at")),
        updated_at=_str(value.get("updated_at")),
        embedding_model=_str(value.get("embedding_model")),
        confidence=0.8 if confidence is None else confidence,
        source=_str(value.get("source")) or "mcp_memory",
        last_seen_at=_str(value.get("last_seen_at")),
        is_archived=bool(_bool(value.get("is_archived"))),
        archived_at=_str(value.get("archived_at")),
    )


def parse_memory_list_strict(value: Any) -> list[Memory]:
    if isinstance(value, list):
        items = value
    elif isinstance(value, dict):
        if isinstance(value.get("memories"), list):
            items = value["memories"]
        elif isinstance(value.get("items"), list):
            items = value["items"]
        else:
            raise MicroClawParseError(
                "memory payload must be an array or an object with `memories`/`items`"
            )
    else:
        raise MicroClawParseError("memory payload must be JSON array/object")
    out = []
    for index, item in enumerate(items):
        try:
            out.append(parse_single_memory_strict(item))
        except MicroClawParseError as exc:
            raise MicroClawParseError(f"invalid memory at index {index}: {exc}") from None
    return out


def parse_get(value: Any) -> Memory | None:
    """`get_memory_by_id`: a list (its first item), else one memory object."""
    try:
        return next(iter(parse_memory_list_strict(value)), None)
    except MicroClawParseError:
        pass
    try:
        return parse_single_memory_strict(value)
    except MicroClawParseError:
        raise MicroClawParseError("expected single memory object or list response") from None


def extract_id(value: Any) -> int:
    for found in (_get(value, "id"), _get(value, "memory_id"), _get(_get(value, "memory"), "id")):
        number = as_i64(found)
        if number is not None:
            return number
    raise MicroClawParseError("expected `id`/`memory_id`")


def extract_bool_flag(value: Any) -> bool:
    for key in ("updated", "ok", "success"):
        flag = _bool(_get(value, key))
        if flag is not None:
            return flag
    raise MicroClawParseError("expected `updated`/`ok`/`success`")


def read_query(op: str, result: CallToolResult) -> Any:
    """A `memory_query` result as MicroClaw reads it for `op` (list of Memory / Memory|None)."""
    value = parse_json_loose(result_text(result))
    return parse_get(value) if op == "get" else parse_memory_list_strict(value)


def read_upsert(op: str, result: CallToolResult) -> int | bool:
    """A `memory_upsert` result as MicroClaw reads it for `op` (an id, or the bool flag)."""
    value = parse_json_loose(result_text(result))
    return extract_id(value) if op in ("insert", "supersede") else extract_bool_flag(value)
