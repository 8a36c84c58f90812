"""File › Import conversations…: the conversations a person already had with an assistant
(ChatGPT's or Claude's data export: its zip, its `conversations.json`, or the folder it
unzips to; or JSON lines of chat) into the vault's daily notes, as `vault-app import`
does. `core.chat_exports` is the one place that reads them; this is its face.

A file dialog picks the export (a folder is taken too: File › Import conversation
folder…). The import runs on the writer thread, so it never races the window's own
writes, behind a window-modal progress dialog showing the share of the export read
(500 MB take about two minutes). Stop ends it at once: the progress callback raises
`Cancelled` on the worker; every day's note it wrote is whole (each is one atomic
write) and importing again adds only what is missing, so nothing is half done. Then
the message bar says what came in, the heartbeat runs at once (the window's own, when
it holds the lease; else `serve`'s runs on its schedule), so what the person asked to
be remembered becomes facts without waiting, and the daily view follows.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

from vault_app.core import chat_exports
from vault_app.ui import session as session_module

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow

STEPS = 1000  # the progress bar's resolution: a step is a thousandth of the export
POLL_MS = 100  # how often the dialog shows how much is read
FILTER = "Chat exports (*.zip *.json *.jsonl);;All files (*)"
TITLE = "Import conversations"


def choose_file(window: MainWindow) -> None:
    chosen, _ = QtWidgets.QFileDialog.getOpenFileName(
        window, f"{TITLE}: a ChatGPT or Claude export, or chat lines", str(Path.home()), FILTER
    )
    if chosen:
        start(window, Path(chosen))


def choose_folder(window: MainWindow) -> None:
    chosen = QtWidgets.QFileDialog.getExistingDirectory(
        window, f"{TITLE}: the folder a ChatGPT or Claude export unzips to"
    )
    if chosen:
        start(window, Path(chosen))


@dataclasses.dataclass
class _Read:
    """How much of the export the worker has read: plain numbers it writes and the GUI
    thread's timer reads. The worker touches no Qt object and holds nothing a Qt
    connection refers to (a bound method connected to a signal is held weakly: when a
    worker drops its object's last reference, PySide disconnects it there, racing the
    GUI thread — a crash)."""

    done: int = 0
    total: int = 0


def start(window: MainWindow, path: Path) -> QtWidgets.QProgressDialog:
    """Import `path` behind a progress dialog (the module doc); the dialog, for tests."""
    session = window.session
    dialog = QtWidgets.QProgressDialog(f"Importing {path.name}…", "&Stop", 0, STEPS, window)
    dialog.setWindowTitle(TITLE)
    dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(400)  # a small export comes and goes without a flash
    dialog.setAutoReset(False)
    dialog.setAutoClose(False)
    stop = threading.Event()  # the worker reads it; no Qt connection holds it weakly
    dialog.canceled.connect(lambda: stop.set())  # Stop, or the dialog closed (Escape)
    dialog.rejected.connect(lambda: stop.set())
    read = _Read()
    timer = QtCore.QTimer(dialog)
    timer.setInterval(POLL_MS)

    def show_read() -> None:
        if read.total:
            dialog.setLabelText(
                f"Importing {path.name}… ({read.done / 1e6:,.1f} of "
                f"{read.total / 1e6:,.1f} MB read)"
            )
            dialog.setValue(STEPS * read.done // read.total)

    timer.timeout.connect(show_read)
    timer.start()

    def progress(done: int, total: int) -> None:  # on the worker
        if stop.is_set() or session.closed:
            raise session_module.Cancelled("stopped")
        read.done, read.total = done, total

    target = session.vault

    def work() -> chat_exports.Report:
        return chat_exports.import_export(target, path, progress=progress)

    def end() -> None:
        timer.stop()
        dialog.hide()  # not close(): that would say Stop
        dialog.deleteLater()

    def done(report: chat_exports.Report) -> None:
        end()
        text = summary(report, path)
        if report.added:
            ran = window.heartbeat is not None and window.heartbeat.run_now("import")
            text += (
                " The heartbeat is turning them into facts now."
                if ran
                else " The heartbeat turns them into facts on its next run."
            )
        if report.problems:
            problems = "; ".join(report.problems[:3])
            extra = f" (and {len(report.problems) - 3} more)" if len(report.problems) > 3 else ""
            session.error.emit(
                "Imported, with problems", f"{text} Not imported: {problems}{extra}."
            )
        else:
            session.notice.emit("Conversations imported", text)
        session.rescan()

    def failed(exc: BaseException) -> None:
        end()
        if isinstance(exc, session_module.Cancelled):
            session.notice.emit(
                "Import stopped",
                f"What was read of {path.name} before Stop is in the daily notes; importing "
                "it again adds only the rest.",
            )
            session.rescan()
        else:
            session.report(exc)

    session.run(work, done, failed, writer=True)
    return dialog


def summary(report: chat_exports.Report, path: Path) -> str:
    """What an import did, in a sentence."""
    source = chat_exports.SOURCE_NAMES[report.format]
    already = report.messages - report.added
    return (
        f"{report.added:,} message{'' if report.added == 1 else 's'} of "
        f"{report.conversations:,} {source} conversation{'' if report.conversations == 1 else 's'}"
        f" from {path.name} into {report.days:,} daily note{'' if report.days == 1 else 's'}"
        + (f" ({already:,} already there)." if already else ".")
        + (
            f" {report.memories:,} {'is a note' if report.memories == 1 else 'are notes'}"
            f" {source} saved to its memory of you."
            if report.memories
            else ""
        )
        + (
            f" {report.opted_out:,} conversation{'' if report.opted_out == 1 else 's'} kept out"
            f" of {source}'s memory {'was' if report.opted_out == 1 else 'were'} left out."
            if report.opted_out
            else ""
        )
    )
