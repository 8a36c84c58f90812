"""Shared fixtures: user folders redirected to tmp, and an empty vault in tmp_path."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from vault_writer import Writer

from vault_app.core import vault as vault_module

# Qt without a display, however pytest is started (scripts/dev sets it too); HF never
# reaches for the network
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


SLOW_LIST = Path(__file__).with_name("slow_tests.txt")  # measured: scripts/slow_tests.py


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` the tests the measured list names (`scripts/dev test --fast` leaves
    them out; CI runs them all), and skip the tests marked `semantic` when the semantic
    extra is not installed, saying why (the rest of the suite runs on BM25)."""
    listed = {
        line.strip()
        for line in SLOW_LIST.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)
    _skip_semantic(items)


def _skip_semantic(items: list[pytest.Item]) -> None:
    marked = [item for item in items if item.get_closest_marker("semantic")]
    if not marked:
        return
    from vault_app.search import semantic

    ready, why = semantic.semantic_available()
    if ready:
        return
    skip = pytest.mark.skip(reason=f"needs the semantic extra: {why}")
    for item in marked:
        item.add_marker(skip)


@pytest.fixture(scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the whole run: the exported ONNX model is made once, not per
    test (it is a pure function of the model files; tests of the export use their own)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, _shared_cache: Path
) -> None:
    """No test reads or writes the real user's config, data or cache folders."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(_shared_cache))
    monkeypatch.delenv("VAULT_APP_VAULT", raising=False)


@pytest.fixture
def vault(tmp_path: Path) -> vault_module.Vault:
    """A new, empty vault at `tmp_path / "v"` (system clock, actor "api")."""
    return vault_module.Vault.create(tmp_path / "v")


@pytest.fixture
def writer() -> Iterator[Writer]:
    """Another process that writes the vault (tests/vault_writer.py): watcher and
    live-sync tests."""
    process = Writer()
    yield process
    process.close()
