"""Light and dark themes: Fusion palettes with one accent colour, and readable tier colours.

Design
------
`apply_theme(app, name)` sets the whole application's look in one call:

* "light" and "dark" use the Fusion style (the same on every platform) with a palette of
  our own: calm greys, body text well above WCAG AA contrast on its background, and one
  blue accent for selection, focus and links (the `Accent` and `Highlight` roles).
* "system" gives back the platform's own style and palette (remembered from the first
  call, as properties of the application object, so nothing global lives in this module).

A short stylesheet styles only the few custom bits, selected by dynamic properties:
`inlineError` labels (validation messages), `notice` labels (muted hints) and `banner`
frames (a warning strip at the top of a dialog). Widgets set the property; the theme
decides the colour, so every widget follows a theme change.

The tier colours (hot #c8400c, warm #e8a200, cold #3f73aa) are fills, readable with
`text_on(colour)` on top; for tier-coloured *text* use `tier_text_colour(tier, palette)`,
which takes lighter shades on a dark background.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from vault_app.core import models

THEMES = ("system", "light", "dark")
THEME_TITLES = {"system": "Same as the system", "light": "Light", "dark": "Dark"}

TIER_COLOURS = {
    models.DecayTier.HOT: QtGui.QColor("#c8400c"),
    models.DecayTier.WARM: QtGui.QColor("#e8a200"),
    models.DecayTier.COLD: QtGui.QColor("#3f73aa"),
}
SUPERSEDED_COLOUR = QtGui.QColor("#868e96")
_TIER_TEXT_ON_DARK = {
    models.DecayTier.HOT: QtGui.QColor("#ff8a50"),
    models.DecayTier.WARM: QtGui.QColor("#ffc629"),
    models.DecayTier.COLD: QtGui.QColor("#82b4ea"),
}
_TIER_TEXT_ON_LIGHT = {
    models.DecayTier.HOT: QtGui.QColor("#c2410c"),
    models.DecayTier.WARM: QtGui.QColor("#8a5a00"),
    models.DecayTier.COLD: QtGui.QColor("#2f649c"),
}

_THEME_PROPERTY = "vault_app_theme"
_SYSTEM_STYLE_PROPERTY = "vault_app_system_style"

Role = QtGui.QPalette.ColorRole
Group = QtGui.QPalette.ColorGroup

_LIGHT = {
    Role.Window: "#f3f4f6",
    Role.WindowText: "#1f2328",
    Role.Base: "#ffffff",
    Role.AlternateBase: "#f5f7f9",
    Role.ToolTipBase: "#fffbe6",
    Role.ToolTipText: "#1f2328",
    Role.PlaceholderText: "#59636e",
    Role.Text: "#1f2328",
    Role.Button: "#e8eaed",
    Role.ButtonText: "#1f2328",
    Role.BrightText: "#c92a2a",
    Role.Light: "#ffffff",
    Role.Midlight: "#eceef1",
    Role.Mid: "#c3c8cf",
    Role.Dark: "#9aa1ab",
    Role.Shadow: "#6e7781",
    Role.Highlight: "#2f6fd1",
    Role.HighlightedText: "#ffffff",
    Role.Accent: "#2f6fd1",
    Role.Link: "#0b5cd5",
    Role.LinkVisited: "#7048e8",
}
_LIGHT_DISABLED = {
    Role.WindowText: "#8c959f",
    Role.Text: "#8c959f",
    Role.ButtonText: "#8c959f",
    Role.Highlight: "#b8c4d6",
    Role.Base: "#f3f4f6",
}

_DARK = {
    Role.Window: "#323439",
    Role.WindowText: "#e3e5e8",
    Role.Base: "#1e1f22",
    Role.AlternateBase: "#26282c",
    Role.ToolTipBase: "#3b3e44",
    Role.ToolTipText: "#e3e5e8",
    Role.PlaceholderText: "#a9afb7",
    Role.Text: "#e3e5e8",
    Role.Button: "#3d4047",
    Role.ButtonText: "#e3e5e8",
    Role.BrightText: "#ffa0a0",
    Role.Light: "#4a4d54",
    Role.Midlight: "#45484f",
    Role.Mid: "#5c5f67",
    Role.Dark: "#1a1b1e",
    Role.Shadow: "#111214",
    Role.Highlight: "#2f6bcf",
    Role.HighlightedText: "#ffffff",
    Role.Accent: "#4c8bf0",
    Role.Link: "#7cacf8",
    Role.LinkVisited: "#bba6fd",
}
_DARK_DISABLED = {
    Role.WindowText: "#7c8189",
    Role.Text: "#7c8189",
    Role.ButtonText: "#7c8189",
    Role.Highlight: "#3a4150",
    Role.Base: "#25262a",
}


def palette_for(name: str) -> QtGui.QPalette:
    """The Fusion palette of the "light" or "dark" theme."""
    if name not in ("light", "dark"):
        raise ValueError(f"no palette for theme {name!r}: use 'light' or 'dark'")
    colours, disabled = (_LIGHT, _LIGHT_DISABLED) if name == "light" else (_DARK, _DARK_DISABLED)
    palette = QtGui.QPalette()
    for role, colour in colours.items():
        palette.setColor(Group.All, role, QtGui.QColor(colour))
    for role, colour in disabled.items():
        palette.setColor(Group.Disabled, role, QtGui.QColor(colour))
    return palette


def apply_theme(app: QtWidgets.QApplication, name: str) -> None:
    """Switch the whole application to the "system", "light" or "dark" theme."""
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}: use one of {', '.join(THEMES)}")
    system_style = app.property(_SYSTEM_STYLE_PROPERTY)
    if not system_style:  # first call: remember the platform's style (a style sheet hides it)
        sheet = app.styleSheet()
        app.setStyleSheet("")
        system_style = app.style().name()
        app.setStyleSheet(sheet)
        app.setProperty(_SYSTEM_STYLE_PROPERTY, system_style)
    hints = app.styleHints()
    if name == "system":
        app.setStyle(QtWidgets.QStyleFactory.create(system_style) or "Fusion")
        hints.unsetColorScheme()
        app.setPalette(QtGui.QPalette())  # an empty palette resolves to the platform's
    else:
        app.setStyle(ThemeStyle("Fusion"))
        scheme = QtCore.Qt.ColorScheme.Light if name == "light" else QtCore.Qt.ColorScheme.Dark
        hints.setColorScheme(scheme)
        app.setPalette(palette_for(name))
    app.setProperty(_THEME_PROPERTY, name)
    app.setStyleSheet(stylesheet(app.palette()))


def applied_theme(app: QtCore.QCoreApplication | None = None) -> str | None:
    """The theme `apply_theme` last applied; None before the first (the app then has no
    style sheet yet: the "system" theme too must be applied once, from the first paint)."""
    target = app or QtCore.QCoreApplication.instance()
    name = target.property(_THEME_PROPERTY) if target is not None else None
    return name if name in THEMES else None


def current_theme(app: QtCore.QCoreApplication | None = None) -> str:
    """The theme last applied ("system" when none was)."""
    target = app or QtCore.QCoreApplication.instance()
    name = target.property(_THEME_PROPERTY) if target is not None else None
    return name if name in THEMES else "system"


def is_dark(palette: QtGui.QPalette) -> bool:
    """Whether the palette draws light text on a dark window."""
    return palette.color(Role.Window).lightnessF() < 0.5


def error_colour(palette: QtGui.QPalette) -> QtGui.QColor:
    return QtGui.QColor("#ffa0a0" if is_dark(palette) else "#c92a2a")


def warning_background(palette: QtGui.QPalette) -> QtGui.QColor:
    return QtGui.QColor("#4a3b12" if is_dark(palette) else "#fff3bf")


def notice_background(palette: QtGui.QPalette) -> QtGui.QColor:
    """The message bar's ground for a notice (something done), not a warning."""
    return QtGui.QColor("#16324a" if is_dark(palette) else "#e7f5ff")


