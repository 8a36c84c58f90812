"""The MCP server over streamable HTTP (`vault-app serve`): the SDK's `/mcp` endpoint behind
a guard that knows which agent is calling, and refuses whatever it should not serve.

Every HTTP request passes `RequestGuard`, an ASGI middleware around the SDK's Starlette app,
in this order:

1. Host (421): the `Host` header must name this server - a loopback name with our port, the
   bound address, or one the owner allowed. A web page that rebinds its own DNS name to
   127.0.0.1 sends its own name as Host, and is refused here (DNS rebinding).
2. Origin (403): absent is fine (non-browser clients send none); present, it must be one of
   this server's own loopback origins or one the owner allowed, as the MCP specification
   asks. The comparison is exact, port included (no prefix matching).
3. Bearer token (401 with `WWW-Authenticate: Bearer`), on loopback too - other local users
   and rebinding pages reach loopback: `Authorization: Bearer <token>`, checked with
   `core.tokens.verify`. `/health` alone needs no token (it shows no vault data).
4. Session (403): an MCP session belongs to the agent that opened it; another agent's token
   cannot ride on its session id (a session id the guard never saw opened: 404, the
   answer that makes a client start a new session).
5. Sessions per agent (429): an agent holds at most `[quotas] sessions` open sessions
   (`core.quotas`); one more is refused with the limit named, so that a token that opens
   thousands exhausts only its own share, never the SDK's table every agent shares (its
   10,000 sessions, each kept 30 minutes idle). A session counts while the SDK keeps it
   (`live`: closed by DELETE or its idle timeout, it stops counting).

The agent the token belongs to is put in the request's ASGI scope (`AGENT_SCOPE_KEY`); the
SDK hands tools that request (`ctx.request_context.request`), and `agent_of(ctx)` reads it
from there. Identity never comes from a header a client could set: `ctx.headers` is the
client's word, the scope entry is the guard's.

A token is verified once per request. `tokens.verify` reads `.vault/agent-tokens.json`;
`TokenCheck` remembers each answer together with the file's identity (inode, size,
mtime), so a request costs one `stat`, and a rotation or revocation - an atomic rewrite,
hence a new inode - is seen by the very next request.

`create_app(runtime, *, host, port)` composes the vault's server (`mcp.server.build_server`)
with the guard; `secure_app` is the same for any `MCPServer` (tests use a small one). The
app's lifespan runs the SDK's session manager, then each `BackgroundService` given
(the heartbeat's scheduler joins here), and stops them in reverse order.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import ipaddress
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vault_app.core import config, errors, tokens

if TYPE_CHECKING:
    from vault_app.workspace import folder_workspace, vault_workspace

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
HEALTH_PATH = "/health"
# where the guard leaves the verified agent id, in the request's ASGI scope
AGENT_SCOPE_KEY = "vault_app.agent"
SESSION_HEADER = "mcp-session-id"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# sessions remembered for the session-owner check (ended ones are only forgotten when the
# client says so, DELETE, or the oldest once the list is full): well above the SDK's cap
# of live sessions (10,000), so a live one is not forgotten
MAX_TRACKED_SESSIONS = 50_000
MAX_CACHED_TOKENS = 1_024

# A service that lives as long as the server: entered when the app starts, left when it
# stops (e.g. the heartbeat's scheduler).
BackgroundService = Callable[[], contextlib.AbstractAsyncContextManager[None]]
INDEX_IDLE_START = 2.0  # seconds after start that the index opens when no client came


class HTTPAgentUnknownError(RuntimeError):
    """A tool ran on a request the guard did not authenticate (a wiring bug, not a client's)."""


def agent_of(ctx: Context[Any, Any]) -> str:
    """The agent of the request a tool serves: the one whose token the guard verified."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None)
    agent = scope.get(AGENT_SCOPE_KEY) if isinstance(scope, dict) else None
    if not isinstance(agent, str):
        raise HTTPAgentUnknownError("this request carries no verified agent")
    return agent


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address, IPv6 with or without brackets) is loopback."""
    bare = host.strip("[]")
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def _host_literal(host: str) -> str:
    """`host` as it appears in a Host header or URL: an IPv6 address in brackets."""
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else bare.lower()


def _names(host: str) -> set[str]:
    """The names this server goes by: loopback names and the bound address (not a wildcard
    one: 0.0.0.0 names no host), as written in a Host header."""
    names = set(LOOPBACK_NAMES)
    if host.strip("[]") not in ("0.0.0.0", "::"):
        names.add(_host_literal(host))
    return names


def allowed_hosts(host: str, port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host header values this server answers: its names with our port, and `extra`."""
    names = _names(host)
    values = {f"{name}:{port}" for name in names}
    if port == 80:  # a client leaves the default port out of Host
        values |= names
    return frozenset(values | {h.lower() for h in extra})


def allowed_origins(host: str, port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Origin header values accepted: this server's own http origins, and `extra`."""
    own = {f"http://{name}:{port}" for name in _names(host)}
    return frozenset(own | {o.lower().rstrip("/") for o in extra})


class TokenCheck:
    """`tokens.verify` answers, remembered per token while the tokens file is unchanged."""

    def __init__(self, root: Path | tokens.Table) -> None:
        self.table = tokens.table_of(root)  # a vault's folder, or a neighbour's table
        self.path = self.table.path
        self._answers: collections.OrderedDict[bytes, tuple[object, str | None]] = (
            collections.OrderedDict()
        )

    def _file_identity(self) -> object:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_dev)

    def agent(self, token: str) -> str | None:
        """The agent `token` belongs to, or None."""
        identity = self._file_identity()
        key = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        cached = self._answers.get(key)
        if cached is not None and cached[0] == identity:
            self._answers.move_to_end(key)
            return cached[1]
        # the identity is taken before the read: a rewrite in between only costs a re-read
        try:
            agent = tokens.verify(self.table, token)
        except errors.VaultError as exc:  # a damaged tokens file lets nobody in
            log.error("cannot check tokens: %s", exc)
            return None
        self._answers[key] = (identity, agent)
        if len(self._answers) > MAX_CACHED_TOKENS:
            self._answers.popitem(last=False)
        return agent


def bearer_token(headers: dict[str, str]) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, else None."""
    value = headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


class RequestGuard:
    """ASGI middleware: Host, Origin, bearer token and session owner, as the module says."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        check: TokenCheck,
        hosts: frozenset[str],
        origins: frozenset[str],
        open_paths: frozenset[str] = frozenset({HEALTH_PATH}),
        sessions: int = config.QuotaSettings().sessions,
        live: Callable[[str], bool] = lambda session: True,
    ) -> None:
        self.app = app
        self.check = check
        self.hosts = hosts
        self.origins = origins
        self.open_paths = open_paths
        self.session_agents: collections.OrderedDict[str, str] = collections.OrderedDict()
        self.sessions, self.live = sessions, live
        self.agent_sessions: dict[str, set[str]] = collections.defaultdict(set)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, self._session_recorder(scope, headers, send))

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        if headers.get("host", "").lower() not in self.hosts:
            log.warning("refused a request for host %r", headers.get("host"))
            return _error(421, "misdirected_request", "this server does not answer that Host")
        origin = headers.get("origin")
        if origin is not None and origin.lower().rstrip("/") not in self.origins:
            log.warning("refused a request from origin %r", origin)
            return _error(403, "forbidden_origin", f"origin {origin!r} is not allowed")
        if scope["path"] in self.open_paths:
            return None
        token = bearer_token(headers)
        if token is None:
            return _unauthorized(
                "invalid_request", "an Authorization: Bearer <token> header is required"
            )
        agent = self.check.agent(token)
        if agent is None:
            return _unauthorized("invalid_token", "the token is unknown, rotated or revoked")
        session = headers.get(SESSION_HEADER)
        owner = self.session_agents.get(session) if session is not None else None
        if session is not None and owner is None:  # fail closed: the client re-initializes
            return _error(404, "session_not_found", "no such session: initialize a new one")
        if owner is not None and owner != agent:
            log.warning("agent %r tried the session of agent %r", agent, owner)
            return _error(403, "forbidden_session", "this session belongs to another agent")
        if session is None and scope["method"] == "POST" and self._sessions_full(agent):
            log.warning("agent %r holds %d sessions: one more refused", agent, self.sessions)
            return _error(
                429,
                "too_many_sessions",
                f"agent {agent!r} holds {self.sessions} open sessions, the quota ([quotas] "
                "sessions in .vault/config.toml): reuse one, or end one (DELETE) first",
            )
        scope[AGENT_SCOPE_KEY] = agent
        return None

    def _sessions_full(self, agent: str) -> bool:
        """Whether `agent` holds its quota of sessions the SDK still keeps."""
        held = self.agent_sessions[agent]
        held.intersection_update({s for s in held if self.live(s)})
        return len(held) >= self.sessions

    def _session_recorder(self, scope: Scope, headers: dict[str, str], send: Send) -> Send:
        """`send`, noting which agent a session the response opens belongs to."""
        if headers.get(SESSION_HEADER) is not None:
            if scope["method"] == "DELETE":
                ended = headers[SESSION_HEADER]
                agent = self.session_agents.pop(ended, None)
                if agent is not None:
                    self.agent_sessions[agent].discard(ended)
            return send
        agent = scope.get(AGENT_SCOPE_KEY)

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start" and isinstance(agent, str):
                for key, value in message.get("headers", ()):
                    if key.decode("latin-1").lower() == SESSION_HEADER:
                        self.session_agents[value.decode("latin-1")] = agent
                        self.agent_sessions[agent].add(value.decode("latin-1"))
                        if len(self.session_agents) > MAX_TRACKED_SESSIONS:
                            self.session_agents.popitem(last=False)
            await send(message)

        return recording_send


