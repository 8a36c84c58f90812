"""Where things live in a PARA vault: addresses, id validation and enumeration.

An entity is a folder under a PARA root (`projects`, `areas`, `resources`, `archives`)
holding `items.json` (or another writer's `facts.json`) and/or `summary.md`. Its id is the
folder's path from the PARA root (`areas/people/jane`); its address adds a scope:
`areas/people/jane` or `global:areas/people/jane` for the user's graph under
`global/life/`, `agent:finance:projects/budget` for an agent's workspace under
`agents/finance/workspace/`.

Every id is validated before it touches the filesystem: no empty or whitespace-padded
parts, no `.`/`..`, no absolute paths or drive letters, no backslashes or control
characters, and nothing that resolves (through symlinks) outside the vault.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import errors

PARA_CATEGORIES = ("projects", "areas", "resources", "archives")
FACT_FILE_NAMES = ("items.json", "facts.json")
SUMMARY_NAME = "summary.md"
STATE_DIR = ".vault"
GLOBAL_SCOPE = "global"

_DAILY_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
_BAD_PART = re.compile(r"[\x00-\x1f\x7f\\/:*?\"<>|]")
_AGENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def validate_agent_id(agent_id: str) -> str:
    if not isinstance(agent_id, str) or not _AGENT_ID.match(agent_id) or agent_id in {".", ".."}:
        raise errors.InvalidIdError(
            f"invalid agent id {agent_id!r}: use letters, digits, '-', '_' or '.' (max 64)"
        )
    return agent_id


def validate_entity_path(path: str) -> str:
    """Check an entity id such as `areas/people/jane`; return it unchanged."""
    if not isinstance(path, str) or not path:
        raise errors.InvalidIdError("empty entity id")
    if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        raise errors.InvalidIdError(f"invalid entity id {path!r}: absolute paths are not ids")
    parts = path.split("/")
    for part in parts:
        if not part:
            raise errors.InvalidIdError(f"invalid entity id {path!r}: empty path part")
        if part != part.strip():
            raise errors.InvalidIdError(f"invalid entity id {path!r}: part {part!r} has padding")
        if part in {".", ".."}:
            raise errors.InvalidIdError(f"invalid entity id {path!r}: '{part}' is not allowed")
        if _BAD_PART.search(part):
            raise errors.InvalidIdError(f"invalid entity id {path!r}: bad character in {part!r}")
        if part.startswith("."):
            raise errors.InvalidIdError(f"invalid entity id {path!r}: hidden part {part!r}")
    if parts[0] not in PARA_CATEGORIES:
        raise errors.InvalidIdError(
            f"invalid entity id {path!r}: must start with one of {', '.join(PARA_CATEGORIES)}"
        )
    if len(parts) < 2:
        raise errors.InvalidIdError(
            f"invalid entity id {path!r}: name the entity inside {parts[0]}/"
        )
    return path


@dataclass(frozen=True, order=True)
class EntityRef:
    """An entity's address: scope (`global` or an agent id) plus its PARA path."""

    agent: str | None
    path: str

    @classmethod
    def parse(cls, address: str) -> EntityRef:
        """Parse `areas/x`, `global:areas/x` or `agent:ID:projects/y`."""
        if not isinstance(address, str):
            raise errors.InvalidIdError(f"invalid entity address {address!r}")
        if address.startswith("agent:"):
            rest = address[len("agent:") :]
            agent, sep, path = rest.partition(":")
            if not sep:
                raise errors.InvalidIdError(
                    f"invalid entity address {address!r}: expected agent:ID:PATH"
                )
            return cls(validate_agent_id(agent), validate_entity_path(path))
        if address.startswith(GLOBAL_SCOPE + ":"):
            address = address[len(GLOBAL_SCOPE) + 1 :]
        return cls(None, validate_entity_path(address))

    @classmethod
    def canonical(cls, address: str) -> str | None:
        """`address` as `str(parse(address))` writes it, or None if it is no address:
        for comparing addresses that come from outside (signals, typed text)."""
        try:
            return str(cls.parse(address))
        except errors.InvalidIdError:
            return None

    @property
    def scope(self) -> str:
        return GLOBAL_SCOPE if self.agent is None else f"agent:{self.agent}"

    @property
    def category(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def title(self) -> str:
        return self.name.replace("-", " ").replace("_", " ").title()

    def __str__(self) -> str:
        return self.path if self.agent is None else f"agent:{self.agent}:{self.path}"

    def with_path(self, path: str) -> EntityRef:
        return EntityRef(self.agent, validate_entity_path(path))


@dataclass(frozen=True)
class VaultLayout:
    """Paths of a vault rooted at `root`; every path it returns is checked to stay inside."""

    root: Path

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def global_dir(self) -> Path:
        return self.root / "global"

    @property
    def life_dir(self) -> Path:
        return self.global_dir / "life"

    @property
    def agents_dir(self) -> Path:
        return self.root / "agents"

    @property
    def principles_file(self) -> Path:
        return self.global_dir / "AGENTS.md"

    def para_root(self, agent: str | None) -> Path:
        if agent is None:
            return self.life_dir
        return self.agent_dir(agent) / "workspace"

    def agent_dir(self, agent: str) -> Path:
        return self.agents_dir / validate_agent_id(agent)

    def daily_dir(self, agent: str | None) -> Path:
        return self.global_dir / "daily" if agent is None else self.agent_dir(agent) / "daily"

    def daily_file(self, day: dt.date, agent: str | None) -> Path:
        return self.daily_dir(agent) / f"{day.isoformat()}.md"

    def entity_dir(self, ref: EntityRef) -> Path:
        folder = self.para_root(ref.agent) / ref.path
        self.ensure_inside(folder)
        return folder

    def ensure_inside(self, path: Path) -> Path:
        """Raise unless `path`, with its symlinks resolved, stays inside the vault."""
        root = self.root.resolve()
        resolved = path.resolve()
        if resolved != root and root not in resolved.parents:
            raise errors.InvalidIdError(f"{path} resolves to {resolved}, outside the vault {root}")
        return path

    def relative(self, path: Path) -> str:
        """The vault-relative POSIX path of `path` (for audit lines and messages)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def facts_file(self, folder: Path) -> Path | None:
        for name in FACT_FILE_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
        return None

    # -- enumeration ---------------------------------------------------------------------

    def agent_ids(self) -> list[str]:
        if not self.agents_dir.is_dir():
            return []
        found = []
        for entry in os.scandir(self.agents_dir):
            if entry.is_dir(follow_symlinks=False) and _AGENT_ID.match(entry.name):
                found.append(entry.name)
        return sorted(found)

    def scopes(self) -> list[str | None]:
        return [None, *self.agent_ids()]

    def iter_entities(
        self,
        agent: str | None,
        skipped: list[tuple[Path, str]] | None = None,
        *,
        pool: concurrent.futures.Executor | None = None,
    ) -> Iterator[EntityFolder]:
        """Every entity folder of one scope, in path order (nested groups included).

        Symlinks are followed only to files that stay inside the vault; the others, and
        symlinked folders, are left out and listed in `skipped` with the reason. With a
        `pool`, folders are listed ahead of the walk by its threads: on a cold disk each
        listing waits for the disk, and many waits at once overlap. Same result.
        """
        base = self.para_root(agent)
        sink: list[tuple[Path, str]] = [] if skipped is None else skipped
        for category in PARA_CATEGORIES:
            top = base / category
            if top.is_symlink():
                sink.append((top, "symlinked PARA folder is not followed"))
            elif top.is_dir():
                yield from self._walk(top, category, agent, sink, pool)

    def para_folders(self) -> list[Path]:
        """The PARA category folders of every scope, in the order a walk visits them."""
        tops = [self.para_root(a) / category for a in self.scopes() for category in PARA_CATEGORIES]
        return [top for top in tops if top.is_dir() and not top.is_symlink()]

    def iter_all_entities(
        self,
        skipped: list[tuple[Path, str]] | None = None,
        *,
        pool: concurrent.futures.Executor | None = None,
    ) -> Iterator[EntityFolder]:
        for agent in self.scopes():
            yield from self.iter_entities(agent, skipped, pool=pool)

    def _walk(
        self,
        folder: Path,
        rel: str,
        agent: str | None,
        skipped: list[tuple[Path, str]],
        pool: concurrent.futures.Executor | None = None,
    ) -> Iterator[EntityFolder]:
        """Entities at and below `folder`, depth first in name order (one scandir each).

        Iterative, on path strings: a vault of 10,000 entities has over 10,000 folders,
        and a `Path` is made only for what is yielded.
        """
        # (folder, its id, its name if it must be checked as an id part, listing ahead)
        stack: list[tuple[str, str, str | None, _Ahead | None]] = [
            (os.fspath(folder), rel, None, None)
        ]
        try:
            while stack:
                path, rel, name, ahead = stack.pop()
                if name is not None and not _valid_part(name):
                    skipped.append((Path(path), "folder name is not a valid entity id part"))
                    continue
                if ahead is None:
                    files, subdirs, problems = self._list(path)
                else:
                    files, subdirs, problems = ahead[0].result()[ahead[1]]
                skipped.extend(problems)
                if "/" in rel and files:
                    facts = next((n for n in FACT_FILE_NAMES if n in files), None)
                    here = Path(path)
                    yield EntityFolder(
                        ref=EntityRef(agent, rel),
                        folder=here,
                        facts_file=here / facts if facts else None,
                        has_summary=SUMMARY_NAME in files,
                    )
                subdirs.sort()
                children = [(f"{path}{os.sep}{n}", f"{rel}/{n}", n) for n in subdirs]
                aheads: list[_Ahead | None] = [None] * len(children)
                if pool is not None:
                    valid = [i for i, child in enumerate(children) if _valid_part(child[2])]
                    for first in range(0, len(valid), _LIST_BATCH):
                        batch = valid[first : first + _LIST_BATCH]
                        future = pool.submit(self._list_many, [children[i][0] for i in batch])
                        for position, i in enumerate(batch):
                            aheads[i] = (future, position)
                pending = zip(reversed(children), reversed(aheads), strict=True)
                stack.extend((path, child_rel, n, ahead) for (path, child_rel, n), ahead in pending)
        finally:  # the caller stopped early: drop the listings not started yet
            for *_, ahead in stack:
                if ahead is not None:
                    ahead[0].cancel()

    def _list_many(self, folders: list[str]) -> list[_Listing]:
        return [self._list(folder) for folder in folders]

    def _list(self, folder: str) -> _Listing:
        """(entity file names, sub-folder names, problems) of one folder, in one scandir."""
        files: set[str] = set()
        subdirs: list[str] = []
        problems: list[tuple[Path, str]] = []
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as exc:
            return files, subdirs, [(Path(folder), f"cannot list folder: {exc.strerror}")]
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_symlink():
                reason = self._symlink_problem(Path(entry.path))
                if reason:
                    problems.append((Path(entry.path), reason))
                    continue
            if name in FACT_FILE_NAMES or name == SUMMARY_NAME:
                # whatever it is: a folder at a file's name is no entity to walk into, and
                # reading a FIFO, a socket or a folder there reports what it is
                files.add(name)
            elif entry.is_dir(follow_symlinks=False):
                subdirs.append(name)
        return files, subdirs, problems

    def _symlink_problem(self, link: Path) -> str | None:
        """Why a symlink is not followed, or None for a link to a file inside the vault."""
        try:
            target = link.resolve(strict=True)
        except (OSError, RuntimeError):
            return "broken symlink"
        root = self.root.resolve()
        if root not in target.parents:
            return f"symlink leads outside the vault (to {target})"
        if target.is_dir():
            return "symlinked folder is not followed"
        return None

    def daily_dates(self, agent: str | None) -> list[dt.date]:
        folder = self.daily_dir(agent)
        if not folder.is_dir():
            return []
        dates = []
        for entry in os.scandir(folder):
            day = parse_daily_name(entry.name)
            if day is not None and entry.is_file(follow_symlinks=False):
                dates.append(day)
        return sorted(dates)


_Listing = tuple[set[str], list[str], list[tuple[Path, str]]]
_Ahead = tuple["concurrent.futures.Future[list[_Listing]]", int]  # a batch, a position in it
_LIST_BATCH = 16  # folders listed per task of a walk's pool


def _valid_part(name: str) -> bool:
    return not _BAD_PART.search(name) and name == name.strip()


@dataclass(frozen=True)
class EntityFolder:
    """An entity found on disk by a walk (files not read yet)."""

    ref: EntityRef
    folder: Path
    facts_file: Path | None
    has_summary: bool


def parse_daily_name(name: str) -> dt.date | None:
    match = _DAILY_NAME.match(name)
    if not match:
        return None
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def is_vault(path: Path) -> bool:
    return (path / STATE_DIR).is_dir() or (path / "global" / "life").is_dir()


def find_vault(start: Path) -> Path | None:
    """The vault containing `start` (itself or an ancestor), if any."""
    current = start.resolve()
    for candidate in (current, *current.parents):
        if is_vault(candidate):
            return candidate
    return None
