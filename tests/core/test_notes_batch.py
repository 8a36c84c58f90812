"""Hermes' batch `operations` on a § store: in order, all or none, budget on the result.

Variants thought of: room freed by a remove and used by an add in the same batch (over
the limit in between: no matter); a final state exactly at the limit (kept) and one over
(refused, nothing changed); a replace finding the entry an earlier add made; a failing
operation in the middle (no match, ambiguous, a duplicate, an empty content) refusing
the whole batch with its number; malformed operations (not a list, empty, an unknown
action or field, a number for a text); the same batch in a PARA vault (one locked,
backed-up, audited write; a hand-edited file refused) and in a Hermes home (under its
`.lock`; a drifted file refused with its `.bak`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_app.core import agent_memory, notes, storage
from vault_app.core import vault as vault_module
from vault_app.core.neighbours import hermes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"
Op = notes.Operation
ITEMS = ["a" * 10, "b" * 5]  # 10 + 3 + 5 = 18 characters


def test_intermediate_overflow_does_not_matter_only_the_result() -> None:
    ops = [Op("add", content="c" * 9), Op("remove", old_text="aaa")]  # 30 in between, then 17
    assert notes.apply_batch(ITEMS, ops, 20) == ["b" * 5, "c" * 9]


def test_exactly_at_the_limit_is_kept_one_over_is_refused() -> None:
    at = [Op("remove", old_text="aaa"), Op("add", content="c" * 12)]  # 5 + 3 + 12 = 20
    assert notes.usage(notes.apply_batch(ITEMS, at, 20)) == 20
    over = [Op("remove", old_text="aaa"), Op("add", content="c" * 13)]
    with pytest.raises(notes.BudgetError) as caught:
        notes.apply_batch(ITEMS, over, 20)
    assert (caught.value.current, caught.value.limit, caught.value.attempted) == (18, 20, 21)
    assert "these 2 operations" in str(caught.value)


def test_a_duplicate_add_is_skipped_as_hermes_skips_it() -> None:
    ops = [Op("add", content="b" * 5), Op("add", content="new"), Op("add", content="new")]
    assert notes.apply_batch(ITEMS, ops, 100) == [*ITEMS, "new"]


def test_each_operation_sees_what_the_ones_before_it_left() -> None:
    ops = [
        Op("add", content="Prefers tea\nin the morning"),
        Op("replace", old_text="tea", content="Prefers coffee"),
        Op("remove", old_text="bbb"),
    ]
    assert notes.apply_batch(ITEMS, ops, 100) == ["a" * 10, "Prefers coffee"]


@pytest.mark.parametrize(
    ("ops", "number", "kind"),
    [
        ([Op("add", content="x"), Op("remove", old_text="zzz")], 2, "no_unique_match"),
        ([Op("add", content="ab"), Op("remove", old_text="a")], 2, "no_unique_match"),
        (
            [Op("remove", old_text="aaa"), Op("replace", old_text="bb", content=" ")],
            2,
            "invalid_entry",
        ),
        (
            [Op("add", content="x"), Op("add", content="y"), Op("add", content="x\n§\ny")],
            3,
            "invalid_entry",
        ),
    ],
)
def test_one_refused_operation_refuses_the_batch(ops: list[Op], number: int, kind: str) -> None:
    with pytest.raises(notes.OperationError) as caught:
        notes.apply_batch(ITEMS, ops, 1000)
    assert caught.value.number == number and caught.value.kind == kind
    data = caught.value.to_dict()
    assert data["operation"] == number and data["error"] == kind
    assert f"operation {number} ({ops[number - 1].action})" in data["message"]
    assert "no operation was applied" in data["message"]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("add x", "non-empty list"),
        ([], "non-empty list"),
        (["add"], "operation 1 is not an object"),
        ([{"action": "rename", "content": "x"}], "'rename' is not add, replace or remove"),
        ([{"action": "add", "content": "x", "why": "y"}], "unknown field(s) why"),
        ([{"action": "add", "content": 3}], "content must be a string"),
        ([{"action": "add", "content": "ok"}, {"action": "replace", "content": "x"}], "old_text"),
    ],
)
def test_malformed_operations_are_refused_before_anything(raw: object, words: str) -> None:
    with pytest.raises(notes.EntryError, match=None) as caught:
        notes.operations(raw)
    assert words in str(caught.value)


def test_operations_read_from_their_json_form() -> None:
    raw = [{"action": "add", "content": "x"}, {"action": "remove", "old_text": "y"}]
    ops = notes.operations(raw)
    assert ops == [Op("add", content="x"), Op("remove", old_text="y")]
    assert [op.to_dict() for op in ops] == raw


WORDS = st.text(alphabet="abc §\n", min_size=1, max_size=12)
OPS = st.lists(
    st.one_of(
        st.builds(Op, st.just("add"), content=WORDS),
        st.builds(Op, st.just("replace"), content=WORDS, old_text=WORDS),
        st.builds(Op, st.just("remove"), old_text=WORDS),
    ),
    min_size=1,
    max_size=6,
)


@given(
    st.lists(st.text(alphabet="abc ", min_size=1, max_size=10), max_size=5), OPS, st.integers(0, 60)
)
def test_a_batch_is_its_operations_in_order_then_one_budget_check(
    start: list[str], ops: list[Op], limit: int
) -> None:
    items = list(dict.fromkeys(e.strip() for e in start if e.strip()))
    kept = list(items)
    expected: list[str] | None = items  # each operation alone, without a budget
    try:
        for op in ops:
            if op.action == "add":
                if (op.content or "").strip() in expected:
                    continue  # a duplicate add is skipped (as Hermes skips it)
                expected = notes.add(expected, op.content or "", 10**9)
            elif op.action == "replace":
                expected = notes.replace(expected, op.old_text or "", op.content or "", 10**9)
            else:
                expected = notes.remove(expected, op.old_text or "")
    except notes.NotesError:
        expected = None
    try:
        result = notes.apply_batch(items, ops, limit)
    except notes.OperationError:
        assert expected is None
    except notes.BudgetError as exc:
        assert expected is not None and notes.usage(expected) == exc.attempted > limit
    else:
        assert result == expected and notes.usage(result) <= limit
        assert notes.entries(notes.join(result)) == result  # reads back as written
    assert items == kept  # the list given is never changed


# -- in a PARA vault ------------------------------------------------------------------


@pytest.fixture
def v(vault: vault_module.Vault) -> vault_module.Vault:
    vault.create_agent("household")
    return vault


def audit(v: vault_module.Vault) -> list[dict[str, object]]:
    text = (v.root / ".vault" / storage.AUDIT_NAME).read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_a_batch_in_a_vault_is_one_audited_write(v: vault_module.Vault) -> None:
    for entry in ("Uses vim", "Boiler serviced in March"):
        agent_memory.change_notes(v, "household", "memory", "add", content=entry)
    lines = len(audit(v))
    state = agent_memory.batch_notes(
        v,
        "household",
        "memory",
        [Op("replace", old_text="vim", content="Uses helix"), Op("remove", old_text="Boiler")],
    )
    path = v.root / "agents/household/memories/MEMORY.md"
    assert path.read_text() == "Uses helix" and state.entries == ["Uses helix"]
    new = audit(v)[lines:]
    assert [line["action"] for line in new] == ["notes.batch"]


def test_a_refused_batch_in_a_vault_changes_no_byte(v: vault_module.Vault) -> None:
    agent_memory.change_notes(v, "household", "user", "add", content="x" * 1370)
    path = v.root / "agents/household/memories/USER.md"
    before, lines = path.read_bytes(), len(audit(v))
    with pytest.raises(notes.BudgetError):
        agent_memory.batch_notes(v, "household", "user", [Op("add", content="abc")])
    with pytest.raises(notes.OperationError):
        agent_memory.batch_notes(
            v, "household", "user", [Op("add", content="ok"), Op("remove", old_text="nope")]
        )
    assert path.read_bytes() == before and len(audit(v)) == lines
    path.write_bytes(b"one\n\n\xc2\xa7\n\ntwo")  # by hand: blank lines around the separator
    with pytest.raises(agent_memory.DriftError):
        agent_memory.batch_notes(v, "household", "user", [Op("remove", old_text="one")])
    assert path.read_bytes() == b"one\n\n\xc2\xa7\n\ntwo" and len(audit(v)) == lines


# -- in a Hermes home -----------------------------------------------------------------


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_a_batch_in_a_hermes_home_under_its_lock(tmp_path: Path) -> None:
    home = hermes.HermesHome(shutil.copytree(FIXTURES / "hermes", tmp_path / "h"), actor="cli")
    path = home.root / "memories" / "MEMORY.md"
    before = home.read_notes(None, "memory").entries
    state = home.batch_notes(
        None,
        "memory",
        [Op("remove", old_text="Fedora 41"), Op("add", content="Laptop: Fedora 42, dnf.")],
    )
    assert state.entries == [*before[1:], "Laptop: Fedora 42, dnf."]
    assert path.read_text(encoding="utf-8") == notes.join(state.entries)
    assert (home.root / "memories" / "MEMORY.md.lock").exists()
    refused = path.read_bytes()
    with pytest.raises(notes.BudgetError):
        home.batch_notes(None, "memory", [Op("add", content="z" * 3000)])
    assert path.read_bytes() == refused


def test_a_batch_refuses_a_drifted_hermes_store(tmp_path: Path) -> None:
    home = hermes.HermesHome(
        shutil.copytree(FIXTURES / "hermes-drift", tmp_path / "d"), actor="cli"
    )
    path = home.root / "memories" / "MEMORY.md"
    before = path.read_bytes()
    with pytest.raises(hermes.DriftError) as caught:
        home.batch_notes(None, "memory", [Op("add", content="new")])
    assert caught.value.backup.read_bytes() == before and path.read_bytes() == before
