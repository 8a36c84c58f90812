"""What the keyboard does the same way everywhere in the app, in one place (issue 30).

Design
------
Two rules hold for every list, table and tree of every window, made now or later:

- **Tab moves between widgets, arrows move inside a view.** Qt's item views take Tab for
  cell-to-cell moves by default (`tabKeyNavigation`), which traps the focus in a table:
  Tab and Shift+Tab walk its cells and wrap for ever, and the buttons under it (Revert,
  Approve, Reject, the reason box) cannot be reached. Every view that takes the focus
  has it turned off.
- **Entering a view from the keyboard selects its current row, else its first**, so the
  commands of a selection (F2 on a fact, Revert on a write, Approve on a proposal) are
  ready as soon as the focus is there. A click selects what it clicks instead: the
  row is chosen once the event that moved the focus is done, and only if nothing is
  selected by then. Popups (a completer's list, a combo box's) are never touched.

Both hang on the application's `focusChanged` signal, connected once by `install` (each
window calls it): no per-view code, no event filter on every event, and a view added by
any page later is covered the first time it takes the focus.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

_INSTALLED = "vaultAppKeyboard"  # a dynamic property on the application: installed once


def install() -> None:
    """Apply the rules above to every window of the running application (idempotent)."""
    app = QtWidgets.QApplication.instance()
    if not isinstance(app, QtWidgets.QApplication) or app.property(_INSTALLED):
        return
    app.setProperty(_INSTALLED, True)
    app.focusChanged.connect(focused)


def focused(_old: QtWidgets.QWidget | None, new: QtWidgets.QWidget | None) -> None:
    """The focus moved to `new`: a view there follows the rules above."""
    if not isinstance(new, QtWidgets.QAbstractItemView) or isinstance(new, QtWidgets.QHeaderView):
        return
    if new.window().windowType() == QtCore.Qt.WindowType.Popup:
        return  # a completer's or a combo box's list: its owner decides
    new.setTabKeyNavigation(False)
    # after the event that moved the focus: a click has selected what it clicked by then
    QtCore.QTimer.singleShot(0, new, lambda: enter(new) if new.hasFocus() else None)


def enter(view: QtWidgets.QAbstractItemView) -> None:
    """Select the view's current row, else its first, unless a row is selected already."""
    model, selection = view.model(), view.selectionModel()
    if model is None or selection is None or selection.hasSelection():
        return
    current = view.currentIndex()
    if not current.isValid():
        root = view.rootIndex()
        if model.rowCount(root) == 0:
            return
        current = model.index(0, 0, root)
    view.setCurrentIndex(current)
    if view.selectionMode() == QtWidgets.QAbstractItemView.SelectionMode.NoSelection:
        return
    flags = QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
    if view.selectionBehavior() == QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows:
        flags |= QtCore.QItemSelectionModel.SelectionFlag.Rows
    selection.select(current, flags)
