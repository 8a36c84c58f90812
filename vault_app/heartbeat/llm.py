"""The OpenAI-compatible extractor: one chat request per entry, facts read back tolerantly.

Any server that speaks the OpenAI chat API serves: Ollama, a llama.cpp server, LM Studio,
vLLM, OpenAI itself. Each entry is one `POST {base_url}/chat/completions` — the system
message is the prompt (`data/extract_prompt.md`), the user message the entry with its
date, weekday, time and agent (`user_message`), `temperature: 0`, and JSON mode
(`response_format: {"type": "json_object"}`). A server that refuses JSON mode (a 400 that
names `response_format`, or any 400 before the first success) is asked once more
without it; when that works the extractor leaves JSON mode off for the rest of its life.

The answer is read by `parse_facts`, which takes what models really write: a bare JSON
object, one inside a ```json fence, one with prose around it, a bare list of facts, a
`<think>` block first, camelCase or snake_case keys, unknown categories (read as
`context`); blank facts are dropped. An answer with nothing usable is an `LlmError` that
says what was there. The prompt asks for absolute dates; a relative one the model left
anyway is resolved against the entry's date (`dates.resolve`), and a fact the rules'
quality gate refuses (`rules.passes_gate`: a hedge, small talk, a question) is dropped.

Failures are sorted by whose they are. An answer about this entry that cannot be used
(unreadable, a 400, a 413) fails this entry and the next entry goes on. A failure that
is the endpoint's whatever the entry — unreachable after the retries, 401/403/404, a
redirect, not speaking the chat API, a long Retry-After — fails this entry and every
entry after it without sending them: the next run retries them all (the cursor stays
before failed entries), and a run against a dead endpoint costs one entry's retries,
not a thousand. A failure that may be this entry's — silent past `timeout_s`, still 5xx
or 429 after the retries — fails it and the next entry is tried; a second such failure
in a row stops the batch the same way. So an entry that makes the server choke never
starves the entries after it, and a hung server costs two timeouts. Connection
errors, 429 and 5xx are retried `retries` times with a short doubling backoff, or after
the server's Retry-After when that is at most `MAX_RETRY_AFTER_S` (a longer one fails
at once: the next run is the retry). A timeout is not retried (the same request would
wait as long again). Each attempt is bounded: `timeout_s` to connect, `timeout_s` for
each read, and the answer's body must be in by `timeout_s` after the request went out.

The API key (from the environment variable that `[heartbeat] api_key_env` names) goes in
`Authorization: Bearer …` and nowhere else: no log line, no error message and no failure
reason holds it (a server echoing it back is scrubbed), and the endpoint's address is
shown without any user:password part.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import importlib.resources
import json
import logging
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

from vault_app.core import config, errors, models, strict_json
from vault_app.heartbeat import dates, model, rules

log = logging.getLogger(__name__)

PROMPT_RESOURCE = "data/extract_prompt.md"
MAX_ANSWER_BYTES = 1 << 20  # a chat answer bigger than this is not a list of facts
MAX_RETRY_AFTER_S = 10.0  # a server asking for a longer wait is retried by the next run
MAX_BACKOFF_S = 8.0
MAX_JSON_STARTS = 64  # the `{`/`[` positions `parse_facts` tries in prose
JSON_MODE = {"type": "json_object"}

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_JSON_START = re.compile(r"[{\[]")
_FENCE = re.compile(r"```[ \t]*[A-Za-z]*[ \t]*\r?\n(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_CATEGORY_ALIASES = {
    "relation": models.FactCategory.RELATIONSHIP,
    "relations": models.FactCategory.RELATIONSHIP,
    "event": models.FactCategory.MILESTONE,
    "date": models.FactCategory.MILESTONE,
    "state": models.FactCategory.STATUS,
    "like": models.FactCategory.PREFERENCE,
    "dislike": models.FactCategory.PREFERENCE,
    "habit": models.FactCategory.PREFERENCE,
}
# the keys of a fact as models spell them, by their letters only (relatedEntities,
# related_entities and "Related Entities" are all "relatedentities")
_FACT_KEYS = ("fact", "text", "statement", "content")
_CATEGORY_KEYS = ("category", "type", "kind")
_ENTITY_KEYS = ("entity", "subject", "about")
_RELATED_KEYS = ("relatedentities", "relatedentity", "related", "entities")
_NONE_WORDS = {"", "null", "none", "n/a", "na", "-"}


class LlmError(errors.VaultError):
    """The endpoint is unreachable, answers with a bad status, or its answer is unreadable."""


class _EndpointError(LlmError):
    """A failure of the endpoint rather than of this entry's answer. `certain`: it is the
    endpoint's whatever the entry (unreachable, a refused key, a wrong address), so the
    entries after it are not sent; otherwise (a timeout, 5xx after the retries) it may be
    this entry's, and only a second one in a row stops the batch."""

    def __init__(self, message: str, *, certain: bool) -> None:
        super().__init__(message)
        self.certain = certain


