"""Settings: the vault's own `.vault/config.toml` and the user's default vault.

The vault's settings travel with it (decay thresholds, synthesis schedule, storage
limits). The user's config (platformdirs' config dir, `config.toml` with `vault = PATH`)
only names the vault to open when none is given; `VAULT_APP_VAULT` overrides it.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vault_app.core import decay as decay_rules
from vault_app.core import errors

APP_NAME = "vault-app"
CONFIG_NAME = "config.toml"

Weekday = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


class SynthesisSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weekday: Weekday = "sunday"
    time: str = Field(default="00:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")


class StorageSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backups_per_file: int = Field(default=20, ge=1, le=1000)
    max_file_mb: float = Field(default=32.0, gt=0)
    lock_timeout_s: float = Field(default=30.0, gt=0)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)


class SearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    semantic: bool = True  # load the sentence model for semantic and hybrid search
    model: str | None = None  # a local model folder or cached name; default all-MiniLM-L6-v2
    bm25_weight: float = Field(default=0.2, ge=0, le=1)  # hybrid: share of the BM25 score


class VaultConfig(BaseModel):
    """`.vault/config.toml`; every key is optional and unknown keys are an error."""

    model_config = ConfigDict(extra="forbid")

    decay: decay_rules.DecayPolicy = Field(default_factory=decay_rules.DecayPolicy)
    synthesis: SynthesisSettings = Field(default_factory=SynthesisSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)

    @classmethod
    def load(cls, vault_root: Path) -> VaultConfig:
        path = vault_root / ".vault" / CONFIG_NAME
        if not path.is_file():
            return cls()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise errors.CorruptFileError(path, f"invalid TOML: {exc}") from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise errors.CorruptFileError(path, first["msg"], loc) from None


DEFAULT_CONFIG_TOML = """\
# vault-app settings for this vault. Everything under .vault/ except this file is
# derived state (cache, backups, locks) and can be deleted.

[[decay.levels]]            # the design's thresholds: hot <= 7 days, warm <= 30
min_access = 0
hot_days = 7
warm_days = 30

[[decay.levels]]            # more than 10 accesses resist decay
min_access = 10
hot_days = 10
warm_days = 45

[[decay.levels]]            # more than 20 accesses resist it more
min_access = 20
hot_days = 14
warm_days = 60

[synthesis]
weekday = "sunday"
time = "00:00"

[storage]
backups_per_file = 20       # versions kept per file in .vault/backups
max_file_mb = 32            # larger files are reported, never loaded or overwritten
lock_timeout_s = 30

[search]
semantic = true             # semantic and hybrid search (needs the `semantic` extra)
# model = "/path/to/a/sentence-transformers/model"   # default: all-MiniLM-L6-v2, offline
bm25_weight = 0.2           # hybrid score = w * BM25 + (1 - w) * semantic, both scaled
"""


def user_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / CONFIG_NAME


def configured_vault() -> Path | None:
    """The vault named by `VAULT_APP_VAULT` or the user's config file, if any."""
    env = os.environ.get("VAULT_APP_VAULT")
    if env:
        return Path(env).expanduser()
    path = user_config_path()
    if not path.is_file():
        return None
    try:
        value = tomllib.loads(path.read_text(encoding="utf-8")).get("vault")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return None
    return Path(value).expanduser() if isinstance(value, str) and value else None


def demo_vault_path() -> Path:
    """Where the app creates its demo vault when it is started with no vault at all."""
    return Path(platformdirs.user_data_dir(APP_NAME)) / "demo-vault"
