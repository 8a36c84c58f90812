"""The `Vault` facade: every read and write of a PARA vault goes through here.

The vault's files are the only truth; a `Vault` holds no state beyond its settings, so
several processes (agents, the CLI, the GUI) can open the same folder at once. Reads are
lazy (a scan counts tiers from raw JSON; facts are validated when an entity is opened);
every write is a `storage.Transaction` (lock, optional hash check, backup, atomic replace,
audit line). Nothing here deletes a fact: edits supersede, archiving moves a folder.

The facade is short: each method delegates to a module that receives the layout, the
storage, the decay policy and the clock (never the Vault): `scanner` (scan, update,
listing, one entity's facts), `facts` (edits and look-ups), `entities` (entity and agent
folders), `documents` (summaries, agent documents, daily notes) and `synthesis`. The
records it returns live in `models` and are re-exported here under their known names.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import (
    access,
    actors,
    backups,
    config,
    decay,
    documents,
    entities,
    errors,
    facts,
    layout,
    models,
    scanner,
    storage,
    synthesis,
)

if TYPE_CHECKING:  # imported where used: a server starting up needs none of them
    from vault_app.core import history, links

# What the facade's methods take and return, under the names its users know them by
# (`vault.VaultScan`, `vault.Document`, ...): defined in `models`, `documents`, `facts`.
Document = models.Document
EntityFacts = models.EntityFacts
EntityView = models.EntityFacts  # the old name, kept for scripts
VaultScan = models.VaultScan
DecayRow = models.DecayRow
SynthesisResult = models.SynthesisResult
AGENT_DOCUMENTS = documents.AGENT_DOCUMENTS
PRINCIPLES = documents.PRINCIPLES
Check = documents.Check
Expected = documents.Expected
new_fact_id = facts.new_fact_id


class Scope(enum.Enum):
    """`entity_refs(Scope.ALL)`: the entities of every scope, global and each agent's."""

    ALL = "all"


