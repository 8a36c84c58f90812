"""The ONNX export's child process: `python -m vault_app.search.export_child LABEL PATH
FINGERPRINT OUT_DIR` (started by `onnx_export`, never imported by the library).

A program of its own, so it owns its process: torch's exporter warns as it works (a
deprecated exporter, tracer warnings), and here those warnings are ignored in this
process's filters, not in the host's. What vault_app logs goes to the parent as marked
JSON lines on stderr; an `ExportError` goes back the same way.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from vault_app.search import embedding_model, onnx_export


class Relay(logging.Handler):
    """Each log record of vault_app's loggers, as a line for the parent."""

    def emit(self, record: logging.LogRecord) -> None:
        line = json.dumps(["log", record.levelno, record.name, record.getMessage()])
        print(onnx_export.MARK + line, file=sys.stderr, flush=True)


def main(arguments: Sequence[str]) -> int:
    warnings.simplefilter("ignore")
    ours = logging.getLogger("vault_app")
    ours.addHandler(Relay())
    ours.setLevel(logging.INFO)
    ours.propagate = False  # the quantiser sets up the root logger: not twice
    label, path, fingerprint, out_dir = arguments
    try:
        source = embedding_model.ModelSource(label, Path(path), fingerprint)
        onnx_export.export_onnx(source, Path(out_dir))
    except embedding_model.ExportError as error:
        print(onnx_export.MARK + json.dumps(["error", str(error)]), file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
