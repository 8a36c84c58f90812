"""Settings: the vault's own `.vault/config.toml` and the user's default vault.

The vault's settings travel with it (decay thresholds, synthesis schedule, storage
limits). The user's config (platformdirs' config dir, `config.toml` with `vault = PATH`)
only names the vault to open when none is given; `VAULT_APP_VAULT` overrides it.

`VaultConfig.save` writes the settings back through the vault's safe-write path (lock,
backup, atomic replace, audit line). `tomllib` only reads, so `dumps` is a small TOML
writer of our own; saving merges the settings into the file's current table, so keys this
version does not know are kept where they were (comments are not: the known keys get the
explanations of the default file again).
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vault_app.core import decay as decay_rules
from vault_app.core import errors, layout, safe_fs

if TYPE_CHECKING:  # storage imports this module: a runtime import would be circular
    from vault_app.core import storage as storage_io

APP_NAME = "vault-app"
CONFIG_NAME = "config.toml"
_MAX_CONFIG_BYTES = 1 << 20  # a settings file; anything larger is not one

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
    # semantic and hybrid: the raw cosine a hit needs when it holds no query term (measured
    # for all-MiniLM-L6-v2 on benchmarks/eval; another model may need another floor)
    min_cosine: float = Field(default=0.32, ge=-1, le=1)


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
        # never through a symlink, nor from a FIFO or a folder (CorruptFileError)
        safe_fs.check_tree(vault_root, path, safe_fs.STATE_READ)
        raw = safe_fs.read_file(path, _MAX_CONFIG_BYTES)
        if raw is None:
            return cls()
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise errors.CorruptFileError(path, f"invalid TOML: {exc}") from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise errors.CorruptFileError(path, first["msg"], loc) from None

    def save(self, store: storage_io.Storage, *, replace: bool = False) -> str:
        """Write these settings to `.vault/config.toml`; returns the new file's sha256.

        Under the file's lock, the current file is read and these settings are merged into
        it: every key the model knows takes its value from `self` (a `None` removes the
        key), every other key stays, in its place. A file that is not valid TOML is not
        overwritten (`CorruptFileError`). With `replace`, the file's content is ignored and
        these settings become the whole file (for a config.toml that cannot be used). The
        previous version is kept in `.vault/backups` either way.
        """
        path = store.paths.state_dir / CONFIG_NAME
        with store.transaction(path) as tx:
            current = {} if replace else _table_on_disk(path, tx.data)
            merged = merge_known(current, self.model_dump(mode="json"))
            return tx.commit(dumps(merged, _NOTES, _HEADER).encode("utf-8"), "config.save")


def _table_on_disk(path: Path, data: bytes | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise errors.CorruptFileError(
            path, f"invalid TOML ({exc}); it was left as it is, fix it first"
        ) from None


def merge_known(current: Mapping[str, Any], known: Mapping[str, Any]) -> dict[str, Any]:
    """`current` with the values of `known` put in (recursively into tables; None removes)."""
    merged = copy.deepcopy(dict(current))
    for key, value in known.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = merge_known(merged[key], value)
        elif value is None:
            merged.pop(key, None)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


# -- a small TOML writer ---------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def dumps(data: Mapping[str, Any], notes: Mapping[str, str] | None = None, header: str = "") -> str:
    """`data` as TOML that `tomllib.loads` reads back equal (NaN aside, None left out).

    Tables become `[a.b]` sections and lists of tables `[[a.b]]`; other values are written
    inline. `notes` maps a dotted key path (`"search.bm25_weight"`) to a comment written
    above that key or section; `header` is a comment put at the top of the file.
    """
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    _table(lines, (), data, notes or {})
    return "\n".join(lines).strip("\n") + "\n"


def _table(
    lines: list[str], path: tuple[str, ...], table: Mapping[str, Any], notes: Mapping[str, str]
) -> None:
    sections = []
    for key, value in table.items():
        if value is None:  # TOML has no null: an unset key is left out
            continue
        if isinstance(value, Mapping) or _is_table_array(value):
            sections.append((key, value))
            continue
        _note(lines, notes, (*path, key))
        lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in sections:
        inner = (*path, key)
        name = ".".join(_key(k) for k in inner)
        if isinstance(value, Mapping):
            plain = [v for v in value.values() if not _is_section(v)]
            if plain or not value:  # a table of tables needs no header of its own
                lines.append("")
                _note(lines, notes, inner)
                lines.append(f"[{name}]")
            elif ".".join(inner) in notes:
                lines.append("")
                _note(lines, notes, inner)
            _table(lines, inner, value, notes)
        else:
            for index, item in enumerate(value):
                lines.append("")
                if index == 0:
                    _note(lines, notes, inner)
                lines.append(f"[[{name}]]")
                _table(lines, inner, item, notes)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _is_section(value: Any) -> bool:
    return isinstance(value, Mapping) or _is_table_array(value)


def _note(lines: list[str], notes: Mapping[str, str], path: tuple[str, ...]) -> None:
    text = notes.get(".".join(path))
    if text:
        lines.extend(f"# {line}".rstrip() for line in text.splitlines())


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        pairs = (f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None)
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"TOML cannot hold a {type(value).__name__}: {value!r}")


_HEADER = """\
vault-app settings for this vault, written by the app (a key it does not know is kept).
Everything under .vault/ except this file is derived state and can be deleted."""

_NOTES = {
    "decay.levels": (
        "Decay: a fact is hot up to hot_days after its last access, warm up to warm_days,\n"
        "then cold. A level applies once a fact was accessed more than min_access times;\n"
        "the design's levels are 0: 7/30, 10: 10/45, 20: 14/60."
    ),
    "synthesis": "Weekly rewrite of every summary.md from its facts (local time).",
    "storage.backups_per_file": "versions kept per file in .vault/backups",
    "storage.max_file_mb": "larger files are reported, never loaded or overwritten",
    "search.semantic": "semantic and hybrid search (needs the `semantic` extra)",
    "search.model": "a local sentence-transformers model; default all-MiniLM-L6-v2, offline",
    "search.bm25_weight": "hybrid score = w * BM25 + (1 - w) * semantic, both scaled",
    "search.min_cosine": "a hit without a query term needs this raw cosine (noise floor)",
}


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
min_cosine = 0.32           # a hit without a query term needs this raw cosine (noise floor)
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


def default_vault(cwd: Path) -> Path | None:
    """The vault to use when none is given: the one containing `cwd`, else the one named
    by `VAULT_APP_VAULT` or the user's config file; None when there is neither (the
    command line and the window then both use the demo vault, `demo.ensure_demo_vault`)."""
    return layout.find_vault(cwd) or configured_vault()


def demo_vault_path() -> Path:
    """Where the app creates its demo vault when it is started with no vault at all."""
    return Path(platformdirs.user_data_dir(APP_NAME)) / "demo-vault"
