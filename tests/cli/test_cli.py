"""The `vault-app` command line: every command, text and --json, errors and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.grants import let_write_global
from vault_app import cli
from vault_app.core import vault


@pytest.fixture
def home(tmp_path: Path) -> Path:
    v = vault.Vault.create(tmp_path / "v")
    v.create_entity("areas/people/jane", "Jane is the family plumber.")
    v.create_entity("projects/bathroom")
    v.create_agent("finance")
    v.create_entity("agent:finance:projects/budget")
    return v.root


def run(capsys: pytest.CaptureFixture[str], home: Path, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--vault", str(home), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], home: Path, *argv: str) -> object:
    code, out, err = run(capsys, home, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_fact_lifecycle_through_the_cli(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    let_write_global(home, "finance")  # (it adds to the global jane as finance)
    added = run_json(
        capsys,
        home,
        "fact",
        "add",
        "areas/people/jane",
        "--text",
        "Jane charges 80 an hour",
        "--category",
        "status",
        "--related",
        "projects/bathroom",
        "--source",
        "call-17",
        "--agent",
        "finance",
        "--confidence",
        "0.9",
    )
    assert isinstance(added, dict)
    assert added["fact"] == "Jane charges 80 an hour"
    assert added["relatedEntities"] == ["projects/bathroom"]
    assert added["agentId"] == "finance" and added["confidence"] == 0.9
    assert added["tier"] == "hot" and added["entity"] == "areas/people/jane"

    both = run_json(capsys, home, "fact", "supersede", added["id"], "--text", "Jane charges 95")
    assert isinstance(both, dict)
    assert both["old"]["status"] == "superseded"
    assert both["old"]["supersededBy"] == both["new"]["id"]
    assert both["new"]["supersedes"] == added["id"]
    assert both["new"]["category"] == "status"  # kept from the old fact

    counts = run_json(capsys, home, "fact", "access", both["new"]["id"])
    assert counts == [{"id": both["new"]["id"], "accessCount": 1}]

    history = run_json(capsys, home, "fact", "history", both["new"]["id"])
    assert isinstance(history, list)
    assert [f["fact"] for f in history] == ["Jane charges 80 an hour", "Jane charges 95"]

    shown = run_json(capsys, home, "show", "areas/people/jane")
    assert isinstance(shown, dict)
    assert [f["fact"] for f in shown["facts"]] == ["Jane charges 95"]
    shown_all = run_json(capsys, home, "show", "areas/people/jane", "--all")
    assert isinstance(shown_all, dict) and len(shown_all["facts"]) == 2

    audit = (home / ".vault" / "audit.jsonl").read_text().splitlines()
    assert json.loads(audit[-1])["actor"] == "cli"
    assert any(json.loads(line)["actor"] == "agent:finance" for line in audit)


def test_listing_commands(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    run(
        capsys,
        home,
        "fact",
        "add",
        "agent:finance:projects/budget",
        "--text",
        "Budget is 4k",
        "--category",
        "status",
    )
    entities = run_json(capsys, home, "entities")
    assert isinstance(entities, list)
    names = {e["entity"]: e for e in entities}
    assert set(names) == {"areas/people/jane", "projects/bathroom", "agent:finance:projects/budget"}
    assert names["agent:finance:projects/budget"]["hot"] == 1
    only_agents = run_json(capsys, home, "entities", "--scope", "agent:finance")
    assert [e["entity"] for e in only_agents] == ["agent:finance:projects/budget"]  # type: ignore[union-attr]

    info = run_json(capsys, home, "info")
    assert isinstance(info, dict)
    assert info["entities"] == 3 and info["facts"] == 1 and info["agents"] == ["finance"]

    decay = run_json(capsys, home, "decay", "--at", "2099-01-01")
    assert isinstance(decay, list) and decay[0]["tier"] == "cold"
    assert set(decay[0]) >= {"id", "tier", "entity", "days"}

    code, out, _ = run(capsys, home, "entities")
    assert code == 0 and "agent:finance:projects/budget" in out


def test_synthesize_dry_run_then_write(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    run(
        capsys,
        home,
        "fact",
        "add",
        "projects/bathroom",
        "--text",
        "Tiles chosen",
        "--category",
        "milestone",
    )
    summary = home / "global/life/projects/bathroom/summary.md"
    before = summary.read_text()
    dry = run_json(capsys, home, "synthesize", "--dry-run", "projects/bathroom")
    assert isinstance(dry, dict)
    assert dry["results"][0]["changed"] and "+- Tiles chosen" in dry["results"][0]["diff"]
    assert summary.read_text() == before
    run_json(capsys, home, "synthesize", "projects/bathroom")
    assert "- Tiles chosen" in summary.read_text()


def test_daily_and_documents(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    entry = run_json(
        capsys, home, "--now", "2026-03-04T09:15:02", "daily", "append", "Called", "the plumber"
    )
    assert entry == {
        "date": "2026-03-04",
        "time": "09:15:02",
        "text": "Called the plumber",
        "index": 0,
        "agent": None,
    }
    note = run_json(capsys, home, "daily", "show", "2026-03-04")
    assert isinstance(note, dict) and note["entries"][0]["text"] == "Called the plumber"
    assert run_json(capsys, home, "daily", "show", "--list") == ["2026-03-04"]

    run_json(
        capsys, home, "tacit", "edit", "--agent", "finance", "--text", "# Tacit\nPrefers CSV\n"
    )
    tacit = run_json(capsys, home, "tacit", "show", "--agent", "finance")
    assert isinstance(tacit, dict) and tacit["text"] == "# Tacit\nPrefers CSV\n"

    code, _, err = run(
        capsys, home, "tacit", "edit", "--agent", "finance", "--text", "x", "--expect", "0" * 64
    )
    assert code == 1 and "changed on disk" in err

    new_text = tmp_path / "principles.md"
    new_text.write_text("# Principles\nNever delete a fact.\n")
    run_json(capsys, home, "principles", "edit", "--file", str(new_text))
    assert (home / "global/AGENTS.md").read_text() == new_text.read_text()


def test_entities_para_and_its_old_spelling(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    """`entities --para` names a PARA folder, as `search --para` does; `--category` (its
    first spelling, a fact's category everywhere else) still works, unlisted in --help."""
    areas = run_json(capsys, home, "entities", "--para", "areas")
    assert [e["entity"] for e in areas] == ["areas/people/jane"]  # type: ignore[union-attr]
    assert run_json(capsys, home, "entities", "--category", "areas") == areas
    projects = run_json(capsys, home, "entities", "--para", "projects", "--scope", "global")
    assert [e["entity"] for e in projects] == ["projects/bathroom"]  # type: ignore[union-attr]

    with pytest.raises(SystemExit) as usage:
        run(capsys, home, "entities", "--para", "status")  # a fact category
    assert usage.value.code == 2 and "invalid choice: 'status'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["entities", "--help"])
    shown = capsys.readouterr().out
    assert "--para" in shown and "--category" not in shown


def test_context_md_and_its_old_spelling(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    """`context-md` is the agent's CONTEXT.md document (not `context`, which builds a
    prompt); `context-file`, its first name, still works, unlisted in --help."""
    saved = run_json(
        capsys, home, "context-md", "edit", "--agent", "finance", "--text", "# Now\nTaxes\n"
    )
    assert isinstance(saved, dict) and saved["path"].endswith("agents/finance/CONTEXT.md")
    for name in ("context-md", "context-file"):
        doc = run_json(capsys, home, name, "show", "--agent", "finance")
        assert isinstance(doc, dict) and doc["text"] == "# Now\nTaxes\n"
    run_json(capsys, home, "context-file", "edit", "--agent", "finance", "--text", "# Now\nRent\n")
    assert (home / "agents/finance/CONTEXT.md").read_text() == "# Now\nRent\n"

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    shown = capsys.readouterr().out
    assert "context-md" in shown and "context-file" not in shown
    with pytest.raises(SystemExit) as usage:
        run(capsys, home, "context-file")
    assert usage.value.code == 2 and "name a context-md command" in capsys.readouterr().err


def test_entity_create_and_archive(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    run_json(capsys, home, "entity", "create", "projects/roof", "--summary", "Roof repair")
    archived = run_json(capsys, home, "entity", "archive", "projects/roof")
    assert archived == {"entity": "projects/roof", "archivedAs": "archives/roof"}
    assert (home / "global/life/archives/roof/summary.md").read_text().startswith("# Roof")
    code, _out, err = run(
        capsys, home, "fact", "add", "archives/roof", "--text", "New", "--category", "status"
    )
    assert code == 1 and "archives/roof is archived and takes no new facts" in err
    back = run_json(capsys, home, "entity", "unarchive", "archives/roof")
    assert back == {"entity": "archives/roof", "unarchivedAs": "projects/roof"}
    assert (home / "global/life/projects/roof/summary.md").is_file()


def test_errors_are_one_line_on_stderr(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    for argv in (
        ["show", "areas/../../etc"],
        ["show", "areas/nobody"],
        ["fact", "history", "fact-missing"],
        ["fact", "add", "areas/people/jane", "--text", " ", "--category", "status"],
    ):
        code, out, err = run(capsys, home, *argv)
        assert code == 1, argv
        assert out == ""
        assert err.startswith("vault-app: error: ") and err.count("\n") == 1, err


def test_subprocess_contract(home: Path, tmp_path: Path) -> None:
    """The installed entry point: JSON on stdout, exit codes, vault found from the cwd."""
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    env.pop("VAULT_APP_VAULT", None)
    inside = home / "global" / "life" / "areas"
    ok = subprocess.run(
        [sys.executable, "-m", "vault_app", "entities", "--json"],
        cwd=inside,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert {e["entity"] for e in json.loads(ok.stdout)} >= {"areas/people/jane"}

    elsewhere = subprocess.run(
        [sys.executable, "-m", "vault_app", "info"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    # no vault here nor configured: the demo vault, as the window opens (said on stderr)
    demo_vault = tmp_path / "data" / "vault-app" / "demo-vault"
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert f"using the demo vault at {demo_vault} (created now)" in elsewhere.stderr
    assert elsewhere.stderr.count("using the demo vault") == 1  # said once, not per lookup
    assert f"Vault      {demo_vault}" in elsewhere.stdout

    usage = subprocess.run(
        [sys.executable, "-m", "vault_app", "fact", "add", "--json"],
        cwd=inside,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert usage.returncode == 2

    env["VAULT_APP_VAULT"] = str(home)
    configured = subprocess.run(
        [sys.executable, "-m", "vault_app", "info", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert configured.returncode == 0 and json.loads(configured.stdout)["vault"] == str(home)


def test_declaring_the_commands_leaves_the_vault_unloaded() -> None:
    """Agents start the CLI often: `--version` and `--help` build the parser, which imports
    only what the choices need (layout, models); the vault, the config and the decay rules
    load with the first command that opens a vault. The principles document's name is
    spelled out there for that reason: it must stay the vault's."""
    code = (
        "import sys\n"
        "import vault_app.cli as cli\n"
        "cli.build_parser().parse_args(['principles', 'show'])\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith('vault_app.core.'))))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    loaded = set(out.stdout.strip().split(","))
    assert not loaded & {"vault_app.core.vault", "vault_app.core.config", "vault_app.core.decay"}
    assert f"show or edit {vault.PRINCIPLES}" in cli.build_parser().format_help()


def test_decay_going_cold_is_the_dashboards_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`decay --going-cold 7` lists what `core.outlook.going_cold` finds (the window's
    dashboard table), in text and JSON; a fact accessed since is no longer listed."""
    from tests import outlook_vaults as ov
    from vault_app.core import outlook

    v = ov.small_vault(tmp_path / "v")
    now = ["--now", ov.NOON.isoformat()]
    report = outlook.going_cold(v, 7, ov.NOON)
    assert report is not None and {f.text for f in report.facts} == ov.GOING_COLD
    data = run_json(capsys, v.root, *now, "decay", "--going-cold", "7")
    assert isinstance(data, dict)
    assert [(f["id"], f["coldOn"], f["tier"]) for f in data["facts"]] == [
        (f.fact_id, f.cold_on.isoformat(), f.tier.value) for f in report.facts
    ]
    code, out, _ = run(capsys, v.root, *now, "decay", "--going-cold", "7")
    assert code == 0 and out.startswith(f"4 facts turn Cold by {(ov.TODAY.replace(day=22))}")
    assert all(text in out for text in ov.GOING_COLD)
    first = data["facts"][0]
    run_json(capsys, v.root, *now, "fact", "access", first["id"])
    again = run_json(capsys, v.root, *now, "decay", "--going-cold", "7")
    assert isinstance(again, dict) and first["id"] not in {f["id"] for f in again["facts"]}
    assert run_json(capsys, v.root, *now, "decay", "--going-cold", "0") == {
        "at": ov.NOON.isoformat(),
        "until": ov.NOON.isoformat(),
        "facts": [],
    }


def test_decay_going_cold_refuses_a_bad_count(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    for argv in (
        ["--going-cold", "-1"],
        ["--going-cold", "x"],
        ["--going-cold", "2", "--at", "2026-01-01"],
    ):
        with pytest.raises(SystemExit) as exited:
            run(capsys, home, "decay", *argv)
        assert exited.value.code == 2
        assert "--going-cold" in capsys.readouterr().err


def test_synthesize_next_says_when_the_weekly_run_is(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    (home / ".vault" / "config.toml").write_text(
        '[synthesis]\nweekday = "wednesday"\ntime = "06:30"\n', encoding="utf-8"
    )
    before = sorted(p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file())
    code, out, _ = run(capsys, home, "--now", "2026-07-13T12:00:00", "synthesize", "--next")
    assert code == 0
    assert out == (
        "Next scheduled synthesis: Wednesday 15 July at 06:30 (in 2 days); "
        "every Wednesday at 06:30\n"
    )
    data = run_json(capsys, home, "--now", "2026-07-15T07:00:00", "synthesize", "--next")
    assert isinstance(data, dict) and data["next"].startswith("2026-07-22T06:30:00")
    assert sorted(p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()) == before


def test_show_as_of_a_date(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    jane = "areas/people/jane"
    old = run_json(capsys, home, "fact", "add", jane, "--text", "Jane lives in Portland",
                   "--category", "context", "--now", "2026-03-01T12:00:00+00:00")  # fmt: skip
    assert isinstance(old, dict)
    run_json(capsys, home, "fact", "supersede", old["id"], "--text", "Jane lives in Seattle",
             "--now", "2026-03-10T12:00:00+00:00")  # fmt: skip
    shown = run_json(capsys, home, "show", jane, "--as-of", "2026-03-05")
    assert isinstance(shown, dict)
    assert [f["fact"] for f in shown["facts"]] == ["Jane lives in Portland"]
    (fact,) = shown["facts"]
    assert fact["tier"] == "hot" and fact["endedLater"]["how"] == "superseded"
    assert fact["endedLater"]["at"].startswith("2026-03-10")
    assert shown["createdLater"] == 1 and shown["asOf"].startswith("2026-03-05T23:59:59")
    assert set(shown) >= {"entity", "folder", "factsFile", "summary", "invalid", "error"}
    code, out, _ = run(capsys, home, "show", jane, "--as-of", "2026-03-11T00:00:00+00:00")
    assert code == 0 and "as of 2026-03-11" in out and "Jane lives in Seattle" in out
    assert "Portland" not in out and "Summary then:" in out
    for bad, said in (("last week", "not an ISO date or time"), ("2026-02-30", "not a YYYY")):
        with pytest.raises(SystemExit) as stopped:
            run(capsys, home, "show", jane, "--as-of", bad)
        assert stopped.value.code == 2 and said in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run(capsys, home, "show", jane, "--as-of", "2026-03-05", "--all")
    assert "--all and --as-of" in capsys.readouterr().err
