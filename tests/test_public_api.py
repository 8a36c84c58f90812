"""`vault_app`'s public surface (issue 12): `__all__` names what a library user needs,
each resolves, and `import vault_app` alone stays light (nothing imported until a name
is asked for)."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import vault_app
from vault_app.core import aio, errors, process_tuning, vault
from vault_app.search import context, engine
from vault_app.watch import watcher

EXPECTED = {
    "Vault": vault.Vault,
    "AsyncVault": aio.AsyncVault,
    "open_engine": engine.open_engine,
    "Filters": engine.Filters,  # defined in search.columns, the same class
    "bulk_load": process_tuning.bulk_load,
    "ContextBuilder": context.ContextBuilder,
    "VaultWatcher": watcher.VaultWatcher,
}


def test_every_public_name_resolves_to_its_home() -> None:
    assert set(EXPECTED) <= set(vault_app.__all__)
    for name in vault_app.__all__:
        value = getattr(vault_app, name)
        if name in EXPECTED:
            assert value is EXPECTED[name], name
        else:
            assert value is getattr(errors, name), name


def test_the_errors_are_the_whole_tree() -> None:
    tree = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, errors.VaultError)
    }
    assert tree == set(vault_app.__all__) - set(EXPECTED)


def test_dir_lists_the_public_names() -> None:
    listed = dir(vault_app)
    assert set(vault_app.__all__) <= set(listed)
    assert "__version__" in listed


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        vault_app.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_import_vault_app_alone_imports_nothing_heavy() -> None:
    script = (
        "import json, sys, vault_app; "
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in {'vault_app', 'numpy', 'PySide6', 'pydantic', 'watchdog'})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == ["vault_app"]


def test_star_import_gives_the_public_names() -> None:
    script = "from vault_app import *; print(Vault.__name__, open_engine.__name__)"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["Vault", "open_engine"]
