"""The installers' recipes (issue 15): one version number in one place, and the Windows,
macOS and GitHub Actions recipes consistent with the tree they build from.

The Windows and macOS installers cannot be built on this machine (no Inno Setup, no
hdiutil, no iconutil, no Windows or macOS runner), so what is proved here is what can be
proved on Linux, for real and cheaply:

- the version: `vault_app.__version__` is the only one; pyproject.toml reads it with
  setuptools' `attr:` without importing the package, the CLI shows it, and no recipe
  (packaging/, the workflow, scripts/dev) holds a version of its own
  (`test_the_version_has_one_source`, `test_setuptools_reads_the_version_without_importing`,
  `test_the_cli_shows_the_version`, `test_no_recipe_holds_a_version_of_its_own`);
- the icons: packaging/icons.py renders the .ico (its entries parsed here and read back
  by Qt's own ICO reader), the macOS .iconset with the names iconutil requires, and the
  hicolor sizes (the .deb's too), from the one SVG, and refuses a missing or unreadable
  one with a one-line reason (`test_the_icons_*`);
- the shared PyInstaller spec compiles and takes from the Windows and macOS modules only
  names they define, the version from `vault_app.__version__`
  (`test_the_spec_uses_what_the_platform_modules_define`);
- the Inno Setup script: takes its version from the build and refuses to build without
  it, names its output `vault-app-setup-<version>.exe`, its default inputs are where the
  build writes them, it starts the windowed twin the spec builds, its preprocessor and
  Pascal blocks are balanced (`test_the_inno_setup_script_*`);
- the Windows version resource's numbers (`test_the_windows_version_numbers`);
- macOS: the Info.plist keys serialise as a plist with the version, and make-dmg.sh parses
  and reads the version back from the app (`test_the_macos_recipe`);
- packaging/smoke_bundle.py, the Windows and macOS jobs' check of their bundle, stops at
  a wrong answer (`test_the_bundle_smoke_check_fails_on_a_wrong_version`);
- the workflow: it parses, runs on tags v* and by hand, builds on the three runners (the
  .deb on Debian 12, then its smoke test, tests/installers/), every file it runs exists,
  torch is pinned as scripts/dev pins it and from the CPU index, and the version every
  job uses is read from `vault_app.__version__` (`test_the_workflow_*`).
"""

from __future__ import annotations

import os
import plistlib
import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

import vault_app

