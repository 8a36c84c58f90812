"""Every error a user of the library can meet is a `VaultError` (issue 12, "Defects found
while trying it": `_edit_facts` raised RuntimeError, outside the tree, so a caller that
catches VaultError got a traceback).

Variants thought of, and where they stand:

- `facts.Facts.edit` (once `Vault._edit_facts`) refusing a write that would drop facts:
  `errors.DataLossError` (a VaultError), the file and the audit log untouched
  (`test_a_write_that_would_lose_facts_is_a_vault_error`). No public call or CLI command
  removes an entry, so the refusal is reached only through that inner method: no CLI
  test (the CLI maps every VaultError to one line, tests/cli/test_hardening_cli_errors.py).
- `semantic.SemanticUnavailable` (a model folder that does not exist, a package that is
  missing) and `semantic.ExportError` (the ONNX export failed): VaultErrors now, still
  RuntimeErrors for callers that caught those
  (`test_a_missing_model_is_a_vault_error`, `test_semantic_errors_keep_their_old_base`).
- Kept as RuntimeError on purpose, programming errors that no input reaches (as
  `threading.Thread.start` twice): `Transaction.commit` twice, `VaultWatcher.start`
  twice, and `demo.create_demo_vault` finding problems in the vault it just wrote (a bug
  of the generator; the CLI reports it as "unexpected ..., a bug: please report it").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_app.core import errors, formats, layout
from vault_app.core import vault as vault_module
from vault_app.search import semantic


def _audit_lines(v: vault_module.Vault) -> list[dict[str, object]]:
    path = v.paths.state_dir / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def test_a_write_that_would_lose_facts_is_a_vault_error(vault: vault_module.Vault) -> None:
    vault.create_entity("projects/alpha")
    vault.add_fact("projects/alpha", "first", "status")
    vault.add_fact("projects/alpha", "second", "status")
    ref = layout.EntityRef.parse("projects/alpha")
    path = vault.paths.facts_file(vault.paths.entity_dir(ref))
    assert path is not None
    before = path.read_bytes()
    audit_before = _audit_lines(vault)

    def drop_one(ff: formats.FactFile) -> None:
        ff.raw.pop()

    with pytest.raises(errors.VaultError) as caught:
        vault._facts().edit(ref, "fact.test", drop_one)
    assert isinstance(caught.value, errors.DataLossError)
    assert caught.value.path == path
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message and "lose facts" in message and "2 before, 1 after" in message
    assert path.read_bytes() == before
    assert _audit_lines(vault) == audit_before
    assert [f.fact for f in vault.entity("projects/alpha").facts] == ["first", "second"]


def test_a_missing_model_is_a_vault_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(errors.VaultError, match="does not exist"):
        semantic.resolve_model(missing)
    with pytest.raises(errors.VaultError, match="does not exist"):
        semantic.load_encoder(str(missing))


def test_semantic_errors_keep_their_old_base() -> None:
    for kind in (semantic.SemanticUnavailable, semantic.ExportError):
        assert issubclass(kind, errors.VaultError)
        assert issubclass(kind, RuntimeError)