def tier_colour(tier: models.DecayTier | str) -> QtGui.QColor:
    """The fill colour of a tier (the same in both themes)."""
    return QtGui.QColor(TIER_COLOURS[models.DecayTier(tier)])


def tier_text_colour(tier: models.DecayTier | str, palette: QtGui.QPalette) -> QtGui.QColor:
    """A tier's colour for text on the palette's base: darker on light, lighter on dark."""
    shades = _TIER_TEXT_ON_DARK if is_dark(palette) else _TIER_TEXT_ON_LIGHT
    return QtGui.QColor(shades[models.DecayTier(tier)])


def text_on(background: QtGui.QColor) -> QtGui.QColor:
    """Near-black or white, whichever has the higher contrast on `background`."""
    dark, light = QtGui.QColor("#1a1a1a"), QtGui.QColor("#ffffff")
    return dark if contrast(dark, background) >= contrast(light, background) else light


def luminance(colour: QtGui.QColor) -> float:
    """WCAG relative luminance, 0 (black) to 1 (white)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast(a: QtGui.QColor, b: QtGui.QColor) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def muted_text(palette: QtGui.QPalette) -> QtGui.QColor:
    """Text that is shown but counts less (archived rows, superseded facts, hints): the
    placeholder colour, which keeps 4.5:1 on every background of both themes."""
    return palette.color(Group.Active, Role.PlaceholderText)


def text_pairs(palette: QtGui.QPalette) -> list[tuple[str, QtGui.QColor, QtGui.QColor]]:
    """Every (what, text colour, background) pair the theme draws text with: the palette's
    text roles on the backgrounds they appear on, and the colours of our own (errors,
    hints, tiers, badges, banners). Disabled controls are left out, as WCAG exempts them
    (1.4.3, "incidental": inactive user-interface components)."""
    c = palette.color
    grounds = {
        "window": c(Role.Window),
        "base": c(Role.Base),
        "alternate base": c(Role.AlternateBase),
        "button": c(Role.Button),
        "warning banner": warning_background(palette),
        "notice banner": notice_background(palette),
    }
    pairs = [
        ("window text", c(Role.WindowText), grounds["window"]),
        ("window text", c(Role.WindowText), grounds["warning banner"]),
        ("window text", c(Role.WindowText), grounds["notice banner"]),
        ("text", c(Role.Text), grounds["base"]),
        ("text", c(Role.Text), grounds["alternate base"]),
        ("button text", c(Role.ButtonText), grounds["button"]),
        ("tooltip", c(Role.ToolTipText), c(Role.ToolTipBase)),
        ("selected text", c(Role.HighlightedText), c(Role.Highlight)),
    ]
    for what, colour in (
        ("muted hint", muted_text(palette)),
        ("error", error_colour(palette)),
        ("bright text", c(Role.BrightText)),
        ("link", c(Role.Link)),
        ("visited link", c(Role.LinkVisited)),
    ):
        pairs += [(f"{what} on {name}", colour, ground) for name, ground in grounds.items()]
    for tier in models.DecayTier:
        colour = tier_text_colour(tier, palette)
        for name in ("window", "base", "alternate base"):
            pairs.append((f"{tier.value} text on {name}", colour, grounds[name]))
        pairs.append((f"{tier.value} badge", text_on(tier_colour(tier)), tier_colour(tier)))
    toggle_on, toggle_ground = toggle_colours(palette)
    pairs.append(("tier toggle on", toggle_on, toggle_ground))
    return pairs


def toggle_colours(palette: QtGui.QPalette) -> tuple[QtGui.QColor, QtGui.QColor]:
    """Text and background of a checked toggle button (a tier filter that is on): the
    accent, light enough on dark to stand 3:1 from the window (WCAG 1.4.11)."""
    if is_dark(palette):
        return QtGui.QColor("#1e1f22"), QtGui.QColor("#8ab4f8")
    return QtGui.QColor(palette.color(Role.HighlightedText)), QtGui.QColor(
        palette.color(Role.Highlight)
    )


def stylesheet(palette: QtGui.QPalette) -> str:
    """The few custom bits, by dynamic property, in the palette's colours.

    Toggle buttons (`toggle` property: the tier filters) show their state plainly in both
    themes: on is filled with the accent, off is an outline with muted text (Fusion's own
    sunken look is nearly invisible on the dark palette)."""
    muted = muted_text(palette).name()
    on_text, on_ground = (colour.name() for colour in toggle_colours(palette))
    outline = palette.color(Role.Mid if not is_dark(palette) else Role.Light).name()
    focus = focus_colour(palette).name()  # the views' focus: their frame in the accent
    return f"""
