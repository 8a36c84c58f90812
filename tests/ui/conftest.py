"""Fixtures the window's tests share: a settings store of their own (never the user's),
and the demo household made in the test's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore

from vault_app.core import demo


@pytest.fixture
def store(tmp_path: Path) -> QtCore.QSettings:
    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The demo vault (its daily notes hold facts the heartbeat's rules extract)."""
    demo.create_demo(tmp_path / "demo")
    return tmp_path / "demo"
