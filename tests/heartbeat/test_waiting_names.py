"""The names the heartbeat met but made no entity of yet, for a person to see and keep:
`heartbeat --waiting` lists them with the facts that wait in the daily notes (a name is
made on its third mention), `heartbeat --keep NAME` makes one now through the rules' own
"keep track of" request, written where the name was met, so the same access policy
decides. Real processes, as a person runs them.

Variants thought of: a name met in an agent's notes (the request goes there, and that
agent's heartbeat makes it); a name with an honorific ("Mr. Okafor", which the track
request once cut at its stop); a name that waits for nothing; another process holding
the lease (the request waits for its next heartbeat); a corrupt mentions file (a precise
error, nothing written)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.cli_process import run_cli, serve_holding
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import extraction, mentions, rules, runs

DAY = dt.date(2026, 11, 20)
NOW = "2026-11-21T12:00:00+00:00"
OKAFOR = layout.EntityRef.parse("areas/people/mr-okafor")


def at(hh: int) -> dt.datetime:
    return dt.datetime.combine(DAY, dt.time(hh)).astimezone()


def beat(vault: Vault) -> None:
    now = dt.datetime.fromisoformat(NOW)
    runs.run_heartbeat(vault.root, runner="cli", trigger="once", now=now)


def facts_of(vault: Vault, ref: layout.EntityRef) -> list[str]:
    return [f.fact for f in vault.entity(ref).facts if f.is_active]


@pytest.fixture
def met(vault: Vault) -> Vault:
    """A vault whose heartbeat met Mr. Okafor (twice) and Priya Nair (once), unmade."""
    vault.append_daily("Mr. Okafor fixed the side gate.", at=at(9))
    vault.append_daily("Mr. Okafor works weekends only.", at=at(10))
    vault.append_daily("Priya Nair prefers email to calls.", at=at(11))
    beat(vault)
    assert not vault.paths.holds_entity(OKAFOR)
    return vault


def test_the_waiting_names_are_listed_most_mentioned_first(met: Vault) -> None:
    [okafor, priya] = mentions.waiting_names(met.root)
    assert (okafor.name, okafor.address, okafor.mentions) == ("Mr. Okafor", str(OKAFOR), 2)
    assert [c.fact for c in okafor.facts] == [
        "Mr. Okafor fixed the side gate.",
        "Mr. Okafor works weekends only.",
    ]
    assert (priya.name, priya.mentions, okafor.agent) == ("Priya Nair", 1, None)
    shown = run_cli(met.root, "heartbeat", "--waiting")
    assert shown.returncode == 0, shown.stderr
    assert "2 names wait for their entity (made on mention 3;" in shown.stdout
    assert "Mr. Okafor (areas/people/mr-okafor): 2 mentions, 2 facts wait" in shown.stdout
    assert "    Mr. Okafor fixed the side gate.  [global/daily/2026-11-20.md]" in shown.stdout
    data = json.loads(run_cli(met.root, "heartbeat", "--waiting", "--json").stdout)
    assert [w["name"] for w in data["waiting"]] == ["Mr. Okafor", "Priya Nair"]
    assert data["waiting"][1]["facts"][0]["fact"] == "Priya Nair prefers email to calls."
    assert data["waiting"][0]["made_at"] == mentions.CREATE_AT


def test_keep_makes_the_entity_now_with_what_waited(met: Vault) -> None:
    kept = run_cli(met.root, "heartbeat", "--keep", "mr okafor", now=NOW)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith(
        "Asked to keep track of Mr. Okafor (areas/people/mr-okafor) in the global daily notes."
    )
    assert "1 created" in kept.stdout
    assert facts_of(met, OKAFOR) == [
        "The user asked to keep track of Mr. Okafor.",
        "Mr. Okafor fixed the side gate.",
        "Mr. Okafor works weekends only.",
    ]
    assert [w.name for w in mentions.waiting_names(met.root)] == ["Priya Nair"]
    # the request is a note like any other: in the day's notes, by the person
    note = met.daily_note(dt.date(2026, 11, 21)).path.read_text()
    assert "Keep track of Mr. Okafor." in note


def test_a_name_met_in_an_agents_notes_is_kept_there(vault: Vault) -> None:
    vault.create_agent("finance")
    vault.append_daily("Lena Holt audits the books.", agent="finance", at=at(9))
    beat(vault)
    [lena] = mentions.waiting_names(vault.root)
    assert lena.agent == "finance"
    kept = run_cli(vault.root, "heartbeat", "--keep", "Lena Holt", "--json", now=NOW)
    assert kept.returncode == 0, kept.stderr
    assert json.loads(kept.stdout)["asked"].endswith("in finance's daily notes.")
    note = vault.daily_note(dt.date(2026, 11, 21), "finance").path.read_text()
    assert "Keep track of Lena Holt." in note
    assert mentions.waiting_names(vault.root) == []  # made, as that agent's heartbeat may


def test_a_name_that_waits_for_nothing_is_a_precise_error(met: Vault) -> None:
    before = met.daily_note(DAY).path.read_bytes()
    wrong = run_cli(met.root, "heartbeat", "--keep", "Nobody Known")
    assert wrong.returncode == 1
    assert wrong.stderr == (
        "vault-app: error: no name waits as 'Nobody Known': `heartbeat --waiting` lists those"
        " that do\n"
    )
    assert met.daily_note(DAY).path.read_bytes() == before
    assert not met.paths.daily_file(dt.date(2026, 11, 21), None).exists()


@pytest.fixture
def held(met: Vault) -> Iterator[subprocess.Popen[str]]:
    with serve_holding(met.root) as process:
        yield process


def test_keep_while_another_runner_holds_the_vault_waits_for_its_heartbeat(
    met: Vault, held: subprocess.Popen[str]
) -> None:
    kept = run_cli(met.root, "heartbeat", "--keep", "Priya Nair", now=NOW)
    assert kept.returncode == 0, kept.stderr
    assert f"is run by serve (pid {held.pid} on " in kept.stdout
    assert "it keeps the name at its next heartbeat." in kept.stdout
    assert not met.paths.holds_entity(layout.EntityRef.parse("areas/people/priya-nair"))
    held.kill()
    held.wait(30)
    beat(met)  # the runner's next heartbeat reads the request
    assert facts_of(met, layout.EntityRef.parse("areas/people/priya-nair")) == [
        "The user asked to keep track of Priya Nair.",
        "Priya Nair prefers email to calls.",
    ]


def test_a_corrupt_mentions_file_is_named(met: Vault) -> None:
    mentions.mentions_path(met.root).write_text("{")
    shown = run_cli(met.root, "heartbeat", "--waiting")
    assert shown.returncode == 1 and "mentions.json" in shown.stderr
    assert "Traceback" not in shown.stderr


def test_a_track_request_keeps_an_honorific() -> None:
    entry = extraction.Entry(
        path=f"global/daily/{DAY}.md", date=DAY, time="09:00:00",
        text=mentions.keep_request("Mr.  Okafor"),
    )  # fmt: skip
    [made] = rules.candidates(entry)
    assert (made.fact, made.entity, made.track) == (
        "The user asked to keep track of Mr. Okafor.",
        "Mr. Okafor",
        True,
    )


def test_an_agent_cannot_keep_a_name_met_in_another_agents_notes(vault: Vault) -> None:
    """`--actor agent:…` asks as that agent: the request goes where the name was met, and
    the one access policy refuses an agent another agent's notes."""
    vault.create_agent("finance")
    vault.create_agent("maintenance")
    vault.append_daily("Lena Holt services the boiler.", agent="maintenance", at=at(9))
    beat(vault)
    note = vault.daily_note(DAY, "maintenance").path
    before = note.read_bytes()
    refused = run_cli(
        vault.root, "--actor", "agent:finance", "heartbeat", "--keep", "Lena Holt", now=NOW
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("vault-app: error: ") and "Traceback" not in refused.stderr
    assert note.read_bytes() == before
    assert not vault.paths.daily_file(dt.date(2026, 11, 21), "maintenance").exists()
    assert [w.name for w in mentions.waiting_names(vault.root)] == ["Lena Holt"]


def test_one_name_waiting_is_said_as_one(vault: Vault) -> None:
    vault.append_daily("Priya Nair prefers email to calls.", at=at(11))
    # an all-capital word before a number is a rating, no one's name to wait
    vault.append_daily("Replaced the furnace filter (16x25x1, MERV 11).", at=at(12))
    beat(vault)
    shown = run_cli(vault.root, "heartbeat", "--waiting")
    assert "1 name waits for its entity (made on mention 3;" in shown.stdout
    assert "MERV" not in shown.stdout
