"""Acting on a file that cannot be read: restore it from the backup ring, or show its folder.

`RestoreDialog(session, path)` lists the versions `.vault/backups/` keeps of the file
(`Vault.backup_versions`, read on a worker): when each was kept, its size, and whether it
can be restored (a version that does not parse says why and cannot be chosen); the
selected one is previewed beside the list as a person reads it (`Version.readable`: a fact
file's facts one per line, a document's text). Restore writes it back through the core
(`Vault.restore_backup`: a safe write, the damaged version kept in the ring too), guarded
by the hash the file had when the dialog opened, so a change made meanwhile is not lost;
once it is written the window says so (`Session.notice`).

`folder_url(path)` is the URL "Show in folder" opens (`QDesktopServices.openUrl`): the
folder that holds the file, as a local-file URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import backups, storage
from vault_app.ui.session import Session, describe, plural

Qt = QtCore.Qt


def folder_url(path: Path) -> QtCore.QUrl:
    """The local-file URL of the folder holding `path` (the folder itself if it is one)."""
    folder = path if path.is_dir() else path.parent
    return QtCore.QUrl.fromLocalFile(str(folder))


def show_in_folder(path: Path) -> bool:
    """Open the file manager on the folder holding `path`; False if none could."""
    return QtGui.QDesktopServices.openUrl(folder_url(path))


def _size(count: int) -> str:
    return f"{count:,} bytes" if count < 10_000 else f"{count / 1024:,.0f} KB"


def version_title(version: backups.Version) -> str:
    """`#1 · 24 Nov 2026 07:12:05 · 1,204 bytes · 12 facts` (`· cannot be restored` when
    it cannot)."""
    when = version.time.strftime("%d %b %Y %H:%M:%S")
    state = "" if version.restorable else " · cannot be restored"
    facts = "" if version.facts is None else f" · {plural(version.facts, 'fact')}"
    return f"#{version.number} · {when} · {_size(version.size)}{facts}{state}"


def restored_text(session: Session, path: Path, version: backups.Version) -> str:
    """`global/life/…/items.json is back as it was kept on 29 Nov 2026 at 04:58 (15
    facts). The version it replaced is kept in the backups too.`"""
    when = version.time.strftime("%d %b %Y at %H:%M")
    facts = "" if version.facts is None else f" ({plural(version.facts, 'fact')})"
    return (
        f"{session.vault.paths.relative(path)} is back as it was kept on {when}{facts}. "
        "The version it replaced is kept in the backups too."
    )


class RestoreDialog(QtWidgets.QDialog):
    """Pick a kept version of `path`, see it, restore it."""

    restored = QtCore.Signal(str)  # the file's new sha256

    def __init__(
        self,
        session: Session,
        path: Path,
        parent: QtWidgets.QWidget | None = None,
        *,
        address: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.path = path
        self.address = address  # the entity whose file this is: reloaded once restored
        self.versions: list[backups.Version] = []
        self.expected: str | None = None
        self.setWindowTitle(f"Restore {path.name} from backup")
        relative = session.vault.paths.relative(path)
        intro = QtWidgets.QLabel(
            f"Versions of <b>{relative}</b> kept in .vault/backups/, newest first. Restoring "
            "one writes it back; the version on disk now is kept in the backups too."
        )
        intro.setWordWrap(True)
        self.list = QtWidgets.QListWidget()
        self.list.setAccessibleName("Kept versions")
        self.list.currentRowChanged.connect(self._show_version)
        self.preview = QtWidgets.QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setAccessibleName("Preview of the selected version")
        self.problem = QtWidgets.QLabel()
        self.problem.setWordWrap(True)
        self.problem.setProperty("inlineError", True)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        split = QtWidgets.QSplitter()
        split.addWidget(self.list)
        split.addWidget(self.preview)
        split.setSizes([340, 480])
        self.buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.restore_button = self.buttons.addButton(
            "&Restore this version", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.restore_button.setEnabled(False)
        self.buttons.accepted.connect(self.restore)
        self.buttons.rejected.connect(self.reject)
        box = QtWidgets.QVBoxLayout(self)
        box.addWidget(intro)
        box.addWidget(split, 1)
        box.addWidget(self.problem)
        box.addWidget(self.buttons)
        self.resize(840, 460)
        self.list.addItem("Reading the backups…")
        self.list.setEnabled(False)
        session.run(self._read, self._listed, self._failed)

    def _read(self) -> tuple[list[backups.Version], str | None]:
        data = self.session.vault.read_bytes(self.path)
        digest = None if data is None else storage.sha256(data)
        return self.session.vault.backup_versions(self.path), digest

    def _listed(self, result: tuple[list[backups.Version], str | None]) -> None:
        self.versions, self.expected = result
        self.list.clear()
        self.list.setEnabled(True)
        if not self.versions:
            self.list.addItem("No version kept")
            self.list.setEnabled(False)
            self.problem.setText("The backup ring holds no version of this file.")
            return
        for version in self.versions:
            item = QtWidgets.QListWidgetItem(version_title(version))
            item.setToolTip(version.problem or "Can be restored")
            if not version.restorable:
                item.setForeground(self.palette().brush(QtGui.QPalette.ColorRole.PlaceholderText))
            self.list.addItem(item)
        first = next((v.number - 1 for v in self.versions if v.restorable), 0)
        self.list.setCurrentRow(first)

    def _failed(self, exc: BaseException) -> None:
        title, message = describe(exc)
        self.list.clear()
        self.problem.setText(f"{title}: {message}")

    def selected(self) -> backups.Version | None:
        row = self.list.currentRow()
        return self.versions[row] if 0 <= row < len(self.versions) else None

    def _show_version(self, _row: int) -> None:
        version = self.selected()
        self.preview.setPlainText(version.readable or version.preview if version else "")
        self.restore_button.setEnabled(version is not None and version.restorable)
        self.problem.setText(
            f"Version {version.number} {version.problem}." if version and version.problem else ""
        )

    def restore(self) -> None:
        version = self.selected()
        if version is None or not version.restorable:
            return
        path, number, expected = self.path, version.number, self.expected
        self.restore_button.setEnabled(False)

        def done(digest: Any) -> None:
            self.restored.emit(str(digest))
            self.session.notice.emit(
                f"Restored {path.name}", restored_text(self.session, path, version)
            )
            self.accept()

        def failed(exc: BaseException) -> None:
            title, message = describe(exc)
            self.problem.setText(f"{title}: {message}")
            self.restore_button.setEnabled(True)

        self.session.write(
            lambda v: v.restore_backup(path, number, expected=expected),
            done,
            failed,
            entities=(self.address,) if self.address else (),
            documents=() if self.address else (path,),
            rescan=True,
        )
