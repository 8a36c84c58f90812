"""Hand-written text in summary.md (and index.md) survives synthesis, whatever the facts say.

Variants thought of, and where each is covered:

- a fact whose text is the end marker (`<!-- vault-app:synthesis:end -->`): the file grew
  by 10 lines at every run -> `test_fact_text_cannot_forge_the_end_marker` (CLI, two runs);
- the same with the begin marker, with spaces and capitals inside the comment, a bare
  `<!--` or `-->` (would hide the rest of the rendered file) -> `FORGERIES`, same test and
  `test_rendered_block_holds_no_comment_sequence`;
- the end marker deleted by hand: the second run deleted the notes below it ->
  `test_damaged_block_is_refused_and_reported` (begin without end), along with an end
  without begin, two blocks, an end before its begin, a duplicated end, markers
  differently spelled (case, spaces): refused with the file and line, the file untouched
  (bytes), `synthesize` exits 0 with a warning, `doctor` reports the problem, other
  entities are still synthesised;
- markers inside a code fence: counted as markers (a damaged block is refused, never
  rewritten) -> `DAMAGED["fenced"]`; indented by 4 spaces (markdown code) they are text
  -> `test_indented_marker_is_text`;
- a marker mentioned inside a line of prose is prose -> `test_marker_inside_prose_is_text`;
- CRLF files: the block takes the file's line breaks and the user's CRLF bytes are kept
  -> `test_crlf_summary_keeps_its_bytes`;
- index.md with a damaged block, and an entity gist (first prose line) holding a marker ->
  `test_index_damaged_block_is_reported_not_rewritten`, `test_gist_cannot_forge_index_marker`;
- the dry run's diff is what the real run writes -> `test_dry_run_diff_matches_real_run`
  and in the property over a real vault;
- property (hypothesis): for any hand-written text around the block and any fact texts,
  synthesis is refused with the file unchanged, or keeps every hand-written byte and is
  idempotent; it is refused only when the hand-written text holds a marker line ->
  `test_property_merge_keeps_hand_written_text` (pure functions, many examples) and
  `test_property_real_vault` (real files, fewer examples).
"""

from __future__ import annotations

import datetime as dt
import difflib
import itertools
import json
import subprocess
from pathlib import Path

import cli_process
import hypothesis
import pytest
from hypothesis import strategies as st

from vault_app.core import decay, doctor, errors, models, synthesis
from vault_app.core import vault as vault_module

NOW = dt.datetime(2026, 3, 1, 14, 5, 9)
JANE = "areas/people/jane"
ROOT = Path(__file__).resolve().parents[2]

FORGERIES = [
    synthesis.END,
    synthesis.BEGIN,
    "<!-- vault-app:synthesis:begin -->",
    "<!--  VAULT-APP : Synthesis : End  -->",
    f"before {synthesis.END} after",
    "an open comment <!-- that never closes",
    "--> a closer",
    synthesis.INDEX_END,
]


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    target = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_entity(JANE, summary="The user's sister-in-law.")
    return target


def summary_path(v: vault_module.Vault, entity: str = JANE) -> Path:
    return v.paths.life_dir / entity / "summary.md"


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(home, *argv, now=NOW.isoformat(), timeout=120)


def test_fact_text_cannot_forge_the_end_marker(v: vault_module.Vault) -> None:
    for text in FORGERIES:
        done = cli(v.root, "fact", "add", JANE, f"--text={text}", "--category", "context")
        assert done.returncode == 0, done.stderr
    first = cli(v.root, "synthesize")
    assert first.returncode == 0, first.stderr
    after_first = summary_path(v).read_bytes()
    for _ in range(3):
        again = cli(v.root, "synthesize", "--json")
        assert again.returncode == 0, again.stderr
        assert not any(r["changed"] for r in json.loads(again.stdout)["results"])
    assert summary_path(v).read_bytes() == after_first
    text = after_first.decode()
    assert text.startswith("# Jane\n\nThe user's sister-in-law.\n\n" + synthesis.BEGIN + "\n")
    assert text.endswith(synthesis.END + "\n")
    block = text[text.index(synthesis.BEGIN) : text.rindex(synthesis.END)]
    assert block.count("<!--") == 1  # only the begin marker itself
    assert len([line for line in text.splitlines() if line.startswith("- ")]) == len(FORGERIES)


