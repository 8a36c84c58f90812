"""The demo vault: size, tiers, lineage, links, daily notes, agent files, determinism."""

from __future__ import annotations

import collections
import datetime as dt
import itertools
import re
from pathlib import Path

import pytest

from vault_app.core import decay, demo, errors, layout, models, prefetch, scanner, vault

TODAY = dt.date(2026, 3, 15)
MORNING = dt.datetime.combine(TODAY, dt.time(9, 30)).astimezone()
TOPICS = ("plumber", "leak", "budget", "insurance", "roof")


@pytest.fixture(scope="module")
def demo_vault(tmp_path_factory: pytest.TempPathFactory) -> vault.Vault:
    """One demo vault for the module (read-only tests), seen at 09:30 on TODAY."""
    root = tmp_path_factory.mktemp("demo") / "v"
    return demo.create_demo(root, today=TODAY, clock=decay.fixed_clock(MORNING))


@pytest.fixture(scope="module")
def all_facts(demo_vault: vault.Vault) -> list[tuple[layout.EntityRef, models.Fact]]:
    facts = []
    for ref in demo_vault.entity_refs():
        view = demo_vault.entity(ref)
        assert view.error is None, view.error
        assert view.invalid == [], view.invalid
        facts.extend((ref, fact) for fact in view.facts)
    return facts


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and layout.STATE_DIR not in p.relative_to(root).parts
    }


def test_sizes(demo_vault: vault.Vault) -> None:
    scan = demo_vault.scan()
    assert 45 <= len(scan.entities) <= 60
    assert 480 <= scan.fact_count <= 560
    paths = {e.address for e in scan.entities}
    for category in layout.PARA_CATEGORIES:
        assert any(p.startswith(f"{category}/") for p in paths), category
    assert sum(p.startswith("areas/people/") for p in paths) >= 5
    assert sum(p.startswith("areas/companies/") for p in paths) >= 5
    assert sum(p.startswith("agent:") for p in paths) >= 5


def test_scan_has_no_problems(demo_vault: vault.Vault) -> None:
    assert demo_vault.scan().problems == []


def test_every_tier_and_category(
    demo_vault: vault.Vault, all_facts: list[tuple[layout.EntityRef, models.Fact]]
) -> None:
    totals = demo_vault.scan().tier_totals()
    assert all(totals[tier] > 0 for tier in ("hot", "warm", "cold", "superseded")), totals
    active = [f for _, f in all_facts if f.is_active]
    tiers = collections.Counter(demo_vault.tier(f) for f in active)
    assert all(tiers[t] >= 50 for t in models.DecayTier), tiers  # a real spread, not a token
    assert {f.category for _, f in all_facts} == set(models.FactCategory)
    counts = {f.access_count for f in active}
    assert max(counts) > 20 and any(10 < c <= 20 for c in counts)  # frequency resistance used


def test_tiers_hold_all_day(demo_vault: vault.Vault) -> None:
    """Summaries written at creation stay right whatever the hour of `today`."""
    expected = demo_vault.scan().tier_totals()
    for moment in (dt.time(0, 0, 1), dt.time(12), dt.time(23, 59, 59)):
        at = dt.datetime.combine(TODAY, moment).astimezone()
        seen = vault.Vault(demo_vault.root, clock=decay.fixed_clock(at)).scan()
        assert seen.tier_totals() == expected, moment
    results, problems = demo_vault.synthesize(dry_run=True)  # at 09:30, written at noon
    assert problems == []
    assert [r.path for r in results if r.changed] == []


def test_superseded_chains(
    demo_vault: vault.Vault, all_facts: list[tuple[layout.EntityRef, models.Fact]]
) -> None:
    heads = [f for _, f in all_facts if not f.is_active and f.supersedes is None]
    chains = [demo_vault.fact_history(f.id) for f in heads]
    assert len(chains) >= 3
    assert any(len(chain) >= 3 for chain in chains)
    for chain in chains:
        facts = [fact for _, fact in chain]
        assert len(facts) >= 2 and facts[-1].is_active
        for old, new in itertools.pairwise(facts):
            assert old.status is models.FactStatus.SUPERSEDED
            assert old.superseded_by == new.id
            assert old.timestamp is not None and new.timestamp is not None
            assert old.timestamp < new.timestamp
            assert old.category == new.category
        assert len({ref for ref, _ in chain}) == 1  # a chain stays in its entity


def test_related_entities_resolve(
    demo_vault: vault.Vault, all_facts: list[tuple[layout.EntityRef, models.Fact]]
) -> None:
    linked = [(ref, f) for ref, f in all_facts if f.related_entities]
    assert len(linked) >= 100
    for ref, fact in linked:
        assert ref.path not in fact.related_entities
        for target in fact.related_entities:
            assert demo_vault.resolve_reference(target, agent=ref.agent) is not None, target
    plumber = demo_vault.related("areas/people/marcus-bell")
    assert "projects/bathroom-remodel" in plumber["outgoing"]
    assert "areas/companies/northside-renovations" in plumber["outgoing"]
    assert "projects/bathroom-remodel" in plumber["incoming"]
    bathroom = demo_vault.related("projects/bathroom-remodel")
    assert "areas/companies/northside-renovations" in bathroom["outgoing"]


def test_fact_fields(all_facts: list[tuple[layout.EntityRef, models.Fact]]) -> None:
    ids = [f.id for _, f in all_facts]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"fact-[0-9a-f]{32}", i) for i in ids)
    start_of_today = dt.datetime.combine(TODAY, dt.time()).astimezone()
    for ref, fact in all_facts:
        assert fact.agent_id in demo.AGENT_IDS
        if ref.agent is not None:
            assert fact.agent_id == ref.agent
        assert set(fact.metadata) == {"extractedFrom", "verifiedBy"}
        assert fact.metadata["verifiedBy"] in {"user", "agent", "system"}
        assert fact.timestamp is not None and fact.last_accessed is not None
        assert fact.timestamp.tzinfo is not None
        assert fact.timestamp <= fact.last_accessed < start_of_today
        assert "{" not in fact.fact  # every date token was expanded
    confidences = [f.confidence for _, f in all_facts]
    assert sum(c == 1.0 for c in confidences) > 0.75 * len(confidences)
    assert all(c == 1.0 or 0.6 <= c <= 0.95 for c in confidences)
    assert any(c < 1.0 for c in confidences)
    sources = {f.metadata["extractedFrom"].split("-")[0] for _, f in all_facts}
    assert "conversation" in sources


def test_daily_notes(demo_vault: vault.Vault) -> None:
    fortnight = [TODAY - dt.timedelta(days=n) for n in range(13, -1, -1)]
    assert demo_vault.daily_dates() == fortnight
    text = ""
    for day in fortnight:
        note = demo_vault.daily_note(day)
        assert note.preamble == f"# {day.isoformat()}"
        assert note.entries
        assert [e.time for e in note.entries] == sorted(e.time for e in note.entries)
        assert note.path.read_text(encoding="utf-8").startswith(f"# {day.isoformat()}\n\n## ")
        text += "\n".join(e.text for e in note.entries).lower() + "\n"
    for topic in TOPICS:
        assert topic in text, topic


def test_agents_have_notes_and_documents(demo_vault: vault.Vault) -> None:
    agents = {a.id: a for a in demo_vault.agents()}
    assert set(agents) == set(demo.AGENT_IDS)
    tacit_texts, context_texts = set(), set()
    for agent_id, agent in agents.items():
        assert agent.has_tacit and agent.has_context
        assert len(agent.daily_dates) >= 3, agent_id
        for day in agent.daily_dates:
            assert demo_vault.daily_note(day, agent_id).entries
        tacit = demo_vault.document("TACIT.md", agent=agent_id).text or ""
        context = demo_vault.document("CONTEXT.md", agent=agent_id).text or ""
        assert tacit.count("\n- ") >= 4, agent_id
        assert "{" not in context and len(context) > 200, agent_id
        tacit_texts.add(tacit)
        context_texts.add(context)
    assert len(tacit_texts) == len(context_texts) == len(agents)
    principles = demo_vault.document(vault.PRINCIPLES).text or ""
    assert "Never delete a fact" in principles and len(principles) > 1000


