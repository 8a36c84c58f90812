"""The entity page's problem banner: what is wrong in plain words, and what to do about it.

One banner per problem, on the page that shows it (the window's message bar drops its
own message about the same file once the page shows it: one bar, not two). For a file
that cannot be read the banner offers:

* **Restore from backup…** — `restore_dialog.RestoreDialog` over the backup ring;
* **Show in folder** — the file manager on the folder that holds the file;
* the full error text (path, place in the file, reason), selectable to copy.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.ui.dialogs import restore_dialog
from vault_app.ui.session import Session
from vault_app.ui.widgets.conflicts import Banner

Qt = QtCore.Qt


class ProblemBanner(Banner):
    """A warning strip: title, message, the full error, and the actions that fix it (on
    the entity page for its fact file, on a document pane for its markdown file). Its
    tint follows the theme (`conflicts.Banner`)."""

    shown = QtCore.Signal(str)  # the file the banner is about ("" when none)

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("#e03131", parent)
        self.session = session
        self.path: Path | None = None
        self.address: str | None = None
        self.dialog: restore_dialog.RestoreDialog | None = None
        self.setAccessibleName("Problem with this entity")
        icon = QtWidgets.QLabel()
        warning = self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MessageBoxWarning)
        icon.setPixmap(warning.pixmap(22, 22))
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QtWidgets.QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setFont(
            QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        )
        self.detail.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.detail.setAccessibleName("The full error")
        self.detail.setToolTip("The full error: select it to copy")
        self.restore_button = QtWidgets.QPushButton("&Restore from backup…")
        self.restore_button.setToolTip("Choose a version kept in .vault/backups/ and put it back")
        self.restore_button.clicked.connect(self.open_restore)
        self.folder_button = QtWidgets.QPushButton("Show in f&older")
        self.folder_button.setToolTip("Open the folder that holds the file")
        self.folder_button.clicked.connect(self.show_folder)
        words = QtWidgets.QVBoxLayout()
        words.addWidget(self.label)
        words.addWidget(self.detail)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.folder_button)
        buttons.addStretch(1)
        words.addLayout(buttons)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(words, 1)
        self.hide()

    def show_problem(
        self,
        title: str,
        message: str,
        *,
        path: Path | None = None,
        detail: str = "",
        address: str | None = None,
    ) -> None:
        """Show a problem; with `path` (a file that cannot be read) offer its fixes."""
        self.path, self.address = path, address
        body = html.escape(message).replace("\n", "<br>")
        self.label.setText(f"<b>{html.escape(title)}</b><br>{body}")
        self.detail.setText(detail)
        self.detail.setVisible(bool(detail))
        self.restore_button.setVisible(path is not None)
        self.folder_button.setVisible(path is not None)
        self.show()
        self.shown.emit(str(path) if path is not None else "")

    def folder_url(self) -> QtCore.QUrl:
        """What "Show in folder" opens (an empty URL when there is no file)."""
        return restore_dialog.folder_url(self.path) if self.path else QtCore.QUrl()

    def show_folder(self) -> None:
        if self.path is not None:
            restore_dialog.show_in_folder(self.path)

    def open_restore(self) -> restore_dialog.RestoreDialog | None:
        if self.path is None:
            return None
        dialog = restore_dialog.RestoreDialog(self.session, self.path, self, address=self.address)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda _code: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()
        return dialog
