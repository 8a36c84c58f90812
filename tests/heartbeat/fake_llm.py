"""A real OpenAI-compatible chat endpoint on 127.0.0.1 that answers as scripted.

`FakeChatEndpoint` is a `http.server.ThreadingHTTPServer` on a free loopback port, run
in a thread: a context manager, `.base_url` ending in `/v1`. Every request is recorded
(`.requests`: path, headers, JSON body); one to `POST /v1/chat/completions` is answered
by the script: a callable `Received -> Reply`, or a queue of `Reply`s taken one per
request (`push` adds more; an empty queue answers 500 and says so); a plain string
stands for a chat completion with that content. Other paths get a
404, as from a real server. A `Reply` has a status, a body (a JSON value, a string or
bytes), headers, a delay before answering (cut short when the endpoint closes, so a
test of a timeout does not wait it out), `drop` (close the connection unanswered) and
`trickle` (send the body a byte at a time, this many seconds apart).

`chat(content)` is a chat-completion reply whose assistant message is `content`;
`error(status, message)` an OpenAI-style error; `recorded(answers)` a script serving
recorded answers by the request's user message (`llm.user_message(entry)`). The LLM
extractor's tests, the runner's tests and `benchmarks/extraction_quality.py --extractor
llm` (recorded answers from `benchmarks/data/extraction/llm_responses.jsonl`) use it;
import it as `tests.heartbeat.fake_llm` with the repository root on `sys.path`.
"""

from __future__ import annotations

import collections
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # dict/list: sent as JSON; str/bytes: sent as they are
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    drop: bool = False  # close the connection without an answer
    trickle: float = 0.0  # seconds between the body's bytes (a server dripping its answer)


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: Any  # the request's JSON, or None when it was not JSON
    raw: bytes

    def message(self, role: str) -> str:
        """The content of the request's first message of `role` ("" when none)."""
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        return next((m["content"] for m in messages if m.get("role") == role), "")

    @property
    def user(self) -> str:
        return self.message("user")


Answer = Reply | str  # a string: a 200 chat completion with that content (`chat`)
Script = Callable[[Received], Answer]


def chat(content: str, *, finish_reason: str = "stop", model: str = "fake") -> Reply:
    """A 200 chat completion whose assistant message is `content`."""
    return Reply(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish_reason,
                }
            ],
        }
    )


def facts(*items: dict[str, Any]) -> Reply:
    """A chat completion answering `{"facts": [items...]}` as a JSON-mode model would."""
    return chat(json.dumps({"facts": list(items)}, ensure_ascii=False))


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    """An OpenAI-style error answer."""
    return Reply(status, {"error": {"message": message, "type": "fake"}}, headers or {})


def recorded(answers: Mapping[str, str]) -> Script:
    """A script answering each request with the recorded content for its user message
    (keys: `llm.user_message(entry)`), and a 400 naming the message when none is."""

    def answer(request: Received) -> Reply:
        content = answers.get(request.user)
        if content is None:
            return error(400, f"FakeChatEndpoint: nothing recorded for {request.user[:80]!r}")
        return chat(content)

    return answer


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (a timeout test) closed its end: not news


class FakeChatEndpoint:
    def __init__(self, script: Script | Iterable[Answer] | None = None) -> None:
        self.requests: list[Received] = []
        self._script: Script | None = script if callable(script) else None
        self._queue: collections.deque[Answer] = collections.deque(
            () if script is None or callable(script) else script
        )
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # close() returns quickly
            name="fake-chat-endpoint",
            daemon=True,
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *replies: Answer) -> None:
        with self._lock:
            self._queue.extend(replies)

    def close(self) -> None:
        self._closing.set()  # wakes the delayed replies
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeChatEndpoint:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _answer(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            if received.path != CHAT_PATH:
                return error(404, f"no route for {received.path}")
            if self._script is None:
                if not self._queue:
                    return error(500, "FakeChatEndpoint: no scripted reply left")
                answer = self._queue.popleft()
            else:
                answer = None
        if answer is None:
            answer = self._script(received)
        return chat(answer) if isinstance(answer, str) else answer

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers and clients do
            disable_nagle_algorithm = True  # headers and body go out at once, no 40 ms stall

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                headers = {name.lower(): value for name, value in self.headers.items()}
                self._send(endpoint._answer(Received(self.path, headers, body, raw)))

            def do_GET(self) -> None:
                self._send(error(404, f"no route for GET {self.path}"))

            def _send(self, reply: Reply) -> None:
                if reply.delay and endpoint._closing.wait(reply.delay):
                    self.close_connection = True
                    return
                if reply.drop:
                    self.close_connection = True
                    return
                if isinstance(reply.body, bytes):
                    data = reply.body
                elif isinstance(reply.body, str):
                    data = reply.body.encode("utf-8")
                else:
                    data = json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
                self.send_response(reply.status)
                if "content-type" not in {name.lower() for name in reply.headers}:
                    self.send_header("Content-Type", "application/json")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not reply.trickle:
                    self.wfile.write(data)
                    return
                for index in range(len(data)):
                    if endpoint._closing.wait(reply.trickle):
                        break
                    self.wfile.write(data[index : index + 1])

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the requests are recorded instead

        return Handler
