"""vault-app: see, search and curate the PARA memory vaults of AI agents.

The library's public surface, everything a user of it needs by name:

* `Vault` (every read and write of a vault) and `AsyncVault` (its reads for asyncio);
* `open_engine(vault)`, the search engine (BM25, semantic where available), `Filters`
  for its searches, and `ContextBuilder(engine)`, which builds an agent's context from it;
* `VaultWatcher(root, on_batch)`, live change batches without Qt;
* `bulk_load()`, the opt-in for one block of bulk loads (see below);
* the errors: `VaultError` and its subclasses, each naming the file and the reason.

    import vault_app
    v = vault_app.Vault("~/vault")
    engine, _ = vault_app.open_engine(v, semantic=False)

Names are imported on first use (a module `__getattr__`), so `import vault_app` — and
`vault-app --version` — stays as fast as it was: nothing heavy (pydantic, numpy, the
search index) loads until a name is asked for.

A library call leaves the process as it found it. An owner of the process that wants
the app's load speed opts in: `vault_app.core.process_tuning.tune_process()` once at startup,
or `with vault_app.bulk_load(): ...` around a block of loads.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs `import vault_app` 3 ms

__version__ = "0.1.0"

# name -> the module that defines it
_HOMES = {
    "Vault": "vault_app.core.vault",
    "AsyncVault": "vault_app.core.aio",
    "open_engine": "vault_app.search.engine",
    "Filters": "vault_app.search.columns",
    "ContextBuilder": "vault_app.search.context",
    "VaultWatcher": "vault_app.watch.watcher",
    "bulk_load": "vault_app.core.process_tuning",
    "VaultError": "vault_app.core.errors",
    "InvalidArgumentError": "vault_app.core.errors",
    "InvalidIdError": "vault_app.core.errors",
    "NotFoundError": "vault_app.core.errors",
    "AlreadyExistsError": "vault_app.core.errors",
    "CorruptFileError": "vault_app.core.errors",
    "SymlinkError": "vault_app.core.errors",
    "NotRegularFileError": "vault_app.core.errors",
    "ConflictError": "vault_app.core.errors",
    "LockTimeoutError": "vault_app.core.errors",
    "InvalidFactError": "vault_app.core.errors",
    "DataLossError": "vault_app.core.errors",
    "AccessDeniedError": "vault_app.core.errors",
    "QuotaExceededError": "vault_app.core.errors",
}

__all__ = [  # noqa: RUF022 (grouped as above, not sorted)
    "Vault",
    "AsyncVault",
    "open_engine",
    "Filters",
    "ContextBuilder",
    "VaultWatcher",
    "bulk_load",
    "VaultError",
    "InvalidArgumentError",
    "InvalidIdError",
    "NotFoundError",
    "AlreadyExistsError",
    "CorruptFileError",
    "SymlinkError",
    "NotRegularFileError",
    "ConflictError",
    "LockTimeoutError",
    "InvalidFactError",
    "DataLossError",
    "AccessDeniedError",
    "QuotaExceededError",
]

if TYPE_CHECKING:  # for type checkers and editors; at run time, `__getattr__` below
    from typing import Any

    from vault_app.core.aio import AsyncVault
    from vault_app.core.errors import (
        AccessDeniedError,
        AlreadyExistsError,
        ConflictError,
        CorruptFileError,
        DataLossError,
        InvalidArgumentError,
        InvalidFactError,
        InvalidIdError,
        LockTimeoutError,
        NotFoundError,
        NotRegularFileError,
        QuotaExceededError,
        SymlinkError,
        VaultError,
    )
    from vault_app.core.process_tuning import bulk_load
    from vault_app.core.vault import Vault
    from vault_app.search.columns import Filters
    from vault_app.search.context import ContextBuilder
    from vault_app.search.engine import open_engine
    from vault_app.watch.watcher import VaultWatcher


def __getattr__(name: str) -> Any:
    """Import a public name on first use (and keep it: the next lookup is direct)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
