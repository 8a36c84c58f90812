"""`vault-app --vault PATH` on a neighbour's folder: `info` names the format, `daily`
works in PicoClaw's and MicroClaw's own files, commands for PARA vaults refuse it (and
never lay a `.vault/` into it), unknown and ambiguous folders are precise errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vault_app import cli
from vault_app.core import vault

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "neighbours"


@pytest.fixture(autouse=True)
def _state_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def folder(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / name))


def run(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--vault", str(root), "--now", "2026-11-24T09:30:00+00:00", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["hermes", "picoclaw", "microclaw"])
def test_info_json_names_the_format(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(name, tmp_path)
    code, out, err = run(capsys, root, "info", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["format"] == name and data["vault"] == str(root.resolve())
    assert data["agents"]
    assert not (root / ".vault").exists()
    code, out, _ = run(capsys, root, "info")
    assert code == 0 and f"Format     {name}" in out


def test_info_json_of_a_para_vault_says_para(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = vault.Vault.create(tmp_path / "v")
    code, out, err = run(capsys, made.root, "info", "--json")
    assert code == 0, err
    assert json.loads(out)["format"] == "para"


def test_hermes_info_shows_the_meters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, folder("hermes", tmp_path), "info")
    assert code == 0
    assert "memory: 4 entries [13% — 293/2,200 chars]" in out
    assert "user: 2 entries [6% — 96/1,375 chars]" in out


def test_daily_in_a_picoclaw_workspace_needs_no_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("picoclaw", tmp_path)
    code, out, err = run(capsys, root, "daily", "append", "Walked", "to", "the", "river.")
    assert code == 0, err
    assert (root / "memory" / "202611" / "20261124.md").read_text(encoding="utf-8") == (
        "# 2026-11-24\n\nWalked to the river.\n"
    )
    code, out, _ = run(capsys, root, "daily", "show", "--list", "--json")
    assert json.loads(out) == ["2026-10-31", "2026-11-22", "2026-11-23", "2026-11-24"]
    code, out, _ = run(capsys, root, "daily", "show", "2026-11-23")
    assert out.startswith("# 2026-11-23\n\nTalked about the trip to Porto.")


def test_daily_in_a_microclaw_runtime_names_the_persona(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("microclaw", tmp_path)
    code, _, err = run(capsys, root, "daily", "show")
    assert code == 1 and "holds 3 agents" in err and "--agent" in err
    code, out, err = run(capsys, root, "daily", "show", "--agent=-1001234567890/1", "--json")
    assert code == 0, err
    assert json.loads(out)["text"] == "\nMorning check-in."


def test_para_commands_refuse_a_neighbours_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    for argv in (
        ["fact", "add", "areas/x", "--text", "t", "--category", "status"],
        ["doctor"],
    ):
        code, _, err = run(capsys, root, *argv)
        assert code == 1
        assert "is a Hermes home, not a PARA vault" in err and "info, notes, tiers" in err
    assert not (root / ".vault").exists()  # (the window opens it as it is: tests/ui)


def test_unknown_and_ambiguous_folders_are_precise_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "notes.txt").write_text("hello", encoding="utf-8")
    code, _, err = run(capsys, odd, "info")
    assert code == 1 and "looked for" in err and "memories/MEMORY.md" in err
    code, _, err = run(capsys, FIXTURES / "ambiguous", "info", "--json")
    assert code == 1 and "more than one kind" in err
    code = cli.main(["--vault", str(FIXTURES / "ambiguous")])  # the window: before it starts
    assert code == 1 and "more than one kind" in capsys.readouterr().err


def test_notes_in_a_hermes_home_need_no_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    code, out, err = run(capsys, root, "notes", "add", "--target", "user", "Likes tea.", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["success"] and answer["entries"][-1] == "Likes tea."
    assert answer["path"] == "memories/USER.md" and answer["limit"] == 1375
    assert (root / "memories" / "USER.md").read_text(encoding="utf-8").endswith("\n§\nLikes tea.")
    code, out, _ = run(capsys, root, "notes", "add", "--target", "user", "x" * 1400, "--json")
    assert code == 1
    refusal = json.loads(out)
    assert refusal["error"] == "over_budget" and refusal["limit"] == 1375
    code, out, err = run(
        capsys, root, "notes", "replace", "--target", "memory", "Fedora 41", "Fedora 42."
    )
    assert code == 0, err
    assert "Replaced in agent notes of hermes" in out


def test_hermes_drift_is_a_structured_refusal_naming_the_bak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes-drift", tmp_path)
    raw = (root / "memories" / "MEMORY.md").read_bytes()
    code, out, err = run(capsys, root, "notes", "remove", "--target", "memory", "NAS", "--json")
    assert code == 1 and "refusing to rewrite" in err
    refusal = json.loads(out)
    assert refusal["error"] == "not_round_trip"
    assert Path(refusal["drift_backup"]).read_bytes() == raw
    assert (root / "memories" / "MEMORY.md").read_bytes() == raw


def test_profile_in_a_picoclaw_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("picoclaw", tmp_path)
    code, out, _ = run(capsys, root, "profile", "show")
    assert code == 0 and "- **user_name**: Mike <mike@example.org>" in out
    code, out, err = run(capsys, root, "profile", "set", "pet", "a cat", "--json")
    assert code == 0, err
    assert json.loads(out)["path"] == "memory/profile.json"
    on_disk = json.loads((root / "memory" / "profile.json").read_text(encoding="utf-8"))
    assert on_disk["pet"] == "a cat" and list(on_disk) == sorted(on_disk)
    code, _, err = run(capsys, root, "tiers", "show")
    assert code == 1 and "a PicoClaw workspace has no tiered memory" in err


def test_tiers_in_a_microclaw_runtime(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = folder("microclaw", tmp_path)
    agent = "--agent=-1001234567890/1"
    code, out, err = run(capsys, root, "tiers", "show", agent, "--tier", "3")
    assert code == 0, err
    assert out == "Tired this week; keep answers short.\n"
    code, _, err = run(capsys, root, "tiers", "write", agent, "--tier", "3", "--text", "Rested.")
    assert code == 0, err
    text = (root / "groups" / "-1001234567890" / "1" / "MEMORY.md").read_text(encoding="utf-8")
    assert "## Tier 3 — Short term\n\nRested.\n" in text and "User is vegetarian." in text
    code, _, err = run(capsys, root, "notes", "show", agent, "--target", "memory")
    assert code == 1 and "has no § notes" in err


def test_a_para_vault_still_needs_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = vault.Vault.create(tmp_path / "v")
    with pytest.raises(SystemExit) as caught:
        run(capsys, made.root, "notes", "show", "--target", "memory")
    assert caught.value.code == 2
    assert "--agent is required in a PARA vault" in capsys.readouterr().err


# -- the layered context over a neighbour's folder, as it is ----------------------------


def context_json(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> dict[str, object]:
    code, out, err = run(capsys, root, "context", *argv, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_context_in_a_hermes_home_is_its_two_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    data = context_json(capsys, root, "what does the user like")
    assert data["format"] == "hermes" and data["agent"] == "hermes"
    blocks = {b["name"]: b for b in data["blocks"]}  # type: ignore[union-attr,index]
    assert list(blocks) == ["user", "notes"]
    user_raw = (root / "memories/USER.md").read_text(encoding="utf-8")
    assert blocks["user"]["text"] == user_raw  # § entries as Hermes joins them
    assert blocks["user"]["store"] == {"used": len(user_raw), "limit": 1375, "percent": 6}
    assert blocks["notes"]["meter"].startswith("13% — 293/2,200 chars · ≈")
    code, out, _ = run(capsys, root, "context", "what does the user like")
    assert code == 0 and out.splitlines()[1].startswith(
        "USER PROFILE (who the user is) [6% — 96/1,375 chars · ≈"
    )
    assert "MEMORY (agent notes) [13% — 293/2,200 chars · ≈" in out
    # read only: nothing written, no .vault laid in
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_context_in_a_hermes_home_respects_its_switches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    config = root / "config.yaml"
    config.write_text(
        config.read_text().replace("user_profile_enabled: true", "user_profile_enabled: false")
    )
    data = context_json(capsys, root)
    assert [b["name"] for b in data["blocks"]] == ["notes"]  # type: ignore[union-attr,index]


def test_context_in_a_picoclaw_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("picoclaw", tmp_path)
    data = context_json(capsys, root, "--query", "trip")
    assert data["format"] == "picoclaw" and data["agent"] == "picoclaw"
    blocks = {b["name"]: b for b in data["blocks"]}  # type: ignore[union-attr,index]
    assert list(blocks) == ["user", "long_term", "timeline"]
    assert "- **city**: Lyon" in blocks["user"]["text"] and blocks["user"]["store"] is None
    assert blocks["long_term"]["text"].startswith("# Long-term Memory")
    timeline = blocks["timeline"]["text"]
    # no date in the query: the latest days with a note, newest first, headers dropped
    assert timeline.startswith("**2026-11-23**: Talked about the trip to Porto.")
    assert (
        timeline.index("2026-11-23") < timeline.index("2026-11-22") < timeline.index("2026-10-31")
    )
    assert "# 2026-11-23" not in timeline
    dated = context_json(capsys, root, "what happened yesterday")  # --now is 2026-11-24
    assert dated["period"] == ["2026-11-23", "2026-11-23"]
    timeline = next(b for b in dated["blocks"] if b["name"] == "timeline")  # type: ignore[union-attr]
    assert "2026-11-22" not in timeline["text"] and "Porto" in timeline["text"]


def test_context_in_a_microclaw_runtime(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = folder("microclaw", tmp_path)
    code, _, err = run(capsys, root, "context")
    assert code == 1 and "--agent" in err  # three personas: name one
    data = context_json(capsys, root, "--agent=-1001234567890/1", "yesterday")
    assert data["format"] == "microclaw" and data["agent"] == "-1001234567890/1"
    blocks = {b["name"]: b for b in data["blocks"]}  # type: ignore[union-attr,index]
    assert list(blocks) == ["principles", "tiers", "timeline"]
    assert "Never share the user's address." in blocks["principles"]["text"]
    assert blocks["tiers"]["text"].startswith("## Tier 1 — Long term\nUser is vegetarian.")
    assert "Porto trip" in blocks["timeline"]["text"]
    code, out, _ = run(capsys, root, "context", "--agent=-1001234567890/1")
    assert code == 0 and "PRINCIPLES (groups/AGENTS.md, highest priority) [" in out


def test_context_over_a_small_budget_says_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    data = context_json(capsys, root, "--budget", "600")
    assert data["used"] <= 600  # type: ignore[operator]
    notes_block = next(b for b in data["blocks"] if b["name"] == "notes")  # type: ignore[union-attr]
    assert notes_block["leftOut"] > 0 and notes_block["text"].endswith(
        f"(+{notes_block['leftOut']} omitted)"
    )


def test_context_query_as_an_argument_or_an_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("picoclaw", tmp_path)
    positional = context_json(capsys, root, "yesterday")
    option = context_json(capsys, root, "--query", "yesterday")
    assert positional == option
    with pytest.raises(SystemExit) as stopped:
        run(capsys, root, "context", "yesterday", "--query", "today")
    assert stopped.value.code == 2 and "give the query once" in capsys.readouterr().err
    para = vault.Vault.create(tmp_path / "v")
    with pytest.raises(SystemExit) as stopped:
        run(capsys, para.root, "context", "leak")
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "--agent is required in a PARA vault" in err


# -- search over a neighbour's folder ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "query", "key", "where"),
    [
        ("hermes", "fedora", "notes:memory:1", "memories/MEMORY.md § entry 1"),
        ("picoclaw", "backup cron", "daily:picoclaw:2026-11-22:2", "paragraph 2"),
        ("microclaw", "vegetarian", "tiers:-1001234567890/1:1:1", "tier 1, entry 1"),
    ],
)
def test_search_works_in_each_folder_and_names_the_place(
    name: str, query: str, key: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(name, tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    code, out, err = run(capsys, root, "search", query, "--mode", "bm25", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["mode"] == "bm25" and data["hits"][0]["key"] == key
    assert where in data["hits"][0]["origin"]["where"]
    assert data["hits"][0]["origin"]["format"] == name
    code, out, err = run(capsys, root, "search", query, "--mode", "bm25")
    assert code == 0, err
    assert where in out.splitlines()[0]
    assert f"[{data['hits'][0]['origin']['structure']}]" in out.splitlines()[0]
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # nothing written
    assert not (root / ".vault").exists()


def test_search_in_a_hermes_home_semantic_and_hybrid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnxruntime")
    root = folder("hermes", tmp_path)
    for mode in ("semantic", "hybrid"):
        code, out, err = run(
            capsys, root, "search", "which time zone is the user in", "--mode", mode, "--json"
        )
        assert code == 0, err
        data = json.loads(out)
        assert data["mode"] == mode and data["notice"] is None
        assert data["hits"][0]["key"] == "notes:user:1"
        assert data["hits"][0]["origin"]["file"] == "memories/USER.md"


def test_a_para_only_command_names_the_mcp_server_among_what_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    code = cli.main(["agents", "--vault", str(root)])
    err = capsys.readouterr().err
    assert code == 1 and "is a Hermes home, not a PARA vault" in err
    assert "search, mcp, serve, review, activity, agent token" in err
    assert not (root / ".vault").exists()


def test_search_in_a_neighbours_folder_checks_the_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder("hermes", tmp_path)
    code, out, err = run(capsys, root, "search", "fedora", "--mode", "bm25", "--agent", "hermes")
    assert code == 0, err
    assert "fedora" in out.lower()
    code, _, err = run(capsys, root, "search", "fedora", "--mode", "bm25", "--agent", "nobody")
    assert code == 1 and "no agent 'nobody'" in err
