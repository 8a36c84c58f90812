"""MCP figures on the 200,000-fact benchmark vault, through `vault-app serve` as agents use it.

    .venv/bin/python benchmarks/bench_mcp.py [--vault PATH] [--semantic] [--queries N]
                                             [--clients N] [--inserts N] [--in-place]
                                             [--client-processes]

Starts `vault-app serve` as a subprocess (streamable HTTP on 127.0.0.1, a free port) and
talks to it with the SDK's own client, each client with its agent's bearer token. Prints,
with the issue's targets: the handshake (process start -> `initialize` answered, and a
whole client handshake on the running server); search over HTTP with N concurrent clients
once the index is loaded (p50, p95; with `--client-processes` also with each client in a
process of its own, as agents connect); an insert (p50); the same search through the CLI
(`vault-app search QUERY --json`, warm cache), as a ratio; and serve's memory from
/proc/PID/status: resident size (VmRSS) once the index (and with `--semantic` the vectors)
is loaded, and its peak (VmHWM).

The tools measured are MicroClaw's `memory_query` (op search) and `memory_upsert` (op
insert) when the server has them, else the vault's own `search` and `add_fact` (said in
the output). The vault is copied to a temporary folder first (tokens, inserts and the
audit log then land in the copy; the shared benchmark vault stays as it is) unless
`--in-place`. Without `--semantic` serve runs with `--bm25`: the vectors of 200,000 facts
are not cached in the benchmark vault, and embedding them all takes far longer than this
benchmark should.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from vault_app.core import tokens, vault  # noqa: E402
from vault_app.mcp import http  # noqa: E402

CHAT = 4242  # the MicroClaw chat the benchmark's clients talk in (an unmapped one)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def line(label: str, value: str, target: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("PASS" if ok else "FAIL")
    print(f"{label:<40}{value:<40}{target:<14}{verdict}".rstrip(), flush=True)


def ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid`, in MB."""
    out = {}
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = row.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) // 1024
    return out


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process `pid` has used so far, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_queries(root: Path, count: int, rng: random.Random) -> list[str]:
    """2-4 distinct words of a random fact of a random entity (as bench_search asks)."""
    v = vault.Vault(root)
    refs = v.entity_refs()
    texts = [f.fact for ref in rng.sample(refs, min(200, len(refs))) for f in v.entity(ref).facts]
    queries = []
    while len(queries) < count:
        words = sorted({w for w in re.findall(r"[a-z]{4,}", rng.choice(texts).lower())})
        size = rng.randint(2, 4)
        if len(words) >= size:
            queries.append(" ".join(rng.sample(words, size)))
    return queries


class Serve:
    """`vault-app serve --port 0` on `root`; its URL read from the announcement on stderr."""

    def __init__(self, root: Path, *options: str) -> None:
        self.started = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
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
                *options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stderr is not None
        self.log: list[str] = []
        for row in self.process.stderr:
            self.log.append(row)
            found = re.search(r"at (http://127\.0\.0\.1:\d+)/mcp", row)
            if found:
                self.base = found.group(1)
                break
        else:
            raise SystemExit("serve did not start:\n" + "".join(self.log))
        self.url = f"{self.base}/mcp"
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for row in self.process.stderr:
            self.log.append(row)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(60)


def client(url: str, token: str) -> Client:
    http_client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http_client))


async def call(c: Client, tool: str, arguments: dict[str, Any]) -> float:
    started = time.perf_counter()
    result = await c.call_tool(tool, arguments)
    elapsed = time.perf_counter() - started
    if result.is_error:
        raise SystemExit(f"{tool} failed: {result.content}")
    return elapsed


def search_call(tools: set[str], query: str) -> tuple[str, dict[str, Any]]:
    if "memory_query" in tools:
        # a chat's search runs over the agent's and the global facts (other chats' left out)
        return "memory_query", {"op": "search", "chat_id": CHAT, "query": query, "limit": 10}
    # the CLI's search marks nothing accessed either (the tool's default writes the hits)
    return "search", {"query": query, "limit": 10, "kinds": ["facts"], "mark_access": False}


def insert_call(tools: set[str], agent: str, i: int) -> tuple[str, dict[str, Any]]:
    text = f"Benchmark note {i}: the espresso machine was descaled on a Tuesday"
    if "memory_upsert" in tools:
        return "memory_upsert", {
            "op": "insert",
            "chat_id": CHAT,
            "content": text,
            "category": "KNOWLEDGE",
        }
    return "add_fact", {
        "entity": f"agent:{agent}:resources/bench-inserts",
        "text": text,
        "category": "context",
    }


