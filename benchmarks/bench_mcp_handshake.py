"""Print how fast `vault-app mcp` answers over stdio: process start to the initialize
answer, to the tools/list answer, and to a first search (the index open), with the
round-trip of pings sent while the index loads (does the load hold the interpreter?).

    python benchmarks/bench_mcp_handshake.py                      # the demo vault
    python benchmarks/bench_mcp_handshake.py --vault PATH --agent finance
    python benchmarks/bench_mcp_handshake.py --vault PATH --agent finance --semantic

The client speaks JSON-RPC lines on the child's stdin/stdout itself, so the figures are
the server's, not a client library's. A `--vault` is copied to a temporary folder first
(`cp -a`: the engine writes its index cache under `.vault/`) unless `--in-place`. Each
figure is the median of `--runs` fresh processes. `measure()` is what other benchmarks
(benchmarks/bench_mcp.py) call for the handshake part.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PROTOCOL = "2025-06-18"


class Child:
    """A `vault-app mcp` process and a line-by-line JSON-RPC conversation with it."""

    def __init__(self, root: Path, agent: str, semantic: bool) -> None:
        env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
        env["HF_HUB_OFFLINE"] = "1"
        env["PYTHONPATH"] = str(REPO)
        args = [sys.executable, "-m", "vault_app", "--vault", str(root), "mcp", "--agent", agent]
        if not semantic:
            args.append("--bm25")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=REPO,  # `-m` puts the working folder first on the path: measure REPO's code
        )
        self.next_id = 0
        self.buffer = b""
        self.answers: dict[int, dict[str, Any]] = {}  # read while waiting for another
        self.selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
    ) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            message["id"] = self.next_id
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        return self.next_id

    def answer(self, request_id: int, timeout: float = 600.0) -> dict[str, Any]:
        """Read lines until the answer to `request_id` (notifications are skipped)."""
        deadline = time.perf_counter() + timeout
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            self._parse()
            if request_id in self.answers:
                return self.answers.pop(request_id)
            if not self.selector.select(max(0.0, deadline - time.perf_counter())):
                raise TimeoutError(f"no answer to request {request_id}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError("the server closed its stdout")
            self.buffer += chunk

    def _parse(self) -> None:
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            message = json.loads(line)
            if "id" in message and "method" not in message:
                self.answers[message["id"]] = message

    def answered(self, request_id: int) -> bool:
        self._parse()
        return request_id in self.answers

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.answer(self.send(method, params))

    def since_start(self) -> float:
        return time.perf_counter() - self.started

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def one_run(root: Path, agent: str, semantic: bool, query: str) -> dict[str, Any]:
    child = Child(root, agent, semantic)
    try:
        init = child.call(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench_mcp_handshake", "version": "1"},
            },
        )
        assert "result" in init, init
        initialized = child.since_start()
        child.send("notifications/initialized", notify=True)
        tools = child.call("tools/list")
        assert tools["result"]["tools"], tools
        listed = child.since_start()
        # pings while the index opens: sent one after another while a search waits for it
        search_id = child.send(
            "tools/call", {"name": "search", "arguments": {"query": query, "limit": 3}}
        )
        pings: list[float] = []
        searched = None
        while searched is None:
            sent = time.perf_counter()
            ping_id = child.send("ping")
            child.answer(ping_id)
            pings.append(time.perf_counter() - sent)
            if child.answered(search_id):  # it came while we waited for the ping
                found = child.answer(search_id)
                assert "result" in found and not found["result"].get("isError"), found
                searched = child.since_start()
            else:
                time.sleep(0.005)
        return {
            "initialize": initialized,
            "tools_list": listed,
            "first_search": searched,
            "ping_max": max(pings),
            "ping_p50": statistics.median(pings),
            "pings": len(pings),
        }
    finally:
        child.close()


def measure(
    root: Path, agent: str, *, semantic: bool = False, runs: int = 3, query: str = "delivery"
) -> dict[str, float]:
    """Median figures (seconds) of `runs` fresh `vault-app mcp` processes on `root`."""
    results = [one_run(root, agent, semantic, query) for _ in range(runs)]
    return {
        key: statistics.median(r[key] for r in results)
        for key in ("initialize", "tools_list", "first_search", "ping_max", "ping_p50")
    }


def import_floor(runs: int) -> dict[str, float]:
    """What no server change can save: a bare interpreter, and one that imports the MCP
    SDK's server (which imports its client and both protocol versions' types too)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    floors = {}
    for label, code in (
        ("interpreter", "pass"),
        ("sdk", "import mcp.server.mcpserver"),
        ("cli+sdk", "import vault_app.cli, mcp.server.mcpserver"),
    ):
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, check=True)
            times.append(time.perf_counter() - started)
        floors[label] = statistics.median(times)
    return floors


def demo_vault(where: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from vault_app.core import demo

    root = where / "demo"
    demo.create_demo(root)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, help="a vault (default: a fresh demo vault)")
    parser.add_argument("--agent", default="finance")
    parser.add_argument("--semantic", action="store_true", help="load the model too")
    parser.add_argument("--in-place", action="store_true", help="do not copy --vault")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--query", default="delivery")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        if args.vault is None:
            root, label = demo_vault(Path(tmp)), "demo vault"
        elif args.in_place:
            root, label = args.vault, str(args.vault)
        else:
            root, label = Path(tmp) / "vault", f"{args.vault} (a copy)"
            subprocess.run(["cp", "-a", str(args.vault), str(root)], check=True)
        # a first process builds or refreshes the index cache; the runs measure warm starts
        one_run(root, args.agent, args.semantic, args.query)
        figures = measure(
            root, args.agent, semantic=args.semantic, runs=args.runs, query=args.query
        )
    floor = import_floor(args.runs)
    mode = "semantic" if args.semantic else "bm25"
    print(f"vault-app mcp over stdio, {label}, agent {args.agent}, {mode}, median of {args.runs}")
    print(f"  process start -> initialize answered  {figures['initialize'] * 1000:8.0f} ms")
    print(f"  process start -> tools/list answered  {figures['tools_list'] * 1000:8.0f} ms")
    print(f"  process start -> first search answered {figures['first_search'] * 1000:7.0f} ms")
    print(
        f"  ping round-trip while the index opens: p50 {figures['ping_p50'] * 1000:.1f} ms, "
        f"max {figures['ping_max'] * 1000:.1f} ms"
    )
    print(
        f"  for comparison, a process that only starts: {floor['interpreter'] * 1000:.0f} ms; "
        f"imports the SDK's server: {floor['sdk'] * 1000:.0f} ms; "
        f"the CLI and the SDK: {floor['cli+sdk'] * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
