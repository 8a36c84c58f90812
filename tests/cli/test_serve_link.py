"""The CLI as a thin client of a running `serve` (`cli/serve_link.py`): a real `serve`
process on a demo vault answers the CLI's searches from its open index, with the output
a local run prints; what it must not answer (another vault, a refused scope, a file of
queries, a mode it cannot give yet) is declined and run locally; only this user reaches
its socket."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from vault_app.cli import program, serve_link
from vault_app.core import demo, vault

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="Unix sockets only")
AGENT = "finance"
READY_WAIT = 300.0  # seconds: polled, a quiet machine answers in a few


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("link") / "v"
    log = root.parent / "serve.log"
    demo.create_demo(root)
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    # the demo's notes are turned into facts first, so that serve's own heartbeat finds
    # nothing to write while its answers are compared with local runs
    subprocess.run(
        [sys.executable, "-m", "vault_app", "--vault", str(root), "heartbeat", "--once"],
        env=env,
        check=True,
        capture_output=True,
        timeout=600,
    )
    with log.open("wb") as errors:  # the child keeps its own copy
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "vault_app",
                "--vault",
                str(root),
                "serve",
                "--port",
                "0",
                "--bm25",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:
        deadline = time.monotonic() + READY_WAIT
        probe = ["--vault", str(root), "search", "plumber", "--mode", "bm25"]
        while not _answered(probe):
            assert process.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, "serve never answered the CLI"
            time.sleep(0.2)
        yield root
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)
    path = serve_link.socket_path(root)
    assert path is not None and not path.exists()  # taken down with the server


def _answered(argv: list[str]) -> bool:
    path = serve_link.socket_path(argv[1])
    if path is None or not path.exists():
        return False
    try:
        answer = serve_link._ask(path, {"argv": argv, "cwd": os.getcwd()})
    except (OSError, ValueError):
        return False
    return answer.get("status") == "ok"


def both(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[str, str]:
    """What the forwarded run printed, then what a local run prints (stdout, both)."""
    code = serve_link.forward(argv)
    assert code == 0, f"not forwarded: {argv}"
    forwarded = capsys.readouterr().out
    assert program.main(argv) == 0
    return forwarded, capsys.readouterr().out


def without_timing(printed: str) -> dict:
    data = json.loads(printed)
    data.pop("seconds")
    return data


def test_a_forwarded_search_prints_what_a_local_one_prints(
    served: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for words in (["plumber"], ["roof inspection", "--in", "facts"], ["budget", "--explain"]):
        argv = ["--vault", str(served), "search", *words, "--mode", "bm25"]
        forwarded, local = both(capsys, argv)
        assert forwarded == local and "no good matches" not in local, words
        forwarded, local = both(capsys, [*argv, "--json"])
        assert without_timing(forwarded) == without_timing(local), words


def test_an_agents_forwarded_search_keeps_its_scope_and_counts_its_hits(
    served: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--vault",
        str(served),
        "search",
        "budget",
        "--mode",
        "bm25",
        "--agent",
        AGENT,
        "--json",
    ]
    assert serve_link.forward(argv) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["hits"] and {h["scope"] for h in answer["hits"]} <= {"global", f"agent:{AGENT}"}
    marked = answer["markedAccessed"]
    assert marked
    v = vault.Vault(served)
    for fact_id, count in marked.items():
        assert v.fact(fact_id)[1].access_count == count  # written, as the agent
    lines = (served / ".vault" / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    audit = [json.loads(line) for line in lines]
    counted = {
        fact_id
        for entry in audit
        if entry["actor"] == f"agent:{AGENT}" and entry["action"] == "fact.access"
        for fact_id in entry.get("factIds", [])
    }
    assert set(marked) <= counted  # the counts were written as the agent, by the server


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "budget", "--mode", "bm25", "--agent", AGENT, "--scope", "agent:security"],
        ["search", "--queries", "-", "--mode", "bm25"],
        ["search", "plumber", "--mode", "bm25", "--now", "2026-01-01T00:00:00"],
        ["search", "plumber", "--mode", "bm25", "--actor", "agent:finance"],
        ["search", "plumber"],  # hybrid: this serve runs BM25 only, a local run loads the model
        ["search", "plumber", "--limit", "0"],  # a usage error: said by the local run
        ["info"],
    ],
)
def test_what_serve_must_not_answer_is_run_locally(served: Path, argv: list[str]) -> None:
    assert serve_link.forward(["--vault", str(served), *argv]) is None


def test_another_vault_is_not_answered(served: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(served, other)
    path = serve_link.socket_path(served)
    assert path is not None
    argv = ["--vault", str(other), "search", "plumber", "--mode", "bm25"]
    answer = serve_link._ask(path, {"argv": argv, "cwd": os.getcwd()})
    assert answer["status"] == "declined" and answer["why"] == "another vault"
    assert serve_link.forward(argv) is None  # its own socket: none


def test_only_this_user_reaches_the_socket(served: Path) -> None:
    path = serve_link.socket_path(served)
    assert path is not None
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0
    assert path.parent.stat().st_uid == os.getuid()


def test_a_server_that_does_not_answer_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket whose server accepts and then never answers (busy, stuck) costs the CLI
    `ANSWER_WAIT`, not the rest of its life: it then runs the command itself."""
    import socket as socket_module
    import tempfile

    root = tmp_path / "v"
    vault.Vault.create(root)
    run = Path(tempfile.mkdtemp(prefix="vl-"))  # short: a socket's path has a length limit
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setattr(serve_link, "ANSWER_WAIT", 0.5)
    path = serve_link.socket_path(root)
    assert path is not None
    path.parent.mkdir(parents=True, mode=0o700)
    with socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM) as stuck:
        stuck.bind(str(path))
        stuck.listen(1)  # accepts (the kernel's queue) and never reads nor answers
        started = time.monotonic()
        assert serve_link.forward(["--vault", str(root), "search", "x", "--mode", "bm25"]) is None
        assert time.monotonic() - started < 60  # (bounded far above the 0.5 s asked)
    shutil.rmtree(run)
