"""Daily-note entry text cannot forge an entry heading (`## HH:MM:SS`).

An entry whose text held a line `## 12:00:00` was read back as two entries, and the
window's undo of the append (`Vault.retract_daily_entry`) then removed only half of it.

Variants thought of, and where each is covered:

- `## 12:00:00` inside the text, `## 12:00` (no seconds), trailing blanks, a heading
  line at the very start of the text, a text that is only a heading, several of them ->
  `test_forged_heading_stays_in_one_entry` (library) and `test_cli_append_and_show` (CLI);
- CRLF line breaks in the text (`a\\r\\n## 12:00:00\\r\\nb`), and a note written with CRLF by
  another editor (its headings are read) -> `FORGED`, `test_crlf_note_is_read`;
- `##  12:00:00 ` (two spaces) and ` ## 12:00` (indented) are not headings for the parser:
  they stay text and round-trip -> `FORGED`;
- text that already looks escaped (`\\## 12:00:00`, `\\\\## 12:00`): kept as written ->
  `FORGED` and the property `test_property_escape_round_trips`;
- retracting such an entry (the window's undo) removes exactly it, with entries
  appended after it by others left alone -> `test_retract_removes_exactly_the_entry`;
- the escaped line renders as the text it was (`\\##` is a markdown escape), and
  `daily show` prints the note as stored (escaped) -> `test_cli_append_and_show`;
- search indexes the entry's text as appended -> `test_search_sees_the_text_as_appended`.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import cli_process
import hypothesis
import pytest
from hypothesis import strategies as st

from vault_app.core import daily, decay, errors
from vault_app.core import vault as vault_module
from vault_app.search import engine

NOW = dt.datetime(2026, 3, 1, 14, 5, 9)
ROOT = Path(__file__).resolve().parents[2]

FORGED = [
    "Met Jane.\n## 12:00:00\nThen lunch.",
    "Met Jane.\n## 12:00\nThen lunch.",
    "Met Jane.\n## 12:00:00   \t\nThen lunch.",
    "## 09:30:00\nA heading at the very start.",
    "## 09:30",
    "a\r\n## 12:00:00\r\nb",
    "a\n##  12:00:00 \nb",
    "a\n ## 12:00\nb",
    "a\n\\## 12:00:00\nb",
    "a\n\\\\## 12:00\nb",
    "## 01:00\n## 02:00:00\n\n## 03:00\nend",
]


@pytest.fixture
def v(tmp_path: Path) -> vault_module.Vault:
    target = vault_module.Vault.create(tmp_path / "v", clock=decay.fixed_clock(NOW))
    target.create_agent("finance")
    return target


@pytest.mark.parametrize("text", FORGED)
@pytest.mark.parametrize("agent", [None, "finance"])
def test_forged_heading_stays_in_one_entry(
    v: vault_module.Vault, text: str, agent: str | None
) -> None:
    v.append_daily("Before.", agent=agent, at=NOW - dt.timedelta(hours=1))
    entry = v.append_daily(text, agent=agent)
    v.append_daily("After.", agent=agent, at=NOW + dt.timedelta(minutes=1))
    assert entry.text == text
    note = v.daily_note(NOW.date(), agent)
    assert [e.text for e in note.entries] == ["Before.", text, "After."]
    assert [e.time for e in note.entries] == ["13:05:09", "14:05:09", "14:06:09"]
    # the stored note has exactly three entry headings
    stored = note.path.read_text(encoding="utf-8")
    assert len(daily.ENTRY_HEADING.findall(stored)) == 3


def test_retract_removes_exactly_the_entry(v: vault_module.Vault) -> None:
    first = v.append_daily("Plain first.", at=NOW - dt.timedelta(hours=1))
    forged = v.append_daily("Half one.\n## 12:00:00\n\nHalf two.")
    v.append_daily("Someone else's, later.", at=NOW + dt.timedelta(minutes=5))
    path = v.paths.daily_file(NOW.date(), None)
    v.retract_daily_entry(forged)
    assert [e.text for e in v.daily_note(NOW.date()).entries] == [
        "Plain first.",
        "Someone else's, later.",
    ]
    assert "Half" not in path.read_text()
    with pytest.raises(errors.NotFoundError):
        v.retract_daily_entry(forged)  # gone: nothing else is removed
    v.retract_daily_entry(first)
    assert [e.text for e in v.daily_note(NOW.date()).entries] == ["Someone else's, later."]


def test_crlf_note_is_read(v: vault_module.Vault) -> None:
    path = v.paths.daily_file(NOW.date(), None)
    path.write_bytes(b"# 2026-03-01\r\n\r\n## 08:00:00\r\n\r\nOne.\r\n\r\n## 09:00\r\n\r\nTwo.\r\n")
    note = v.daily_note(NOW.date())
    assert [(e.time, e.text) for e in note.entries] == [("08:00:00", "One."), ("09:00", "Two.")]


def cli(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(home, *argv, now=NOW.isoformat(), stdin=stdin, timeout=120)


def test_cli_append_and_show(v: vault_module.Vault) -> None:
    text = "## 11:59:59\nNotes from the call.\n## 12:00\nAnd more."
    done = cli(v.root, "daily", "append", "--agent", "finance", stdin=text)
    assert done.returncode == 0, done.stderr
    shown = cli(v.root, "daily", "show", "--agent", "finance", "--json")
    assert shown.returncode == 0, shown.stderr
    entries = json.loads(shown.stdout)["entries"]
    assert [e["text"] for e in entries] == [text]
    as_text = cli(v.root, "daily", "show", "--agent", "finance")
    assert "\n\\## 11:59:59\nNotes" in as_text.stdout
    assert as_text.stdout.count("\n## ") == 1


def test_search_sees_the_text_as_appended(v: vault_module.Vault) -> None:
    v.append_daily("Pipes.\n## 12:00:00\nThe plumber came back.")
    search = engine.SearchEngine(v)
    search.open()
    hits = search.search("plumber came back", mode="bm25").hits
    assert [h.text for h in hits] == ["Pipes.\n## 12:00:00\nThe plumber came back."]


lines = st.lists(
    st.one_of(
        st.sampled_from(["## 12:00:00", "## 12:00", "\\## 12:00", "\\\\## 01:02:03 ", "##  1:00"]),
        st.text(st.sampled_from("#\\ :0123\r\tab"), max_size=12),
    ),
    max_size=8,
)


@hypothesis.settings(max_examples=500, deadline=None)
@hypothesis.given(parts=lines, crlf=st.booleans())
def test_property_escape_round_trips(parts: list[str], crlf: bool) -> None:
    text = ("\r\n" if crlf else "\n").join(parts)
    escaped = daily.escape_text(text)
    assert daily.unescape_text(escaped) == text
    body = daily.entry_body(text)
    hypothesis.assume(body.strip())
    note = daily.append(
        daily.append(None, NOW.date(), dt.time(9), "x"), NOW.date(), NOW.time(), text
    )
    parsed = daily.parse(note, NOW.date(), None, Path("n.md"))
    assert [e.text for e in parsed.entries] == ["x", body]
    retracted = note.replace(daily.entry_segment("14:05:09", body), "", 1)
    assert [e.text for e in daily.parse(retracted, NOW.date(), None, Path("n.md")).entries] == ["x"]
