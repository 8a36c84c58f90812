"""The `Vault` facade: every read and write of a PARA vault goes through here.

The vault's files are the only truth; a `Vault` holds no state beyond its settings, so
several processes (agents, the CLI, the GUI) can open the same folder at once. Reads are
lazy (a scan counts tiers from raw JSON; facts are validated when an entity is opened);
every write is a `storage.Transaction` (lock, optional hash check, backup, atomic replace,
audit line). Nothing here deletes a fact: edits supersede, archiving moves a folder.
"""

from __future__ import annotations

import codecs
import concurrent.futures
import contextlib
import datetime as dt
import enum
import itertools
import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from vault_app.core import (
    actors,
    config,
    daily,
    decay,
    errors,
    formats,
    layout,
    memory,
    models,
    prefetch,
    safe_fs,
    storage,
    synthesis,
)

T = TypeVar("T")

AGENT_DOCUMENTS = ("TACIT.md", "CONTEXT.md", "SOUL.md", "MEMORY.md", "USER.md")
PRINCIPLES = "AGENTS.md"


class Check(enum.Enum):
    """Pass `Check.ANY` as `expected` to write without the optimistic hash check."""

    ANY = "any"


Expected = str | None | Check


@dataclass
class Document:
    """A markdown file as read: its text (None if absent) and the hash to write against."""

    path: Path
    text: str | None
    digest: str | None
    error: errors.CorruptFileError | None = None  # set when the file exists but is unreadable

    @property
    def exists(self) -> bool:
        return self.text is not None


@dataclass
class EntityView:
    """One entity, read and validated: what the `show` command and the GUI display."""

    ref: layout.EntityRef
    folder: Path
    facts_path: Path
    file: formats.FactFile | None
    facts: list[models.Fact]
    invalid: list[errors.CorruptFileError]
    error: errors.CorruptFileError | None
    summary: Document

    def fact(self, fact_id: str) -> models.Fact:
        """The valid fact with this id; for an entry that does not validate, its error."""
        for fact in self.facts:
            if fact.id == fact_id:
                return fact
        if self.error is not None:
            raise self.error
        for index, entry in enumerate(self.file.raw if self.file is not None else []):
            if isinstance(entry, dict) and entry.get("id") == fact_id:
                place = f"[{index}]"
                for exc in self.invalid:
                    where = exc.location or ""
                    if where == place or where.startswith((f"{place}.", f"{place}[")):
                        raise exc
        raise errors.NotFoundError(f"no fact {fact_id!r} in {self.ref}")


@dataclass
class VaultScan:
    """Every entity with its tier counts, the agents, and what could not be read."""

    entities: list[models.EntitySummary]
    agents: list[str]
    problems: list[models.Problem]
    seconds: float
    files: dict[layout.EntityRef, formats.FactFile] = field(default_factory=dict)
    counted: bool = True  # False for `list_entities`: no file was read, counts are zero

    @property
    def fact_count(self) -> int:
        return sum(e.total for e in self.entities)

    def tier_totals(self) -> dict[str, int]:
        totals = {"hot": 0, "warm": 0, "cold": 0, "superseded": 0}
        for e in self.entities:
            totals["hot"] += e.hot
            totals["warm"] += e.warm
            totals["cold"] += e.cold
            totals["superseded"] += e.superseded
        return totals


@dataclass
class DecayRow:
    ref: layout.EntityRef
    fact: models.Fact
    tier: models.DecayTier
    days: int


@dataclass
class SynthesisResult:
    ref: layout.EntityRef | None  # None for an index.md
    path: Path
    changed: bool
    diff: str
    hot: int = 0
    warm: int = 0
    cold: int = 0


