"""Other writers' fact-file variants (spec §3) open, and are written back in their own shape.

Each folder of `tests/fixtures/variants/` is a small entity written the way one variant
writes it. Every file there is formatted exactly as its writer would format it (the
`style` of its `Variant`), so a decode/encode round trip must give the same bytes.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from vault_app.core import decay, formats, models
from vault_app.core import vault as vault_module

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "variants"
NOW = dt.datetime(2026, 3, 1, 12, 0, 0)  # naive: local time, like the fixtures' timestamps

INDENT_2 = (2, None, False, True)  # (indent, separators, ensure_ascii, trailing newline)


@dataclass(frozen=True)
class Variant:
    name: str
    tiers: tuple[int, int, int, int]  # hot, warm, cold, superseded at NOW
    file: str = "items.json"
    wrapper: str | None = None  # the list key of a wrapper object
    text_key: str = "fact"
    time_key: str = "timestamp"
    backward: bool = False
    word: str = "superseded"
    source_object: bool = False
    style: tuple[Any, ...] = INDENT_2
    lineage: tuple[tuple[str, str], ...] = ()

    @property
    def ref(self) -> str:
        return f"areas/{self.name}"

    def __str__(self) -> str:
        return self.name


VARIANTS = [
    Variant(
        "canonical",
        (2, 1, 1, 1),
        lineage=(
            ("fact-5d4c3b2a1f0e4d9c8b7a6f5e4d3c2b1a", "fact-a1b2c3d4e5f647a8b9c0d1e2f3a4b5c6"),
        ),
    ),
    Variant("facts-json-name", (1, 1, 1, 0), file="facts.json"),
    Variant(
        "wrapper-entityid-items",
        (2, 1, 0, 1),
        wrapper="items",
        lineage=(("kitchen-003", "kitchen-004"),),
    ),
    Variant("wrapper-entity-facts", (1, 1, 1, 0), wrapper="facts"),
    Variant("content-text", (1, 1, 1, 1), text_key="content", lineage=(("c-02", "c-03"),)),
    Variant(
        "supersedes-backward",
        (1, 1, 0, 2),
        backward=True,
        word="historical",
        lineage=(("b-1", "b-2"), ("b-2", "b-3")),
    ),
    Variant("status-historical", (1, 1, 0, 1), word="historical", lineage=(("h-1", "h-2"),)),
    Variant("source-object", (2, 1, 0, 0), source_object=True),
    Variant("created-time", (1, 1, 1, 0), time_key="created"),
    Variant("minimal-fields", (0, 0, 3, 0)),
    Variant("unknown-fields", (1, 1, 1, 0)),
    Variant("compact", (1, 1, 1, 0), style=(None, (",", ":"), False, False)),
    Variant("compact-python", (1, 1, 1, 0), style=(None, (", ", ": "), True, False)),
    Variant("indent-4", (1, 2, 1, 0), style=(4, None, False, True)),
    Variant("ascii-escaped", (1, 1, 1, 0), style=(2, None, True, True)),
]

pytestmark = pytest.mark.parametrize("variant", VARIANTS, ids=str)


# -- helpers --------------------------------------------------------------------------------


def render(value: Any, variant: Variant) -> bytes:
    """`value` formatted the way the variant's writer formats its files."""
    indent, separators, ensure_ascii, newline = variant.style
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ensure_ascii)
    return (text + ("\n" if newline else "")).encode("utf-8")


def ordered(value: Any) -> Any:
    """A JSON value whose comparison also checks the order of every object's keys."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


def entries(value: Any, variant: Variant) -> list[dict[str, Any]]:
    return value[variant.wrapper] if variant.wrapper else value


def fixture_path(variant: Variant) -> Path:
    return FIXTURES / variant.name / variant.file


def install(tmp_path: Path, variant: Variant) -> tuple[vault_module.Vault, Path]:
    """A vault at NOW holding the variant's folder as `areas/<name>`; returns its fact file."""
    v = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    folder = v.paths.life_dir / "areas" / variant.name
    shutil.copytree(FIXTURES / variant.name, folder)
    return v, folder / variant.file


