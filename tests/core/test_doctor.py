"""`doctor`: every problem found with its place; `--repair` restores and never discards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_app.core import doctor, errors, synthesis, vault


@pytest.fixture
def v(tmp_path: Path) -> vault.Vault:
    target = vault.Vault.create(tmp_path / "v")
    target.create_entity("areas/people/jane")
    target.create_entity("projects/bathroom")
    target.add_fact(
        "areas/people/jane", "Jane is the plumber", "relationship", related=["projects/bathroom"]
    )
    target.add_fact("projects/bathroom", "Tiles are ordered", "status")
    return target


def items(v: vault.Vault, entity: str) -> Path:
    return v.paths.life_dir / entity / "items.json"


def test_a_healthy_vault_is_ok(v: vault.Vault) -> None:
    report = doctor.run(v)
    assert report.ok, report.problems
    assert report.problems == []
    assert report.facts_checked == 2 and report.files_checked >= 4
    assert report.seconds > 0


def test_each_problem_is_located(v: vault.Vault) -> None:
    jane = items(v, "areas/people/jane")
    facts = json.loads(jane.read_text())
    dup = dict(facts[0])
    facts.append(dup)  # duplicate id
    facts.append({"id": "fact-x", "fact": "Bad count", "category": "status", "accessCount": "x"})
    facts.append(
        {
            "id": "fact-y",
            "fact": "Gone",
            "category": "status",
            "supersededBy": "fact-nope",
            "status": "superseded",
            "relatedEntities": ["areas/nobody"],
        }
    )
    jane.write_text(json.dumps(facts, indent=2))
    (v.paths.life_dir / "projects/bathroom/.items.json.123.abcd.vault-tmp").write_text("[")
    (v.paths.global_dir / "daily" / "2026-02-30.md").write_text("# nope\n")
    (v.paths.life_dir / "projects/bathroom/summary.md").write_bytes(b"# Bath\n\xff\xfe\n")

    report = doctor.run(v)
    found = {(p.path, p.location, p.severity): p.message for p in report.problems}
    rel = "global/life/areas/people/jane/items.json"
    assert any("duplicate fact id" in m for (p, loc, _), m in found.items() if loc == "[1].id")
    assert found[(rel, "[2].accessCount", "error")].startswith("Input should be a valid integer")
    assert "fact-nope" in found[(rel, "[3].supersededBy", "error")]
    assert "areas/nobody" in found[(rel, "[3].relatedEntities[0]", "warning")]
    assert found[("global/life/projects/bathroom/summary.md", "byte 7", "error")].startswith(
        "invalid UTF-8"
    )
    assert any("leftover temp file" in m for m in found.values())
    assert any("not a real YYYY-MM-DD" in m for m in found.values())
    assert not report.ok


def test_repair_restores_the_newest_good_backup_and_keeps_the_corrupt_file(
    v: vault.Vault,
) -> None:
    jane = items(v, "areas/people/jane")
    v.add_fact("areas/people/jane", "Jane lives nearby", "context")
    v.add_fact("areas/people/jane", "Jane has a van", "context")  # the ring keeps each version
    good = jane.read_bytes()
    jane.write_bytes(good[:40])  # another writer truncated it
    with pytest.raises(errors.CorruptFileError):
        v.add_fact("areas/people/jane", "refused", "context")
    assert jane.read_bytes() == good[:40]

    report = doctor.run(v, repair=True)
    assert report.ok, report.problems
    problem = next(p for p in report.problems if p.path.endswith("jane/items.json"))
    assert problem.location and "line" in problem.location
    assert problem.repaired and "restored" in problem.repaired
    restored = json.loads(jane.read_text())
    assert [f["fact"] for f in restored] == [
        "Jane is the plumber",
        "Jane lives nearby",
        "Jane has a van",
    ]  # as it last was
    kept = list((v.paths.state_dir / "quarantine").rglob("items.json"))
    assert [k.read_bytes() for k in kept] == [good[:40]]
    assert doctor.run(v).ok


def test_repair_without_a_backup_leaves_the_file(v: vault.Vault) -> None:
    lonely = v.paths.life_dir / "resources/manuals"
    lonely.mkdir(parents=True)
    (lonely / "items.json").write_text('[{"id": ')
    report = doctor.run(v, repair=True)
    problem = next(p for p in report.problems if "manuals" in p.path)
    assert "no valid backup" in problem.message and problem.repaired is None
    assert (lonely / "items.json").read_text() == '[{"id": '
    assert not report.ok


def test_repair_quarantines_leftover_temp_files(v: vault.Vault) -> None:
    temp = v.paths.life_dir / "projects/bathroom/.items.json.1.ab.vault-tmp"
    temp.write_text("[]")
    report = doctor.run(v, repair=True)
    assert not temp.exists()
    moved = list((v.paths.state_dir / "quarantine").rglob("*.vault-tmp"))
    assert len(moved) == 1 and moved[0].read_text() == "[]"
    assert report.ok


def test_too_large_files_are_reported_not_repaired(v: vault.Vault, tmp_path: Path) -> None:
    (v.paths.state_dir / "config.toml").write_text("[storage]\nmax_file_mb = 0.0001\n")
    small = vault.Vault(v.root)
    report = doctor.run(small, repair=True)
    assert any(
        "over the 0.0001 MB limit" in p.message and p.repaired is None for p in report.problems
    )


def test_invalid_config_is_reported(v: vault.Vault) -> None:
    (v.paths.state_dir / "config.toml").write_text("[storage]\nbackups_per_file = 0\n")
    reopened = vault.Vault(v.root)  # opens on the defaults rather than locking the user out
    assert reopened.config.storage.backups_per_file == 20
    assert any(p.path == ".vault/config.toml" for p in reopened.scan().problems)
    report = doctor.run(reopened)
    assert any(
        p.path == ".vault/config.toml" and p.location == "storage.backups_per_file"
        for p in report.problems
    )


def test_an_unreadable_summary_does_not_hide_the_facts(v: vault.Vault) -> None:
    (v.paths.life_dir / "areas/people/jane/summary.md").write_bytes(b"# Jane\n\xff\n")
    view = v.entity("areas/people/jane")
    assert [f.fact for f in view.facts] == ["Jane is the plumber"]
    assert view.summary.text is None
    assert view.summary.error is not None and view.summary.error.location == "byte 7"


def test_an_agent_s_memory_files_are_checked(v: vault.Vault) -> None:
    from vault_app.core import agent_memory

    v.create_agent("household")
    agent_memory.change_notes(v, "household", "memory", "add", content="clean entry")
    agent_memory.write_tier(v, "household", 1, "long term")
    agent_memory.set_profile(v, "household", "name", "Zoé")
    assert doctor.run(v).problems == []
    folder = v.root / "agents/household"
    (folder / "memories/USER.md").write_text("a\n\n§\n\nb" + "x" * 1400)
    (folder / "MEMORY.md").write_text("## Tier 1 — Long term\nA\n## Tier 1 — Long term\nB\n")
    (folder / "profile.json").write_text('{"name": ["Zoé"]}')
    found = {(p.path, p.severity, p.message.split(":")[0]) for p in doctor.run(v).problems}
    assert found == {
        ("agents/household/memories/USER.md", "warning", "over its budget (1,405/1,375 chars)"),
        (
            "agents/household/memories/USER.md",
            "warning",
            "not written as the § notes are written (blank lines or spaces around a separator)",
        ),
        ("agents/household/MEMORY.md", "warning", "tier 1 appears more than once"),
        (
            "agents/household/profile.json",
            "error",
            "a profile's values are strings, not an array (nested or typed values are not kept "
            "by profile set/delete)",
        ),
    }


def test_repair_restores_a_summary_that_is_not_utf8(v: vault.Vault) -> None:
    doc = v.summary("areas/people/jane")
    v.write_summary("areas/people/jane", "# Jane\n\nThe plumber.\n", expected=doc.digest)
    summary = v.paths.life_dir / "areas/people/jane/summary.md"
    summary.write_bytes(b"# Jane\n\xff\xfe broken by another program\n")
    report = doctor.run(v, repair=True)
    problem = next(p for p in report.problems if p.path.endswith("jane/summary.md"))
    assert problem.message.startswith("invalid UTF-8") and problem.repaired
    assert summary.read_text("utf-8") == "# Jane\n\nThe plumber.\n"
    kept = list((v.paths.state_dir / "quarantine").rglob("summary.md"))
    assert [k.read_bytes() for k in kept] == [b"# Jane\n\xff\xfe broken by another program\n"]
    assert report.ok and doctor.run(v).ok


def test_a_summary_without_its_marker_is_reported_not_replaced(v: vault.Vault) -> None:
    summary = v.paths.life_dir / "areas/people/jane/summary.md"
    broken = f"# Jane\n\n{synthesis.BEGIN}\nThe plumber.\n\nMy own note.\n"  # END lost
    summary.write_text(broken, "utf-8")
    report = doctor.run(v, repair=True)
    assert any(p.path.endswith("jane/summary.md") and not p.repaired for p in report.problems)
    assert summary.read_text("utf-8") == broken  # the person's words: never replaced