REPO = Path(__file__).resolve().parents[1]
PACKAGING = REPO / "packaging"
WORKFLOW = REPO / ".github" / "workflows" / "installers.yml"
ISS = PACKAGING / "windows" / "vault-app.iss"
ICONS = PACKAGING / "icons.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def load_module(path: Path) -> Any:
    """A packaging script as a module (packaging/ is not a package: its scripts run as
    programs and PyInstaller specs import them by path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_SIGNATURE)
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk comes first
    return width, height


# --- the version ------------------------------------------------------------------------


def test_the_version_has_one_source() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "vault_app.__version__"}
    assert str(Version(vault_app.__version__)) == vault_app.__version__  # PEP 440, normal form


def test_setuptools_reads_the_version_without_importing() -> None:
    """`attr:` is read from the module's source (its literal assignment), so a build needs
    none of the package's dependencies and runs none of its code."""
    probe = (
        "import sys\n"
        "from setuptools.config import expand\n"
        "print(expand.read_attr('vault_app.__version__', {}, '.'))\n"
        "print(any(m == 'vault_app' or m.startswith('vault_app.') for m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [vault_app.__version__, "False"]


def test_the_cli_shows_the_version() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "vault_app", "--version"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == f"vault-app {vault_app.__version__}\n"


def recipe_files() -> list[Path]:
    files = [p for p in PACKAGING.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return [*files, WORKFLOW, REPO / "scripts" / "dev"]


def test_no_recipe_holds_a_version_of_its_own() -> None:
    """The installers take the version from the build (the workflow's `version` job, the
    spec's `vault_app.__version__`): the number written anywhere in a recipe would go stale
    at the next release."""
    version = re.compile(rf"(?<![\d.]){re.escape(vault_app.__version__)}(?![\d.])")
    holding = [
        p.relative_to(REPO).as_posix()
        for p in recipe_files()
        if version.search(p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert holding == []


# --- the icons ---------------------------------------------------------------------------


def run_icons(*args: str) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    subprocess.run(
        [sys.executable, str(ICONS), *args], env=env, check=True, capture_output=True, timeout=120
    )


def test_the_icons_ico(tmp_path: Path) -> None:
    """The .ico: one PNG entry per size Windows asks for, each of its stated size, at the
    offsets the directory gives; Qt's ICO reader reads every one of them back."""
    icons = load_module(ICONS)
    out = tmp_path / "vault-app.ico"
    run_icons("ico", str(out))
    data = out.read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind, count) == (0, 1, len(icons.ICO_SIZES))
    sizes = []
    for n in range(count):
        w, h, _, _, planes, bits, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * n : 22 + 16 * n]
        )
        entry = data[offset : offset + length]
        assert (planes, bits) == (1, 32) and len(entry) == length
        assert png_size(entry) == (w or 256, h or 256)
        sizes.append(w or 256)
    assert sizes == list(icons.ICO_SIZES)
    assert 256 in sizes and 16 in sizes
    probe = (
        "import sys\n"
        "from PySide6 import QtGui\n"
        "app = QtGui.QGuiApplication([])\n"
        "r = QtGui.QImageReader(sys.argv[1])\n"
        "found = []\n"
        "for i in range(r.imageCount()):\n"
        "    r.jumpToImage(i)\n"
        "    image = r.read()\n"
        "    centre = image.pixelColor(image.width() // 2, image.height() // 2)\n"
        "    found.append(f'{image.width()}:{image.pixelColor(0, 0).alpha()}:{centre.alpha()}')\n"
        "print(bytes(r.format()).decode(), *found)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", probe, str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    # transparent corners (the rounded square's outside), an opaque centre (the dial)
    assert done.stdout.split() == ["ico", *(f"{s}:0:255" for s in icons.ICO_SIZES)]


def test_the_icons_iconset(tmp_path: Path) -> None:
    """The .iconset iconutil turns into the .icns: its ten names, each at its pixel size."""
    out = tmp_path / "vault-app.iconset"
    run_icons("iconset", str(out))
    expected = {}
    for points in (16, 32, 128, 256, 512):  # Apple's set: each size at 1x and 2x
        expected[f"icon_{points}x{points}.png"] = points
        expected[f"icon_{points}x{points}@2x.png"] = 2 * points
    assert sorted(p.name for p in out.iterdir()) == sorted(expected)
    for name, pixels in expected.items():
        assert png_size((out / name).read_bytes()) == (pixels, pixels), name


def test_the_icons_hicolor(tmp_path: Path) -> None:
    icons = load_module(ICONS)
    run_icons("hicolor", str(tmp_path))
    for size in icons.HICOLOR_SIZES:
        png = tmp_path / f"{size}x{size}" / "apps" / "vault-app.png"
        assert png_size(png.read_bytes()) == (size, size)
    scalable = tmp_path / "scalable" / "apps" / "vault-app.svg"
    assert scalable.read_bytes() == icons.SVG.read_bytes()


def test_the_icons_refuse_a_missing_svg(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ICONS), "ico", str(tmp_path / "x.ico"), "--svg", "/no/such.svg"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "no such SVG: /no/such.svg" in done.stderr
    assert not (tmp_path / "x.ico").exists()


# --- Windows ----------------------------------------------------------------------------


def iss_defines() -> dict[str, str]:
    return dict(re.findall(r'^\s*#define (\w+) "([^"]*)"', ISS.read_text(), flags=re.M))


def iss_setup() -> dict[str, str]:
    text = ISS.read_text()
    section = text.split("[Setup]", 1)[1].split("\n[", 1)[0]
    pairs = (line.split("=", 1) for line in section.splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs if not key.startswith(";")}


def test_the_inno_setup_script_takes_the_version_from_the_build() -> None:
    text = ISS.read_text()
    assert re.search(r"#ifndef AppVersion\s+#error ", text)
    setup = iss_setup()
    assert setup["AppVersion"] == "{#AppVersion}"
    assert setup["OutputBaseFilename"] == "vault-app-setup-{#AppVersion}"
    workflow = WORKFLOW.read_text()
    assert '"/DAppVersion=$env:VERSION" packaging\\windows\\vault-app.iss' in workflow
    # a fixed id: every version upgrades and uninstalls the same installation
    assert re.fullmatch(r"\{\{[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}\}", setup["AppId"])


def test_the_inno_setup_script_reads_what_the_build_writes() -> None:
    """Its default inputs, relative to the script's folder as Inno Setup resolves them, are
    the bundle packaging/build.py writes (`--dist dist`), the icon packaging/icons.py
    writes (`bundle build`), and the output goes to dist/ where the workflow uploads it."""
    defines = iss_defines()
    here = ISS.parent

    def resolved(name: str) -> Path:
        return Path(os.path.normpath(here / defines[name].replace("\\", "/")))

    assert resolved("BundleDir") == REPO / "dist" / "vault-app"
    assert resolved("IconFile") == REPO / "build" / "icons" / "vault-app.ico"
    assert resolved("OutputDir") == REPO / "dist"
    workflow = WORKFLOW.read_text()
    assert "python packaging/build.py --dist dist --work build" in workflow
    assert "dist/vault-app-setup-${{ env.VERSION }}.exe" in workflow
    windows = load_module(PACKAGING / "windows" / "windows_bundle.py")
    assert defines["GuiExe"] == f"{windows.GUI_NAME}.exe"
    assert defines["CliExe"] == "vault-app.exe"
    setup = iss_setup()
    assert setup["PrivilegesRequired"] == "lowest"  # per-user without admin rights...
    assert "dialog" in setup["PrivilegesRequiredOverridesAllowed"]  # ...or for all users
    assert "{autoprograms}\\{#AppName}" in ISS.read_text()  # the Start-menu shortcut
    assert setup["UninstallDisplayIcon"] == "{app}\\{#GuiExe}"


def test_the_inno_setup_script_is_balanced() -> None:
    """What can be checked without Inno Setup: the preprocessor's #if/#endif pairs, the
    sections, and the Pascal code's begin/end pairs (strings and comments left out)."""
    text = ISS.read_text()
    assert len(re.findall(r"^\s*#if", text, re.M)) == len(re.findall(r"^\s*#endif", text, re.M))
    sections = re.findall(r"^\[(\w+)\]", text, re.M)
    assert sections == ["Setup", "Tasks", "Files", "Icons", "Run", "Code"]
    code = text.split("[Code]", 1)[1]
    code = re.sub(r"'[^']*'", "''", code)
    code = re.sub(r"\{[^}]*\}", "", code)
    words = re.findall(r"\b(begin|end)\b", code, flags=re.I)
    assert words.count("begin") == words.count("end") > 0
    for name in ("CurStepChanged", "CurUninstallStepChanged"):  # Inno Setup's event names
        assert f"procedure {name}(" in code


def test_the_windows_version_numbers() -> None:
    windows = load_module(PACKAGING / "windows" / "windows_bundle.py")
    assert windows.numeric_version("0.1.0") == (0, 1, 0, 0)
    assert windows.numeric_version("1.2rc1") == (1, 2, 0, 0)
    assert windows.numeric_version("2.0.1.7") == (2, 0, 1, 7)
    assert len(windows.numeric_version(vault_app.__version__)) == 4
    for bad in ("dev", "70000.1"):
        with pytest.raises(ValueError):
            windows.numeric_version(bad)
    assert windows.RUNTIME_HOOK.is_file()


# --- macOS ------------------------------------------------------------------------------


def test_the_macos_recipe() -> None:
    macos = load_module(PACKAGING / "macos" / "macos_bundle.py")
    plist = plistlib.loads(plistlib.dumps(macos.info_plist(vault_app.__version__)))
    assert plist["CFBundleShortVersionString"] == vault_app.__version__
    assert plist["CFBundleVersion"] == vault_app.__version__
    assert plist["CFBundleIdentifier"] == macos.BUNDLE_ID
    assert Version(plist["LSMinimumSystemVersion"]) >= Version("13.0")  # Qt 6.11's minimum
    assert plist["NSHighResolutionCapable"] is True
    assert plist["LSBackgroundOnly"] is False
    script = PACKAGING / "macos" / "make-dmg.sh"
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    assert "Print :CFBundleShortVersionString" in text
    assert 'DMG="$OUT_DIR/vault-app-$VERSION.dmg"' in text
    assert "dist/vault-app-${{ env.VERSION }}.dmg" in WORKFLOW.read_text()
    # on Linux it says what it needs instead of failing halfway
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "run this on a Mac" in done.stderr


# --- the workflow -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    loaded: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text())
    loaded["on"] = loaded.pop(True, loaded.get("on"))  # YAML 1.1 reads the key `on` as True
    return loaded


def runs(job: dict[str, Any]) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def test_the_workflow_builds_on_the_three_runners(workflow: dict[str, Any]) -> None:
    assert workflow["on"]["push"] == {"tags": ["v*"]}
    assert "workflow_dispatch" in workflow["on"]
    jobs = workflow["jobs"]
    runners = {name: job["runs-on"] for name, job in jobs.items()}
    assert runners == {
        "version": "ubuntu-latest",
        "linux": "ubuntu-latest",
        "windows": "windows-latest",
        "macos": "macos-latest",
    }
    for name in ("linux", "windows", "macos"):
        assert jobs[name]["needs"] == "version"
        uploads = [
            s
            for s in jobs[name]["steps"]
            if s.get("uses", "").startswith("actions/upload-artifact@")
        ]
        assert len(uploads) == 1 and uploads[0]["with"]["if-no-files-found"] == "error"
    linux = "\n".join(runs(jobs["linux"]))
    assert "scripts/dev package" in linux and "package)" in (REPO / "scripts" / "dev").read_text()
    assert "tests/installers/test_deb.py" in linux  # the smoke test of the .deb
    # the release the .deb's Depends are named for, as on the project's machine
    assert jobs["linux"]["container"]["image"] == "debian:bookworm"


def test_the_workflow_runs_files_that_exist(workflow: dict[str, Any]) -> None:
    """Every script a step runs is in the tree (a rename would break only the runner)."""
    named = set()
    for job in workflow["jobs"].values():
        for text in runs(job):
            named |= set(re.findall(r"(?:packaging|scripts|tests)[/\\][\w./\\-]+", text))
    assert named, "no file named"
    missing = sorted(n for n in named if not (REPO / n.replace("\\", "/")).is_file())
    assert missing == []


def test_the_workflow_pins_torch_as_scripts_dev_does(workflow: dict[str, Any]) -> None:
    pin = re.search(r'TORCH_PIN="([^"]+)"', (REPO / "scripts" / "dev").read_text())
    assert pin is not None
    assert workflow["env"]["TORCH"] == pin.group(1) == "torch==2.13.0"
    assert workflow["env"]["TORCH_INDEX"] == "https://download.pytorch.org/whl/cpu"
    for name, job in workflow["jobs"].items():
        for text in runs(job):
            for line in text.splitlines():
                if re.search(r"pip install .*torch", line, re.I):
                    assert '"$TORCH" --index-url "$TORCH_INDEX"' in line, (name, line)


def test_the_workflow_reads_the_one_version(workflow: dict[str, Any]) -> None:
    jobs = workflow["jobs"]
    [read] = [s for s in jobs["version"]["steps"] if s.get("id") == "read"]
    assert "import vault_app; print(vault_app.__version__)" in read["run"]
    assert jobs["version"]["outputs"]["version"] == "${{ steps.read.outputs.version }}"
    tag_check = "\n".join(runs(jobs["version"]))
    assert '"$GITHUB_REF_NAME" != "v$VERSION"' in tag_check
    for name in ("linux", "windows", "macos"):
        assert jobs[name]["env"]["VERSION"] == "${{ needs.version.outputs.version }}"
    # the import the version job makes must stay free of dependencies (a bare Python)
    done = subprocess.run(
        [sys.executable, "-S", "-c", "import vault_app; print(vault_app.__version__)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == vault_app.__version__


# --- the shared PyInstaller spec ---------------------------------------------------------


def test_the_spec_uses_what_the_platform_modules_define() -> None:
    """The spec (Python, run by PyInstaller on each runner) compiles, and every name it
    takes from the Windows and macOS modules exists there: a typo would otherwise show
    only on a runner this machine never is."""
    import ast

    spec = PACKAGING / "pyinstaller" / "vault-app.spec"
    tree = ast.parse(spec.read_text(), str(spec))
    modules = {
        "windows_bundle": load_module(PACKAGING / "windows" / "windows_bundle.py"),
        "macos_bundle": load_module(PACKAGING / "macos" / "macos_bundle.py"),
    }
    used = {
        (node.value.id, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
    }
    assert {m for m, _ in used} == set(modules)
    for module, name in sorted(used):
        assert hasattr(modules[module], name), f"{module}.{name}"
    assert "info_plist=macos_bundle.info_plist(VERSION)" in spec.read_text()
    assert "VERSION = vault_app.__version__" in spec.read_text()


def test_the_icons_refuse_an_unreadable_svg(tmp_path: Path) -> None:
    bad = tmp_path / "bad.svg"
    bad.write_text("<svg")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, str(ICONS), "ico", str(tmp_path / "x.ico"), "--svg", str(bad)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert f"icons: {bad} is not an SVG Qt can render" in done.stderr
    assert not (tmp_path / "x.ico").exists()


def test_the_bundle_smoke_check_fails_on_a_wrong_version(tmp_path: Path) -> None:
    """packaging/smoke_bundle.py (the Windows and macOS jobs' check of their bundle; run by
    hand on this machine against the Linux bundle) stops at the first wrong answer."""
    impostor = tmp_path / "vault-app"
    impostor.write_text("#!/bin/sh\necho 'vault-app 0.0.0.dev0'\n")
    impostor.chmod(0o755)
    script = str(PACKAGING / "smoke_bundle.py")
    done = subprocess.run(
        [sys.executable, script, str(impostor)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert f"--version says 'vault-app 0.0.0.dev0', not {vault_app.__version__}" in done.stderr
    usage = subprocess.run([sys.executable, script], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "smoke_bundle.py EXECUTABLE" in usage.stderr
