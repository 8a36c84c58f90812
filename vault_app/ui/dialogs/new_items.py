"""Small window furniture: the message bar, and the New entity / New vault dialogs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import errors, layout
from vault_app.ui import themes


class MessageBar(QtWidgets.QFrame):
    """An error or notice in plain words across the top of the window, until dismissed.

    Several messages in a row are kept: the bar shows the latest and how many more. A
    warning (the default) is drawn on the warning ground with the warning icon; a notice
    (something done, `notice=True`) on the notice ground with the information icon.
    """

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.messages: list[tuple[str, str, tuple[str, Callable[[], None]] | None]] = []
        self.keys: list[str | None] = []  # what each message is about (`dismiss_key`)
        self.notices: list[bool] = []  # whether each message is a notice, not a warning
        self.icon = QtWidgets.QLabel()
        self.title = QtWidgets.QLabel()
        self.title.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.text = QtWidgets.QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.text.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.more = QtWidgets.QLabel()
        self.action = QtWidgets.QPushButton()
        self.action.clicked.connect(self._act)
        close = QtWidgets.QToolButton()
        close.setText("Dismiss")
        close.setToolTip("Hide this message (Esc)")
        close.clicked.connect(self.dismiss)
        words = QtWidgets.QVBoxLayout()
        words.setSpacing(2)
        words.addWidget(self.title)
        words.addWidget(self.text)
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        row.addWidget(self.icon, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        row.addLayout(words, 1)
        row.addWidget(self.more, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.action, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        row.addWidget(close, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(
        self,
        title: str,
        message: str,
        action: tuple[str, Callable[[], None]] | None = None,
        *,
        key: str | None = None,
        notice: bool = False,
    ) -> None:
        """Show `message`; `action` (label, callback) adds a button that acts and dismisses;
        `key` names what it is about, so that a page that shows the same problem can take
        it back (`dismiss_key`): one bar for one problem, not two."""
        self.messages.append((title, message, action))
        self.keys.append(key)
        self.notices.append(notice)
        self._render()

    def show_notice(self, title: str, message: str) -> None:
        """Say that something was done (`show_message` with `notice`)."""
        self.show_message(title, message, notice=True)

    def dismiss_key(self, key: str) -> None:
        """Drop the messages about `key`."""
        kept = [i for i, k in enumerate(self.keys) if k != key]
        self.messages = [self.messages[i] for i in kept]
        self.keys = [self.keys[i] for i in kept]
        self.notices = [self.notices[i] for i in kept]
        self._render()

    def _act(self) -> None:
        if self.messages and (action := self.messages[-1][2]) is not None:
            self.dismiss()
            action[1]()

    def dismiss(self) -> None:
        if self.messages:
            self.messages.pop()
            self.keys.pop()
            self.notices.pop()
        self._render()

    def _render(self) -> None:
        if not self.messages:
            self.hide()
            return
        title, message, action = self.messages[-1]
        self.action.setVisible(action is not None)
        self.action.setText(action[0] if action else "")
        self.title.setText(title)
        self.text.setText(message)
        self.more.setText(f"+{len(self.messages) - 1} more" if len(self.messages) > 1 else "")
        notice = self.notices[-1]
        palette = self.palette()
        ground = themes.notice_background if notice else themes.warning_background
        palette.setColor(QtGui.QPalette.ColorRole.Window, ground(palette))
        self.setPalette(palette)
        pixmap = QtWidgets.QStyle.StandardPixmap
        kind = pixmap.SP_MessageBoxInformation if notice else pixmap.SP_MessageBoxWarning
        self.icon.setPixmap(self.style().standardIcon(kind).pixmap(22, 22))
        self.show()


class _CreateDialog(QtWidgets.QDialog):
    """A small form that creates something: a red line says what is wrong, and Create
    stays disabled until the subclass's `find_problem()` returns ""."""

    def _create_controls(self) -> None:
        self.problem = QtWidgets.QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {themes.error_colour(self.palette()).name()}")
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    find_problem: Callable[[], str]  # what is wrong with the form, "" when nothing

    def validate(self) -> bool:
        problem = self.find_problem()
        self.problem.setText(problem)
        self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)
        return not problem

    def accept(self) -> None:
        if self.validate():
            super().accept()


class NewEntityDialog(_CreateDialog):
    """Name a new entity: where it lives (global or an agent), its PARA category, its id."""

    def __init__(
        self,
        agents: list[str],
        parent: QtWidgets.QWidget | None = None,
        *,
        scope: str | None = None,
        category: str = "areas",
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("New entity")
        self.scope = QtWidgets.QComboBox()
        self.scope.addItem("Global (shared by every agent)", None)
        for agent in agents:
            self.scope.addItem(f"Agent {agent} — its workspace", agent)
        if scope is not None:
            self.scope.setCurrentIndex(max(0, self.scope.findData(scope)))
        self.category = QtWidgets.QComboBox()
        for name in ("projects", "areas", "resources"):
            self.category.addItem(name.title(), name)
        self.category.setCurrentIndex(max(0, self.category.findData(category)))
        self.path = QtWidgets.QLineEdit()
        self.path.setPlaceholderText("people/jane-doe  or  kitchen-renovation")
        self.path.setToolTip(
            "Lower-case words joined by hyphens; a group first if you like (people/…)"
        )
        self.summary = QtWidgets.QPlainTextEdit()
        self.summary.setPlaceholderText("A first line for summary.md (optional)")
        self.summary.setFixedHeight(80)
        self._create_controls()
        form = QtWidgets.QFormLayout(self)
        form.addRow("&Where", self.scope)
        form.addRow("&Category", self.category)
        form.addRow("&Name", self.path)
        form.addRow("&Summary", self.summary)
        form.addRow(self.problem)
        form.addRow(self.buttons)
        for signal in (self.path.textChanged, self.scope.currentIndexChanged):
            signal.connect(self.validate)
        self.category.currentIndexChanged.connect(self.validate)
        self.validate()
        self.resize(460, self.sizeHint().height())

    def address(self) -> str:
        agent = self.scope.currentData()
        path = f"{self.category.currentData()}/{self.path.text().strip().strip('/')}"
        return path if agent is None else f"agent:{agent}:{path}"

    def find_problem(self) -> str:
        if not self.path.text().strip():
            return "Give the entity a name."
        try:
            layout.EntityRef.parse(self.address())
        except errors.VaultError as exc:
            return str(exc)
        return ""


class NewVaultDialog(_CreateDialog):
    """Choose a folder for a new vault, empty or filled with the demo household."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New vault")
        self.folder = QtWidgets.QLineEdit(str(Path.home() / "vault"))
        browse = QtWidgets.QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        where = QtWidgets.QHBoxLayout()
        where.addWidget(self.folder, 1)
        where.addWidget(browse)
        self.empty = QtWidgets.QRadioButton("&Empty vault")
        self.demo = QtWidgets.QRadioButton("&Demo household (7 agents, 54 entities, 520 facts)")
        self.empty.setChecked(True)
        self._create_controls()
        form = QtWidgets.QFormLayout(self)
        form.addRow("&Folder", where)
        form.addRow("Contents", self.empty)
        form.addRow("", self.demo)
        form.addRow(self.problem)
        form.addRow(self.buttons)
        self.folder.textChanged.connect(self.validate)
        self.validate()
        self.resize(520, self.sizeHint().height())

    def _browse(self) -> None:
        chosen = QtWidgets.QFileDialog.getExistingDirectory(self, "Folder for the new vault")
        if chosen:
            self.folder.setText(chosen)

    def path(self) -> Path:
        return Path(self.folder.text().strip()).expanduser()

    def find_problem(self) -> str:
        path = self.path()
        if not self.folder.text().strip():
            return "Choose a folder."
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            return f"{path} exists and is not an empty folder."
        return ""


class NewAgentDialog(_CreateDialog):
    """Name a new agent: `Vault.create_agent` makes its folder (as `vault-app agent create`)."""

    def __init__(self, taken: list[str], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New agent")
        self.taken = {name.casefold() for name in taken}
        self.name = QtWidgets.QLineEdit()
        self.name.setPlaceholderText("finance  or  home-assistant")
        self.name.setToolTip("Letters, digits, '-', '_' or '.' (up to 64)")
        about = QtWidgets.QLabel(
            "The agent gets agents/<id>/ with its own PARA workspace (projects, areas, "
            "resources, archives), daily notes, TACIT.md and CONTEXT.md."
        )
        about.setWordWrap(True)
        about.setProperty("notice", True)
        self._create_controls()
        form = QtWidgets.QFormLayout(self)
        form.addRow("Agent &id", self.name)
        form.addRow(about)
        form.addRow(self.problem)
        form.addRow(self.buttons)
        self.name.textChanged.connect(self.validate)
        self.validate()
        self.resize(460, self.sizeHint().height())

    def agent(self) -> str:
        return self.name.text().strip()

    def find_problem(self) -> str:
        agent = self.agent()
        if not agent:
            return "Give the agent an id."
        try:
            layout.validate_new_agent_id(agent)
        except errors.VaultError as exc:
            return str(exc)
        if agent.casefold() in self.taken:
            return f"Agent {agent!r} already exists."
        return ""
