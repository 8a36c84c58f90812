"""Reading fact files: the whole vault's tier counts (a scan), one entity's validated facts.

A scan reads every fact file and counts tiers without validating facts one by one; an
update counts the changed entities again; a listing names every entity without reading a
file. One entity is decoded and validated from bytes read by either face (sync or async).
Every read goes through `check_not_emptied`: a fact file blanked outside the app whose
backups hold facts is an error, never an empty entity.

A `Scanner` receives what it reads with — the layout, the storage, the decay policy and
the clock — never the `Vault` (which holds one, per call: the policy may change).
"""

from __future__ import annotations

import concurrent.futures
import itertools
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_app.core import decay, errors, formats, layout, models, prefetch, process_tuning, storage

_COLD_PROBE = 16  # entities listed and read first to tell a cold disk from a warm one
_COLD_ENTITY_S = 0.00025  # listing and reading one: ~0.9 ms cold here, 0.05 ms cached


@dataclass(frozen=True)
class Scanner:
    """Scans the vault laid out by `paths`, reading through `storage`; tiers by `policy`
    at the time `now()` gives."""

    paths: layout.VaultLayout
    store: storage.Storage
    policy: decay.DecayPolicy
    now: decay.Clock

    def scan(
        self,
        *,
        keep_files: bool = False,
        read_ahead: bool | None = None,
        config_error: errors.CorruptFileError | None = None,
    ) -> models.VaultScan:
        """Read every fact file and count tiers, without validating facts one by one.

        On this thread, with the garbage collector paused where the process opted in
        (`process_tuning.paused`; a bulk load makes the collector the main cost): reading a cached
        file costs microseconds, and any other thread of this process would only wait for
        its turn at the interpreter (10,000 files on 2 cores: 1.4 s alone, 1.9 s with one
        reading thread, 3.1 s with eight). On a cold disk each listing and read waits for
        the disk, so when listing and reading the first entities is slow (or with
        `read_ahead`), a `prefetch` process lists the folders and reads the files ahead of
        the walk with several requests in flight (a cold open: 5.3 s without, 2.2-2.4 s
        with). Without `keep_files`, only each file's tier fields are decoded (no dialect
        detection, no hash) and dropped once counted. `config_error` (the vault's
        config.toml could not be read) is reported with the scan's problems.
        """
        started = time.perf_counter()
        skipped: list[tuple[Path, str]] = []
        counter = decay.RawTierCounter(self.policy, self.now())
        files: dict[layout.EntityRef, formats.FactFile] = {}
        entities: list[models.EntitySummary] = []
        corrupt: list[models.Problem] = []
        with process_tuning.paused(freeze=True):  # the summaries (and kept files) are long-lived
            walk = self.store.entities(skipped)
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
                    summary, loaded = self.summarize(folder, counter, keep=keep_files)
                    entities.append(summary)
                    if isinstance(loaded, errors.CorruptFileError):
                        corrupt.append(self.problem(loaded))
                    elif loaded is not None:
                        files[folder.ref] = loaded
        problems = [
            models.Problem(path=self.paths.relative(p), message=reason, severity="warning")
            for p, reason in skipped
        ]
        if config_error is not None:
            problems.append(self.problem(config_error))
        problems.extend(corrupt)
        return models.VaultScan(
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
                self.store.read(path)
            except (errors.VaultError, OSError):
                continue  # the scan reports it
        return time.perf_counter() - since > _COLD_ENTITY_S * max(1, len(head))

    def update_scan(
        self, scan: models.VaultScan, changed: Iterable[layout.EntityRef | str]
    ) -> models.VaultScan:
        """`scan` with the entities in `changed` counted again (or dropped when they are
        gone, added when new): what live sync needs after a batch, at the cost of the
        changed files only."""
        started = time.perf_counter()
        counter = decay.RawTierCounter(self.policy, self.now())
        refs = {str(r): layout.as_ref(r) for r in changed}
        fresh: dict[str, models.EntitySummary] = {}
        corrupt: dict[str, models.Problem] = {}
        for address, ref in refs.items():
            folder_path = self.paths.entity_dir(ref)
            facts = self.paths.facts_file(folder_path) if folder_path.is_dir() else None
            has_summary = os.path.lexists(folder_path / layout.SUMMARY_NAME)  # as the walk
            if facts is None and not has_summary:
                continue  # gone (or no longer an entity)
            folder = layout.EntityFolder(ref, folder_path, facts, has_summary)
            summary, loaded = self.summarize(folder, counter, keep=False)
            fresh[address] = summary
            if isinstance(loaded, errors.CorruptFileError):
                corrupt[address] = self.problem(loaded)
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
        return models.VaultScan(
            entities=entities,
            agents=self.paths.agent_ids(),
            problems=problems,
            seconds=time.perf_counter() - started,
        )

    def list_entities(self) -> models.VaultScan:
        """Every entity and agent without reading a file (`counted` False): a 10,000-entity
        vault is listed in a fraction of a second, for a first view while `scan` counts."""
        started = time.perf_counter()
        skipped: list[tuple[Path, str]] = []
        with (
            process_tuning.paused(freeze=True),
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
                for folder in self.store.entities(skipped, pool=lister)
            ]
        problems = [
            models.Problem(path=self.paths.relative(p), message=reason, severity="warning")
            for p, reason in skipped
        ]
        return models.VaultScan(
            entities=entities,
            agents=self.paths.agent_ids(),
            problems=problems,
            seconds=time.perf_counter() - started,
            counted=False,
        )

    def summarize(
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
            data = self.store.read(folder.facts_file) or b""
            check_not_emptied(self.store, folder.facts_file, data)
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

    def problem(self, exc: errors.CorruptFileError, severity: str = "error") -> models.Problem:
        """`exc` as a problem of the scan (the path relative to the vault)."""
        return models.Problem(
            path=self.paths.relative(exc.path),
            location=exc.location,
            message=exc.reason,
            severity=severity,
        )


def entity_facts(
    store: storage.Storage,
    ref: layout.EntityRef,
    folder: Path,
    facts_path: Path,
    data: bytes | errors.CorruptFileError | None,
    summary: models.Document,
) -> models.EntityFacts:
    """Decode and validate an entity from bytes already read (sync or async)."""
    file: formats.FactFile | None = None
    error: errors.CorruptFileError | None = None
    facts: list[models.Fact] = []
    invalid: list[errors.CorruptFileError] = []
    try:
        if isinstance(data, errors.CorruptFileError):
            raise data
        if data is not None:
            check_not_emptied(store, facts_path, data)
            file = formats.decode(facts_path, data)
            facts, invalid = file.facts()
    except errors.CorruptFileError as exc:
        error = exc
    return models.EntityFacts(
        ref=ref,
        folder=folder,
        facts_path=facts_path,
        file=file,
        facts=facts,
        invalid=invalid,
        error=error,
        summary=summary,
    )


def backup_with_facts(store: storage.Storage, path: Path) -> tuple[Path, int] | None:
    """The newest kept version of a fact file that holds facts, and how many."""
    for candidate in store.backups(path):
        try:
            data = store.read_backup(candidate)  # no symlink followed
            kept = len(formats.decode(path, data).raw) if data else 0
        except (errors.VaultError, OSError):
            continue
        if kept:
            return candidate, kept
    return None


def check_not_emptied(store: storage.Storage, path: Path, data: bytes) -> None:
    """Refuse a blank fact file (0 bytes, white space, a BOM) whose backups hold
    facts: they were lost outside the app, and building on the blank file would let
    the backup ring rotate them away. A blank file never written with facts (a new
    entity, another writer's fresh file) is an entity without facts."""
    if not formats.is_blank(data):
        return
    kept = backup_with_facts(store, path)
    if kept is not None:
        backup, count = kept
        raise errors.CorruptFileError(
            path,
            f"file is empty ({len(data)} bytes) but its backup {backup.name} holds "
            f"{count} facts: they were lost outside vault-app; `vault-app doctor "
            "--repair` puts that version back (and keeps the empty file)",
        )
