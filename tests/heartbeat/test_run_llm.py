"""The heartbeat through an OpenAI-compatible endpoint (a real scripted server on
127.0.0.1): a failing endpoint leaves the cursor before the failed entries, which the
next run retries; the CLI's --llm-base-url/--llm-model reach the endpoint."""

from __future__ import annotations

import datetime as dt
import json

from tests.cli_process import run_cli
from tests.heartbeat.fake_llm import FakeChatEndpoint, Received, Reply, error, facts
from vault_app.core import layout
from vault_app.core.vault import Vault
from vault_app.heartbeat import entries, llm, runs

MARIA = layout.EntityRef.parse("areas/people/maria")
DAY = dt.datetime(2026, 11, 20, 9, 0).astimezone()
NOW = DAY + dt.timedelta(days=1)


def answer(received: Received) -> Reply:
    """The fact each entry states, about Maria; an entry saying "down" gets a 500."""
    text = received.user.split("Entry:\n", 1)[1]
    if "down" in text:
        return error(500, "the model is loading")
    return facts({"fact": text, "category": "preference", "entity": "Maria"})


def household(vault: Vault) -> None:
    vault.create_entity(MARIA)
    for hour, text in enumerate(
        [
            "Maria prefers oat milk in her coffee.",
            "Maria prefers the window seat, down by the door.",
            "Maria prefers long walks on Sundays.",
        ]
    ):
        vault.append_daily(text, at=DAY + dt.timedelta(hours=hour))


def beat(vault: Vault, url: str) -> runs.runlog.RunRecord:
    extractor = llm.LlmExtractor(url, "fake", retries=0, backoff_s=0)
    return runs.run_heartbeat(
        vault.root, runner="cli", trigger="once", extractor=extractor, now=NOW
    )


def test_a_failing_endpoint_leaves_the_failed_entries_for_the_next_run(vault: Vault) -> None:
    household(vault)
    with FakeChatEndpoint(answer) as endpoint:
        first = beat(vault, endpoint.base_url)
        assert (first.entries, first.failed, first.written) == (3, 1, 2)
        assert first.extractor == "llm:fake" and first.error is None
        waiting = entries.Cursor.load(vault.root).new_entries(vault)
        assert [e.text for e in waiting] == ["Maria prefers the window seat, down by the door."]
    with FakeChatEndpoint(lambda r: facts()) as endpoint:  # back, finding nothing new
        second = beat(vault, endpoint.base_url)
        assert (second.entries, second.failed, second.written) == (1, 0, 0)
        assert len(endpoint.requests) == 1
    assert entries.Cursor.load(vault.root).new_entries(vault) == []


def test_an_endpoint_that_is_down_fails_every_entry_and_moves_nothing(vault: Vault) -> None:
    household(vault)
    with FakeChatEndpoint() as endpoint:
        url = endpoint.base_url
    record = beat(vault, url)  # the port is closed now: connection refused
    assert (record.entries, record.failed, record.written, record.error) == (3, 3, 0, None)
    assert len(entries.Cursor.load(vault.root).new_entries(vault)) == 3


def test_the_cli_reaches_the_endpoint_it_is_given(vault: Vault) -> None:
    household(vault)
    with FakeChatEndpoint(answer) as endpoint:
        done = run_cli(
            vault.root,
            "heartbeat",
            "--once",
            "--json",
            "--llm-base-url",
            endpoint.base_url,
            "--llm-model",
            "fake",
        )
        assert done.returncode == 0, done.stderr
        [record] = json.loads(done.stdout)["runs"]
        assert record["extractor"] == "llm:fake" and record["written"] == 2
        assert record["failed"] == 1
        assert {r.body["model"] for r in endpoint.requests} == {"fake"}