def test_summaries_are_hand_written_then_synthesized(demo_vault: vault.Vault) -> None:
    for entity in demo.ENTITIES:
        text = demo_vault.summary(entity.address).text or ""
        assert text.startswith(f"# {entity.title}\n\n{entity.blurb}\n"), entity.address
        assert "vault-app:synthesis:begin" in text and "vault-app:synthesis:end" in text
    for agent in (None, *demo.AGENT_IDS):
        index = demo_vault.paths.para_root(agent) / "index.md"
        assert "vault-app:index:begin" in index.read_text(encoding="utf-8")
    index = (demo_vault.paths.life_dir / "index.md").read_text(encoding="utf-8")
    assert "[people/marcus-bell](areas/people/marcus-bell/summary.md)" in index


def test_the_household_text_is_package_data(demo_vault: vault.Vault) -> None:
    """The household's text lives in `demo_data/` (issue 12), not in the code: every file
    there is one the generator reads, and the vault holds what the files say (AGENTS.md
    verbatim, CONTEXT.md with its `{+N}` dates filled in)."""
    root = Path(str(demo.DATA))
    shipped = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    documents = [f"agents/{a}/{n}" for a in demo.AGENT_IDS for n in ("TACIT.md", "CONTEXT.md")]
    assert shipped == sorted(
        ["entities.toml", "series.toml", "daily.toml", "AGENTS.md", *documents]
    )
    principles = (root / "AGENTS.md").read_text(encoding="utf-8")
    assert demo_vault.document(vault.PRINCIPLES).text == principles
    context = (root / "agents" / "manager" / "CONTEXT.md").read_text(encoding="utf-8")
    written = demo_vault.document("CONTEXT.md", agent="manager").text
    assert written == demo.expand_days(context, TODAY) != context


def test_same_day_same_files(tmp_path: Path) -> None:
    first = demo.create_demo(tmp_path / "a", today=TODAY)
    second = demo.create_demo(tmp_path / "b", today=TODAY)
    a, b = _tree(first.root), _tree(second.root)
    assert a.keys() == b.keys()
    assert [name for name in a if a[name] != b[name]] == []
    later = demo.create_demo(tmp_path / "c", today=TODAY + dt.timedelta(days=40))
    assert later.scan().fact_count == first.scan().fact_count
    assert _tree(later.root).keys() != a.keys()  # the daily notes moved with `today`


def test_today_defaults_to_the_clock(tmp_path: Path) -> None:
    v = demo.create_demo(tmp_path / "v", clock=decay.fixed_clock(MORNING))
    assert v.daily_dates()[-1] == TODAY
    assert v.now() == MORNING


def test_refuses_a_folder_in_use(tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(errors.AlreadyExistsError):
        demo.create_demo(tmp_path / "v", today=TODAY)
    assert (tmp_path / "v" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_cold_disk_scan_reads_ahead_and_gives_the_same_counts(
    demo_vault: vault.Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the scan's first reads are slow, a prefetch process reads ahead of it, and is
    stopped when the scan ends: the same answer either way, with or without files."""
    warm = demo_vault.scan()
    started: list[prefetch.Running] = []
    real_enter = prefetch.Running.__enter__

    def enter(self: prefetch.Running) -> prefetch.Running:
        started.append(real_enter(self))
        return started[-1]

    monkeypatch.setattr(prefetch.Running, "__enter__", enter)
    monkeypatch.setattr(scanner, "_COLD_ENTITY_S", -1.0)  # every disk looks cold
    cold = demo_vault.scan(keep_files=True)
    (running,) = started
    assert running.roots == demo_vault.paths.para_folders() and len(running.roots) > 4
    assert running.process is not None and running.process.returncode is not None
    assert [e.model_dump() for e in cold.entities] == [e.model_dump() for e in warm.entities]
    assert len(cold.files) == sum(1 for e in warm.entities if e.facts_file is not None)
    started.clear()
    monkeypatch.setattr(scanner, "_COLD_ENTITY_S", 1.0)  # and warm
    assert demo_vault.scan().entities == warm.entities
    assert started[0].process is None  # a warm disk: nothing to read ahead
    assert demo_vault.scan(read_ahead=True).entities == warm.entities
