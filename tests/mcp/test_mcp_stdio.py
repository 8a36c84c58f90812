"""`vault-app mcp` as an agent framework runs it: a real child process spoken to over
stdio by the SDK's own client (handshake, tool list, a search, a write), and the command
line's refusals (an unknown agent is a usage error, exit status 2)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from vault_app.core import demo

AGENT = "finance"
OUTSIDE_WAIT = 60.0  # seconds a search may take to see another process's write


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stdio") / "v"
    demo.create_demo(root)
    return root


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["HF_HUB_OFFLINE"] = "1"
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def test_a_stdio_client_searches_over_a_real_process(demo_root: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vault_app", "--vault", str(demo_root), "mcp", "--agent", AGENT, "--bm25"],
        env=child_env(),
    )

    async def session() -> dict[str, Any]:
        async with Client(params) as client:
            tools = await client.list_tools()
            found = await client.call_tool("search", {"query": "vanity delivery", "limit": 3})
            refused = await client.call_tool("get_entity", {"entity": "agent:security:areas/x"})
            added = await client.call_tool(
                "add_fact",
                {
                    "entity": f"agent:{AGENT}:resources/stdio",
                    "text": "The stdio client wrote this fact.",
                    "category": "context",
                },
            )
            again = await client.call_tool("search", {"query": "stdio client wrote"})
            return {
                "server": client.server_info,
                "tools": {t.name for t in tools.tools},
                "search": found,
                "refused": refused,
                "added": added,
                "again": again,
            }

    answer = asyncio.run(session())
    assert answer["server"].name == "vault-app"
    assert {"search", "get_entity", "read_daily"} <= answer["tools"]
    found = answer["search"]
    assert not found.is_error and found.structured_content["hits"]
    assert found.structured_content["mode"] == "bm25"
    assert answer["refused"].is_error
    assert "may not read entity agent:security:areas/x" in answer["refused"].content[0].text
    added = answer["added"].structured_content
    assert added["status"] == "applied"
    assert answer["again"].structured_content["hits"][0]["id"] == added["fact"]["id"]


def test_an_unknown_agent_is_a_usage_error(demo_root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vault_app", "--vault", str(demo_root), "mcp", "--agent", "ghost"],
        env=child_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "no agent 'ghost'" in done.stderr and "vault-app agent create ghost" in done.stderr


def test_a_write_by_another_process_reaches_the_running_server(demo_root: Path) -> None:
    """The server runs for hours while the CLI (here a real `vault-app fact add` process)
    writes the vault: its index follows, and a search finds the new fact (polled)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vault_app", "--vault", str(demo_root), "mcp", "--agent", AGENT, "--bm25"],
        env=child_env(),
    )
    text = "The outside writer noted the quartzite countertop arrives on Thursday."
    query = "quartzite countertop outside writer"

    async def session() -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
        async with Client(params) as client:
            before = await client.call_tool("search", {"query": query, "mark_access": False})
            cli = [sys.executable, "-m", "vault_app", "--vault", str(demo_root), "--json"]
            add = ["fact", "add", "areas/home/kitchen-outside", "--text", text, "--create"]
            written = subprocess.run(
                [*cli, *add, "--category", "status", "--actor", "jane"],
                env=child_env(),
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=120,
            )
            assert written.returncode == 0, written.stderr
            deadline = time.monotonic() + OUTSIDE_WAIT
            while True:
                after = await client.call_tool("search", {"query": query, "mark_access": False})
                hits = after.structured_content["hits"]
                if any(h["text"] == text for h in hits) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
            return before.structured_content["hits"], hits, written.stdout

    before, after, written = asyncio.run(session())
    assert all(h["text"] != text for h in before)
    fact_id = json.loads(written)["id"]
    found = next(h for h in after if h["text"] == text)
    assert found["id"] == fact_id and found["entity"] == "areas/home/kitchen-outside"


def test_the_server_is_built_without_the_search_engine(demo_root: Path) -> None:
    """What runs before the handshake's answer imports no numpy, scipy, search engine or
    watcher (they load in the background, after the handshake): benchmarks/
    bench_mcp_handshake.py has the figures; this keeps the heavy imports off that path."""
    probe = (
        "import sys\n"
        "import vault_app.cli\n"
        "from vault_app.mcp import server\n"
        "from vault_app.workspace.vault_workspace import VaultWorkspace\n"
        f"rt = VaultWorkspace({str(demo_root)!r}, semantic=False)\n"
        f"server.build_server(rt, lambda ctx: {AGENT!r})\n"
        "heavy = ('numpy', 'scipy', 'vault_app.search.engine', 'watchdog', 'torch')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=child_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_mcp_config_prints_what_a_client_starts_as_pasted(demo_root: Path) -> None:
    """`mcp-config` names the installed command by its absolute path (a client does not
    share the shell's PATH), the vault and the agent; the SDK's client starts it as is."""
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "vault_app",
            "--vault",
            str(demo_root),
            "mcp-config",
            "--agent",
            AGENT,
            "--json",
        ],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    entry = json.loads(printed.stdout)["mcpServers"]["vault"]
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    assert entry["args"][-5:] == ["--vault", str(demo_root), "mcp", "--agent", AGENT]
    params = StdioServerParameters(
        command=entry["command"], args=[*entry["args"], "--bm25"], env=child_env()
    )

    async def session() -> set[str]:
        async with Client(params) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert {"search", "add_fact"} <= asyncio.run(session())
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "vault_app",
            "--vault",
            str(demo_root),
            "mcp-config",
            "--agent",
            "nobody",
        ],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2 and "no agent 'nobody'" in refused.stderr


@pytest.mark.parametrize(
    ("vault", "agent", "said"),
    [("missing", AGENT, "no vault at"), ("demo", "nobody", "no agent 'nobody' in this vault")],
)
def test_a_server_that_cannot_start_tells_its_client_why(
    demo_root: Path, tmp_path: Path, vault: str, agent: str, said: str
) -> None:
    """The reason reaches the MCP client as the error of its first request (which it shows
    its user), not as a closed connection; and stderr has it too."""
    root = demo_root if vault == "demo" else tmp_path / "missing"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vault_app", "--vault", str(root), "mcp", "--agent", agent],
        env=child_env(),
    )

    async def session() -> None:
        async with Client(params):
            pass

    with pytest.raises(Exception) as failed:
        asyncio.run(session())
    assert any(said in str(e) for e in leaves(failed.value)), repr(failed.value)


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]
