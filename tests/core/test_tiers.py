"""MicroClaw's tiered MEMORY.md: one tier read or replaced, every other byte kept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_app.core import tiers

MICROCLAW = (
    "# Memory\n\n"
    "## Tier 1 — Long term\n\nOne line.\n\n"
    "## Tier 2 — Mid term\n\nTwo\nlines.\n\n"
    "## Tier 3 — Short term\n\nThree.\n"
)


def test_reads_each_tier() -> None:
    memory = tiers.split(MICROCLAW)
    assert memory.tiers() == {1: "One line.", 2: "Two\nlines.", 3: "Three."}
    assert tiers.render(memory) == MICROCLAW


def test_replacing_one_tier_keeps_the_others_byte_for_byte() -> None:
    text = MICROCLAW.replace("Two\nlines.", "Two  \n\n\n  lines. ")  # odd spacing elsewhere is kept
    changed = tiers.replace(text, 1, "New long-term line")
    start = text.index("## Tier 2")
    assert changed.endswith(text[start:])
    assert changed.startswith(
        "# Memory\n\n## Tier 1 — Long term\n\nNew long-term line\n\n## Tier 2"
    )
    assert tiers.read(changed, 1) == "New long-term line"


def test_replacing_the_last_tier_keeps_what_is_before() -> None:
    changed = tiers.replace(MICROCLAW, 3, "  Now: moving house.\n")
    assert changed == MICROCLAW.replace("Three.", "Now: moving house.")


def test_an_empty_file_becomes_microclaw_template_with_the_tier_filled() -> None:
    text = tiers.replace("", 2, "Project X")
    assert text == (
        "# Memory\n\n## Tier 1 — Long term\n\n\n## Tier 2 — Mid term\n\nProject X\n\n"
        "## Tier 3 — Short term\n"
    )
    assert tiers.template() == (
        "# Memory\n\n## Tier 1 — Long term\n\n\n## Tier 2 — Mid term\n\n\n## Tier 3 — Short term\n"
    )


def test_a_file_without_tiers_keeps_its_text_and_gains_the_tiers() -> None:
    text = "Some notes written by hand.\nNo tiers yet."
    changed = tiers.replace(text, 3, "recent")
    assert changed.startswith(text + "\n\n## Tier 1 — Long term\n")
    assert tiers.split(changed).tiers() == {1: "", 2: "", 3: "recent"}


def test_a_missing_tier_is_inserted_in_order() -> None:
    text = "# Memory\n\n## Tier 1 — Long term\n\nA\n\n## Tier 3 — Short term\n\nC\n"
    changed = tiers.replace(text, 2, "B")
    assert changed == (
        "# Memory\n\n## Tier 1 — Long term\n\nA\n\n"
        "## Tier 2 — Mid term\n\nB\n\n## Tier 3 — Short term\n\nC\n"
    )
    only_first = tiers.replace("## Tier 1 — Long term\n\nA", 3, "C")
    assert only_first == "## Tier 1 — Long term\n\nA\n\n## Tier 3 — Short term\n\nC\n"


def test_other_level_two_headings_end_a_tier_and_are_kept() -> None:
    text = "## Tier 1 — Long term\n\nA\n\n## Aside\n\nkept\n\n## Tier 2 — Mid term\n\nB\n"
    assert tiers.read(text, 1) == "A"
    changed = tiers.replace(text, 1, "A2")
    assert "## Aside\n\nkept\n\n" in changed and tiers.read(changed, 2) == "B"


def test_crlf_and_a_heading_without_line_end() -> None:
    text = "# Memory\r\n\r\n## Tier 1 — Long term\r\n\r\nA\r\n\r\n## Tier 2 — Mid term"
    assert tiers.render(tiers.split(text)) == text
    changed = tiers.replace(text, 1, "line1\nline2")
    assert changed.startswith(
        "# Memory\r\n\r\n## Tier 1 — Long term\r\n\r\nline1\r\nline2\r\n\r\n## Tier 2"
    )
    assert tiers.read(tiers.replace(text, 2, "B"), 2) == "B"


def test_a_tier_twice_is_read_joined_and_refused_for_replacement() -> None:
    text = "## Tier 1 — Long term\nA\n## Tier 1 — Long term\nB\n"
    assert tiers.read(text, 1) == "A\n\nB"
    with pytest.raises(tiers.TierError, match="appears 2 times"):
        tiers.replace(text, 1, "C")


def test_a_level_two_heading_inside_a_body_is_refused() -> None:
    with pytest.raises(tiers.TierError, match="would end the tier"):
        tiers.replace(MICROCLAW, 2, "ok\n## Not a tier\nmore")
    assert tiers.read(tiers.replace(MICROCLAW, 2, "### Sub\nmore"), 2) == "### Sub\nmore"


@pytest.mark.parametrize("bad", [0, 4, -1, True])
def test_tier_numbers_outside_1_to_3_are_refused(bad: int) -> None:
    with pytest.raises(tiers.TierError, match="tiers are 1"):
        tiers.replace(MICROCLAW, bad, "x")


lines = st.lists(
    st.sampled_from(
        [
            "# Memory",
            "## Tier 1 — Long term",
            "## Tier 2 — Mid term",
            "## Tier 3 — Short term",
            "## Other",
            "",
            "text",
            "  ## not a heading",
            "§",
        ]
    ),
    max_size=14,
)


@given(lines, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_split_then_render_gives_any_text_back(parts: list[str], newline: str, final: bool) -> None:
    text = newline.join(parts) + (newline if final else "")
    assert tiers.render(tiers.split(text)) == text


@given(lines, st.sampled_from([1, 2, 3]), st.text(max_size=30))
def test_replace_keeps_other_tiers_text(parts: list[str], number: int, body: str) -> None:
    text = "\n".join(parts) + "\n"
    before = tiers.split(text)
    if len(before.sections(number)) > 1:
        return
    after = tiers.split(tiers.replace(text, number, body.replace("## ", "")))
    for other in set(tiers.TIERS) - {number}:
        if len(before.sections(other)) == 1:
            assert after.tier(other) == before.tier(other)
