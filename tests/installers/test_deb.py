"""The `.deb` as its users get it: built, installed into a bare root, run with a bare
environment, and every line it writes to stderr expected.

The package is built here (`packaging/build.py --fast` into a temporary folder: the
PyInstaller bundle, then the `.deb`, zstd-compressed to save minutes), or taken from
`VAULT_APP_DEB` (a `.deb` built earlier, e.g. the release's by `scripts/dev package`).

Where it is installed (`VAULT_APP_SMOKE_ROOT`, default: `chroot` when this runs as root
on Debian with debootstrap at hand, else `extract`):

- `chroot`: a Debian minimal system (`debootstrap --variant=minbase`, the Debian release
  this machine runs) where apt installs the package and exactly what its `Depends` pull, no
  `Recommends`: nothing else there, so a missing dependency fails here.
- `extract`: `dpkg -x` into a folder, run on this machine's libraries.

Each command runs under `env -i` (HOME in a fresh folder, QT_QPA_PLATFORM=offscreen given
explicitly, nothing else): `--version`, `init --demo`, `info --json`, a hybrid search
(hits, and no notice: semantic search works from the export the bundle ships), the MCP
handshake over stdio with the SDK's client, and the window for 10 s, closed by SIGTERM
(exit status 0). In the bare root also: the dynamic linker finds every library of the
bundle (the xcb plugin's too), and `apt remove` takes every file away. Every stderr
line must match `EXPECTED_STDERR` (as qutebrowser's release smoke test does): anything
else fails the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

import vault_app

ROOT = Path(__file__).resolve().parents[2]
WINDOW_SECONDS = 10.0
MAX_DEB_MB = 200  # the release .deb (xz)
MAX_INSTALLED_MB = 420  # /opt/vault-app and the rest: torch or WebEngine would not fit

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or shutil.which("dpkg-deb") is None,
        reason="the .deb is built and tested on Debian-based Linux",
    ),
]

# stderr lines that are expected, each with why; anything else is a failure
EXPECTED_STDERR = [
    # the offscreen platform plugin (no display): Qt's own notice, harmless
    r"This plugin does not support propagateSizeHints\(\)",
    # `env -i` sets no locale: Qt says it uses C.UTF-8 (its message, four lines)
    r'Detected locale "C" with character encoding "ANSI_X3.4-1968", which is not UTF-8.',
    r'Qt depends on a UTF-8 locale, and has switched to "C.UTF-8" instead.',
    r"If this causes problems, reconfigure your locale. See the locale\(1\) manual",
    r"for more information.",
    # the first hybrid search embeds the demo vault, and says how far it is
    r"vault-app: encoding \d+/\d+ texts",
]


def unexpected(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if line.strip() and not any(re.fullmatch(p, line.strip()) for p in EXPECTED_STDERR)
    ]


# ------------------------------------------------------------------ the package


@pytest.fixture(scope="module")
def deb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("VAULT_APP_DEB")
    if given:
        return Path(given).resolve()
    out = tmp_path_factory.mktemp("package")
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "packaging/build.py",
            "--fast",
            f"--dist={out}/dist",
            f"--work={out}/work",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    print(f"built the .deb in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    built = Path(done.stdout.splitlines()[-1])
    for scratch in (out / "work", out / "dist" / "vault-app"):  # a gigabyte: keep the .deb only
        shutil.rmtree(scratch)
    return built


def test_the_package_is_named_and_described_as_its_version(deb: Path) -> None:
    assert deb.name == f"vault-app_{vault_app.__version__}_amd64.deb"
    fields = subprocess.run(
        ["dpkg-deb", "--field", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    assert f"Version: {vault_app.__version__}\n" in fields
    depends = re.search(r"^Depends: (.*)$", fields, re.M)
    assert depends is not None
    packages = {dependency.split(" ")[0] for dependency in depends[1].split(", ")}
    assert {"libxcb1", "libfontconfig1", "libxkbcommon0", "libegl1"} <= packages
    assert re.search(r"\blibc6 \(>= 2\.\d+\)", depends[1])  # the newest glibc symbol it uses
    listing = subprocess.run(
        ["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    for path in (
        "./opt/vault-app/vault-app",
        "./usr/bin/vault-app -> ../../opt/vault-app/vault-app",
        "./usr/share/applications/vault-app.desktop",
        "./usr/share/icons/hicolor/scalable/apps/vault-app.svg",
        "./usr/share/icons/hicolor/16x16/apps/vault-app.png",
        "./usr/share/icons/hicolor/512x512/apps/vault-app.png",
    ):
        assert path in listing
    for absent in ("/torch/", "sentence_transformers", "QtWebEngine", "libQt6Quick", "libX11"):
        assert absent not in listing
    installed_kb = re.search(r"^Installed-Size: (\d+)$", fields, re.M)
    assert installed_kb is not None and int(installed_kb[1]) <= MAX_INSTALLED_MB * 1024
    members = subprocess.run(["ar", "t", str(deb)], capture_output=True, text=True).stdout
    if "data.tar.xz" in members.split():  # the release's compression (not the test's --fast)
        assert deb.stat().st_size <= MAX_DEB_MB * 1024 * 1024


# ------------------------------------------------------------------ the installed app


@dataclass
class Installed:
    """The package installed under `root`; commands run in it with a bare environment."""

    root: Path
    chroot: bool
    home: str = "/home/smoke"  # inside the root when it is a chroot
    stderr_seen: list[str] = field(default_factory=list)

    def command(self, *args: str) -> list[str]:
        env = ["env", "-i", f"HOME={self.home}", "QT_QPA_PLATFORM=offscreen"]
        if self.chroot:
            return ["chroot", str(self.root), *env, "/usr/bin/vault-app", *args]
        return [*env, str(self.root / "usr" / "bin" / "vault-app"), *args]

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.host(self.home),
            check=False,
        )
        assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stderr}"
        assert unexpected(done.stderr) == [], f"{args}: unexpected stderr"
        return done

    def host(self, path: str) -> Path:
        """A path inside the installed system, as this process sees it."""
        return self.root / path.lstrip("/") if self.chroot else Path(path)


def _mode() -> str:
    chosen = os.environ.get("VAULT_APP_SMOKE_ROOT")
    if chosen:
        return chosen
    can = os.geteuid() == 0 and shutil.which("debootstrap") is not None
    return "chroot" if can and _os_release().get("ID") == "debian" else "extract"


def _os_release() -> dict[str, str]:
    text = Path("/etc/os-release").read_text(encoding="utf-8")
    return {
        key: value.strip('"')
        for key, _, value in (line.partition("=") for line in text.splitlines())
    }


def _release() -> str:
    """The Debian release this machine runs (the package's Depends name its packages)."""
    return _os_release().get("VERSION_CODENAME") or "bookworm"


@contextlib.contextmanager
def _chroot(deb: Path, base: Path) -> Iterator[Path]:
    root = base / "root"
    subprocess.run(
        ["debootstrap", "--variant=minbase", _release(), str(root), "http://deb.debian.org/debian"],
        check=True,
        capture_output=True,
    )
    shutil.copyfile(deb, root / "tmp" / deb.name)
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    try:
        installed = subprocess.run(
            [
                "chroot",
                str(root),
                "apt-get",
                "install",
                "--yes",
                "--no-install-recommends",
                f"/tmp/{deb.name}",
            ],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"},
            check=False,
        )
        assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
        yield root
    finally:
        subprocess.run(["umount", "--lazy", str(root / "proc")], check=False)
    if not os.path.ismount(root / "proc"):  # half a gigabyte: not left in pytest's folders
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def installed(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("installed")
    mode = _mode()
    if mode == "chroot":
        with _chroot(deb, base) as root:
            app = Installed(root, chroot=True)
            app.host(app.home).mkdir(parents=True)
            yield app
        return
    root = base / "root"
    subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    app = Installed(root, chroot=False, home=str(base / "home"))
    Path(app.home).mkdir()
    yield app


def test_the_bare_root_has_every_library_the_bundle_links_to(installed: Installed) -> None:
    """What `Depends` pulled is enough: in the bare root the dynamic linker finds every
    library of every file of the bundle, the xcb platform plugin's too (the offscreen
    runs below never load it); only the optional plugins (`build_deb.OPTIONAL`: their
    libraries are `Recommends`, not installed here) may lack some."""
    if not installed.chroot:
        pytest.skip("the libraries of this machine, not of a bare root (extract mode)")
    sys.path.insert(0, str(ROOT / "packaging" / "linux"))
    import build_deb

    app_dir = installed.root / build_deb.PREFIX
    files = [
        "/" + path.relative_to(installed.root).as_posix()
        for path in build_deb.elf_files(app_dir)
        if not any(
            fnmatch.fnmatch(path.relative_to(app_dir).as_posix(), p) for p in build_deb.OPTIONAL
        )
    ]
    assert any(f.endswith("/platforms/libqxcb.so") for f in files)
    internal = f"/{build_deb.PREFIX}/_internal"
    paths = f"{internal}:{internal}/PySide6/Qt/lib:{internal}/PySide6"
    done = subprocess.run(
        [
            "chroot",
            str(installed.root),
            "env",
            "-i",
            f"LD_LIBRARY_PATH={paths}",
            "/bin/sh",
            "-c",
            'for f in "$@"; do echo "== $f"; ldd "$f"; done',
            "sh",
            *files,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    file = ""
    missing = []
    for line in done.stdout.splitlines():
        if line.startswith("== "):
            file = line[3:]
        elif "not found" in line:
            missing.append(f"{file}: {line.strip()}")
    assert missing == []


def test_the_installed_command_runs_from_a_bare_environment(installed: Installed) -> None:
    version = installed.run("--version")
    assert version.stdout.strip() == f"vault-app {vault_app.__version__}"
    demo = f"{installed.home}/demo"
    installed.run("init", "--demo", demo)
    info = json.loads(installed.run("--vault", demo, "info", "--json").stdout)
    assert info["entities"] > 0 and info["facts"] > 0
    found = installed.run(
        "--vault", demo, "search", "--mode", "hybrid", "--json", "who fixes our pipes"
    )
    answer = json.loads(found.stdout)
    assert answer["mode"] == "hybrid" and answer["notice"] is None
    assert answer["hits"] and any(hit["parts"]["semantic"] > 0 for hit in answer["hits"])


def test_the_installed_mcp_server_answers_the_handshake(installed: Installed) -> None:
    demo = f"{installed.home}/mcp-demo"
    installed.run("init", "--demo", demo)
    errors = installed.host(installed.home) / "mcp-stderr.txt"
    command = installed.command("--vault", demo, "mcp", "--agent", "finance")
    params = StdioServerParameters(
        command="/bin/sh",
        args=[
            "-c",
            f'cd "$1" && shift && exec "$@" 2>>"{errors}"',
            "sh",
            str(installed.host(installed.home)),
            *command,
        ],
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
    )

    async def session() -> tuple[str, set[str], dict[str, object]]:
        async with Client(params) as client:
            tools = await client.list_tools()
            found = await client.call_tool("search", {"query": "vanity delivery", "limit": 3})
            assert not found.is_error
            return client.server_info.name, {t.name for t in tools.tools}, found.structured_content

    name, tools, found = asyncio.run(asyncio.wait_for(session(), 120))
    assert name == "vault-app"
    assert {"search", "get_entity", "read_daily"} <= tools
    assert found["hits"]
    assert unexpected(errors.read_text() if errors.exists() else "") == []


def test_the_installed_window_runs_offscreen_then_exits_cleanly_on_sigterm(
    installed: Installed,
) -> None:
    window = subprocess.Popen(
        installed.command(),  # no arguments: the window, on the demo vault
        cwd=installed.host(installed.home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            window.wait(WINDOW_SECONDS)  # still running: it did not fail at start-up
        window.send_signal(signal.SIGTERM)
        stdout, stderr = window.communicate(timeout=60)
    finally:
        if window.poll() is None:
            window.kill()
            window.communicate()
    assert window.returncode == 0, stderr
    assert unexpected(stderr) == [], stderr
    assert stdout == ""


def test_the_package_removes_cleanly(installed: Installed) -> None:
    """`apt remove vault-app` (last: the tests above use the installed package) takes
    every file it installed away, and leaves the user's files alone."""
    if not installed.chroot:
        pytest.skip("apt runs in the bare root only (extract mode)")
    removed = subprocess.run(
        ["chroot", str(installed.root), "apt-get", "remove", "--yes", "vault-app"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"},
        check=False,
    )
    assert removed.returncode == 0, removed.stdout + removed.stderr
    for path in ("opt/vault-app", "usr/bin/vault-app", "usr/share/applications/vault-app.desktop"):
        assert not (installed.root / path).exists() and not (installed.root / path).is_symlink()
    assert not list((installed.root / "usr/share/icons/hicolor").rglob("vault-app.*"))
    assert (installed.host(installed.home) / "demo" / ".vault").is_dir()