def load_prompt() -> str:
    """The extraction prompt shipped with the package (`data/extract_prompt.md`)."""
    resource = importlib.resources.files("vault_app.heartbeat").joinpath(PROMPT_RESOURCE)
    return resource.read_text(encoding="utf-8")


def user_message(entry: model.Entry) -> str:
    """The user message for `entry`: its date (with the weekday, so "last Friday" can be
    resolved), time and agent, then its text, last and unchanged."""
    agent = entry.agent or "none (the global notes)"
    return (
        f"Date: {entry.date.isoformat()} ({entry.date.strftime('%A')})\n"
        f"Time: {entry.time}\n"
        f"Agent: {agent}\n"
        f"\n"
        f"Entry:\n{entry.text}"
    )


# -- reading an answer ---------------------------------------------------------------


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
    raise LlmError(f"the answer holds no JSON object or list (it starts {_clip(text)!r})")


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
        "fact": _one_line(text or ""),
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
                return _CATEGORY_ALIASES[candidate]
    return models.FactCategory.CONTEXT


def _name(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, (str, dict))), None)
    if isinstance(value, dict):
        value = value.get("name")
    if not isinstance(value, str):
        return None
    name = _one_line(value)
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


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _clip(text: str, width: int = 60) -> str:
    text = _one_line(text)
    return text if len(text) <= width else f"{text[: width - 1]}…"


# -- the extractor -------------------------------------------------------------------


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: httpx2.Headers
    body: bytes


