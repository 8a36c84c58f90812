"""The settings dialog: the vault's settings (its config.toml) and the app's (QSettings).

Design
------
Two tabs. **Vault** edits `session.vault.config` (`core.config.VaultConfig`): the decay
levels (`DecayPolicy`: a row per level, "accessed more than N times: hot up to H days,
warm up to W days"), the weekly synthesis (day and time), semantic search on/off, the
model, the hybrid BM25 weight, and the storage limits. These travel with the vault, so
they are saved to `.vault/config.toml` by `VaultConfig.save` on the session's writer
thread (lock, backup, atomic replace, audit line; edited in place, so the user's comments
and unknown keys stay), and the open vault adopts them.
**App** holds what belongs to this computer, in QSettings (`AppSettings`): the theme,
whether browsing a fact in the window counts as an access, and whether this device runs
the heartbeat (a vault synced between devices wants it on one of them).

The form is checked on every change: thresholds must increase (warm ≥ hot in a row; a
row for more accesses never cools sooner than the row above), then the whole config is
validated by the core's pydantic models. Problems show inline, under their group, and
OK stays disabled until they are fixed. OK saves (the dialog stays open, with the reason,
if the disk refuses), Cancel discards, Restore Defaults resets the tab shown. Nothing is
written until OK.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import ValidationError
from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import config, vault
from vault_app.ui import themes
from vault_app.ui.session import Session, describe

Qt = QtCore.Qt

THEME_KEY = "appearance/theme"
ACCESS_KEY = "access/browsingCountsAsAccess"
HEARTBEAT_KEY = "heartbeat/runHere"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MAX_LEVELS = 8


@dataclasses.dataclass
class AppSettings:
    """The settings of this app on this computer (QSettings), not of a vault."""

    theme: str = "system"
    browsing_counts_as_access: bool = False
    run_heartbeat: bool = True  # this device runs the heartbeat when nothing else does

    @classmethod
    def load(cls, store: QtCore.QSettings) -> AppSettings:
        theme = store.value(THEME_KEY, "system")
        access = store.value(ACCESS_KEY, False, type=bool)
        return cls(
            theme=theme if theme in themes.THEMES else "system",
            browsing_counts_as_access=bool(access),
            run_heartbeat=bool(store.value(HEARTBEAT_KEY, True, type=bool)),
        )

    def save(self, store: QtCore.QSettings) -> None:
        store.setValue(THEME_KEY, self.theme)
        store.setValue(ACCESS_KEY, self.browsing_counts_as_access)
        store.setValue(HEARTBEAT_KEY, self.run_heartbeat)
        store.sync()

    def apply(self, session: Session | None, app: QtWidgets.QApplication | None) -> None:
        """Put the settings into effect: the theme, and the access rule of the session."""
        if app is not None and themes.applied_theme(app) != self.theme:
            themes.apply_theme(app, self.theme)
        if session is not None:
            session.count_browsing_as_access = self.browsing_counts_as_access


def decay_problems(levels: list[tuple[int, int, int]]) -> list[str]:
    """Plain-words problems of decay levels given as (min_access, hot_days, warm_days)."""
    problems = []
    for number, (accesses, hot, warm) in enumerate(levels, start=1):
        if warm < hot:
            problems.append(
                f"Row {number}: warm must last at least as long as hot "
                f"({warm} days is less than {hot})."
            )
        if number == 1:
            continue
        before_accesses, before_hot, before_warm = levels[number - 2]
        if accesses <= before_accesses:
            problems.append(
                f"Row {number}: give it more accesses than row {number - 1} "
                f"(more than {before_accesses})."
            )
        if hot < before_hot or warm < before_warm:
            problems.append(
                f"Row {number}: facts accessed more often must stay hot and warm at least as "
                f"long as in row {number - 1} ({before_hot} and {before_warm} days)."
            )
    return problems


_GROW = QtWidgets.QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow  # compact spin boxes


class _LevelRow:
    """The three spin boxes of one decay level."""

    def __init__(self, first: bool) -> None:
        self.accesses = QtWidgets.QSpinBox()
        self.accesses.setRange(0, 1_000_000)
        self.accesses.setSuffix(" times")
        self.accesses.setEnabled(not first)
        if first:
            self.accesses.setSpecialValueText("every fact")
        self.accesses.setToolTip(
            "The first row applies to every fact"
            if first
            else "This row applies to facts accessed more than this many times"
        )
        self.hot = QtWidgets.QSpinBox()
        self.hot.setRange(0, 36_500)
        self.hot.setSuffix(" days")
        self.hot.setToolTip("Hot while the last access is at most this many days ago")
        self.warm = QtWidgets.QSpinBox()
        self.warm.setRange(0, 36_500)
        self.warm.setSuffix(" days")
        self.warm.setToolTip("Warm up to this many days after the last access, then cold")
        self.accesses.setAccessibleName("Accessed more than")
        self.hot.setAccessibleName("Hot for up to")
        self.warm.setAccessibleName("Warm for up to")

    def widgets(self) -> tuple[QtWidgets.QSpinBox, ...]:
        return self.accesses, self.hot, self.warm

    def value(self) -> tuple[int, int, int]:
        return self.accesses.value(), self.hot.value(), self.warm.value()

    def set_value(self, level: Any) -> None:
        self.accesses.setValue(level.min_access)
        self.hot.setValue(level.hot_days)
        self.warm.setValue(level.warm_days)


def _error_label() -> QtWidgets.QLabel:
    label = QtWidgets.QLabel()
    label.setWordWrap(True)
    label.setProperty("inlineError", True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


def _note(text: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    label.setProperty("notice", True)
    return label


def _words_of(box: QtWidgets.QGroupBox) -> list[str]:
    """What a settings group says: its title, its labels' and buttons' texts, the choices
    of its lists and every tooltip."""
    said = [box.title()]
    for widget in box.findChildren(QtWidgets.QWidget):
        said.append(widget.toolTip())
        if isinstance(widget, QtWidgets.QLabel | QtWidgets.QAbstractButton):
            said.append(widget.text())
        elif isinstance(widget, QtWidgets.QComboBox):
            said += [widget.itemText(i) for i in range(widget.count())]
    return said


def _scrolling(page: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    """`page` in a scroll area without a frame, scrolling only up and down."""
    area = QtWidgets.QScrollArea()
    area.setWidget(page)
    area.setWidgetResizable(True)
    area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setMinimumWidth(page.minimumSizeHint().width())
    return area


def _fitting_height(parent: QtWidgets.QWidget | None, wanted: int) -> int:
    """`wanted`, or less so that the dialog (and its title bar) fits the parent's screen."""
    screen = parent.screen() if parent is not None else QtGui.QGuiApplication.primaryScreen()
    room = screen.availableGeometry().height() - 60 if screen is not None else wanted
    if parent is not None:
        room = min(room, max(parent.height() - 40, 400))
    return max(360, min(wanted, room))


