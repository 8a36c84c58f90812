"""The OpenAI-compatible extractor: one chat request per entry, facts read back tolerantly.

Any server that speaks the OpenAI chat API serves: Ollama, a llama.cpp server, LM Studio,
vLLM, OpenAI itself. Each entry is one `POST {base_url}/chat/completions` — the system
message is the prompt (`data/extract_prompt.md`), the user message the entry with its
date, weekday, time and agent (`user_message`), `temperature: 0`, and JSON mode
(`response_format: {"type": "json_object"}`). A server that refuses JSON mode (a 400 that
names `response_format`, or any 400 before the first success) is asked once more
without it; when that works the extractor leaves JSON mode off for the rest of its life.
A model that refuses `temperature: 0` (a 400 naming it: OpenAI's reasoning models) is
asked without it from then on.

The answer is read by `answers.parse_facts` (also `llm.parse_facts`), which takes what
models really write: fenced JSON, prose around it, a bare list, camelCase or snake_case
keys, unknown categories (as `context`); an answer with nothing usable is an `LlmError`
that says what was there. The prompt asks for absolute dates; a relative one the model
left anyway is resolved against the entry's date (`dates.resolve`), and a fact the
rules' quality gate refuses (`rules.passes_gate`: a hedge, small talk, a question) is
dropped.

Failures are sorted by whose they are. An unusable answer about this entry (unreadable,
a 400) fails it and the next entry goes on. A failure of the endpoint whatever the entry
— unreachable after the retries, 401/403/404, a redirect, not the chat API, a long
Retry-After — fails it and every entry after it unsent (the next run retries them: the
cursor stays before failed entries), so a dead endpoint costs one entry's retries, not
a thousand. One that may be this entry's — no answer within `timeout_s`, 5xx or 429
after the retries — fails it and the next entry is tried; a second in a row stops the
batch too: an entry the server chokes on never starves the others, a hung server costs
two timeouts. Connection errors, 429 and 5xx are retried `retries` times after a short
doubling backoff, or after the server's Retry-After when that is at most
`MAX_RETRY_AFTER_S` (a longer one fails at once: the next run is the retry); a timeout
is not (the same request would wait as long again). An attempt is bounded: `timeout_s`
to connect, for each read (the wait for the headers, while the model works, is one), and
for the whole body once the headers are in.

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
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx2

from vault_app.core import config, models
from vault_app.heartbeat import answers, dates, rules
from vault_app.heartbeat import extraction as model
from vault_app.heartbeat.answers import LlmError, parse_facts

log = logging.getLogger(__name__)

PROMPT_RESOURCE = "data/extract_prompt.md"
MAX_ANSWER_BYTES = 1 << 20  # a chat answer bigger than this is not a list of facts
MAX_RETRY_AFTER_S = 10.0  # a server asking for a longer wait is retried by the next run
MAX_BACKOFF_S = 8.0
JSON_MODE = {"type": "json_object"}

_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")  # printable ASCII, no spaces


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
        try:
            url = httpx2.URL(base_url.strip().rstrip("/") + "/chat/completions")
        except httpx2.InvalidURL as exc:
            raise LlmError(f"the endpoint address is not a URL ({exc})") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise LlmError(f"the endpoint {_shown(url)!r} is not an http(s) URL with a host")
        if not model.strip():
            raise LlmError("no model is named for the endpoint (set [heartbeat] llm_model)")
        api_key = (api_key or "").strip() or None
        if api_key is not None and not _HEADER_SAFE.fullmatch(api_key):
            raise LlmError("the API key holds characters an HTTP header cannot carry")
        if timeout_s <= 0 or retries < 0 or backoff_s < 0:
            raise LlmError("timeout_s must be above 0, retries and backoff_s 0 or more")
        self.url = url
        self.model = model.strip()
        self.name = f"llm:{self.model}"
        self.timeout_s = float(timeout_s)
        self.retries = int(retries)
        self.backoff_s = float(backoff_s)
        self.prompt = load_prompt() if prompt is None else prompt
        self._key = api_key
        self._json_mode = True  # until the endpoint refuses it
        self._temperature = True  # temperature 0 is sent until the model refuses it
        self._answered = False  # an exchange has succeeded: a 400 is no longer suspect
        self._tls: ssl.SSLContext | None = None  # made once: loading the CAs takes ~80 ms

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
        if not entries:
            return result
        headers = {"Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        timeout = httpx2.Timeout(self.timeout_s)
        troubled = False  # the entry before failed at the endpoint
        if self._tls is None:
            self._tls = httpx2.create_ssl_context()
        with httpx2.Client(
            timeout=timeout, headers=headers, verify=self._tls, follow_redirects=False
        ) as client:
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
        """The assistant's content for `messages`, and whether the model stopped at its
        token limit: retried on connection errors, 429 and 5xx, asked once more without
        JSON mode when that is refused. Raises `LlmError` (this entry's failure) or
        `_EndpointError` (the endpoint's)."""
        json_mode = self._json_mode
        attempt = 0
        while True:
            retry_after: float | None = None
            reply: _Reply | None = None  # None: no answer at all
            try:
                got = self._send(client, self._payload(messages, json_mode))
            except httpx2.TimeoutException as exc:
                if not isinstance(exc, httpx2.ConnectTimeout):
                    raise _EndpointError(
                        f"no answer from {_shown(self.url)} within {self.timeout_s:g} s",
                        certain=False,  # this entry may just take the model long
                    ) from None
                problem = f"no connection within {self.timeout_s:g} s"
            except httpx2.TransportError as exc:
                problem = _transport_reason(exc)
            except httpx2.HTTPError as exc:  # a body that cannot be decoded, say
                raise LlmError(f"a broken answer from {_shown(self.url)} ({exc})") from None
            else:
                reply = got
                if 200 <= got.status < 300:
                    self._succeeded(json_mode)
                    return self._content(got)
                if self._refuses_temperature(got):
                    continue  # once more with the model's own temperature; not a retry
                if self._refuses_json_mode(got, json_mode):
                    json_mode = False
                    continue  # once more without JSON mode; not a retry
                if got.status != 429 and got.status < 500:
                    raise self._refused(got)
                problem, retry_after = _said(got), _retry_after(got.headers)
            problem = (
                f"cannot reach {_shown(self.url)} ({problem})"
                if reply is None
                else f"HTTP {reply.status} from {_shown(self.url)}{problem}"
            )
            if retry_after is not None and retry_after > MAX_RETRY_AFTER_S:
                raise _EndpointError(f"{problem}; it asks to wait {retry_after:g} s", certain=True)
            if attempt >= self.retries:
                tries = "1 attempt" if attempt == 0 else f"{attempt + 1} attempts"
                # a server that cannot be reached is down for every entry; one that
                # answers 5xx may fail on this entry only
                raise _EndpointError(f"{problem}, after {tries}", certain=reply is None)
            wait = retry_after if retry_after is not None else self._backoff(attempt)
            log.info("%s; retrying in %.2g s", self._scrub(problem), wait)
            time.sleep(wait)
            attempt += 1

    def _payload(self, messages: list[dict[str, str]], json_mode: bool) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False}
        if self._temperature:
            payload["temperature"] = 0
        if json_mode:
            payload["response_format"] = JSON_MODE
        return payload

    def _refuses_temperature(self, reply: _Reply) -> bool:
        """Whether this 400 refuses `temperature: 0` (OpenAI's reasoning models take only
        their default): then it is left out for good."""
        if reply.status in (400, 422) and self._temperature and b"temperature" in reply.body:
            self._temperature = False
            log.info("%s refuses temperature 0; asking without it", _shown(self.url))
            return True
        return False

    def _refuses_json_mode(self, reply: _Reply, json_mode: bool) -> bool:
        """Whether this 400 may be a refusal of JSON mode: it names `response_format`
        (then JSON mode is off for good; a validating server may say 422), or nothing
        has succeeded yet."""
        if reply.status not in (400, 422) or not json_mode:
            return False
        if b"response_format" in reply.body:
            self._json_mode = False
            log.info("%s refuses JSON mode; asking without it", _shown(self.url))
            return True
        return reply.status == 400 and not self._answered

    def _succeeded(self, json_mode: bool) -> None:
        """An answer came: a request without JSON mode that worked after one with it
        failed settles that this endpoint refuses it."""
        if json_mode != self._json_mode:
            self._json_mode = json_mode
            log.info("%s refuses JSON mode; asking without it", _shown(self.url))
        self._answered = True

    def _send(self, client: httpx2.Client, payload: dict[str, Any]) -> _Reply:
        """One POST, its body read to the end within `timeout_s` of the headers (a model
        thinks before it answers; the body of a whole answer then comes at once) and
        within `MAX_ANSWER_BYTES`."""
        with client.stream("POST", self.url, json=payload) as response:
            deadline = time.monotonic() + self.timeout_s
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
                f"HTTP {reply.status} from {where}: it redirects to {answers.clip(target)!r}; "
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
                f"{where} does not answer with JSON (it starts "
                f"{answers.clip(_text(reply.body))!r}): is it an OpenAI-compatible endpoint?",
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
                raise LlmError(f"the model refused: {answers.clip(refusal, 160)!r}")
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
    text = answers.one_line(text)
    return f": {answers.clip(text, 200)}" if text else ""


def _transport_reason(exc: httpx2.TransportError) -> str:
    if isinstance(exc, httpx2.ConnectError):
        return "the connection was refused or the host is unknown"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return "the server closed the connection without an answer"
    name = type(exc).__name__
    return f"{name}: {answers.clip(str(exc), 120)}" if str(exc) else name


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
