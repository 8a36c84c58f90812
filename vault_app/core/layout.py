"""Where things live in a PARA vault: addresses, id validation and enumeration.

An entity is a folder under a PARA root (`projects`, `areas`, `resources`, `archives`)
holding `items.json` (or another writer's `facts.json`) and/or `summary.md`. Its id is the
folder's path from the PARA root (`areas/people/jane`); its address adds a scope:
`areas/people/jane` or `global:areas/people/jane` for the user's graph under
`global/life/`, `agent:finance:projects/budget` for an agent's workspace under
`agents/finance/workspace/`.

Every id is validated before it touches the filesystem: no empty or whitespace-padded
parts, no `.`/`..`, no absolute paths or drive letters, no backslashes or control
characters, no part over 255 bytes, and nothing that resolves (through symlinks) outside
the vault. A name made new (an entity or agent created, an entity moved) must also be
portable and unspoofable (`name_problem`): not a name Windows reserves, no trailing dot,
no invisible or bidirectional-control characters, no letters of two scripts that only
look alike, in NFC form, within length limits, and not the same as a sibling's but for
case or normalisation. Folders already on disk open whatever their names (`doctor`
warns about the ones that would be refused now).
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import functools
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import errors

PARA_CATEGORIES = ("projects", "areas", "resources", "archives")
FACT_FILE_NAMES = ("items.json", "facts.json")
SUMMARY_NAME = "summary.md"
PRINCIPLES_NAME = "AGENTS.md"  # global/AGENTS.md: the principles, which people write
STATE_DIR = ".vault"
GLOBAL_SCOPE = "global"
USER_ENTITY = "areas/me"  # "Me": the person the notes speak for (the heartbeat fills it)

_DAILY_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")
_BAD_PART = re.compile(r"[\x00-\x1f\x7f\\/:*?\"<>|]")
_AGENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_PART_BYTES = 255  # a file name on Linux, macOS and Windows (in UTF-8 bytes)
MAX_NEW_PATH_BYTES = 1024  # a new entity id: leaves room below PATH_MAX for the vault's own

# What `Vault.create` writes in a new vault
LIFE_README = """\
# Life — the shared knowledge graph

PARA folders: `projects/` (active work with a goal), `areas/` (ongoing
responsibilities, with `people/` and `companies/` groups), `resources/` (reference
topics) and `archives/` (inactive). Each entity holds `summary.md` (read first) and
`items.json` (atomic facts, superseded and never deleted).
"""

PRINCIPLES_STUB = """\
# Principles

