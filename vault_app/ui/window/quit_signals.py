"""SIGTERM and SIGINT close the app's windows as their close buttons do; then it exits 0.

A desktop session that ends, `kill PID`, or Ctrl+C in the terminal that started the app:
each window closes as when its close button is clicked (it saves its geometry, stops its
live sync and heartbeat, and asks about unsaved edits first), and the app leaves its event
loop with exit status 0 once the last one is closed.

Python runs a signal handler only when the interpreter gets control, and Qt's event loop
waits for events in C++; so `signal.set_wakeup_fd` writes a byte to one end of a socket
pair at each signal, and a `QSocketNotifier` on the other end wakes the loop, which runs
the handler (qutebrowser's crash-signal handler does the same). The composition root
owns the process: this changes its signal handlers, and puts them back afterwards.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator

from PySide6 import QtCore, QtWidgets

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def quit_on_signals(app: QtWidgets.QApplication) -> Iterator[None]:
    """Within the block, SIGTERM and SIGINT close every window of `app` (deferred to the
    event loop, as a click would be). Outside the main thread: nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    notifier = QtCore.QSocketNotifier(reader.fileno(), QtCore.QSocketNotifier.Type.Read)
    notifier.activated.connect(lambda *_: _drain(reader))  # Python runs the handler here

    def close_windows(signum: int, frame: object) -> None:
        QtCore.QTimer.singleShot(0, app.closeAllWindows)

    previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    previous = {sig: signal.signal(sig, close_windows) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(previous_fd)
        notifier.setEnabled(False)
        reader.close()
        writer.close()


def _drain(reader: socket.socket) -> None:
    with contextlib.suppress(OSError):
        reader.recv(64)
