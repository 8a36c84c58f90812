"""Settings: the vault's own `.vault/config.toml` and the user's default vault.

The vault's settings travel with it (decay thresholds, synthesis schedule, storage
limits). The user's config (platformdirs' config dir, `config.toml` with `vault = PATH`)
only names the vault to open when none is given; `VAULT_APP_VAULT` overrides it.

`VaultConfig.save` writes the settings back through the vault's safe-write path (lock,
backup, atomic replace, audit line). It edits the file in place with tomlkit: the user's
comments, blank lines, order and the keys this version does not know are kept byte for
byte; only the settings that changed are rewritten (`tomllib` remains the reader).
"""

from __future__ import annotations

import copy
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
)

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


class HeartbeatSettings(BaseModel):
    """`[heartbeat]`: how often daily notes are turned into facts, and by what.

    With no `llm_base_url` the rules extract (no model). `api_key_env` names the
    environment variable holding the endpoint's key: the key itself never sits in the
    vault.
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    interval_minutes: int = Field(default=15, ge=1, le=24 * 60)
    llm_base_url: str = ""  # an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1
    llm_model: str = ""
    api_key_env: str = ""  # e.g. "OPENAI_API_KEY"
    timeout_s: float = Field(default=60.0, gt=0, le=600)
    retries: int = Field(default=2, ge=0, le=10)


class StorageSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backups_per_file: int = Field(default=20, ge=1, le=1000)
    max_file_mb: float = Field(default=32.0, gt=0)
    lock_timeout_s: float = Field(default=30.0, gt=0)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)


class QuotaSettings(BaseModel):
    """`[quotas]`: what one agent may consume (`quotas`: every agent write is measured
    against these before it is queued or written; a refusal names the limit)."""

    model_config = ConfigDict(extra="forbid")

    write_kb: int = Field(default=64, ge=1, le=32 * 1024)  # all the texts of one write
    field_chars: int = Field(default=8000, ge=100, le=1_000_000)  # one text field
    related: int = Field(default=32, ge=0, le=10_000)  # related entities of one fact
    batch_operations: int = Field(default=100, ge=1, le=10_000)  # one memory batch
    pending_reviews: int = Field(default=50, ge=1, le=100_000)  # held for review, per agent
    pending_review_kb: int = Field(default=2048, ge=1)  # their size, per agent
    sessions: int = Field(default=16, ge=1, le=10_000)  # open MCP sessions per agent (HTTP)
    future_skew_s: int = Field(default=300, ge=0, le=86_400)  # a write's time after now


class SearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    semantic: bool = True  # load the sentence model for semantic and hybrid search
    model: str | None = None  # a local model folder or cached name; default all-MiniLM-L6-v2
    bm25_weight: float = Field(default=0.2, ge=0, le=1)  # hybrid: share of the BM25 score
    # semantic and hybrid: the raw cosine a hit needs when it holds no query term (measured
    # for all-MiniLM-L6-v2 on benchmarks/eval; another model may need another floor)
    min_cosine: float = Field(default=0.32, ge=-1, le=1)


_CHAT_ID = re.compile(r"^-?[0-9]{1,20}$")
MAX_NOTES_CHARS = 1_000_000  # a budget is for a prompt block, not a book


class AgentMemorySettings(BaseModel):
    """`[agents.memory.<id>]`: one agent's notes and user profile (`agent_memory`).

    `notes` turns the agent notes (`agents/<id>/memories/MEMORY.md`) on or off; `profile`
    what it knows of the user (`memories/USER.md` and `profile.json`). The budgets are
    in characters, counted as Hermes counts them. An agent without a table has these
    defaults (Hermes' own)."""

    model_config = ConfigDict(extra="forbid")

    notes: bool = True
    profile: bool = True
    memory_chars: int = Field(default=2200, ge=1, le=MAX_NOTES_CHARS)
    user_chars: int = Field(default=1375, ge=1, le=MAX_NOTES_CHARS)


class AgentGrant(BaseModel):
    """`[agents.grants.<id>]`: what one agent may do beyond its own workspace and global
    memory. `read` lists the agents whose workspace, daily notes and documents it reads
    (`"*"`: every agent's; a household manager, say). Writing another agent's memory is
    never granted: an agent proposes to its own, or a person moves it (`access`)."""

    model_config = ConfigDict(extra="forbid")

    read: list[str] = Field(default_factory=list)

    @field_validator("read")
    @classmethod
    def _readable(cls, value: list[str]) -> list[str]:
        for agent in value:
            if agent == "*":
                continue
            try:
                layout.validate_agent_id(agent)
            except errors.InvalidIdError as exc:
                raise ValueError(f'{exc} (or "*" for every agent)') from None
        return value


class AgentsSettings(BaseModel):
    """`[agents]`: who may write what beyond its own workspace, and where chats go.

    An agent always writes its own workspace, daily notes and documents; a global entity
    or global daily note only when it is listed in `global_writers`; another agent's
    memory only as `grants` say. `chats` maps a MicroClaw chat id (an integer, written as
    a string key) to the entity its memories go to (`areas/family`,
    `agent:household:resources/kitchen`). The rules themselves are `access.Policy`.
    """

    model_config = ConfigDict(extra="forbid")

    global_writers: list[str] = Field(default_factory=list)
    grants: dict[str, AgentGrant] = Field(default_factory=dict)
    chats: dict[str, str] = Field(default_factory=dict)
    memory: dict[str, AgentMemorySettings] = Field(default_factory=dict)

    def memory_of(self, agent: str) -> AgentMemorySettings:
        """The notes settings of `agent` (its table, else the defaults)."""
        return self.memory.get(agent) or AgentMemorySettings()

    @field_validator("global_writers")
    @classmethod
    def _agent_ids(cls, value: list[str]) -> list[str]:
        for agent in value:
            try:
                layout.validate_agent_id(agent)
            except errors.InvalidIdError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_serializer("memory")
    def _memory_as_written(
        self, value: dict[str, AgentMemorySettings]
    ) -> dict[str, dict[str, Any]]:
        # Only the settings a table states (or code set): saving the config must not
        # fill a person's `[agents.memory.<id>]` with every default.
        return {agent: chosen.model_dump(exclude_unset=True) for agent, chosen in value.items()}

    @field_validator("memory", "grants")
    @classmethod
    def _memory_agents(cls, value: dict[str, Any]) -> dict[str, Any]:
        for agent in value:
            try:
                layout.validate_agent_id(agent)
            except errors.InvalidIdError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("chats")
    @classmethod
    def _chat_map(cls, value: dict[str, str]) -> dict[str, str]:
        for chat, address in value.items():
            if not _CHAT_ID.match(chat):
                raise ValueError(f'chat id {chat!r} is not an integer (e.g. "-1001234")')
            try:
                layout.EntityRef.parse(address)
            except errors.InvalidIdError as exc:
                raise ValueError(f"chat {chat}: {exc}") from None
        return value


class VaultConfig(BaseModel):
    """`.vault/config.toml`; every key is optional and unknown keys are an error."""

    model_config = ConfigDict(extra="forbid")

    decay: decay_rules.DecayPolicy = Field(default_factory=decay_rules.DecayPolicy)
    synthesis: SynthesisSettings = Field(default_factory=SynthesisSettings)
    heartbeat: HeartbeatSettings = Field(default_factory=HeartbeatSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    agents: AgentsSettings = Field(default_factory=AgentsSettings)
    quotas: QuotaSettings = Field(default_factory=QuotaSettings)

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

        Under the file's lock, the current file is read and edited in place (tomlkit):
        every key the model knows takes its value from `self` (a `None` removes the key),
        a value that did not change is not touched, and everything else — comments, blank
        lines, the order of keys and tables, keys and tables this version does not know —
        is kept byte for byte. A file that is not valid TOML is not overwritten
        (`CorruptFileError`). With `replace`, the file's content is ignored and these
        settings are written into the default file (for a config.toml that cannot be
        used). The previous version is kept in `.vault/backups` either way; the write is
        the storage's (lock, no symlink followed, atomic replace, audit line).
        """
        import tomlkit  # ~35 ms: imported when settings are saved, not when a vault opens

        path = store.paths.state_dir / CONFIG_NAME
        known = self.model_dump(mode="json")
        with store.transaction(path) as tx:
            text = DEFAULT_CONFIG_TOML if replace or not tx.data else _text_on_disk(path, tx.data)
            document = tomlkit.parse(text)
            for name, default in _OPTIONAL_TABLES.items():
                if name not in document and getattr(self, name) == default:
                    del known[name]  # a file without it does not grow a table of defaults
            _edit(document, known, ())
            out = document.as_string()
            if tomllib.loads(out) != merge_known(tomllib.loads(text), known):
                raise errors.CorruptFileError(  # a layout tomlkit cannot edit faithfully
                    path,
                    "cannot be edited in place without changing other settings; "
                    "it was left as it is",
                )
            return tx.commit(out.encode("utf-8"), "config.save")


def _text_on_disk(path: Path, data: bytes) -> str:
    """The file's text, checked by the standard library's TOML reader (and tomlkit's)."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        text = data.decode("utf-8-sig")
        tomllib.loads(text)
        tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, TOMLKitError, UnicodeDecodeError) as exc:
        raise errors.CorruptFileError(
            path, f"invalid TOML ({exc}); it was left as it is, fix it first"
        ) from None
    return text


# Tables whose keys are data, not settings (`[agents.chats]`): a key the model no longer
# holds is removed from the file, where elsewhere unknown keys are kept.
_FREE_TABLES = frozenset({("agents", "chats"), ("agents", "memory"), ("agents", "grants")})


def merge_known(
    current: Mapping[str, Any], known: Mapping[str, Any], path: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`current` with the values of `known` put in (recursively into tables; None removes)."""
    merged = copy.deepcopy(dict(current))
    for key, value in known.items():
        if (*path, key) in _FREE_TABLES:
            if value or key in merged:  # an empty one the file lacks is not added
                merged[key] = copy.deepcopy(value)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = merge_known(merged[key], value, (*path, key))
        elif value is None:
            merged.pop(key, None)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _edit(table: Any, known: Mapping[str, Any], path: tuple[str, ...]) -> None:
    """Put the values of `known` into the tomlkit `table`, touching only what changed."""
    import tomlkit

    for key, value in known.items():
        where = (*path, key)
        present = key in table
        current = table[key] if present else None
        if value is None:
            if present:
                del table[key]
        elif isinstance(value, Mapping) and isinstance(current, Mapping):
            _edit(current, value, where)
            if where in _FREE_TABLES:
                for gone in [k for k in current if k not in value]:
                    del table[key][gone]
        elif _is_table_list(value) and isinstance(current, list) and _is_table_list(current):
            for index, item in enumerate(value[: len(current)]):
                _edit(current[index], item, (*where, str(index)))
            for item in value[len(current) :]:
                current.append(item)
            while len(current) > len(value):
                del current[len(value)]
        elif present and _same(_plain(current), value):
            continue
        elif present:
            table[key] = value  # tomlkit keeps the key's place and its trailing comment
        elif where in _FREE_TABLES and not value:
            continue  # an empty table of data the file lacks: nothing to say
        elif isinstance(value, Mapping):  # a table the file lacks: appended, with notes
            section = tomlkit.table()
            _edit(section, value, where)
            table[key] = section
        else:
            item = tomlkit.item(value)
            note = _NOTES.get(".".join(where))
            if note and not isinstance(value, list):
                item.comment(note)
                item.trivia.comment_ws = "  "
            table[key] = item


def _is_table_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _same(a: Any, b: Any) -> bool:
    """Equal as settings: 32 and 32.0 are the same size, True and 1 are not the same."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    numbers = isinstance(a, int | float) and isinstance(b, int | float)
    return (numbers or type(a) is type(b)) and a == b


_NOTES = {  # trailing comments for a setting added to a file that lacked it
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

[synthesis]                 # the weekly rewrite of every summary.md (missed runs catch up)
weekday = "sunday"
time = "00:00"

[heartbeat]                 # daily-note entries turned into facts, every interval
enabled = true
interval_minutes = 15
llm_base_url = ""           # empty: the rules extract; else an OpenAI-compatible endpoint
llm_model = ""
api_key_env = ""            # the environment variable holding the endpoint's key, if any
timeout_s = 60.0            # one request to the endpoint
retries = 2                 # a failed request is tried again this often, then left for next run

[quotas]                    # what one agent may consume (a refusal names the limit)
write_kb = 64               # all the texts of one write
field_chars = 8000          # one text: a fact, a source, a reason, a document...
related = 32                # related entities of one fact
batch_operations = 100      # operations of one memory batch
pending_reviews = 50        # writes held for review, per agent
pending_review_kb = 2048    # their size, per agent
sessions = 16               # open MCP sessions per agent (vault-app serve)
future_skew_s = 300         # how far after now a write's time may be

[storage]
backups_per_file = 20       # versions kept per file in .vault/backups
max_file_mb = 32            # larger files are reported, never loaded or overwritten
lock_timeout_s = 30

[search]
semantic = true             # semantic and hybrid search (needs the `semantic` extra)
# model = "/path/to/a/sentence-transformers/model"   # default: all-MiniLM-L6-v2, offline
bm25_weight = 0.2           # hybrid score = w * BM25 + (1 - w) * semantic, both scaled
min_cosine = 0.32           # a hit without a query term needs this raw cosine (noise floor)

[agents]
global_writers = []         # agents that may write global entities and global daily notes
# [agents.grants.household] # what agent "household" may read beyond global and its own
# read = ["*"]              # every agent's workspace, daily notes and documents
# [agents.chats]            # MicroClaw chat id -> the entity its memories go to
# "-1001234" = "areas/family"
# [agents.memory.household] # agent notes and user profile of agent "household"
# notes = true              # agents/household/memories/MEMORY.md
# profile = true            # memories/USER.md and profile.json
# memory_chars = 2200       # budgets in characters (Hermes' count)
# user_chars = 1375
"""


_OPTIONAL_TABLES = {
    "agents": AgentsSettings(),
    "heartbeat": HeartbeatSettings(),
    "quotas": QuotaSettings(),
}


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
