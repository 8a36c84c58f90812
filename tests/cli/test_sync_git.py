"""A vault in git on two devices (issue 31): `vault-app sync git-setup` makes vault-app the
merge driver, and a `git pull` with both sides' changes to one items.json and one daily
note merges without conflict markers and loses nothing. Real git, real processes.

Variants thought of: facts added on both sides, an access counted on both sides, a daily
note appended on both sides, the setup run twice (nothing changes; a person's own
.gitignore lines kept), a summary.md changed on the same line on both sides (git reports
the conflict, with markers, as for any file), and random interleavings of writes on two
clones (every fact and entry of either side, after both pull).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vault_app.core import vault as vault_module

JANE = "areas/people/jane"
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(folder), *args], env=ENV, capture_output=True, text=True, check=check
    )


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vault_app", *args], env=ENV, capture_output=True, text=True
    )


def two_clones(tmp_path: Path) -> tuple[Path, Path]:
    """An origin holding a vault, and two clones of it, each set up with git-setup."""
    first = tmp_path / "first"
    v = vault_module.Vault.create(first)
    v.create_entity(JANE, "Jane is the plumber.")
    v.add_fact(JANE, "Jane fixed the leak", "milestone")
    git(first, "init", "-q", "-b", "main")
    assert cli("sync", "git-setup", "--vault", str(first)).returncode == 0
    git(first, "add", "-A")
    git(first, "commit", "-q", "-m", "the vault")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(first), str(origin)], env=ENV, check=True)
    clones = []
    for name in ("a", "b"):
        clone = tmp_path / name
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], env=ENV, check=True)
        done = cli("sync", "git-setup", "--vault", str(clone))  # the driver is per clone
        assert done.returncode == 0, done.stderr
        clones.append(clone)
    return clones[0], clones[1]


def commit_and_push(clone: Path, message: str) -> None:
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", message)
    pulled = git(clone, "-c", "pull.rebase=false", "pull", "-q", "--no-edit", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    git(clone, "push", "-q")


def facts_of(clone: Path) -> dict[str, dict[str, object]]:
    data = json.loads((clone / "global/life" / JANE / "items.json").read_text("utf-8"))
    return {e["fact"]: e for e in data}


def test_a_pull_with_both_sides_changes_merges_through_the_driver(tmp_path: Path) -> None:
    a, b = two_clones(tmp_path)
    va, vb = vault_module.Vault(a), vault_module.Vault(b)
    leak = next(f for f in va.entity(JANE).facts if f.fact == "Jane fixed the leak")
    va.add_fact(JANE, "Jane charges $95 an hour", "context")
    va.mark_accessed([leak.id])
    va.append_daily("A: the boiler is serviced.")
    commit_and_push(a, "on a")
    vb.add_fact(JANE, "Jane has a van", "context")
    vb.mark_accessed([leak.id])
    vb.append_daily("B: the gutters are cleared.")
    commit_and_push(b, "on b")  # pulls a's commit first: the driver merges
    facts = facts_of(b)
    assert {"Jane fixed the leak", "Jane charges $95 an hour", "Jane has a van"} <= set(facts)
    assert facts["Jane fixed the leak"]["accessCount"] == 2  # one access on each side
    daily = next((b / "global/daily").glob("*.md")).read_text("utf-8")
    assert "the boiler is serviced" in daily and "the gutters are cleared" in daily
    for path in (b / "global").rglob("*"):
        if path.is_file():
            assert "<<<<<<<" not in path.read_text("utf-8", "replace"), path
    assert vault_module.Vault(b).entity(JANE).error is None
    git(a, "-c", "pull.rebase=false", "pull", "-q", "--no-edit")
    assert facts_of(a) == facts_of(b)  # both devices hold the same


def test_setup_twice_changes_nothing_and_keeps_a_persons_lines(tmp_path: Path) -> None:
    folder = tmp_path / "v"
    vault_module.Vault.create(folder)
    git(folder, "init", "-q")
    (folder / ".gitignore").write_text("my-notes/\n", "utf-8")
    assert cli("sync", "git-setup", "--vault", str(folder)).returncode == 0
    first = (folder / ".gitignore").read_text("utf-8")
    again = cli("sync", "git-setup", "--vault", str(folder))
    assert again.returncode == 0 and "unchanged:" in again.stdout
    assert (folder / ".gitignore").read_text("utf-8") == first
    assert first.startswith("my-notes/\n") and "/.vault/locks" in first
    assert "items.json merge=vault-app" in (folder / ".gitattributes").read_text("utf-8")
    driver = git(folder, "config", "merge.vault-app.driver").stdout
    assert "merge-driver %O %A %B %P" in driver
    outside = cli("sync", "git-setup", "--vault", str(tmp_path / "not-git"))
    assert outside.returncode != 0


def test_the_same_line_changed_on_both_sides_is_a_conflict_git_shows(tmp_path: Path) -> None:
    a, b = two_clones(tmp_path)
    summary = "global/life/" + JANE + "/summary.md"
    for clone, words in ((a, "since 2019"), (b, "of Bell & Sons")):
        path = clone / summary
        path.write_text(path.read_text("utf-8").replace("plumber.", f"plumber {words}."))
    git(a, "commit", "-qam", "a")
    git(a, "push", "-q")
    git(b, "commit", "-qam", "b")
    pulled = git(b, "-c", "pull.rebase=false", "pull", "--no-edit", check=False)
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout
    text = (b / summary).read_text("utf-8")
    assert "since 2019" in text and "of Bell & Sons" in text and "<<<<<<<" in text


@pytest.mark.parametrize("seed", range(3))
def test_random_writes_on_two_clones_all_arrive(tmp_path: Path, seed: int) -> None:
    import random

    rng = random.Random(seed)
    a, b = two_clones(tmp_path)
    written: list[str] = []
    entries: list[str] = []
    for step in range(6):
        clone = rng.choice((a, b))
        v = vault_module.Vault(clone)
        for n in range(rng.randint(1, 3)):
            text = f"fact {step}.{n} from {clone.name}"
            v.add_fact(JANE, text, "context")
            written.append(text)
        if rng.random() < 0.5:
            line = f"entry {step} from {clone.name}"
            v.append_daily(line)
            entries.append(line)
        if rng.random() < 0.5:
            commit_and_push(clone, f"step {step}")
    for clone in (a, b, a):  # each sends what it has, then takes the rest
        if git(clone, "status", "--porcelain").stdout:
            commit_and_push(clone, "last")
        else:
            git(clone, "-c", "pull.rebase=false", "pull", "-q", "--no-edit")
    assert facts_of(a) == facts_of(b)
    assert set(written) <= set(facts_of(a))
    notes = "".join(p.read_text("utf-8") for p in sorted((a / "global/daily").glob("*.md")))
    assert all(line in notes for line in entries)
