"""Files that are not files never hang vault-app (issue 11, "Files that are not files").

Rule: every path vault-app reads must be a regular file, checked on the open descriptor
(opened with O_NONBLOCK, so opening a FIFO does not wait for a writer, then fstat), not
on the name before it; anything else is a precise problem ("... is a FIFO, not a regular
file"), reported with its place and skipped while the rest of the vault keeps working;
`doctor` reports it, and a folder at a file's name too.

Variants, and the test covering each (CLI: a real `python -m vault_app` process with a
60 s timeout, so a hang fails the test instead of hanging the suite):

- a FIFO named items.json: `info`, `entities`, `show`, `doctor`, `search`, `fact
  access`, `context`, `synthesize` finish, report it, and work for the rest
  -> test_fifo_fact_file_hangs_no_command (CLI, parametrized)
- the window's "counting facts..." is `Vault.scan` (and `list_entities`), the
  dashboard's reads go through `Storage.read` -> test_scan_reports_and_skips_special_files
- a FIFO, a socket, a symlink to /dev/zero (leads outside: refused), a symlink to a
  FIFO inside the vault, a folder -- each at the name items.json
  -> test_scan_reports_and_skips_special_files (parametrized), test_direct_reads_refuse
- summary.md, a daily note, TACIT.md, AGENTS.md as a FIFO or a folder: `show`,
  `daily show`, `tacit show`, `principles show`, `doctor`
  -> test_markdown_places_hang_nothing (CLI, parametrized)
- `.vault/config.toml` as a FIFO: every command opens the vault -> test_fifo_config (CLI)
- live sync: an items.json that becomes a FIFO while the app runs (`update_scan`, which
  the window calls for a batch of changes) -> test_live_update_reports_a_new_fifo
- the async API (`AsyncVault.entity`, `.document`) -> test_async_reads_refuse_a_fifo
- the prefetch process reading files ahead of the scan (a FIFO swapped in after the
  listing) -> test_prefetch_leaves_a_fifo_alone
- the search index files (`.vault/cache/search/docs.jsonl`, `bm25/bm25.json`) as
  FIFOs: rebuilt, not waited for -> test_search_index_fifo (CLI)
- the embedding cache's identity.json and shards as FIFOs -> test_embedding_cache_fifos
- the watcher: the snapshot file as a FIFO, and a changed file that became a FIFO
  (`read_state`) -> test_watch_reads_refuse_a_fifo
- a FIFO in the backup ring: not listed, not rotated, not restored from
  -> test_backup_ring_ignores_special_files
- doctor reports every FIFO and socket anywhere, and folders at file names
  (items.json, summary.md, a daily note, TACIT.md) -> test_doctor_reports_special_files
- block and character devices made in the vault need root (mknod): covered through
  the /dev/zero symlink and by the same fstat check; not made here.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import cli_process
import pytest

from vault_app.core import aio, doctor, errors, layout, prefetch
from vault_app.core import vault as vault_module
from vault_app.search import bm25, embedding_cache
from vault_app.watch import snapshot

BAD = "projects/roof"
GOOD = "areas/home"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    target = vault_module.Vault.create(tmp_path / "v")
    target.create_agent("finance")
    target.create_entity(BAD, summary="The roof.")
    target.add_fact(BAD, "The roof is 20 years old", "context")
    target.create_entity(GOOD, summary="The house.")
    fact = target.add_fact(GOOD, "The house is blue and the roof is slate", "context")
    (target.root / "good-fact-id").write_text(fact.id)  # for the CLI tests
    target.append_daily("Called the roofer")
    return target


def cli(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(root, *argv, timeout=60)  # a hang fails here


def bad_items(v: vault_module.Vault) -> Path:
    return v.paths.life_dir / BAD / "items.json"


@pytest.fixture
def listener() -> Iterator[list[socket.socket]]:
    held: list[socket.socket] = []
    yield held
    for sock in held:
        sock.close()


def make_fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def finishes(call: Callable[[], object], seconds: float = 20.0) -> object:
    """`call()` on a thread; fails the test if it has not returned within `seconds`."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{call} hung"
    return outcome[0]


