"""The dynamic-int8 copy of an exported model, and the calibration that picks what stays float32.

`derive_int8()` runs once per model, as the last step of the ONNX export
(`onnx_export.export_onnx`): it writes `model.int8.onnx` beside the float32 model and
returns the recipe that `encoders.encoders.OnnxEncoder` follows (which MatMuls were kept in float32,
from what batch size and text length the int8 model is used). The calibration texts,
memory-like facts, notes and queries of many kinds, some terse, some odd (codes, names,
other languages), are the data file `data/int8_calibration.txt` (one text a line), shipped
with the package.
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vault_app.search import encoders

_INT8_STEPS = (0, 2, 4, 6, 7, 8, 9, 10, 12, 15, 18, 24)  # MatMuls kept in float32
INT8_MIN_COSINE = 0.993  # every calibration text, int8 vs float32 (0.99 is the promise)
INT8_MIN_TOKENS = 8  # shorter texts (queries, terse notes) always run in float32
INT8_BATCH = 32
CALIBRATION_FILE = "int8_calibration.txt"  # in data/: one text a line


def derive_int8(export_dir: Path) -> dict[str, Any] | None:
    """Make `model.int8.onnx` beside an export's float32 model; its recipe, or None.

    Dynamic int8 quantisation of the MatMuls with constant weights (weights per output
    column in 7 bits, as ONNX Runtime advises for CPUs without VNNI, where 8-bit weights
    overflow its int16 sums; activations uint8 with one scale per batch tensor), except
    the ones it hurts most. How much each hurts is measured on the real pipeline: a copy
    of the float32 graph quantises and dequantises the inputs and weights of the MatMuls
    a gate input selects (`_gated_model`), and each MatMul alone is scored by the worst
    cosines of the calibration texts to their float32 vectors. The worst are kept in
    float32, more at each step of `_INT8_STEPS`, until every calibration text of at least
    `INT8_MIN_TOKENS` tokens keeps a cosine of `INT8_MIN_COSINE` both in that simulation
    and on the real int8 model (batches of `INT8_BATCH`). None when no step gets there.
    About 20-40 s, once per model.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = encoders.OnnxEncoder(export_dir, int8=False)
    texts = [
        text
        for text, encoding in zip(_calibration(), fp32.tokenize(_calibration()), strict=True)
        if len(encoding.ids) >= INT8_MIN_TOKENS
    ]
    reference = fp32.encode(texts, batch_size=INT8_BATCH)
    names, gated = _gated_model(onnx.load(str(export_dir / "model.onnx")))
    options = fp32._ort.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = fp32._ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    simulated = fp32._ort.InferenceSession(gated, options, providers=["CPUExecutionProvider"])
    del gated

    def cosines(
        session: Any, gates: npt.NDArray[np.float32] | None, count: int = len(texts)
    ) -> encoders.FloatVector:
        """Cosines of the first `count` texts (the hand-written ones come first)."""
        vectors = np.empty_like(reference[:count])
        order = np.argsort([-len(text) for text in texts[:count]], kind="stable")
        for start, stop in encoders.chunks(count, INT8_BATCH):
            rows = order[start:stop]
            feeds: dict[str, Any] = dict(fp32.feeds(fp32.tokenize([texts[r] for r in rows])))
            if gates is not None:
                feeds[_GATES] = gates
            vectors[rows] = encoders.OnnxEncoder._run(session, feeds)
        return np.asarray(
            (encoders.normalised(vectors) * reference[:count]).sum(axis=1), np.float32
        )

    harm = []
    written = sum(text in written_texts() for text in texts)  # rank on these: half the time
    for position in range(len(names)):
        gates = np.zeros(len(names), dtype=np.float32)
        gates[position] = 1.0
        loss = np.sort(1.0 - cosines(simulated, gates, written))[-5:]  # the five worst
        harm.append(float(loss.mean()))
    ranking = [names[i] for i in np.argsort(harm, kind="stable")[::-1].tolist()]
    target = export_dir / "model.int8.onnx"
    for kept in _INT8_STEPS:
        if kept > len(ranking):
            break
        gates = np.array([name not in ranking[:kept] for name in names], dtype=np.float32)
        if float(cosines(simulated, gates).min()) < INT8_MIN_COSINE:
            continue
        quantize_dynamic(  # it logs advice on the root logger: the export's child process's
            export_dir / "model.onnx",
            target,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
            nodes_to_exclude=ranking[:kept],
        )
        worst = float(cosines(fp32._session(target.name, fp32.threads), None).min())
        if worst >= INT8_MIN_COSINE:
            return {
                "file": target.name,
                "excluded": ranking[:kept],
                "matmuls": len(ranking),
                "calibration_texts": len(texts),
                "calibration_min_cosine": round(worst, 6),
                "bulk_min_batch": encoders.BULK_MIN_BATCH,
                "min_tokens": INT8_MIN_TOKENS,
            }
    target.unlink(missing_ok=True)
    return None


