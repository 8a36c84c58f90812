"""The ONNX export: a sentence-transformers model, once, as one ONNX graph plus its tokenizer.

`ensure_onnx_export()` returns the export of a model, making it on first use: the
sentence-transformers pipeline (transformer, pooling, normalisation) exported offline from
the local model folder, checked against sentence-transformers on probe texts (same token
ids, cosine >= 0.999), and kept under `<cache_dir>/<model>-<fingerprint>-onnx-v<EXPORT_VERSION>/`
(default cache_dir: the user's cache folder, `embedding_model.default_cache_dir`), with
the dynamic-int8 copy `int8_calibration.derive_int8` derives beside it.
`encoders.OnnxEncoder` runs what is exported here without torch.

A frozen app (the PyInstaller bundle, packaging/pyinstaller) has no torch to export with:
its build makes the default model's export and ships it under `BUNDLED_EXPORTS`, and
`bundled_export()` finds it there (only when `sys.frozen` is set: a checkout or a wheel
exports into the user's cache as above).

The export runs in a child Python process (`_export_in_child`): torch's exporter warns as
it works (its TorchScript exporter is deprecated, its tracer warns about the branches it
records) and ONNX Runtime's quantiser logs advice on the root logger. In the child, all of
that stays out of the host process, whose warnings filters and logging are the host's
(an app, a test run, another thread), and the memory torch takes goes away with it.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import filelock
import numpy as np

from vault_app.search import embedding_model, encoders, int8_calibration

log = logging.getLogger(__name__)

Notice = Callable[[str], None]
EXPORT_VERSION = 3  # 3: int8 recipe chosen at a calibration cosine of 0.993
MIN_EXPORT_COSINE = 0.999  # the export must agree this well with sentence-transformers

# Probe texts of the export check: cased, accented, CJK, empty-ish, and one long enough to
# be truncated at any max_seq_length up to 512.
_PROBES = (
    "Who fixes our pipes?",
    "Sofia Nguyen from Northside Renovations measured the bathroom on 2026-03-14.",
    "ALEX PREFERS AISLE SEATS and morning flights; Jordan doesn't.",
    "Café au lait, naïve façade, Zürich — 東京 — emoji 🙂 and tabs\tinside.",
    " ",
    "x",
    " ".join(["The boiler was serviced by Greg before the winter storm hit Millbrook."] * 60),
)


BUNDLED_EXPORTS = Path(__file__).resolve().parent / "bundled_exports"
"""Where a frozen app ships ONNX exports: `<this package>/bundled_exports/<model>/`."""


def bundled_export_name(model: str = embedding_model.DEFAULT_MODEL) -> str:
    """The folder under `BUNDLED_EXPORTS` that holds the export of `model`."""
    return embedding_model.slug(model)


def bundled_export(model: str | os.PathLike[str] | None = None) -> Path | None:
    """The export of `model` shipped with a frozen app, or None: not frozen, not the
    default model (the only one shipped), or no current export there.

    The export carries the model's fingerprint (`export.json`), so its vectors have the
    same identity as those of an export made from the installed model.
    """
    if not getattr(sys, "frozen", False) or not embedding_model.is_default(model):
        return None
    folder = BUNDLED_EXPORTS / bundled_export_name()
    try:
        meta = encoders.read_export_meta(folder)
    except embedding_model.ExportError:
        return None
    current = meta.get("version") == EXPORT_VERSION
    return folder if current and meta.get("model") == embedding_model.DEFAULT_MODEL else None


def onnx_export_dir(source: embedding_model.ModelSource, cache_dir: Path | None = None) -> Path:
    """Where the ONNX export of `source` lives (or will)."""
    folder = cache_dir if cache_dir is not None else embedding_model.default_cache_dir()
    name = f"{embedding_model.slug(source.label)}-{source.fingerprint[:16]}-onnx-v{EXPORT_VERSION}"
    return folder / name


def export_is_current(export_dir: Path, source: embedding_model.ModelSource) -> bool:
    try:
        meta = encoders.read_export_meta(export_dir)
    except embedding_model.ExportError:
        return False
    return bool(
        meta.get("version") == EXPORT_VERSION and meta.get("fingerprint") == source.fingerprint
    )


def ensure_onnx_export(
    source: embedding_model.ModelSource, cache_dir: Path | None = None, notice: Notice | None = None
) -> Path:
    """The folder of the ONNX export of `source`, exporting it first if need be.

    The export (about 10 s with the import of torch) runs once per model and cache folder,
    in a child process (`_export_in_child`), under a file lock so that two processes do not
    both do it; it is written to a temporary folder and renamed into place, so a crash
    leaves no half export.
    """
    export_dir = onnx_export_dir(source, cache_dir)
    if export_is_current(export_dir, source):
        return export_dir
    export_dir.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(export_dir) + ".lock"):
        if export_is_current(export_dir, source):
            return export_dir
        (notice or log.info)(
            f"semantic search: exporting {source.label} to ONNX once (about 30 s), "
            f"into {export_dir}"
        )
        staging = export_dir.with_name(f".{export_dir.name}.{secrets.token_hex(4)}.tmp")
        try:
            _export_in_child(source, staging)
            if export_dir.exists():
                shutil.rmtree(export_dir)
            os.replace(staging, export_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return export_dir


def export_onnx(source: embedding_model.ModelSource, out_dir: Path) -> None:
    """Export the sentence-transformers pipeline of `source` to `out_dir`, and check it.

    Needs torch, sentence-transformers and onnx (only here: running the export needs only
    onnxruntime and tokenizers). The graph takes the tokenizer's inputs and returns the
    pipeline's `sentence_embedding` (transformer, pooling, dense layers, normalisation:
    whatever the model's modules are). The check tokenises the probe texts both ways
    (the ids must be equal) and encodes them both ways (cosine at least 0.999 each);
    `embedding_model.ExportError` otherwise.
    """
    try:
        import sentence_transformers
        import torch
    except ImportError as error:
        raise embedding_model.ExportError(
            f"the export needs sentence-transformers and torch ({error})"
        ) from error
    if importlib.util.find_spec("onnx") is None:
        raise embedding_model.ExportError("the export needs the onnx package")
    out_dir.mkdir(parents=True, exist_ok=True)
    model = _load_for_export(sentence_transformers, source)
    tokenizer = model.tokenizer
    input_names = [
        name
        for name in tokenizer.model_input_names
        if name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    if "input_ids" not in input_names or "attention_mask" not in input_names:
        raise embedding_model.ExportError(
            f"{source.label}: unsupported tokenizer inputs {input_names}"
        )
    features = model.preprocess(list(_PROBES[:2]))
    extras = {k: v for k, v in features.items() if not isinstance(v, torch.Tensor)}

    class Pipeline(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: Any) -> Any:
            batch = dict(zip(input_names, tensors, strict=True))
            batch.update(extras)
            return self.model(batch)["sentence_embedding"]

    dynamic = {name: {0: "batch", 1: "sequence"} for name in input_names}
    dynamic["sentence_embedding"] = {0: "batch"}
    try:
        with torch.no_grad():
            torch.onnx.export(
                Pipeline().eval(),
                tuple(features[name] for name in input_names),
                str(out_dir / "model.onnx"),
                input_names=input_names,
                output_names=["sentence_embedding"],
                dynamic_axes=dynamic,
                opset_version=17,
                dynamo=False,
            )
    except Exception as error:
        raise embedding_model.ExportError(
            f"{source.label}: torch.onnx.export failed: {error}"
        ) from error
    backend = tokenizer.backend_tokenizer
    backend.no_padding()
    backend.no_truncation()
    backend.save(str(out_dir / "tokenizer.json"))
    dimension = int(model.get_embedding_dimension() or 0)
    meta = {
        "format": encoders.EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "model": source.label,
        "fingerprint": source.fingerprint,
        "input_names": input_names,
        "max_seq_length": int(model.max_seq_length),
        "pad_id": int(tokenizer.pad_token_id or 0),
        "pad_type_id": int(getattr(tokenizer, "pad_token_type_id", 0) or 0),
        "dimension": dimension,
        "torch": torch.__version__,
        "sentence_transformers": sentence_transformers.__version__,
    }
    (out_dir / "export.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    _check_export(model, out_dir, input_names)
    try:
        meta["int8"] = int8_calibration.derive_int8(out_dir)
    except Exception as error:  # the float32 export stands on its own
        log.warning("semantic search: no int8 model for %s (%s)", source.label, error)
        meta["int8"] = None
    (out_dir / "export.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _load_for_export(sentence_transformers: Any, source: embedding_model.ModelSource) -> Any:
    """The model with eager attention (which exports to plainer ops), else as it comes."""
    kwargs: dict[str, Any] = {"device": "cpu", "local_files_only": True}
    try:
        model = sentence_transformers.SentenceTransformer(
            str(source.path), model_kwargs={"attn_implementation": "eager"}, **kwargs
        )
    except Exception:
        try:
            model = sentence_transformers.SentenceTransformer(str(source.path), **kwargs)
        except Exception as error:
            raise embedding_model.ExportError(f"cannot load {source.label}: {error}") from error
    return model.eval()


def _check_export(model: Any, out_dir: Path, input_names: list[str]) -> None:
    encoder = encoders.OnnxEncoder(out_dir, threads=1, int8=False)
    features = model.preprocess(list(_PROBES))
    for row, encoding in enumerate(encoder.tokenize(_PROBES)):
        for name, ours in (("input_ids", encoding.ids), ("token_type_ids", encoding.type_ids)):
            if name not in input_names:
                continue
            theirs = features[name][row][features["attention_mask"][row].bool()].tolist()
            if list(ours) != theirs:
                raise embedding_model.ExportError(
                    f"the exported tokenizer differs on {_PROBES[row][:40]!r}"
                )
    ours_vectors = encoder.encode(_PROBES, batch_size=3)
    reference = model.encode(
        list(_PROBES), convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
    )
    cosine = (ours_vectors * encoders.normalised(reference)).sum(axis=1)
    if not np.all(cosine >= MIN_EXPORT_COSINE):
        worst = float(cosine.min())
        raise embedding_model.ExportError(
            f"the ONNX export disagrees with the model (min cosine {worst:.4f})"
        )


# ------------------------------------------------------------------- the child process

MARK = "vault-app-export "  # starts the child's lines meant for this process (JSON follows)
CHILD = "vault_app.search.export_child"  # the child's program (`python -m`)


def _export_in_child(source: embedding_model.ModelSource, out_dir: Path) -> None:
    """`export_onnx(source, out_dir)` in a child Python process (see the module docstring).

    The child imports this package from where this process does (its `sys.path`), runs
    offline (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE: nothing is ever downloaded), and
    ignores the exporter's warnings, in its own filters; its log records are logged here,
    and its `ExportError` is raised here (or the last line of its error output).
    """
    if not sys.executable:
        raise embedding_model.ExportError("no Python executable to run the ONNX export in")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(entry for entry in sys.path if entry),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    arguments = [source.label, str(source.path), source.fingerprint, str(out_dir)]
    done = subprocess.run(
        [sys.executable, "-m", CHILD, *arguments],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=env,
        check=False,
    )
    problem = ""
    for line in done.stderr.splitlines():
        if not line.startswith(MARK):
            problem = line.strip() or problem
            continue
        message = json.loads(line[len(MARK) :])
        if message[0] == "log":
            _, level, name, text = message
            logging.getLogger(name).log(level, "%s", text)
        else:
            problem = message[1]
            break
    if done.returncode != 0:
        raise embedding_model.ExportError(
            problem or f"the ONNX export process failed (exit status {done.returncode})"
        )
