"""Errors instead of tracebacks: every failure of `vault-app` is one `vault-app: error:` line.

Real `python -m vault_app` processes on real files. The variants thought of, and where
each is covered:

- arguments that are not UTF-8 (`$'projects/\\xff'`, surrogate-escaped by Python) as an
  entity id, a fact text, a daily entry: exit 2, nothing written
  (`test_arguments_that_are_not_utf8`); as a `--vault` path they are a real folder name
  and work, JSON output escaping them (`test_a_vault_path_that_is_not_utf8_works`)
- input that is not UTF-8: a `--queries` file (answers before the bad line, then the file
  and line named), `--file` of a document edit, stdin of `daily append`
  (`test_input_that_is_not_utf8`)
- a name too long for the file system (ENAMETOOLONG) on `entity create`, `fact add
  --create`, `show`, and a whole id over 1,024 bytes (`test_names_too_long`)
- out-of-range numbers: `search --limit` -5, 0, 10^20, `x`; `context --budget` 10;
  `watch --quiet-ms` -1 and nan; `--now` in year 1 and not a date (`test_numbers_out_of_range`)
- a vault whose cache cannot be written: `.vault/cache` and `.vault/locks` are files
  (works as root too) - search, context, info, show, decay, doctor all work, with a
  notice (`test_reading_needs_no_cache_or_locks`); the same with semantic search (the
  embedding cache degrades to memory; skipped only when the model is not installed:
  `test_semantic_search_without_a_writable_cache`); a really read-only vault (chmod -R
  a-w, or as root a read-only bind mount; skipped only if neither is possible), where
  reads work and a write fails naming the file (`test_a_read_only_vault`)
- the reader of stdout goes away (`| head`): exit 141, nothing on stderr
  (`test_a_closed_pipe_is_quiet`)
- a full disk: a write names the file (`[Errno 28]` without the path before), the file is
  left as it was: RLIMIT_FSIZE (EFBIG, SIGXFSZ ignored) for any user, and a 256 kB tmpfs
  filled up (ENOSPC) when mounting is allowed (`test_a_full_disk_names_the_file`)
- `--vault` that is a file, that does not exist, a vault folder without permission
  (non-root only), Ctrl+C while a command waits (exit 130, no traceback), JSON output of
  a text holding a lone surrogate, a fact nested 100,000 deep (`test_siblings`)
- a folder named in another encoding (not UTF-8): listed, searched, written, reported by
  doctor (`test_a_folder_name_that_is_not_utf8`)
- an unexpected exception: one line naming it (the catch-all in `cli.main`; no test can
  provoke one without a fake, so it is covered by reading, not here)
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vault_app.core import layout, vault

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _env() -> dict[str, str]:
    env = dict(os.environ)  # HOME and XDG folders are in tmp (conftest)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("VAULT_APP_DEBUG", None)
    return env


def run(
    *argv: str | bytes,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    **kw: object,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "vault_app", *argv],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd,
        env=_env(),
        check=False,
        timeout=120,
        **kw,  # type: ignore[arg-type]
    )


def one_error_line(done: subprocess.CompletedProcess[bytes], code: int = 1) -> str:
    """The error line of a failed run, checking it is the only line (argparse's usage
    lines before it are allowed for exit 2) and that no traceback was printed."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == code, (done.returncode, err)
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert lines and lines[-1].startswith(("vault-app: error: ", "vault-app ")), err
    if code == 1:
        assert len(lines) == 1, err
    return lines[-1]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("finance")
    v.add_fact("projects/bathroom", "Marcus the plumber fixed the leak", "milestone", create=True)
    v.add_fact("areas/people/marcus", "Marcus charges 95 an hour", "status", create=True)
    v.append_daily("Called the plumber about the leak", agent="finance")
    return v.root


def test_arguments_that_are_not_utf8(home: Path) -> None:
    before = sorted(p.name for p in (home / "global/life/projects").iterdir())
    for argv in (
        ["show", b"projects/\xff"],
        ["entity", "create", b"projects/\xff"],
        ["fact", "add", "projects/bathroom", "--text", b"caf\xe9", "--category", "status"],
        ["fact", "add", b"projects/n\xe9w", "--text", "x", "--category", "status", "--create"],
        ["daily", "append", b"caf\xe9"],
        ["search", b"\xff\xfe", "--mode", "bm25"],
    ):
        line = one_error_line(run("--vault", str(home), *argv), code=2)
        assert "is not valid UTF-8" in line and "\\x" in line, line
    assert sorted(p.name for p in (home / "global/life/projects").iterdir()) == before
    assert vault.Vault(home).entity("projects/bathroom").facts[0].fact.startswith("Marcus")