def test_rendered_block_holds_no_comment_sequence() -> None:
    facts = [
        (
            models.Fact.model_validate(
                {
                    "id": f"f{i}",
                    "fact": text,
                    "category": "context",
                    "timestamp": "2026-01-01T00:00:00",
                    "source": "x",
                    "lastAccessed": "2026-01-01T00:00:00",
                }
            ),
            models.DecayTier.HOT,
        )
        for i, text in enumerate([*FORGERIES, "a\n<!--\nb", "x\\<!-- y", "<!---->"])
    ]
    block = synthesis.render_block(facts, 0)
    inner = block.removeprefix(synthesis.BEGIN).removesuffix(synthesis.END)
    assert "<!--" not in inner and "-->" not in inner
    assert synthesis.find_block(block, synthesis.BEGIN, synthesis.END) == (0, len(block))


DAMAGED = {
    "begin without end": (f"# Jane\n\n{synthesis.BEGIN}\n\n- a\n\n## Notes\n\nMine.\n", 3),
    "end without begin": (f"# Jane\n\n- a\n\n{synthesis.END}\n\n## Notes\n\nMine.\n", 5),
    "two blocks": (
        f"# Jane\n\n{synthesis.BEGIN}\n{synthesis.END}\nMine.\n"
        f"{synthesis.BEGIN}\n{synthesis.END}\n",
        6,
    ),
    "end before begin": (f"# Jane\n{synthesis.END}\nMine.\n{synthesis.BEGIN}\n", 2),
    "two ends": (f"{synthesis.BEGIN}\n{synthesis.END}\nMine.\n{synthesis.END}\n", 4),
    "odd spelling": (
        f"# Jane\n\n{synthesis.BEGIN}\n- a\n  <!-- Vault-App:SYNTHESIS:end  -->  \nMine.\n"
        f"<!--vault-app:synthesis:END-->\n",
        7,
    ),
    "fenced": (
        f"# Jane\n\n{synthesis.BEGIN}\n{synthesis.END}\n\n```\n{synthesis.BEGIN}\n```\nMine.\n",
        7,
    ),
}


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_damaged_block_is_refused_and_reported(v: vault_module.Vault, case: str) -> None:
    text, line = DAMAGED[case]
    v.add_fact(JANE, "Jane moved to Lyon", "milestone")
    v.create_entity("projects/roof", summary="Roof work.")
    v.add_fact("projects/roof", "Quote received", "status")
    summary_path(v).write_text(text)
    before = summary_path(v).read_bytes()
    with pytest.raises(errors.CorruptFileError) as caught:
        synthesis.merge_block(text, "x", "Jane", synthesis.BEGIN, synthesis.END, "s.md")
    assert caught.value.location == f"line {line}"
    # the library: a problem naming the file and line; the other entity is synthesised
    _, problems = v.synthesize(dry_run=True)
    assert [(p.path, p.location) for p in problems] == [
        (f"global/life/{JANE}/summary.md", f"line {line}")
    ]
    assert "no hand-written text is lost" in problems[0].message
    # the command line: exit 0, a warning, the file byte for byte as it was
    done = cli(v.root, "synthesize", "--json")
    assert done.returncode == 0, done.stderr
    assert f"summary.md at line {line}" in done.stderr
    files = [r["file"] for r in json.loads(done.stdout)["results"]]
    assert "global/life/projects/roof/summary.md" in files
    assert "Quote received" in summary_path(v, "projects/roof").read_text()
    assert summary_path(v).read_bytes() == before
    # doctor reports it, with the place
    report = doctor.run(v)
    assert any(
        p.path == f"global/life/{JANE}/summary.md" and p.location == f"line {line}"
        for p in report.errors
    )
    checked = cli(v.root, "doctor")
    assert checked.returncode != 0 and f"line {line}" in checked.stdout + checked.stderr


