"""Two real Syncthing daemons on this machine sharing one folder, for the sync tests.

Each daemon has its own home (keys, config, database) and its own folder. Before either
starts, its generated config is rewritten so that nothing leaves the machine: the GUI/REST
address and the sync listener on 127.0.0.1 ports of their own, the other device known by
an explicit `tcp://127.0.0.1:PORT` address, and every discovery and outside contact off —
global and local announcements (local announcements broadcast on the LAN), LAN address
announcements, relays, NAT traversal (UPnP/NAT-PMP) and STUN, usage reporting, crash
reporting and automatic upgrades (also refused on the command line and by environment).
The shared folder keeps every conflict copy (`maxConflicts` -1: vault-app merges them)
and is watched with a 1 s delay.

`Pair.settle()` waits until both daemons are idle, have nothing left to pull, see each
other's folder as complete, no conflict copy waits in either folder, and both folders
hold the same files (vault-app's per-device state aside), the same twice in a row.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from vault_app.core import sync_files, sync_setup

FOLDER_ID = "vault"
OFF = {  # <options>: nothing but the two daemons talking over loopback
    "globalAnnounceEnabled": "false",
    "localAnnounceEnabled": "false",
    "announceLANAddresses": "false",
    "relaysEnabled": "false",
    "natEnabled": "false",
    "stunServer": "",
    "stunKeepaliveStartS": "0",
    "urAccepted": "-1",
    "urSeen": "3",
    "crashReportingEnabled": "false",
    "autoUpgradeIntervalH": "0",
    "startBrowser": "false",
    "reconnectionIntervalS": "1",
    "progressUpdateIntervalS": "-1",
}
ENV_OFF = {"STNOUPGRADE": "1", "STNORESTART": "1", "STNODEFAULTFOLDER": "1"}
LOCAL = tuple(f"/.vault/{name}" for name in sync_setup.LOCAL)  # stays on each device


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Daemon:
    name: str
    home: Path
    folder: Path
    gui_port: int = field(default_factory=free_port)
    sync_port: int = field(default_factory=free_port)
    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    device_id: str = ""
    process: subprocess.Popen[bytes] | None = None

    def generate(self) -> None:
        subprocess.run(
            [
                "syncthing",
                "generate",
                f"--home={self.home}",
                "--no-default-folder",
                "--skip-port-probing",
            ],
            check=True,
            capture_output=True,
            env={**os.environ, **ENV_OFF},
        )
        done = subprocess.run(
            ["syncthing", "serve", f"--home={self.home}", "--device-id"],
            check=True,
            capture_output=True,
            text=True,
        )
        self.device_id = done.stdout.strip()

    def configure(self, other: Daemon) -> None:
        """Rewrite the generated config (see the module doc) before the first start."""
        path = self.home / "config.xml"
        tree = ET.parse(path)
        root = tree.getroot()
        gui = root.find("gui")
        assert gui is not None
        _set(gui, "address", f"127.0.0.1:{self.gui_port}")
        _set(gui, "apikey", self.api_key)
        options = root.find("options")
        assert options is not None
        for element in options.findall("listenAddress"):
            options.remove(element)
        for element in options.findall("globalAnnounceServer"):
            options.remove(element)
        ET.SubElement(options, "listenAddress").text = f"tcp://127.0.0.1:{self.sync_port}"
        for key, value in OFF.items():
            _set(options, key, value)
        device = ET.SubElement(
            root,
            "device",
            id=other.device_id,
            name=other.name,
            compression="metadata",
            introducer="false",
        )
        ET.SubElement(device, "address").text = f"tcp://127.0.0.1:{other.sync_port}"
        ET.SubElement(device, "autoAcceptFolders").text = "false"
        folder = ET.SubElement(
            root,
            "folder",
            id=FOLDER_ID,
            label=FOLDER_ID,
            path=str(self.folder),
            type="sendreceive",
            rescanIntervalS="60",
            fsWatcherEnabled="true",
            fsWatcherDelayS="1",
        )
        for device_id in (self.device_id, other.device_id):
            ET.SubElement(folder, "device", id=device_id)
        ET.SubElement(folder, "maxConflicts").text = "-1"
        tree.write(path)
        (self.folder / ".stfolder").mkdir(exist_ok=True)

    def start(self) -> None:
        log = open(self.home / "daemon.log", "ab")  # noqa: SIM115 (the daemon's own)
        self.process = subprocess.Popen(
            [
                "syncthing",
                "serve",
                f"--home={self.home}",
                "--no-browser",
                "--no-restart",
                "--no-upgrade",
                f"--gui-address=http://127.0.0.1:{self.gui_port}",
                f"--gui-apikey={self.api_key}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **ENV_OFF},
        )
        log.close()
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("/rest/system/ping")
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} did not start: {self.log_tail()}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(20)
        self.process = None

    def get(self, path: str) -> object:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gui_port}{path}", headers={"X-API-Key": self.api_key}
        )
        with urllib.request.urlopen(request, timeout=10) as answer:  # loopback only
            return json.loads(answer.read())

    def post(self, path: str) -> None:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gui_port}{path}",
            headers={"X-API-Key": self.api_key},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10):
            pass

    def idle(self, other: Daemon) -> bool:
        status = self.get(f"/rest/db/status?folder={FOLDER_ID}")
        completion = self.get(f"/rest/db/completion?folder={FOLDER_ID}&device={other.device_id}")
        assert isinstance(status, dict) and isinstance(completion, dict)
        return (
            status.get("state") == "idle"
            and status.get("needTotalItems") == 0
            and completion.get("completion") == 100
        )

    def log_tail(self) -> str:
        path = self.home / "daemon.log"
        return path.read_text("utf-8", "replace")[-2000:] if path.exists() else ""


def _set(parent: ET.Element, tag: str, value: str) -> None:
    element = parent.find(tag)
    if element is None:
        element = ET.SubElement(parent, tag)
    element.text = value


class Pair:
    """Daemons A and B (see the module doc); `a.folder` and `b.folder` hold the vault."""

    def __init__(self, root: Path, a_folder: Path, b_folder: Path) -> None:
        self.a = Daemon("device-a", root / "home-a", a_folder)
        self.b = Daemon("device-b", root / "home-b", b_folder)

    def start(self) -> None:
        for daemon in (self.a, self.b):
            daemon.generate()
        self.a.configure(self.b)
        self.b.configure(self.a)
        for daemon in (self.a, self.b):
            daemon.start()

    def stop(self) -> None:
        for daemon in (self.a, self.b):
            daemon.stop()

    def connected(self) -> bool:
        found = self.a.get("/rest/system/connections")
        assert isinstance(found, dict)
        link = found.get("connections", {}).get(self.b.device_id, {})
        return bool(link.get("connected"))

    def settle(
        self,
        timeout: float = 300.0,
        *,
        copies_left: bool = False,
        pump: Callable[[], None] = lambda: None,
    ) -> None:
        """Wait until both folders are synced and equal (module doc), or fail saying how.
        `copies_left`: conflict copies may wait (a document left for a person). `pump`
        runs between looks (a window's event loop)."""
        deadline = time.monotonic() + timeout
        agreed = 0
        last = ""
        while agreed < 2:
            if time.monotonic() > deadline:
                raise AssertionError(f"the two devices did not settle: {last}")
            stop = time.monotonic() + 0.5
            while time.monotonic() < stop:
                pump()
                time.sleep(0.02)
            try:
                idle = self.a.idle(self.b) and self.b.idle(self.a)
            except OSError as exc:
                last, agreed = f"REST: {exc}", 0
                continue
            copies = sync_files.conflicts(self.a.folder) + sync_files.conflicts(self.b.folder)
            waiting = bool(copies) and not copies_left
            same = idle and not waiting and tree(self.a.folder) == tree(self.b.folder)
            last = f"idle={idle}, conflict copies={[c.name for c in copies]}"
            agreed = agreed + 1 if same else 0


def tree(folder: Path) -> dict[str, str]:
    """Every synced file under `folder` (per-device state aside) and its content's hash."""
    found = {}
    for path in _files(folder):
        relative = "/" + path.relative_to(folder).as_posix()
        if relative.startswith(LOCAL) or relative.startswith("/.st"):
            continue
        try:
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            continue  # renamed away while listed: the next look sees it
    return found


def _files(folder: Path) -> Iterator[Path]:
    for top, _dirs, files in os.walk(folder):
        for name in files:
            if not sync_files.is_temporary(name):
                yield Path(top) / name


def copy_vault(source: Path, target: Path) -> None:
    """A second device's starting copy of the vault (its per-device state left behind)."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("locks", "tmp", "cache"))
