#!/usr/bin/env bash
# Put vault-app.app into a compressed disk image: OUT_DIR/vault-app-<version>.dmg.
#
#   packaging/macos/make-dmg.sh [APP [OUT_DIR]]     (default: dist/vault-app.app dist)
#
# The version is read from the app's Info.plist (CFBundleShortVersionString, which the
# PyInstaller spec sets from vault_app.__version__): the script has none of its own. The
# image holds the app and a link to /Applications, so that installing is one drag.
# macOS only (hdiutil, PlistBuddy); run by .github/workflows/installers.yml on its macOS
# runner, never tested on this project's machine (Linux).
set -euo pipefail

APP="${1:-dist/vault-app.app}"
OUT_DIR="${2:-dist}"

die() { echo "make-dmg: $*" >&2; exit 1; }

[ "$(uname -s)" = Darwin ] || die "hdiutil is macOS's: run this on a Mac"
[ -d "$APP/Contents/MacOS" ] || die "$APP is not an .app bundle (build it first: python packaging/build.py)"
PLIST="$APP/Contents/Info.plist"
VERSION="$(/usr/libexec/PlistBuddy -c 'Print :CFBundleShortVersionString' "$PLIST")" \
  || die "no CFBundleShortVersionString in $PLIST"
[ -n "$VERSION" ] || die "an empty version in $PLIST"

DMG="$OUT_DIR/vault-app-$VERSION.dmg"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT

ditto "$APP" "$STAGE/vault-app.app"  # keeps the bundle's symlinks, modes and signatures
ln -s /Applications "$STAGE/Applications"
mkdir -p "$OUT_DIR"
rm -f "$DMG"
hdiutil create -volname "vault-app $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO \
  -imagekey zlib-level=9 "$DMG" >/dev/null
hdiutil verify "$DMG" >/dev/null
echo "$DMG"
