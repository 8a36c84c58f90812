"""What the Windows build adds to the shared PyInstaller spec (packaging/pyinstaller/).

Windows is the one platform where a program is either a console program or a windowed
one: a console `vault-app.exe` started from the Start menu opens a console window behind
the app, and a windowed one has no stdout for the CLI. So the Windows bundle holds the
same program twice, built from the one Analysis: `vault-app.exe` (console: the CLI, and
the window when started from a terminal with no arguments) and `vault-appw.exe`
(windowed, as pythonw is to python: what the Start-menu shortcut of
packaging/windows/vault-app.iss starts). Both carry the icon and a version resource
whose numbers come from `vault_app.__version__`.

A windowed program has `sys.stdout` and `sys.stderr` set to None, and the CLI's `main`
flushes stdout when the window closes: `RUNTIME_HOOK` points both at the null device
first (in a console program they are real and the hook leaves them alone).

Used by the spec on Windows only; not tested on this project's machine (Linux), built
by .github/workflows/installers.yml.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GUI_NAME = "vault-appw"  # the windowed twin of `vault-app.exe`
RUNTIME_HOOK = HERE / "rthook_streams.py"


def numeric_version(version: str) -> tuple[int, int, int, int]:
    """The four numbers of a Windows version resource from a PEP 440 version: its release
    part, padded with zeros ("0.2.0rc1" -> (0, 2, 0, 0))."""
    match = re.match(r"\d+(?:\.\d+){0,3}", version)
    if match is None:
        raise ValueError(f"not a version a Windows resource can hold: {version!r}")
    numbers = [int(part) for part in match.group().split(".")]
    if any(n > 0xFFFF for n in numbers):
        raise ValueError(f"a Windows version number is at most 65535: {version!r}")
    padded = (*numbers, 0, 0, 0)
    return padded[0], padded[1], padded[2], padded[3]


def version_info(version: str, exe_name: str, description: str) -> Any:
    """The version resource of `exe_name`.exe (PyInstaller's `VSVersionInfo`, which
    `EXE(version=...)` takes): what Explorer's Properties > Details shows."""
    from PyInstaller.utils.win32 import versioninfo as vi

    numbers = numeric_version(version)
    strings = [
        vi.StringStruct("CompanyName", "vault-app"),
        vi.StringStruct("FileDescription", description),
        vi.StringStruct("FileVersion", version),
        vi.StringStruct("InternalName", exe_name),
        vi.StringStruct("OriginalFilename", f"{exe_name}.exe"),
        vi.StringStruct("ProductName", "vault-app"),
        vi.StringStruct("ProductVersion", version),
    ]
    return vi.VSVersionInfo(
        ffi=vi.FixedFileInfo(filevers=numbers, prodvers=numbers),
        kids=[
            vi.StringFileInfo([vi.StringTable("040904B0", strings)]),  # US English, UTF-16
            vi.VarFileInfo([vi.VarStruct("Translation", [0x0409, 1200])]),
        ],
    )
