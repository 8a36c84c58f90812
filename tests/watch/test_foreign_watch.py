"""The watcher on a neighbour's folder: which files it follows (synthetic paths), and real
inotify events from another process's writes in each format."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Batches

from vault_app.core.neighbours import files
from vault_app.watch import events, foreign, watcher

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.mark.parametrize(
    ("fmt", "path", "expected"),
    [
        (
            "hermes",
            "memories/MEMORY.md",
            events.ForeignFile("notes", "hermes", "memories/MEMORY.md"),
        ),
        ("hermes", "memories/USER.md", events.ForeignFile("notes", "hermes", "memories/USER.md")),
        ("hermes", "memories/MEMORY.md.lock", None),
        ("hermes", "memories/MEMORY.md.bak.1764000000", None),
        ("hermes", "memories/.MEMORY.md.123.ab12.vault-tmp", None),
        ("hermes", "SOUL.md", None),
        (
            "picoclaw",
            "memory/MEMORY.md",
            events.ForeignFile("memory", "picoclaw", "memory/MEMORY.md"),
        ),
        (
            "picoclaw",
            "memory/profile.json",
            events.ForeignFile("profile", "picoclaw", "memory/profile.json"),
        ),
        (
            "picoclaw",
            "memory/202611/20261123.md",
            events.ForeignFile(
                "daily", "picoclaw", "memory/202611/20261123.md", dt.date(2026, 11, 23)
            ),
        ),
        ("picoclaw", "memory/202611/notes.md", None),
        ("picoclaw", "memory/202612/20261123.md", None),  # not its month's folder
        ("picoclaw", "memory/202611/20261131.md", None),  # no such day
        ("picoclaw", "USER.md", None),
        (
            "microclaw",
            "groups/AGENTS.md",
            events.ForeignFile("principles", None, "groups/AGENTS.md"),
        ),
        (
            "microclaw",
            "groups/-100123/1/MEMORY.md",
            events.ForeignFile("tiers", "-100123/1", "groups/-100123/1/MEMORY.md"),
        ),
        (
            "microclaw",
            "groups/-100123/memory/2026-11-24.md",
            events.ForeignFile(
                "daily", "-100123", "groups/-100123/memory/2026-11-24.md", dt.date(2026, 11, 24)
            ),
        ),
        (
            "microclaw",
            "groups/42/7/memory/2026-11-24.md",
            events.ForeignFile(
                "daily", "42/7", "groups/42/7/memory/2026-11-24.md", dt.date(2026, 11, 24)
            ),
        ),
        ("microclaw", "groups/chat/1/MEMORY.md", None),  # not an id
        ("microclaw", "groups/42/memory/notes.md", None),
        ("microclaw", "groups/42/MEMORY.md", None),
    ],
)
def test_the_files_each_format_follows(fmt: str, path: str, expected: object) -> None:
    assert foreign.classify(fmt, path) == expected


def test_folder_events_matter_only_where_followed_files_live() -> None:
    assert foreign.tracks_folder("hermes", "memories")
    assert not foreign.tracks_folder("hermes", "sessions")
    assert foreign.tracks_folder("picoclaw", "memory/202611")
    assert not foreign.tracks_folder("picoclaw", "memory/drafts")
    assert foreign.tracks_folder("microclaw", "groups/-100123/1/memory")
    assert not foreign.tracks_folder("microclaw", "groups/-100123/1/2")
    layout = foreign.layout("picoclaw")
    coalescer = events.Coalescer(classify=layout.classify, tracks_folder=layout.tracks_folder)
    assert not coalescer.add(events.RawEvent("modified", "memory/profile.json.tmp"))
    assert coalescer.add(events.RawEvent("moved", "memory/.p.tmp", "memory/profile.json"))


def write_from_another_process(path: Path, text: str) -> None:
    """Replace `path` atomically from another process (a temp file, then os.replace)."""
    code = (
        "import os, sys; p = sys.argv[1]; t = p + '.tmp'; open(t, 'w').write(sys.argv[2]); "
        "os.replace(t, p)"
    )
    subprocess.run([sys.executable, "-c", code, str(path), text], check=True, timeout=30)


@pytest.mark.parametrize(
    ("fmt", "changed", "kind"),
    [
        ("hermes", "memories/USER.md", "notes"),
        ("picoclaw", "memory/profile.json", "profile"),
        ("picoclaw", "memory/202611/20261124.md", "daily"),
        ("microclaw", "groups/42/7/MEMORY.md", "tiers"),
        ("microclaw", "groups/AGENTS.md", "principles"),
    ],
)
def test_real_events_in_each_format(tmp_path: Path, fmt: str, changed: str, kind: str) -> None:
    root = Path(shutil.copytree(FIXTURES / fmt, tmp_path / fmt))
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    got = Batches()
    with watcher.VaultWatcher(root, got, layout=foreign.layout(fmt), on_status=got.status) as w:
        assert w.wait_ready(20)
        got.wait_status("watching")
        (root / "memories" if fmt == "hermes" else root).joinpath("noise.lock").write_text("")
        write_from_another_process(root / changed, "changed by the agent\n")
        batch = got.wait_for(lambda b: bool(b.files))
    assert [(f.kind, f.path) for f in batch.files] == [(kind, changed)]
    assert batch.paths == (changed,)
    # the snapshot is vault-app's state, kept outside the neighbour's folder
    after = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    noise = "memories/noise.lock" if fmt == "hermes" else "noise.lock"
    assert sorted(set(after) - set(before)) == sorted({noise, changed} - set(before))
    assert (files.state_dir(root.resolve()) / "watch" / "app.json").is_file()


def test_a_new_persona_comes_as_an_agent(tmp_path: Path) -> None:
    root = Path(shutil.copytree(FIXTURES / "microclaw", tmp_path / "microclaw"))
    got = Batches()
    layout = foreign.layout("microclaw")
    with watcher.VaultWatcher(root, got, layout=layout, snapshot=None) as w:
        assert w.wait_ready(20)
        persona = root / "groups" / "42" / "8"
        persona.mkdir()
        (persona / "MEMORY.md").write_text("# Memory\n")
        batch = got.wait_for(lambda b: bool(b.agents))
    assert batch.agents == ("42/8",)
    assert [f.kind for f in batch.files] == ["tiers"]
