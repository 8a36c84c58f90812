"""Fixtures the window's tests share: a settings store of their own (never the user's),
the demo household made in the test's folder, and waits that hold on a busy machine.

A wait for something that must happen (`waitUntil`, `waitSignal`) polls its condition,
so on a quiet machine it returns in milliseconds whatever its bound; pytest-qt's default
bound of 5 s, and the 10-60 s the tests name, are wall-clock margins that a loaded
machine (two other heavy jobs on two cores) overruns. Every such wait is given at least
`WAIT_MS` (under pytest-timeout's 600 s a test). Waits that prove something does *not*
happen (`assertNotEmitted`, a wait with `raising=False`, `qtbot.wait`) keep their own
short bounds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore
from pytestqt.qtbot import QtBot

from vault_app.core import demo

WAIT_MS = 300_000  # the least bound of a wait for a condition that must come (polled)


def _patient(wait: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(wait)
    def patient(self: QtBot, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("raising") is not False:  # (assertNotEmitted waits, not raising)
            kwargs["timeout"] = max(kwargs.get("timeout", 0), WAIT_MS)
        return wait(self, *args, **kwargs)

    return patient


@pytest.fixture(autouse=True)
def _patient_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("waitUntil", "waitSignal", "waitSignals", "waitCallback"):
        monkeypatch.setattr(QtBot, name, _patient(getattr(QtBot, name)))
    yield


@pytest.fixture
def store(tmp_path: Path) -> QtCore.QSettings:
    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The demo vault (its daily notes hold facts the heartbeat's rules extract)."""
    demo.create_demo(tmp_path / "demo")
    return tmp_path / "demo"