def _error(status: int, code: str, message: str, **headers: str) -> Response:
    return JSONResponse({"error": code, "error_description": message}, status, headers=headers)


def _unauthorized(code: str, message: str) -> Response:
    challenge = f'Bearer realm="vault-app", error="{code}", error_description="{message}"'
    return _error(401, code, message, **{"WWW-Authenticate": challenge})


def secure_app(
    server: MCPServer,
    root: Path | tokens.Table,
    *,
    host: str,
    port: int,
    extra_origins: Sequence[str] = (),
    extra_hosts: Sequence[str] = (),
    health: Callable[[], dict[str, Any]] = lambda: {},
    services: Sequence[BackgroundService] = (),
    sessions: int = config.QuotaSettings().sessions,
) -> Starlette:
    """`server`'s streamable-HTTP app at `/mcp` behind `RequestGuard` (tokens of the vault
    at `root`, or of a neighbour's folder: its `tokens.Table`), with `/health`, its
    lifespan running the session manager and `services`."""
    hosts = allowed_hosts(host, port, extra_hosts)
    origins = allowed_origins(host, port, extra_origins)
    # the SDK checks Host and Origin again with the same exact lists (no wildcards)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(hosts),
        allowed_origins=sorted(origins),
    )
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security,
        host=host,
        # each answer as one application/json body rather than an SSE stream: the tools
        # send no notifications mid-call, and a call costs the server 1 ms less and the
        # client a round of stream handling (8 -> 4 ms a call on the demo vault)
        json_response=True,
    )
    manager = server.session_manager

    async def health_route(request: Request) -> Response:
        return JSONResponse({"status": "ok", **health()})

    app.router.routes.append(Route(HEALTH_PATH, health_route, methods=["GET"]))

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(manager.run())
            for service in services:
                await stack.enter_async_context(service())
            yield

    app.router.lifespan_context = lifespan
    app.add_middleware(
        RequestGuard,
        check=TokenCheck(root),
        hosts=hosts,
        origins=origins,
        sessions=sessions,
        # the SDK's own table of the sessions it keeps (one closed, or idle past its
        # timeout, is gone); the session-flood test in tests/mcp/test_mcp_http.py reads it
        live=lambda session: session in manager._server_instances,
    )
    return app