# -- the fixtures themselves ------------------------------------------------------------------


def test_fixture_is_written_in_its_declared_style(variant: Variant) -> None:
    data = fixture_path(variant).read_bytes()
    value = json.loads(data)
    assert data == render(value, variant)
    assert 3 <= len(entries(value, variant)) <= 6
    other = {"items.json": "facts.json", "facts.json": "items.json"}[variant.file]
    assert not (FIXTURES / variant.name / other).exists()


def test_pure_round_trip_keeps_content_and_key_order(variant: Variant) -> None:
    path = fixture_path(variant)
    data = path.read_bytes()
    ff = formats.decode(path, data)
    again = formats.encode(ff)
    assert ordered(json.loads(again)) == ordered(json.loads(data))
    assert again == data


# -- reading ---------------------------------------------------------------------------------


def test_opens_with_every_fact_valid(tmp_path: Path, variant: Variant) -> None:
    v, path = install(tmp_path, variant)
    view = v.entity(variant.ref)
    raw = entries(json.loads(path.read_bytes()), variant)
    assert view.error is None
    assert view.invalid == []
    assert view.facts_path == path
    assert [f.id for f in view.facts] == [e["id"] for e in raw]
    for fact, entry in zip(view.facts, raw, strict=True):
        assert fact.fact == entry[variant.text_key]
        assert fact.category.value == entry["category"]
        if variant.time_key in entry:
            assert fact.timestamp == dt.datetime.fromisoformat(entry[variant.time_key])
    assert view.file is not None
    dialect = view.file.dialect
    assert dialect.shape == (variant.wrapper or "array")
    assert dialect.text_key == variant.text_key
    assert dialect.time_key == variant.time_key
    assert dialect.backward_lineage is variant.backward
    assert dialect.superseded_word == variant.word
    assert dialect.source_object is variant.source_object
    if variant.source_object:
        assert all(isinstance(f.source, models.SourceRef) for f in view.facts)
        assert view.facts[0].source_text == "conversation:telegram"


def test_lineage_both_ways(tmp_path: Path, variant: Variant) -> None:
    v, _ = install(tmp_path, variant)
    view = v.entity(variant.ref)
    for old_id, new_id in variant.lineage:
        old, new = view.fact(old_id), view.fact(new_id)
        assert old.superseded_by == new_id
        assert new.supersedes == old_id
        assert old.status is models.FactStatus.SUPERSEDED
        assert not old.is_active
    superseded = {old for old, _ in variant.lineage}
    assert {f.id for f in view.facts if not f.is_active} == superseded
    if variant.lineage:
        last = variant.lineage[-1][1]
        chain = [fact.id for _, fact in v.fact_history(last)]
        assert chain == [variant.lineage[0][0], *(new for _, new in variant.lineage)]


def test_tiers_from_scan_and_from_facts_agree(tmp_path: Path, variant: Variant) -> None:
    v, path = install(tmp_path, variant)
    scan = v.scan()
    (summary,) = [e for e in scan.entities if e.path == variant.ref]
    assert summary.problem is None
    assert summary.facts_file == path
    assert (summary.hot, summary.warm, summary.cold, summary.superseded) == variant.tiers
    assert summary.total == sum(variant.tiers)
    assert scan.problems == []
    view = v.entity(variant.ref)
    tiers = [v.tier(f) for f in view.facts if f.is_active]
    assert [tiers.count(t) for t in models.DecayTier] == list(variant.tiers[:3])


# -- writing back ----------------------------------------------------------------------------