_GATES = "vault_app_int8_gates"


def _gated_model(model: Any) -> tuple[list[str], bytes]:
    """The weight MatMuls of `model`, and a copy that simulates their int8 quantisation.

    The copy has one more input, a float vector of gates, one per MatMul: where a gate is
    1, the MatMul's input goes through DynamicQuantizeLinear and DequantizeLinear (uint8,
    one scale per tensor, as ONNX Runtime's dynamic quantisation does) and its weights
    are replaced by their 7-bit per-column quantisation; where it is 0, nothing changes.
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    weights = {init.name: init for init in graph.initializer if len(init.dims) == 2}
    targets = [n for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    graph.input.append(helper.make_tensor_value_info(_GATES, TensorProto.FLOAT, [len(targets)]))
    position = {id(node): i for i, node in enumerate(targets)}
    nodes = []
    for node in graph.node:
        i = position.get(id(node))
        if i is not None:
            p = f"{_GATES}/{i}"
            w = numpy_helper.to_array(weights[node.input[1]]).astype(np.float32)
            scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 63.0
            delta = np.clip(np.round(w / scale), -63, 63) * scale - w
            graph.initializer.extend(
                [
                    numpy_helper.from_array(np.array(i, dtype=np.int64), f"{p}/index"),
                    numpy_helper.from_array(delta.astype(np.float32), f"{p}/delta"),
                ]
            )
            x, weight = node.input[0], node.input[1]
            nodes += [
                helper.make_node("Gather", [_GATES, f"{p}/index"], [f"{p}/g"]),
                helper.make_node("DynamicQuantizeLinear", [x], [f"{p}/q", f"{p}/s", f"{p}/z"]),
                helper.make_node("DequantizeLinear", [f"{p}/q", f"{p}/s", f"{p}/z"], [f"{p}/d"]),
                helper.make_node("Sub", [f"{p}/d", x], [f"{p}/e"]),
                helper.make_node("Mul", [f"{p}/e", f"{p}/g"], [f"{p}/ge"]),
                helper.make_node("Add", [x, f"{p}/ge"], [f"{p}/x"]),
                helper.make_node("Mul", [f"{p}/delta", f"{p}/g"], [f"{p}/gd"]),
                helper.make_node("Add", [weight, f"{p}/gd"], [f"{p}/w"]),
            ]
            node.input[0], node.input[1] = f"{p}/x", f"{p}/w"
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return [node.name for node in targets], model.SerializeToString()


def _calibration() -> list[str]:
    """The calibration texts, and as many again spliced from two of them (half each)."""
    texts = list(written_texts())
    words = [text.split() for text in texts]
    for i, first in enumerate(words):
        second = words[(i * 7 + 3) % len(words)]
        texts.append(" ".join(first[: len(first) // 2] + second[len(second) // 2 :]))
    return list(dict.fromkeys(texts))


@functools.cache
def written_texts() -> tuple[str, ...]:
    """The hand-written calibration texts, as `data/int8_calibration.txt` lists them."""
    data = importlib.resources.files("vault_app.search").joinpath("data", CALIBRATION_FILE)
    return tuple(data.read_text(encoding="utf-8").splitlines())
