"""Entity and agent folders: made, moved (archived, restored), brought back from backups.

A move renames the folder under the locks of its files and of the target folder, never
over another entity (nor one whose name differs only in case or normalisation: the same
folder on Windows and macOS); a symlinked entity folder is never moved. Deleted files
come back from the backup ring, each as this vault last wrote or saw it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import activity, actors, errors, layout, safe_fs, storage

UNARCHIVE_CATEGORIES = ("projects", "areas", "resources")


def archived_from(root: Path, ref: layout.EntityRef) -> layout.EntityRef | None:
    """Where `ref` (an archived entity) was before its newest archive, by the audit log."""
    if ref.category != "archives":
        return None
    for line in activity.recent(root, limit=1000, action="entity.archive"):
        if line.get("to") == str(ref) and isinstance(line.get("entity"), str):
            try:
                origin = layout.EntityRef.parse(line["entity"])
            except errors.VaultError:
                return None
            return origin if origin.agent == ref.agent else None
    return None


def unarchive_target(root: Path, ref: layout.EntityRef, category: str | None) -> layout.EntityRef:
    """Where unarchiving `ref` puts it: under `category` keeping its group, else where it
    was archived from; InvalidIdError when neither is known."""
    if ref.category != "archives":
        raise errors.InvalidIdError(f"{ref} is not archived: nothing to unarchive")
    rest = ref.path.split("/", 1)[1]
    if category is not None:
        if category not in UNARCHIVE_CATEGORIES:
            raise errors.InvalidIdError(
                f"cannot unarchive into {category!r}: use {', '.join(UNARCHIVE_CATEGORIES)}"
            )
        return ref.with_path(f"{category}/{rest}")
    origin = archived_from(root, ref)
    if origin is None:
        raise errors.InvalidIdError(
            f"the audit log does not say where {ref} was archived from: name a category "
            f"({', '.join(UNARCHIVE_CATEGORIES)})"
        )
    return origin


@dataclass(frozen=True)
class EntityFolders:
    """The entity folders of the vault laid out by `paths`, written through `store`."""

    paths: layout.VaultLayout
    store: storage.Storage

    def create(
        self, ref: layout.EntityRef, summary: str | None = None, *, title: str | None = None
    ) -> Path:
        """Make an entity's folder, its summary.md (a title, `summary`) and an empty items.json.
        The title is `title` as written ("Tomás", "Dr. Farah Kim"; one line), else the
        folder's name made words ("tomas" -> "Tomas")."""
        if ref.agent is not None and not self.paths.agent_dir(ref.agent).is_dir():
            raise errors.NotFoundError(
                f"no agent {ref.agent!r}: create it first (vault-app agent create {ref.agent})"
            )
        folder = self.paths.entity_dir(ref)
        if self.paths.facts_file(folder) or (folder / layout.SUMMARY_NAME).exists():
            raise errors.AlreadyExistsError(f"entity {ref} already exists")
        self.paths.check_new_entity(ref)  # a new name must be portable and unspoofable
        safe_fs.make_dirs(self.paths.root, folder)  # no symlinked folder on the way
        self.paths.ensure_inside(folder)
        heading = " ".join((title or "").split())[:120].lstrip("#").strip() or ref.title
        text = f"# {heading}\n\n{summary.strip()}\n" if summary else f"# {heading}\n"
        try:
            self.store.write(
                folder / layout.SUMMARY_NAME,
                text.encode("utf-8"),
                expected=None,
                action="entity.create",
                entity=str(ref),
            )
            self.store.write(
                folder / "items.json",
                b"[]\n",
                expected=None,
                action="entity.create",
                entity=str(ref),
            )
        except errors.ConflictError:  # another writer made it (or wrote a fact) meanwhile
            raise errors.AlreadyExistsError(
                f"entity {ref} already exists (created meanwhile by another writer)"
            ) from None
        return folder

    def archive(self, ref: layout.EntityRef) -> layout.EntityRef:
        """Move an entity under archives/, keeping its group; never over another entity."""
        if ref.category == "archives":
            raise errors.InvalidIdError(f"{ref} is already archived")
        rest = ref.path.split("/", 1)[1]
        return self._move(ref, ref.with_path(f"archives/{rest}"), "entity.archive")

    def restore(self, ref: layout.EntityRef, to: layout.EntityRef) -> layout.EntityRef:
        """Move an entity back to exactly `to` (undoing an archive); refuses if taken."""
        if to.agent != ref.agent:
            raise errors.InvalidIdError(f"{ref} cannot move to another scope ({to})")
        return self._move(ref, to, "entity.restore", suffix=False)

    def unarchive(self, ref: layout.EntityRef, to: layout.EntityRef) -> layout.EntityRef:
        """Move an archived entity out of archives/ to exactly `to`; refuses if taken."""
        if ref.category != "archives":
            raise errors.InvalidIdError(f"{ref} is not archived: nothing to unarchive")
        if to.category == "archives":
            raise errors.InvalidIdError(
                f"{ref} cannot be unarchived into archives/: choose projects, areas or resources"
            )
        if to.agent != ref.agent:
            raise errors.InvalidIdError(f"{ref} cannot move to another scope ({to})")
        return self._move(ref, to, "entity.unarchive", suffix=False)

    def _move(
        self, ref: layout.EntityRef, base: layout.EntityRef, action: str, *, suffix: bool = True
    ) -> layout.EntityRef:
        """Rename an entity folder under the locks of its files and of the target folder."""
        source = self.paths.existing_entity_dir(ref)
        safe_fs.check_tree(self.paths.root, source)  # a symlinked entity folder is not moved
        self.store.check_state()  # nor is anything moved before a refusal to log it
        parent_lock = self.store.lock(self.paths.para_root(ref.agent) / base.category)
        held = [self.store.lock(source / name) for name in (*layout.FACT_FILE_NAMES, "summary.md")]
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
            safe_fs.make_dirs(self.paths.root, destination.parent)
            os.rename(source, destination)
            storage.fsync_dir(source.parent)
            storage.fsync_dir(destination.parent)
        self.store.audit(action, destination, entity=str(ref), to=str(target))
        return target

    def _taken(self, ref: layout.EntityRef) -> bool:
        """An entity folder is there, or one with the same name but for case or
        normalisation (the same folder on Windows and macOS)."""
        folder = self.paths.entity_dir(ref)
        return folder.exists() or layout.same_name_sibling(folder) is not None

    def restore_deleted(self, ref: layout.EntityRef) -> list[Path]:
        """Bring back an entity's files deleted outside the app, each as this vault last
        wrote or saw it (the newest version in its backup ring). Files still there are
        left alone. Returns the files restored; NotFoundError if the ring has none."""
        folder = self.paths.entity_dir(ref)
        restored: list[Path] = []
        for name in (*layout.FACT_FILE_NAMES, layout.SUMMARY_NAME):
            path = folder / name
            if path.exists() or (kept := self.store.newest_intact_backup(path)) is None:
                continue
            if name in layout.FACT_FILE_NAMES and any(
                (folder / other).exists() for other in layout.FACT_FILE_NAMES
            ):
                continue
            safe_fs.make_dirs(self.paths.root, folder)
            data = self.store.read_backup(kept)
            self.store.write(path, data, expected=None, action="entity.restore", entity=str(ref))
            restored.append(path)
        if not restored and not folder.is_dir():
            raise errors.NotFoundError(f"no backup of {ref} to restore it from")
        return restored

    def create_agent(self, agent: str) -> Path:
        """Make an agent's folders (workspace PARA, daily) and its TACIT.md, CONTEXT.md."""
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
            safe_fs.make_dirs(self.paths.root, folder / "workspace" / category)
        safe_fs.make_dirs(self.paths.root, folder / "daily")
        for name, text in (("TACIT.md", "Tacit knowledge"), ("CONTEXT.md", "Current context")):
            data = f"# {text} — {agent}\n".encode()
            self.store.write(folder / name, data, expected=None, action="file.create")
        return folder