def create_app(
    runtime: vault_workspace.VaultWorkspace | folder_workspace.FolderWorkspace,
    *,
    host: str,
    port: int,
    extra_origins: Sequence[str] = (),
    extra_hosts: Sequence[str] = (),
    services: Sequence[BackgroundService] = (),
) -> Starlette:
    """The vault's MCP server (`build_server(runtime, agent_of)`) over streamable HTTP.

    The index opens once the first client is through its handshake, or `INDEX_IDLE_START`
    seconds after the server starts if none comes: a cold client's handshake does not
    wait for the load, and an idle server is warm soon anyway."""
    from vault_app.mcp import server as server_mod

    built = server_mod.build_server(runtime, agent_of)
    server_mod.start_index_after_handshake(built, runtime)

    @contextlib.asynccontextmanager
    async def start_when_idle() -> AsyncIterator[None]:
        timer = asyncio.get_running_loop().call_later(INDEX_IDLE_START, runtime.start)
        try:
            yield
        finally:
            timer.cancel()

    # a neighbour's folder: its agents' tokens are kept in vault-app's state folder for it
    table = runtime.token_table if server_mod.serves_a_folder(runtime) else runtime.root
    return secure_app(
        built,
        table,
        host=host,
        port=port,
        extra_origins=extra_origins,
        extra_hosts=extra_hosts,
        # the state's word only: a failure's reason may name paths on the server
        health=lambda: {"search": runtime.search_state.split(":")[0]},
        services=[start_when_idle, *services],
        sessions=runtime.quotas.sessions,
    )
