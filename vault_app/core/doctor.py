"""`doctor`: validate every file of a vault, and repair what can be repaired without loss.

Checks: every fact file parses (JSON, UTF-8, size) and every fact validates against the
schema and the ranges the app computes with (`models`: accessCount, times, nesting,
Unicode); no key is given twice and no number would change on a write
(`formats.check_lossless`); no fact file was emptied while its backups hold facts (an
error when blank, a warning for `[]`); no time lies in the future; ids are unique across
the vault; `supersededBy` / `supersedes` and `relatedEntities` point at something that
exists (an archived entity counts); markdown files are valid UTF-8; the generated block of
a summary.md or index.md is whole (one begin marker line, then one end marker line);
an agent's own memory files read as they should (`agent_memory`: `§` notes within their
budget and written as the notes tools write them, a tier heading once, profile.json a flat
map of strings);
daily-note names are real dates; no temp files are left over from an interrupted write;
no Syncthing conflict copy waits unmerged (`--repair` merges it, `sync_files`);
`.vault/config.toml` is valid; and, over the whole vault with `.vault/`, every symlink (an
error in `.vault/` or when it leads outside the vault, a warning for a link inside it,
which is read through but never written through) and every FIFO, socket or device (an
error at a name vault-app reads, such as items.json, where a folder is one too). Each
problem names its file and the place in it.

Repair never discards anything: a corrupt fact file (or a markdown file that is not
UTF-8) is copied to `.vault/quarantine/<time>/` and the newest backup that parses (for an
emptied file, the newest that holds facts) is put in its place through the normal locked,
audited write; leftover temp files are quarantined too.
Problems that would need a guess (a fact with a bad field) are only reported.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vault_app.core import (
    agent_memory,
    config,
    decay,
    errors,
    formats,
    layout,
    models,
    notes,
    process_tuning,
    profile,
    review,
    safe_fs,
    storage,
    sync_files,
    synthesis,
    tiers,
    vault,
)

TEMP_PATTERNS = (storage.TEMP_SUFFIX, ".tmp")
_EMPTIED = ("file is empty", "holds no facts")  # problems repaired from a backup with facts


@dataclass
class DoctorReport:
    problems: list[models.Problem] = field(default_factory=list)
    files_checked: int = 0
    facts_checked: int = 0
    seconds: float = 0.0

    @property
    def errors(self) -> list[models.Problem]:
        return [p for p in self.problems if p.severity == "error" and not p.repaired]

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class _FactSite:
    path: Path
    index: int
    scope: str | None


class Doctor:
    def __init__(self, target: vault.Vault) -> None:
        self.vault = target
        self.paths = target.paths
        self.report = DoctorReport()
        self._ids: dict[str, list[_FactSite]] = defaultdict(list)
        self._links: list[tuple[_FactSite, str, str]] = []  # (site, field, fact id)
        self._related: list[tuple[_FactSite, int, str]] = []
        # (file, its problem, whether a backup's bytes are a good version of it)
        self._corrupt: list[tuple[Path, models.Problem, Callable[[Path, bytes], object]]] = []
        self._quarantine_root: Path | None = None
        self._future_limits: tuple[dt.datetime, dt.datetime, dt.datetime] | None = None
        self._named: set[str] = set()  # folders whose names were checked
        self._named_keys: dict[tuple[str, str], str] = {}  # (parent, name_key) -> name

    def problem(
        self, path: Path, message: str, location: str | None = None, severity: str = "error"
    ) -> models.Problem:
        item = models.Problem(
            path=self.paths.relative(path), location=location, message=message, severity=severity
        )
        self.report.problems.append(item)
        return item

    def run(self, *, repair: bool = False) -> DoctorReport:
        self._check_may(repair)
        started = time.perf_counter()
        with process_tuning.paused():  # validating 10^5 facts allocates many long-lived objects
            self._check_config()
            self._check_entities()
            self._check_links()
            self._check_markdown()
            self._check_agent_memory()
            self._check_reviews()
            self._check_tree(repair)
            self._check_sync_conflicts(repair)
            if repair:
                self._repair_corrupt()
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _check_may(self, repair: bool) -> None:
        """Refuse, before reading anything, an actor that may not read every scope (or,
        to repair, write every one): the check is of the whole vault, and one that
        stopped at the first file its door refuses would say nothing true of the rest."""
        scopes = self.paths.scopes()
        unread = [s or "global" for s in scopes if not self.vault.reads_scope(s)]
        if unread:
            raise errors.AccessDeniedError(
                f"doctor checks the whole vault, and actor {self.vault.actor!r} may not read "
                f"{', '.join(unread)}: run it as a person, or grant the agent every agent's "
                'memory ([agents.grants.<id>] read = ["*"] in .vault/config.toml)'
            )
        unwritten = [s or "global" for s in scopes if not self.vault.storage.writes_scope(s)]
        if repair and unwritten:
            raise errors.AccessDeniedError(
                f"doctor --repair may restore any file of the vault, and actor "
                f"{self.vault.actor!r} may not write {', '.join(unwritten)}: run it as a person"
            )

    # -- checks -------------------------------------------------------------------------

    def _check_config(self) -> None:
        try:
            config.VaultConfig.load(self.paths.root)
        except errors.CorruptFileError as exc:
            self.problem(exc.path, exc.reason, exc.location)

    def _check_entities(self) -> None:
        skipped: list[tuple[Path, str]] = []
        self._check_names(None, [self.paths.agents_dir / a for a in self.paths.agent_ids()])
        for folder in self.paths.iter_all_entities(skipped):
            self._check_names(folder.ref.path, [folder.folder])
            present = [n for n in layout.FACT_FILE_NAMES if (folder.folder / n).is_file()]
            if len(present) > 1:
                self.problem(
                    folder.folder / present[1],
                    f"ignored: {present[0]} in the same folder is the one read",
                    severity="warning",
                )
            if folder.facts_file is not None:
                self._check_fact_file(folder.facts_file, folder.ref.agent)
        for path, reason in skipped:
            self.problem(path, reason, severity="warning" if "not followed" in reason else "error")

    def _check_names(self, entity: str | None, folders: list[Path]) -> None:
        """Warn about folder names a creation would refuse now (not portable, spoofable,
        or one folder with a sibling on Windows and macOS): here they still open.

        `entity` (an entity id) names the folder `folders[0]` and its groups, each
        checked once; clashes are found among the folders checked (no extra listing).
        On strings: 10,000 entities cost about 0.1 s.
        """
        if entity is not None:
            leaf = os.fspath(folders[0])
            depth = entity.count("/")  # folders below the PARA category
            paths = [leaf.rsplit(os.sep, up)[0] for up in range(depth - 1, 0, -1)]
            paths.append(leaf)
        else:
            paths = [os.fspath(f) for f in folders]
        for path in paths:
            if path in self._named:
                continue
            self._named.add(path)
            parent, _, name = path.rpartition(os.sep)
            reason = layout.name_problem(name)
            twin = self._named_keys.setdefault((parent, layout.name_key(name)), name)
            if reason is None and twin != name:
                reason = f"is the same name as {twin!r} on Windows and macOS"
            if reason is not None:
                self.problem(
                    Path(path),
                    f"a new entity or agent could not be named {name!r}: it {reason}",
                    severity="warning",
                )

    def _check_fact_file(self, path: Path, scope: str | None) -> None:
        self.report.files_checked += 1
        try:
            data = self.vault.storage.read(path)
            if data is not None:
                self.vault.check_not_emptied(path, data)
            ff = formats.decode(path, data or b"")
            formats.check_lossless(ff, data or b"")
        except errors.CorruptFileError as exc:
            item = self.problem(exc.path, exc.reason, exc.location)
            if "MB limit" in exc.reason:  # too large is not corrupt: nothing to restore
                return
            if isinstance(exc, errors.NotRegularFileError | errors.SymlinkError):
                return  # not a file of this vault's to replace: the user decides
            self._corrupt.append((path, item, _fact_file))
            return
        if not ff.raw and data and (kept := self.vault.backup_with_facts(path)) is not None:
            # "[]" (or a wrapper's empty list) where facts were: vault-app never deletes a
            # fact, so another writer emptied it. It may mean it; the facts are one repair
            # away (the empty version is kept), until the backup ring rotates them out.
            item = self.problem(
                path,
                f"holds no facts but its backup {kept[0].name} holds {kept[1]}: another "
                "writer emptied it; `vault-app doctor --repair` puts them back",
                severity="warning",
            )
            self._corrupt.append((path, item, _fact_file))
        successor, _ = ff.lineage()
        now = self.vault.now()
        clean = models.entries_are_clean(ff.raw)
        for index, entry in enumerate(ff.raw):
            self.report.facts_checked += 1
            site = _FactSite(path, index, scope)
            try:
                fact = formats.to_fact(entry, index, path, ff.dialect, successor, {}, clean)
            except errors.CorruptFileError as exc:
                self.problem(path, exc.reason, exc.location)
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    self._ids[entry["id"]].append(site)
                continue
            self._ids[fact.id].append(site)
            self._check_future(path, index, fact, now)
            raw_status = entry.get("status", "active")
            if raw_status == "active" and entry.get("supersededBy"):
                self.problem(
                    path,
                    f"status is active but supersededBy is {entry['supersededBy']!r}",
                    f"[{index}].status",
                    severity="warning",
                )
            for key in ("supersededBy", "supersedes"):
                target = entry.get(key)
                if isinstance(target, str) and target:
                    self._links.append((site, key, target))
            for position, name in enumerate(fact.related_entities):
                self._related.append((site, position, name))

    def _check_future(self, path: Path, index: int, fact: models.Fact, now: dt.datetime) -> None:
        """A time after tomorrow (clocks differ by hours, not days) keeps a fact Hot, or
        new, until then: reported, as decay cannot be right about it.

        `decay.days_since(moment, now) < -1` is `moment > now + 1 day`, on the local wall
        clock for a naive time: the two limits are computed once per `now`."""
        if self._future_limits is None or self._future_limits[0] != now:
            day = dt.timedelta(days=1)
            wall, aware = decay.local_wall_clock(now) + day, decay.as_aware(now) + day
            self._future_limits = (now, wall, aware)
        _, wall_limit, aware_limit = self._future_limits
        for key, moment in (("timestamp", fact.timestamp), ("lastAccessed", fact.last_accessed)):
            limit = wall_limit if moment is None or moment.tzinfo is None else aware_limit
            if moment is not None and moment > limit:
                self.problem(
                    path,
                    f"{key} {moment.isoformat()} is in the future: the fact stays Hot until then",
                    f"[{index}].{key}",
                    severity="warning",
                )

    def _check_links(self) -> None:
        for fact_id, sites in self._ids.items():
            if len(sites) > 1:
                places = ", ".join(f"{self.paths.relative(s.path)}[{s.index}]" for s in sites)
                for site in sites[1:]:
                    self.problem(
                        site.path,
                        f"duplicate fact id {fact_id!r} (at {places})",
                        f"[{site.index}].id",
                    )
        for site, key, target in self._links:
            if target not in self._ids:
                self.problem(
                    site.path,
                    f"{key} points at {target!r}, which no fact has",
                    f"[{site.index}].{key}",
                )
        resolved: dict[tuple[str | None, str], bool] = {}
        for site, position, name in self._related:
            known = resolved.get((site.scope, name))
            if known is None:
                known = self.vault.resolve_reference(name, site.scope) is not None
                resolved[(site.scope, name)] = known
            if not known:
                self.problem(
                    site.path,
                    f"relatedEntities names {name!r}, which is not an entity of this vault",
                    f"[{site.index}].relatedEntities[{position}]",
                    severity="warning",
                )

    def _markdown_files(self) -> list[Path]:
        files = [self.paths.principles_file]
        for folder in self.paths.iter_all_entities():
            if folder.has_summary:
                files.append(folder.folder / layout.SUMMARY_NAME)
        for agent in self.paths.scopes():
            daily_dir = self.paths.daily_dir(agent)
            if daily_dir.is_dir():
                for entry in sorted(os.scandir(daily_dir), key=lambda e: e.name):
                    if not entry.name.endswith(".md"):
                        continue
                    if layout.parse_daily_name(entry.name) is None:
                        self.problem(
                            Path(entry.path),
                            "daily note name is not a real YYYY-MM-DD date; it is not listed",
                            severity="warning",
                        )
                    files.append(Path(entry.path))
            if agent is not None:
                files += [self.paths.agent_dir(agent) / n for n in vault.AGENT_DOCUMENTS]
            files.append(self.paths.para_root(agent) / "index.md")
        # what exists by that name, a folder or a FIFO too: reading it reports what it is
        return [f for f in files if os.path.lexists(f)]

    def _check_markdown(self) -> None:
        markers = {
            layout.SUMMARY_NAME: (synthesis.BEGIN, synthesis.END),
            "index.md": (synthesis.INDEX_BEGIN, synthesis.INDEX_END),
        }
        for path in self._markdown_files():
            self.report.files_checked += 1
            try:
                doc = self.vault.storage.read_text(path)
            except errors.CorruptFileError as exc:  # not UTF-8: a kept version can replace it
                item = self.problem(exc.path, exc.reason, exc.location)
                special = isinstance(exc, errors.NotRegularFileError | errors.SymlinkError)
                if not special and "MB limit" not in exc.reason:
                    self._corrupt.append((path, item, storage.decode_text))
                continue
            try:
                if doc is not None and path.name in markers:
                    synthesis.find_block(doc[0], *markers[path.name], path)
            except errors.CorruptFileError as exc:  # a marker lost: the user's text, kept
                self.problem(exc.path, exc.reason, exc.location)

    def _check_sync_conflicts(self, repair: bool) -> None:
        """Syncthing's conflict copies not merged yet (`sync_files`): a warning each; with
        `repair`, merged as `vault-app sync merge` merges them."""
        for copy in sync_files.conflicts(self.paths.root):
            original = sync_files.original_of(copy)
            name = self.paths.relative(original) if original else copy.name
            item = self.problem(
                copy,
                f"a Syncthing conflict copy of {name}, not merged yet: its changes are in "
                "no view; `vault-app sync merge` merges it",
                severity="warning",
            )
            if not repair:
                continue
            try:
                merged = sync_files.merge_conflict(self.vault, copy)
            except errors.VaultError as exc:
                item.message += f"; not merged: {exc}"
                continue
            if merged.merged:
                kept = self.paths.relative(merged.kept_at) if merged.kept_at else ""
                item.repaired = f"merged into {name}; the copy is kept in {kept}"
            else:
                item.message += f"; left for a person: {merged.reason}"

    def _check_agent_memory(self) -> None:
        """Each agent's notes, tiers and profile.json, read as `agent_memory` reads them:
        what would make its writes refuse is a warning; a profile it cannot read, an error."""
        settings = self.vault.config.agents
        for agent in self.paths.agent_ids():
            folder = self.paths.agent_dir(agent)
            chosen = settings.memory_of(agent)
            for target, name in agent_memory.TARGETS.items():
                path = folder / agent_memory.NOTES_DIR / name
                text = self._memory_text(path)
                if text is None:
                    continue
                entries = notes.entries(text)
                used = notes.Usage(
                    notes.usage(entries),
                    chosen.memory_chars if target == "memory" else chosen.user_chars,
                )
                if used.over:
                    self.problem(
                        path,
                        f"over its budget ({used.fraction()} chars): adds are refused "
                        "until entries are shortened or removed",
                        severity="warning",
                    )
                if text.strip() != notes.join(entries):
                    self.problem(
                        path,
                        "not written as the § notes are written (blank lines or spaces "
                        "around a separator): replace and remove are refused until it is",
                        severity="warning",
                    )
            text = self._memory_text(folder / agent_memory.TIERS_NAME)
            memory_file = tiers.split(text or "")
            for number in tiers.TIERS:
                if len(memory_file.sections(number)) > 1:
                    self.problem(
                        folder / agent_memory.TIERS_NAME,
                        f"tier {number} appears more than once: writing it is refused "
                        "until the sections are merged",
                        severity="warning",
                    )
            path = folder / agent_memory.PROFILE_NAME
            text = self._memory_text(path)
            if text is not None:
                try:
                    profile.load_text(text, str(path))
                except errors.CorruptFileError as exc:
                    self.problem(path, exc.reason, exc.location)

    def _memory_text(self, path: Path) -> str | None:
        if not os.path.lexists(path):
            return None
        self.report.files_checked += 1
        try:
            doc = self.vault.storage.read_text(path)
        except errors.CorruptFileError as exc:
            self.problem(exc.path, exc.reason, exc.location)
            return None
        return None if doc is None else doc[0]

    def _check_reviews(self) -> None:
        """A review-queue file that is no proposal holds back a write nobody can decide:
        an error, and `--repair` restores its newest good version from the backups."""
        try:
            damaged = review.damaged(self.vault)
        except errors.VaultError:  # the state folder behind a symlink: `_check_tree` says so
            return
        for path in damaged:
            self.report.files_checked += 1
            try:
                review.decode(path, self.vault.storage.read(path) or b"")
            except errors.CorruptFileError as exc:
                item = self.problem(
                    path,
                    f"{exc.reason}: a held write nobody can review; `vault-app doctor "
                    "--repair` restores it from its backup",
                )
                self._corrupt.append((path, item, review.decode))

    def _check_tree(self, repair: bool) -> None:
        """One walk of the whole vault, `.vault/` included, without following symlinks:
        every symlink and special file (unless reported already), and leftover temp files
        outside `.vault/`."""
        reported = {os.fspath(self.paths.root / p.path) for p in self.report.problems}
        state = os.fspath(self.paths.state_dir)
        stack = [(os.fspath(self.paths.root), False)]
        while stack:
            folder, in_state = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as exc:
                self.problem(Path(folder), f"cannot list folder: {exc.strerror}")
                continue
            folders = []
            for entry in entries:  # file types from the listing: no system call per entry
                here_state = in_state or entry.path == state
                if entry.path in reported:
                    continue
                if entry.is_symlink():
                    self._symlink(Path(entry.path), here_state)
                elif entry.is_dir(follow_symlinks=False):
                    folders.append((entry.path, here_state))
                elif not entry.is_file(follow_symlinks=False):
                    mode = entry.stat(follow_symlinks=False).st_mode
                    self.problem(
                        Path(entry.path),
                        f"is {safe_fs.kind(mode)}, not a regular file; vault-app does not read it",
                        severity="error" if here_state else "warning",
                    )
                elif not here_state and entry.name.endswith(TEMP_PATTERNS):
                    path = Path(entry.path)
                    item = self.problem(
                        path,
                        "leftover temp file from an interrupted write (the target is intact)",
                        severity="warning",
                    )
                    if repair:
                        try:
                            item.repaired = f"moved to {self._quarantine(path)}"
                        except errors.VaultError as exc:  # .vault/quarantine is a symlink
                            item.message += f"; not moved: {exc}"
            stack.extend(reversed(folders))  # depth first, in name order

    def _symlink(self, link: Path, in_state: bool) -> None:
        try:
            target = os.readlink(link)
        except OSError:
            target = "?"
        try:
            resolved: Path | None = link.resolve(strict=True)
        except (OSError, RuntimeError):
            resolved = None
        root = self.paths.root
        if in_state:
            self.problem(
                link,
                f"is a symlink (to {target}) in vault-app's own state: nothing is read or "
                "written through it, and the writes that need it are refused; replace it "
                "with a real folder or file",
            )
        elif resolved is None:
            self.problem(link, f"broken symlink (to {target})", severity="warning")
        elif resolved != root and root not in resolved.parents:
            self.problem(
                link,
                f"symlink leads outside the vault (to {resolved}); it is not followed, "
                "and nothing is written through it",
            )
        elif resolved.is_dir():
            self.problem(
                link,
                f"symlinked folder (to {self.paths.relative(resolved)}) is not followed",
                severity="warning",
            )
        else:
            self.problem(
                link,
                f"symlink to {self.paths.relative(resolved)} inside the vault: read through, "
                "but vault-app refuses to write through it",
                severity="warning",
            )

    # -- repair -------------------------------------------------------------------------

    def _quarantine(self, path: Path, copy: bool = False) -> str:
        """Move (or copy) `path` under `.vault/quarantine/<time>/`, keeping its place."""
        if self._quarantine_root is None:
            stamp = self.vault.now().strftime("%Y%m%dT%H%M%S")
            self._quarantine_root = self.paths.state_dir / "quarantine" / stamp
        target = self._quarantine_root / self.paths.relative(path)
        safe_fs.make_dirs(self.paths.root, target.parent)  # no symlink on the way
        if copy:
            safe_fs.copy_file(path, target)
        else:
            os.replace(path, target)  # moves the entry itself, a symlink as a symlink
        return self.paths.relative(target)

    def _repair_corrupt(self) -> None:
        for path, item, good in self._corrupt:
            kept = self.vault.backup_with_facts(path) if item.message.startswith(_EMPTIED) else None
            backup = kept[0] if kept is not None else self._newest_good_backup(path, good)
            if backup is None:
                item.message += "; no valid backup to restore, the file is left as it is"
                continue
            try:
                with self.vault.storage.transaction(path) as tx:
                    saved = self._quarantine(path, copy=True)
                    data = self.vault.storage.read_backup(backup)
                    tx.commit(data, "doctor.restore", restoredFrom=backup.name)
            except errors.VaultError as exc:  # a symlink on the way: reported on its own
                item.message += f"; not repaired: {exc}"
                continue
            item.repaired = (
                f"restored {backup.name} from .vault/backups; the corrupt file is kept in {saved}"
            )

    def _newest_good_backup(self, path: Path, good: Callable[[Path, bytes], object]) -> Path | None:
        for candidate in self.vault.storage.backups(path):
            try:
                good(path, self.vault.storage.read_backup(candidate))
            except (errors.VaultError, OSError):
                continue
            return candidate
        return None


def _fact_file(path: Path, data: bytes) -> None:
    """Raise unless `data` is a fact file that reads and writes back as it is."""
    formats.check_lossless(formats.decode(path, data), data)


def run(target: vault.Vault, *, repair: bool = False) -> DoctorReport:
    return Doctor(target).run(repair=repair)
