"""Counting tokens of a context: exactly with the embedding model's tokenizer, else an estimate.

Budgets are in characters (the context builder's unit); people and prompts think in
tokens. `counter_for(engine)` gives a `TokenCounter`: when the engine's semantic side is
loaded it counts with that model's own tokenizer (the ONNX export's `tokenizer.json`,
loaded again without the model's 256-token truncation, or the sentence-transformers
tokenizer), `exact` True; without a model it estimates one token per four characters
(`exact` False: faces show "≈").
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

CHARS_PER_TOKEN = 4  # English prose through a WordPiece or BPE vocabulary, roughly


class TokenCounter:
    """`count(text)`: how many tokens `text` is; `exact` says whether it is an estimate."""

    def __init__(self, encode: Any = None, name: str = "") -> None:
        self._encode = encode
        self.exact = encode is not None
        self.name = name  # the tokenizer's model, "" for the estimate

    def count(self, text: str) -> int:
        if not text:
            return 0
        if self._encode is None:
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        return int(self._encode(text))

    def label(self, count: int) -> str:
        """`1,204 tokens`, or `≈1,204 tokens` for an estimate."""
        return f"{'' if self.exact else '≈'}{count:,} tokens"


ESTIMATE = TokenCounter()


def counter_for(engine: Any) -> TokenCounter:
    """The counter of `engine`'s embedding model, or the estimate without one."""
    encoder = getattr(getattr(engine, "semantic", None), "encoder", None)
    if encoder is None:
        return ESTIMATE
    export_dir = getattr(encoder, "export_dir", None)
    if isinstance(export_dir, Path) and (export_dir / "tokenizer.json").is_file():
        tokenizer = _tokenizer(export_dir / "tokenizer.json")
        name = str(getattr(encoder, "meta", {}).get("model", export_dir.name))
        return TokenCounter(
            lambda text: len(tokenizer.encode(text, add_special_tokens=False)), name
        )
    model = getattr(encoder, "model", None)  # sentence-transformers on torch
    hf = getattr(model, "tokenizer", None)
    if hf is not None:
        return TokenCounter(
            lambda text: len(hf(text, add_special_tokens=False, truncation=False)["input_ids"]),
            str(getattr(getattr(encoder, "source", None), "label", "")),
        )
    return ESTIMATE


@functools.lru_cache(maxsize=4)
def _tokenizer(path: Path) -> Any:
    """The export's tokenizer without truncation or padding, loaded once per file (the
    MCP server builds a context, and so a counter, per call)."""
    import tokenizers

    tokenizer = tokenizers.Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer
