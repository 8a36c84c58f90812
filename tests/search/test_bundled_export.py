"""The ONNX export a frozen app ships (`onnx_export.bundled_export`): found only when
frozen and only for the default model; its vectors keep the identity of the export made
from the installed model, so a vault's embedding cache serves both."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from vault_app.search import embedding_model, encoders, onnx_export, semantic

pytestmark = pytest.mark.skipif(
    not semantic.semantic_available(backend="onnx")[0], reason="no ONNX backend here"
)


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A frozen app's bundle: the default model's export copied under BUNDLED_EXPORTS."""
    made = onnx_export.ensure_onnx_export(embedding_model.resolve_model(None))
    exports = tmp_path / "bundled_exports"
    folder = exports / onnx_export.bundled_export_name()
    shutil.copytree(made, folder)
    monkeypatch.setattr(onnx_export, "BUNDLED_EXPORTS", exports)
    return folder


def test_a_checkout_ignores_a_shipped_export(shipped: Path) -> None:
    assert not getattr(sys, "frozen", False)
    assert onnx_export.bundled_export(None) is None


def test_a_frozen_app_finds_the_export_it_ships(
    shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    for name in (None, "", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        assert onnx_export.bundled_export(name) == shipped
    assert onnx_export.bundled_export("/some/other/model") is None
    ok, how = semantic.semantic_available()
    assert ok and how == "all-MiniLM-L6-v2 on ONNX Runtime (shipped with the app)"
    encoder = semantic.load_encoder()
    assert isinstance(encoder, encoders.OnnxEncoder) and encoder.export_dir == shipped
    monkeypatch.setattr(sys, "frozen", False)
    installed = semantic.load_encoder(backend="onnx")
    assert isinstance(installed, encoders.OnnxEncoder) and installed.export_dir != shipped
    assert encoder.identity == installed.identity  # the same vectors: one embedding cache


def test_a_stale_or_damaged_shipped_export_is_not_used(
    shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    meta = shipped / "export.json"
    current = f'"version": {onnx_export.EXPORT_VERSION},'
    meta.write_text(meta.read_text().replace(current, '"version": 0,'))
    assert onnx_export.bundled_export(None) is None
    shutil.rmtree(shipped)
    assert onnx_export.bundled_export(None) is None