class Vault:
    """A PARA vault on disk. Cheap to create; safe to share between threads."""

    def __init__(
        self,
        root: Path | str,
        *,
        clock: decay.Clock = decay.system_clock,
        actor: str = "api",
        settings: config.VaultConfig | None = None,
        approved: bool = False,
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
        # The door: a vault opened by an agent, or by the heartbeat for one, asks the
        # access policy before each file it reads and each change it makes (`access`);
        # `approved`: a person approved the write it applies (a held proposal).
        self.principal = access.principal_of(actor, self.paths.agent_ids)
        if not self.principal.is_person:
            self.storage.guard = access.Guard(
                self.paths, self.principal, lambda: self.config.agents, approved=approved
            )

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
        guard, vault.storage.guard = vault.storage.guard, None  # an empty vault's layout is
        try:  # no one's memory yet: written whoever lays it out, then the door is set
            vault._write_new(vault.paths.state_dir / config.CONFIG_NAME, config.DEFAULT_CONFIG_TOML)
            vault._write_new(vault.paths.life_dir / "README.md", layout.LIFE_README)
            vault._write_new(vault.paths.principles_file, layout.PRINCIPLES_STUB)
            vault.synthesize_indexes()
        finally:
            vault.storage.guard = guard
        return vault

    def _write_new(self, path: Path, text: str) -> None:
        self.storage.write(path, text.encode("utf-8"), expected=None, action="file.create")

    def now(self) -> dt.datetime:
        return decay.as_aware(self.clock())

    # -- scanning -----------------------------------------------------------------------

    def _scanner(self) -> scanner.Scanner:
        return scanner.Scanner(self.paths, self.storage, self.config.decay, self.now)

    def scan(self, *, keep_files: bool = False, read_ahead: bool | None = None) -> VaultScan:
        """Read every fact file and count tiers, without validating facts one by one
        (`scanner.Scanner.scan`: a cold disk is read ahead by a prefetch process)."""
        return self._scanner().scan(
            keep_files=keep_files, read_ahead=read_ahead, config_error=self.config_error
        )

    def update_scan(self, scan: VaultScan, changed: Iterable[layout.EntityRef | str]) -> VaultScan:
        """`scan` with the entities in `changed` counted again (or dropped when they are
        gone, added when new): what live sync needs after a batch, at the cost of the
        changed files only."""
        return self._scanner().update_scan(scan, changed)

    def list_entities(self) -> VaultScan:
        """Every entity and agent without reading a file (`counted` False): a 10,000-entity
        vault is listed in a fraction of a second, for a first view while `scan` counts."""
        return self._scanner().list_entities()

    def _problem(self, exc: errors.CorruptFileError, severity: str = "error") -> models.Problem:
        return self._scanner().problem(exc, severity)

    def entity_refs(self, agent: str | Scope | Check | None = Scope.ALL) -> list[layout.EntityRef]:
        """Entity addresses of one scope (an agent id, None for global) or of all
        (`Scope.ALL`; `Check.ANY`, its old spelling, still works)."""
        if isinstance(agent, Scope | Check):  # Check.ANY: the old spelling
            walk = self.storage.entities()
        else:
            self._check_scope(agent)
            walk = self.paths.iter_entities(agent)
        return [folder.ref for folder in walk]

    def decide(self, action: access.Action, target: access.Target) -> access.Decision:
        """What the access policy answers this vault's actor for `action` on `target`
        (a person: always allowed)."""
        guard = self.storage.guard
        if guard is None:
            return access.ALLOWED
        return guard.policy.decide(guard.who, action, target)

    def check_access(self, action: access.Action, target: access.Target) -> None:
        """Refuse (`AccessDeniedError`, with the policy's reason) what `decide` does not
        allow (a review verdict passes when a person approved this vault's write)."""
        guard = self.storage.guard
        self.decide(action, target).check(approved=guard is not None and guard.approved)

    def check_read(self, ref: layout.EntityRef | str) -> None:
        """Refuse (`AccessDeniedError`) a read of entity `ref` the actor may not make: by
        its address, and by where its files really are (a symlink cannot change the
        answer). For readers that share one index between agents (the MCP server)."""
        ref = layout.as_ref(ref)
        self.check_access(access.Action.READ, access.Target.entity(ref))
        guard = self.storage.guard
        if guard is not None:
            folder = self.paths.entity_dir(ref)
            for name in ("", *layout.FACT_FILE_NAMES, layout.SUMMARY_NAME):
                guard(folder / name if name else folder, "read")

    def readable_scopes(self) -> frozenset[str] | None:
        """The search scopes this vault's actor may read (global, its own workspace and
        those granted to it), or None for a person (every scope)."""
        guard = self.storage.guard
        if guard is None:
            return None
        return guard.policy.readable_scopes(guard.who, self.paths.agent_ids())

    def read_bytes(self, path: Path) -> bytes | None:
        """A file of the vault, as its storage reads it (None if absent): through the
        access policy's door, refusing what is too large, not a regular file, or a
        symlink leading out of the vault."""
        return self.storage.read(path)

    def read_text(self, path: Path) -> tuple[str, str] | None:
        """(text, sha256) of a UTF-8 file of the vault (`read_bytes`), None if absent."""
        return self.storage.read_text(path)

    def reads_scope(self, agent: str | None) -> bool:
        """Whether this vault's actor reads the memory of scope `agent` (None: global)."""
        guard = self.storage.guard
        return guard is None or guard.reads_scope(agent)

    def add_listener(self, listener: storage.WriteListener) -> None:
        """Call `listener` after each write this vault commits (a watcher's `note_write`:
        its own writes are then not reported back as outside changes)."""
        self.storage.add_listener(listener)

    def remove_listener(self, listener: storage.WriteListener) -> None:
        self.storage.remove_listener(listener)

    def _check_scope(self, agent: str | None) -> None:
        """Refuse (`AccessDeniedError`) a listing of a scope the actor may not read."""
        self.check_access(access.Action.READ, access.Target.daily(agent))

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
        return self.paths.existing_entity_dir(ref)

    def _facts_path(self, folder: Path) -> Path:
        return self.paths.facts_path(folder)

    def entity(self, ref: layout.EntityRef | str) -> EntityFacts:
        """Read one entity: its validated facts (bad entries listed apart) and summary."""
        ref = layout.as_ref(ref)
        folder = self._folder(ref)
        facts_path = self._facts_path(folder)
        try:
            data: bytes | errors.CorruptFileError | None = self.storage.read(facts_path)
        except errors.CorruptFileError as exc:
            data = exc
        summary = documents.read_or_error(self.storage, folder / layout.SUMMARY_NAME)
        return self.entity_view(ref, folder, facts_path, data, summary)

    def entity_view(
        self,
        ref: layout.EntityRef,
        folder: Path,
        facts_path: Path,
        data: bytes | errors.CorruptFileError | None,
        summary: Document,
    ) -> EntityFacts:
        """Decode and validate an entity from bytes already read (sync or async)."""
        return scanner.entity_facts(self.storage, ref, folder, facts_path, data, summary)

    def backup_with_facts(self, path: Path) -> tuple[Path, int] | None:
        """The newest kept version of a fact file that holds facts, and how many."""
        return scanner.backup_with_facts(self.storage, path)

    def check_not_emptied(self, path: Path, data: bytes) -> None:
        """Refuse a blank fact file whose backups hold facts (`scanner.check_not_emptied`)."""
        scanner.check_not_emptied(self.storage, path, data)

    def _entities(self) -> entities.EntityFolders:
        return entities.EntityFolders(self.paths, self.storage)

    def create_entity(
        self, ref: layout.EntityRef | str, summary: str | None = None, *, title: str | None = None
    ) -> Path:
        """Make an entity: its folder, a summary.md headed `title` (as written; else its
        folder's name made words) with `summary`, and an empty items.json."""
        return self._entities().create(layout.as_ref(ref), summary, title=title)

    def archive_entity(self, ref: layout.EntityRef | str) -> layout.EntityRef:
        """Move an entity under archives/, keeping its group; never over another entity."""
        return self._entities().archive(layout.as_ref(ref))

    def restore_entity(
        self, ref: layout.EntityRef | str, to: layout.EntityRef | str
    ) -> layout.EntityRef:
        """Move an entity back to exactly `to` (undoing an archive); refuses if taken."""
        return self._entities().restore(layout.as_ref(ref), layout.as_ref(to))

    def archived_from(self, ref: layout.EntityRef | str) -> layout.EntityRef | None:
        """Where an archived entity was before its archive, read from the audit log (None
        when the log does not say: archived by hand, or the line has rotated out)."""
        return entities.archived_from(self.root, layout.as_ref(ref))

    def unarchive_entity(
        self, ref: layout.EntityRef | str, category: str | None = None
    ) -> layout.EntityRef:
        """Move an archived entity back where it was archived from (`archived_from`), or
        under `category` (projects, areas, resources) keeping its group; refuses if taken."""
        ref = layout.as_ref(ref)
        return self._entities().unarchive(ref, entities.unarchive_target(self.root, ref, category))

    def backup_versions(self, path: Path) -> list[backups.Version]:
        """The kept versions of a vault file, newest first (`core.backups.versions`)."""
        return backups.versions(self.storage, path)

    def restore_backup(
        self, path: Path, number: int, *, expected: str | None = backups.UNSET
    ) -> str:
        """Write kept version `number` (1 = newest) of `path` back, as a safe write itself
        backed up; refuses a version that does not parse (`core.backups.restore`)."""
        return backups.restore(self.storage, path, number, expected=expected)

    def restore_deleted(self, ref: layout.EntityRef | str) -> list[Path]:
        """Bring back an entity's files deleted outside the app, each as this vault last
        wrote or saw it (the newest version in its backup ring). Files still there are
        left alone. Returns the files restored; NotFoundError if the ring has none."""
        return self._entities().restore_deleted(layout.as_ref(ref))

    def resolve_reference(
        self, reference: str, agent: str | None = None
    ) -> layout.EntityRef | None:
        """The entity a relatedEntities id names, following it into archives/ if moved
        (`layout.resolve_reference`, with an entity folder on disk as the test)."""

        return layout.resolve_reference(reference, agent, self.paths.holds_entity)

    # -- facts -------------------------------------------------------------------------

    def _facts(self) -> facts.Facts:
        return facts.Facts(self.paths, self.storage, self.now, self.actor)

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
        at: dt.datetime | None = None,
        title: str | None = None,
    ) -> models.Fact:
        """Append a new active fact; with `create`, make the entity if it is missing
        (headed `title` when given: `create_entity`).

        `at` (default now) is the fact's timestamp, for facts learnt earlier (backfill);
        a naive time is local time."""
        ref, related = layout.as_ref(ref), list(related)
        facts.check_takes_facts(ref)  # before an archived entity is made by `create`
        if create and not self.paths.entity_dir(ref).is_dir():
            facts.checked_fields(text, category, related, confidence, agent_id)  # before
            facts.checked_json(source=source, metadata=metadata)  # the entity is made
            facts.checked_time(at)
            with contextlib.suppress(errors.AlreadyExistsError):
                self.create_entity(ref, title=title)
        return self._facts().add(
            ref,
            text,
            category,
            related=related,
            source=source,
            agent_id=agent_id,
            confidence=confidence,
            metadata=metadata,
            at=at,
        )

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
        at: dt.datetime | None = None,
        ref: layout.EntityRef | str | None = None,
        into: layout.EntityRef | str | None = None,
    ) -> tuple[models.Fact, models.Fact]:
        """Replace a fact by a new one (stamped `at`, default now); the old one stays,
        marked superseded, both linked. `ref`: the entity holding the fact, when known
        (no search of the vault for it; a wrong one is NotFoundError); `into`: another
        entity the new fact belongs in (a role passed from one person to another)."""
        return self._facts().supersede(
            fact_id,
            text,
            category=category,
            related=related,
            source=source,
            agent_id=agent_id,
            confidence=confidence,
            metadata=metadata,
            at=at,
            ref=None if ref is None else layout.as_ref(ref),
            into=None if into is None else layout.as_ref(into),
        )

    def set_fact_status(
        self, fact_id: str, active: bool, *, superseded_by: str | None = None
    ) -> models.Fact:
        """Reinstate a fact (`active`) or withdraw it again; the fact itself stays.

        This is how the app undoes its own edits without deleting anything: undoing an
        added fact retracts it (status superseded, by nothing, `metadata.retracted` says
        when and by whom); undoing a supersede reinstates the old fact and retracts the
        new one; redo reverses each step (`superseded_by` re-links the old fact).
        """
        return self._facts().set_status(fact_id, active, superseded_by=superseded_by)

    def archive_fact(self, fact_id: str, *, reason: str | None = None) -> models.Fact:
        """Withdraw an active fact, kept, noting when, by whom and why in its
        `metadata.archived`; `set_fact_status(fact_id, True)` reverses it."""
        return self._facts().archive(fact_id, reason)

    def mark_accessed(
        self,
        fact_ids: Iterable[str],
        *,
        where: Mapping[str, layout.EntityRef | str] | None = None,
    ) -> dict[str, int]:
        """Count one access of each fact (batched per file); returns the new counts.
        `where` maps fact ids to the entities holding them, when the caller knows: those
        are not searched for (a wrong entity is NotFoundError)."""
        known = None if where is None else {k: layout.as_ref(v) for k, v in where.items()}
        return self._facts().mark_accessed(fact_ids, known)

    def locate(self, fact_ids: Sequence[str]) -> dict[str, layout.EntityRef]:
        """The entity holding each fact id; raises NotFoundError naming the missing ones.

        Scans the raw bytes of fact files for the quoted id before decoding any of them,
        so finding a fact in a 200,000-fact vault costs about one read of it.
        """
        return self._facts().locate(fact_ids)

    def facts_mentioning(
        self, word: str, agent: str | Scope | None = Scope.ALL
    ) -> list[tuple[layout.EntityRef, models.Fact]]:
        """The current facts whose text holds `word` (any case), in the entities of one
        scope (an agent id, None for global) or of every scope this vault may read
        (`Scope.ALL`): fact files without it are not decoded, so this costs about one
        read of them (`locate`)."""
        if isinstance(agent, Scope):
            return self._facts().mentioning(word)
        self._check_scope(agent)
        return self._facts().mentioning(word, self.paths.iter_entities(agent))

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
        ref = layout.as_ref(ref)
        return self._facts().related(ref, self.entity(ref).facts)

    def link_index(self) -> links.LinkIndex:
        """Every entity's links both ways (`links.build`: each fact file read once)."""
        from vault_app.core import links

        return links.build(self.paths, self.storage)

    def entity_links(self, ref: layout.EntityRef | str) -> links.EntityLinks | None:
        """One entity's references as written, for `LinkIndex.replace`; None if gone."""
        from vault_app.core import links

        return links.read_entity_links(self.paths, self.storage, layout.as_ref(ref))

    def as_of(self, ref: layout.EntityRef | str, when: dt.date | dt.datetime) -> history.AsOfView:
        """The entity as believed at `when` (a date: its end): the facts active then with
        their tiers then, and the summary then from the backup ring (`core.history`)."""
        from vault_app.core import history

        ref = layout.as_ref(ref)
        moment = history.moment_of(when)
        view = self.entity(ref)
        if view.error is not None:
            raise view.error
        summary = history.summary_as_of(
            self.storage, self._folder(ref) / layout.SUMMARY_NAME, moment
        )
        return history.as_of(view, moment, self.config.decay, summary)

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

    def _synthesizer(self) -> synthesis.Synthesizer:
        return synthesis.Synthesizer(self._scanner())

    def synthesize(
        self,
        refs: Iterable[layout.EntityRef | str] | None = None,
        *,
        dry_run: bool = False,
        at: dt.datetime | None = None,
        scopes: Iterable[str | None] | None = None,
    ) -> tuple[list[SynthesisResult], list[models.Problem]]:
        """Rewrite summary.md of each entity (all by default: of `scopes`, None for global,
        that the actor writes) and, for a full run, their index.md."""
        return self._synthesizer().run(refs, dry_run=dry_run, at=at, scopes=scopes)

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
        return self._synthesizer().indexes(dry_run=dry_run, at=at, damaged=damaged)

    # -- documents: summaries, agent files, principles -----------------------------------

    def _document(self, path: Path) -> Document:
        return documents.read(self.storage, path)

    def summary(self, ref: layout.EntityRef | str) -> Document:
        return self._document(self._folder(layout.as_ref(ref)) / layout.SUMMARY_NAME)

    def write_summary(self, ref: layout.EntityRef | str, text: str, *, expected: Expected) -> str:
        ref = layout.as_ref(ref)
        path = self._folder(ref) / layout.SUMMARY_NAME
        return documents.write(self.storage, path, text, expected, "summary.edit", entity=str(ref))

    def document_path(self, name: str, agent: str | None = None) -> Path:
        """Where `document(name, agent)` lives (it need not exist)."""
        return documents.agent_document_path(self.paths, name, agent)

    def document(self, name: str, agent: str | None = None) -> Document:
        """An agent's TACIT.md / CONTEXT.md / SOUL.md…, or `AGENTS.md` with no agent."""
        return self._document(documents.agent_document_path(self.paths, name, agent))

    def write_document(
        self, name: str, text: str, *, agent: str | None = None, expected: Expected
    ) -> str:
        path = documents.agent_document_path(self.paths, name, agent)
        acting = self.acting_agent()
        if name == PRINCIPLES and acting is not None:
            raise errors.VaultError(
                f"global/AGENTS.md holds the principles: agents may read it, not overwrite "
                f"it (actor {self.actor!r} is agent {acting!r})"
            )
        return documents.write(self.storage, path, text, expected, "document.edit", agent=agent)

    def acting_agent(self) -> str | None:
        """The agent this vault's actor is, or None (the rules: `actors.parse`)."""
        return actors.parse(self.actor, self.paths.agent_ids()).agent

    def create_agent(self, agent: str) -> Path:
        """Make an agent's folders (workspace PARA, daily) and its TACIT.md, CONTEXT.md."""
        return self._entities().create_agent(agent)

    # -- daily notes --------------------------------------------------------------------

    def daily_dates(self, agent: str | None = None) -> list[dt.date]:
        self._check_scope(agent)
        return self.paths.daily_dates(agent)

    def daily_note(self, day: dt.date, agent: str | None = None) -> models.DailyNote:
        return documents.daily_note(self.paths, self.storage, day, agent)

    def append_daily(
        self, content: str, *, agent: str | None = None, at: dt.datetime | None = None
    ) -> models.DailyEntry:
        """Append a `## HH:MM:SS` entry to the day's note (global or the agent's).

        A line of `content` that would read as an entry heading is escaped on disk
        (`daily.escape_text`): the entry returned, and read back later, holds `content`
        as given (surrounding blank lines and trailing blanks trimmed).
        """
        moment = decay.as_aware(at) if at else self.now()
        return documents.append_daily(self.paths, self.storage, content, agent, moment)

    def add_daily_entries(
        self,
        day: dt.date,
        items: Sequence[tuple[dt.time, str]],
        *,
        agent: str | None = None,
    ) -> int:
        """Place entries (time of day, content) in the day's note in time order, in one
        write: each before the first entry of a later time, the note's entries kept as
        they are; one whose time and text the note already has is left out (an import
        run twice adds nothing). Returns how many were added."""
        return documents.add_daily_entries(self.paths, self.storage, day, list(items), agent)

    def retract_daily_entry(self, entry: models.DailyEntry) -> None:
        """Take an entry just appended back out of its note (the app's undo of an append).

        Only that exact entry goes, wherever it now sits (others may have appended after
        it); if it is not in the note exactly once, nothing is written.
        """
        documents.retract_daily_entry(self.paths, self.storage, entry)
