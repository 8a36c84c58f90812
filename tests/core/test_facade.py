"""`Vault` is a facade over modules that do not know it (issue 12): the scanner, fact
edits, entity folders, documents and synthesis receive the layout, storage, policy and
clock, never the Vault; and the renamed sentinels and records keep their old spellings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from vault_app.core import documents, errors, models, scanner, vault

CORE = Path(vault.__file__).parent


@pytest.mark.parametrize("name", ["scanner", "facts", "entities", "documents", "synthesis"])
def test_the_facade_s_parts_do_not_import_the_facade(name: str) -> None:
    tree = ast.parse((CORE / f"{name}.py").read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "vault_app.core"
        for alias in node.names
    }
    imported |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert "vault" not in imported and "vault_app.core.vault" not in imported


def test_check_skip_and_its_old_spelling(tmp_path: Path) -> None:
    assert vault.Check.ANY is vault.Check.SKIP is documents.Check.SKIP
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("projects/house")
    v.write_summary("projects/house", "# House\n\nOld spelling.\n", expected=vault.Check.ANY)
    v.write_summary("projects/house", "# House\n\nNew spelling.\n", expected=vault.Check.SKIP)
    assert v.summary("projects/house").text == "# House\n\nNew spelling.\n"


def test_every_scope_has_its_own_sentinel_and_the_old_one_still_works(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("ops")
    v.create_entity("projects/house")
    v.create_entity("agent:ops:projects/run")
    every = v.entity_refs()
    assert [str(r) for r in every] == ["projects/house", "agent:ops:projects/run"]
    assert v.entity_refs(vault.Scope.ALL) == every
    assert v.entity_refs(vault.Check.ANY) == every  # the old spelling, for scripts
    assert [str(r) for r in v.entity_refs(None)] == ["projects/house"]
    assert [str(r) for r in v.entity_refs("ops")] == ["agent:ops:projects/run"]


def test_the_entity_record_is_entity_facts_and_keeps_its_old_name(tmp_path: Path) -> None:
    assert vault.EntityView is vault.EntityFacts is models.EntityFacts is models.EntityView
    for name in ("Document", "VaultScan", "DecayRow", "SynthesisResult"):
        assert getattr(vault, name) is getattr(models, name)
    v = vault.Vault.create(tmp_path / "v")
    v.add_fact("projects/house", "Roof fixed.", "milestone", create=True)
    assert isinstance(v.entity("projects/house"), models.EntityFacts)


def test_a_scanner_needs_no_vault(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v")
    v.add_fact("projects/house", "Roof fixed.", "milestone", create=True)
    alone = scanner.Scanner(v.paths, v.storage, v.config.decay, v.now)
    scan = alone.scan()
    assert [(e.address, e.total) for e in scan.entities] == [("projects/house", 1)]
    assert alone.list_entities().entities[0].address == "projects/house"


def test_a_bad_fact_with_create_makes_no_entity(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v")
    with pytest.raises(errors.InvalidFactError):
        v.add_fact("projects/new", "   ", "status", create=True)
    assert v.entity_refs() == []
    related = (r for r in ["areas/people/jane"])  # an iterator: read once, kept whole
    fact = v.add_fact("projects/new", "Jane helps.", "status", related=related, create=True)
    assert fact.related_entities == ["areas/people/jane"]