QLabel[inlineError="true"] {{ color: {error_colour(palette).name()}; }}
QLabel[notice="true"] {{ color: {muted}; }}
QFrame[banner="true"] {{
    background: {warning_background(palette).name()};
    border-radius: 4px;
}}
QAbstractItemView:focus, QTextEdit:focus, QPlainTextEdit:focus {{
    border: 2px solid {focus};
}}
QToolButton[toggle="true"] {{
    border: 1px solid {outline};
    border-radius: 4px;
    padding: 2px 6px;
    color: {muted};
}}
QToolButton[toggle="true"]:checked {{
    background: {on_ground};
    border-color: {on_ground};
    color: {on_text};
}}
"""


class ThemeStyle(QtWidgets.QProxyStyle):
    """Fusion, with check boxes outlined in a colour that stands out from the window in
    both themes (Fusion outlines them in a darker shade of the window: invisible on dark),
    and a focus ring you can see (issue 30: Fusion's is a faint 1-px line, and none on a
    text view or a list): 2 px of the accent around whatever holds the keyboard focus —
    a button, a check box, a line edit, a rendered text, a table, a tree, a list."""

    def drawPrimitive(
        self,
        element: QtWidgets.QStyle.PrimitiveElement,
        option: QtWidgets.QStyleOption,
        painter: QtGui.QPainter,
        widget: QtWidgets.QWidget | None = None,
    ) -> None:
        PE = QtWidgets.QStyle.PrimitiveElement
        focused = bool(option.state & QtWidgets.QStyle.StateFlag.State_HasFocus)
        # a cell's focus rectangle is the row's selection: only a control's is the ring
        if element == PE.PE_FrameFocusRect and not isinstance(widget, QtWidgets.QAbstractItemView):
            _ring(painter, option.rect, option.palette, inset=0)
            return
        super().drawPrimitive(element, option, painter, widget)
        if focused and element in (PE.PE_FrameLineEdit, PE.PE_Frame):
            _ring(painter, option.rect, option.palette, inset=1)
        checks = (
            QtWidgets.QStyle.PrimitiveElement.PE_IndicatorCheckBox,
            QtWidgets.QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
        )
        if element in checks and is_dark(option.palette):
            rect = option.rect.adjusted(0, 0, -1, -1)
            painter.save()
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            painter.setPen(QtGui.QPen(checkbox_outline(option.palette), 1.2))
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(QtCore.QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), 2, 2)
            painter.restore()

    def drawControl(
        self,
        element: QtWidgets.QStyle.ControlElement,
        option: QtWidgets.QStyleOption,
        painter: QtGui.QPainter,
        widget: QtWidgets.QWidget | None = None,
    ) -> None:
        super().drawControl(element, option, painter, widget)
        bevel = element == QtWidgets.QStyle.ControlElement.CE_PushButtonBevel
        if bevel and option.state & QtWidgets.QStyle.StateFlag.State_HasFocus:
            _ring(painter, option.rect, option.palette, inset=0)

    def drawComplexControl(
        self,
        control: QtWidgets.QStyle.ComplexControl,
        option: QtWidgets.QStyleOptionComplex,
        painter: QtGui.QPainter,
        widget: QtWidgets.QWidget | None = None,
    ) -> None:
        super().drawComplexControl(control, option, painter, widget)
        tool = control == QtWidgets.QStyle.ComplexControl.CC_ToolButton
        if tool and option.state & QtWidgets.QStyle.StateFlag.State_HasFocus:
            _ring(painter, option.rect, option.palette, inset=0)


def focus_colour(palette: QtGui.QPalette) -> QtGui.QColor:
    """The focus ring: the accent, light enough on dark to stand 3:1 from the window
    (WCAG 1.4.11, as the tier toggles)."""
    return QtGui.QColor("#8ab4f8") if is_dark(palette) else palette.color(Role.Highlight)


def _ring(painter: QtGui.QPainter, rect: QtCore.QRect, palette: QtGui.QPalette, inset: int) -> None:
    painter.save()
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setPen(QtGui.QPen(focus_colour(palette), 2))
    painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(
        QtCore.QRectF(rect).adjusted(inset + 1, inset + 1, -inset - 1, -inset - 1), 3, 3
    )
    painter.restore()


def checkbox_outline(palette: QtGui.QPalette) -> QtGui.QColor:
    """The outline of a check box: at least 3:1 against the window (WCAG 1.4.11)."""
    return QtGui.QColor("#9aa1ab") if is_dark(palette) else QtGui.QColor("#59636e")