class LlmExtractor:
    """Facts from an OpenAI-compatible chat endpoint (implements `model.Extractor`)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        retries: int = 2,
        prompt: str | None = None,
        backoff_s: float = 0.5,
    ) -> None:
        url = httpx2.URL(base_url.strip().rstrip("/") + "/chat/completions")
        if url.scheme not in ("http", "https") or not url.host:
            raise LlmError(f"the endpoint {_shown(url)!r} is not an http(s) URL with a host")
        if not model.strip():
            raise LlmError("no model is named for the endpoint (set [heartbeat] llm_model)")
        if timeout_s <= 0 or retries < 0 or backoff_s < 0:
            raise LlmError("timeout_s must be above 0, retries and backoff_s 0 or more")
        self.url = url
        self.model = model.strip()
        self.name = f"llm:{self.model}"
        self.timeout_s = float(timeout_s)
        self.retries = int(retries)
        self.backoff_s = float(backoff_s)
        self.prompt = load_prompt() if prompt is None else prompt
        self._key = api_key or None
        self._json_mode = True  # until the endpoint refuses it
        self._answered = False  # an exchange has succeeded: a 400 is no longer suspect

    def __repr__(self) -> str:  # the key stays out of reprs too
        return f"LlmExtractor({_shown(self.url)!r}, {self.model!r})"

    @property
    def json_mode(self) -> bool:
        """Whether requests still ask for JSON mode (False once the endpoint refused it)."""
        return self._json_mode

    def extract(self, entries: list[model.Entry]) -> model.Extraction:
        """One request per entry; an entry whose request fails after the retries (or whose
        answer cannot be read) goes to `failed` with the reason, the others go on; after
        a failure of the endpoint itself the remaining entries fail unsent. Never raises
        for an endpoint problem."""
        result = model.Extraction()
        headers = {"Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        timeout = httpx2.Timeout(self.timeout_s)
        troubled = False  # the entry before failed at the endpoint
        with httpx2.Client(timeout=timeout, headers=headers, follow_redirects=False) as client:
            for index, entry in enumerate(entries):
                try:
                    result.candidates.extend(self._extract_one(client, entry))
                except _EndpointError as exc:
                    reason = self._scrub(str(exc))
                    result.failed.append((entry, reason))
                    if exc.certain or troubled:
                        unsent = f"not sent: the endpoint failed: {reason}"
                        result.failed.extend((rest, unsent) for rest in entries[index + 1 :])
                        break
                    troubled = True
                    continue
                except LlmError as exc:
                    result.failed.append((entry, self._scrub(str(exc))))
                troubled = False
        return result

    def _extract_one(self, client: httpx2.Client, entry: model.Entry) -> list[model.Candidate]:
        messages = [
            {"role": "system", "content": self.prompt},
            {"role": "user", "content": user_message(entry)},
        ]
        content, cut = self._complete(client, messages)
        try:
            facts = parse_facts(content)
        except LlmError as exc:
            if cut:  # the likelier cause, said first
                raise LlmError(f"the model stopped at its token limit: {exc}") from None
            raise
        found = (_candidate(fact, entry) for fact in facts)
        return [candidate for candidate in found if candidate is not None]

    def _complete(self, client: httpx2.Client, messages: list[dict[str, str]]) -> tuple[str, bool]:
        """The assistant's content for `messages` and whether the model was cut off at
        its token limit, with the retries and the JSON-mode
        fallback; raises `LlmError` (this entry) or `_EndpointError` (the endpoint)."""
        json_mode = self._json_mode
        attempt = 0
        while True:
            payload: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                "temperature": 0,
                "stream": False,
            }
            if json_mode:
                payload["response_format"] = JSON_MODE
            retry_after: float | None = None
            reply: _Reply | None = None
            try:
                reply = self._send(client, payload)
            except httpx2.TimeoutException as exc:
                if not isinstance(exc, httpx2.ConnectTimeout):
                    raise _EndpointError(
                        f"no answer from {_shown(self.url)} within {self.timeout_s:g} s",
                        certain=False,
                    ) from None
                problem = (
                    f"cannot reach {_shown(self.url)} (no connection within {self.timeout_s:g} s)"
                )
            except httpx2.TransportError as exc:
                problem = f"cannot reach {_shown(self.url)} ({_transport_reason(exc)})"
            except httpx2.HTTPError as exc:
                raise LlmError(f"a broken answer from {_shown(self.url)} ({exc})") from None
            else:
                if 200 <= reply.status < 300:
                    if json_mode != self._json_mode:
                        self._json_mode = json_mode
                        log.info("%s refuses JSON mode; asking without it", _shown(self.url))
                    self._answered = True
                    return self._content(reply)
                if reply.status == 400 and json_mode:
                    names_it = b"response_format" in reply.body
                    if names_it or not self._answered:
                        if names_it:
                            self._json_mode = False
                        json_mode = False
                        continue  # once more without JSON mode; not a retry
                if reply.status != 429 and reply.status < 500:
                    raise self._refused(reply)
                problem = f"HTTP {reply.status} from {_shown(self.url)}{_said(reply)}"
                retry_after = _retry_after(reply.headers)
                if retry_after is not None and retry_after > MAX_RETRY_AFTER_S:
                    raise _EndpointError(
                        f"{problem}; it asks to wait {retry_after:g} s", certain=True
                    )
            if attempt >= self.retries:
                tries = "1 attempt" if attempt == 0 else f"{attempt + 1} attempts"
                # a server that cannot be reached is down for every entry; one that
                # answers 5xx may fail on this entry only
                raise _EndpointError(f"{problem}, after {tries}", certain=reply is None)
            wait = retry_after if retry_after is not None else self._backoff(attempt)
            log.info("%s; retrying in %.2g s", self._scrub(problem), wait)
            time.sleep(wait)
            attempt += 1

    def _send(self, client: httpx2.Client, payload: dict[str, Any]) -> _Reply:
        """One POST, its body read to the end within `timeout_s` and `MAX_ANSWER_BYTES`."""
        deadline = time.monotonic() + self.timeout_s
        with client.stream("POST", self.url, json=payload) as response:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise LlmError(
                        f"the answer from {_shown(self.url)} is over {MAX_ANSWER_BYTES >> 20} MiB"
                    )
                if time.monotonic() > deadline:
                    raise httpx2.ReadTimeout("the body came too slowly")
            return _Reply(response.status_code, response.headers, bytes(body))

    def _backoff(self, attempt: int) -> float:
        return float(min(self.backoff_s * 2**attempt, MAX_BACKOFF_S))

    def _refused(self, reply: _Reply) -> LlmError:
        """The error for a 4xx other than 429: the endpoint's own when it is about the
        endpoint (key, address, method), else this entry's."""
        where = _shown(self.url)
        if reply.status in (401, 403):
            if self._key is None:
                hint = "no API key was sent: set [heartbeat] api_key_env"
            else:
                hint = "the API key was refused: check the variable [heartbeat] api_key_env names"
            return _EndpointError(f"HTTP {reply.status} from {where}: {hint}", certain=True)
        if reply.status in (404, 405):
            return _EndpointError(
                f"HTTP {reply.status} from {where}{_said(reply)}: is the model {self.model!r} "
                f"there, and is the base URL the API root (e.g. http://127.0.0.1:11434/v1)?",
                certain=True,
            )
        if 300 <= reply.status < 400:
            target = reply.headers.get("location", "elsewhere")
            return _EndpointError(
                f"HTTP {reply.status} from {where}: it redirects to {_clip(target)!r}; "
                f"set llm_base_url to the final address",
                certain=True,
            )
        return LlmError(f"HTTP {reply.status} from {where}{_said(reply)}")

    def _content(self, reply: _Reply) -> tuple[str, bool]:
        """The assistant message's content in a chat-completion body, and whether the
        model stopped at its token limit."""
        where = _shown(self.url)
        try:
            body = json.loads(reply.body)
        except (ValueError, RecursionError):
            raise _EndpointError(
                f"{where} does not answer with JSON (it starts {_clip(_text(reply.body))!r}): "
                f"is it an OpenAI-compatible endpoint?",
                certain=True,
            ) from None
        choices = body.get("choices") if isinstance(body, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise _EndpointError(
                f'{where} answers without "choices"{_said(reply)}: is it OpenAI-compatible?',
                certain=True,
            )
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str) or not content.strip():
            refusal = message.get("refusal") if isinstance(message, dict) else None
            if isinstance(refusal, str) and refusal.strip():
                raise LlmError(f"the model refused: {_clip(refusal, 160)!r}")
            raise LlmError("the answer is empty")
        return content, choices[0].get("finish_reason") == "length"

    def _scrub(self, text: str) -> str:
        if self._key:
            text = text.replace(self._key, "***")
        return text