def test_a_vault_path_that_is_not_utf8_works(tmp_path: Path) -> None:
    odd = os.fsencode(tmp_path) + b"/caf\xe9"
    made = run("init", odd)
    assert made.returncode == 0, made.stderr
    assert b"/caf\xe9" in made.stdout  # printed as the bytes it is
    info = run("--vault", odd, "info", "--json")
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["vault"].endswith("/caf\udce9")  # escaped, valid JSON


def test_input_that_is_not_utf8(home: Path, tmp_path: Path) -> None:
    queries = tmp_path / "questions.txt"
    queries.write_bytes(b"plumber\n\xff\xfe leak\nroof\n")
    done = run("--vault", str(home), "search", "--mode", "bm25", "--queries", str(queries))
    line = one_error_line(done)
    assert f"{queries} line 2, column 1: not valid UTF-8" in line, line
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert [a["query"] for a in answers] == ["plumber"]  # the line before it was answered

    text = tmp_path / "tacit.md"
    text.write_bytes(b"# Tacit\n\nLikes caf\xe9\n")
    done = run("--vault", str(home), "tacit", "edit", "--agent", "finance", "--file", str(text))
    assert f"{text} line 3, column 10: not valid UTF-8" in one_error_line(done)
    tacit = home / "agents/finance/TACIT.md"
    assert tacit.read_text(encoding="utf-8").startswith("# Tacit knowledge")  # unchanged

    done = run("--vault", str(home), "daily", "append", "--agent", "finance", stdin=b"ok\n\xc3(")
    assert "stdin line 2, column 1: not valid UTF-8" in one_error_line(done)


def test_names_too_long(home: Path) -> None:
    long = "a" * 300
    for argv in (
        ["entity", "create", f"projects/{long}"],
        ["fact", "add", f"projects/{long}", "--text", "x", "--category", "status", "--create"],
        ["show", f"areas/{long}"],
        ["entity", "create", "projects/" + "/".join(["b" * 200] * 6)],
    ):
        line = one_error_line(run("--vault", str(home), *argv))
        assert "longer than 255 bytes" in line or "over 1024" in line, line
        assert "Errno" not in line


def test_numbers_out_of_range(home: Path) -> None:
    cases = {
        ("search", "leak", "--limit", "-5"): "-5 is out of range (1 to 100,000)",
        ("search", "leak", "--limit", "0"): "0 is out of range",
        ("search", "leak", "--limit", str(10**20)): "is out of range",
        ("search", "leak", "--limit", "x"): "not a whole number: 'x'",
        ("context", "--agent", "finance", "--budget", "10"): "10 is out of range (200 to",
        ("watch", "--quiet-ms", "-1"): "-1 is out of range",
        ("watch", "--quiet-ms", "nan"): "nan is out of range",
        ("--now", "0001-01-01T00:00:00", "info"): "give a year from 1000 to 8999",
        ("--now", "soon", "info"): "not an ISO date or time: 'soon'",
        ("decay", "--at", "0001-01-01"): "out of range",
    }
    for argv, message in cases.items():
        line = one_error_line(run("--vault", str(home), *argv), code=2)
        assert message in line, (argv, line)


def _unwritable_cache(home: Path) -> None:
    """`.vault/cache` and `.vault/locks` as files: no cache or lock can be made, even by
    root (who writes through chmod)."""
    for name in ("cache", "locks"):
        path = home / ".vault" / name
        shutil.rmtree(path, ignore_errors=True)
        path.write_text("not a folder\n")


def test_reading_needs_no_cache_or_locks(home: Path) -> None:
    _unwritable_cache(home)
    search = run("--vault", str(home), "search", "plumber", "--mode", "bm25", "--json")
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["hits"], search.stdout
    assert b"search index is kept in memory only" in search.stderr
    for argv in (
        ["context", "--agent", "finance", "--query", "leak", "--bm25", "--no-access"],
        ["info"],
        ["show", "projects/bathroom"],
        ["decay"],
        ["entities"],
        ["related", "areas/people/marcus"],
        ["daily", "show", "--agent", "finance", "--list"],
        ["doctor"],
    ):
        done = run("--vault", str(home), *argv)
        assert done.returncode == 0, (argv, done.stderr)
        assert b"Traceback" not in done.stderr
    # a write needs its lock: refused in one line that names the folder
    done = run("--vault", str(home), "fact", "add", "projects/bathroom", "--text", "x",
               "--category", "status")  # fmt: skip
    assert ".vault/locks" in one_error_line(done)


