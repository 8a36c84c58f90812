"""The scroll area the window's pages sit in: a page never widens (or heightens) the window.

The search dock takes room beside the pages; a page whose minimum is wider than what is
left would make Qt grow the window (1280 → 1517 px, never shrinking back). In a scroll
area the page scrolls instead, and the stack asks only for the room of the page shown
(the hidden ones are sized Ignored), so the scroll bars appear only when that page
truly does not fit.

A page taller than the room left scrolls as a whole (the dashboard at 720 px: its chart
keeps every row). The stack is held by `_Holder`, a widget without a layout: a scroll
area asks a layout for its height for the width, and a stack's layout answers with the
tallest of *all* its pages, so every page would scroll as soon as one is tall. The
holder answers for the page shown only: its height for the width (wrapped labels need
more lines when narrow), else its minimum.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets


class _Holder(QtWidgets.QWidget):
    """Holds the stack at its own size; asks only the page shown for room."""

    def __init__(self, stack: QtWidgets.QStackedWidget) -> None:
        super().__init__()
        self.stack = stack
        stack.setParent(self)

    def sizeHint(self) -> QtCore.QSize:
        return self.stack.sizeHint()

    def minimumSizeHint(self) -> QtCore.QSize:
        hint = self.stack.minimumSizeHint()
        page = self.stack.currentWidget()
        if page is not None and page.hasHeightForWidth():
            hint.setHeight(max(hint.height(), page.heightForWidth(self.width())))
        return hint

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self.stack.setGeometry(self.rect())
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the height a page needs depends on its width

    def event(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.LayoutRequest:
            self.updateGeometry()  # the page's needs changed: the scroll area asks again
            viewport = self.parentWidget()
            area = viewport.parentWidget() if viewport is not None else None
            if isinstance(area, QtWidgets.QScrollArea):
                request = QtCore.QEvent(QtCore.QEvent.Type.LayoutRequest)
                QtWidgets.QApplication.postEvent(area, request)
        return super().event(event)


def scrolling(stack: QtWidgets.QStackedWidget) -> QtWidgets.QScrollArea:
    """`stack` in a frameless scroll area, sized by the page shown."""
    area = QtWidgets.QScrollArea()
    area.setObjectName("pagesScroll")
    area.setWidget(_Holder(stack))
    area.setWidgetResizable(True)
    area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    stack.currentChanged.connect(lambda _n: size_by_current_page(stack))
    return area


def size_by_current_page(stack: QtWidgets.QStackedWidget) -> None:
    """The stack asks for the room of the page shown, not of the widest page."""
    Policy = QtWidgets.QSizePolicy.Policy
    current = stack.currentWidget()
    for number in range(stack.count()):
        page = stack.widget(number)
        if page is not None:
            policy = Policy.Preferred if page is current else Policy.Ignored
            page.setSizePolicy(policy, policy)
    stack.updateGeometry()