def _candidate(fact: dict[str, Any], entry: model.Entry) -> model.Candidate | None:
    """`fact` as a candidate from `entry`: a relative date the model left is made
    absolute against the entry's date, and what the rules' quality gate refuses (a
    hedge, small talk, a question the model let through) is None."""
    text = dates.resolve(fact["fact"], entry.date)
    if not rules.passes_gate(text):
        return None
    return model.Candidate(
        fact=text,
        category=models.FactCategory(fact["category"]),
        entry=entry,
        entity=fact["entity"],
        related=tuple(fact["relatedEntities"]),
        confidence=fact.get("confidence", 1.0),
    )


def _shown(url: httpx2.URL) -> str:
    """The address without a user:password part (it may hold a secret)."""
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)


def _text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


def _said(reply: _Reply) -> str:
    """`: <the endpoint's error message>` from an error body, one line and clipped."""
    try:
        body = json.loads(reply.body)
    except (ValueError, RecursionError):
        text = _text(reply.body)
    else:
        error = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(error, dict):
            error = error.get("message") or error.get("detail") or error
        text = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
    text = _one_line(text)
    return f": {_clip(text, 200)}" if text else ""


def _transport_reason(exc: httpx2.TransportError) -> str:
    if isinstance(exc, httpx2.ConnectError):
        return "the connection was refused or the host is unknown"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return "the server closed the connection without an answer"
    return f"{type(exc).__name__}: {_clip(str(exc), 120)}" if str(exc) else type(exc).__name__


def _retry_after(headers: httpx2.Headers) -> float | None:
    """Retry-After in seconds (a number or an HTTP date); None when absent or unreadable."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def from_settings(
    settings: config.HeartbeatSettings, environ: Mapping[str, str] = os.environ
) -> LlmExtractor | None:
    """The extractor `[heartbeat]` configures; None when `llm_base_url` is empty (the
    rules extract). Raises `LlmError` for a configuration that cannot work: no model, a
    URL that is not http(s), or an `api_key_env` naming a variable that is not set."""
    if not settings.llm_base_url.strip():
        return None
    key: str | None = None
    if settings.api_key_env.strip():
        name = settings.api_key_env.strip()
        key = environ.get(name, "").strip() or None
        if key is None:
            raise LlmError(
                f"[heartbeat] api_key_env names {name!r}, but that environment variable is not set"
            )
    return LlmExtractor(
        settings.llm_base_url,
        settings.llm_model,
        api_key=key,
        timeout_s=settings.timeout_s,
        retries=settings.retries,
    )
