"""The `Vault` facade: entities, facts, lineage, access, archives, documents, daily notes,
synthesis, backups and the audit log."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.grants import let_write_global
from vault_app.core import config, decay, errors, layout, models, storage, synthesis
from vault_app.core import vault as vault_module

NOW = dt.datetime(2026, 3, 1, 14, 5, 9)
JANE = "areas/people/jane"


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    """A vault at NOW (a fixed clock) with one entity, `areas/people/jane`."""
    target = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_entity(JANE, summary="The user's sister-in-law.")
    return target


def at(v: vault_module.Vault, moment: dt.datetime, **kwargs: Any) -> vault_module.Vault:
    """The same vault seen by another writer, whose clock says `moment`."""
    return vault_module.Vault(v.root, clock=decay.fixed_clock(moment), **kwargs)


def items(v: vault_module.Vault, entity: str = JANE) -> Path:
    return v.paths.life_dir / entity / "items.json"


def raw(v: vault_module.Vault, entity: str = JANE) -> list[dict[str, Any]]:
    return json.loads(items(v, entity).read_bytes())


def audit_lines(v: vault_module.Vault) -> list[dict[str, Any]]:
    path = v.paths.state_dir / "audit.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def formats_iso(moment: dt.datetime) -> str:
    return decay.as_aware(moment).isoformat(timespec="seconds")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- entities ---------------------------------------------------------------------------------


def test_create_entity(v: vault_module.Vault) -> None:
    folder = v.paths.life_dir / JANE
    assert (folder / "summary.md").read_text() == "# Jane\n\nThe user's sister-in-law.\n"
    assert (folder / "items.json").read_bytes() == b"[]\n"
    view = v.entity(JANE)
    assert view.facts == [] and view.error is None
    assert view.summary.text is not None and view.summary.text.startswith("# Jane")
    with pytest.raises(errors.AlreadyExistsError):
        v.create_entity(JANE)
    with pytest.raises(errors.AlreadyExistsError):
        v.create_entity(f"global:{JANE}")
    assert [str(ref) for ref in v.entity_refs()] == [JANE]


def test_create_entity_in_an_agent_workspace(v: vault_module.Vault) -> None:
    with pytest.raises(errors.NotFoundError):
        v.create_entity("agent:finance:projects/budget")
    v.create_agent("finance")
    folder = v.create_entity("agent:finance:projects/budget")
    assert folder == v.root / "agents/finance/workspace/projects/budget"
    fact = v.add_fact("agent:finance:projects/budget", "Budget is 2,000 a month", "status")
    assert v.fact(fact.id)[0] == layout.EntityRef("finance", "projects/budget")
    assert {e.address for e in v.scan().entities} == {JANE, "agent:finance:projects/budget"}


def test_first_fact_is_written_in_the_canonical_layout(v: vault_module.Vault) -> None:
    fact = v.add_fact(JANE, "Jane lives in Seattle", "context")
    data = items(v).read_bytes()
    assert data == orjson.dumps(raw(v), option=orjson.OPT_INDENT_2) + b"\n"
    assert data.startswith(b'[\n  {\n    "id": "' + fact.id.encode() + b'",\n')


# -- facts -----------------------------------------------------------------------------------


def test_add_fact(v: vault_module.Vault) -> None:
    v.create_entity("areas/people/tom")
    fact = v.add_fact(
        JANE,
        "  Jane moved to Seattle in January  ",
        "milestone",
        related=["areas/people/tom"],
        agent_id="assistant",
        confidence=0.8,
        metadata={"extractedFrom": "daily/2026-03-01.md"},
    )
    assert re.fullmatch(r"fact-[0-9a-f]{32}", fact.id)
    assert fact.fact == "Jane moved to Seattle in January"
    assert fact.category is models.FactCategory.MILESTONE
    assert fact.status is models.FactStatus.ACTIVE and fact.is_active
    assert fact.timestamp == fact.last_accessed == decay.as_aware(NOW)
    assert fact.source == "2026-03-01"
    assert (fact.access_count, fact.confidence, fact.agent_id) == (0, 0.8, "assistant")
    assert fact.related_entities == ["areas/people/tom"]
    assert fact.metadata == {"extractedFrom": "daily/2026-03-01.md"}
    (entry,) = raw(v)
    assert list(entry) == [
        "id", "fact", "category", "timestamp", "source", "status", "supersededBy",
        "relatedEntities", "lastAccessed", "accessCount", "confidence", "agentId", "metadata",
    ]  # fmt: skip
    assert entry["timestamp"] == formats_iso(NOW)
    assert v.entity(JANE).facts == [fact]
    second = v.add_fact(JANE, "Jane likes tea", "preference", source="conversation-42")
    assert second.source == "conversation-42"
    assert [e["id"] for e in raw(v)] == [fact.id, second.id]


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"text": ""}, errors.InvalidFactError, "needs text"),
        ({"text": "  \n\t "}, errors.InvalidFactError, "needs text"),
        ({"category": "nonsense"}, errors.InvalidFactError, "unknown category 'nonsense'"),
        ({"confidence": 1.5}, errors.InvalidFactError, "between 0 and 1"),
        ({"confidence": -0.1}, errors.InvalidFactError, "between 0 and 1"),
        ({"confidence": float("nan")}, errors.InvalidFactError, "between 0 and 1"),
        ({"confidence": True}, errors.InvalidFactError, "between 0 and 1"),
        ({"related": ["../etc/passwd"]}, errors.InvalidIdError, "'..' is not allowed"),
        ({"related": ["people/jane"]}, errors.InvalidIdError, "must start with"),
        ({"related": ["areas/ x"]}, errors.InvalidIdError, "padding"),
        ({"agent_id": "../root"}, errors.InvalidIdError, "invalid agent id"),
    ],
)
def test_add_fact_validation(
    v: vault_module.Vault, kwargs: dict[str, Any], error: type[Exception], words: str
) -> None:
    before = items(v).read_bytes()
    args: dict[str, Any] = {"text": "Jane likes tea", "category": "preference", **kwargs}
    with pytest.raises(error, match=re.escape(words)):
        v.add_fact(JANE, args.pop("text"), args.pop("category"), **args)
    assert items(v).read_bytes() == before


def test_add_fact_to_a_missing_entity(v: vault_module.Vault) -> None:
    with pytest.raises(errors.NotFoundError):
        v.add_fact("areas/people/nobody", "x", "context")
    assert not (v.paths.life_dir / "areas/people/nobody").exists()
    fact = v.add_fact("areas/people/newcomer", "Met at the party", "context", create=True)
    assert v.entity("areas/people/newcomer").facts == [fact]


def test_supersede_links_both_ways_and_keeps_the_old_fact(v: vault_module.Vault) -> None:
    v.create_entity("areas/people/tom")
    first = v.add_fact(JANE, "Jane lives in Portland", "context", related=["areas/people/tom"])
    other = v.add_fact(JANE, "Jane likes tea", "preference")
    old, new = v.supersede_fact(first.id, "Jane lives in Seattle", source="dialog-9")
    assert old.id == first.id and old.superseded_by == new.id and not old.is_active
    assert old.status is models.FactStatus.SUPERSEDED
    assert new.supersedes == first.id and new.is_active
    assert new.category is models.FactCategory.CONTEXT  # inherited
    assert new.related_entities == ["areas/people/tom"]  # inherited
    entries = {e["id"]: e for e in raw(v)}
    assert len(entries) == 3  # nothing is deleted
    assert entries[first.id]["status"] == "superseded"
    assert entries[first.id]["supersededBy"] == new.id
    assert entries[first.id]["fact"] == "Jane lives in Portland"
    assert entries[new.id]["supersededBy"] is None
    assert entries[other.id] == json.loads(json.dumps(entries[other.id]))
    view = v.entity(JANE)
    assert view.fact(first.id).superseded_by == new.id
    assert view.fact(new.id).supersedes == first.id
    assert [f.id for f in view.facts if f.is_active] == [other.id, new.id]


def test_superseding_a_superseded_fact_fails(v: vault_module.Vault) -> None:
    first = v.add_fact(JANE, "Jane lives in Portland", "context")
    _, new = v.supersede_fact(first.id, "Jane lives in Seattle")
    before = items(v).read_bytes()
    with pytest.raises(errors.InvalidFactError, match=f"already superseded by {new.id}"):
        v.supersede_fact(first.id, "Jane lives in Denver")
    assert items(v).read_bytes() == before
    with pytest.raises(errors.NotFoundError):
        v.supersede_fact("fact-does-not-exist", "x")
    with pytest.raises(errors.InvalidFactError):
        v.supersede_fact(new.id, "   ")
    assert items(v).read_bytes() == before
    v.set_fact_status(new.id, False)  # retracted (an undone add/supersede): not revived
    retracted = items(v).read_bytes()
    with pytest.raises(errors.InvalidFactError, match=f"fact {new.id} was retracted"):
        v.supersede_fact(new.id, "Jane lives in Boise")
    assert items(v).read_bytes() == retracted


def test_undo_steps_retract_and_reinstate_without_deleting(v: vault_module.Vault) -> None:
    first = v.add_fact(JANE, "Jane lives in Portland", "context")
    _, new = v.supersede_fact(first.id, "Jane lives in Seattle")
    # undo the supersede: the old fact is active again, the new one withdrawn
    assert v.set_fact_status(first.id, True).is_active
    retracted = v.set_fact_status(new.id, False)
    assert not retracted.is_active and retracted.superseded_by is None
    entries = {e["id"]: e for e in raw(v)}
    assert len(entries) == 2  # nothing deleted
    assert entries[first.id]["status"] == "active" and entries[first.id]["supersededBy"] is None
    assert entries[new.id]["metadata"]["retracted"]["by"] == "api"
    # redo it: the new fact is back and the old one superseded by it again
    assert v.set_fact_status(new.id, True).is_active
    again = v.set_fact_status(first.id, False, superseded_by=new.id)
    assert again.superseded_by == new.id
    entries = {e["id"]: e for e in raw(v)}
    assert "retracted" not in entries[new.id].get("metadata", {})
    assert [f.id for f in v.entity(JANE).facts if f.is_active] == [new.id]
    with pytest.raises(errors.NotFoundError):
        v.set_fact_status(first.id, False, superseded_by="fact-missing")
    assert audit_lines(v)[-1]["action"] == "fact.retract"


def test_history_in_order(v: vault_module.Vault) -> None:
    a = v.add_fact(JANE, "Jane lives in Portland", "context")
    _, b = v.supersede_fact(a.id, "Jane lives in Seattle")
    _, c = v.supersede_fact(b.id, "Jane lives in Denver")
    v.add_fact(JANE, "Unrelated", "status")
    for member in (a, b, c):
        assert [f.id for _, f in v.fact_history(member.id)] == [a.id, b.id, c.id]
    assert all(ref == layout.EntityRef(None, JANE) for ref, _ in v.fact_history(c.id))


def test_mark_accessed(v: vault_module.Vault) -> None:
    v.create_entity("projects/kitchen")
    a = v.add_fact(JANE, "Jane likes tea", "preference")
    b = v.add_fact(JANE, "Jane lives in Seattle", "context")
    c = v.add_fact("projects/kitchen", "Budget is 18k", "status")
    later = at(v, NOW + dt.timedelta(days=3))
    counts = later.mark_accessed([a.id, c.id, a.id])  # a repeated id counts once per call
    assert counts == {a.id: 1, c.id: 1}
    assert later.mark_accessed([a.id]) == {a.id: 2}
    view = v.entity(JANE)
    assert view.fact(a.id).access_count == 2
    assert view.fact(a.id).last_accessed == decay.as_aware(NOW + dt.timedelta(days=3))
    assert view.fact(b.id).access_count == 0
    assert view.fact(b.id).last_accessed == decay.as_aware(NOW)
    assert v.entity("projects/kitchen").fact(c.id).access_count == 1
    assert v.mark_accessed([]) == {}
    before = items(v).read_bytes()
    with pytest.raises(errors.NotFoundError, match="fact-missing"):
        v.mark_accessed([a.id, "fact-missing"])
    assert items(v).read_bytes() == before


# -- archives --------------------------------------------------------------------------------


def test_archive_keeps_the_group_and_references_resolve(v: vault_module.Vault) -> None:
    fact = v.add_fact(JANE, "Jane lives in Seattle", "context")
    files = {p.name: p.read_bytes() for p in (v.paths.life_dir / JANE).iterdir()}
    target = v.archive_entity(JANE)
    assert target == layout.EntityRef(None, "archives/people/jane")
    assert not (v.paths.life_dir / JANE).exists()
    moved = v.paths.life_dir / "archives/people/jane"
    assert {p.name: p.read_bytes() for p in moved.iterdir()} == files
    assert v.resolve_reference(JANE) == target
    assert v.resolve_reference(f"global:{JANE}") == target
    assert v.resolve_reference("areas/people/nobody") is None
    assert v.resolve_reference("../etc") is None
    assert v.fact(fact.id)[0] == target
    with pytest.raises(errors.InvalidIdError, match="already archived"):
        v.archive_entity(target)
    with pytest.raises(errors.NotFoundError):
        v.archive_entity(JANE)
    assert audit_lines(v)[-1]["action"] == "entity.archive"


def test_archive_name_collision_gets_a_suffix_and_loses_nothing(v: vault_module.Vault) -> None:
    first = v.add_fact(JANE, "Jane the first", "context")
    assert v.archive_entity(JANE) == layout.EntityRef(None, "archives/people/jane")
    v.create_entity(JANE)
    second = v.add_fact(JANE, "Jane the second", "context")
    assert v.archive_entity(JANE) == layout.EntityRef(None, "archives/people/jane-2")
    v.create_entity(JANE)
    assert v.archive_entity(JANE) == layout.EntityRef(None, "archives/people/jane-3")
    archived = v.paths.life_dir / "archives/people"
    assert [f["id"] for f in json.loads((archived / "jane/items.json").read_bytes())] == [first.id]
    assert [f["id"] for f in json.loads((archived / "jane-2/items.json").read_bytes())] == [
        second.id
    ]
    assert v.resolve_reference(JANE) == layout.EntityRef(None, "archives/people/jane")
    assert {str(r) for r in v.entity_refs()} == {
        "archives/people/jane",
        "archives/people/jane-2",
        "archives/people/jane-3",
    }


def test_restore_entity_undoes_an_archive_and_never_overwrites(v: vault_module.Vault) -> None:
    fact = v.add_fact(JANE, "Jane the first", "context")
    archived = v.archive_entity(JANE)
    assert v.restore_entity(archived, JANE) == layout.EntityRef.parse(JANE)
    assert v.entity(JANE).fact(fact.id).fact == "Jane the first"
    archived = v.archive_entity(JANE)
    v.create_entity(JANE)  # someone took the name meanwhile
    with pytest.raises(errors.AlreadyExistsError):
        v.restore_entity(archived, JANE)
    assert v.entity(archived).fact(fact.id)  # still in the archive, untouched
    with pytest.raises(errors.InvalidIdError):
        v.restore_entity(archived, "agent:x:areas/people/jane")


def test_retract_daily_entry_removes_only_that_entry(v: vault_module.Vault) -> None:
    first = v.append_daily("Called the plumber")
    mine = at(v, NOW + dt.timedelta(minutes=1)).append_daily("Booked the roofer\n\nfor May")
    at(v, NOW + dt.timedelta(minutes=2)).append_daily("Paid the bill")
    v.retract_daily_entry(mine)
    note = v.daily_note(first.date)
    assert [e.text for e in note.entries] == ["Called the plumber", "Paid the bill"]
    with pytest.raises(errors.NotFoundError):
        v.retract_daily_entry(mine)  # already gone: nothing else is touched
    assert [e.text for e in v.daily_note(first.date).entries] == [
        "Called the plumber",
        "Paid the bill",
    ]


def test_archive_in_an_agent_workspace_prefers_the_agents_own_entity(
    v: vault_module.Vault,
) -> None:
    v.create_agent("finance")
    v.create_entity("agent:finance:projects/budget")
    target = v.archive_entity("agent:finance:projects/budget")
    assert str(target) == "agent:finance:archives/budget"
    assert v.resolve_reference("projects/budget", agent="finance") == target
    assert v.resolve_reference("projects/budget") is None


# -- summaries and agent documents ----------------------------------------------------------


def test_summary_edit_with_expected_hash(v: vault_module.Vault) -> None:
    doc = v.summary(JANE)
    assert doc.exists and doc.digest == sha(doc.path)
    digest = v.write_summary(JANE, "# Jane\n\nEdited.\n", expected=doc.digest)
    assert doc.path.read_text() == "# Jane\n\nEdited.\n"
    assert digest == sha(doc.path)
    # Someone else edits the file meanwhile: a write against the old hash is refused.
    doc.path.write_text("# Jane\n\nEdited elsewhere.\n")
    with pytest.raises(errors.ConflictError, match="changed on disk") as caught:
        v.write_summary(JANE, "# Jane\n\nMine.\n", expected=digest)
    assert caught.value.expected == digest and caught.value.actual == sha(doc.path)
    assert doc.path.read_text() == "# Jane\n\nEdited elsewhere.\n"
    # Reload and retry, or keep mine on purpose.
    v.write_summary(JANE, "# Jane\n\nMine.\n", expected=v.summary(JANE).digest)
    v.write_summary(JANE, "# Jane\n\nForced.\n", expected=vault_module.Check.SKIP)
    assert doc.path.read_text() == "# Jane\n\nForced.\n"
    # A file that is gone is a conflict too; None means "I expect no file".
    doc.path.unlink()
    with pytest.raises(errors.ConflictError, match="no file"):
        v.write_summary(JANE, "x\n", expected=digest)
    v.write_summary(JANE, "# Jane again\n", expected=None)
    with pytest.raises(errors.ConflictError):
        v.write_summary(JANE, "x\n", expected=None)


def test_agent_documents(v: vault_module.Vault) -> None:
    v.create_agent("finance")
    tacit = v.document("TACIT.md", agent="finance")
    assert tacit.text == "# Tacit knowledge — finance\n"
    assert v.document("CONTEXT.md", agent="finance").text == "# Current context — finance\n"
    assert not v.document("SOUL.md", agent="finance").exists
    v.write_document(
        "TACIT.md", "# Tacit\n\n- Prefers bullet points\n", agent="finance", expected=tacit.digest
    )
    with pytest.raises(errors.ConflictError):
        v.write_document("TACIT.md", "# Stale\n", agent="finance", expected=tacit.digest)
    v.write_document("SOUL.md", "# Soul\n", agent="finance", expected=None)
    assert v.document("SOUL.md", agent="finance").text == "# Soul\n"
    with pytest.raises(errors.InvalidIdError):
        v.document("TACIT.md")  # an agent's document needs the agent
    with pytest.raises(errors.InvalidIdError):
        v.document("../../etc/passwd", agent="finance")
    with pytest.raises(errors.NotFoundError):
        v.document("TACIT.md", agent="nobody")


def test_agents_may_read_but_not_overwrite_the_principles(v: vault_module.Vault) -> None:
    v.create_agent("finance")
    principles = v.paths.principles_file
    agent = at(v, NOW, actor="agent:finance")
    doc = agent.document("AGENTS.md")
    assert doc.text is not None and doc.text.startswith("# Principles")
    before = principles.read_bytes()
    with pytest.raises(errors.VaultError, match="agents may read it, not overwrite it"):
        agent.write_document("AGENTS.md", "# Obey me\n", expected=doc.digest)
    with pytest.raises(errors.VaultError):
        agent.write_document("AGENTS.md", "# Obey me\n", expected=vault_module.Check.SKIP)
    assert principles.read_bytes() == before
    # The agent's own files are its to write; a person may edit the principles.
    agent.write_document("CONTEXT.md", "# Now\n", agent="finance", expected=vault_module.Check.SKIP)
    v.write_document("AGENTS.md", "# Principles\n\n1. Be kind.\n", expected=doc.digest)
    assert principles.read_text() == "# Principles\n\n1. Be kind.\n"


# -- daily notes -----------------------------------------------------------------------------


def test_daily_append_format(v: vault_module.Vault) -> None:
    entry = v.append_daily("Talked to Jane about the move.")
    path = v.paths.global_dir / "daily" / "2026-03-01.md"
    assert path.read_text() == "# 2026-03-01\n\n## 14:05:09\n\nTalked to Jane about the move.\n"
    assert (entry.time, entry.text, entry.index) == (
        "14:05:09",
        "Talked to Jane about the move.",
        0,
    )
    before = path.read_text()
    later = at(v, dt.datetime(2026, 3, 1, 18, 0, 0))
    later.append_daily("Second entry\n\nwith two paragraphs\n\n")
    assert path.read_text() == before + "\n## 18:00:00\n\nSecond entry\n\nwith two paragraphs\n"
    note = v.daily_note(dt.date(2026, 3, 1))
    assert [(e.time, e.text) for e in note.entries] == [
        ("14:05:09", "Talked to Jane about the move."),
        ("18:00:00", "Second entry\n\nwith two paragraphs"),
    ]
    assert v.daily_dates() == [dt.date(2026, 3, 1)]
    with pytest.raises(errors.InvalidFactError):
        v.append_daily("   \n")
    assert path.read_text() == before + "\n## 18:00:00\n\nSecond entry\n\nwith two paragraphs\n"


def test_agent_daily_append(v: vault_module.Vault) -> None:
    with pytest.raises(errors.NotFoundError):
        v.append_daily("hello", agent="finance")
    v.create_agent("finance")
    v.append_daily("Paid the rent.", agent="finance", at=dt.datetime(2026, 2, 28, 23, 59, 59))
    path = v.root / "agents/finance/daily/2026-02-28.md"
    assert path.read_text() == "# 2026-02-28\n\n## 23:59:59\n\nPaid the rent.\n"
    assert v.daily_dates("finance") == [dt.date(2026, 2, 28)]
    assert v.daily_dates() == []


# -- synthesis -------------------------------------------------------------------------------


def fact_entry(fid: str, text: str, last_accessed: dt.datetime, count: int, **extra: Any) -> dict:
    return {
        "id": fid,
        "fact": text,
        "category": extra.pop("category", "context"),
        "timestamp": "2025-01-01T00:00:00",
        "source": "2025-01-01",
        "status": extra.pop("status", "active"),
        "supersededBy": extra.pop("supersededBy", None),
        "relatedEntities": [],
        "lastAccessed": last_accessed.isoformat(),
        "accessCount": count,
        "confidence": 1.0,
        "agentId": None,
        "metadata": {},
    }


def seed_tiers(v: vault_module.Vault) -> None:
    days = dt.timedelta(days=1)
    facts = [
        fact_entry("w-low", "Warm, rarely read", NOW - 20 * days, 1),
        fact_entry("h-low", "Hot, read twice", NOW - 1 * days, 2, category="preference"),
        fact_entry("c-1", "Cold and forgotten", NOW - 90 * days, 3),
        fact_entry("h-high", "Hot, read a lot", NOW - 9 * days, 15, category="status"),
        fact_entry("w-high", "Warm, read often", NOW - 40 * days, 12),
        fact_entry("old", "Replaced long ago", NOW, 99, status="superseded", supersededBy="h-low"),
        fact_entry("c-2", "Cold as well", NOW - 61 * days, 25),
    ]
    items(v).write_text(json.dumps(facts, indent=2) + "\n")


def test_synthesis_orders_hot_then_warm_and_omits_cold(v: vault_module.Vault) -> None:
    seed_tiers(v)
    summary = v.paths.life_dir / JANE / "summary.md"
    summary.write_text("# Jane\n\nHand-written intro.\n")
    results, problems = v.synthesize([JANE])
    assert problems == []
    (result,) = results
    assert (result.changed, result.hot, result.warm, result.cold) == (True, 2, 2, 2)
    block = "\n".join(
        [
            synthesis.BEGIN,
            "",
            "## Hot",
            "",
            "- Hot, read a lot _(status)_",
            "- Hot, read twice _(preference)_",
            "",
            "## Warm",
            "",
            "- Warm, read often _(context)_",
            "- Warm, rarely read _(context)_",
            "",
            "_2 cold facts omitted (still searchable)._",
            "",
            synthesis.END,
        ]
    )
    assert summary.read_text() == f"# Jane\n\nHand-written intro.\n\n{block}\n"
    # Text the user adds around the block survives the next run.
    summary.write_text("# Jane\n\nNew intro.\n\n" + block + "\n\n## Notes\n\nMine.\n")
    v.mark_accessed(["w-low"])  # now hot
    results, _ = v.synthesize([JANE])
    text = summary.read_text()
    assert results[0].changed and (results[0].hot, results[0].warm) == (3, 1)
    assert text.startswith("# Jane\n\nNew intro.\n\n" + synthesis.BEGIN)
    assert text.endswith(synthesis.END + "\n\n## Notes\n\nMine.\n")
    assert text.index("Warm, rarely read") < text.index("## Warm")


def test_synthesis_dry_run_and_idempotence(v: vault_module.Vault) -> None:
    seed_tiers(v)
    summary = v.paths.life_dir / JANE / "summary.md"
    before = summary.read_bytes()
    lines = len(audit_lines(v))
    results, _ = v.synthesize([JANE], dry_run=True)
    assert results[0].changed
    assert results[0].diff.startswith(f"--- a/global/life/{JANE}/summary.md\n")
    assert "+- Hot, read a lot _(status)_\n" in results[0].diff
    assert summary.read_bytes() == before
    assert len(audit_lines(v)) == lines
    v.synthesize([JANE])
    after = summary.read_bytes()
    assert after != before
    lines = len(audit_lines(v))
    results, _ = v.synthesize([JANE])
    assert not results[0].changed and results[0].diff == ""
    assert summary.read_bytes() == after
    assert len(audit_lines(v)) == lines
    # A full run also refreshes index.md, and a second full run changes nothing.
    first, _ = v.synthesize()
    assert any(r.ref is None and r.path.name == "index.md" for r in first)
    again, _ = v.synthesize()
    assert not any(r.changed for r in again)


# -- backups and audit -----------------------------------------------------------------------


def test_backup_ring_is_bounded_and_holds_the_latest_versions(tmp_path: Path) -> None:
    settings = config.VaultConfig(storage=config.StorageSettings(backups_per_file=3))
    v = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW), settings=settings)
    v.create_entity(JANE)
    versions = [items(v).read_bytes()]
    for n in range(6):
        v.add_fact(JANE, f"Fact number {n}", "context")
        versions.append(items(v).read_bytes())
    kept = v.storage.backups(items(v))
    assert len(kept) == 3
    # newest first, the version just written included: a file deleted outside the app
    # comes back as it last was
    assert [p.read_bytes() for p in kept] == versions[-1:-4:-1]
    for path in kept:
        assert path.name.endswith(storage.sha256(path.read_bytes())[:12])
        json.loads(path.read_bytes())
    assert items(v).read_bytes() == versions[-1]


def test_backup_ring_size_comes_from_the_vaults_config(tmp_path: Path) -> None:
    root = tmp_path / "v"
    vault_module.Vault.create(root)
    cfg = root / ".vault" / "config.toml"
    cfg.write_text(cfg.read_text().replace("backups_per_file = 20", "backups_per_file = 2"))
    v = vault_module.Vault(root)
    assert v.config.storage.backups_per_file == 2
    v.create_entity(JANE)
    for n in range(4):
        v.add_fact(JANE, f"Fact {n}", "context")
    assert len(v.storage.backups(items(v))) == 2


def test_audit_lines(v: vault_module.Vault) -> None:
    v.create_agent("finance")
    let_write_global(v.root, "finance")
    agent = at(v, NOW, actor="agent:finance")
    before = sha(items(v))
    fact = agent.add_fact(JANE, "Jane likes tea", "preference", agent_id="finance")
    after = sha(items(v))
    line = audit_lines(v)[-1]
    assert line == {
        "time": decay.as_aware(NOW).isoformat(timespec="milliseconds"),
        "actor": "agent:finance",
        "action": "fact.add",
        "target": f"global/life/{JANE}/items.json",
        "before": before,
        "after": after,
        "entity": JANE,
        "factId": fact.id,
    }
    _, new = at(v, NOW, actor="cli").supersede_fact(fact.id, "Jane likes green tea")
    line = audit_lines(v)[-1]
    assert (line["actor"], line["action"], line["factId"], line["supersedes"]) == (
        "cli",
        "fact.supersede",
        new.id,
        fact.id,
    )
    assert line["before"] == after and line["after"] == sha(items(v))
    v.mark_accessed([new.id])
    line = audit_lines(v)[-1]
    assert (line["actor"], line["action"], line["factIds"]) == ("api", "fact.access", [new.id])
    v.append_daily("note")
    line = audit_lines(v)[-1]
    assert (line["action"], line["target"]) == ("daily.append", "global/daily/2026-03-01.md")
    assert "before" not in line  # a new file
    # Every write is one line; a write that changes nothing leaves none.
    count = len(audit_lines(v))
    text = v.summary(JANE).text
    assert text is not None
    v.write_summary(JANE, text, expected=vault_module.Check.SKIP)
    assert len(audit_lines(v)) == count
    actions = [line["action"] for line in audit_lines(v)]
    assert actions.count("entity.create") == 2  # summary.md and items.json


def test_an_entity_deleted_outside_comes_back_as_it_last_was(v: vault_module.Vault) -> None:
    v.add_fact(JANE, "Jane lives nearby", "context")
    fact = v.add_fact(JANE, "Jane has a van", "context")
    folder = v.paths.life_dir / JANE
    facts, summary = (folder / "items.json").read_bytes(), (folder / "summary.md").read_bytes()
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    restored = v.restore_deleted(JANE)
    assert sorted(p.name for p in restored) == ["items.json", "summary.md"]
    assert (folder / "items.json").read_bytes() == facts
    assert (folder / "summary.md").read_bytes() == summary
    assert v.entity(JANE).fact(fact.id).fact == "Jane has a van"
    assert v.restore_deleted(JANE) == []  # nothing missing: nothing written
    with pytest.raises(errors.NotFoundError):
        v.restore_deleted("areas/people/nobody")


def test_update_scan_counts_only_the_changed_entities(v: vault_module.Vault) -> None:
    v.create_entity("projects/roof")
    scan = v.scan()
    v.add_fact(JANE, "Jane has a van", "context")
    v.create_entity("areas/people/tom")
    (v.paths.life_dir / "projects/roof/items.json").write_text("[{")
    updated = v.update_scan(scan, [JANE, "areas/people/tom", "projects/roof"])
    assert updated.entities == v.scan().entities  # same as a full scan, in the same order
    assert [p.path for p in updated.problems] == ["global/life/projects/roof/items.json"]
    folder = v.paths.life_dir / "areas/people/tom"
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    gone = v.update_scan(updated, ["areas/people/tom"])
    assert "areas/people/tom" not in {e.address for e in gone.entities}


def test_canonical_addresses_compare_addresses_from_outside() -> None:
    canonical = layout.EntityRef.canonical
    assert canonical("areas/people/jane") == canonical("global:areas/people/jane")
    assert canonical("global:areas/people/jane") == "areas/people/jane"
    assert canonical("agent:finance:projects/budget") == "agent:finance:projects/budget"
    for bad in ("", "../etc", "areas/../x", "agent:finance", "/abs/path"):
        assert canonical(bad) is None


def test_an_entity_is_headed_with_its_title_as_written(tmp_path: Path) -> None:
    v = vault_module.Vault.create(tmp_path / "v")
    v.create_entity("areas/people/tomas", title="Tomás")
    v.create_entity("areas/people/dr-lee", "Our pediatrician.", title="## Dr.\n  Lee")
    v.create_entity("areas/people/ana")  # no title: its folder's name made words
    heads = [v.entity(r).summary.text.splitlines()[0] for r in
             ("areas/people/tomas", "areas/people/dr-lee", "areas/people/ana")]  # fmt: skip
    assert heads == ["# Tomás", "# Dr. Lee", "# Ana"]
