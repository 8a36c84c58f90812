"""A chat model's answer read tolerantly: the facts in whatever it wrote.

Models asked for `{"facts": [...]}` answer in many shapes, JSON mode or not: the bare
object, the object inside a ```json fence, the object with prose before or after it
(and other braces in the prose), a bare list of facts or of sentences, a `<think>` block
first, trailing commas, keys in camelCase, snake_case or Title Case, a category of
their own. `parse_facts` takes all of these and gives every fact one shape; what holds
no usable fact at all is an `LlmError` saying what was there (the start of the prose,
where the JSON broke off, the keys an object had). The OpenAI-compatible extractor
(`llm`) is its user.
"""

from __future__ import annotations

import json
import re
from typing import Any

from vault_app.core import errors, models, strict_json

MAX_JSON_STARTS = 64  # the `{`/`[` positions `parse_facts` tries in prose

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_JSON_START = re.compile(r"[{\[]")
_FENCE = re.compile(r"```[ \t]*[A-Za-z]*[ \t]*\r?\n(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_CATEGORY_ALIASES = {  # other words models use for the five categories
    "relation": "relationship", "event": "milestone", "date": "milestone", "state": "status",
    "like": "preference", "dislike": "preference", "habit": "preference",
}  # fmt: skip
# the keys of a fact as models spell them, by their letters only (relatedEntities,
# related_entities and "Related Entities" are all "relatedentities")
_FACT_KEYS = ("fact", "text", "statement", "content")
_CATEGORY_KEYS = ("category", "type", "kind")
_ENTITY_KEYS = ("entity", "subject", "about")
_RELATED_KEYS = ("relatedentities", "relatedentity", "related", "entities")
_NONE_WORDS = {"", "null", "none", "n/a", "na", "-"}


class LlmError(errors.VaultError):
    """The endpoint is unreachable, answers with a bad status, or its answer is unreadable."""


def parse_facts(content: str) -> list[dict[str, Any]]:
    """The facts in a model's answer, each `{"fact": str, "category": <a FactCategory
    value>, "entity": str | None, "relatedEntities": [str, ...]}` (plus `confidence`
    when the model gave one in [0, 1]).

    Tolerant: plain JSON, fenced JSON, prose around it, a bare list, a `<think>` block,
    camelCase or snake_case keys; an unknown category is `context`; blank facts are
    dropped (`{"facts": []}` is no facts, not an error). Raises `LlmError` saying what
    was there when nothing usable is.
    """
    text = _THINK.sub("", content).strip()
    if not text:
        raise LlmError("the answer is empty")
    value, problem = _loads(text)
    if problem is None:
        return _facts_of(value)  # the whole answer is JSON: what it says is the answer
    refusal: LlmError | None = None  # the first JSON value found that holds no facts
    for block in _FENCE.findall(text):
        value, problem = _loads(block.strip())
        if problem is None:
            try:
                return _facts_of(value)
            except LlmError as exc:
                refusal = refusal or exc
    facts, broken = _scan(text)
    if facts is not None:
        return facts
    if isinstance(broken, LlmError):
        refusal = refusal or broken
    if refusal is not None:
        raise refusal
    if broken is not None:
        raise LlmError(f"the answer's JSON is malformed or cut off ({broken})")
    raise LlmError(f"the answer holds no JSON object or list (it starts {clip(text)!r})")


def _scan(text: str) -> tuple[list[dict[str, Any]] | None, LlmError | str | None]:
    """The facts of the first JSON object or list in prose that holds some; else None and
    the first complaint: a value without facts (an `LlmError`), or where the first `{`
    that began like JSON broke off. Linear: a decoded value's inside is not rescanned."""
    decoder = json.JSONDecoder()
    complaint: LlmError | str | None = None
    match = _JSON_START.search(text)
    for _ in range(MAX_JSON_STARTS):
        if match is None:
            break
        start, resume = match.start(), match.start() + 1
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if text[start] == "{" and exc.pos > start + 1 and complaint is None:
                complaint = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        except RecursionError:
            pass
        else:
            if isinstance(value, dict) or (isinstance(value, list) and _has_fact_items(value)):
                try:
                    return _facts_of(value), None
                except LlmError as exc:
                    if not isinstance(complaint, LlmError):
                        complaint = exc
            resume = end
        match = _JSON_START.search(text, resume)
    return None, complaint


def _loads(text: str) -> tuple[Any, str | None]:
    """`text` as JSON, retried without trailing commas; (value, None) or (None, why)."""
    try:
        return json.loads(text), None
    except (json.JSONDecodeError, RecursionError) as exc:
        repaired = _TRAILING_COMMA.sub(r"\1", text)
        if repaired != text:
            try:
                return json.loads(repaired), None
            except (json.JSONDecodeError, RecursionError):
                pass
        return None, str(exc)


