"""`vault-app import FILE`: a chat export into the vault the command runs on, told by its
content, its report in words or JSON; `--extract` runs the heartbeat, which keeps the
person's explicit "remember" (issue 29)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_app import cli
from vault_app.core import vault
from vault_app.heartbeat import routing


def export(tmp_path: Path) -> Path:
    rows = [
        {"time": "2025-03-03T08:00:00", "speaker": "user", "conversation": "kitchen",
         "text": "Remember that the recycling pickup moved to Thursdays."},
        {"time": "2025-03-03T08:00:05", "speaker": "assistant", "conversation": "kitchen",
         "text": "I will remember that you like tea."},
    ]  # fmt: skip
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def run(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--vault", str(root), "--now", "2025-03-04T09:30:00+00:00", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_export_goes_into_the_vault_the_command_runs_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    v = vault.Vault.create(tmp_path / "v")
    code, out, err = run(capsys, v.root, "import", str(export(tmp_path)), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["format"], report["messages"], report["added"]) == ("jsonl", 2, 2)
    code, out, _ = run(capsys, v.root, "import", str(export(tmp_path)))
    assert code == 0 and "0 entries added" in out and "2 already there" in out


def test_extract_keeps_what_the_person_asked_to_remember(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    v = vault.Vault.create(tmp_path / "v")
    code, out, err = run(capsys, v.root, "import", str(export(tmp_path)), "--extract")
    assert code == 0, err
    assert "1 written" in out
    facts = [f.fact for f in v.entity(routing.remembered_in(None)).facts]
    assert facts == ["The recycling pickup moved to Thursdays."]  # not the assistant's


def test_folder_only_options_are_refused_for_a_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    v = vault.Vault.create(tmp_path / "v")
    (tmp_path / "folder").mkdir()
    with pytest.raises(SystemExit) as stopped:
        run(capsys, v.root, "import", str(tmp_path / "folder"), "--agent", "x")
    assert stopped.value.code == 2
    assert "go with an export file" in capsys.readouterr().err
