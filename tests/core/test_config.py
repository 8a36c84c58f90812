"""Saving a vault's config.toml: safe write, round trip, unknown keys kept (comments and
bytes kept: tests/core/test_config_in_place.py)."""

from __future__ import annotations

import tomllib
from typing import Any

import orjson
import pytest

from vault_app.core import config, decay, errors
from vault_app.core import vault as vault_module


def config_path(v: vault_module.Vault) -> Any:
    return v.paths.state_dir / config.CONFIG_NAME


def changed_settings() -> config.VaultConfig:
    return config.VaultConfig(
        decay=decay.DecayPolicy(
            levels=[
                decay.DecayLevel(min_access=0, hot_days=3, warm_days=21),
                decay.DecayLevel(min_access=5, hot_days=9, warm_days=50),
            ]
        ),
        synthesis=config.SynthesisSettings(weekday="wednesday", time="18:30"),
        storage=config.StorageSettings(backups_per_file=7, max_file_mb=12.5),
        search=config.SearchSettings(semantic=False, model="/models/mini", bm25_weight=0.35),
    )


def test_save_round_trips_through_load(vault: vault_module.Vault) -> None:
    wanted = changed_settings()
    digest = wanted.save(vault.storage)
    assert config.VaultConfig.load(vault.root) == wanted
    assert vault_module.Vault(vault.root).config == wanted
    assert digest == vault.storage.read_text(config_path(vault))[1]  # type: ignore[index]


def test_save_goes_through_the_safe_write_path(vault: vault_module.Vault) -> None:
    before = config_path(vault).read_bytes()
    changed_settings().save(vault.storage)
    backups = vault.storage.backups(config_path(vault))
    assert [b.read_bytes() for b in backups] == [config_path(vault).read_bytes(), before]
    lines = (vault.paths.state_dir / "audit.jsonl").read_bytes().splitlines()
    audit = [orjson.loads(line) for line in lines]
    assert audit[-1]["action"] == "config.save"
    assert audit[-1]["target"] == ".vault/config.toml"
    assert not list(config_path(vault).parent.glob("*.vault-tmp"))


def test_saving_unchanged_settings_writes_a_file_that_loads_the_same(
    vault: vault_module.Vault,
) -> None:
    config.VaultConfig().save(vault.storage)
    text = config_path(vault).read_text(encoding="utf-8")
    assert "[[decay.levels]]" in text and "# hybrid score" in text  # explanations kept
    assert config.VaultConfig.load(vault.root) == config.VaultConfig()


def test_unknown_keys_and_tables_are_kept_in_place(vault: vault_module.Vault) -> None:
    config_path(vault).write_text(
        '[ui]\nzoom = 1.25\nrecent = ["a", "b"]\n\n'
        '[search]\nsemantic = true\nfuture_mode = "rerank"\n\n'
        "[[plugins]]\nname = 'x'\n[plugins.options]\ndepth = 2\n",
        encoding="utf-8",
    )
    changed_settings().save(vault.storage)
    data = tomllib.loads(config_path(vault).read_text(encoding="utf-8"))
    assert data["ui"] == {"zoom": 1.25, "recent": ["a", "b"]}
    assert data["plugins"] == [{"name": "x", "options": {"depth": 2}}]
    assert data["search"] == {
        "semantic": False,
        "future_mode": "rerank",
        "model": "/models/mini",
        "bm25_weight": 0.35,
        "min_cosine": 0.32,
    }
    assert list(data)[:2] == ["ui", "search"]  # the file's own order first
    assert data["synthesis"] == {"weekday": "wednesday", "time": "18:30"}


def test_an_unset_model_removes_the_key(vault: vault_module.Vault) -> None:
    changed_settings().save(vault.storage)
    cleared = changed_settings()
    cleared.search.model = None
    cleared.save(vault.storage)
    data = tomllib.loads(config_path(vault).read_text(encoding="utf-8"))
    assert "model" not in data["search"]
    assert config.VaultConfig.load(vault.root) == cleared


def test_a_file_that_is_not_toml_is_left_alone_unless_replaced(
    vault: vault_module.Vault,
) -> None:
    broken = b"[search\nsemantic = maybe\n"
    config_path(vault).write_bytes(broken)
    with pytest.raises(errors.CorruptFileError, match="invalid TOML"):
        changed_settings().save(vault.storage)
    assert config_path(vault).read_bytes() == broken
    changed_settings().save(vault.storage, replace=True)
    assert config.VaultConfig.load(vault.root) == changed_settings()
    assert vault.storage.backups(config_path(vault))[1].read_bytes() == broken


def test_replace_drops_keys_this_version_refuses(vault: vault_module.Vault) -> None:
    config_path(vault).write_text("[search]\nfuture_mode = 1\n", encoding="utf-8")
    assert vault_module.Vault(vault.root).config_error is not None
    changed_settings().save(vault.storage, replace=True)
    reopened = vault_module.Vault(vault.root)
    assert reopened.config_error is None and reopened.config == changed_settings()


def test_save_creates_a_missing_file(vault: vault_module.Vault) -> None:
    config_path(vault).unlink()
    changed_settings().save(vault.storage)
    assert config.VaultConfig.load(vault.root) == changed_settings()


def test_adopt_config_makes_an_open_vault_use_new_settings(
    vault: vault_module.Vault,
) -> None:
    """`Vault.adopt_config`: decay, storage limits and search settings switch at once, a
    config error read at open is forgotten, and nothing is written."""
    config_path(vault).write_text("[decay\n", encoding="utf-8")  # broken
    broken = vault_module.Vault(vault.root)
    assert broken.config_error is not None
    before = config_path(vault).read_bytes()
    new = changed_settings()
    broken.adopt_config(new)
    assert broken.config is new
    assert broken.storage.settings is new.storage
    assert broken.storage.settings.max_file_bytes == int(12.5 * 1024 * 1024)
    assert broken.config_error is None
    assert not [p for p in broken.scan().problems if config.CONFIG_NAME in p.path]
    assert config_path(vault).read_bytes() == before
