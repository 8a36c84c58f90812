"""SIGTERM and SIGINT close the app's windows as their close buttons do (`quit_signals`)."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6 import QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.ui.window import quit_signals


class Window(QtWidgets.QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.closed += 1
        event.accept()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_closes_every_window_then_the_handlers_are_put_back(
    qtbot: QtBot, qapp: QtWidgets.QApplication, sig: signal.Signals
) -> None:
    before = signal.getsignal(sig)
    windows = [Window(), Window()]
    for window in windows:
        qtbot.addWidget(window)
        window.show()
    with quit_signals.quit_on_signals(qapp):
        assert signal.getsignal(sig) is not before
        os.kill(os.getpid(), sig)
        qtbot.waitUntil(lambda: not any(w.isVisible() for w in windows))
    assert [w.closed for w in windows] == [1, 1]
    assert signal.getsignal(sig) is before
