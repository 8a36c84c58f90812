"""`serve`: the vault's MCP server over streamable HTTP (`http://HOST:PORT/mcp`) for agents,
each with its own bearer token (`vault-app agent token ID`), until Ctrl+C or SIGTERM.

The process owner: it tunes the process for bulk loads (`process_tuning.tune_process`),
configures logging (stderr only), has the workspace load in the background (BM25, then the semantic
model) once the first client is through its handshake or two seconds after the start,
whichever comes first (search says when it ran on BM25 only), binds the socket
itself - so `--port 0` works and the address the app checks Host and Origin against is the
real one - and runs uvicorn on it. SIGINT and SIGTERM stop it cleanly, exit status 0.

It binds 127.0.0.1 unless told otherwise, and warns on stderr when told to listen on an
address other machines reach. Services that live as long as the server (the heartbeat's
scheduler) are listed by `background_services` and run in the app's lifespan. It also
answers the CLI's searches for the same vault from its open index (`serve_link`), on a
socket only this user can open.

In a neighbour's folder (a Hermes home, a PicoClaw workspace, a MicroClaw runtime) it
serves the folder as it is (`workspace.FolderWorkspace`), each agent of the folder with its
token (`vault-app --vault FOLDER agent token ID`, kept in vault-app's state folder for
that folder), without the heartbeat (which works on a vault's facts).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import socket
import sys
from typing import TYPE_CHECKING

from vault_app.cli import declaring, opening, process_end, serve_link
from vault_app.core import errors

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from types import FrameType

    import uvicorn

    from vault_app.mcp import http
    from vault_app.workspace import vault_workspace

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def register(commands: declaring.Commands) -> None:
    p = commands.command(
        "serve", cmd_serve, "serve the vault to agents over MCP (streamable HTTP at /mcp)"
    )
    p.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})"
    )
    p.add_argument(
        "--port",
        type=declaring.whole(0, 65535),
        default=DEFAULT_PORT,
        help=f"port to listen on; 0 picks a free one (default {DEFAULT_PORT})",
    )
    p.add_argument("--bm25", action="store_true", help="do not load the semantic model")
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser origin allowed to call the server besides its own, e.g. "
        "http://localhost:6274 (repeatable)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="a Host header value to answer besides this server's own names, e.g. "
        "myhost.lan:8765 (repeatable; needed when listening on 0.0.0.0)",
    )


def background_services(rt: vault_workspace.VaultWorkspace) -> list[http.BackgroundService]:
    """What runs beside the MCP endpoint for as long as the server does: the heartbeat's
    runner (`heartbeat.runner`), ticking every 30 s from `HEARTBEAT_FIRST_TICK` seconds
    after the start (a client's first handshake and the index's load come first) - the
    heartbeat every `[heartbeat] interval_minutes`, the weekly synthesis on schedule,
    while this process holds the vault's lease (the app or a cron run holding it: this
    one waits its turn). Dedup compares by cosine once the runtime's model is loaded.
    SIGTERM ends a heartbeat in progress after its current entry, all of it saved."""
    from vault_app.heartbeat import runner

    return [
        runner.serve_service(
            rt.root,
            runner="serve",
            clock=rt.clock,
            first_after=HEARTBEAT_FIRST_TICK,
            embed=rt.heartbeat_embed,
        )
    ]


HEARTBEAT_FIRST_TICK = 3.0  # seconds after the start


TRIM_EVERY = 10.0  # seconds between two `process_tuning.release()` of a serving process


@contextlib.asynccontextmanager
async def _give_back_memory() -> AsyncIterator[None]:
    """Every `TRIM_EVERY` seconds, give the C heap's free pages back to the system
    (`process_tuning.release`, 0.2 ms): a resident server's size is then what it holds, not
    the high-water mark of its busiest moment (90 MB more after 200 searches and 50
    inserts from 4 clients on the 200,000-fact vault)."""
    import asyncio

    from vault_app.core import process_tuning

    async def trim() -> None:
        while True:
            await asyncio.sleep(TRIM_EVERY)
            process_tuning.release()

    task = asyncio.get_running_loop().create_task(trim())
    try:
        yield
    finally:
        task.cancel()


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve until SIGINT or SIGTERM (exit status 0)."""
    import uvicorn

    from vault_app import workspace
    from vault_app.core import process_tuning
    from vault_app.mcp import http
    from vault_app.watch import quiet
    from vault_app.workspace import vault_workspace

    root = opening.resolve_vault_path(args.vault)
    rt = workspace.open_workspace(
        root, semantic=False if args.bm25 else None, clock=opening.clock_of(args)
    )
    if getattr(args, "owns_process", False):
        process_tuning.tune_process()
        process_tuning.limit_arenas()
        quiet.quiet_benign_warnings()  # the runtime's watcher; the process is ours
        logging.basicConfig(
            stream=sys.stderr,
            level=logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    sock = _listen(args.host, args.port)
    host, port = args.host, sock.getsockname()[1]
    if not http.is_loopback(host):
        print(
            f"vault-app: warning: listening on {host}, which other machines can reach: "
            "every request needs an agent's token, but plain HTTP is readable on the way "
            "(put TLS in front); clients must name it as Host, or be allowed by --allow-host",
            file=sys.stderr,
        )
    services: list[http.BackgroundService] = [_give_back_memory]
    link = None
    if isinstance(rt, vault_workspace.VaultWorkspace):  # a folder has no heartbeat
        services = [*background_services(rt), _give_back_memory]
        link = serve_link.Listener(rt)  # the CLI's searches, answered from this index
        if not link.start():
            link = None
    try:
        app = http.create_app(
            rt,
            host=host,
            port=port,
            extra_origins=args.allow_origin,
            extra_hosts=args.allow_host,
            services=services,
        )
        server = _uvicorn_server(
            uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
        )
        url_host = f"[{host.strip('[]')}]" if ":" in host else host
        print(
            f"vault-app: serving {root} at http://{url_host}:{port}/mcp",
            file=sys.stderr,
            flush=True,
        )
        server.run(sockets=[sock])
    finally:
        if link is not None:
            link.close()
        sock.close()
        rt.close()
    if getattr(args, "owns_process", False):
        process_end.end_server_process(0)
    return 0


def _uvicorn_server(config: uvicorn.Config) -> uvicorn.Server:
    """uvicorn's server, ending with exit status 0 on SIGINT/SIGTERM: uvicorn's own handler
    raises the signal again once it has shut down, which would end the process by it."""
    import signal

    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.should_exit and sig == signal.SIGINT:  # a second Ctrl+C: do not wait
                self.force_exit = True
            self.should_exit = True

    return Server(config)


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`, or a precise error."""
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise errors.VaultError(f"cannot listen on {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise errors.VaultError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock
