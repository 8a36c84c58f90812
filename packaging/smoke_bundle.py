"""A quick check of a built bundle's executable, on any platform: the Windows and macOS
jobs of .github/workflows/installers.yml run it before making their installers.

    python packaging/smoke_bundle.py EXECUTABLE

With a bare environment (a fresh HOME, nothing of the build's virtualenv) it runs
`--version` (the version `vault_app.__version__` says), `init --demo`, `info --json`
and a hybrid search, which must find hits with a semantic part and give no notice: the
ONNX export shipped in the bundle works, with no torch. Exit status 0, or 1 with the
command and its stderr. Only stdlib: it runs on the runner's Python, outside the bundle.

The .deb has the fuller smoke test (installed into a bare Debian root, the MCP handshake,
the window): tests/installers/test_deb.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bare_env(home: Path) -> dict[str, str]:
    """What a double-clicked app has: a home, the system's PATH, the platform's basics."""
    keep = ("PATH", "SYSTEMROOT", "WINDIR", "TEMP", "TMP", "LANG")  # Windows needs SYSTEMROOT
    env = {k: v for k, v in os.environ.items() if k.upper() in keep}
    env.update(HOME=str(home), USERPROFILE=str(home), QT_QPA_PLATFORM="offscreen")
    env["APPDATA"] = env["LOCALAPPDATA"] = str(home / "AppData")
    return env


def run(executable: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(executable), *args],
        env=env,
        capture_output=True,
        encoding="utf-8",  # the CLI writes UTF-8 bytes, whatever the console's code page
        errors="replace",
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"smoke: {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    executable = Path(argv[0]).resolve()
    sys.path.insert(0, str(ROOT))
    import vault_app

    with tempfile.TemporaryDirectory(prefix="vault-app-smoke-") as folder:
        home = Path(folder)
        env = bare_env(home)
        shown = run(executable, env, "--version").strip()
        if shown != f"vault-app {vault_app.__version__}":
            raise SystemExit(f"smoke: --version says {shown!r}, not {vault_app.__version__}")
        demo = str(home / "demo")
        run(executable, env, "init", "--demo", demo)
        info = json.loads(run(executable, env, "--vault", demo, "info", "--json"))
        if not (info["entities"] > 0 and info["facts"] > 0):
            raise SystemExit(f"smoke: the demo vault is empty: {info}")
        answer = json.loads(
            run(
                executable,
                env,
                "--vault",
                demo,
                "search",
                "--mode",
                "hybrid",
                "--json",
                "who fixes our pipes",
            )
        )
        if answer["mode"] != "hybrid" or answer["notice"] is not None:
            raise SystemExit(f"smoke: no hybrid search: {answer['mode']}, {answer['notice']}")
        if not any(hit["parts"]["semantic"] > 0 for hit in answer["hits"]):
            raise SystemExit("smoke: no semantic part in the hybrid search's hits")
    print(f"smoke: {executable} {vault_app.__version__}: version, demo, info, hybrid search")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