def test_indented_marker_is_text(v: vault_module.Vault) -> None:
    quoted = f"# Jane\n\nHow the block looks:\n\n    {synthesis.BEGIN}\n    {synthesis.END}\n"
    summary_path(v).write_text(quoted)
    v.add_fact(JANE, "Jane moved to Lyon", "milestone")
    v.synthesize([JANE])
    text = summary_path(v).read_text()
    assert text.startswith(quoted) and "Jane moved to Lyon" in text
    assert not v.synthesize([JANE])[0][0].changed


def test_marker_inside_prose_is_text(v: vault_module.Vault) -> None:
    prose = f"# Jane\n\nThe app writes {synthesis.END} after its block.\n"
    summary_path(v).write_text(prose)
    v.synthesize([JANE])
    assert summary_path(v).read_text().startswith(prose)
    assert not v.synthesize([JANE])[0][0].changed


def test_crlf_summary_keeps_its_bytes(v: vault_module.Vault) -> None:
    summary_path(v).write_bytes(b"# Jane\r\n\r\nMine.\r\n")
    v.add_fact(JANE, "Jane moved to Lyon", "milestone")
    v.synthesize([JANE])
    data = summary_path(v).read_bytes()
    assert data.startswith(b"# Jane\r\n\r\nMine.\r\n\r\n" + synthesis.BEGIN.encode() + b"\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    data = data + b"\r\nNotes after.\r\n"
    summary_path(v).write_bytes(data)
    assert not v.synthesize([JANE])[0][0].changed
    assert summary_path(v).read_bytes() == data


def test_index_damaged_block_is_reported_not_rewritten(v: vault_module.Vault) -> None:
    index = v.paths.life_dir / "index.md"
    text = f"# Index\n\n{synthesis.INDEX_BEGIN}\n- stale\n\n## My own list\n\n- keep me\n"
    index.write_text(text)
    results, problems = v.synthesize()
    assert index.read_text() == text
    assert [(p.path, p.location) for p in problems] == [("global/life/index.md", "line 3")]
    assert any(r.path == summary_path(v) for r in results)
    assert any(p.path == "global/life/index.md" for p in doctor.run(v).errors)


def test_gist_cannot_forge_index_marker(v: vault_module.Vault) -> None:
    summary_path(v).write_text(f"# Jane\n\nShe wrote {synthesis.INDEX_END} <!-- here\n")
    v.synthesize()
    index = (v.paths.life_dir / "index.md").read_text()
    assert v.synthesize()[0] and not any(r.changed for r in v.synthesize()[0])
    block = index[index.index(synthesis.INDEX_BEGIN) + 1 : index.rindex(synthesis.INDEX_END)]
    assert "<!--" not in block.split("\n", 1)[1] and "-->" not in block.split("\n", 1)[1]
    assert synthesis.first_line(summary_path(v).read_text()).startswith("She wrote")


def test_dry_run_diff_matches_real_run(v: vault_module.Vault) -> None:
    summary_path(v).write_text(
        "# Jane\n\nMine.\n\n" + synthesis.BEGIN + "\n- old\n" + synthesis.END
    )
    v.add_fact(JANE, f"Jane said {synthesis.END}", "milestone")
    before = summary_path(v).read_text()
    (dry,), _ = v.synthesize([JANE], dry_run=True)
    assert summary_path(v).read_text() == before
    (real,), _ = v.synthesize([JANE])
    after = summary_path(v).read_text()
    assert dry.diff == real.diff == _diff(v, before, after)


def _diff(v: vault_module.Vault, before: str, after: str) -> str:
    label = f"global/life/{JANE}/summary.md"
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{label}",
            tofile=f"b/{label}",
        )
    )


# -- properties --------------------------------------------------------------------------------

PIECES = [
    synthesis.BEGIN,
    synthesis.END,
    "<!--",
    "-->",
    "vault-app:synthesis:end",
    " ",
    "\n",
    "\r\n",
    "\r",
    "```",
    "#",
    "- ",
    "Mine",
]
_VAULTS = itertools.count()
hand_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=12).map(
    "".join
)
fact_text = (
    st.lists(
        st.one_of(st.sampled_from(PIECES), st.text(min_size=1, max_size=8)), min_size=1, max_size=6
    )
    .map("".join)
    .filter(str.strip)
)


def _marker_like(text: str) -> bool:
    """Test-side notion: some line of `text` looks like a synthesis marker line."""
    for line in text.replace("\r", "\n").split("\n"):
        squeezed = "".join(line.split()).lower()
        if squeezed.startswith("<!--vault-app:synthesis:") and not line.startswith("    "):
            return True
    return False


def _fact(i: int, text: str) -> tuple[models.Fact, models.DecayTier]:
    fact = models.Fact.model_validate(
        {
            "id": f"f{i}",
            "fact": text,
            "category": "context",
            "timestamp": "2026-01-01T00:00:00",
            "source": "x",
            "lastAccessed": "2026-01-01T00:00:00",
        }
    )
    return fact, models.DecayTier.HOT if i % 2 else models.DecayTier.WARM


@hypothesis.settings(max_examples=400, deadline=None)
@hypothesis.given(
    before=hand_text,
    after=hand_text,
    old_facts=st.lists(fact_text, max_size=4),
    new_facts=st.lists(fact_text, max_size=4),
)
def test_property_merge_keeps_hand_written_text(
    before: str, after: str, old_facts: list[str], new_facts: list[str]
) -> None:
    """Hand-written `before` + an old block + hand-written `after`, re-synthesised."""
    if before and not before.endswith("\n"):
        before += "\n"  # the block starts a line...
    if after and not after.startswith("\n"):
        after = "\n" + after  # ...and ends one
    old_block = synthesis.render_block([_fact(i, t) for i, t in enumerate(old_facts)], 0)
    new_block = synthesis.render_block([_fact(i, t) for i, t in enumerate(new_facts)], 1)
    current = before + old_block + after
    args = ("Jane", synthesis.BEGIN, synthesis.END)
    try:
        merged = synthesis.merge_block(current, new_block, *args)
    except errors.CorruptFileError:
        assert _marker_like(before + after), "refused without a marker in the hand-written text"
        return
    assert merged.startswith(before) and merged.endswith(after)
    first = current.find("\n", len(before))
    eol = "\r\n" if first > 0 and current[first - 1] == "\r" else "\n"  # the block's breaks
    assert merged[len(before) : len(merged) - len(after)] == new_block.replace("\n", eol)
    assert synthesis.merge_block(merged, new_block, *args) == merged
    # A file with no block at all keeps all of its text in front of the new block.
    if not _marker_like(before):
        appended = synthesis.merge_block(before or "x", new_block, *args)
        assert appended.startswith(before or "x")
        assert synthesis.merge_block(appended, new_block, *args) == appended


@hypothesis.settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
)
@hypothesis.given(hand=hand_text, facts=st.lists(fact_text, min_size=1, max_size=3))
def test_property_real_vault(tmp_path: Path, hand: str, facts: list[str]) -> None:
    """Real files: hand-written text, then facts, synthesised twice (and dry-run first)."""
    folder = tmp_path / f"v{next(_VAULTS)}"
    v = vault_module.Vault.create(folder, clock=decay.fixed_clock(NOW))
    v.create_entity(JANE)
    path = summary_path(v)
    path.write_bytes(hand.encode("utf-8"))
    for text in facts:
        v.add_fact(JANE, text, "context")
    original = path.read_bytes()
    dry, dry_problems = v.synthesize([JANE], dry_run=True)
    assert path.read_bytes() == original
    real, problems = v.synthesize([JANE])
    assert ([r.diff for r in dry], dry_problems) == ([r.diff for r in real], problems)
    if problems:
        assert not real and path.read_bytes() == original and _marker_like(hand)
        return
    written = path.read_bytes()
    if hand:
        assert written.startswith(original)
    again, _ = v.synthesize([JANE])
    assert not again[0].changed and path.read_bytes() == written