async def first_initialize(url: str, token: str, started: float) -> float:
    """Seconds from `started` (the process launch) to an `initialize` answered."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }
    async with httpx2.AsyncClient(timeout=120) as http_client:
        while True:
            try:
                answer = await http_client.post(url, json=INITIALIZE, headers=headers)
                if answer.status_code == 200:
                    return time.perf_counter() - started
            except httpx2.TransportError:
                pass
            await asyncio.sleep(0.005)


async def wait_for_index(base: str, semantic: bool, timeout: float = 1800) -> tuple[str, float]:
    started = time.perf_counter()
    wanted = ("hybrid",) if semantic else ("bm25", "hybrid")
    async with httpx2.AsyncClient() as http_client:
        while time.perf_counter() - started < timeout:
            state = (await http_client.get(f"{base}/health")).json().get("search", "")
            if state in wanted or state.startswith("failed"):
                return state, time.perf_counter() - started
            await asyncio.sleep(0.1)
    return "timeout", timeout


def token_check(root: Path, token: str, rounds: int = 2000) -> None:
    """What verifying a request's token costs: `tokens.verify` (reads the tokens file) and
    the guard's `TokenCheck` (one stat while the file is unchanged)."""
    check = http.TokenCheck(root)
    timings = {}
    for name, verify in (
        ("verify", lambda: tokens.verify(root, token)),
        ("cached", lambda: check.agent(token)),
    ):
        started = time.perf_counter()
        for _ in range(rounds):
            verify()
        timings[name] = (time.perf_counter() - started) / rounds * 1e6
    line(
        "token check per request",
        f"verify {timings['verify']:.0f} µs, cached {timings['cached']:.0f} µs",
    )


def client_processes(
    work: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]],
) -> tuple[list[float], float]:
    """Each client in a process of its own, as agents connect (one process an agent): the
    clients start together once every one has made its untimed first call. Returns every
    call's seconds and the clients' CPU seconds."""
    context = multiprocessing.get_context("spawn")
    ready = context.Barrier(len(work))
    answers = context.Queue()
    children = [
        context.Process(target=client_process, args=(url, token, calls, ready, answers))
        for url, token, calls in work
    ]
    for child in children:
        child.start()
    results = [answers.get(timeout=600) for _ in children]
    for child in children:
        child.join(60)
    return [t for timings, _ in results for t in timings], sum(cpu for _, cpu in results)


def client_process(
    url: str,
    token: str,
    calls: list[tuple[str, dict[str, Any]]],
    ready: Any,
    answers: Any,
) -> None:
    async def run() -> list[float]:
        async with client(url, token) as c:
            await call(c, *calls[0])  # the session's first call, not timed
            await asyncio.to_thread(ready.wait)
            return [await call(c, *one) for one in calls]

    cpu = time.process_time()
    timings = asyncio.run(run())
    answers.put((timings, time.process_time() - cpu))


async def measure(args: argparse.Namespace, root: Path, agents: dict[str, str]) -> None:
    queries = make_queries(root, args.queries, random.Random(7))
    serve = Serve(root, *([] if args.semantic else ["--bm25"]))
    try:
        http_median = await measure_serve(args, serve, agents, queries)
    finally:
        if serve.process.poll() is None:
            serve.process.kill()
            serve.process.wait(60)
    await measure_cli(args, root, queries, http_median)


