"""`vault-app tiers|notes|profile`: the agent's own memory files through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_process import run_cli

from vault_app import cli
from vault_app.core import vault


@pytest.fixture
def home(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "v")
    v.create_agent("household")
    return v.root


def run(capsys: pytest.CaptureFixture[str], home: Path, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--vault", str(home), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], home: Path, *argv: str) -> dict[str, object]:
    code, out, err = run(capsys, home, *argv, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert isinstance(answer, dict)
    return answer


AGENT = ("--agent", "household")


def test_notes_add_show_replace_remove(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    added = run_json(capsys, home, "notes", "add", *AGENT, "--target", "memory", "Uses vim")
    assert added["success"] is True and added["usage"] == "8/2,200"
    run_json(capsys, home, "notes", "add", *AGENT, "--target", "memory", "Kitchen: tiles\nin May")
    code, out, _ = run(capsys, home, "notes", "show", *AGENT, "--target", "memory")
    assert code == 0
    assert out.splitlines()[0] == (
        "agent notes of household [1% — 32/2,200 chars] agents/household/memories/MEMORY.md"
    )
    assert out.endswith("Uses vim\n§\nKitchen: tiles\nin May\n")
    run_json(capsys, home, "notes", "replace", *AGENT, "--target", "memory", "vim", "Uses helix")
    shown = run_json(capsys, home, "notes", "remove", *AGENT, "--target", "memory", "Kitchen")
    assert shown["entries"] == ["Uses helix"] and shown["meter"] == "0% — 10/2,200 chars"
    assert (home / "agents/household/memories/MEMORY.md").read_text() == "Uses helix"


def test_over_budget_is_a_structured_error(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    run_json(capsys, home, "notes", "add", *AGENT, "--target", "user", "x" * 1375)
    code, out, err = run(capsys, home, "notes", "add", *AGENT, "--target", "user", "y", "--json")
    assert code == 1
    refusal = json.loads(out)
    assert refusal == {
        "success": False,
        "agent": "household",
        "target": "user",
        "error": "over_budget",
        "message": refusal["message"],
        "current": 1375,
        "limit": 1375,
        "attempted": 1379,
        "usage": "1,375/1,375",
    }
    assert err.startswith("vault-app: error: over budget") and "1,379/1,375" in err
    code, out, err = run(capsys, home, "notes", "add", *AGENT, "--target", "user", "y")
    assert code == 1 and out == "" and "now 1,375/1,375" in err


def test_ambiguous_and_duplicate(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    for entry in ("prefers tea", "prefers dark mode"):
        run_json(capsys, home, "notes", "add", *AGENT, "--target", "user", entry)
    code, out, err = run(
        capsys, home, "notes", "remove", *AGENT, "--target", "user", "prefers", "--json"
    )
    assert code == 1 and json.loads(out)["matches"] == ["prefers tea", "prefers dark mode"]
    assert "'prefers tea'" in err and "'prefers dark mode'" in err
    code, _, err = run(capsys, home, "notes", "add", *AGENT, "--target", "user", "prefers tea")
    assert code == 1 and "already there" in err


def test_tiers_show_and_write(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, home, "tiers", "show", *AGENT)
    assert code == 0 and "does not exist yet" in out
    run_json(capsys, home, "tiers", "write", *AGENT, "--tier", "2", "--text", "Kitchen renovation")
    body = tmp_path / "t1.md"
    body.write_text("Family of four\nTwo cats\n")
    written = run_json(capsys, home, "tiers", "write", *AGENT, "--tier", "1", "--file", str(body))
    assert written["text"] == "Family of four\nTwo cats"
    shown = run_json(capsys, home, "tiers", "show", *AGENT)
    assert shown["tiers"] == {"1": "Family of four\nTwo cats", "2": "Kitchen renovation", "3": ""}
    code, out, _ = run(capsys, home, "tiers", "show", *AGENT, "--tier", "2")
    assert out == "Kitchen renovation\n"
    code, _, err = run(capsys, home, "tiers", "write", *AGENT, "--tier", "3", "--text", "a\n## b")
    assert code == 1 and "would end the tier" in err


def test_profile_show_set_delete(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    run_json(capsys, home, "profile", "set", *AGENT, "name", "Zoé")
    run_json(capsys, home, "profile", "set", *AGENT, "city", "Lyon")
    code, out, _ = run(capsys, home, "profile", "show", *AGENT)
    assert out == "- **name**: Zoé\n- **city**: Lyon\n"
    assert run_json(capsys, home, "profile", "show", *AGENT, "city")["value"] == "Lyon"
    assert run_json(capsys, home, "profile", "delete", *AGENT, "city")["profile"] == {"name": "Zoé"}
    code, _, err = run(capsys, home, "profile", "delete", *AGENT, "city")
    assert code == 1 and "no profile key 'city' (keys: 'name')" in err


def test_an_agent_actor_cannot_touch_another_agent_nor_the_principles(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    vault.Vault(home).create_agent("other")
    as_other = ("--actor", "agent:other")
    code, _, err = run(capsys, home, "notes", "add", *AGENT, "--target", "memory", "x", *as_other)
    assert code == 1 and "only on its own folder" in err
    code, _, err = run(capsys, home, "principles", "edit", "--text", "obey", *as_other)
    assert code == 1 and "principles" in err


def test_as_a_real_process(home: Path) -> None:
    ok = run_cli(home, "notes", "add", *AGENT, "--target", "memory", "a" * 2200, "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["usage"] == "2,200/2,200"
    over = run_cli(home, "notes", "add", *AGENT, "--target", "memory", "b", "--json")
    assert over.returncode == 1
    assert json.loads(over.stdout)["usage"] == "2,200/2,200"
    assert json.loads(over.stdout)["limit"] == 2200
    usage = run_cli(home, "notes", "add", *AGENT, "--target", "nope", "x")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr


def test_tiers_write_without_a_tier_replaces_the_file_and_keeps_the_old_one(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    run_json(capsys, home, "tiers", "write", *AGENT, "--tier", "1", "--text", "old")
    whole = "# Memory\n\n## Tier 1 — Long term\n\nnew\n"
    run_json(capsys, home, "tiers", "write", *AGENT, "--text", whole)
    path = home / "agents/household/MEMORY.md"
    assert path.read_text() == whole
    kept = vault.Vault(home).storage.backups(path)
    assert any(b"\nold\n" in p.read_bytes() for p in kept)
    code, _, err = run(capsys, home, "profile", "show", *AGENT, "nope")
    assert code == 1 and "no profile key 'nope'" in err


def test_notes_batch_all_or_none(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    run_json(capsys, home, "notes", "add", *AGENT, "--target", "user", "a" * 1300)
    ops = tmp_path / "ops.json"
    ops.write_text(
        json.dumps(
            [
                {"action": "add", "content": "Prefers tea"},  # over the limit until the remove
                {"action": "remove", "old_text": "aaaa"},
                {"action": "add", "content": "Works nights"},
            ]
        )
    )
    done = run_json(capsys, home, "notes", "batch", *AGENT, "--target", "user", "--file", str(ops))
    assert done["success"] is True and done["entries"] == ["Prefers tea", "Works nights"]
    path = home / "agents/household/memories/USER.md"
    before = path.read_bytes()
    ops.write_text(
        json.dumps([{"action": "add", "content": "x"}, {"action": "remove", "old_text": "zz"}])
    )
    code, out, err = run(
        capsys, home, "notes", "batch", *AGENT, "--target", "user", "--file", str(ops), "--json"
    )
    refusal = json.loads(out)
    assert code == 1 and refusal["success"] is False and refusal["operation"] == 2
    assert refusal["error"] == "no_unique_match" and "no operation was applied" in err
    ops.write_text("[{]")
    code, _, err = run(
        capsys, home, "notes", "batch", *AGENT, "--target", "user", "--file", str(ops)
    )
    assert code == 1 and "not JSON" in err
    assert path.read_bytes() == before
