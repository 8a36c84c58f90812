"""Qt stays out of the headless packages: `vault_app.core`, `search`, `watch`, `heartbeat`
and `workspace`; the heavy libraries stay out of the window's start-up."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vault_app"
HEADLESS = ("core", "search", "watch", "heartbeat", "workspace")
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "PySide2", "shiboken6", "qtpy", "pytestqt")


def imported_modules(source: Path) -> list[tuple[int, str]]:
    tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((node.lineno, str(node.args[0].value)))
    return found


def headless_sources() -> list[Path]:
    return sorted(p for pkg in HEADLESS for p in (PACKAGE / pkg).rglob("*.py"))


@pytest.mark.parametrize("source", headless_sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_headless_module_does_not_import_qt(source: Path) -> None:
    offending = [
        f"{source.name}:{line}: import {name}"
        for line, name in imported_modules(source)
        if name.split(".")[0] in QT_MODULES or name.startswith("vault_app.ui")
    ]
    assert not offending, "Qt imported in a headless package:\n" + "\n".join(offending)


def test_the_core_and_cli_load_without_qt_at_all() -> None:
    """Transitive imports too: load every headless module and the CLI in a fresh process."""
    modules = [
        "vault_app.cli",
        *(
            ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)
            for p in headless_sources()
            if p.name != "__init__.py"
        ),
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r})\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"Qt modules loaded: {out.stdout.strip()}"


def test_the_window_starts_without_the_heavy_libraries() -> None:
    """The window's modules leave numpy, scipy, watchdog and torch to the workers that load
    the index and live sync after the window is shown (numpy alone: 0.1 s of start-up)."""
    code = (
        "import sys\n"
        "import vault_app.ui.app\n"
        "heavy = ('numpy', 'scipy', 'watchdog', 'torch', 'onnxruntime', 'sentence_transformers')\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "", f"loaded at start-up: {out.stdout.strip()}"


def test_the_checker_sees_a_qt_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom PySide6 import QtCore\n", encoding="utf-8")
    assert (2, "PySide6") in imported_modules(sample)