async def measure_serve(
    args: argparse.Namespace, serve: Serve, agents: dict[str, str], queries: list[str]
) -> float:
    names = list(agents)
    token = agents[names[0]]
    line(
        "serve start -> initialize answered",
        f"{await first_initialize(serve.url, token, serve.started):.2f} s",
        "≤ 1 s",
    )
    handshakes = []
    for _ in range(20):
        started = time.perf_counter()
        async with client(serve.url, token) as c:
            handshakes.append(time.perf_counter() - started)
    median, p95 = ms(handshakes)
    line(
        "handshake on a running server",
        f"median {median:.1f} ms, p95 {p95:.1f} ms",
        "≤ 1 s",
        median <= 1000,
    )

    async with client(serve.url, token) as c:
        tools = {t.name for t in (await c.list_tools()).tools}
    microclaw = "memory_query" in tools
    measured = (
        "memory_query / memory_upsert"
        if microclaw
        else "the vault's search / add_fact (memory_query / memory_upsert not merged yet)"
    )
    print(f"tools measured: {measured}")

    state, waited = await wait_for_index(serve.base, args.semantic)
    line("index loaded (search state)", f"{state} after {waited:.1f} s more")
    rss_loaded = proc_status(serve.process.pid)

    async def searcher(agent: str, mine: list[str]) -> list[float]:
        async with client(serve.url, agents[agent]) as c:
            await call(c, *search_call(tools, mine[0]))  # the session's first call, not timed
            return [await call(c, *search_call(tools, q)) for q in mine]

    per_client = [queries[i :: args.clients] for i in range(args.clients)]
    serve_cpu, client_cpu = cpu_seconds(serve.process.pid), time.process_time()
    results = await asyncio.gather(
        *(searcher(names[i % len(names)], mine) for i, mine in enumerate(per_client))
    )
    calls = len(queries) + args.clients
    serve_cpu = (cpu_seconds(serve.process.pid) - serve_cpu) / calls * 1000
    client_cpu = (time.process_time() - client_cpu) / calls * 1000
    timings = [t for r in results for t in r]
    label = f"{args.clients} clients (1 process)"
    http_median = report_search(label, timings, serve_cpu, client_cpu)
    if args.client_processes:
        work = [
            (serve.url, agents[names[i % len(names)]], [search_call(tools, q) for q in mine])
            for i, mine in enumerate(per_client)
        ]
        serve_cpu = cpu_seconds(serve.process.pid)
        timings, client_cpu = await asyncio.to_thread(client_processes, work)
        serve_cpu = (cpu_seconds(serve.process.pid) - serve_cpu) / calls * 1000
        client_cpu = client_cpu / calls * 1000
        report_search(f"{args.clients} client processes", timings, serve_cpu, client_cpu)

    async with client(serve.url, token) as c:
        inserts = [await call(c, *insert_call(tools, names[0], i)) for i in range(args.inserts)]
    median, p95 = ms(inserts)
    line("insert over HTTP", f"p50 {median:.1f} ms, p95 {p95:.1f} ms", "≤ 30 ms", median <= 30)

    status = proc_status(serve.process.pid)
    line(
        "serve VmRSS, index loaded",
        f"{rss_loaded['VmRSS']} MB",
        "≤ 600 MB",
        rss_loaded["VmRSS"] <= 600,
    )
    line("serve VmRSS after the runs", f"{status['VmRSS']} MB")
    line("serve peak (VmHWM)", f"{status['VmHWM']} MB")
    started = time.perf_counter()
    code = serve.stop()
    line("SIGTERM -> exit", f"status {code} in {time.perf_counter() - started:.2f} s")
    return http_median


def report_search(clients: str, timings: list[float], serve_cpu: float, client_cpu: float) -> float:
    """Print a search run's p50 and p95 against the targets and its CPU a call (ms);
    returns the p50."""
    median, p95 = ms(timings)
    line(
        f"search over HTTP, {clients}",
        f"p50 {median:.1f} ms, p95 {p95:.1f} ms",
        "≤ 40 / 100 ms",
        median <= 40 and p95 <= 100,
    )
    line("  CPU per search call", f"serve {serve_cpu:.1f} ms, clients {client_cpu:.1f} ms")
    return median


async def measure_cli(
    args: argparse.Namespace, root: Path, queries: list[str], http_median: float
) -> None:
    cli = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    mode = [] if args.semantic else ["--mode", "bm25"]
    for query in [queries[0], *queries[: args.cli_runs]]:  # the first run warms the cache
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "vault_app",
                "--vault",
                str(root),
                "search",
                query,
                "--json",
                "--limit",
                "10",
                *mode,
            ],
            check=True,
            capture_output=True,
            env=env,
        )
        cli.append(time.perf_counter() - started)
    if len(cli) < 2:
        return  # --cli-runs 0 or 1: the first run only warms the cache
    cli_median = statistics.median(cli[1:]) * 1000
    line(
        "the same search through the CLI",
        f"median {cli_median:.0f} ms = {cli_median / http_median:.0f}x the HTTP p50",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "bench-vaults" / "v10000x20-s1")
    parser.add_argument("--semantic", action="store_true", help="load the vectors too")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--inserts", type=int, default=50)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument(
        "--client-processes",
        action="store_true",
        help="also measure the search with each client in a process of its own",
    )
    parser.add_argument(
        "--in-place", action="store_true", help="use the vault itself, not a copy (it is written)"
    )
    args = parser.parse_args()
    if not args.vault.is_dir():
        raise SystemExit(f"no vault at {args.vault}: make it with benchmarks/make_vault.py")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as scratch:
        root = args.vault
        if not args.in_place:
            started = time.perf_counter()
            root = Path(scratch) / args.vault.name
            shutil.copytree(args.vault, root, symlinks=True)
            print(f"vault copied to {root} in {time.perf_counter() - started:.1f} s")
        v = vault.Vault(root, actor="bench")
        agents = {a.id: tokens.issue(v, a.id) for a in v.agents()}
        if not agents:
            v.create_agent("bench")
            agents = {"bench": tokens.issue(v, "bench")}
        token_check(root, next(iter(agents.values())))
        asyncio.run(measure(args, root, agents))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
