"""A vault made ready for Syncthing or git: what travels, what stays, who merges.

What travels between devices: every file of the vault (global/, agents/), the vault's
settings (`.vault/config.toml`) and the review queue (`.vault/review/`: a person at one
device approves what an agent on another proposed). What stays on each device
(`LOCAL`): the caches and search indexes, locks, temporary files, the backup ring and the
quarantine, merged conflict files, the heartbeat's state (its cursor and lease say what
*this* device's heartbeat did), the agents' MCP tokens (made where the server that checks
them runs), and the audit log. The audit log stays because every process on every device
appends to it many times a second: synced, nearly every concurrent write would turn it
into a conflict copy of a file that grows to tens of MB, while what it describes travels
anyway (each fact names its agent, source and times; the review queue travels whole).

Both give this device an id of its own (`device_id`, kept in `.vault/sync/device`, which
stays on the device): from then on an access counted here is also counted under that id
in the fact's `metadata.accessBy`, so that a merge sums what each device counted, exactly,
without knowing which version both last shared (a grow-only counter per device).

`syncthing_ignore(root)` writes the vault's `.stignore` and `git_setup(root, driver)` its
`.gitignore` and `.gitattributes` (the fact files, daily notes, documents and agent
memory files merged by vault-app's driver) and registers the driver in the repository's
config (`merge.vault-app.driver`). Each writes its lines between two marker lines and
keeps every other line as the person wrote it; running it again changes nothing.
"""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Sequence
from pathlib import Path

from vault_app.core import errors, layout, safe_fs, storage

LOCAL = (
    "cache",
    "locks",
    "tmp",
    "backups",
    "quarantine",
    "sync",
    "heartbeat",
    storage.AUDIT_NAME,
    "agent-tokens.json",
)
DEVICE_FILE = "device"  # in .vault/sync/: this device's id (never synced)
BEGIN = "vault-app: begin (written by `vault-app sync`; your own lines go outside)"
END = "vault-app: end"
DRIVER = "vault-app"
MERGED_BY_DRIVER = (  # .gitattributes patterns (vault-relative, any depth)
    "items.json",
    "facts.json",
    "*.md",
    "profile.json",
)


def syncthing_lines() -> list[str]:
    """The `.stignore` patterns: per-device state, and vault-app's own temporary files
    (Syncthing's are its own business)."""
    state = layout.STATE_DIR
    lines = [f"/{state}/{name}" for name in LOCAL]
    lines.append(f"(?d)*{storage.TEMP_SUFFIX}")
    return lines


def git_ignore_lines() -> list[str]:
    state = layout.STATE_DIR
    return [*(f"/{state}/{name}" for name in LOCAL), f"*{storage.TEMP_SUFFIX}", "*.sync-conflict-*"]


def git_attribute_lines() -> list[str]:
    return [f"{pattern} merge={DRIVER}" for pattern in MERGED_BY_DRIVER]


def device_id(root: Path) -> str | None:
    """This device's id in the vault at `root`, None before a sync set-up made one."""
    try:
        text = (root / layout.STATE_DIR / "sync" / DEVICE_FILE).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text.isalnum() and 4 <= len(text) <= 64 else None


def ensure_device_id(root: Path) -> str:
    """This device's id, made (random, 12 hex digits) when it has none yet."""
    known = device_id(root)
    if known is not None:
        return known
    folder = root / layout.STATE_DIR / "sync"
    safe_fs.check_tree(root, folder / DEVICE_FILE)
    folder.mkdir(parents=True, exist_ok=True)
    made = secrets.token_hex(6)
    temp = folder / f".{DEVICE_FILE}{storage.TEMP_SUFFIX}"
    temp.write_text(made + "\n", "ascii")
    temp.replace(folder / DEVICE_FILE)
    return made


def syncthing_ignore(root: Path) -> tuple[Path, bool]:
    """Write the vault's `.stignore` (and give this device its id); (its path, whether
    it changed)."""
    ensure_device_id(root)
    return _write_block(root, root / ".stignore", syncthing_lines(), "//")


def git_setup(root: Path, driver: Sequence[str]) -> list[tuple[Path, bool]]:
    """Write `.gitignore` and `.gitattributes` and register `driver` (the command git runs,
    followed by `%O %A %B %P`) as the `vault-app` merge driver of the repository at or
    above `root`. Raises `errors.VaultError` when `root` is in no git repository."""
    repo = _git(root, "rev-parse", "--show-toplevel").strip()
    if not repo:
        raise errors.NotFoundError(f"{root} is in no git repository: run `git init` first")
    ensure_device_id(root)
    written = [
        _write_block(root, root / ".gitignore", git_ignore_lines(), "#"),
        _write_block(root, root / ".gitattributes", git_attribute_lines(), "#"),
    ]
    command = " ".join([*driver, "%O", "%A", "%B", "%P"])
    _git(root, "config", f"merge.{DRIVER}.name", "vault-app: facts by id, notes by entry")
    _git(root, "config", f"merge.{DRIVER}.driver", command)
    return written


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise errors.NotFoundError("git is not installed") from None
    if done.returncode != 0:
        if args[:1] == ("rev-parse",):
            return ""
        raise errors.VaultError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def _write_block(root: Path, path: Path, lines: list[str], comment: str) -> tuple[Path, bool]:
    """`path` with `lines` between the marker lines (replacing an older block), every line
    outside it kept; written atomically, only when it changes."""
    old = path.read_text("utf-8") if path.exists() else ""
    begin, end = f"{comment} {BEGIN}", f"{comment} {END}"
    kept: list[str] = []
    inside = False
    for line in old.splitlines():
        if line.strip() == begin:
            inside = True
        elif line.strip() == end and inside:
            inside = False
        elif not inside:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    block = [begin, *lines, end]
    text = "\n".join([*kept, *([""] if kept else []), *block]) + "\n"
    if text == old:
        return path, False
    safe_fs.check_tree(root, path)
    temp = path.with_name(f".{path.name}{storage.TEMP_SUFFIX}")
    temp.write_text(text, "utf-8")
    temp.replace(path)
    return path, True
