"""Test helpers for the access policy's settings (`[agents]` of .vault/config.toml)."""

from __future__ import annotations

from pathlib import Path

from vault_app.core import vault as vault_module


def let_write_global(root: Path, *agents: str) -> None:
    """Name `agents` in `[agents] global_writers` of the vault at `root` (saved): tests
    whose agents write global memory, which the access policy allows only then."""
    from vault_app.core import config

    person = vault_module.Vault(root, actor="gui")
    settings = config.VaultConfig.load(root)
    settings.agents.global_writers = sorted({*settings.agents.global_writers, *agents})
    settings.save(person.storage)
