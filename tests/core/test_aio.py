"""The async API: reads through aiofiles, writes with the sync guarantees, off the loop."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from vault_app.core import aio, decay, vault


def test_async_round_trip(tmp_path: Path) -> None:
    vault.Vault.create(tmp_path / "v")
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
