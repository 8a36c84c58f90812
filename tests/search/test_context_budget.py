"""The context builder's budget made visible (issue 16): the principles' guaranteed share
and the warning when they are cut all the same, items left out, the key of every line,
and tokens counted beside characters.

Variants thought of: long principles on a small budget (claim half, warn with the
budget that carries them whole, in `warnings` and in the JSON), principles that fit (no
warning), no principles at all (no warning, nothing claimed); a facts block with more
facts than room (left out counted, the JSON says so); each placed line's key (a fact's
line opens that fact); the token estimate without a model ("≈"), and the exact count
with the model's tokenizer when it is there.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path

import pytest

from vault_app.core import decay, vault
from vault_app.search import context, engine, token_count

NOW = dt.datetime(2026, 6, 15, 12, 0, 0).astimezone()
RULES = "# Principles\n\n" + "\n".join(
    f"- Rule {n}: never do thing {n} without asking." for n in range(60)
)


def make(tmp_path: Path, principles: str) -> context.ContextBuilder:
    v = vault.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    v.write_document("AGENTS.md", principles, expected=v.document("AGENTS.md").digest)
    v.create_agent("maintenance")
    v.create_entity("areas/house", "The house.")
    for n in range(40):
        v.add_fact("areas/house", f"The house needs check number {n} before winter", "context")
    e = engine.SearchEngine(v)
    e.open()
    return context.ContextBuilder(e)


def test_the_principles_get_their_share_and_a_warning_when_cut(tmp_path: Path) -> None:
    builder = make(tmp_path, RULES)
    ctx = builder.build("maintenance", budget=1500, mark_access=False)
    principles = ctx.blocks[0]
    assert principles.name == "principles" and principles.cut == 1
    old_share = context.SHARES["principles"] / sum(context.SHARES.values()) * 1500
    assert principles.used > 1.5 * old_share  # the guaranteed share, not the 15% one
    assert len(ctx.warnings) == 1 and "principles (global/AGENTS.md) are cut" in ctx.warnings[0]
    assert ctx.to_json()["warnings"] == ctx.warnings
    whole = int(ctx.warnings[0].split("about ")[1].split(" ")[0].replace(",", ""))
    bigger = builder.build("maintenance", budget=whole, mark_access=False)
    assert bigger.warnings == [] and bigger.blocks[0].body == RULES.strip()
    assert len(ctx.text) <= 1500


def test_no_warning_when_the_principles_fit_or_are_empty(tmp_path: Path) -> None:
    builder = make(tmp_path, "# Principles\n\nBe kind.\n")
    ctx = builder.build("maintenance", budget=1500, mark_access=False)
    assert ctx.warnings == [] and ctx.blocks[0].cut == 0
    (tmp_path / "v/global/AGENTS.md").write_text("", "utf-8")
    assert builder.build("maintenance", budget=1500, mark_access=False).warnings == []


def test_items_left_out_and_the_key_of_every_line(tmp_path: Path) -> None:
    builder = make(tmp_path, "# Principles\n\nBe kind.\n")
    ctx = builder.build("maintenance", "house check", budget=1500, mark_access=False)
    facts = next(b for b in ctx.blocks if b.name == "facts")
    assert facts.left_out > 0 and len(facts.lines) + facts.left_out <= 35
    assert len(facts.line_keys) == len(facts.lines)
    assert all(k and k.startswith("fact:") for k in facts.line_keys)
    data = next(b for b in ctx.to_json()["blocks"] if b["name"] == "facts")
    assert data["leftOut"] == facts.left_out
    principles = ctx.blocks[0]
    assert principles.line_keys == [None]  # a document has no item to open


def test_tokens_are_estimated_without_a_model(tmp_path: Path) -> None:
    builder = make(tmp_path, RULES)
    counter = token_count.counter_for(builder.search)
    assert not counter.exact and counter is token_count.ESTIMATE
    assert counter.count("a" * 401) == 101 and counter.count("") == 0
    assert counter.label(1204) == "≈1,204 tokens"


@pytest.mark.skipif(
    importlib.util.find_spec("tokenizers") is None, reason="the model's tokenizer is not installed"
)
def test_tokens_are_counted_with_the_model_tokenizer(tmp_path: Path) -> None:
    from vault_app.search import semantic

    available, reason = semantic.semantic_available(None)
    if not available:
        pytest.skip(reason)
    v = vault.Vault.create(tmp_path / "v")
    search, _ = engine.open_engine(v)
    counter = token_count.counter_for(search)
    assert counter.exact and counter.label(3) == "3 tokens"
    long = "the plumber fixed the leak " * 200  # far past the model's 256-token window
    assert counter.count(long) > 256
    assert counter.count("plumber") >= 1
