"""What a command reads besides its arguments: text from a file, stdin or $EDITOR,
its UTF-8 checked with the line and column of a bad byte."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vault_app.core import errors

if TYPE_CHECKING:
    pass


def decode_input(data: bytes, source: str) -> str:
    """Text read from a file or stdin; bad UTF-8 is an error naming the source and line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise errors.VaultError(
            f"{source} line {line}, column {column}: not valid UTF-8 ({exc.reason})"
        ) from None


def read_stdin() -> str:
    return decode_input(sys.stdin.buffer.read(), "stdin")


def read_text_arg(args: argparse.Namespace, initial: str, suffix: str = ".md") -> str:
    """The new text of a document: --text, --file (- for stdin), or $EDITOR."""
    if args.text is not None:
        return str(args.text)
    if args.file is not None:
        if args.file == "-":
            return read_stdin()
        return decode_input(Path(args.file).read_bytes(), args.file)
    if not sys.stdin.isatty():
        return read_stdin()
    import subprocess  # only here: kept out of the start-up of every command
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False, encoding="utf-8") as tmp:
        tmp.write(initial)
    try:
        try:
            subprocess.run([*editor.split(), tmp.name], check=True)
        except subprocess.CalledProcessError as exc:
            raise errors.VaultError(
                f"the editor ({editor}) exited with status {exc.returncode}; nothing was saved"
            ) from None
        return decode_input(Path(tmp.name).read_bytes(), tmp.name)
    finally:
        os.unlink(tmp.name)
