"""The settings dialog (vault settings to config.toml, app settings to QSettings) and themes."""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot

from vault_app.core import config, decay, demo
from vault_app.core import vault as vault_module
from vault_app.ui import session, themes
from vault_app.ui.dialogs import settings

TODAY = dt.date(2026, 7, 15)
NOON = dt.datetime.combine(TODAY, dt.time(12)).astimezone()
Role = QtGui.QPalette.ColorRole


@pytest.fixture
def live(qtbot: QtBot, tmp_path: Path) -> Iterator[session.Session]:
    demo.create_demo(tmp_path / "v", today=TODAY, clock=decay.fixed_clock(NOON))
    s = session.Session(vault_module.Vault(tmp_path / "v", clock=decay.fixed_clock(NOON)))
    yield s
    s.close()


@pytest.fixture
def store(tmp_path: Path) -> QtCore.QSettings:
    return QtCore.QSettings(str(tmp_path / "app.ini"), QtCore.QSettings.Format.IniFormat)


@pytest.fixture(autouse=True)
def restore_look(qapp: QtWidgets.QApplication) -> Iterator[None]:
    """Themes change the whole application: give the next test the look it had."""
    style, palette, sheet = qapp.style().name(), QtGui.QPalette(qapp.palette()), qapp.styleSheet()
    yield
    themes.apply_theme(qapp, "system")
    qapp.setStyle(style)
    qapp.setPalette(palette)
    qapp.setStyleSheet(sheet)


def open_dialog(
    qtbot: QtBot, s: session.Session, store: QtCore.QSettings
) -> settings.SettingsDialog:
    dialog = settings.SettingsDialog(s, store)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def config_file(s: session.Session) -> Path:
    return s.vault.paths.state_dir / config.CONFIG_NAME


def click_ok(qtbot: QtBot, dialog: settings.SettingsDialog) -> None:
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)