def _has_fact_items(items: list[Any]) -> bool:
    """Whether a list in prose may be the facts (objects, or sentences), not `[1]`."""
    return any(isinstance(item, dict) for item in items) or (
        bool(items) and all(isinstance(item, str) for item in items)
    )


def _key(name: object) -> str:
    return re.sub(r"[^a-z]", "", str(name).lower())


def _pick(keyed: dict[str, Any], names: tuple[str, ...]) -> Any:
    """The value of the first of `names` in `keyed` (a dict keyed by `_key`)."""
    for name in names:
        if name in keyed:
            return keyed[name]
    return None


def _facts_of(value: Any) -> list[dict[str, Any]]:
    """The facts a decoded answer holds, blank ones dropped; an `LlmError` saying what
    was there when nothing in it could be a fact."""
    if isinstance(value, dict):
        items = _fact_list(value)
    elif isinstance(value, list):
        items = value
    else:
        raise LlmError(
            f'the answer\'s JSON is {strict_json.json_type(value)}, not an object with "facts"'
        )
    facts: list[dict[str, Any]] = []
    usable = 0
    for item in items:
        fact = _fact_of(item)
        if fact is None:
            continue
        usable += 1
        if fact["fact"]:
            facts.append(fact)
    if items and not usable:
        kinds = sorted({strict_json.json_type(item) for item in items})
        raise LlmError(f"none of the answer's {len(items)} items is a fact ({', '.join(kinds)})")
    return facts


def _fact_list(value: dict[str, Any]) -> list[Any]:
    """The items of an object's "facts" (or the object as one fact, or the "facts" of an
    object inside it)."""
    keyed = {_key(k): v for k, v in value.items()}
    if "facts" in keyed:
        listed = keyed["facts"]
        if listed is None:
            return []
        if isinstance(listed, dict):
            return [listed]
        if isinstance(listed, list):
            return listed
        raise LlmError(f'the answer\'s "facts" is {strict_json.json_type(listed)}, not a list')
    if "fact" in keyed:
        return [value]  # one fact on its own
    for inner in value.values():  # {"result": {"facts": [...]}}
        if isinstance(inner, dict) and "facts" in {_key(k) for k in inner}:
            return _fact_list(inner)
    keys = ", ".join(repr(str(k)) for k in list(value)[:6]) or "none"
    raise LlmError(f'the answer\'s JSON object has no "facts" list (its keys: {keys})')


def _fact_of(item: Any) -> dict[str, Any] | None:
    """One fact in canonical shape; None when `item` is not a fact at all (no text key, or
    text that is not a string); a null or blank text gives `fact == ""`, dropped by the
    caller."""
    if isinstance(item, str):
        item = {"fact": item}
    if not isinstance(item, dict):
        return None
    keyed = {_key(k): v for k, v in item.items()}
    name = next((n for n in _FACT_KEYS if n in keyed), None)
    text = keyed[name] if name is not None else None
    if name is None or not isinstance(text, (str, type(None))):
        return None
    entity = _name(_pick(keyed, _ENTITY_KEYS))
    related = [
        n for n in _names(_pick(keyed, _RELATED_KEYS)) if n.casefold() != (entity or "").casefold()
    ]
    fact: dict[str, Any] = {
        "fact": one_line(text or ""),
        "category": _category(_pick(keyed, _CATEGORY_KEYS)).value,
        "entity": entity,
        "relatedEntities": related,
    }
    confidence = _confidence(keyed.get("confidence"))
    if confidence is not None:
        fact["confidence"] = confidence
    return fact


def _confidence(value: Any) -> float | None:
    """A confidence the model gave, when it is a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= 1 else None


def _category(value: Any) -> models.FactCategory:
    word = _key(value) if isinstance(value, str) else ""
    for candidate in (word, word.removesuffix("s")):
        try:
            return models.FactCategory(candidate)
        except ValueError:
            if candidate in _CATEGORY_ALIASES:
                return models.FactCategory(_CATEGORY_ALIASES[candidate])
    return models.FactCategory.CONTEXT


def _name(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, (str, dict))), None)
    if isinstance(value, dict):
        value = value.get("name")
    if not isinstance(value, str):
        return None
    name = one_line(value)
    return None if name.lower() in _NONE_WORDS else name


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        value = re.split(r"[,;]", value)
    if not isinstance(value, list):
        return []
    found: list[str] = []
    seen: set[str] = set()
    for item in value:
        name = _name(item)
        if name is not None and name.casefold() not in seen:
            seen.add(name.casefold())
            found.append(name)
    return found


def one_line(text: str) -> str:
    return " ".join(text.split())


def clip(text: str, width: int = 60) -> str:
    text = one_line(text)
    return text if len(text) <= width else f"{text[: width - 1]}…"