def test_semantic_search_without_a_writable_cache(home: Path) -> None:
    from vault_app.search import semantic

    available, reason = semantic.semantic_available(None)
    if not available:
        pytest.skip(f"semantic search is not installed here: {reason}")
    _unwritable_cache(home)
    done = run("--vault", str(home), "search", "who fixes leaks", "--mode", "hybrid", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mode"] == "hybrid"
    assert b"embedding cache is kept in memory only" in done.stderr, done.stderr


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[str]:
    """Make `folder` read-only for this process's children: chmod for a normal user, a
    read-only bind mount for root (whom chmod does not stop)."""
    if not IS_ROOT:
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
        try:
            yield "chmod -R a-w"
        finally:
            for path in [folder, *folder.rglob("*")]:
                if not path.is_symlink():
                    path.chmod(path.stat().st_mode | 0o200)
        return
    bind = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if bind.returncode != 0:
        pytest.skip(f"running as root, and a read-only bind mount is not allowed: {bind.stderr!r}")
    try:
        remount = subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True
        )
        if remount.returncode != 0:
            pytest.skip(f"running as root, and remounting read-only failed: {remount.stderr!r}")
        yield "a read-only bind mount"
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_read_only_vault(home: Path) -> None:
    fact_id = vault.Vault(home).entity("projects/bathroom").facts[0].id
    with _read_only(home):
        search = run("--vault", str(home), "search", "plumber", "--mode", "bm25", "--json")
        assert search.returncode == 0, search.stderr
        assert json.loads(search.stdout)["hits"]
        for argv in (
            ["context", "--agent", "finance", "--query", "leak", "--bm25", "--no-access"],
            ["info"],
            ["show", "projects/bathroom"],
            ["fact", "show", fact_id],
            ["fact", "history", fact_id],
            ["decay"],
            ["synthesize", "--dry-run"],
            ["daily", "show", "--agent", "finance"],
            ["doctor"],
        ):
            done = run("--vault", str(home), *argv)
            assert done.returncode == 0, (argv, done.stderr)
        done = run("--vault", str(home), "fact", "add", "projects/bathroom", "--text", "x",
                   "--category", "status")  # fmt: skip
        line = one_error_line(done)
        assert str(home) in line and ("Read-only" in line or "Permission denied" in line), line
    assert len(vault.Vault(home).entity("projects/bathroom").facts) == 1


