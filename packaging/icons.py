"""The app's icon in every format an installer needs, rendered from the one SVG at build time.

    python packaging/icons.py ico OUT.ico          Windows: a multi-size .ico (PNG entries)
    python packaging/icons.py iconset OUT.iconset  macOS: the folder `iconutil -c icns` reads
    python packaging/icons.py hicolor OUT_DIR      Linux: OUT_DIR/<n>x<n>/apps/vault-app.png
                                                   and OUT_DIR/scalable/apps/vault-app.svg
    python packaging/icons.py bundle WORK_DIR      this platform's: WORK_DIR/icons/vault-app.ico
                                                   (Windows) or .icns (macOS, via iconutil)

The source is `vault_app/resources/icons/vault-app.svg` (the icon the window shows), or
`--svg PATH`. Qt renders it (QSvgRenderer, antialiased, onto a transparent ARGB image at
each size), so the build needs nothing beyond PySide6, which the app depends on anyway:
no ImageMagick, no Pillow. The .ico is written here (an ICONDIR of PNG-compressed entries,
which Windows reads since Vista), because Qt's ICO writer stores one image a file; the
.icns is left to Apple's `iconutil` on the macOS runner, which wants the `.iconset`
folder's exact names (`icon_16x16.png`, `icon_16x16@2x.png`...).

A build tool, not part of the package: `python packaging/icons.py ...` on its own, or
imported by the builders (packaging/build.py, packaging/linux/build_deb.py). Rendering
needs a Qt application: the running one, else one made here (offscreen on Linux, where a
build machine has no display).
"""

from __future__ import annotations

import argparse
import shutil
import struct
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SVG = REPO / "vault_app" / "resources" / "icons" / "vault-app.svg"
NAME = "vault-app"

ICO_SIZES = (16, 20, 24, 32, 40, 48, 64, 128, 256)  # Explorer, taskbar, Start, at 100-250 %
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)  # the freedesktop hicolor sizes
# iconutil's names: icon_<n>x<n>.png and its @2x (twice the pixels) for n in 16..512
ICONSET_POINTS = (16, 32, 128, 256, 512)


def iconset_files() -> dict[str, int]:
    """The files of a macOS .iconset: name -> pixel size."""
    files = {}
    for points in ICONSET_POINTS:
        files[f"icon_{points}x{points}.png"] = points
        files[f"icon_{points}x{points}@2x.png"] = 2 * points
    return files


class IconError(Exception):
    """An icon that cannot be made (the SVG unreadable, an image not written)."""


_app: object = None  # the application made by `qt_app`, kept for the process's life


def qt_app() -> object:
    """The Qt application that fonts and painting need: the running one, else one of ours."""
    global _app
    from PySide6 import QtGui

    running = QtGui.QGuiApplication.instance()
    if running is not None:
        return running
    headless = ["-platform", "offscreen"] if sys.platform.startswith("linux") else []
    _app = QtGui.QGuiApplication(["icons", *headless])
    return _app


def render_png(svg: Path, size: int) -> bytes:
    """The SVG rendered at `size` x `size` pixels, as PNG bytes."""
    from PySide6 import QtCore, QtGui, QtSvg

    qt_app()
    renderer = QtSvg.QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise IconError(f"{svg} is not an SVG Qt can render")
    image = QtGui.QImage(size, size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QtCore.Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(image)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise IconError(f"could not encode the {size} px PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An .ico file holding one PNG entry per size (a byte of 0 stands for 256)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))  # reserved, type 1 = icon, count
    offset = len(header) + 16 * len(pngs)
    entries, blobs = [], []
    for size, png in sorted(pngs.items()):
        if not 1 <= size <= 256:
            raise ValueError(f"an .ico entry is 1 to 256 pixels, not {size}")
        side = size % 256  # 256 is written as 0
        # width, height, palette colours, reserved, colour planes, bits a pixel, size, offset
        entries.append(struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset))
        blobs.append(png)
        offset += len(png)
    return header + b"".join(entries) + b"".join(blobs)


def write_ico(svg: Path, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(ico_bytes({size: render_png(svg, size) for size in ICO_SIZES}))


def write_iconset(svg: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rendered: dict[int, bytes] = {}
    for name, size in iconset_files().items():
        if size not in rendered:
            rendered[size] = render_png(svg, size)
        (out / name).write_bytes(rendered[size])


def write_hicolor(svg: Path, out: Path) -> None:
    for size in HICOLOR_SIZES:
        folder = out / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{NAME}.png").write_bytes(render_png(svg, size))
    scalable = out / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable / f"{NAME}.svg")


WRITERS = {"ico": write_ico, "iconset": write_iconset, "hicolor": write_hicolor}


def bundle_icon(work: Path, platform: str = sys.platform, svg: Path = SVG) -> Path | None:
    """The icon PyInstaller puts in this platform's executable or `.app`, made under
    `work/icons/`: `vault-app.ico` on Windows, `vault-app.icns` on macOS (iconutil from
    the `.iconset`), None elsewhere (Linux desktops read the hicolor theme's PNGs)."""
    folder = work / "icons"
    if platform == "win32":
        write_ico(svg, folder / f"{NAME}.ico")
        return folder / f"{NAME}.ico"
    if platform == "darwin":
        iconset = folder / f"{NAME}.iconset"
        write_iconset(svg, iconset)
        icns = folder / f"{NAME}.icns"
        subprocess.run(["iconutil", "-c", "icns", "-o", str(icns), str(iconset)], check=True)
        return icns
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="icons.py", description=__doc__.splitlines()[0])
    parser.add_argument("format", choices=[*sorted(WRITERS), "bundle"])
    parser.add_argument("out", type=Path, help="the file (ico) or folder (iconset, hicolor)")
    parser.add_argument("--svg", type=Path, default=SVG, help=f"default: {SVG}")
    args = parser.parse_args(argv)
    if not args.svg.is_file():
        parser.error(f"no such SVG: {args.svg}")
    try:
        if args.format == "bundle":
            made = bundle_icon(args.out, svg=args.svg)
        else:
            WRITERS[args.format](args.svg, args.out)
            made = args.out
    except IconError as error:
        print(f"icons: {error}", file=sys.stderr)
        return 1
    if made is not None:
        print(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