class Vault:
    """A PARA vault on disk. Cheap to create; safe to share between threads."""

    def __init__(
        self,
        root: Path | str,
        *,
        clock: decay.Clock = decay.system_clock,
        actor: str = "api",
        settings: config.VaultConfig | None = None,
    ) -> None:
        path = Path(root).expanduser()
        if not path.is_dir():
            raise errors.NotFoundError(f"no vault at {path}: not a folder")
        self.root = path.resolve()
        self.paths = layout.VaultLayout(self.root)
        self.config_error: errors.CorruptFileError | None = None
        if settings is None:
            try:
                settings = config.VaultConfig.load(self.root)
            except errors.CorruptFileError as exc:
                # A broken config.toml must not lock the user out (nor keep `doctor` from
                # reporting it): run on the defaults and report it with every scan.
                settings, self.config_error = config.VaultConfig(), exc
        self.config = settings
        self.clock = clock
        actors.parse(actor)  # an `agent:` actor without a valid id is refused here
        self.actor = actor
        self.storage = storage.Storage(self.paths, self.config.storage, clock, actor)

    def adopt_config(self, settings: config.VaultConfig) -> None:
        """Use `settings` from now on (e.g. just saved by the settings dialog): the decay
        policy, search and synthesis settings and the storage limits; a config error read
        at open is forgotten. Nothing is written: save the settings first."""
        self.config = settings
        self.storage.settings = settings.storage
        self.config_error = None

    @classmethod
    def create(cls, root: Path | str, **kwargs: Any) -> Vault:
        """Lay out an empty vault at `root` (which may exist if it is empty)."""
        path = Path(root).expanduser()
        if path.exists() and any(path.iterdir()):
            raise errors.AlreadyExistsError(f"{path} exists and is not empty")
        for category in layout.PARA_CATEGORIES:
            (path / "global" / "life" / category).mkdir(parents=True, exist_ok=True)
        (path / "global" / "daily").mkdir(parents=True, exist_ok=True)
        (path / "agents").mkdir(exist_ok=True)
        (path / layout.STATE_DIR).mkdir(exist_ok=True)
        vault = cls(path, **kwargs)
        vault._write_new(vault.paths.state_dir / config.CONFIG_NAME, config.DEFAULT_CONFIG_TOML)
        vault._write_new(vault.paths.life_dir / "README.md", _LIFE_README)
        vault._write_new(vault.paths.principles_file, _PRINCIPLES_STUB)
        vault.synthesize_indexes()
        return vault

    def _write_new(self, path: Path, text: str) -> None:
        self.storage.write(path, text.encode("utf-8"), expected=None, action="file.create")

    def now(self) -> dt.datetime:
        return decay.as_aware(self.clock())

    # -- scanning -----------------------------------------------------------------------

    def scan(self, *, keep_files: bool = False, read_ahead: bool | None = None) -> VaultScan:
        """Read every fact file and count tiers, without validating facts one by one.

        On this thread, with the garbage collector paused (a bulk load makes the collector
        the main cost): reading a cached file costs microseconds, and any other thread of
        this process would only wait for its turn at the interpreter (10,000 files on 2
        cores: 1.4 s alone, 1.9 s with one reading thread, 3.1 s with eight). On a cold
        disk each listing and read waits for the disk, so when listing and reading the
        first entities is slow (or with `read_ahead`), a `prefetch` process lists the
        folders and reads the files ahead of the walk with several requests in flight (a
        cold open: 5.3 s without, 2.2-2.4 s with). Without `keep_files`, only each file's
        tier fields are decoded (no dialect detection, no hash) and dropped once counted.
        """
        started = time.perf_counter()
        skipped: list[tuple[Path, str]] = []
        counter = decay.RawTierCounter(self.config.decay, self.now())
        files: dict[layout.EntityRef, formats.FactFile] = {}
        entities: list[models.EntitySummary] = []
        corrupt: list[models.Problem] = []
        with memory.paused(freeze=True):  # the summaries (and kept files) are long-lived
            walk = self.paths.iter_all_entities(skipped)
            head = list(itertools.islice(walk, 1))  # after listing a PARA folder, which
            first = time.perf_counter()  # may hold thousands of entities, cold or warm
            head += itertools.islice(walk, _COLD_PROBE - 1)
            if read_ahead is None:
                read_ahead = self._disk_is_cold(head, since=first)
            with prefetch.Running(self.paths.para_folders() if read_ahead else []):
                # Warm, the whole walk first and then every file is faster than the two
                # interleaved (0.95 s against 1.26 s); cold, each file read as soon as
                # its folder is listed follows the prefetch better (2.2 s against 2.6 s).
                folders = itertools.chain(head, walk) if read_ahead else head + list(walk)
                for folder in folders:
                    summary, loaded = self._summarize(folder, counter, keep=keep_files)
                    entities.append(summary)
                    if isinstance(loaded, errors.CorruptFileError):
                        corrupt.append(self._problem(loaded))
                    elif loaded is not None:
                        files[folder.ref] = loaded
        problems = [
            models.Problem(path=self.paths.relative(p), message=reason, severity="warning")
            for p, reason in skipped
        ]
        if self.config_error is not None:
            problems.append(self._problem(self.config_error))
        problems.extend(corrupt)
        return VaultScan(
            entities=entities,
            agents=self.paths.agent_ids(),
            problems=problems,
            seconds=time.perf_counter() - started,
            files=files,
        )

    def _disk_is_cold(self, head: list[layout.EntityFolder], since: float) -> bool:
        """Whether listing these first entities (the time `since`) and reading their
        files (through the storage's checks: they are then in the page cache for the
        scan) waited for the disk."""
        for path in (f.facts_file for f in head if f.facts_file is not None):
            try:
                self.storage.read(path)
            except (errors.VaultError, OSError):
                continue  # the scan reports it
        return time.perf_counter() - since > _COLD_ENTITY_S * max(1, len(head))

    def update_scan(self, scan: VaultScan, changed: Iterable[layout.EntityRef | str]) -> VaultScan:
        """`scan` with the entities in `changed` counted again (or dropped when they are
        gone, added when new): what live sync needs after a batch, at the cost of the
        changed files only."""
        started = time.perf_counter()
        counter = decay.RawTierCounter(self.config.decay, self.now())
        refs = {str(r): _ref(r) for r in changed}
        fresh: dict[str, models.EntitySummary] = {}
        corrupt: dict[str, models.Problem] = {}
        for address, ref in refs.items():
            folder_path = self.paths.entity_dir(ref)
            facts = self.paths.facts_file(folder_path) if folder_path.is_dir() else None
            has_summary = os.path.lexists(folder_path / layout.SUMMARY_NAME)  # as the walk
            if facts is None and not has_summary:
                continue  # gone (or no longer an entity)
            folder = layout.EntityFolder(ref, folder_path, facts, has_summary)
            summary, loaded = self._summarize(folder, counter, keep=False)
            fresh[address] = summary
            if isinstance(loaded, errors.CorruptFileError):
                corrupt[address] = self._problem(loaded)
        # in place, in the scan's order: no sort of 10,000 entities for a few changes
        entities: list[models.EntitySummary] = []
        for e in scan.entities:
            if e.address not in refs:
                entities.append(e)
            elif e.address in fresh:
                entities.append(fresh.pop(e.address))
        if fresh:  # new entities: everything in the walk's order again
            order = {c: i for i, c in enumerate(layout.PARA_CATEGORIES)}
            entities += fresh.values()
            entities.sort(  # global, then agents; PARA order; depth first
                key=lambda e: (
                    e.scope != layout.GLOBAL_SCOPE,
                    e.scope,
                    order.get(e.path.split("/", 1)[0], len(order)),
                    e.path.split("/"),
                )
            )
        touched = {self.paths.relative(self.paths.entity_dir(ref)) + "/" for ref in refs.values()}
        problems = [p for p in scan.problems if not any(p.path.startswith(t) for t in touched)]
        problems += corrupt.values()
        return VaultScan(
            entities=entities,
            agents=self.paths.agent_ids(),
            problems=problems,
            seconds=time.perf_counter() - started,
        )

    def list_entities(self) -> VaultScan:
        """Every entity and agent without reading a file (`counted` False): a 10,000-entity
        vault is listed in a fraction of a second, for a first view while `scan` counts."""
        started = time.perf_counter()
        skipped: list[tuple[Path, str]] = []
        with (
            memory.paused(freeze=True),
            concurrent.futures.ThreadPoolExecutor(max_workers=8) as lister,
        ):
            entities = [
                models.EntitySummary(
                    address=str(folder.ref),
                    scope=folder.ref.scope,
                    path=folder.ref.path,
                    folder=folder.folder,
                    facts_file=folder.facts_file,
                    has_summary=folder.has_summary,
                )
                for folder in self.paths.iter_all_entities(skipped, pool=lister)
            ]
        problems = [
            models.Problem(path=self.paths.relative(p), message=reason, severity="warning")
            for p, reason in skipped
        ]
        return VaultScan(
            entities=entities,
            agents=self.paths.agent_ids(),
            problems=problems,
            seconds=time.perf_counter() - started,
            counted=False,
        )

    def _summarize(
        self, folder: layout.EntityFolder, counter: decay.RawTierCounter, *, keep: bool = True
    ) -> tuple[models.EntitySummary, formats.FactFile | errors.CorruptFileError | None]:
        """An entity's tier counts; with `keep`, also its decoded file (else None)."""
        ref = folder.ref

        def summary(**counts: Any) -> models.EntitySummary:
            return models.EntitySummary(  # (model_construct is twice as slow)
                address=str(ref),
                scope=ref.scope,
                path=ref.path,
                folder=folder.folder,
                facts_file=folder.facts_file,
                has_summary=folder.has_summary,
                **counts,
            )

        if folder.facts_file is None:
            return summary(), None
        ff: formats.FactFile | None = None
        try:
            data = self.storage.read(folder.facts_file) or b""
            self.check_not_emptied(folder.facts_file, data)
            if keep:
                ff = formats.decode(folder.facts_file, data)
                tiers = formats.tier_file(ff.raw, ff.dialect.time_key)
            else:  # only the fields tiers need; no dialect detection nor hash
                tiers = formats.decode_tier_fields(folder.facts_file, data)
        except errors.CorruptFileError as exc:
            problem = exc.reason if exc.location is None else f"{exc.location}: {exc.reason}"
            return summary(problem=problem), exc
        counts = counter.count(tiers)
        # one model made with every field: pydantic's __setattr__ is slow
        return summary(total=tiers.total, **counts._asdict()), ff

    def _problem(self, exc: errors.CorruptFileError, severity: str = "error") -> models.Problem:
        return models.Problem(
            path=self.paths.relative(exc.path),
            location=exc.location,
            message=exc.reason,
            severity=severity,
        )

    def entity_refs(self, agent: str | Check | None = Check.ANY) -> list[layout.EntityRef]:
        """Entity addresses of one scope (an agent id, None for global) or of all."""
        walk = (
            self.paths.iter_all_entities()
            if agent is Check.ANY
            else self.paths.iter_entities(agent)
        )
        return [folder.ref for folder in walk]

    def agents(self) -> list[models.Agent]:
        result = []
        for agent_id in self.paths.agent_ids():
            folder = self.paths.agent_dir(agent_id)
            result.append(
                models.Agent(
                    id=agent_id,
                    folder=folder,
                    has_tacit=(folder / "TACIT.md").is_file(),
                    has_context=(folder / "CONTEXT.md").is_file(),
                    daily_dates=self.paths.daily_dates(agent_id),
                )
            )
        return result

    # -- entities -----------------------------------------------------------------------

    def _folder(self, ref: layout.EntityRef) -> Path:
        if ref.agent is not None and not self.paths.agent_dir(ref.agent).is_dir():
            raise errors.NotFoundError(f"no agent {ref.agent!r} in {self.root}")
        folder = self.paths.entity_dir(ref)
        if not folder.is_dir():
            raise errors.NotFoundError(f"no entity {ref} (looked in {folder})")
        return folder

    def _facts_path(self, folder: Path) -> Path:
        return self.paths.facts_file(folder) or folder / "items.json"

    def entity(self, ref: layout.EntityRef | str) -> EntityView:
        """Read one entity: its validated facts (bad entries listed apart) and summary."""
        ref = _ref(ref)
        folder = self._folder(ref)
        facts_path = self._facts_path(folder)
        try:
            data: bytes | errors.CorruptFileError | None = self.storage.read(facts_path)
        except errors.CorruptFileError as exc:
            data = exc
        return self.entity_view(
            ref, folder, facts_path, data, self._document_or_error(folder / layout.SUMMARY_NAME)
        )

    def entity_view(
        self,
        ref: layout.EntityRef,
        folder: Path,
        facts_path: Path,
        data: bytes | errors.CorruptFileError | None,
        summary: Document,
    ) -> EntityView:
        """Decode and validate an entity from bytes already read (sync or async)."""
        file: formats.FactFile | None = None
        error: errors.CorruptFileError | None = None
        facts: list[models.Fact] = []
        invalid: list[errors.CorruptFileError] = []
        try:
            if isinstance(data, errors.CorruptFileError):
                raise data
            if data is not None:
                self.check_not_emptied(facts_path, data)
                file = formats.decode(facts_path, data)
                facts, invalid = file.facts()
        except errors.CorruptFileError as exc:
            error = exc
        return EntityView(
            ref=ref,
            folder=folder,
            facts_path=facts_path,
            file=file,
            facts=facts,
            invalid=invalid,
            error=error,
            summary=summary,
        )

    def backup_with_facts(self, path: Path) -> tuple[Path, int] | None:
        """The newest kept version of a fact file that holds facts, and how many."""
        for candidate in self.storage.backups(path):
            try:
                data = self.storage.read_backup(candidate)  # no symlink followed
                kept = len(formats.decode(path, data).raw) if data else 0
            except (errors.VaultError, OSError):
                continue
            if kept:
                return candidate, kept
        return None

    def check_not_emptied(self, path: Path, data: bytes) -> None:
        """Refuse a blank fact file (0 bytes, white space, a BOM) whose backups hold
        facts: they were lost outside the app, and building on the blank file would let
        the backup ring rotate them away. A blank file never written with facts (a new
        entity, another writer's fresh file) is an entity without facts."""
        if not formats.is_blank(data):
            return
        kept = self.backup_with_facts(path)
        if kept is not None:
            backup, count = kept
            raise errors.CorruptFileError(
                path,
                f"file is empty ({len(data)} bytes) but its backup {backup.name} holds "
                f"{count} facts: they were lost outside vault-app; `vault-app doctor "
                "--repair` puts that version back (and keeps the empty file)",
            )

    def create_entity(self, ref: layout.EntityRef | str, summary: str | None = None) -> Path:
        ref = _ref(ref)
        if ref.agent is not None and not self.paths.agent_dir(ref.agent).is_dir():
            raise errors.NotFoundError(
                f"no agent {ref.agent!r}: create it first (vault-app agent create {ref.agent})"
            )
        folder = self.paths.entity_dir(ref)
        if self.paths.facts_file(folder) or (folder / layout.SUMMARY_NAME).exists():
            raise errors.AlreadyExistsError(f"entity {ref} already exists")
        self.paths.check_new_entity(ref)  # a new name must be portable and unspoofable
        safe_fs.make_dirs(self.root, folder)  # no symlinked folder on the way
        self.paths.ensure_inside(folder)
        text = f"# {ref.title}\n\n{summary.strip()}\n" if summary else f"# {ref.title}\n"
        self.storage.write(
            folder / layout.SUMMARY_NAME,
            text.encode("utf-8"),
            expected=None,
            action="entity.create",
            entity=str(ref),
        )
        self.storage.write(
            folder / "items.json", b"[]\n", expected=None, action="entity.create", entity=str(ref)
        )
        return folder

    def archive_entity(self, ref: layout.EntityRef | str) -> layout.EntityRef:
        """Move an entity under archives/, keeping its group; never over another entity."""
        ref = _ref(ref)
        if ref.category == "archives":
            raise errors.InvalidIdError(f"{ref} is already archived")
        rest = ref.path.split("/", 1)[1]
        return self._move_entity(ref, ref.with_path(f"archives/{rest}"), "entity.archive")

    def restore_entity(
        self, ref: layout.EntityRef | str, to: layout.EntityRef | str
    ) -> layout.EntityRef:
        """Move an entity back to exactly `to` (undoing an archive); refuses if taken."""
        ref, to = _ref(ref), _ref(to)
        if to.agent != ref.agent:
            raise errors.InvalidIdError(f"{ref} cannot move to another scope ({to})")
        return self._move_entity(ref, to, "entity.restore", suffix=False)

    def _move_entity(
        self, ref: layout.EntityRef, base: layout.EntityRef, action: str, *, suffix: bool = True
    ) -> layout.EntityRef:
        """Rename an entity folder under the locks of its files and of the target folder."""
        source = self._folder(ref)
        safe_fs.check_tree(self.root, source)  # a symlinked entity folder is not moved
        self.storage.check_state()  # nor is anything moved before a refusal to log it
        parent_lock = self.storage.lock(self.paths.para_root(ref.agent) / base.category)
        held = [
            self.storage.lock(source / name) for name in (*layout.FACT_FILE_NAMES, "summary.md")
        ]
        with parent_lock, contextlib.ExitStack() as stack:
            for lock in held:
                stack.enter_context(lock)
            if not source.is_dir():
                raise errors.NotFoundError(f"entity {ref} was moved or removed meanwhile")
            target, n = base, 1
            while self._taken(target):
                if not suffix:
                    raise errors.AlreadyExistsError(f"entity {target} already exists")
                n += 1
                target = base.with_path(f"{base.path}-{n}")
            destination = self.paths.entity_dir(target)
            self.paths.ensure_inside(destination.parent)
            safe_fs.make_dirs(self.root, destination.parent)
            os.rename(source, destination)
            storage.fsync_dir(source.parent)
            storage.fsync_dir(destination.parent)
        self.storage.audit(action, destination, entity=str(ref), to=str(target))
        return target

    def _taken(self, ref: layout.EntityRef) -> bool:
        """An entity folder is there, or one with the same name but for case or
        normalisation (the same folder on Windows and macOS)."""
        folder = self.paths.entity_dir(ref)
        return folder.exists() or layout.same_name_sibling(folder) is not None

    def restore_deleted(self, ref: layout.EntityRef | str) -> list[Path]:
        """Bring back an entity's files deleted outside the app, each as this vault last
        wrote or saw it (the newest version in its backup ring). Files still there are
        left alone. Returns the files restored; NotFoundError if the ring has none."""
        ref = _ref(ref)
        folder = self.paths.entity_dir(ref)
        restored: list[Path] = []
        for name in (*layout.FACT_FILE_NAMES, layout.SUMMARY_NAME):
            path = folder / name
            if path.exists() or (kept := self.storage.newest_intact_backup(path)) is None:
                continue
            if name in layout.FACT_FILE_NAMES and any(
                (folder / other).exists() for other in layout.FACT_FILE_NAMES
            ):
                continue
            safe_fs.make_dirs(self.root, folder)
            data = self.storage.read_backup(kept)
            self.storage.write(path, data, expected=None, action="entity.restore", entity=str(ref))
            restored.append(path)
        if not restored and not folder.is_dir():
            raise errors.NotFoundError(f"no backup of {ref} to restore it from")
        return restored

    def resolve_reference(
        self, reference: str, agent: str | None = None
    ) -> layout.EntityRef | None:
        """The entity a relatedEntities id names, following it into archives/ if moved
        (`layout.resolve_reference`, with an entity folder on disk as the test)."""

        def exists(candidate: layout.EntityRef) -> bool:
            folder = self.paths.para_root(candidate.agent) / candidate.path
            return (
                (folder / "items.json").is_file()
                or (folder / "facts.json").is_file()
                or (folder / layout.SUMMARY_NAME).is_file()
            )

        return layout.resolve_reference(reference, agent, exists)

    # -- facts -------------------------------------------------------------------------

    def _edit_facts(
        self,
        ref: layout.EntityRef,
        action: str,
        change: Callable[[formats.FactFile], T],
        **audit: Any,
    ) -> T:
        """Read-modify-write an entity's fact file under its lock; never shrink it."""
        folder = self._folder(ref)
        path = self._facts_path(folder)
        with self.storage.transaction(path) as tx:
            if not folder.is_dir():
                raise errors.NotFoundError(f"entity {ref} was moved or removed meanwhile")
            ff = formats.decode(path, tx.data or b"", tx.digest)
            if tx.data is not None:  # never build on a file that lost facts or would
                self.check_not_emptied(path, tx.data)
                formats.check_lossless(ff, tx.data)
            before = len(ff.raw)
            result = change(ff)
            if len(ff.raw) < before:  # the invariant that keeps every fact
                raise errors.DataLossError(
                    path, f"it would lose facts ({before} before, {len(ff.raw)} after)"
                )
            tx.commit(formats.encode(ff), action, entity=str(ref), **audit)
        return result

    def add_fact(
        self,
        ref: layout.EntityRef | str,
        text: str,
        category: models.FactCategory | str,
        *,
        related: Iterable[str] = (),
        source: str | None = None,
        agent_id: str | None = None,
        confidence: float = 1.0,
        metadata: dict[str, Any] | None = None,
        create: bool = False,
    ) -> models.Fact:
        """Append a new active fact; with `create`, make the entity if it is missing."""
        ref = _ref(ref)
        fields = _checked_fields(text, category, related, confidence, agent_id)
        _checked_json(source=source, metadata=metadata)
        if create and not self.paths.entity_dir(ref).is_dir():
            with contextlib.suppress(errors.AlreadyExistsError):
                self.create_entity(ref)
        fact_id = new_fact_id()

        def change(ff: formats.FactFile) -> models.Fact:
            entry = formats.new_entry(
                ff.dialect,
                fact_id=fact_id,
                now=self.now(),
                source=source,
                metadata=metadata,
                **fields,
            )
            ff.raw.append(entry)
            ff.invalidate()
            return ff.fact_at(len(ff.raw) - 1)

        return self._edit_facts(ref, "fact.add", change, factId=fact_id)

    def supersede_fact(
        self,
        fact_id: str,
        text: str,
        *,
        category: models.FactCategory | str | None = None,
        related: Iterable[str] | None = None,
        source: str | None = None,
        agent_id: str | None = None,
        confidence: float | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> tuple[models.Fact, models.Fact]:
        """Replace a fact by a new one; the old one stays, marked superseded, both linked."""
        _checked_json(source=source, metadata=metadata)
        ref = self.locate([fact_id])[fact_id]
        new_id = new_fact_id()

        def change(ff: formats.FactFile) -> tuple[models.Fact, models.Fact]:
            index = ff.index_of(fact_id)
            old = ff.fact_at(index)
            if not old.is_active:
                raise errors.InvalidFactError(
                    f"fact {fact_id} is already superseded by {old.superseded_by}; "
                    "supersede that one instead"
                )
            fields = _checked_fields(
                text,
                category if category is not None else old.category,
                related if related is not None else old.related_entities,
                confidence if confidence is not None else float(old.confidence),
                agent_id if agent_id is not None else old.agent_id,
            )
            entry = formats.new_entry(
                ff.dialect,
                fact_id=new_id,
                now=self.now(),
                source=source,
                metadata=metadata,
                supersedes=fact_id,
                **fields,
            )
            formats.mark_superseded(ff, ff.raw[index], new_id)
            ff.raw.append(entry)
            ff.invalidate()
            return ff.fact_at(index), ff.fact_at(len(ff.raw) - 1)

        return self._edit_facts(ref, "fact.supersede", change, factId=new_id, supersedes=fact_id)

    def set_fact_status(
        self, fact_id: str, active: bool, *, superseded_by: str | None = None
    ) -> models.Fact:
        """Reinstate a fact (`active`) or withdraw it again; the fact itself stays.

        This is how the app undoes its own edits without deleting anything: undoing an
        added fact retracts it (status superseded, by nothing, `metadata.retracted` says
        when and by whom); undoing a supersede reinstates the old fact and retracts the
        new one; redo reverses each step (`superseded_by` re-links the old fact).
        """
        ref = self.locate([fact_id])[fact_id]
        if superseded_by is not None:
            self.locate([superseded_by])

        def change(ff: formats.FactFile) -> models.Fact:
            index = ff.index_of(fact_id)
            ff.fact_at(index)  # an entry that does not validate is reported, not edited
            entry = ff.raw[index]
            metadata = entry.get("metadata")
            if active:
                entry["status"] = "active"
                if "supersededBy" in entry:
                    entry["supersededBy"] = None
                if isinstance(metadata, dict):
                    metadata.pop("retracted", None)
            elif superseded_by is not None:
                formats.mark_superseded(ff, entry, superseded_by)
                if isinstance(metadata, dict):
                    metadata.pop("retracted", None)
            else:
                formats.mark_superseded(ff, entry, None)
                if not isinstance(metadata, dict):
                    metadata = entry["metadata"] = {}
                metadata["retracted"] = {"at": formats.iso(self.now()), "by": self.actor}
            ff.invalidate()
            return ff.fact_at(index)

        action = "fact.reinstate" if active else "fact.retract"
        return self._edit_facts(ref, action, change, factId=fact_id, supersededBy=superseded_by)

    def mark_accessed(self, fact_ids: Iterable[str]) -> dict[str, int]:
        """Count one access of each fact (batched per file); returns the new counts."""
        wanted = list(dict.fromkeys(fact_ids))
        if not wanted:
            return {}
        where = self.locate(wanted)
        by_entity: dict[layout.EntityRef, list[str]] = {}
        for fid in wanted:
            by_entity.setdefault(where[fid], []).append(fid)
        counts: dict[str, int] = {}
        for ref, ids in by_entity.items():

            def change(ff: formats.FactFile, ids: list[str] = ids) -> None:
                now = self.now()
                for fid in ids:
                    index = ff.index_of(fid)
                    ff.fact_at(index)  # an entry that does not validate is reported, not edited
                    entry = ff.raw[index]
                    current = entry.get("accessCount", 0)
                    if not isinstance(current, int) or isinstance(current, bool) or current < 0:
                        raise errors.CorruptFileError(
                            ff.path,
                            f"accessCount is {current!r}, not a count",
                            f"[{index}].accessCount",
                        )
                    formats.mark_accessed(entry, now)
                    counts[fid] = entry["accessCount"]

            self._edit_facts(ref, "fact.access", change, factIds=ids)
        return counts

    def locate(self, fact_ids: Sequence[str]) -> dict[str, layout.EntityRef]:
        """The entity holding each fact id; raises NotFoundError naming the missing ones.

        Scans the raw bytes of fact files for the quoted id before decoding any of them,
        so finding a fact in a 200,000-fact vault costs about one read of it.
        """
        pending = {fid: f'"{fid}"'.encode() for fid in fact_ids}
        for fid in pending:
            if not fid or not isinstance(fid, str):
                raise errors.InvalidIdError(f"invalid fact id {fid!r}")
        found: dict[str, layout.EntityRef] = {}
        for folder in self.paths.iter_all_entities():
            if not pending:
                break
            if folder.facts_file is None:
                continue
            try:
                data = self.storage.read(folder.facts_file)
            except errors.CorruptFileError:
                continue
            if not data:
                continue
            hits = [fid for fid, needle in pending.items() if needle in data]
            if not hits:
                continue
            try:
                ids = set(formats.decode(folder.facts_file, data).ids())
            except errors.CorruptFileError:
                continue
            for fid in hits:
                if fid in ids:
                    found[fid] = folder.ref
                    del pending[fid]
        if pending:
            missing = ", ".join(sorted(pending))
            raise errors.NotFoundError(f"no fact with id {missing} in {self.root}")
        return found

    def fact(self, fact_id: str) -> tuple[layout.EntityRef, models.Fact]:
        ref = self.locate([fact_id])[fact_id]
        return ref, self.entity(ref).fact(fact_id)

    def fact_history(self, fact_id: str) -> list[tuple[layout.EntityRef, models.Fact]]:
        """The fact's whole lineage, oldest first, following pointers both ways.

        Each version is looked up in the whole vault (a version may sit in another entity,
        e.g. after an archive); a link to a missing version raises `NotFoundError`.
        """
        ref, fact = self.fact(fact_id)
        where = {fact.id: ref}

        def find(fid: str) -> models.Fact:
            found_ref, found = self.fact(fid)
            where[found.id] = found_ref
            return found

        lineage = models.walk_lineage(fact, find)
        return [(where[step.id], step) for step in lineage.chain]

    def related(self, ref: layout.EntityRef | str) -> dict[str, list[str]]:
        """relatedEntities both ways: what this entity's facts name, and who names it."""
        ref = _ref(ref)
        view = self.entity(ref)
        outgoing = sorted({r for f in view.facts if f.is_active for r in f.related_entities})
        incoming: set[str] = set()
        needle = f'"{ref.path}"'.encode()
        for folder in self.paths.iter_all_entities():
            if folder.ref == ref or folder.facts_file is None:
                continue
            try:
                data = self.storage.read(folder.facts_file)
                if not data or needle not in data:
                    continue
                facts, _ = formats.decode(folder.facts_file, data).facts()
            except errors.CorruptFileError:
                continue
            if any(ref.path in f.related_entities for f in facts if f.is_active):
                incoming.add(str(folder.ref))
        return {"outgoing": outgoing, "incoming": sorted(incoming)}

    # -- decay and synthesis ------------------------------------------------------------

    def tier(self, fact: models.Fact, at: dt.datetime | None = None) -> models.DecayTier:
        return self.config.decay.tier(fact, at or self.now())

    def decay_report(
        self, at: dt.datetime | None = None
    ) -> tuple[list[DecayRow], list[models.Problem]]:
        """Every active fact with its tier at `at` (default now)."""
        moment = decay.as_aware(at) if at else self.now()
        rows: list[DecayRow] = []
        problems: list[models.Problem] = []
        for ref in self.entity_refs():
            view = self.entity(ref)
            if view.error:
                problems.append(self._problem(view.error))
            problems.extend(self._problem(e) for e in view.invalid)
            for fact in view.facts:
                if fact.is_active:
                    days = decay.days_since(fact.last_touched, moment)
                    tier = self.config.decay.tier_for_days(days, fact.access_count)
                    rows.append(DecayRow(ref, fact, tier, days))
        return rows, problems

    def synthesize(
        self,
        refs: Iterable[layout.EntityRef | str] | None = None,
        *,
        dry_run: bool = False,
        at: dt.datetime | None = None,
    ) -> tuple[list[SynthesisResult], list[models.Problem]]:
        """Rewrite summary.md of each entity (all by default) and, for a full run, index.md."""
        moment = decay.as_aware(at) if at else self.now()
        targets = [_ref(r) for r in refs] if refs is not None else self.entity_refs()
        results: list[SynthesisResult] = []
        problems: list[models.Problem] = []
        for ref in targets:
            try:
                result, invalid = self._synthesize_one(ref, moment, dry_run)
            except errors.CorruptFileError as exc:
                problems.append(self._problem(exc))
                continue
            results.append(result)
            problems.extend(self._problem(exc) for exc in invalid)  # left out of the summary
        if refs is None:
            damaged: list[errors.CorruptFileError] = []
            results.extend(self.synthesize_indexes(dry_run=dry_run, at=moment, damaged=damaged))
            problems.extend(self._problem(exc) for exc in damaged)
        return results, problems

    def _synthesize_one(
        self, ref: layout.EntityRef, moment: dt.datetime, dry_run: bool
    ) -> tuple[SynthesisResult, list[errors.CorruptFileError]]:
        folder = self._folder(ref)
        facts_path = self._facts_path(folder)
        data = self.storage.read(facts_path)
        facts: list[models.Fact] = []
        invalid: list[errors.CorruptFileError] = []
        if data is not None:
            self.check_not_emptied(facts_path, data)
            facts, invalid = formats.decode(facts_path, data).facts()
        tiered = [(f, self.config.decay.tier(f, moment)) for f in facts if f.is_active]
        ordered = synthesis.order_for_summary(tiered)
        cold = sum(1 for _, t in tiered if t is models.DecayTier.COLD)
        block = synthesis.render_block(ordered, cold)
        path = folder / layout.SUMMARY_NAME
        hot = sum(1 for _, t in ordered if t is models.DecayTier.HOT)
        with self.storage.transaction(path) as tx:
            before = None if tx.data is None else storage.decode_text(path, tx.data)
            after = synthesis.merge_block(
                before, block, ref.title, synthesis.BEGIN, synthesis.END, path
            )
            changed = after != before
            if changed and not dry_run:
                tx.commit(_encoded_like(tx.data, after), "summary.synthesize", entity=str(ref))
        result = SynthesisResult(
            ref=ref,
            path=path,
            changed=changed,
            diff=synthesis.diff(self.paths.relative(path), before, after) if changed else "",
            hot=hot,
            warm=len(ordered) - hot,
            cold=cold,
        )
        return result, invalid

    def synthesize_indexes(
        self,
        *,
        dry_run: bool = False,
        at: dt.datetime | None = None,
        damaged: list[errors.CorruptFileError] | None = None,
    ) -> list[SynthesisResult]:
        """Refresh `global/life/index.md` and each agent's `workspace/index.md`.

        An index whose generated block is damaged is left as it is (its error goes to
        `damaged` when given); the others are still refreshed.
        """
        moment = decay.as_aware(at) if at else self.now()
        counter = decay.RawTierCounter(self.config.decay, moment)
        results = []
        for agent in self.paths.scopes():
            root = self.paths.para_root(agent)
            if not root.is_dir():
                continue
            rows: list[models.EntitySummary] = []
            gists: dict[str, str] = {}
            for folder in self.paths.iter_entities(agent):
                row, _ = self._summarize(folder, counter, keep=False)
                rows.append(row)
                if folder.has_summary:
                    with contextlib.suppress(errors.CorruptFileError):
                        doc = self.storage.read_text(folder.folder / layout.SUMMARY_NAME)
                        if doc:
                            gists[row.path] = synthesis.first_line(doc[0])
            block = synthesis.render_index(rows, gists)
            path = root / "index.md"
            title = "Index" if agent is None else f"Index — agent {agent}"
            with self.storage.transaction(path) as tx:
                before = None if tx.data is None else storage.decode_text(path, tx.data)
                try:
                    after = synthesis.merge_block(
                        before, block, title, synthesis.INDEX_BEGIN, synthesis.INDEX_END, path
                    )
                except errors.CorruptFileError as exc:
                    if damaged is not None:
                        damaged.append(exc)
                    continue
                changed = after != before
                if changed and not dry_run:
                    tx.commit(_encoded_like(tx.data, after), "index.synthesize")
            results.append(
                SynthesisResult(
                    ref=None,
                    path=path,
                    changed=changed,
                    diff=synthesis.diff(self.paths.relative(path), before, after)
                    if changed
                    else "",
                )
            )
        return results

    # -- documents: summaries, agent files, principles -----------------------------------

    def _document(self, path: Path) -> Document:
        doc = self.storage.read_text(path)
        return Document(path, None, None) if doc is None else Document(path, doc[0], doc[1])

    def _document_or_error(self, path: Path) -> Document:
        """Like `_document`, but an unreadable file gives a Document carrying its error."""
        try:
            return self._document(path)
        except errors.CorruptFileError as exc:
            return Document(path, None, None, exc)

    def _write_document(
        self, path: Path, text: str, expected: Expected, action: str, **audit: Any
    ) -> str:
        return self.storage.write(
            path,
            text.encode("utf-8"),
            expected=None if expected is Check.ANY else expected,
            check=expected is not Check.ANY,
            action=action,
            **audit,
        )

    def summary(self, ref: layout.EntityRef | str) -> Document:
        return self._document(self._folder(_ref(ref)) / layout.SUMMARY_NAME)

    def write_summary(self, ref: layout.EntityRef | str, text: str, *, expected: Expected) -> str:
        ref = _ref(ref)
        path = self._folder(ref) / layout.SUMMARY_NAME
        return self._write_document(path, text, expected, "summary.edit", entity=str(ref))

    def _agent_document_path(self, name: str, agent: str | None) -> Path:
        if agent is None:
            if name != PRINCIPLES:
                raise errors.InvalidIdError(f"{name} belongs to an agent: name the agent")
            return self.paths.principles_file
        if name not in AGENT_DOCUMENTS:
            raise errors.InvalidIdError(f"unknown agent document {name!r}")
        folder = self.paths.agent_dir(agent)
        if not folder.is_dir():
            raise errors.NotFoundError(f"no agent {agent!r} in {self.root}")
        return folder / name

    def document_path(self, name: str, agent: str | None = None) -> Path:
        """Where `document(name, agent)` lives (it need not exist)."""
        return self._agent_document_path(name, agent)

    def document(self, name: str, agent: str | None = None) -> Document:
        """An agent's TACIT.md / CONTEXT.md / SOUL.md…, or `AGENTS.md` with no agent."""
        return self._document(self._agent_document_path(name, agent))

    def write_document(
        self, name: str, text: str, *, agent: str | None = None, expected: Expected
    ) -> str:
        path = self._agent_document_path(name, agent)
        acting = self.acting_agent()
        if name == PRINCIPLES and acting is not None:
            raise errors.VaultError(
                f"global/AGENTS.md holds the principles: agents may read it, not overwrite "
                f"it (actor {self.actor!r} is agent {acting!r})"
            )
        return self._write_document(path, text, expected, "document.edit", agent=agent)

    def acting_agent(self) -> str | None:
        """The agent this vault's actor is, or None (the rules: `actors.parse`)."""
        return actors.parse(self.actor, self.paths.agent_ids()).agent

    def create_agent(self, agent: str) -> Path:
        if actors.is_face(agent):
            raise errors.InvalidIdError(
                f"agent id {agent!r} is reserved: {', '.join(sorted(actors.FACES))} name the "
                "app's own faces in the audit log"
            )
        folder = self.paths.agent_dir(agent)
        if folder.exists():
            raise errors.AlreadyExistsError(f"agent {agent!r} already exists")
        self.paths.check_new_agent(agent)  # a new name must be portable
        for category in layout.PARA_CATEGORIES:
            safe_fs.make_dirs(self.root, folder / "workspace" / category)
        safe_fs.make_dirs(self.root, folder / "daily")
        self._write_new(folder / "TACIT.md", f"# Tacit knowledge — {agent}\n")
        self._write_new(folder / "CONTEXT.md", f"# Current context — {agent}\n")
        return folder

    # -- daily notes --------------------------------------------------------------------

    def daily_dates(self, agent: str | None = None) -> list[dt.date]:
        return self.paths.daily_dates(agent)

    def daily_note(self, day: dt.date, agent: str | None = None) -> models.DailyNote:
        path = self.paths.daily_file(day, agent)
        doc = self.storage.read_text(path)
        if doc is None:
            raise errors.NotFoundError(f"no daily note for {day.isoformat()} ({path})")
        return daily.parse(doc[0], day, agent, path)

    def append_daily(
        self, content: str, *, agent: str | None = None, at: dt.datetime | None = None
    ) -> models.DailyEntry:
        """Append a `## HH:MM:SS` entry to the day's note (global or the agent's).

        A line of `content` that would read as an entry heading is escaped on disk
        (`daily.escape_text`): the entry returned, and read back later, holds `content`
        as given (surrounding blank lines and trailing blanks trimmed).
        """
        if not content.strip():
            raise errors.InvalidFactError("a daily entry needs some text")
        if agent is not None and not self.paths.agent_dir(agent).is_dir():
            raise errors.NotFoundError(f"no agent {agent!r} in {self.root}")
        moment = decay.as_aware(at) if at else self.now()
        local = moment.astimezone()
        path = self.paths.daily_file(local.date(), agent)
        with self.storage.transaction(path) as tx:
            current = None if tx.data is None else storage.decode_text(path, tx.data)
            text = daily.append(current, local.date(), local.time(), content)
            tx.commit(text.encode("utf-8"), "daily.append", agent=agent)
        note = daily.parse(text, local.date(), agent, path)
        return note.entries[-1]

    def retract_daily_entry(self, entry: models.DailyEntry) -> None:
        """Take an entry just appended back out of its note (the app's undo of an append).

        Only that exact entry goes, wherever it now sits (others may have appended after
        it); if it is not in the note exactly once, nothing is written.
        """
        path = self.paths.daily_file(entry.date, entry.agent)
        segment = daily.entry_segment(entry.time, entry.text)
        with self.storage.transaction(path) as tx:
            current = None if tx.data is None else storage.decode_text(path, tx.data)
            if current is None or current.count(segment) != 1:
                raise errors.NotFoundError(
                    f"the {entry.time} entry of {path.name} changed or is gone; nothing removed"
                )
            text = current.replace(segment, "", 1)
            tx.commit(text.encode("utf-8"), "daily.retract", agent=entry.agent)


# -- helpers ------------------------------------------------------------------------------

_LIFE_README = """\
# Life — the shared knowledge graph

PARA folders: `projects/` (active work with a goal), `areas/` (ongoing
responsibilities, with `people/` and `companies/` groups), `resources/` (reference
topics) and `archives/` (inactive). Each entity holds `summary.md` (read first) and
`items.json` (atomic facts, superseded and never deleted).
"""

_PRINCIPLES_STUB = """\
# Principles

The single, highest-priority source of rules for every agent of this vault.
"""


_COLD_PROBE = 16  # entities listed and read first to tell a cold disk from a warm one
_COLD_ENTITY_S = 0.00025  # listing and reading one: ~0.9 ms cold here, 0.05 ms cached


def new_fact_id() -> str:
    return f"fact-{uuid.uuid4().hex}"


def _encoded_like(original: bytes | None, text: str) -> bytes:
    """`text` in UTF-8, with the byte-order mark `original` started with (if it did)."""
    bom = codecs.BOM_UTF8 if original is not None and original.startswith(codecs.BOM_UTF8) else b""
    return bom + text.encode("utf-8")


def _ref(ref: layout.EntityRef | str) -> layout.EntityRef:
    return ref if isinstance(ref, layout.EntityRef) else layout.EntityRef.parse(ref)


def _checked_json(**values: Any) -> None:
    """Refuse what a fact file cannot hold as given: a string that is not Unicode text
    (a lone surrogate), nesting past `models.MAX_JSON_DEPTH`, NaN or infinities, or a
    value JSON has no type for."""
    for name, value in values.items():
        if value is None:
            continue
        problem = models.json_value_problem(value)
        if problem is not None:
            raise errors.InvalidFactError(f"{name}{problem[0]}: {problem[1]}")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise errors.InvalidFactError(f"{name} is not JSON: {exc}") from None


def _checked_fields(
    text: str,
    category: models.FactCategory | str,
    related: Iterable[str],
    confidence: float,
    agent_id: str | None,
) -> dict[str, Any]:
    """Validate the user-supplied parts of a fact; raise InvalidFactError saying which."""
    if not isinstance(text, str) or not text.strip():
        raise errors.InvalidFactError("a fact needs text")
    try:
        category = models.FactCategory(category)
    except ValueError:
        names = ", ".join(c.value for c in models.FactCategory)
        raise errors.InvalidFactError(
            f"unknown category {category!r}: use one of {names}"
        ) from None
    related = list(related)
    _checked_json(text=text, relatedEntities=related)
    for item in related:
        layout.EntityRef.parse(item)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not (0.0 <= confidence <= 1.0)
    ):
        raise errors.InvalidFactError(f"confidence must be between 0 and 1, not {confidence!r}")
    if agent_id is not None:
        layout.validate_agent_id(agent_id)
    return {
        "text": text.strip(),
        "category": category,
        "related": related,
        "confidence": confidence,
        "agent_id": agent_id,
    }
