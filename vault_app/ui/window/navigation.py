"""Back and Forward over the views the user visited, as in a browser.

Design
------
A `Place` is what reopens a view: `("entity", address)`, `("agent", agent, tab)`,
`("daily", scope)`, `("page", name)` for a page with no argument ("dashboard", "review",
"activity", "principles"...). `History` is the plain list with a cursor (no Qt): visiting
a place drops the forward part; visiting the place already current does nothing; it keeps
the last `LIMIT` places.

`Navigator` ties it to the window: the window calls `visit(place)` each time it shows a
view; Back (Alt+Left) and Forward (Alt+Right), and the mouse's back and forward buttons
anywhere in the window, reopen a place through `open_place` without recording it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

Place = tuple[Any, ...]
LIMIT = 200


class History:
    """The places visited and where the user is among them."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.places: list[Place] = []
        self.index = -1
        self.limit = limit

    @property
    def current(self) -> Place | None:
        return self.places[self.index] if self.places else None

    def visit(self, place: Place) -> None:
        if place == self.current:
            return
        del self.places[self.index + 1 :]
        self.places.append(place)
        if len(self.places) > self.limit:
            del self.places[0]
        self.index = len(self.places) - 1

    def recent(self) -> list[Place]:
        """The places visited up to the current one, newest first, each once."""
        seen: list[Place] = []
        for place in reversed(self.places[: self.index + 1]):
            if place not in seen:
                seen.append(place)
        return seen

    def can_back(self) -> bool:
        return self.index > 0

    def can_forward(self) -> bool:
        return self.index < len(self.places) - 1

    def back(self) -> Place | None:
        if not self.can_back():
            return None
        self.index -= 1
        return self.places[self.index]

    def forward(self) -> Place | None:
        if not self.can_forward():
            return None
        self.index += 1
        return self.places[self.index]


class Navigator(QtCore.QObject):
    """The window's history, its Back/Forward actions and the mouse's side buttons."""

    def __init__(self, window: QtWidgets.QWidget, open_place: Callable[[Place], None]) -> None:
        super().__init__(window)
        self.window = window
        self.history = History()
        self._open_place = open_place
        self._replaying = False
        self.back_action: QtGui.QAction | None = None
        self.forward_action: QtGui.QAction | None = None
        app = QtWidgets.QApplication.instance()
        if app is not None:  # the side buttons reach whichever widget is under the mouse
            app.installEventFilter(self)

    def set_actions(self, back: QtGui.QAction, forward: QtGui.QAction) -> None:
        self.back_action, self.forward_action = back, forward
        self._update()

    def visit(self, place: Place) -> None:
        """The window shows `place` (ignored while Back/Forward reopen one)."""
        if not self._replaying:
            self.history.visit(place)
            self._update()

    def recent(self) -> list[Place]:
        return self.history.recent()

    def back(self) -> None:
        self._replay(self.history.back())

    def forward(self) -> None:
        self._replay(self.history.forward())

    def _replay(self, place: Place | None) -> None:
        if place is None:
            return
        self._replaying = True
        try:
            self._open_place(place)
        finally:
            self._replaying = False
        self._update()

    def _update(self) -> None:
        if self.back_action is not None and self.forward_action is not None:
            self.back_action.setEnabled(self.history.can_back())
            self.forward_action.setEnabled(self.history.can_forward())

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.MouseButtonPress and isinstance(
            watched, QtWidgets.QWidget
        ):
            assert isinstance(event, QtGui.QMouseEvent)
            button = event.button()
            Button = QtCore.Qt.MouseButton
            if button in (Button.BackButton, Button.ForwardButton) and (
                watched.window() is self.window
            ):
                self.back() if button == Button.BackButton else self.forward()
                return True
        return super().eventFilter(watched, event)


def focus_first(page: QtWidgets.QWidget) -> None:
    """Give the focus to the first widget of `page`, in tab order, that takes it."""
    widget = page.nextInFocusChain()
    while widget is not None and widget is not page:
        takes = bool(widget.focusPolicy() & QtCore.Qt.FocusPolicy.TabFocus)
        if takes and page.isAncestorOf(widget) and widget.isVisibleTo(page) and widget.isEnabled():
            widget.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
            return
        widget = widget.nextInFocusChain()
