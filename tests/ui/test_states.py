"""Errors and states a person can act on (issue 16): a corrupt file's banner and its
restore from the backup ring, archived entities, the sidebar while loading, plurals, and
the contrast of every text the themes draw.

Variants thought of: a file corrupted by another program, restored from the newest
version that parses (the entity shows its facts again, the damaged bytes kept in the
ring); a version that does not parse cannot be chosen; "Show in folder" opens the file's
folder (the URL is checked, no file manager launched); an archived entity's Add fact is
disabled and says why, Unarchive moves it back and Ctrl+Z moves it into archives again;
the sidebar before any scan shows "…" rather than zeros; both themes, every text pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from pytestqt.qtbot import QtBot
from window_helpers import scanned, shown_page

from vault_app.core import vault
from vault_app.ui import session, themes
from vault_app.ui.dialogs import restore_dialog, settings
from vault_app.ui.models import sidebar
from vault_app.ui.pages import entity_page

JANE = "areas/people/jane"
FENCE = "projects/fence"


@pytest.fixture
def s(qtbot: QtBot, vault: vault.Vault) -> Iterator[session.Session]:
    vault.create_entity(JANE, "Jane is the plumber.")
    vault.add_fact(JANE, "Jane fixed the leak", "milestone")
    vault.add_fact(JANE, "Jane prefers texts", "preference")
    vault.create_entity(FENCE)
    vault.add_fact(FENCE, "The fence is rebuilt", "milestone")
    vault.archive_entity(FENCE)
    (vault.paths.life_dir / JANE / "items.json").write_text('[{"id": "x"', "utf-8")
    with scanned(qtbot, vault) as live:
        yield live


@pytest.fixture
def view(qtbot: QtBot, s: session.Session) -> entity_page.EntityPage:
    return shown_page(qtbot, s)


def open_entity(qtbot: QtBot, view: entity_page.EntityPage, address: str) -> None:
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.show_entity(address)


def test_a_corrupt_file_is_restored_from_the_backup_ring(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, JANE)
    banner = view.banner
    assert banner.isVisible()
    assert banner.restore_button.isVisible() and banner.folder_button.isVisible()
    path = s.vault.paths.life_dir / JANE / "items.json"
    assert banner.path == path
    assert str(path) in banner.detail.text() and "CorruptFileError" in banner.detail.text()
    flags = banner.detail.textInteractionFlags()
    assert flags & QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
    assert banner.folder_url() == QtCore.QUrl.fromLocalFile(str(path.parent))
    assert banner.folder_url().toLocalFile() == str(path.parent)

    dialog = banner.open_restore()
    assert dialog is not None
    qtbot.waitUntil(lambda: bool(dialog.versions), timeout=10_000)
    assert dialog.list.count() == len(dialog.versions)
    assert dialog.list.item(0).text().startswith("#1 · ")
    assert dialog.list.item(0).text().endswith(" · 2 facts")
    assert "Jane prefers texts" in dialog.preview.toPlainText()
    assert dialog.restore_button.isEnabled()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        dialog.restore_button.click()
    assert not view.banner.isVisible()
    assert sorted(f.fact for f in view.model.facts()) == [
        "Jane fixed the leak",
        "Jane prefers texts",
    ]
    kept = s.vault.backup_versions(path)
    assert any(k.preview.startswith('[{"id": "x"') for k in kept)  # the damaged one kept


def test_a_version_that_does_not_parse_cannot_be_chosen(qtbot: QtBot, s: session.Session) -> None:
    path = s.vault.paths.life_dir / JANE / "items.json"
    ring = s.vault.storage.backup_dir(path)
    from vault_app.core import storage

    (ring / f"{99999999999999999999:020d}-{storage.sha256(b'[{')[:12]}").write_bytes(b"[{")
    dialog = restore_dialog.RestoreDialog(s, path)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: bool(dialog.versions), timeout=10_000)
    assert "cannot be restored" in dialog.list.item(0).text()
    assert dialog.list.currentRow() == 1  # the newest that parses is offered first
    dialog.list.setCurrentRow(0)
    assert not dialog.restore_button.isEnabled()
    assert "does not parse" in dialog.problem.text()


def test_an_archived_entity_is_unarchived_and_takes_no_new_facts(
    qtbot: QtBot, s: session.Session, view: entity_page.EntityPage
) -> None:
    open_entity(qtbot, view, "archives/fence")
    assert not view.add_action.isEnabled()
    assert "archived: it takes no new facts" in view.add_action.toolTip()
    assert view.unarchive_button.isVisible() and not view.archive_button.isVisible()
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.unarchive_action.trigger()
    assert view.address == FENCE
    assert view.add_action.isEnabled() and view.archive_button.isVisible()
    assert s.vault.paths.entity_dir(s.vault.entity(FENCE).ref).is_dir()
    s.undo_stack.undo()  # back into archives
    qtbot.waitUntil(lambda: (s.vault.paths.life_dir / "archives/fence").is_dir(), timeout=10_000)
    assert not (s.vault.paths.life_dir / FENCE).exists()


def test_the_sidebar_says_it_is_loading_instead_of_zeros(s: session.Session) -> None:
    model = sidebar.SidebarModel()
    assert model.index(0, 1).data() == sidebar.LOADING  # Global, seen when collapsed
    principles = model.index(model.rowCount() - 1, 1)
    assert principles.data() is None  # a row that never shows counts
    projects = model.index(0, 1, model.index(0, 0))  # Global › Projects, Active
    assert projects.data() == sidebar.LOADING
    assert projects.data(QtCore.Qt.ItemDataRole.ToolTipRole) == "Counting the facts…"
    assert s.scan is not None
    model.update(s.scan)
    assert not model.loading
    assert model.index(0, 1, model.index(0, 0)).data() == 0


def test_counts_are_said_with_the_right_plural() -> None:
    assert session.unreadable(1) == "1 file could not be read"
    assert session.unreadable(2) == "2 files could not be read"
    assert session.plural(1, "entry", "entries") == "1 entry"
    assert session.plural(1_200, "entry", "entries") == "1,200 entries"


@pytest.mark.parametrize("name", ["light", "dark"])
def test_every_text_of_both_themes_reaches_4_5_to_1(name: str) -> None:
    palette = themes.palette_for(name)
    low = [
        (what, round(themes.contrast(fg, bg), 2))
        for what, fg, bg in themes.text_pairs(palette)
        if themes.contrast(fg, bg) < 4.5
    ]
    assert not low
    assert len(themes.text_pairs(palette)) >= 45  # palette roles, our colours, tiers, badges
    window = palette.color(QtGui.QPalette.ColorRole.Window)
    assert themes.contrast(themes.checkbox_outline(palette), window) >= 3  # WCAG 1.4.11


def test_tier_toggles_and_check_boxes_show_their_state_in_dark(
    qtbot: QtBot, qapp: QtWidgets.QApplication
) -> None:
    style, palette, sheet = qapp.style().name(), QtGui.QPalette(qapp.palette()), qapp.styleSheet()
    try:
        themes.apply_theme(qapp, "dark")
        row = QtWidgets.QWidget()
        qtbot.addWidget(row)
        box = QtWidgets.QHBoxLayout(row)
        on, off = QtWidgets.QToolButton(), QtWidgets.QToolButton()
        for button, state in ((on, True), (off, False)):
            button.setText("Hot")
            button.setCheckable(True)
            button.setChecked(state)
            button.setProperty("toggle", True)
            box.addWidget(button)
        check = QtWidgets.QCheckBox("Show superseded")
        box.addWidget(check)
        row.show()
        qtbot.waitExposed(row)
        image = row.grab().toImage()

        def centre(widget: QtWidgets.QWidget) -> QtGui.QColor:
            return image.pixelColor(widget.geometry().topLeft() + QtCore.QPoint(3, 3))

        window = qapp.palette().color(QtGui.QPalette.ColorRole.Window)
        assert themes.contrast(centre(on), centre(off)) >= 3  # on is filled, off is not
        indicator = check.style().subElementRect(
            QtWidgets.QStyle.SubElement.SE_CheckBoxIndicator, _option(check), check
        )
        edge = image.pixelColor(
            check.geometry().topLeft() + indicator.topLeft() + QtCore.QPoint(0, 4)
        )
        assert themes.contrast(edge, window) >= 2.5  # the outline stands out from the window
    finally:
        themes.apply_theme(qapp, "system")
        qapp.setStyle(style)
        qapp.setPalette(palette)
        qapp.setStyleSheet(sheet)


def test_the_system_theme_styles_the_toggles_from_the_first_paint(
    qapp: QtWidgets.QApplication,
) -> None:
    """At launch the saved theme is applied even when it is "system" (the default): the
    tier toggles were grey until a theme change put the style sheet in."""
    style, palette, sheet = qapp.style().name(), QtGui.QPalette(qapp.palette()), qapp.styleSheet()
    applied = themes.applied_theme(qapp)
    try:
        qapp.setProperty(themes._THEME_PROPERTY, None)  # a fresh application
        qapp.setStyleSheet("")
        settings.AppSettings().apply(None, qapp)  # what `app.main` does first
        assert themes.applied_theme(qapp) == "system"
        assert 'QToolButton[toggle="true"]:checked' in qapp.styleSheet()
    finally:
        qapp.setStyle(style)
        qapp.setPalette(palette)
        qapp.setStyleSheet(sheet)
        qapp.setProperty(themes._THEME_PROPERTY, applied)


def _option(check: QtWidgets.QCheckBox) -> QtWidgets.QStyleOptionButton:
    option = QtWidgets.QStyleOptionButton()
    option.initFrom(check)
    return option


def test_folder_url_of_a_file_and_of_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "a.json"
    file.write_text("[]")
    assert restore_dialog.folder_url(file) == QtCore.QUrl.fromLocalFile(str(tmp_path))
    assert restore_dialog.folder_url(tmp_path) == QtCore.QUrl.fromLocalFile(str(tmp_path))
