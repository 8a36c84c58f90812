"""Build vault-app's installers for this platform: `scripts/dev package` runs this.

    python packaging/build.py [--dist DIR] [--work DIR] [--no-deb | --fast]

1. The ONNX export of all-MiniLM-L6-v2, made in this environment (torch is here, at build
   time only) or found in the user's cache (`onnx_export.ensure_onnx_export`).
2. The PyInstaller onedir bundle `DIR/vault-app/` (packaging/pyinstaller/vault-app.spec),
   which ships that export: semantic search in the bundle runs on ONNX Runtime, no torch.
3. On Linux, `DIR/vault-app_<version>_amd64.deb` (packaging/linux/build_deb.py),
   xz-compressed; `--fast` compresses it with zstd instead (seconds, not minutes: the
   smoke test's build, tests/installers/test_deb.py).

Prints the path of each artifact, one a line, last of all.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "pyinstaller" / "vault-app.spec"


def onnx_export_dir() -> Path:
    """The default model's ONNX export (made once, in a child process, if need be)."""
    from vault_app.search import embedding_model, onnx_export

    return onnx_export.ensure_onnx_export(embedding_model.resolve_model(None), notice=say)


def build_bundle(dist: Path, work: Path, export: Path) -> Path:
    """PyInstaller on the spec; the onedir bundle `dist/vault-app/`."""
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        str(SPEC),
        "--noconfirm",
        "--clean",
        "--log-level=WARN",
        f"--distpath={dist}",
        f"--workpath={work}",
        "--",
        f"--onnx-export={export}",
    ]
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    subprocess.run(command, check=True, cwd=ROOT, env=env)
    return dist / "vault-app"


def say(text: str) -> None:
    print(f"build: {text}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="the artifacts' folder")
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="the work folder")
    parser.add_argument("--no-deb", action="store_true", help="the bundle only")
    parser.add_argument("--fast", action="store_true", help="a zstd .deb (quick, bigger)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import vault_app

    started = time.perf_counter()
    export = onnx_export_dir()
    say(f"ONNX export: {export} ({time.perf_counter() - started:.1f} s)")
    bundle = build_bundle(args.dist.resolve(), args.work.resolve() / "pyinstaller", export)
    say(f"bundle: {bundle} ({time.perf_counter() - started:.1f} s)")
    artifacts = [bundle]
    if sys.platform.startswith("linux") and not args.no_deb:
        sys.path.insert(0, str(HERE / "linux"))
        import build_deb

        version = vault_app.__version__
        compression = "fast" if args.fast else "xz"
        deb = build_deb.build_deb(
            bundle, version, args.dist.resolve(), args.work.resolve(), compression
        )
        say(f"deb: {deb} ({time.perf_counter() - started:.1f} s)")
        artifacts.append(deb)
    for artifact in artifacts:
        print(artifact)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
