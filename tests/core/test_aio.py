"""The async API: reads through aiofiles, writes with the sync guarantees, off the loop."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from tests.grants import let_write_global
from vault_app.core import aio, decay, vault


def test_async_round_trip(tmp_path: Path) -> None:
    vault.Vault.create(tmp_path / "v")
    let_write_global(tmp_path / "v", "finance")
    clock = decay.fixed_clock(dt.datetime(2026, 5, 1, 10, 30, 0))

    async def scenario() -> None:
        v = await aio.AsyncVault.open(tmp_path / "v", actor="agent:finance", clock=clock)
        await v.create_entity("projects/budget", "The household budget.")
        facts = await asyncio.gather(
            *(v.add_fact("projects/budget", f"Line {i} approved", "milestone") for i in range(8))
        )
        view = await v.entity("projects/budget")
        assert sorted(f.fact for f in view.facts) == sorted(f.fact for f in facts)
        assert (await v.mark_accessed([facts[0].id])) == {facts[0].id: 1}
        old, new = await v.supersede_fact(facts[1].id, "Line 1 rejected")
        assert old.superseded_by == new.id
        entry = await v.append_daily("Reviewed the budget")
        note = await v.daily_note(dt.date(2026, 5, 1))
        assert note.entries[-1] == entry and entry.time == "10:30:00"
        summary = await v.summary("projects/budget")
        assert summary.text and summary.text.startswith("# Budget")
        scan = await v.scan()
        assert scan.fact_count == 9

    asyncio.run(scenario())


def test_async_reads_refuse_what_the_sync_reads_refuse(tmp_path: Path) -> None:
    """Issue 12's defect: `AsyncVault.entity` read an items.json that is a symlink out of
    the vault. Async reads go through the same storage guards as the sync ones: a link out,
    a file over the size limit, bad UTF-8 each give the same error, and no outside fact."""
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("areas/home", summary="The house.")
    outside = tmp_path / "outside.json"
    outside.write_text('[{"id": "fact-out", "fact": "secret outside", "category": "context"}]')
    facts = v.paths.life_dir / "areas" / "home" / "items.json"
    facts.unlink(missing_ok=True)
    facts.symlink_to(outside)
    big = v.paths.life_dir / "areas" / "big"
    big.mkdir()
    (big / "items.json").write_bytes(b"[" + b" " * (v.config.storage.max_file_bytes + 1) + b"]")
    bad = v.paths.life_dir / "areas" / "bad"
    bad.mkdir()
    (bad / "items.json").write_bytes(b'[{"id": "fact-b", "fact": "caf\xe9"}]')

    async def scenario() -> None:
        av = await aio.AsyncVault.open(tmp_path / "v")
        for ref in ("areas/home", "areas/big", "areas/bad"):
            sync_view = v.entity(ref)
            async_view = await av.entity(ref)
            assert sync_view.error is not None and async_view.error is not None, ref
            assert str(async_view.error) == str(sync_view.error)
            assert async_view.facts == [] == sync_view.facts

    asyncio.run(scenario())
    assert "outside the vault" in str(v.entity("areas/home").error)
