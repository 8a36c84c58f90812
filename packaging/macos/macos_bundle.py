"""What the macOS build adds to the shared PyInstaller spec (packaging/pyinstaller/): the
`.app` bundle's Info.plist.

The spec's BUNDLE step wraps the onedir bundle into `vault-app.app`, with the icon
`vault-app.icns` that the workflow makes at build time (`packaging/icons.py iconset`,
then Apple's `iconutil -c icns`) and `info_plist(version)` below, the version being
`vault_app.__version__`. `make-dmg.sh` beside this file then puts the `.app` into
`vault-app-<version>.dmg`, reading the version back from the Info.plist.

The program inside must be built windowed (`console=False`): PyInstaller marks a console
program's bundle `LSBackgroundOnly`, an app with no Dock icon and no menu bar. Its
stdout still works when it is run from a terminal
(`vault-app.app/Contents/MacOS/vault-app --version`): macOS has no console subsystem.

Used by the spec on macOS only; not tested on this project's machine (Linux), built by
.github/workflows/installers.yml.
"""

from __future__ import annotations

BUNDLE_ID = "org.vault-app.vault-app"
# Qt 6.11 (PySide6 6.11) supports macOS 13 and later (doc.qt.io/qt-6.11/macos.html)
MINIMUM_MACOS = "13.0"


def info_plist(version: str) -> dict[str, object]:
    """The Info.plist keys the spec sets beyond PyInstaller's own (name, executable,
    icon file, package type); `CFBundleIdentifier` and the version are set here too so
    that the whole of it reads in one place."""
    return {
        "CFBundleIdentifier": BUNDLE_ID,
        "CFBundleName": "vault-app",
        "CFBundleDisplayName": "vault-app",
        "CFBundleShortVersionString": version,  # what Finder's Get Info shows
        "CFBundleVersion": version,  # the build number: the same one version
        "LSMinimumSystemVersion": MINIMUM_MACOS,
        "NSHighResolutionCapable": True,  # Retina: Qt renders at the screen's scale
        "LSBackgroundOnly": False,  # a windowed app: Dock icon and menu bar
        "LSApplicationCategoryType": "public.app-category.productivity",
        "NSHumanReadableCopyright": "MIT License",
    }