The single, highest-priority source of rules for every agent of this vault.
"""


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
        if len(part.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES:
            raise errors.InvalidIdError(
                f"invalid entity id: part {part[:40]!r}… is longer than {MAX_PART_BYTES} "
                "bytes, more than a file system allows in one name"
            )
    if parts[0] not in PARA_CATEGORIES:
        raise errors.InvalidIdError(
            f"invalid entity id {path!r}: must start with one of {', '.join(PARA_CATEGORIES)}"
        )
    if len(parts) < 2:
        raise errors.InvalidIdError(
            f"invalid entity id {path!r}: name the entity inside {parts[0]}/"
        )
    return path


# -- names made new: portable and unspoofable ---------------------------------------------

# Device names Windows reserves in every folder, with any extension and in any case
_WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{port}{n}" for port in ("COM", "LPT") for n in [*"123456789", "¹", "²", "³"]]
)
# Characters that show as nothing (or as a space) and so make two names look the same.
# Categories: Cc control, Cf format (zero-width, bidirectional controls, soft hyphen,
# BOM…), Cs surrogate, Co private use, Cn unassigned, Zl/Zp line and paragraph
# separators; any space but U+0020; and letters or marks drawn as nothing.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_INVISIBLE_LETTERS = frozenset(
    "\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))  # variation selectors
)
# Scripts that may share one name (Unicode TS #39, "highly restrictive"): Japanese,
# Chinese and Korean names mix Han with their own scripts and with Latin
_SCRIPT_MIXES = (
    frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
    frozenset({"Latin", "Han", "Bopomofo"}),
    frozenset({"Latin", "Han", "Hangul"}),
)
_SCRIPT_OF_PREFIX = (  # the character name's start -> the script (None: any script)
    ("CJK ", "Han"),
    ("IDEOGRAPHIC ", "Han"),
    ("KATAKANA-HIRAGANA ", None),
    ("HALFWIDTH KATAKANA", "Katakana"),
    ("HALFWIDTH HANGUL", "Hangul"),
    ("FULLWIDTH LATIN", "Latin"),
    ("MODIFIER LETTER", None),
)


def _script(char: str) -> str | None:
    """The script of a letter, from its Unicode name (the standard library has no script
    property): `LATIN SMALL LETTER A` -> Latin, `CYRILLIC SMALL LETTER A` -> Cyrillic."""
    name = unicodedata.name(char, "")
    for prefix, script in _SCRIPT_OF_PREFIX:
        if name.startswith(prefix):
            return script
    first = name.split(" ", 1)[0]
    return first.title() if first else None


def name_problem(part: str) -> str | None:
    """Why `part` makes a poor new file or folder name, or None if it is a good one.

    Legal on Linux but not portable: a name Windows reserves (`con`, `nul.txt`, `COM1`…),
    a trailing dot or space, over 255 bytes. Not unspoofable: characters drawn as nothing
    or that reorder text (zero-width, bidirectional controls), odd spaces, letters of two
    scripts that only look alike (a Cyrillic `а` in a Latin name), a form other than NFC
    (`é` as `e` + accent, which would make a second `é` entity beside the first).
    """
    if len(part.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES:
        return f"is longer than {MAX_PART_BYTES} bytes"
    if part.endswith((".", " ")):
        return "ends with a dot or a space (Windows drops them)"
    if part.split(".", 1)[0].rstrip(" ").upper() in _WINDOWS_RESERVED:
        return "is a device name Windows reserves (con, prn, aux, nul, com1-9, lpt1-9)"
    if part.isascii() and part.isprintable():
        return None  # the common case: nothing below can apply
    if any("\ud800" <= char <= "\udfff" for char in part):
        return "is not valid UTF-8 (other systems cannot show it)"
    for char in part:
        category = unicodedata.category(char)
        if (category in _INVISIBLE_CATEGORIES and char != " ") or char in _INVISIBLE_LETTERS:
            name = unicodedata.name(char, "unnamed")
            return (
                "holds an invisible, text-reordering or odd space character "
                f"(U+{ord(char):04X} {name})"
            )
    if not unicodedata.is_normalized("NFC", part):
        return "is not in NFC form (write accented letters as one character)"
    scripts = {_script(c) for c in part if unicodedata.category(c).startswith("L")} - {None}
    if len(scripts) > 1 and not any(scripts <= mix for mix in _SCRIPT_MIXES):
        return (
            f"mixes letters of {' and '.join(sorted(str(s) for s in scripts))}, which can "
            "look alike (use one script per name)"
        )
    return None


def name_key(part: str) -> str:
    """What `part` is on a case-insensitive or normalising file system (Windows, macOS):
    two names with the same key there are one folder."""
    return unicodedata.normalize("NFC", part).casefold()


def validate_new_agent_id(agent_id: str) -> str:
    """`validate_agent_id`, and a portable name (`name_problem`) for a new agent."""
    validate_agent_id(agent_id)
    reason = name_problem(agent_id)
    if reason:
        raise errors.InvalidIdError(f"invalid new agent id {agent_id!r}: it {reason}")
    return agent_id


def portability_problem(path: str) -> str | None:
    """The first part of an entity id (or agent id) that `name_problem` refuses, with why."""
    for part in path.split("/"):
        reason = name_problem(part)
        if reason:
            return f"{part!r} {reason}"
    return None


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


def as_ref(ref: EntityRef | str) -> EntityRef:
    """`ref` itself, or the address parsed (`EntityRef.parse`)."""
    return ref if isinstance(ref, EntityRef) else EntityRef.parse(ref)


def resolve_reference(
    reference: str, agent: str | None, exists: Callable[[EntityRef], bool]
) -> EntityRef | None:
    """The entity a relatedEntities id names, or None: the one rule, for every face.

    An agent's fact (`agent` set) may name its own workspace's entity by a bare id, which
    is tried first, then the global one (a `global:` prefix skips the agent's); an entity
    that was archived is followed into archives/. `exists` says whether a candidate is
    there (on disk for `Vault.resolve_reference`, in the last scan for the window's fact
    dialog); the first that exists wins. An id that does not parse names nothing.
    """
    try:
        ref = EntityRef.parse(reference)
    except errors.InvalidIdError:
        return None
    if ref.agent is None and agent is not None and not reference.startswith("global:"):
        candidates = [EntityRef(agent, ref.path), ref]
    else:
        candidates = [ref]
    for candidate in list(candidates):
        if candidate.category != "archives":
            rest = candidate.path.split("/", 1)[1]
            candidates.append(candidate.with_path(f"archives/{rest}"))
    return next((candidate for candidate in candidates if exists(candidate)), None)


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
        return self.global_dir / PRINCIPLES_NAME

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

    def existing_entity_dir(self, ref: EntityRef) -> Path:
        """The folder of an entity that exists; NotFoundError naming what is missing (its
        agent, or the entity) otherwise."""
        if ref.agent is not None and not self.agent_dir(ref.agent).is_dir():
            raise errors.NotFoundError(f"no agent {ref.agent!r} in {self.root}")
        folder = self.entity_dir(ref)
        if not folder.is_dir():
            raise errors.NotFoundError(f"no entity {ref} (looked in {folder})")
        return folder

    def holds_entity(self, ref: EntityRef) -> bool:
        """Whether an entity folder with a fact file or a summary is at `ref`."""
        folder = self.para_root(ref.agent) / ref.path
        return (
            (folder / "items.json").is_file()
            or (folder / "facts.json").is_file()
            or (folder / SUMMARY_NAME).is_file()
        )

    @functools.cached_property
    def _resolved_root(self) -> Path:
        # resolved once: were the root re-pointed later, paths under its new target would
        # be refused (never wrongly let through)
        return self.root.resolve()

    @functools.cached_property
    def _root_prefix(self) -> str:
        return os.path.join(str(self.root), "")

    def ensure_inside(self, path: Path) -> Path:
        """Raise unless `path`, with its symlinks resolved, stays inside the vault."""
        if self.plainly_inside(str(path)):
            return path
        root = self._resolved_root
        resolved = path.resolve()
        if resolved != root and root not in resolved.parents:
            raise errors.InvalidIdError(f"{path} resolves to {resolved}, outside the vault {root}")
        return path

    def plainly_inside(self, path: str) -> bool:
        """Whether `path` is spelled under the root, with no `..`, and no part of it below
        the root is a symlink: then it resolves under the resolved root by construction,
        which a few `lstat`s tell (in C) for a tenth of `Path.resolve`'s time. Anything
        else (a symlink, `..`, another spelling, Windows' junctions) is for `resolve`."""
        prefix = self._root_prefix
        if os.name != "posix" or not path.startswith(prefix):
            return False
        parts = path[len(prefix) :].split("/")
        if ".." in parts:
            return False
        current = prefix[:-1]
        for part in parts:
            current = f"{current}/{part}"
            try:
                if stat.S_ISLNK(os.lstat(current).st_mode):
                    return False
            except FileNotFoundError:
                return True  # nothing below a missing part exists, symlinks included
            except OSError:
                return False  # (a file where a folder should be, permissions): resolve says
        return True

    def check_new_entity(self, ref: EntityRef) -> Path:
        """The folder of an entity about to be created or moved to, after checking every
        part of its id that does not exist yet: a portable, unspoofable name
        (`name_problem`) not taken, but for case or normalisation, by a sibling. Parts
        that exist already are not judged: an existing vault keeps working."""
        folder = self.entity_dir(ref)
        size = len(ref.path.encode("utf-8", "surrogatepass"))
        if size > MAX_NEW_PATH_BYTES:
            raise errors.InvalidIdError(
                f"invalid new entity id {ref.path[:60]!r}…: {size} bytes, over {MAX_NEW_PATH_BYTES}"
            )
        current = self.para_root(ref.agent)
        for part in ref.path.split("/"):
            current = current / part
            if os.path.lexists(current):
                continue
            reason = name_problem(part)
            if reason:
                raise errors.InvalidIdError(
                    f"invalid new entity id {ref.path!r}: {part!r} {reason}"
                )
            twin = same_name_sibling(current)
            if twin is not None:
                raise errors.AlreadyExistsError(
                    f"cannot create {ref.path!r}: {twin.name!r} is there already, the same "
                    "name on Windows and macOS (they ignore case and normalise accents)"
                )
        return folder

    def check_new_agent(self, agent: str) -> Path:
        """The folder of an agent about to be created: a portable id not taken by a
        sibling but for case."""
        validate_new_agent_id(agent)
        folder = self.agent_dir(agent)
        twin = None if os.path.lexists(folder) else same_name_sibling(folder)
        if twin is not None:
            raise errors.AlreadyExistsError(
                f"cannot create agent {agent!r}: {twin.name!r} is there already, the same "
                "name on Windows and macOS (they ignore case)"
            )
        return folder

    def relative(self, path: Path) -> str:
        """The vault-relative POSIX path of `path` (for audit lines and messages)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def facts_file(self, folder: Path) -> Path | None:
        """The fact file of an entity folder: whatever is at its name, as the walk sees it
        (a FIFO or a folder there is the fact file, and reading it says what it is)."""
        for name in FACT_FILE_NAMES:
            candidate = folder / name
            if os.path.lexists(candidate):
                return candidate
        return None

    def facts_path(self, folder: Path) -> Path:
        """Where an entity folder's facts are (or will be written: `items.json`)."""
        return self.facts_file(folder) or folder / "items.json"

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
        reads: Callable[[str | None], bool] | None = None,
    ) -> Iterator[EntityFolder]:
        """Every entity of every scope (of those `reads` answers True for, if given)."""
        for agent in self.scopes():
            if reads is None or reads(agent):
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


def same_name_sibling(path: Path) -> Path | None:
    """Another entry of `path`'s folder whose name differs from `path`'s only by case or
    normalisation (one name on Windows and macOS), if there is one."""
    key = name_key(path.name)
    try:
        with os.scandir(path.parent) as listing:
            for entry in listing:
                if entry.name != path.name and name_key(entry.name) == key:
                    return Path(entry.path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return None


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
