"""The MCP server over streamable HTTP, on 127.0.0.1 only, through the SDK's own client.

Two levels: the guard (`vault_app.mcp.http.secure_app`) around a small server whose one
tool answers the calling agent, run by uvicorn in a thread of the test - real HTTP, real
tokens of a real vault; and `vault-app serve` as a real process, with the vault's tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn
from cli_process import REPO
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer

from vault_app.core import tokens
from vault_app.core import vault as vault_module
from vault_app.mcp import http

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def whoami_server() -> MCPServer:
    server = MCPServer("whoami")

    @server.tool()
    async def whoami(ctx: Context[Any, Any]) -> str:
        """The calling agent."""
        await asyncio.sleep(0.005)  # let concurrent calls interleave
        return http.agent_of(ctx)

    return server


class ThreadServer:
    """uvicorn serving `app` on 127.0.0.1 in a thread of this test."""

    def __init__(self, make_app: Any) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        self.port = sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(make_app(self.port), log_config=None))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]})
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def agents(vault: vault_module.Vault) -> dict[str, str]:
    """Tokens of two agents of the vault."""
    for agent in ("alice", "bob"):
        vault.create_agent(agent)
    return {agent: tokens.issue(vault, agent) for agent in ("alice", "bob")}


@pytest.fixture
def guarded(vault: vault_module.Vault, agents: dict[str, str]) -> Iterator[ThreadServer]:
    server = ThreadServer(
        lambda port: http.secure_app(
            whoami_server(),
            vault.root,
            host="127.0.0.1",
            port=port,
            extra_origins=["https://app.example"],
        )
    )
    yield server
    server.stop()


@contextlib.asynccontextmanager
async def client(url: str, token: str | None) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, its requests carrying `token`."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http_client,
        Client(streamable_http_client(url, http_client=http_client)) as connected,
    ):
        yield connected


async def whoami(url: str, token: str | None, calls: int) -> list[str]:
    async with client(url, token) as c:
        answers = []
        for _ in range(calls):
            result = await c.call_tool("whoami", {})
            assert not result.is_error, result
            answers.append(result.structured_content["result"])
        return answers


def post(url: str, **headers: str) -> httpx2.Response:
    return httpx2.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers})


# -- the guard ----------------------------------------------------------------------------


def test_right_token_calls_tools_as_its_agent(
    guarded: ThreadServer, agents: dict[str, str]
) -> None:
    assert asyncio.run(whoami(f"{guarded.base}/mcp", agents["alice"], 2)) == ["alice"] * 2


def test_missing_and_wrong_tokens_get_401_with_a_bearer_challenge(
    guarded: ThreadServer, agents: dict[str, str]
) -> None:
    url = f"{guarded.base}/mcp"
    for headers in (
        {},
        {"Authorization": "Bearer vat_wrong"},
        {"Authorization": f"Basic {agents['alice']}"},
        {"Authorization": "Bearer"},
        {"Authorization": f"Bearer {agents['alice']}x"},
    ):
        answer = post(url, **headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer "), headers
    for token in (None, "vat_wrong"):  # the SDK's client does not get in either
        with pytest.raises(Exception):  # noqa: B017 - whichever error the SDK raises
            asyncio.run(whoami(url, token, 1))


def test_origin_is_checked_exactly_when_present(
    guarded: ThreadServer, agents: dict[str, str]
) -> None:
    url = f"{guarded.base}/mcp"
    token = {"Authorization": f"Bearer {agents['alice']}"}
    port = guarded.port
    for bad in (
        "http://evil.example",
        f"http://127.0.0.1:{port + 1}",
        f"http://localhost:{port}.evil.example",
        "null",
        f"https://127.0.0.1:{port}",
    ):
        answer = post(url, Origin=bad, **token)
        assert answer.status_code == 403, bad
    # refused before the token is looked at: a page learns nothing about tokens
    assert post(url, Origin="http://evil.example").status_code == 403
    for good in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", "https://app.example"):
        assert post(url, Origin=good, **token).status_code == 200, good


def test_host_header_is_checked_against_dns_rebinding(
    guarded: ThreadServer, agents: dict[str, str]
) -> None:
    url = f"{guarded.base}/mcp"
    token = {"Authorization": f"Bearer {agents['alice']}"}
    for bad in (f"evil.example:{guarded.port}", "127.0.0.1", f"127.0.0.1:{guarded.port + 1}"):
        assert post(url, Host=bad, **token).status_code == 421, bad
    assert post(url, Host=f"localhost:{guarded.port}", **token).status_code == 200


def test_health_needs_no_token_and_shows_no_vault_data(guarded: ThreadServer) -> None:
    answer = httpx2.get(f"{guarded.base}/health")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}
    assert (
        httpx2.get(f"{guarded.base}/health", headers={"Origin": "http://evil.example"}).status_code
        == 403
    )


def test_two_agents_calling_concurrently_each_act_as_themselves(
    guarded: ThreadServer, agents: dict[str, str]
) -> None:
    url = f"{guarded.base}/mcp"

    async def both() -> list[list[str]]:
        return await asyncio.gather(
            *(whoami(url, agents[a], 15) for a in ("alice", "bob", "alice", "bob"))
        )

    answers = asyncio.run(both())
    assert answers == [["alice"] * 15, ["bob"] * 15, ["alice"] * 15, ["bob"] * 15]


def test_a_session_belongs_to_the_agent_that_opened_it(
    guarded: ThreadServer, agents: dict[str, str]
) -> None:
    url = f"{guarded.base}/mcp"
    opened = post(url, Authorization=f"Bearer {agents['alice']}")
    session = opened.headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    as_bob = httpx2.post(
        url,
        json=ping,
        headers={
            **MCP_HEADERS,
            "Authorization": f"Bearer {agents['bob']}",
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-06-18",
        },
    )
    assert as_bob.status_code == 403
    assert "another agent" in as_bob.text
    unknown = httpx2.post(
        url,
        json=ping,
        headers={
            **MCP_HEADERS,
            "Authorization": f"Bearer {agents['alice']}",
            "mcp-session-id": "not-a-session",
            "mcp-protocol-version": "2025-06-18",
        },
    )
    assert unknown.status_code == 404


def test_a_session_flood_exhausts_only_its_own_agents_share(
    vault: vault_module.Vault, agents: dict[str, str]
) -> None:
    """alice opens sessions until refused (429 naming the quota); bob still opens his;
    a session alice ends (DELETE) frees one place, and only one."""
    server = ThreadServer(
        lambda port: http.secure_app(
            whoami_server(), vault.root, host="127.0.0.1", port=port, sessions=5
        )
    )
    try:
        url = f"{server.base}/mcp"
        alice = f"Bearer {agents['alice']}"
        opened = [post(url, Authorization=alice) for _ in range(5)]
        assert {r.status_code for r in opened} == {200}
        for _ in range(20):  # (a flood: each refused at once, none kept)
            refused = post(url, Authorization=alice)
            assert refused.status_code == 429
        assert "[quotas] sessions" in refused.text and "5 open sessions" in refused.text
        assert post(url, Authorization=f"Bearer {agents['bob']}").status_code == 200
        ended = httpx2.delete(
            url,
            headers={
                **MCP_HEADERS,
                "Authorization": alice,
                "mcp-session-id": opened[0].headers["mcp-session-id"],
                "mcp-protocol-version": "2025-06-18",
            },
        )
        assert ended.status_code == 200
        assert post(url, Authorization=alice).status_code == 200
        assert post(url, Authorization=alice).status_code == 429
    finally:
        server.stop()


def test_a_rotated_or_revoked_token_is_refused_at_the_next_request(
    guarded: ThreadServer, vault: vault_module.Vault, agents: dict[str, str]
) -> None:
    url = f"{guarded.base}/mcp"
    assert post(url, Authorization=f"Bearer {agents['alice']}").status_code == 200
    rotated = tokens.issue(vault, "alice")
    assert post(url, Authorization=f"Bearer {agents['alice']}").status_code == 401
    assert post(url, Authorization=f"Bearer {rotated}").status_code == 200
    assert tokens.revoke(vault, "alice")
    assert post(url, Authorization=f"Bearer {rotated}").status_code == 401
    assert post(url, Authorization=f"Bearer {agents['bob']}").status_code == 200


def test_background_services_live_as_long_as_the_app(vault: vault_module.Vault) -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def service() -> AsyncIterator[None]:
        events.append("started")
        yield
        events.append("stopped")

    server = ThreadServer(
        lambda port: http.secure_app(
            whoami_server(), vault.root, host="127.0.0.1", port=port, services=[service]
        )
    )
    assert events == ["started"]
    server.stop()
    assert events == ["started", "stopped"]


def test_allowed_hosts_and_origins() -> None:
    assert http.allowed_hosts("127.0.0.1", 8765) == {
        "127.0.0.1:8765",
        "localhost:8765",
        "[::1]:8765",
    }
    assert "[::1]:80" in http.allowed_hosts("::1", 80) and "localhost" in http.allowed_hosts(
        "::1", 80
    )
    assert "192.168.1.5:9000" in http.allowed_hosts("192.168.1.5", 9000)
    assert "0.0.0.0:9000" not in http.allowed_hosts("0.0.0.0", 9000)
    assert http.allowed_origins("127.0.0.1", 8765, ["https://App.example/"]) == {
        "http://127.0.0.1:8765",
        "http://localhost:8765",
        "http://[::1]:8765",
        "https://app.example",
    }
    assert [http.is_loopback(h) for h in ("127.0.0.1", "::1", "[::1]", "localhost")] == [True] * 4
    assert not any(http.is_loopback(h) for h in ("0.0.0.0", "192.168.1.5", "example.com"))


# -- `vault-app serve`, a real process -----------------------------------------------------


class ServeProcess:
    """`vault-app serve --port 0` on a vault; the port read from its announcement."""

    def __init__(self, root: Path, *extra: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "vault_app",
                "--vault",
                str(root),
                "serve",
                "--port",
                "0",
                *extra,
            ],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert self.process.stderr is not None
        self.stderr_lines: list[str] = []
        for line in self.process.stderr:
            self.stderr_lines.append(line)
            found = re.search(r"serving .* at (http://127\.0\.0\.1:(\d+))/mcp", line)
            if found:
                self.base, self.port = found.group(1), int(found.group(2))
                break
        else:
            raise AssertionError("serve did not start: " + "".join(self.stderr_lines))
        self.url = f"{self.base}/mcp"
        self._drain = threading.Thread(target=self._read_rest, daemon=True)
        self._drain.start()

    def _read_rest(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_lines.append(line)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send `sig`; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        code = self.process.wait(60)
        self._drain.join(10)
        assert self.process.stderr is not None
        self.process.stderr.close()
        return code


@pytest.fixture
def served(vault: vault_module.Vault, agents: dict[str, str]) -> Iterator[ServeProcess]:
    serve = ServeProcess(vault.root)
    yield serve
    if serve.process.poll() is None:
        serve.stop(signal.SIGKILL)
    elif serve.process.stderr is not None and not serve.process.stderr.closed:
        serve.stop()


def test_serve_answers_tools_with_the_right_token_only(
    served: ServeProcess, agents: dict[str, str]
) -> None:
    async def session() -> tuple[list[str], Any]:
        async with client(served.url, agents["alice"]) as c:
            names = [tool.name for tool in (await c.list_tools()).tools]
            added = await c.call_tool(
                "add_fact",
                {
                    "entity": "agent:alice:resources/notes",
                    "text": "Likes green tea",
                    "category": "preference",
                },
            )
            return names, added

    names, added = asyncio.run(session())
    assert {"search", "add_fact", "get_entity"} <= set(names)
    assert not added.is_error, added
    assert post(served.url).status_code == 401
    assert post(served.url, Authorization="Bearer vat_nope").status_code == 401
    health = httpx2.get(f"{served.base}/health").json()
    assert health["status"] == "ok" and "search" in health
    assert served.stop() == 0


def test_serve_two_agents_writing_concurrently_each_write_as_themselves(
    served: ServeProcess, agents: dict[str, str], vault: vault_module.Vault
) -> None:
    async def write(agent: str, count: int) -> None:
        async with client(served.url, agents[agent]) as c:
            for i in range(count):
                answer = await c.call_tool(
                    "add_fact",
                    {
                        "entity": f"agent:{agent}:resources/log",
                        "text": f"{agent} note {i}",
                        "category": "status",
                    },
                )
                assert not answer.is_error, answer

    async def both() -> None:
        await asyncio.gather(write("alice", 6), write("bob", 6))

    asyncio.run(both())
    assert served.stop() == 0
    audit = [
        json.loads(line)
        for line in (vault.root / ".vault" / "audit.jsonl").read_text().splitlines()
        if line.strip()
    ]
    for agent in ("alice", "bob"):
        entity = vault_module.Vault(vault.root).entity(f"agent:{agent}:resources/log")
        texts = [fact.fact for fact in entity.facts]
        assert sorted(texts) == sorted(f"{agent} note {i}" for i in range(6))
        actors = {a.get("actor") for a in audit if f"agent:{agent}:" in json.dumps(a)}
        assert actors == {f"agent:{agent}"}, actors


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_a_signal(served: ServeProcess, sig: int) -> None:
    assert httpx2.get(f"{served.base}/health").status_code == 200
    assert served.stop(sig) == 0
    assert "Traceback" not in "".join(served.stderr_lines)


def test_serve_refuses_a_port_in_use(vault: vault_module.Vault) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "vault_app",
                "--vault",
                str(vault.root),
                "serve",
                "--port",
                str(port),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


def test_serve_four_agents_writing_one_entity_at_once_lose_nothing(
    vault: vault_module.Vault,
) -> None:
    """Four agents, each its own client and token, write at the same moment into one
    global entity (all four are global writers) through both the vault's `add_fact` and
    MicroClaw's `memory_upsert`: every fact is there exactly once, with its agent as the
    audited actor."""
    from vault_app.core import config

    four = ("ann", "ben", "cat", "dan")
    for agent in four:
        vault.create_agent(agent)
    settings = config.VaultConfig.load(vault.root)
    settings.agents.global_writers = list(four)
    settings.agents.chats = {"7": "areas/shared"}
    settings.save(vault.storage)
    keys = {agent: tokens.issue(vault, agent) for agent in four}
    serve = ServeProcess(vault.root, "--bm25")
    count = 8

    async def write(agent: str) -> None:
        async with client(serve.url, keys[agent]) as c:
            for i in range(count):
                if i % 2:
                    answer = await c.call_tool(
                        "memory_upsert",
                        {
                            "op": "insert",
                            "chat_id": 7,
                            "content": f"{agent} memory {i}",
                            "category": "KNOWLEDGE",
                            "source": "test",
                            "confidence": 0.9,
                        },
                    )
                else:
                    answer = await c.call_tool(
                        "add_fact",
                        {
                            "entity": "areas/shared",
                            "text": f"{agent} fact {i}",
                            "category": "status",
                        },
                    )
                assert not answer.is_error, answer

    async def together() -> None:
        await asyncio.gather(*(write(agent) for agent in four))

    try:
        asyncio.run(together())
    finally:
        assert serve.stop() == 0
    facts = vault_module.Vault(vault.root).entity("areas/shared").facts
    expected = sorted(
        f"{a} {'memory' if i % 2 else 'fact'} {i}" for a in four for i in range(count)
    )
    assert sorted(f.fact for f in facts) == expected
    assert {f.id for f in facts} == {f.id for f in facts if f.is_active}
    audit = [
        json.loads(line)
        for line in (vault.root / ".vault" / "audit.jsonl").read_text().splitlines()
        if '"fact.add"' in line
    ]
    assert len(audit) == len(four) * count
    assert {a["actor"] for a in audit} == {f"agent:{a}" for a in four}
