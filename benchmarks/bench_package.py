"""Figures of the packaged app: bundle and .deb sizes, and the installed app's timings.

    python benchmarks/bench_package.py [--deb dist/vault-app_<version>_amd64.deb]

Run `scripts/dev package` first. The .deb is unpacked (`dpkg -x`) into a temporary folder
and its `/usr/bin/vault-app` run as a user would, with a fresh HOME each time (no model
cache, no embedding cache: a first run after installing):

* **sizes**: the onedir bundle (`/opt/vault-app`, installed) and the `.deb` file;
* **window shown after launch**: from starting the process to its main window mapped and
  viewable on an X server (Xvfb, xcb platform: what a desktop user sees; polled with
  `xwininfo` every 10 ms), on the demo vault (the first launch creates it: timed apart);
  skipped without Xvfb and xwininfo;
* **info**: `vault-app info --json` on the demo vault, first run and median of 5;
* **first hybrid search (cold)**: `search --mode hybrid` on a demo vault it has never
  seen, so it embeds the vault's 651 texts first (the int8 model, ONNX Runtime) and then
  searches; then the same search again (warm: the vectors are cached).

Timings are wall-clock of whole processes; the machine may be loaded (say so with them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERY = "who fixes our pipes"


def folder_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir())


def bare_env(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", **extra}


def timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def window_shown(app: Path, home: Path) -> float | None:
    """Seconds from launch to the main window viewable on Xvfb, or None without Xvfb."""
    if shutil.which("Xvfb") is None or shutil.which("xwininfo") is None:
        return None
    display = ":97"
    server = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1440x900x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        env = bare_env(home, DISPLAY=display)
        for _ in range(200):  # the server is up when xwininfo can ask it
            if subprocess.run(["xwininfo", "-root"], env=env, capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        title = "demo-vault — vault-app"
        started = time.perf_counter()
        window = subprocess.Popen(
            [str(app)], env=env, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            while time.perf_counter() - started < 120:
                asked = subprocess.run(
                    ["xwininfo", "-name", title], env=env, capture_output=True, text=True
                )
                if "IsViewable" in asked.stdout:
                    return time.perf_counter() - started
                if window.poll() is not None:
                    raise RuntimeError(f"the app exited with status {window.returncode}")
                time.sleep(0.01)
            raise RuntimeError("no window within 120 s")
        finally:
            window.terminate()
            window.wait(60)
    finally:
        server.terminate()
        server.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    import vault_app

    default = ROOT / "dist" / f"vault-app_{vault_app.__version__}_amd64.deb"
    parser.add_argument("--deb", type=Path, default=default)
    args = parser.parse_args()
    if not args.deb.is_file():
        print(f"no {args.deb}: run scripts/dev package first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-package-") as scratch:
        base = Path(scratch)
        root = base / "root"
        subprocess.run(["dpkg", "-x", str(args.deb), str(root)], check=True)
        app = root / "usr" / "bin" / "vault-app"
        bundle = folder_size(root / "opt" / "vault-app")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        print(f"  bundle (/opt/vault-app)        {bundle / 2**20:7.1f} MB")
        print(f"  .deb ({args.deb.name})  {args.deb.stat().st_size / 2**20:7.1f} MB")

        home = base / "home-window"
        home.mkdir()
        first = window_shown(app, home)  # creates the demo vault on the way
        again = window_shown(app, home)
        if first is None or again is None:
            print("  window shown after launch      (needs Xvfb and xwininfo)")
        else:
            print(
                f"  window shown after launch      {again:7.2f} s   (Xvfb, xcb, demo vault; "
                f"{first:.2f} s the first time, which creates the demo vault)"
            )

        home = base / "home"
        home.mkdir()
        env = bare_env(home, QT_QPA_PLATFORM="offscreen")
        subprocess.run(
            [str(app), "init", "--demo", "demo"], env=env, cwd=home, check=True, capture_output=True
        )
        info = [timed([str(app), "--vault", "demo", "info", "--json"], env, home) for _ in range(6)]
        print(
            f"  info --json                    {info[0]:7.2f} s first, "
            f"{statistics.median(info[1:]):.2f} s median of 5"
        )
        search = [str(app), "--vault", "demo", "search", "--mode", "hybrid", "--json", QUERY]
        cold = timed(search, env, home)
        warm = timed(search, env, home)
        answer = json.loads(
            subprocess.run(search, env=env, cwd=home, check=True, capture_output=True).stdout
        )
        print(f"  first hybrid search (cold)     {cold:7.2f} s   (embeds the demo vault's texts)")
        print(
            f"  hybrid search again (warm)     {warm:7.2f} s   "
            f"({len(answer['hits'])} hits, notice: {answer['notice']})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
