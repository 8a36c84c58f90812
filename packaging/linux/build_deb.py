"""The Debian package of vault-app, from its PyInstaller bundle: `build_deb(bundle, version, out)`.

`dist/vault-app_<version>_amd64.deb` (built with `dpkg-deb`) installs:

    /opt/vault-app/                          the onedir bundle (`vault-app` and `_internal/`)
    /usr/bin/vault-app                       a (relative) symlink to /opt/vault-app/vault-app
    /usr/share/applications/vault-app.desktop
    /usr/share/icons/hicolor/<N>x<N>/apps/vault-app.png   16 to 512, from the SVG
    /usr/share/icons/hicolor/scalable/apps/vault-app.svg

System libraries come from the system: PyInstaller copies into the bundle every library
the bundled code links to, the distribution's too (libX11, libxcb-*, fontconfig, glib...).
A copy identical to a file of an installed Debian package is taken out again, and that
package becomes a dependency; a private copy of libX11 beside the system's libGL would
load two of them into one process. `Depends` and `Recommends` are then found by
inspection: `ldd` on every ELF file of the bundle, each library it resolves outside the
bundle mapped to its package with `dpkg -S` (and libc6 at least the newest glibc symbol
version they use). Files the app can run without (the GTK and
portal themes, Wayland, input-method plugins) add `Recommends`, the rest `Depends`.
The dpkg triggers of hicolor-icon-theme and desktop-file-utils refresh the icon cache and
the menus: no maintainer scripts.
"""

from __future__ import annotations

import filecmp
import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGE = "vault-app"
PREFIX = Path("opt") / PACKAGE
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DESKTOP = HERE / "vault-app.desktop"
ICON_SVG = ROOT / "vault_app" / "resources" / "icons" / "vault-app.svg"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
SYSTEM_LIB_DIRS = (
    Path("/lib/x86_64-linux-gnu"),
    Path("/usr/lib/x86_64-linux-gnu"),
    Path("/lib64"),
    Path("/usr/lib"),
    Path("/lib"),
)
KEEP_BUNDLED = ("libpython*",)  # the interpreter the bundle was built with, whatever its origin
# Plugins the app runs without (Qt skips a plugin it cannot load): their libraries are
# recommended, not required. Paths inside the bundle, glob patterns.
OPTIONAL = (
    "_internal/PySide6/Qt/plugins/platformthemes/*",
    "_internal/PySide6/Qt/plugins/platforminputcontexts/*",
    "_internal/PySide6/Qt/plugins/platforms/libqwayland*",
    "_internal/PySide6/Qt/plugins/wayland-*/*",
    "_internal/PySide6/Qt/lib/libQt6Wayland*",
    "_internal/PySide6/Qt/lib/libQt6WlShell*",
    "_internal/PySide6/Qt/lib/libQt6EglFS*",
    "_internal/PySide6/Qt/lib/libQt6EglFs*",
)
# Libraries the optional plugins need that may be missing from the build machine (ldd
# says "not found"): soname -> the Debian package that ships it.
NOT_INSTALLED_HERE = {
    "libgtk-3.so.0": "libgtk-3-0",
    "libgdk-3.so.0": "libgtk-3-0",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
}
MAINTAINER = "vault-app maintainers <maintainers@vault-app.invalid>"
DESCRIPTION = """\
Desktop app and library for the PARA memory vaults of AI agents
 vault-app shows, searches and curates the memory vaults that AI agents keep as
 plain files (PARA folders of entities, facts and daily notes): a desktop window,
 a command line with JSON output on every command, and an MCP server for agents.
 Hybrid search (BM25 and all-MiniLM-L6-v2 on ONNX Runtime) runs offline."""


class DebError(RuntimeError):
    """The package cannot be built as it should be (a library no package provides...)."""


COMPRESSION = {
    # the release: the smallest file, read by every dpkg (xz -6: minutes, 8 on 2 busy cores)
    "xz": ["-Zxz", "-z6"],
    # tests: the same package in seconds, an eighth bigger (dpkg >= 1.21.18 reads zstd:
    # Debian 12, Ubuntu 22.04 and later)
    "fast": ["-Zzstd", "-z3"],
}