COMMANDS = {
    "info": ["info"],
    "entities": ["entities"],
    "show": ["show", BAD],
    "doctor": ["doctor"],
    "search": ["search", "roof", "--mode", "bm25"],
    "fact access": ["fact", "access"],  # + the good fact's id
    "context": ["context", "--agent", "finance", "--query", "roof", "--bm25"],
    "synthesize": ["synthesize"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_fifo_fact_file_hangs_no_command(v: vault_module.Vault, command: str) -> None:
    make_fifo(bad_items(v))
    argv = COMMANDS[command]
    if command == "fact access":
        argv = [*argv, (v.root / "good-fact-id").read_text()]

    result = cli(v.root, *argv)

    out = result.stdout + result.stderr
    assert "Traceback" not in out
    if command in ("show", "doctor"):
        assert result.returncode == 1 if command == "doctor" else True
        assert "items.json: is a FIFO, not a regular file" in out
    else:
        assert result.returncode == 0, out
    if command in ("info", "entities", "synthesize"):
        assert "is a FIFO" in out
    if command == "search":
        assert "house is blue" in out  # the rest is searched
    assert bad_items(v).is_fifo()  # left as it is


def special(kind: str, path: Path, v: vault_module.Vault, held: list[socket.socket]) -> str:
    """Put a `kind` at `path`; returns what the problem must say."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
        return "is a FIFO, not a regular file"
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(os.fspath(path))
        held.append(sock)
        return "is a socket, not a regular file"
    if kind == "/dev/zero":
        path.symlink_to("/dev/zero")
        return "outside the vault"
    if kind == "link to a fifo":
        os.mkfifo(path.parent / "pipe")
        path.symlink_to(path.parent / "pipe")
        return "is a FIFO, not a regular file"
    assert kind == "folder"
    path.mkdir()
    (path / "items.json").write_text("[]")  # not an entity inside a file's name
    return "is a folder, not a regular file"


KINDS = ["fifo", "socket", "/dev/zero", "link to a fifo", "folder"]


@pytest.mark.parametrize("kind", KINDS)
def test_scan_reports_and_skips_special_files(
    v: vault_module.Vault, kind: str, listener: list[socket.socket]
) -> None:
    says = special(kind, bad_items(v), v, listener)
    scan = finishes(v.scan)
    assert isinstance(scan, vault_module.VaultScan)
    by_address = {e.address: e for e in scan.entities}
    assert by_address[GOOD].total == 1 and by_address[GOOD].problem is None
    assert f"{GOOD}/items.json" not in {p.path for p in scan.problems}
    assert any(says in p.message and p.path.endswith(f"{BAD}/items.json") for p in scan.problems)
    assert "projects/roof/items.json" not in by_address  # a folder is not an entity
    listed = finishes(v.list_entities)
    assert isinstance(listed, vault_module.VaultScan)
    report = finishes(lambda: doctor.run(v))
    assert isinstance(report, doctor.DoctorReport) and not report.ok
    assert any(says in p.message and p.severity == "error" for p in report.problems)


def test_live_update_reports_a_new_fifo(v: vault_module.Vault) -> None:
    scan = v.scan()
    make_fifo(bad_items(v))
    updated = finishes(lambda: v.update_scan(scan, [BAD]))
    assert isinstance(updated, vault_module.VaultScan)
    (entity,) = [e for e in updated.entities if e.address == BAD]
    assert entity.problem is not None and "FIFO" in entity.problem
    assert any(
        "FIFO" in p.message and p.path.endswith(f"{BAD}/items.json") for p in updated.problems
    )
    assert {e.address: e.total for e in updated.entities}[GOOD] == 1


@pytest.mark.parametrize("kind", KINDS)
def test_direct_reads_refuse(
    v: vault_module.Vault, kind: str, listener: list[socket.socket]
) -> None:
    says = special(kind, bad_items(v), v, listener)
    view = finishes(lambda: v.entity(BAD))
    assert isinstance(view, vault_module.EntityView)
    assert view.error is not None and says in str(view.error)
    outcome = finishes(lambda: v.storage.read(bad_items(v)))
    assert isinstance(outcome, errors.CorruptFileError) and says in str(outcome)
    if kind in ("fifo", "socket", "link to a fifo", "folder"):
        assert isinstance(outcome, errors.NotRegularFileError)
    written = finishes(lambda: v.add_fact(BAD, "New gutters", "status"))
    assert isinstance(written, errors.VaultError)  # never written over either


MARKDOWN = {
    "summary": (lambda v: v.paths.life_dir / BAD / "summary.md", ["show", BAD]),
    "daily note": (
        lambda v: v.paths.daily_file(v.now().astimezone().date(), None),
        ["daily", "show"],
    ),
    "TACIT.md": (
        lambda v: v.paths.agent_dir("finance") / "TACIT.md",
        ["tacit", "show", "--agent", "finance"],
    ),
    "AGENTS.md": (lambda v: v.paths.principles_file, ["principles", "show"]),
}


@pytest.mark.parametrize("kind", ["fifo", "folder"])
@pytest.mark.parametrize("place", MARKDOWN)
def test_markdown_places_hang_nothing(v: vault_module.Vault, place: str, kind: str) -> None:
    where, argv = MARKDOWN[place]
    path = where(v)
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    says = "is a FIFO" if kind == "fifo" else "is a folder"

    shown = cli(v.root, *argv)
    assert "Traceback" not in shown.stderr
    assert says in shown.stdout + shown.stderr or "no daily note" in shown.stderr

    report = cli(v.root, "doctor", "--json")
    assert report.returncode == 1
    problems = json.loads(report.stdout)["problems"]
    assert any(
        p["path"] == v.paths.relative(path) and says in p["message"] and p["severity"] == "error"
        for p in problems
    ), problems
    assert cli(v.root, "show", GOOD).returncode == 0


def test_fifo_config(v: vault_module.Vault) -> None:
    make_fifo(v.paths.state_dir / "config.toml")
    info = cli(v.root, "info")
    assert info.returncode == 0 and "config.toml: is a FIFO" in info.stdout + info.stderr
    report = cli(v.root, "doctor")
    assert report.returncode == 1 and "config.toml: is a FIFO" in report.stdout


def test_async_reads_refuse_a_fifo(v: vault_module.Vault) -> None:
    make_fifo(bad_items(v))
    make_fifo(v.paths.agent_dir("finance") / "CONTEXT.md")

    async def read() -> tuple[vault_module.EntityView, BaseException | None]:
        av = aio.AsyncVault(v)
        view = await av.entity(BAD)
        good = await av.entity(GOOD)
        assert len(good.facts) == 1
        try:
            await av.document("CONTEXT.md", agent="finance")
        except errors.CorruptFileError as exc:
            return view, exc
        return view, None

    outcome = finishes(lambda: asyncio.run(asyncio.wait_for(read(), 20)))
    assert isinstance(outcome, tuple)
    view, error = outcome
    assert view.error is not None and "is a FIFO" in view.error.reason
    assert isinstance(error, errors.NotRegularFileError)


def test_prefetch_leaves_a_fifo_alone(v: vault_module.Vault) -> None:
    make_fifo(bad_items(v))
    assert finishes(lambda: prefetch._read_ahead(os.fspath(bad_items(v)))) is None
    roots = [os.fspath(p) for p in v.paths.para_folders()]
    assert finishes(lambda: prefetch.prefetch(roots)) is None
    scan = finishes(lambda: v.scan(read_ahead=True))  # with the prefetch process
    assert isinstance(scan, vault_module.VaultScan)


def test_search_index_fifo(v: vault_module.Vault) -> None:
    assert cli(v.root, "search", "roof", "--mode", "bm25").returncode == 0
    index = v.paths.state_dir / "cache" / "search"
    make_fifo(index / "docs.jsonl")
    make_fifo(index / "bm25" / bm25.HEADER_FILE)
    result = cli(v.root, "search", "slate", "--mode", "bm25")
    assert result.returncode == 0, result.stderr
    assert "house is blue" in result.stdout
    assert (index / "docs.jsonl").is_file()  # rebuilt in its place
    make_fifo(index / "bm25" / bm25.HEADER_FILE)
    outcome = finishes(lambda: bm25.BM25Index.load(index / "bm25"))
    assert isinstance(outcome, bm25.IndexFormatError) and "is a FIFO" in str(outcome)


def test_embedding_cache_fifos(tmp_path: Path) -> None:
    cache = embedding_cache.EmbeddingCache(tmp_path / "embeddings", root=tmp_path)
    folder = cache.identity_dir("m|1")
    folder.mkdir(parents=True)
    os.mkfifo(folder / "identity.json")
    os.mkfifo(folder / "0001.key.npy")
    os.mkfifo(folder / "0001.vec.npy")
    assert finishes(lambda: cache._read_identity(folder)) is None
    assert finishes(lambda: cache._shard_names(folder)) == []
    assert finishes(lambda: embedding_cache._rows_of(folder / "0001.key.npy")) == 0


def test_watch_reads_refuse_a_fifo(v: vault_module.Vault) -> None:
    path = snapshot.Snapshot.location(v.root, "cli")
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert finishes(lambda: snapshot.Snapshot.load(path, v.root)) is None
    make_fifo(bad_items(v))
    rel = v.paths.relative(bad_items(v))
    assert finishes(lambda: snapshot.read_state(v.root, rel)) is None


def test_backup_ring_ignores_special_files(v: vault_module.Vault) -> None:
    path = v.paths.life_dir / GOOD / "items.json"
    ring = v.storage.backup_dir(path)
    os.mkfifo(ring / f"{0:020d}-{'0' * 12}")
    for n in range(25):
        finishes(lambda n=n: v.add_fact(GOOD, f"Paint {n}", "context"))
    kept = v.storage.backups(path)
    assert len(kept) == v.config.storage.backups_per_file
    assert (ring / f"{0:020d}-{'0' * 12}").is_fifo()  # not rotated out (not deleted)
    newest = v.storage.newest_intact_backup(path)
    assert newest is not None and b"Paint 24" in newest.read_bytes()


def test_doctor_reports_special_files(v: vault_module.Vault, listener: list[socket.socket]) -> None:
    entity = v.paths.life_dir / GOOD
    os.mkfifo(entity / "notes.pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(os.fspath(v.paths.state_dir / "agent.sock"))
    listener.append(sock)
    (v.paths.life_dir / BAD / "summary.md").unlink()
    (v.paths.life_dir / BAD / "summary.md").mkdir()
    (v.paths.daily_dir(None) / "2026-01-01.md").mkdir()
    tacit = v.paths.agent_dir("finance") / "TACIT.md"
    tacit.unlink()
    tacit.mkdir()
    report = finishes(lambda: doctor.run(v))
    assert isinstance(report, doctor.DoctorReport)
    problems = {p.path: p for p in report.problems}
    assert problems[f"global/life/{GOOD}/notes.pipe"].severity == "warning"
    assert "is a FIFO" in problems[f"global/life/{GOOD}/notes.pipe"].message
    assert problems[".vault/agent.sock"].severity == "error"
    for name in (f"global/life/{BAD}/summary.md", "global/daily/2026-01-01.md"):
        assert "is a folder, not a regular file" in problems[name].message
        assert problems[name].severity == "error"
    assert "is a folder" in problems["agents/finance/TACIT.md"].message
    assert layout.EntityRef.parse(f"{BAD}/summary.md") not in v.entity_refs()
