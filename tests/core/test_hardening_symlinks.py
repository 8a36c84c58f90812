"""No write of vault-app goes through a symlink (issue 11, "Writes that reach outside the vault").

Rule: vault-app never follows a symlink when it writes, rotates, sweeps, quarantines,
locks or logs; it refuses before anything changed, naming the path ("... is a symlink (to
X); vault-app does not write through symlinks"), and `doctor` reports every symlink under
the vault and `.vault/` (an error in `.vault/` or when it leads outside the vault, a
warning for a link inside it, which reads follow but writes refuse).

Variants, and the test covering each (CLI: a real `python -m vault_app` process):

- `.vault/backups/<path>/items.json` (the file's ring) -> an outside folder of 30 old
  files: the ring rotation deleted 10 of them (the issue's case);
  `.vault/tmp` -> outside: the stale-temp sweep deleted its old files;
  `.vault/audit.jsonl` -> an outside file: lines appended to it;
  `.vault` itself, `.vault/backups`, an intermediate folder of the ring
  (`.vault/backups/global/life`), `.vault/locks`, the lock file itself
  -> test_state_symlink_refuses_the_write (CLI, parametrized; doctor reports each)
- the audit log with a second hard link (an append would change the other name)
  -> test_audit_log_with_another_hard_link
- old "backups" in the ring that are symlinks to outside files: never rotated
  (deleted), never counted, never restored from
  -> test_symlinks_inside_the_ring_are_not_rotated_or_restored
- `.vault/quarantine` -> outside: `doctor --repair` moves nothing there
  -> test_doctor_repair_does_not_quarantine_through_a_symlink (CLI)
- `.vault/cache` -> outside: search still answers (from memory), writes nothing there
  -> test_search_cache_behind_a_symlink (CLI)
- `.vault/cache/search/docs.jsonl` -> an outside file: replaced as a name, the outside
  file untouched -> test_search_index_file_symlink_is_replaced_not_written (CLI)
- the embedding cache's folder -> outside: refused before its "empty the folder of
  another model" step could delete anything there
  -> test_embedding_cache_folder_behind_a_symlink
- the watcher's snapshot folder -> outside: not saved there, not read from there
  -> test_watch_snapshot_behind_a_symlink
- `.vault/config.toml` -> an outside file: settings neither read from it nor saved
  through it -> test_config_file_symlink
- the target file (items.json, a daily note) is a symlink to a file inside the vault:
  reads follow it, writes refuse; so os.link into the ring never follows a symlink (it
  is also made with follow_symlinks=False)
  -> test_in_vault_file_link_is_read_but_not_written
- the entity folder, or the daily folder, is a symlink to a folder of the vault:
  writes, archiving and creating below it refuse
  -> test_in_vault_folder_link_refuses_writes
- the temp file name in the target folder taken by a symlink: new files are created
  with O_EXCL|O_NOFOLLOW, never opened through one
  -> test_new_files_are_never_opened_through_a_symlink
- links out of the vault (file or folder) at entity places: covered since before in
  tests/core/test_bad_input.py; doctor's report of every kind of link
  -> test_doctor_reports_every_symlink
- Windows (no O_NOFOLLOW): the lstat checks stand alone there; not runnable here.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import cli_process
import pytest

from vault_app.core import config, doctor, errors, safe_fs
from vault_app.core import vault as vault_module
from vault_app.search import semantic
from vault_app.watch import snapshot

ENTITY = "projects/roof"
OLD = 1_577_836_800  # 2020-01-01: older than every sweep's limit
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    target = vault_module.Vault.create(tmp_path / "v")
    target.create_entity(ENTITY)
    target.add_fact(ENTITY, "The roof is 20 years old", "context")
    target.create_entity("areas/home")
    target.add_fact("areas/home", "The house is blue", "context")
    target.append_daily("Called the roofer")
    return target


def outside_folder(tmp_path: Path, n: int = 30) -> Path:
    """A folder out of the vault with `n` old files: what a sweep or a rotation deletes."""
    folder = tmp_path / "outside"
    folder.mkdir()
    for i in range(n):
        path = folder / f"{i:020d}-{i:012x}"
        path.write_bytes(f"precious {i}\n".encode())
        os.utime(path, (OLD, OLD))
    return folder


def snapshot_of(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below `folder`: bytes and mtime."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def cli(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(root, *argv, timeout=60)


def items(v: vault_module.Vault, entity: str = ENTITY) -> Path:
    return v.paths.life_dir / entity / "items.json"


def lock_file(v: vault_module.Vault, path: Path) -> Path:
    name = hashlib.sha1(v.paths.relative(path).encode()).hexdigest()[:24] + ".lock"
    return v.paths.state_dir / "locks" / name


def replace_with_link(place: Path, target: Path) -> None:
    """`place` (a file or folder of the vault) becomes a symlink to `target`; what was
    there moves into `target` when `target` is a folder that does not exist yet."""
    if place.is_dir() and not place.is_symlink():
        if not target.exists():
            place.rename(target)
        else:
            for child in place.iterdir():
                child.rename(target / child.name)
            place.rmdir()
    elif place.exists() or place.is_symlink():
        place.unlink()
    place.symlink_to(target, target_is_directory=target.is_dir())


# name -> the place under .vault/ (a function of the vault) that becomes a symlink
STATE_PLACES = {
    "ring of the file": lambda v: v.storage.backup_dir(items(v)),
    "tmp": lambda v: v.paths.state_dir / "tmp",
    "audit log": lambda v: v.paths.state_dir / "audit.jsonl",
    ".vault": lambda v: v.paths.state_dir,
    "backups": lambda v: v.paths.state_dir / "backups",
    "a folder of the ring's path": lambda v: v.paths.state_dir / "backups" / "global" / "life",
    "locks": lambda v: v.paths.state_dir / "locks",
    "the lock file": lambda v: lock_file(v, items(v)),
}


@pytest.mark.parametrize("place", STATE_PLACES)
def test_state_symlink_refuses_the_write(tmp_path: Path, v: vault_module.Vault, place: str) -> None:
    link = STATE_PLACES[place](v)
    if place in ("audit log", "the lock file"):
        outside = tmp_path / "outside.txt"
        outside.write_bytes(b"someone else's file\n")
        link.parent.mkdir(parents=True, exist_ok=True)
        replace_with_link(link, outside)
        watched = tmp_path / "outside.txt"
        before: object = outside.read_bytes()
    else:
        outside = outside_folder(tmp_path)
        replace_with_link(link, outside)
        # the vault's own state moved there too: its old files are what a sweep deletes
        for path in outside.rglob("*"):
            os.utime(path, (OLD, OLD), follow_symlinks=False)
        watched = outside
        before = snapshot_of(outside)
    facts_before = items(v).read_bytes()

    result = cli(v.root, "fact", "add", ENTITY, "--text", "New gutters", "--category", "status")

    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith("vault-app: error: ") and result.stderr.count("\n") == 1
    assert f"{link} is a symlink (to {outside}); vault-app does not write" in result.stderr
    assert "Traceback" not in result.stderr
    after = watched.read_bytes() if watched.is_file() else snapshot_of(watched)
    assert after == before  # nothing deleted, appended or truncated out there
    assert items(v).read_bytes() == facts_before  # refused before anything changed
    assert link.is_symlink()

    report = cli(v.root, "doctor", "--json")
    assert report.returncode == 1
    problems = json.loads(report.stdout)["problems"]
    (found,) = [p for p in problems if p["path"] == v.paths.relative(link)]
    assert found["severity"] == "error" and "is a symlink" in found["message"]


def test_audit_log_with_another_hard_link(tmp_path: Path, v: vault_module.Vault) -> None:
    audit = v.paths.state_dir / "audit.jsonl"
    other = tmp_path / "other-name.jsonl"
    os.link(audit, other)
    before = other.read_bytes()
    with pytest.raises(errors.CorruptFileError, match="hard links"):
        v.add_fact("areas/home", "Blue door", "preference")
    assert other.read_bytes() == before


def test_symlinks_inside_the_ring_are_not_rotated_or_restored(
    tmp_path: Path, v: vault_module.Vault
) -> None:
    outside = outside_folder(tmp_path, n=12)
    ring = v.storage.backup_dir(items(v))
    for path in outside.iterdir():  # names older than every real version: rotated first
        (ring / path.name).symlink_to(path)
    before = snapshot_of(outside)
    for n in range(25):  # more than the ring holds (20)
        v.add_fact(ENTITY, f"Shingle {n}", "context")
    assert snapshot_of(outside) == before
    kept = v.storage.backups(items(v))
    assert kept and all(not p.is_symlink() for p in kept)
    assert len(kept) == v.config.storage.backups_per_file
    assert len([p for p in ring.iterdir() if p.is_symlink()]) == 12  # left, reported
    problems = doctor.run(v).problems
    assert len([p for p in problems if "symlink" in p.message and p.severity == "error"]) == 12

    items(v).write_text("{ not json")  # a corrupt file: repair restores a real version
    report = doctor.run(v, repair=True)
    assert any(p.repaired and "restored" in p.repaired for p in report.problems)
    assert b"Shingle 24" in items(v).read_bytes()
    assert snapshot_of(outside) == before


def test_doctor_repair_does_not_quarantine_through_a_symlink(
    tmp_path: Path, v: vault_module.Vault
) -> None:
    outside = outside_folder(tmp_path, n=3)
    (v.paths.state_dir / "quarantine").symlink_to(outside, target_is_directory=True)
    stray = v.paths.life_dir / ENTITY / ".items.json.123.abcd.vault-tmp"
    stray.write_text("half a write")
    before = snapshot_of(outside)

    result = cli(v.root, "doctor", "--repair", "--json")

    assert result.returncode == 1, result.stderr
    problems = {p["path"]: p for p in json.loads(result.stdout)["problems"]}
    assert "not moved" in problems[v.paths.relative(stray)]["message"]
    assert problems[".vault/quarantine"]["severity"] == "error"
    assert stray.read_text() == "half a write"
    assert snapshot_of(outside) == before


def test_search_cache_behind_a_symlink(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = outside_folder(tmp_path, n=3)
    (v.paths.state_dir / "cache").symlink_to(outside, target_is_directory=True)
    before = snapshot_of(outside)

    result = cli(v.root, "search", "roof", "--mode", "bm25", "--json")

    assert result.returncode == 0, result.stderr
    assert "roof" in result.stdout.lower()  # it answers, from memory
    assert snapshot_of(outside) == before
    assert sorted(p.name for p in outside.iterdir()) == sorted(before)


def test_search_index_file_symlink_is_replaced_not_written(
    tmp_path: Path, v: vault_module.Vault
) -> None:
    assert cli(v.root, "search", "roof", "--mode", "bm25").returncode == 0
    docs = v.paths.state_dir / "cache" / "search" / "docs.jsonl"
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b"not yours\n")
    docs.unlink()
    docs.symlink_to(outside)
    v.add_fact("areas/home", "Roof insurance renewed", "status")  # the index must save

    result = cli(v.root, "search", "insurance", "--mode", "bm25")

    assert result.returncode == 0, result.stderr
    assert "insurance" in result.stdout.lower()
    assert outside.read_bytes() == b"not yours\n"


def test_embedding_cache_folder_behind_a_symlink(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = outside_folder(tmp_path, n=5)
    cache = semantic.EmbeddingCache(v.paths.state_dir / "cache" / "embeddings", root=v.root)
    folder = cache.identity_dir("some-model|v1")
    folder.parent.mkdir(parents=True)
    folder.symlink_to(outside, target_is_directory=True)
    before = snapshot_of(outside)
    with pytest.raises(errors.SymlinkError, match="does not write through symlinks"):
        cache.compact("some-model|v1")
    assert snapshot_of(outside) == before


def test_watch_snapshot_behind_a_symlink(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = outside_folder(tmp_path, n=2)
    (v.paths.state_dir / "cache").mkdir(exist_ok=True)
    (v.paths.state_dir / "cache" / "watch").symlink_to(outside, target_is_directory=True)
    before = snapshot_of(outside)
    path = snapshot.Snapshot.location(v.root, "cli")
    snap = snapshot.Snapshot(snapshot.scan_vault(v.root).stats, agents=frozenset())
    with pytest.raises(errors.SymlinkError):
        snap.save(path, v.root)
    assert snapshot.Snapshot.load(path, v.root) is None  # nor read from out there
    assert snapshot_of(outside) == before


def test_config_file_symlink(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = tmp_path / "dotfiles.toml"
    outside.write_text("[storage]\nbackups_per_file = 3\n")
    cfg = v.paths.state_dir / config.CONFIG_NAME
    cfg.unlink()
    cfg.symlink_to(outside)
    with pytest.raises(errors.SymlinkError):
        config.VaultConfig.load(v.root)
    reopened = vault_module.Vault(v.root)
    assert reopened.config_error is not None  # reported, defaults used
    with pytest.raises(errors.CorruptFileError, match="symlink"):  # leads out: refused first
        config.VaultConfig().save(reopened.storage, replace=True)
    assert outside.read_text() == "[storage]\nbackups_per_file = 3\n"
    result = cli(v.root, "info")
    assert result.returncode == 0 and "is a symlink" in result.stdout + result.stderr


def test_in_vault_file_link_is_read_but_not_written(v: vault_module.Vault) -> None:
    real = items(v, "areas/home")
    link = items(v)
    link.unlink()
    link.symlink_to(real)
    before = real.read_bytes()
    assert [f.fact for f in v.entity(ENTITY).facts] == ["The house is blue"]  # read through
    with pytest.raises(errors.SymlinkError, match=r"items.json is a symlink"):
        v.add_fact(ENTITY, "New gutters", "status")
    assert real.read_bytes() == before and link.is_symlink()
    problems = {p.path: p for p in doctor.run(v).problems}
    assert problems[v.paths.relative(link)].severity == "warning"
    assert "refuses to write through it" in problems[v.paths.relative(link)].message

    note = v.paths.daily_file(v.now().astimezone().date(), None)
    copy = note.with_name("2000-01-01.md")
    note.rename(copy)
    note.symlink_to(copy)
    with pytest.raises(errors.SymlinkError):
        v.append_daily("Another call")
    assert "Another call" not in copy.read_text()


def test_in_vault_folder_link_refuses_writes(v: vault_module.Vault) -> None:
    home = v.paths.life_dir / "areas" / "home"
    linked = v.paths.life_dir / "projects" / "alias"
    linked.symlink_to(home, target_is_directory=True)
    before = snapshot_of(home)
    with pytest.raises(errors.SymlinkError, match="alias is a symlink"):
        v.add_fact("projects/alias", "x", "context")
    with pytest.raises(errors.SymlinkError):
        v.write_summary("projects/alias", "# Alias\n", expected=vault_module.Check.SKIP)
    with pytest.raises(errors.SymlinkError):
        v.archive_entity("projects/alias")
    with pytest.raises(errors.SymlinkError):
        v.create_entity("projects/alias/inner")
    assert snapshot_of(home) == before and linked.is_symlink()

    daily = v.paths.daily_dir(None)
    moved = v.paths.root / "global" / "elsewhere"
    daily.rename(moved)
    daily.symlink_to(moved, target_is_directory=True)
    notes = snapshot_of(moved)
    with pytest.raises(errors.SymlinkError, match="daily is a symlink"):
        v.append_daily("Another call")
    assert snapshot_of(moved) == notes


def test_new_files_are_never_opened_through_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep\n")
    name = tmp_path / ".items.json.1.abcd.vault-tmp"
    name.symlink_to(outside)
    with pytest.raises(FileExistsError):
        safe_fs.write_new(name, b"overwritten")
    (tmp_path / "log").symlink_to(outside)
    with pytest.raises(errors.SymlinkError):
        safe_fs.append(tmp_path / "log", b"appended")
    assert outside.read_bytes() == b"keep\n"


def test_doctor_reports_every_symlink(tmp_path: Path, v: vault_module.Vault) -> None:
    outside = outside_folder(tmp_path, n=1)
    life = v.paths.life_dir
    (life / "areas" / "out").symlink_to(outside, target_is_directory=True)
    (life / "areas" / "home" / "notes.md").symlink_to(outside / next(iter(snapshot_of(outside))))
    (life / "areas" / "same").symlink_to(life / "areas" / "home", target_is_directory=True)
    (life / "areas" / "home" / "broken.md").symlink_to(tmp_path / "nothing")
    (v.paths.state_dir / "extra").symlink_to(life, target_is_directory=True)
    problems = {p.path: p for p in doctor.run(v).problems}
    assert problems["global/life/areas/out"].severity == "error"
    assert "outside the vault" in problems["global/life/areas/out"].message
    assert problems["global/life/areas/home/notes.md"].severity == "error"
    assert problems["global/life/areas/same"].severity == "warning"
    assert "broken symlink" in problems["global/life/areas/home/broken.md"].message
    assert problems[".vault/extra"].severity == "error"
