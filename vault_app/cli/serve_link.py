"""A running `serve` answers the CLI's searches: the CLI as a thin client.

An agent that shells out (`vault-app --vault ~/memory search "…" --json` from a coding
agent's terminal) would pay for opening the vault and its index at every call (2-3 s on
a 200,000-fact vault), where `serve` holds them open. So `serve` also listens on a local
socket (`listen`), and the CLI's `main` first offers a `search` to it (`forward`):

* **Who may connect.** The socket is a Unix domain socket in the user's runtime folder
  (`socket_path`: a folder of mode 0700, the socket 0600), so only the user who could open
  the vault's files directly can ask; a request is answered by the same code, with the
  same access rules (`--agent`'s scope and marks, through the workspace), as a local run.
  Where there are no Unix sockets (Windows), nothing listens and the CLI opens the vault
  itself.
* **What is forwarded.** `search` with `--vault PATH` (or `$VAULT_APP_VAULT`), without
  `--queries` (a file or stdin the server cannot read), `--now` or `--actor` (a clock or
  an identity of the caller's own). The server answers only a request whose vault is its
  own and that runs without error; anything else (a usage error, a refused scope, a mode
  the server cannot give yet because its model is still loading) is declined, and the CLI
  runs the command itself, so that the output, errors included, is the same either way.
* **Cost.** The client side imports the standard library only, and only for a command
  it may forward (`socket`, `json`, `hashlib`): a forwarded search costs the
  interpreter's start and a round trip
  (`benchmarks/bench_cli_thin.py` prints it beside the cold figure).

The protocol is one JSON line each way: `{"argv": [...], "cwd": "..."}`, then
`{"status": "ok", "exit": 0, "stdout": "...", "stderr": "..."}` or
`{"status": "declined", "why": "..."}`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket
    import threading

    from vault_app.workspace.vault_workspace import VaultWorkspace

FORWARDED = frozenset({"search"})  # the commands a running serve answers
LOCAL_ONLY = frozenset({"--queries", "--now", "--actor", "-h", "--help"})
CONNECT_WAIT = 2.0  # seconds to reach the server: beyond, the CLI runs the command itself
ANSWER_WAIT = 15.0  # seconds for its answer (ready, it takes milliseconds; a server that
# takes longer is busy or stuck: the CLI runs the command itself rather than wait on it)
MAX_REQUEST = 1 << 20  # bytes of one request line


def socket_path(vault: Path | str) -> Path | None:
    """Where `serve` for `vault` listens: the user's runtime folder (or a folder of the
    user's own in the temp folder), named by a digest of the vault's real path. None
    where there are no Unix sockets."""
    import hashlib
    import socket
    import tempfile

    if not hasattr(socket, "AF_UNIX"):
        return None
    real = os.path.realpath(os.fsencode(Path(vault).expanduser()))
    name = hashlib.sha256(real).hexdigest()[:24] + ".sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path(tempfile.gettempdir())
    return base / f"vault-app-{os.getuid()}" / name


# -- the client: no import beyond the standard library --------------------------------------


def forward(argv: Sequence[str] | None = None) -> int | None:
    """Run the command of `argv` (the program's, by default) on a running `serve`; its
    exit status, or None when it is not forwarded (then run it here)."""
    args = list(sys.argv[1:] if argv is None else argv)
    request = _forwardable(args)
    if request is None:
        return None
    path = socket_path(request)
    if path is None or not path.exists():
        return None
    try:
        answer = _ask(path, {"argv": args, "cwd": os.getcwd()})
    except (OSError, ValueError):
        return None  # no server, a stale socket, a server that went away: run it here
    if answer.get("status") != "ok":
        return None
    sys.stdout.write(answer.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(answer.get("stderr", ""))
    return int(answer.get("exit", 1))


def _forwardable(args: list[str]) -> str | None:
    """The vault a forwardable command names, or None (see the module docstring)."""
    if any(a.split("=", 1)[0] in LOCAL_ONLY for a in args):
        return None
    vault = os.environ.get("VAULT_APP_VAULT") or None
    command = None
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--vault" and i + 1 < len(args):
            vault, i = args[i + 1], i + 2
            continue
        if word.startswith("--vault="):
            vault = word.split("=", 1)[1]
        elif command is None and not word.startswith("-"):
            command = word
        i += 1
    if command not in FORWARDED or not vault:
        return None
    return os.path.join(os.getcwd(), os.path.expanduser(vault))


def _ask(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    import json
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(CONNECT_WAIT)
        conn.connect(str(path))
        conn.settimeout(ANSWER_WAIT)
        conn.sendall(json.dumps(request).encode("utf-8", "surrogateescape") + b"\n")
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
    answer = json.loads(b"".join(chunks))
    if not isinstance(answer, dict):
        raise ValueError("not an answer")
    return answer


# -- the server: inside `serve` ---------------------------------------------------------------


class Listener:
    """`serve`'s side (see the module docstring): answers forwarded commands from its
    open workspace, one thread a connection, until `close`."""

    def __init__(self, workspace: VaultWorkspace) -> None:
        self.workspace = workspace
        self.path = socket_path(workspace.root)
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        """Listen; False where it cannot (no Unix sockets, a folder it cannot make, a
        live server for the same vault already there)."""
        import socket
        import threading

        if self.path is None:
            return False
        folder = self.path.parent
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
                return False  # not a folder only this user reaches: listen nowhere
            if self.path.exists():
                try:
                    _ask(self.path, {"argv": [], "cwd": "/"})
                    return False  # another serve answers for this vault
                except (OSError, ValueError):
                    self.path.unlink()  # left by a server that ended
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)
            try:
                server.bind(str(self.path))
            finally:
                os.umask(old)
            server.listen(16)
        except OSError:
            return False
        self._server = server
        self._thread = threading.Thread(target=self._serve, name="vault-app-cli-link")
        self._thread.daemon = True
        self._thread.start()
        return True

    def _serve(self) -> None:
        import threading

        server = self._server
        while server is not None:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        import contextlib
        import json

        with conn:
            try:
                conn.settimeout(30)
                data = b""
                while len(data) <= MAX_REQUEST and (chunk := conn.recv(1 << 16)):
                    data += chunk
                request = json.loads(data)
                answer = self.run(request["argv"], request["cwd"])
            except Exception as exc:  # a bad request: declined, the client runs it itself
                answer = {"status": "declined", "why": f"{type(exc).__name__}: {exc}"}
            with contextlib.suppress(OSError):  # the client went away
                conn.sendall(json.dumps(answer).encode("utf-8", "surrogateescape"))

    def run(self, argv: list[str], cwd: str) -> dict[str, Any]:
        """The answer to one forwarded command, or a refusal (see the module docstring)."""
        import io

        from vault_app.cli import program, search

        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            return {"status": "declined", "why": "no command"}
        try:
            args = program.build_parser().parse_args(argv)
        except SystemExit:
            return {"status": "declined", "why": "not a command line"}
        if getattr(args, "handler", None) is not search.cmd_search or _forwardable(argv) is None:
            return {"status": "declined", "why": "not a forwarded command"}
        vault = Path(cwd, os.path.expanduser(getattr(args, "vault", "") or "."))
        if not vault.is_dir() or not vault.samefile(self.workspace.root):
            return {"status": "declined", "why": "another vault"}
        for name, default in (("json", False), ("actor", None), ("now", None)):
            if not hasattr(args, name):
                setattr(args, name, default)
        out, err = io.StringIO(), io.StringIO()
        try:
            code = search.answer_search(args, self.workspace, out, err, ready_only=True)
        except Exception as exc:  # refused, or not ready: the client says it in its own words
            return {"status": "declined", "why": f"{type(exc).__name__}: {exc}"}
        if code is None:
            return {"status": "declined", "why": "the semantic side is still loading"}
        return {"status": "ok", "exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        if self.path is not None:
            try:
                self.path.unlink()
            except OSError:  # gone already
                return