def test_the_form_shows_the_vault_settings(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    dialog = open_dialog(qtbot, live, store)
    assert [row.value() for row in dialog.levels] == [(0, 7, 30), (10, 10, 45), (20, 14, 60)]
    assert dialog.weekday.currentData() == "sunday"
    assert dialog.time.time().toString("HH:mm") == "00:00"
    assert dialog.semantic.isChecked() and dialog.weight.value() == pytest.approx(0.2)
    assert dialog.vault_settings() == live.vault.config
    assert [dialog.tabs.tabText(i) for i in range(2)] == ["&Vault", "A&pp"]
    assert not dialog.banner.isVisibleTo(dialog)


def test_ok_saves_the_vault_settings_to_config_toml(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    dialog = open_dialog(qtbot, live, store)
    dialog.levels[0].hot.setValue(5)
    dialog.levels[0].warm.setValue(20)
    qtbot.mouseClick(dialog.add_level, QtCore.Qt.MouseButton.LeftButton)
    dialog.levels[3].hot.setValue(21)
    dialog.levels[3].warm.setValue(90)
    dialog.weekday.setCurrentIndex(dialog.weekday.findData("wednesday"))
    dialog.time.setTime(QtCore.QTime(18, 30))
    dialog.semantic.setChecked(False)
    dialog.model.setText("/models/mini")
    dialog.weight.setValue(0.35)
    dialog.backups.setValue(7)
    with qtbot.waitSignal(live.scanned):  # new thresholds: the tiers are counted again
        click_ok(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result() == QtWidgets.QDialog.DialogCode.Accepted)

    expected = config.VaultConfig(
        decay=decay.DecayPolicy(
            levels=[
                decay.DecayLevel(min_access=0, hot_days=5, warm_days=20),
                decay.DecayLevel(min_access=10, hot_days=10, warm_days=45),
                decay.DecayLevel(min_access=20, hot_days=14, warm_days=60),
                decay.DecayLevel(min_access=30, hot_days=21, warm_days=90),
            ]
        ),
        synthesis=config.SynthesisSettings(weekday="wednesday", time="18:30"),
        search=config.SearchSettings(semantic=False, model="/models/mini", bm25_weight=0.35),
        storage=config.StorageSettings(backups_per_file=7),
        agents=live.vault.config.agents,  # what the form does not show is kept (the demo's)
    )
    assert config.VaultConfig.load(live.vault.root) == expected
    assert live.vault.config == expected  # the open vault uses them at once
    assert live.vault.storage.settings.backups_per_file == 7
    assert live.scan is not None
    fresh = vault_module.Vault(live.vault.root, clock=decay.fixed_clock(NOON))
    assert live.scan.tier_totals() == fresh.scan().tier_totals()
    assert live.vault.storage.backups(config_file(live))  # the old file was kept

    again = open_dialog(qtbot, live, store)
    assert again.vault_settings() == expected
    assert again.levels[3].value() == (30, 21, 90)


def test_a_bad_threshold_is_refused_inline(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    before = config_file(live).read_bytes()
    dialog = open_dialog(qtbot, live, store)
    dialog.levels[1].warm.setValue(5)  # warm shorter than hot, and than the row above
    assert dialog.decay_error.isVisibleTo(dialog)
    assert "Row 2: warm must last at least as long as hot" in dialog.decay_error.text()
    assert "at least as long as in row 1 (7 and 30 days)" in dialog.decay_error.text()
    assert not dialog.ok_button.isEnabled()
    assert not dialog.tabs.tabIcon(0).isNull()  # seen from the App tab too
    dialog.accept()  # even when forced, nothing is written
    live.wait()
    assert dialog.isVisible() and config_file(live).read_bytes() == before

    dialog.levels[1].warm.setValue(45)
    assert not dialog.decay_error.isVisibleTo(dialog) and dialog.ok_button.isEnabled()
    assert dialog.tabs.tabIcon(0).isNull()
    dialog.levels[2].accesses.setValue(5)
    assert "Row 3: give it more accesses than row 2 (more than 10)" in dialog.decay_error.text()
    assert not dialog.ok_button.isEnabled()


def test_cancel_discards(qtbot: QtBot, live: session.Session, store: QtCore.QSettings) -> None:
    before = config_file(live).read_bytes()
    dialog = open_dialog(qtbot, live, store)
    dialog.weekday.setCurrentIndex(dialog.weekday.findData("monday"))
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    qtbot.mouseClick(
        dialog.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Cancel),
        QtCore.Qt.MouseButton.LeftButton,
    )
    live.wait()
    assert dialog.result() == QtWidgets.QDialog.DialogCode.Rejected
    assert config_file(live).read_bytes() == before
    assert live.vault.config.synthesis.weekday == "sunday"
    assert store.value(settings.THEME_KEY) is None
    assert themes.current_theme() != "dark"


def test_restore_defaults_resets_the_tab_shown(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    custom = live.vault.config.model_copy(
        update={
            "synthesis": config.SynthesisSettings(weekday="friday", time="07:15"),
            "search": config.SearchSettings(bm25_weight=0.9),
        }
    )
    custom.save(live.vault.storage)
    live.vault.adopt_config(custom)
    settings.AppSettings(theme="light", browsing_counts_as_access=True).save(store)
    before = config_file(live).read_bytes()
    dialog = open_dialog(qtbot, live, store)
    assert dialog.vault_settings() == custom
    assert dialog.browsing.isChecked()
    defaults = dialog.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.RestoreDefaults)
    qtbot.mouseClick(defaults, QtCore.Qt.MouseButton.LeftButton)
    # the form's defaults; what it does not show (the agents' rights) is left as it is
    assert dialog.vault_settings() == config.VaultConfig(agents=custom.agents)
    assert dialog.browsing.isChecked()  # the App tab was not shown: left alone
    dialog.tabs.setCurrentIndex(1)
    qtbot.mouseClick(defaults, QtCore.Qt.MouseButton.LeftButton)
    assert dialog.app_settings() == settings.AppSettings()
    assert config_file(live).read_bytes() == before  # nothing saved before OK


def test_app_settings_go_to_qsettings_and_take_effect(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings, qapp: QtWidgets.QApplication
) -> None:
    before = config_file(live).read_bytes()
    dialog = open_dialog(qtbot, live, store)
    dialog.tabs.setCurrentIndex(1)
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog.browsing.setChecked(True)
    assert dialog.run_heartbeat.isChecked()  # on by default
    dialog.run_heartbeat.setChecked(False)  # this device leaves the heartbeat to another
    click_ok(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result() == QtWidgets.QDialog.DialogCode.Accepted)
    assert store.value(settings.THEME_KEY) == "dark"
    assert store.value(settings.ACCESS_KEY, type=bool) is True
    assert store.value(settings.HEARTBEAT_KEY, type=bool) is False
    assert settings.AppSettings.load(store) == settings.AppSettings("dark", True, False)
    assert live.count_browsing_as_access is True
    assert themes.current_theme() == "dark"
    assert qapp.palette().color(Role.Window) == themes.palette_for("dark").color(Role.Window)
    assert config_file(live).read_bytes() == before  # vault settings unchanged: not rewritten


def test_an_unusable_config_is_announced_and_replaced(
    qtbot: QtBot, tmp_path: Path, store: QtCore.QSettings
) -> None:
    root = tmp_path / "w"
    vault_module.Vault.create(root)
    (root / ".vault" / "config.toml").write_text("[search]\nbm25_weight = 7\n", encoding="utf-8")
    s = session.Session(vault_module.Vault(root))
    try:
        assert s.vault.config_error is not None
        dialog = open_dialog(qtbot, s, store)
        assert dialog.banner.isVisibleTo(dialog)
        click_ok(qtbot, dialog)
        qtbot.waitUntil(lambda: dialog.result() == QtWidgets.QDialog.DialogCode.Accepted)
        reopened = vault_module.Vault(root)
        assert reopened.config_error is None and reopened.config == config.VaultConfig()
        assert s.vault.config_error is None
    finally:
        s.close()


def test_a_refused_save_is_shown_in_the_dialog(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    config_file(live).write_text("not = [toml", encoding="utf-8")  # changed behind our back
    dialog = open_dialog(qtbot, live, store)
    dialog.weekday.setCurrentIndex(dialog.weekday.findData("monday"))
    click_ok(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.status.text().startswith("The settings were not saved"))
    assert "invalid TOML" in dialog.status.text()
    assert dialog.isVisible() and dialog.ok_button.isEnabled()
    assert config_file(live).read_text(encoding="utf-8") == "not = [toml"


def test_only_the_search_weight_changes_the_open_engine_in_place(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    from vault_app.search import engine as search_engine

    live.engine, _ = search_engine.open_engine(live.vault, semantic=False)
    engine = live.engine
    dialog = open_dialog(qtbot, live, store)
    dialog.weight.setValue(0.6)
    click_ok(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result() == QtWidgets.QDialog.DialogCode.Accepted)
    assert live.engine is engine and engine.bm25_weight == pytest.approx(0.6)
    written = tomllib.loads(config_file(live).read_text(encoding="utf-8"))
    assert written["search"]["bm25_weight"] == pytest.approx(0.6)


# -- themes ------------------------------------------------------------------------------------


def style_name(app: QtWidgets.QApplication) -> str:
    """The style under the application's style sheet (which wraps it)."""
    sheet = app.styleSheet()
    app.setStyleSheet("")
    style = app.style()
    name = style.name()
    if isinstance(style, QtWidgets.QProxyStyle):  # the themes' Fusion (themes.ThemeStyle)
        name = style.baseStyle().name()
    app.setStyleSheet(sheet)
    return name


def test_themes_switch_the_palette(qapp: QtWidgets.QApplication) -> None:
    system_style = style_name(qapp)
    system_window = QtGui.QPalette().color(Role.Window)
    themes.apply_theme(qapp, "dark")
    assert themes.current_theme() == "dark"
    assert style_name(qapp).lower() == "fusion"
    assert themes.is_dark(qapp.palette())
    assert "inlineError" in qapp.styleSheet()
    themes.apply_theme(qapp, "light")
    assert themes.current_theme() == "light" and not themes.is_dark(qapp.palette())
    assert qapp.palette().color(Role.Accent) == QtGui.QColor("#2f6fd1")
    themes.apply_theme(qapp, "system")
    assert themes.current_theme() == "system"
    assert style_name(qapp) == system_style
    assert qapp.palette().color(Role.Window) == system_window
    with pytest.raises(ValueError, match="unknown theme"):
        themes.apply_theme(qapp, "purple")


@pytest.mark.parametrize("name", ["light", "dark"])
def test_palettes_and_tier_colours_are_readable(name: str) -> None:
    palette = themes.palette_for(name)
    for text, back in ((Role.Text, Role.Base), (Role.WindowText, Role.Window)):
        assert themes.contrast(palette.color(text), palette.color(back)) >= 7
    assert (
        themes.contrast(palette.color(Role.HighlightedText), palette.color(Role.Highlight)) >= 4.5
    )
    assert themes.contrast(palette.color(Role.PlaceholderText), palette.color(Role.Base)) >= 4.5
    for tier in ("hot", "warm", "cold"):
        on_base = themes.tier_text_colour(tier, palette)
        assert themes.contrast(on_base, palette.color(Role.Base)) >= 4.5, tier
        fill = themes.tier_colour(tier)
        assert themes.contrast(themes.text_on(fill), fill) >= 4, tier
    assert themes.contrast(themes.error_colour(palette), palette.color(Role.Window)) >= 4.5


def test_a_widget_painted_in_the_dark_theme_is_dark(
    qtbot: QtBot, qapp: QtWidgets.QApplication
) -> None:
    label = QtWidgets.QLabel("Hot")
    qtbot.addWidget(label)
    label.resize(80, 30)
    themes.apply_theme(qapp, "dark")
    dark = label.grab().toImage().pixelColor(2, 2)
    themes.apply_theme(qapp, "light")
    light = label.grab().toImage().pixelColor(2, 2)
    assert dark.lightnessF() < 0.3 < 0.8 < light.lightnessF()


def test_a_setting_is_found_by_its_words(
    qtbot: QtBot, live: session.Session, store: QtCore.QSettings
) -> None:
    """Typing in the box keeps the groups that speak of it, on their tab (issue 30)."""
    dialog = settings.SettingsDialog(live, store)
    qtbot.addWidget(dialog)
    dialog.show()
    boxes = {b.title(): b for b in dialog.findChildren(QtWidgets.QGroupBox)}
    assert dialog.find_setting("theme") == 1
    assert dialog.tabs.currentIndex() == 1 and boxes["Appearance"].isVisibleTo(dialog)
    assert not boxes["Decay"].isVisibleTo(dialog)
    assert dialog.find_setting("BACKUPS kept") == 1 and dialog.tabs.currentIndex() == 0
    assert boxes["Files"].isVisibleTo(dialog) and not boxes["Search"].isVisibleTo(dialog)
    assert dialog.find_setting("no such setting anywhere") == 0
    assert dialog.find_setting("") == len(boxes)  # cleared: everything again
    dialog.reject()
