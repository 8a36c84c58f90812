"""The async API, for agents that live in asyncio.

Reads go through aiofiles, so a coroutine reading an entity, a summary or a daily note
never blocks the event loop on disk I/O. Writes need a cross-process lock, an fsync and an
atomic rename — all blocking system calls — so each runs whole in a worker thread
(`asyncio.to_thread`) with exactly the guarantees of the synchronous `Vault`.

    vault = await AsyncVault.open("~/memory", actor="agent:finance")
    fact = await vault.add_fact("projects/budget", "Q3 budget approved", "milestone")
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import aiofiles

from vault_app.core import daily, documents, errors, layout, models, storage, vault


class AsyncVault:
    """An asyncio face over a `vault.Vault` (which it exposes as `.sync`)."""

    def __init__(self, sync: vault.Vault) -> None:
        self.sync = sync

    @classmethod
    async def open(cls, root: Path | str, **kwargs: Any) -> AsyncVault:
        return cls(await asyncio.to_thread(vault.Vault, root, **kwargs))

    # -- reads (aiofiles) ---------------------------------------------------------------

    async def _read(self, path: Path) -> bytes | None:
        """Like `Storage.read`: None when absent; the same checks (size limit, regular
        files only, no symlink out of the vault), made on the descriptor it then reads."""
        opened = await asyncio.to_thread(self.sync.storage.open_checked, path)
        if opened is None:
            return None
        fd, _ = opened
        try:
            async with aiofiles.open(fd, "rb") as handle:  # closes fd
                data: bytes = await handle.read()
                return data
        except OSError as exc:
            raise errors.CorruptFileError(path, f"cannot read: {exc.strerror}") from None

    async def _document(self, path: Path) -> models.Document:
        data = await self._read(path)
        if data is None:
            return models.Document(path, None, None)
        return models.Document(path, storage.decode_text(path, data), storage.sha256(data))

    async def entity(self, ref: layout.EntityRef | str) -> models.EntityFacts:
        ref = layout.as_ref(ref)
        folder = self.sync.paths.existing_entity_dir(ref)
        facts_path = self.sync.paths.facts_path(folder)
        data: bytes | errors.CorruptFileError | None
        try:
            data = await self._read(facts_path)
        except errors.CorruptFileError as exc:
            data = exc
        try:
            summary = await self._document(folder / layout.SUMMARY_NAME)
        except errors.CorruptFileError as exc:
            summary = models.Document(folder / layout.SUMMARY_NAME, None, None, exc)
        return self.sync.entity_view(ref, folder, facts_path, data, summary)

    async def summary(self, ref: layout.EntityRef | str) -> models.Document:
        ref = layout.as_ref(ref)
        return await self._document(self.sync.paths.existing_entity_dir(ref) / layout.SUMMARY_NAME)

    async def document(self, name: str, agent: str | None = None) -> models.Document:
        return await self._document(documents.agent_document_path(self.sync.paths, name, agent))

    async def daily_note(self, day: dt.date, agent: str | None = None) -> models.DailyNote:
        path = self.sync.paths.daily_file(day, agent)
        doc = await self._document(path)
        if doc.text is None:
            raise errors.NotFoundError(f"no daily note for {day.isoformat()} ({path})")
        return daily.parse(doc.text, day, agent, path)

    async def scan(self) -> models.VaultScan:
        return await asyncio.to_thread(self.sync.scan)

    # -- writes (whole, in a worker thread) -----------------------------------------------

    async def add_fact(
        self, ref: layout.EntityRef | str, text: str, category: str, **kw: Any
    ) -> models.Fact:
        return await asyncio.to_thread(self.sync.add_fact, ref, text, category, **kw)

    async def supersede_fact(
        self, fact_id: str, text: str, **kw: Any
    ) -> tuple[models.Fact, models.Fact]:
        return await asyncio.to_thread(self.sync.supersede_fact, fact_id, text, **kw)

    async def mark_accessed(self, fact_ids: Iterable[str]) -> dict[str, int]:
        return await asyncio.to_thread(self.sync.mark_accessed, list(fact_ids))

    async def append_daily(self, content: str, **kw: Any) -> models.DailyEntry:
        return await asyncio.to_thread(self.sync.append_daily, content, **kw)

    async def write_document(self, name: str, text: str, **kw: Any) -> str:
        return await asyncio.to_thread(self.sync.write_document, name, text, **kw)

    async def write_summary(self, ref: layout.EntityRef | str, text: str, **kw: Any) -> str:
        return await asyncio.to_thread(self.sync.write_summary, ref, text, **kw)

    async def create_entity(self, ref: layout.EntityRef | str, summary: str | None = None) -> Path:
        return await asyncio.to_thread(self.sync.create_entity, ref, summary)

    async def archive_entity(self, ref: layout.EntityRef | str) -> layout.EntityRef:
        return await asyncio.to_thread(self.sync.archive_entity, ref)

    async def synthesize(self, refs: Iterable[str] | None = None, **kw: Any) -> Any:
        return await asyncio.to_thread(self.sync.synthesize, refs, **kw)