def test_edits_are_written_in_the_files_own_shape(tmp_path: Path, variant: Variant) -> None:
    v, path = install(tmp_path, variant)
    original = json.loads(path.read_bytes())
    before = entries(original, variant)
    active = [f.id for f in v.entity(variant.ref).facts if f.is_active]
    to_supersede, to_mark = active[0], active[1]
    index = {entry["id"]: i for i, entry in enumerate(before)}

    added = v.add_fact(
        variant.ref, "Añadido: the espresso machine is a Gaggia ☕", "context", source="dialog-77"
    )
    old, new = v.supersede_fact(to_supersede, "A corrected statement", source="dialog-78")
    counts = v.mark_accessed([to_mark])
    stamp = formats.iso(v.now())

    # The same file, in the same layout: indent, separators, escaping, final newline.
    assert sorted(p.name for p in path.parent.glob("*.json")) == [variant.file]
    data = path.read_bytes()
    value = json.loads(data)
    assert data == render(value, variant)
    if variant.style[2]:
        assert data.isascii()
        assert b"A\\u00f1adido" in data
    else:
        assert "Añadido".encode() in data

    # The same top level: a bare array, or the wrapper with its keys in their order.
    assert type(value) is type(original)
    if variant.wrapper:
        assert list(value) == list(original)
        assert {k: x for k, x in value.items() if k != variant.wrapper} == {
            k: x for k, x in original.items() if k != variant.wrapper
        }
    after = entries(value, variant)
    assert len(after) == len(before) + 2

    # Facts nobody touched are equal as JSON values, unknown fields and key order included.
    for entry in before:
        if entry["id"] not in (to_supersede, to_mark):
            assert ordered(after[index[entry["id"]]]) == ordered(entry)

    # The superseded fact: only its status and (forward files only) its pointer changed.
    expected = dict(before[index[to_supersede]])
    expected["status"] = variant.word
    if not variant.backward:
        expected["supersededBy"] = new.id
    assert ordered(after[index[to_supersede]]) == ordered(expected)

    # The accessed fact: only accessCount and lastAccessed changed (added at the end if absent).
    expected = dict(before[index[to_mark]])
    expected["accessCount"] = expected.get("accessCount", 0) + 1
    expected["lastAccessed"] = stamp
    assert ordered(after[index[to_mark]]) == ordered(expected)
    assert counts == {to_mark: expected["accessCount"]}

    # New facts are spelled like the file's own facts.
    new_entries = after[-2:]
    assert [e["id"] for e in new_entries] == [added.id, new.id]
    other_text = {"fact": "content", "content": "fact"}[variant.text_key]
    other_time = {"timestamp": "created", "created": "timestamp"}[variant.time_key]
    for entry in new_entries:
        assert entry["status"] == "active"
        assert variant.text_key in entry and other_text not in entry
        assert entry[variant.time_key] == stamp and other_time not in entry
        if variant.source_object:
            assert set(entry["source"]) == {"type", "timestamp", "channel"}
        else:
            assert isinstance(entry["source"], str)
    assert new_entries[0][variant.text_key] == "Añadido: the espresso machine is a Gaggia ☕"
    if variant.source_object:
        assert new_entries[1]["source"]["channel"] == "dialog-78"
    else:
        assert new_entries[1]["source"] == "dialog-78"
    if variant.backward:
        assert new_entries[1]["supersedes"] == to_supersede
        assert not any("supersededBy" in e for e in after)
    else:
        assert new_entries[1]["supersededBy"] is None
        assert not any("supersedes" in e for e in after)

    # And the file still opens, with the new lineage readable both ways.
    view = v.entity(variant.ref)
    assert view.error is None and view.invalid == []
    assert len(view.facts) == len(before) + 2
    assert view.fact(to_supersede).superseded_by == new.id
    assert view.fact(new.id).supersedes == to_supersede
    assert (old.id, old.superseded_by, new.supersedes) == (to_supersede, new.id, to_supersede)
    assert view.fact(to_mark).access_count == expected["accessCount"]
    assert view.fact(added.id).source_text == (
        "vault-app:dialog-77" if variant.source_object else "dialog-77"
    )