# The vault's tables the form does not show: saving the form keeps them as they are (an
# agent's rights, the heartbeat's endpoint, the quotas are never reset by OK).
_KEPT_TABLES = ("heartbeat", "agents", "quotas")


class SettingsDialog(QtWidgets.QDialog):
    """Vault settings (saved to .vault/config.toml) and app settings (QSettings). The box
    at the top finds a setting (`find_setting`): the groups whose words hold every word typed
    stay, on the first tab that has one."""

    applied = QtCore.Signal()  # after OK, once everything is saved and in effect

    def __init__(
        self,
        session: Session,
        store: QtCore.QSettings | None = None,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.store = store if store is not None else QtCore.QSettings()
        self.levels: list[_LevelRow] = []
        self.setWindowTitle("Settings")
        self.tabs = QtWidgets.QTabWidget()
        # each tab scrolls: the dialog fits a 720 px tall screen whatever its groups need
        self.tabs.addTab(_scrolling(self._vault_tab()), "&Vault")
        self.tabs.addTab(_scrolling(self._app_tab()), "A&pp")
        self.status = _error_label()
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
            | QtWidgets.QDialogButtonBox.StandardButton.RestoreDefaults
        )
        self.ok_button = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setToolTip("Save the settings and use them")
        defaults = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.RestoreDefaults)
        defaults.setToolTip("Put the settings of the tab shown back to their defaults")
        defaults.clicked.connect(self.restore_defaults)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.find_edit = QtWidgets.QLineEdit()
        self.find_edit.setPlaceholderText("Find a setting…")
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.setAccessibleName("Find a setting")
        self.find_edit.textChanged.connect(self.find_setting)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.find_edit)
        layout.addWidget(self.tabs)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.set_vault_form(session.vault.config)
        self.set_app_form(AppSettings.load(self.store))
        self.resize(680, _fitting_height(parent, 700))

    # -- the Vault tab --------------------------------------------------------------------

    def _vault_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(page)
        error = self.session.vault.config_error
        self.banner = QtWidgets.QFrame()
        self.banner.setProperty("banner", True)
        banner_layout = QtWidgets.QVBoxLayout(self.banner)
        banner_text = QtWidgets.QLabel(
            f"This vault's config.toml cannot be used ({error.reason if error else ''}), so "
            "the vault runs on the default settings shown here. OK replaces the file with "
            "these settings; the old one is kept in .vault/backups."
        )
        banner_text.setWordWrap(True)
        banner_layout.addWidget(banner_text)
        self.banner.setVisible(error is not None)
        layout.addWidget(self.banner)
        layout.addWidget(self._decay_group())
        layout.addWidget(self._synthesis_group())
        layout.addWidget(self._search_group())
        layout.addWidget(self._storage_group())
        layout.addStretch()
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(page)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        return scroll

    def _decay_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Decay")
        layout = QtWidgets.QVBoxLayout(box)
        layout.addWidget(
            _note(
                "A fact is Hot for some days after it was last accessed, then Warm, then Cold. "
                "Facts accessed often stay hot and warm longer: a row applies once a fact was "
                "accessed more than the number of times given."
            )
        )
        self.levels_grid = QtWidgets.QGridLayout()
        for column, title in enumerate(("Accessed more than", "Hot for up to", "Warm for up to")):
            label = QtWidgets.QLabel(f"<b>{title}</b>")
            self.levels_grid.addWidget(label, 0, column)
        self.levels_grid.setColumnStretch(3, 1)  # keep the spin boxes compact
        layout.addLayout(self.levels_grid)
        buttons = QtWidgets.QHBoxLayout()
        self.add_level = QtWidgets.QPushButton("&Add a level")
        self.add_level.setToolTip("Add a row for facts accessed even more often")
        self.add_level.clicked.connect(self._add_level)
        self.remove_level = QtWidgets.QPushButton("Re&move the last level")
        self.remove_level.setToolTip("Remove the bottom row")
        self.remove_level.clicked.connect(self._remove_level)
        buttons.addWidget(self.add_level)
        buttons.addWidget(self.remove_level)
        buttons.addStretch()
        layout.addLayout(buttons)
        self.decay_error = _error_label()
        layout.addWidget(self.decay_error)
        return box

    def _synthesis_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Weekly synthesis")
        form = QtWidgets.QFormLayout(box)
        form.setFieldGrowthPolicy(_GROW)
        self.weekday = QtWidgets.QComboBox()
        for day in WEEKDAYS:
            self.weekday.addItem(day.capitalize(), day)
        self.weekday.setToolTip("The day every summary is rewritten from its facts")
        self.time = QtWidgets.QTimeEdit()
        self.time.setDisplayFormat("HH:mm")
        self.time.setToolTip("The local time of the weekly synthesis")
        form.addRow("&Day:", self.weekday)
        form.addRow("&Time:", self.time)
        form.addRow(_note("Summaries can also be synthesized any time from the decay dashboard."))
        self.weekday.currentIndexChanged.connect(self.validate)
        self.time.timeChanged.connect(self.validate)
        return box

    def _search_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Search")
        form = QtWidgets.QFormLayout(box)
        form.setFieldGrowthPolicy(_GROW)
        self.semantic = QtWidgets.QCheckBox("Search by &meaning too (semantic and hybrid search)")
        self.semantic.setToolTip(
            "Needs the sentence model; without it, search uses words only (BM25)"
        )
        self.model = QtWidgets.QLineEdit()
        self.model.setPlaceholderText("built in: all-MiniLM-L6-v2")
        self.model.setToolTip(
            "A folder holding a sentence-transformers model, or the name of one already "
            "downloaded; empty for the built-in model. Nothing is downloaded."
        )
        self.model.setClearButtonEnabled(True)
        browse = QtWidgets.QPushButton("&Browse…")
        browse.setToolTip("Choose a model folder")
        browse.clicked.connect(self._browse_model)
        model_row = QtWidgets.QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(browse)
        self.weight = QtWidgets.QDoubleSpinBox()
        self.weight.setRange(0.0, 1.0)
        self.weight.setSingleStep(0.05)
        self.weight.setDecimals(2)
        self.weight.setToolTip(
            "Share of word matching (BM25) in hybrid search: 0 = meaning only, 1 = words only"
        )
        form.addRow(self.semantic)
        model_label = QtWidgets.QLabel("M&odel:")
        model_label.setBuddy(self.model)
        form.addRow(model_label, model_row)
        form.addRow("&Word weight in hybrid search (0–1):", self.weight)
        self.search_error = _error_label()
        form.addRow(self.search_error)
        self.semantic.toggled.connect(self.model.setEnabled)
        self.semantic.toggled.connect(browse.setEnabled)
        self.semantic.toggled.connect(self.validate)
        self.model.textChanged.connect(self.validate)
        self.weight.valueChanged.connect(self.validate)
        return box

    def _storage_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Files")
        form = QtWidgets.QFormLayout(box)
        form.setFieldGrowthPolicy(_GROW)
        self.backups = QtWidgets.QSpinBox()
        self.backups.setRange(1, 1000)
        self.backups.setToolTip("Earlier versions kept of each file, in .vault/backups")
        self.max_file = QtWidgets.QDoubleSpinBox()
        self.max_file.setRange(0.1, 4096.0)
        self.max_file.setDecimals(1)
        self.max_file.setSuffix(" MB")
        self.max_file.setToolTip("Larger files are reported, never loaded or overwritten")
        self.lock_wait = QtWidgets.QDoubleSpinBox()
        self.lock_wait.setRange(1.0, 3600.0)
        self.lock_wait.setDecimals(0)
        self.lock_wait.setSuffix(" s")
        self.lock_wait.setToolTip("How long a save waits for a file another program is writing")
        form.addRow("&Backups kept per file:", self.backups)
        form.addRow("&Largest file read:", self.max_file)
        form.addRow("Wait for a b&usy file:", self.lock_wait)
        for spin in (self.backups, self.max_file, self.lock_wait):
            spin.valueChanged.connect(self.validate)
        self.storage_error = _error_label()
        form.addRow(self.storage_error)
        return box

    def _add_level(self) -> None:
        last = self.levels[-1].value() if self.levels else (0, 7, 30)
        row = self._append_level_row()
        row.accesses.setValue(last[0] + 10)
        row.hot.setValue(last[1])
        row.warm.setValue(last[2])
        self.validate()

    def _remove_level(self) -> None:
        if len(self.levels) > 1:
            row = self.levels.pop()
            for widget in row.widgets():
                self.levels_grid.removeWidget(widget)
                widget.deleteLater()
            self.validate()

    def _append_level_row(self) -> _LevelRow:
        row = _LevelRow(first=not self.levels)
        self.levels.append(row)
        for column, widget in enumerate(row.widgets()):
            self.levels_grid.addWidget(widget, len(self.levels), column)
            widget.valueChanged.connect(self.validate)
        return row

    def _browse_model(self) -> None:
        folder = QtWidgets.QFileDialog.getExistingDirectory(
            self, "Choose a sentence-transformers model folder", self.model.text()
        )
        if folder:
            self.model.setText(folder)

    # -- the App tab ----------------------------------------------------------------------

    def _app_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(page)
        look = QtWidgets.QGroupBox("Appearance")
        form = QtWidgets.QFormLayout(look)
        form.setFieldGrowthPolicy(_GROW)
        self.theme = QtWidgets.QComboBox()
        for name in themes.THEMES:
            self.theme.addItem(themes.THEME_TITLES[name], name)
        self.theme.setToolTip("Light, dark, or whatever the system uses")
        form.addRow("T&heme:", self.theme)
        access = QtWidgets.QGroupBox("Access")
        access_layout = QtWidgets.QVBoxLayout(access)
        self.browsing = QtWidgets.QCheckBox("Opening a fact here counts as an &access")
        self.browsing.setToolTip(
            "When ticked, facts you open in this window get accessCount + 1 and "
            "lastAccessed = now, as when an agent retrieves them"
        )
        access_layout.addWidget(self.browsing)
        access_layout.addWidget(
            _note(
                "Agents keep facts hot by using them. By default, browsing here does not "
                "change a fact, so looking around does not disturb the tiers."
            )
        )
        device = QtWidgets.QGroupBox("This device")
        device_layout = QtWidgets.QVBoxLayout(device)
        self.run_heartbeat = QtWidgets.QCheckBox(
            "Run the &heartbeat and the synthesis here when nothing else does"
        )
        self.run_heartbeat.setToolTip("Takes effect when the app next starts")
        device_layout.addWidget(self.run_heartbeat)
        device_layout.addWidget(
            _note(
                "With the vault on several devices (Syncthing, git), leave this on for one "
                "of them only (the server): each device's heartbeat would turn the same "
                "daily notes into facts."
            )
        )
        layout.addWidget(look)
        layout.addWidget(access)
        layout.addWidget(device)
        layout.addWidget(_note("These settings belong to this computer, not to the vault."))
        layout.addStretch()
        return page

    # -- form <-> settings ----------------------------------------------------------------

    def set_vault_form(self, settings: config.VaultConfig) -> None:
        while len(self.levels) > 1:
            self._remove_level()
        for number, level in enumerate(settings.decay.levels):
            row = self.levels[number] if number < len(self.levels) else self._append_level_row()
            row.set_value(level)
        self.weekday.setCurrentIndex(WEEKDAYS.index(settings.synthesis.weekday))
        self.time.setTime(QtCore.QTime.fromString(settings.synthesis.time, "HH:mm"))
        self.semantic.setChecked(settings.search.semantic)
        self.model.setText(settings.search.model or "")
        self.model.setEnabled(settings.search.semantic)
        self.weight.setValue(settings.search.bm25_weight)
        self.backups.setValue(settings.storage.backups_per_file)
        self.max_file.setValue(settings.storage.max_file_mb)
        self.lock_wait.setValue(settings.storage.lock_timeout_s)
        self.validate()

    def set_app_form(self, settings: AppSettings) -> None:
        self.theme.setCurrentIndex(themes.THEMES.index(settings.theme))
        self.browsing.setChecked(settings.browsing_counts_as_access)
        self.run_heartbeat.setChecked(settings.run_heartbeat)

    def app_settings(self) -> AppSettings:
        return AppSettings(
            theme=self.theme.currentData(),
            browsing_counts_as_access=self.browsing.isChecked(),
            run_heartbeat=self.run_heartbeat.isChecked(),
        )

    def vault_settings(self) -> config.VaultConfig | None:
        """The form as validated settings; None (with the problems shown) if it is wrong."""
        levels = [row.value() for row in self.levels]
        problems = decay_problems(levels)
        self._show(self.decay_error, problems)
        data = {
            "decay": {
                "levels": [{"min_access": a, "hot_days": h, "warm_days": w} for a, h, w in levels]
            },
            "synthesis": {
                "weekday": self.weekday.currentData(),
                "time": self.time.time().toString("HH:mm"),
            },
            "search": {
                "semantic": self.semantic.isChecked(),
                "model": self.model.text().strip() or None,
                "bm25_weight": round(self.weight.value(), 4),
            },
            "storage": {
                "backups_per_file": self.backups.value(),
                "max_file_mb": self.max_file.value(),
                "lock_timeout_s": self.lock_wait.value(),
            },
        }
        shown = self.session.vault.config  # what the form does not edit is kept as it is
        data.update({name: getattr(shown, name).model_dump() for name in _KEPT_TABLES})
        try:
            settings = config.VaultConfig.model_validate(data)
        except ValidationError as exc:
            self._show_validation(exc, already=bool(problems))
            return None
        for label in (self.search_error, self.storage_error):
            self._show(label, [])
        return None if problems else settings

    def _show_validation(self, exc: ValidationError, *, already: bool) -> None:
        by_group: dict[str, list[str]] = {"decay": [], "search": [], "storage": []}
        for error in exc.errors():
            where = [str(part) for part in error["loc"]]
            group = where[0] if where and where[0] in by_group else "storage"
            by_group[group].append(f"{' '.join(where[1:]) or where[0]}: {error['msg']}")
        if not already:
            self._show(self.decay_error, by_group["decay"])
        self._show(self.search_error, by_group["search"])
        self._show(self.storage_error, by_group["storage"])

    @staticmethod
    def _show(label: QtWidgets.QLabel, problems: list[str]) -> None:
        label.setText("\n".join(problems))
        label.setVisible(bool(problems))

    def validate(self) -> bool:
        ok = self.vault_settings() is not None
        self.remove_level.setEnabled(len(self.levels) > 1)
        self.add_level.setEnabled(len(self.levels) < MAX_LEVELS)
        self.ok_button.setEnabled(ok)
        icon = QtWidgets.QStyle.StandardPixmap.SP_MessageBoxWarning
        self.tabs.setTabIcon(0, QtGui.QIcon() if ok else self.style().standardIcon(icon))
        self.tabs.setTabToolTip(0, "" if ok else "Some vault settings need fixing before OK")
        return ok

    def find_setting(self, query: str) -> int:
        """Keep the groups whose titles, labels, choices and tips hold every word of
        `query` (any case); show the first tab with one. The number of groups kept."""
        words = query.casefold().split()
        kept, first_tab = 0, -1
        for tab in range(self.tabs.count()):
            page = self.tabs.widget(tab)
            for box in page.findChildren(QtWidgets.QGroupBox) if page is not None else []:
                said = " ".join(_words_of(box)).casefold().replace("&", "")
                keep = all(word in said for word in words)
                box.setVisible(keep)
                kept += keep
                if keep and first_tab < 0:
                    first_tab = tab
        if words and first_tab >= 0:
            self.tabs.setCurrentIndex(first_tab)
        return kept

    def restore_defaults(self) -> None:
        """Reset the tab shown (nothing is saved before OK)."""
        if self.tabs.currentIndex() == 0:
            self.set_vault_form(config.VaultConfig())
        else:
            self.set_app_form(AppSettings())

    # -- OK -------------------------------------------------------------------------------

    def accept(self) -> None:
        settings = self.vault_settings()
        if settings is None:
            self.tabs.setCurrentIndex(0)
            return
        before = self.session.vault.config
        replace = self.session.vault.config_error is not None
        if settings == before and not replace:
            self._finish(settings, before)
            return
        self._busy(True)

        def write(target: vault.Vault) -> None:
            settings.save(target.storage, replace=replace)
            target.adopt_config(settings)

        self.session.write(
            write,
            lambda _: self._finish(settings, before),
            self._save_failed,
            rescan=settings.decay != before.decay,
        )

    def _busy(self, busy: bool) -> None:
        self.buttons.setEnabled(not busy)
        self.tabs.setEnabled(not busy)
        if busy:
            self._say("Saving…", error=False)

    def _save_failed(self, exc: BaseException) -> None:
        self._busy(False)
        title, message = describe(exc)
        self._say(f"The settings were not saved. {title}: {message}", error=True)

    def _say(self, text: str, *, error: bool) -> None:
        self.status.setText(text)
        self.status.setProperty("inlineError", error)
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        self.status.show()

    def _finish(self, settings: config.VaultConfig, before: config.VaultConfig) -> None:
        self._update_search(settings.search, before.search)
        chosen = self.app_settings()
        chosen.save(self.store)
        app = QtWidgets.QApplication.instance()
        chosen.apply(self.session, app if isinstance(app, QtWidgets.QApplication) else None)
        self.status.hide()
        self.applied.emit()
        super().accept()

    def _update_search(self, now: config.SearchSettings, before: config.SearchSettings) -> None:
        engine = self.session.engine
        if engine is None or now == before:
            return
        if (now.semantic, now.model) != (before.semantic, before.model):
            self.session.open_search(semantic=now.semantic)
        else:
            engine.bm25_weight = now.bm25_weight
