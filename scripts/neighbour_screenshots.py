"""Render the window on each neighbour's folder to PNG under docs/screenshots/ (README).

    .venv/bin/python scripts/neighbour_screenshots.py [--out docs/screenshots]

Opens the test fixtures (tests/fixtures/neighbours/: a Hermes home, a PicoClaw workspace,
a MicroClaw runtime), copied into a temporary folder laid out as their owners lay them
out, in the real window (`app.window_for`) offscreen at 1440×900, light theme:

  neighbour-hermes.png     a Hermes home: the agent notes block with its meter
  neighbour-picoclaw.png   a PicoClaw workspace: the day's note, the calendar, append box
  neighbour-microclaw.png  a MicroClaw runtime: a persona's three tiers
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "neighbours"
SHOTS = {  # fixture: (where its owner keeps it, below the home folder; the page shown)
    "hermes": (".hermes", ("notes", "hermes")),
    "picoclaw": (".picoclaw/workspace", ("daily", "picoclaw")),
    "microclaw": ("microclaw.data/runtime", ("tiers", "-1001234567890/1")),
}


def pump(app: QtWidgets.QApplication, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="vault-app-neighbours-"))
    os.environ["XDG_STATE_HOME"] = str(home / ".local" / "state")  # its backups: not yours
    sys.path.insert(0, str(ROOT))
    from vault_app.ui import app as app_module
    from vault_app.ui import themes

    qt = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    assert isinstance(qt, QtWidgets.QApplication)
    themes.apply_theme(qt, "light")
    store = QtCore.QSettings(str(home / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        for name, (where, page) in SHOTS.items():
            folder = home / where
            shutil.copytree(FIXTURES / name, folder)
            window = app_module.window_for(folder, store, search=False)  # live sync on
            window.resize(1440, 900)
            window.show()
            window.start()
            pump(qt, 1.0)
            assert isinstance(window, app_module.NeighbourWindow)
            window.open_page(*page)
            pump(qt, 1.0)
            target = args.out / f"neighbour-{name}.png"
            window.grab().save(str(target))
            print(target)
            window.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