def test_a_closed_pipe_is_quiet(home: Path) -> None:
    for argv in (["decay"], ["search", "leak", "--mode", "bm25", "--json"], ["info"]):
        with subprocess.Popen(
            [sys.executable, "-m", "vault_app", "--vault", str(home), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(),
        ) as child:
            assert child.stdout is not None and child.stderr is not None
            child.stdout.close()  # the reader is gone before anything is written (`| head -0`)
            err = child.stderr.read()
            assert child.wait(timeout=60) == 141, err
            assert err == b"", err


def _ignore_sigxfsz_and_limit(size: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_a_full_disk_names_the_file(home: Path, tmp_path: Path) -> None:
    items = home / "global/life/projects/bathroom/items.json"
    before = items.read_bytes()
    big = "a long note " * 1000  # the file outgrows the limit: EFBIG
    done = run(
        "--vault", str(home), "fact", "add", "projects/bathroom", "--text", big,
        "--category", "context",
        preexec_fn=lambda: _ignore_sigxfsz_and_limit(8192),
    )  # fmt: skip
    line = one_error_line(done)
    assert f"{items}: File too large" in line, line
    assert items.read_bytes() == before
    assert not [p for p in items.parent.iterdir() if "tmp" in p.name]

    # a really full disk, when this process may mount a tmpfs (root with CAP_SYS_ADMIN)
    disk = Path(tempfile.mkdtemp(dir=tmp_path))
    mount = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True
    )
    if mount.returncode != 0:
        pytest.skip(f"a small tmpfs cannot be mounted here (EFBIG was checked): {mount.stderr!r}")
    try:
        small = vault.Vault.create(disk / "v")
        small.add_fact("projects/x", "first", "status", create=True)
        with contextlib.suppress(OSError), open(disk / "filler", "wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        target = disk / "v/global/life/projects/x/items.json"
        kept = target.read_bytes()
        for argv, path in (
            (["fact", "add", "projects/x", "--text", big, "--category", "context"], target),
            (["daily", "append", big], None),
        ):
            line = one_error_line(run("--vault", str(disk / "v"), *argv))
            assert "No space left on device" in line and "Errno" not in line, line
            assert str(path or disk / "v/global/daily") in line, line
        assert target.read_bytes() == kept
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def _wait_reading_stdin(pid: int, timeout: float = 60.0) -> None:
    """Until process `pid` is blocked reading its stdin (Linux: `/proc/PID/syscall` shows
    read(0, ...)); elsewhere a pause. A fixed pause was too short on a loaded machine: the
    interrupt then came before the read, and the read met the closed pipe instead."""
    probe = Path(f"/proc/{pid}/syscall")
    if not probe.exists():
        time.sleep(1.5)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fields = probe.read_text().split()
        except PermissionError:  # no ptrace rights over the child here: a pause
            time.sleep(1.5)
            return
        except OSError:
            fields = []
        if len(fields) > 1 and fields[0] in {"0", "63"} and fields[1] == "0x0":
            return  # read (x86-64: 0, arm64: 63) on fd 0
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never read its stdin")


def test_siblings(home: Path, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    assert "not a folder" in one_error_line(run("--vault", str(tmp_path / "a-file"), "info"))
    assert "no vault at" in one_error_line(run("--vault", str(tmp_path / "nowhere"), "info"))

    if not IS_ROOT:  # chmod does not stop root
        locked = tmp_path / "locked"
        vault.Vault.create(locked)
        locked.chmod(0)
        try:
            assert "Permission denied" in one_error_line(run("--vault", str(locked), "info"))
        finally:
            locked.chmod(0o755)

    # Ctrl+C while the command waits for its input: 130, no traceback
    child = subprocess.Popen(
        [sys.executable, "-m", "vault_app", "--vault", str(home), "daily", "append"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        # as in a terminal: a suite started in the background (`cmd &`) inherits SIGINT
        # ignored, and the child would then never see the Ctrl+C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    _wait_reading_stdin(child.pid)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130 and b"Traceback" not in err, err

    # JSON output of a text that is no valid Unicode: escaped, still JSON
    odd = home / "global/life/projects/odd"
    odd.mkdir()
    fact = {
        "id": "fact-odd",
        "fact": "lone \\ud800 surrogate",
        "category": "status",
        "timestamp": "2026-11-20T09:00:00+00:00",
        "status": "active",
    }
    raw = json.dumps([fact]).replace("\\\\ud800", "\\ud800")
    (odd / "items.json").write_text(raw, encoding="utf-8")
    done = run("--vault", str(home), "show", "projects/odd", "--json")
    assert b"Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:
        json.loads(done.stdout)
    else:
        one_error_line(done)

    # a fact nested 100,000 deep: reported or shown, never a traceback
    deep = home / "global/life/projects/deep"
    deep.mkdir()
    nested = '{"a":' * 100_000 + "1" + "}" * 100_000
    (deep / "items.json").write_text(
        '[{"id": "fact-deep", "fact": "deep", "category": "status", "status": "active", '
        f'"timestamp": "2026-11-20T09:00:00+00:00", "metadata": {nested}}}]'
    )
    for argv in (["show", "projects/deep", "--json"], ["info"]):
        done = run("--vault", str(home), *argv)
        assert b"Traceback" not in done.stderr, done.stderr[-2000:]
        if done.returncode != 0:
            one_error_line(done)


def test_a_folder_name_that_is_not_utf8(home: Path) -> None:
    """A folder another program named in Latin-1: listed, searched (the index stays in
    memory, it cannot be saved as JSON), written (lock and audit line), no traceback."""
    odd = os.path.join(os.fsencode(home / "global/life/projects"), b"caf\xe9")
    os.mkdir(odd)
    with open(os.path.join(odd, b"items.json"), "wb") as handle:
        handle.write(b"[]\n")
    listed = run("--vault", str(home), "entities", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "projects/caf\udce9" in {e["entity"] for e in json.loads(listed.stdout)}
    search = run("--vault", str(home), "search", "plumber", "--mode", "bm25", "--json")
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["hits"]
    assert b"kept in memory only" in search.stderr
    doctor = run("--vault", str(home), "doctor")
    assert doctor.returncode == 0 and b"is not valid UTF-8" in doctor.stdout, doctor.stdout
    ref = layout.EntityRef(None, "projects/caf\udce9")
    vault.Vault(home).add_fact(ref, "written", "status")
    audit = (home / ".vault/audit.jsonl").read_bytes().splitlines()[-1]
    assert json.loads(audit)["entity"] == "projects/caf\udce9"
