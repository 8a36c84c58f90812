"""PyInstaller runtime hook: a windowed Windows program gets a null stdout and stderr.

Python sets `sys.stdout` and `sys.stderr` to None in a program without a console
(`vault-appw.exe`, packaging/windows/windows_bundle.py); the CLI's `main` flushes stdout
when the window closes, and a library may write a warning to stderr. Pointed at the
null device, they swallow that instead of raising AttributeError. A console program has
real streams: untouched.
"""

import os
import sys

if sys.stdout is None:
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the process's own)
if sys.stderr is None:
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