def build_deb(
    bundle: Path, version: str, out_dir: Path, work_dir: Path, compression: str = "xz"
) -> Path:
    """Build `out_dir/vault-app_<version>_amd64.deb` from the onedir `bundle`; its path.

    `compression`: a key of `COMPRESSION`."""
    stage = work_dir / "deb" / "root"
    if stage.exists():
        shutil.rmtree(stage)
    app_dir = stage / PREFIX
    shutil.copytree(bundle, app_dir, symlinks=True)
    unbundle_system_libraries(app_dir / "_internal")  # the packages below provide them
    depends, recommends = dependencies(app_dir)
    (stage / "usr" / "bin").mkdir(parents=True)
    (stage / "usr" / "bin" / PACKAGE).symlink_to(Path("../..") / PREFIX / PACKAGE)  # any root
    applications = stage / "usr" / "share" / "applications"
    applications.mkdir(parents=True)
    shutil.copyfile(DESKTOP, applications / DESKTOP.name)
    install_icons(stage / "usr" / "share" / "icons" / "hicolor")
    normalise_modes(stage)
    control = stage / "DEBIAN"
    control.mkdir()
    (control / "control").write_text(
        control_text(version, depends, recommends, installed_kb(stage)), encoding="utf-8"
    )
    (control / "md5sums").write_text(md5sums(stage), encoding="utf-8")
    out_dir.mkdir(parents=True, exist_ok=True)
    deb = out_dir / f"{PACKAGE}_{version}_amd64.deb"
    subprocess.run(
        [
            "dpkg-deb",
            "--root-owner-group",
            *COMPRESSION[compression],
            "--build",
            str(stage),
            str(deb),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return deb


def unbundle_system_libraries(internal: Path) -> set[str]:
    """Delete the libraries in `internal` that are copies of an installed package's files;
    the names of those packages."""
    packages: set[str] = set()
    for library in sorted(internal.glob("lib*.so*")):
        if library.is_symlink() or any(fnmatch.fnmatch(library.name, p) for p in KEEP_BUNDLED):
            continue
        for folder in SYSTEM_LIB_DIRS:
            candidate = folder / library.name
            if candidate.is_file() and filecmp.cmp(candidate, library, shallow=False):
                owner = package_of(candidate)
                if owner is not None:
                    packages.add(owner)
                    library.unlink()
                    break
    return packages


def dependencies(app_dir: Path) -> tuple[set[str], set[str]]:
    """(Depends, Recommends): the packages of the libraries the bundle's ELF files link to
    directly (their NEEDED entries, resolved as `ldd` does) outside the bundle, for the
    required files and the optional ones (`OPTIONAL`)."""
    internal = app_dir / "_internal"
    search = [internal, internal / "PySide6" / "Qt" / "lib", internal / "PySide6"]
    env = {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(map(str, search))}
    inside = app_dir.resolve()
    required: set[str] = set()
    optional: set[str] = set()
    missing: list[str] = []
    newest_glibc: tuple[int, ...] = (0,)
    for elf in elf_files(app_dir):
        relative = elf.relative_to(app_dir).as_posix()
        wanted = optional if any(fnmatch.fnmatch(relative, p) for p in OPTIONAL) else required
        resolved = _ldd(elf, env)
        needed, glibc = _dynamic(elf)
        newest_glibc = max(newest_glibc, glibc)
        for soname in needed:
            target = resolved.get(soname)
            if target is not None and Path(target).resolve().is_relative_to(inside):
                continue
            if target is None or target == "not found":
                if soname in NOT_INSTALLED_HERE:
                    wanted.add(NOT_INSTALLED_HERE[soname])
                elif wanted is required:
                    missing.append(f"{relative}: {soname}")
                continue
            owner = package_of(Path(target))
            if owner is None:
                raise DebError(f"{relative} needs {target}, which no installed package provides")
            wanted.add(owner)
    if missing:
        raise DebError("libraries not found on the build machine: " + ", ".join(missing))
    recommended = optional - required
    if "libc6" in required and newest_glibc > (0,):  # as dpkg-shlibdeps would say it
        required = {*required - {"libc6"}, f"libc6 (>= {'.'.join(map(str, newest_glibc))})"}
    return required, recommended


def _dynamic(elf: Path) -> tuple[list[str], tuple[int, ...]]:
    """The sonames `elf` links to directly (its NEEDED entries), and the newest glibc
    symbol version it uses (GLIBC_2.x: the oldest libc6 it runs with)."""
    done = subprocess.run(
        ["readelf", "--dynamic", "--version-info", "--wide", str(elf)],
        capture_output=True,
        text=True,
        check=True,
    )
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", done.stdout)
    versions = {
        tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", done.stdout)
    }
    return needed, max(versions, default=(0,))


def _ldd(elf: Path, env: dict[str, str]) -> dict[str, str]:
    """soname -> the path the dynamic linker resolves it to (or "not found")."""
    done = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env=env)
    found = {}
    for line in done.stdout.splitlines():
        match = re.match(r"\s*(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
        if match is not None:
            found[match[1]] = match[2]
        elif (loader := re.match(r"\s*(/\S+) \(0x[0-9a-f]+\)$", line)) is not None:
            found[Path(loader[1]).name] = loader[1]  # the dynamic loader, by its path
    return found


def elf_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    yield path


_owners: dict[str, str | None] = {}


def package_of(path: Path) -> str | None:
    """The installed Debian package that ships `path` (tried as given and resolved,
    /lib and /usr/lib alike: merged /usr), without its architecture; None if none."""
    candidates = [str(path), str(path.resolve())]
    candidates += [c.removeprefix("/usr") for c in candidates if c.startswith("/usr/lib")]
    candidates += ["/usr" + c for c in candidates if c.startswith("/lib")]
    for candidate in dict.fromkeys(candidates):
        if candidate not in _owners:
            done = subprocess.run(
                ["dpkg-query", "-S", candidate], capture_output=True, text=True, check=False
            )
            line = done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else ""
            _owners[candidate] = line.split(":", 1)[0].split(",")[0].strip() or None
        if _owners[candidate]:
            return _owners[candidate]
    return None


def install_icons(hicolor: Path) -> None:
    """The SVG as `scalable`, and PNGs rendered from it at `ICON_SIZES` (Qt's SVG renderer)."""
    from PySide6 import QtCore, QtGui, QtSvg

    if QtGui.QGuiApplication.instance() is None:  # fonts and painting need one
        app = QtGui.QGuiApplication(["build_deb", "-platform", "offscreen"])
        app.setObjectName("build_deb")
    scalable = hicolor / "scalable" / "apps"
    scalable.mkdir(parents=True)
    shutil.copyfile(ICON_SVG, scalable / f"{PACKAGE}.svg")
    renderer = QtSvg.QSvgRenderer(str(ICON_SVG))
    if not renderer.isValid():
        raise DebError(f"{ICON_SVG} is not a valid SVG file")
    for size in ICON_SIZES:
        image = QtGui.QImage(size, size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(image)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QtCore.QRectF(0, 0, size, size))
        painter.end()
        folder = hicolor / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True)
        if not image.save(str(folder / f"{PACKAGE}.png"), "PNG"):
            raise DebError(f"cannot write the {size}x{size} icon")


def normalise_modes(stage: Path) -> None:
    """Folders and executables 0755, other files 0644 (whatever the build's umask)."""
    for path in [stage, *stage.rglob("*")]:
        if path.is_symlink():
            continue
        executable = path.is_dir() or os.access(path, os.X_OK)
        path.chmod(0o755 if executable else 0o644)


def installed_kb(stage: Path) -> int:
    return sum(p.lstat().st_size for p in stage.rglob("*") if not p.is_dir()) // 1024 + 1


def md5sums(stage: Path) -> str:
    lines = []
    for path in sorted(stage.rglob("*")):
        if path.is_file() and not path.is_symlink():
            digest = hashlib.md5(path.read_bytes(), usedforsecurity=False).hexdigest()
            lines.append(f"{digest}  {path.relative_to(stage).as_posix()}\n")
    return "".join(lines)


def control_text(
    version: str, depends: Iterable[str], recommends: Iterable[str], size_kb: int
) -> str:
    fields = {
        "Package": PACKAGE,
        "Version": version,
        "Architecture": "amd64",
        "Maintainer": MAINTAINER,
        "Installed-Size": str(size_kb),
        "Depends": ", ".join(sorted(set(depends))),
        "Recommends": ", ".join(sorted(set(recommends))),
        "Section": "utils",
        "Priority": "optional",
        "Description": DESCRIPTION,
    }
    return "".join(f"{key}: {value}\n" for key, value in fields.items() if value)
