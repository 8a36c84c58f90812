"""`vault-app heartbeat --once|--status` as a real process: text and JSON, a no-op exit 0
when another process holds the vault, errors like the other commands."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_process import run_cli, serve_holding
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import entries, runlog, state

MARIA = layout.EntityRef.parse("areas/people/maria")


@pytest.fixture
def household(vault: Vault) -> Vault:
    vault.create_entity(MARIA)
    day = dt.datetime(2026, 11, 20, 9, 0).astimezone()
    vault.append_daily("Maria prefers oat milk in her coffee.", at=day)
    vault.append_daily("Maria likes long walks on Sundays.", at=day + dt.timedelta(hours=1))
    return vault


@pytest.fixture
def held(household: Vault) -> Iterator[subprocess.Popen[str]]:
    with serve_holding(household.root) as process:
        yield process


def test_once_runs_and_says_what_it_did(household: Vault) -> None:
    done = run_cli(household.root, "heartbeat", "--once")
    assert done.returncode == 0, done.stderr
    assert "Heartbeat (rules" in done.stdout and "2 entries" in done.stdout
    assert "2 written" in done.stdout
    again = run_cli(household.root, "heartbeat", "--once", "--json")
    assert again.returncode == 0, again.stderr
    answer = json.loads(again.stdout)
    assert answer["ran"] is True and answer["holder"] is None
    [record] = answer["runs"]
    assert record["job"] == "heartbeat" and record["runner"] == "cli"
    assert record["trigger"] == "once" and record["entries"] == 0
    assert [r.trigger for r in runlog.read(household.root)] == ["once", "once"]


def test_status_shows_holder_runs_next_times_and_backlog(household: Vault) -> None:
    before = json.loads(run_cli(household.root, "heartbeat", "--status", "--json").stdout)
    assert before["holder"] is None and before["backlog"] == 2
    assert before["last_heartbeat"] is None and before["recent"] == []
    assert before["extractor"] == "rules" and before["interval_minutes"] == 15
    run_cli(household.root, "heartbeat", "--once", now="2026-11-21T10:00:00+00:00")
    status = run_cli(household.root, "heartbeat", "--status", now="2026-11-21T10:05:00+00:00")
    assert status.returncode == 0, status.stderr
    assert "Runner:         nobody" in status.stdout
    assert "Backlog:        0 entries wait" in status.stdout
    assert "by cli (once): Heartbeat (rules" in status.stdout
    data = json.loads(
        run_cli(
            household.root, "heartbeat", "--status", "--json", now="2026-11-21T10:05:00+00:00"
        ).stdout
    )
    assert data["backlog"] == 0 and data["last_heartbeat"]["written"] == 2
    assert dt.datetime.fromisoformat(data["next_heartbeat"]) == dt.datetime(
        2026, 11, 21, 10, 15, tzinfo=dt.UTC
    )
    assert dt.datetime.fromisoformat(data["next_synthesis"]).weekday() == 6  # Sunday


def test_a_lease_held_elsewhere_is_named_and_nothing_runs(
    household: Vault, held: subprocess.Popen[str]
) -> None:
    done = run_cli(household.root, "heartbeat", "--once")
    assert done.returncode == 0, done.stderr
    assert f"is run by serve (pid {held.pid} on " in done.stdout
    assert "nothing done" in done.stdout
    answer = json.loads(run_cli(household.root, "heartbeat", "--once", "--json").stdout)
    assert answer["ran"] is False and answer["holder"]["pid"] == held.pid
    assert runlog.read(household.root) == []
    status = json.loads(run_cli(household.root, "heartbeat", "--status", "--json").stdout)
    assert status["holder"]["holder"] == "serve" and status["backlog"] == 2


def test_errors_are_one_line_with_the_usual_statuses(household: Vault, tmp_path: Path) -> None:
    usage = run_cli(household.root, "heartbeat")
    assert usage.returncode == 2 and "one of the arguments --once --status" in usage.stderr
    both = run_cli(household.root, "heartbeat", "--status", "--llm-model", "m")
    assert both.returncode == 2 and "go with --once" in both.stderr
    no_model = run_cli(household.root, "heartbeat", "--once", "--llm-base-url", "http://x/v1")
    assert no_model.returncode == 1
    assert no_model.stderr.startswith("vault-app: error: an LLM endpoint (http://x/v1) needs")
    missing = run_cli(tmp_path / "nowhere", "heartbeat", "--status")
    assert missing.returncode == 1 and "vault-app: error: no vault at" in missing.stderr


def test_a_run_that_stopped_on_an_error_fails_the_command(household: Vault) -> None:
    path = state.path(household.root, entries.CURSOR_NAME)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{")
    done = run_cli(household.root, "heartbeat", "--once")
    assert done.returncode == 1
    assert done.stderr.startswith("vault-app: error: heartbeat: ")
    assert "cursor.json" in done.stderr and "Traceback" not in done.stderr
    status = run_cli(household.root, "heartbeat", "--status")
    assert status.returncode == 0 and "Backlog:        unknown: " in status.stdout
