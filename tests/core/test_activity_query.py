"""The audit log read for the window (issue 16, "What the agents did"): `activity.query`
filters by who, what, entity and a date range; `agent_changes` says what agents changed
since a time, per entity; `last_write` names who wrote a file last."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.grants import let_write_global
from vault_app.core import activity, storage
from vault_app.core import vault as vault_module

# a day ahead of the real clock, so the vault's own creation (now) is a day "old"
NOW = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(days=1)
RENT = "projects/rent"
BUDGET = "agent:finance:projects/budget"


def at(root: Path, actor: str, hours_ago: float) -> vault_module.Vault:
    """The vault as `actor`, its clock `hours_ago` before NOW."""
    moment = NOW - dt.timedelta(hours=hours_ago)
    return vault_module.Vault(root, actor=actor, clock=lambda: moment)


@pytest.fixture
def root(vault: vault_module.Vault) -> Path:
    """Writes by a person, an agent, the heartbeat and an agent named by its bare id,
    over three days."""
    vault.create_agent("finance")
    root = vault.root
    let_write_global(root, "finance")  # (it writes the global RENT)
    at(root, "gui", 72).create_entity(RENT)
    at(root, "gui", 70).add_fact(RENT, "Rent is 900 a month", "status")
    at(root, "agent:finance", 48).add_fact(BUDGET, "Budget review in May", "status", create=True)
    at(root, "heartbeat", 24).add_fact(RENT, "The landlord is Mr Pike", "relationship")
    at(root, "finance", 2).add_fact(RENT, "Rent rises to 950 in March", "milestone")
    at(root, "jane", 1).append_daily("Paid the rent.")
    return root


def actions(found: activity.Found) -> list[tuple[str, str]]:
    return [(line["actor"], line["action"]) for line in found.lines]


def test_everything_newest_first_without_bookkeeping(root: Path) -> None:
    everything = activity.query(root, activity.Query(agent_ids=("finance",)))
    assert actions(everything)[:2] == [("jane", "daily.append"), ("finance", "fact.add")]
    assert not everything.more
    assert {"gui", "agent:finance", "heartbeat", "finance", "jane"} <= everything.actors
    at(root, "heartbeat", 0).storage.audit("heartbeat.cursor", root / ".vault" / "x.json")
    assert all(a != "heartbeat.cursor" for _, a in actions(activity.query(root, activity.Query())))
    kept = activity.query(root, activity.Query(family="heartbeat"))
    assert actions(kept) == [("heartbeat", "heartbeat.cursor")]


def test_who_a_kind_an_agent_by_either_name_or_one_actor(root: Path) -> None:
    ids = ("finance",)
    agents = activity.query(root, activity.Query(actor="kind:agent", agent_ids=ids))
    # finance's fact, then agent:finance's fact and the entity it created for it
    assert actions(agents) == [
        ("finance", "fact.add"),
        ("agent:finance", "fact.add"),
        ("agent:finance", "entity.create"),
        ("agent:finance", "entity.create"),
    ]
    finance = activity.query(root, activity.Query(actor="agent:finance", agent_ids=ids))
    assert finance.lines == agents.lines
    # without the vault's agents, a bare "finance" is a person's name
    strict = activity.query(root, activity.Query(actor="kind:agent"))
    assert {a for a, _ in actions(strict)} == {"agent:finance"}
    assert [
        a for a, _ in actions(activity.query(root, activity.Query(actor="kind:heartbeat")))
    ] == ["heartbeat"]
    jane = activity.query(root, activity.Query(actor="jane"))
    assert actions(jane) == [("jane", "daily.append")]


def test_what_and_entity_words(root: Path) -> None:
    facts = activity.query(root, activity.Query(family="fact"))
    assert {a for _, a in actions(facts)} == {"fact.add"}
    rent = activity.query(root, activity.Query(entity="PROJECTS rent"))
    assert {activity.entity_of(line) for line in rent.lines} == {RENT}
    assert len(rent.lines) == 5  # the folder's two files and three facts
    assert activity.query(root, activity.Query(entity="rent nowhere")).lines == []
    # an agent's address is no text of the target path: found through `entity_of`
    budget = activity.query(root, activity.Query(entity=BUDGET.upper()))
    assert {activity.entity_of(line) for line in budget.lines} == {BUDGET}


def test_a_date_range_is_start_inclusive_end_exclusive(root: Path) -> None:
    window = activity.Query(
        family="fact", start=NOW - dt.timedelta(hours=48), end=NOW - dt.timedelta(hours=2)
    )
    found = activity.query(root, window)
    assert actions(found) == [("heartbeat", "fact.add"), ("agent:finance", "fact.add")]
    day = activity.query(root, activity.Query(start=NOW - dt.timedelta(hours=3)))
    assert actions(day) == [("jane", "daily.append"), ("finance", "fact.add")]
    assert activity.Query(end=NOW).covers(NOW - dt.timedelta(seconds=1))
    assert not activity.Query(end=NOW).covers(NOW)
    assert not activity.Query(start=NOW).covers(None)  # an unreadable time: open range only
    assert activity.Query().covers(None)


def test_the_limit_says_more_and_a_rare_line_is_found_far_back(root: Path) -> None:
    writer = at(root, "agent:finance", 0)
    for n in range(300):
        writer.storage.audit("fact.access", writer.paths.life_dir / "x" / "items.json", n=n)
    found = activity.query(root, activity.Query(), limit=100)
    assert len(found.lines) == 100 and found.more
    assert found.lines[0]["n"] == 299
    rare = activity.query(root, activity.Query(actor="kind:heartbeat"), limit=100)
    assert actions(rare) == [("heartbeat", "fact.add")] and not rare.more
    nothing = activity.query(root, activity.Query(), limit=0)
    assert nothing.lines == [] and nothing.more


def test_a_start_ends_the_read_early_but_tolerates_lines_out_of_order(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = root / ".vault" / storage.AUDIT_NAME

    def append(minutes_ago: float, actor: str) -> None:
        line = {"time": (NOW - dt.timedelta(minutes=minutes_ago)).isoformat(), "actor": actor}
        with log.open("ab") as handle:
            handle.write(json.dumps({**line, "action": "a.b"}).encode() + b"\n")

    start = NOW - dt.timedelta(minutes=70)
    append(65, "y")
    with log.open("ab") as handle:
        handle.write(b"not json\n")
    append(75, "x")  # older than the start, appended late: within SKEW, the read goes on
    found = activity.query(root, activity.Query(start=start))
    assert [a for a, _ in actions(found)] == ["y", "jane"]  # jane: an hour ago
    append(60 * 30, "z")  # far older, alone (a backfill): the read goes on
    assert [a for a, _ in actions(activity.query(root, activity.Query(start=start)))] == [
        "y",
        "jane",
    ]
    monkeypatch.setattr(activity, "OLD_RUN", 2)
    append(60 * 30, "z")  # two in a row: the read ends there
    assert activity.query(root, activity.Query(start=start)).lines == []


def test_agent_changes_per_entity_since_a_time_and_since_each_look(root: Path) -> None:
    ids = ("finance",)
    changes = activity.agent_changes(root, NOW - dt.timedelta(hours=100), agent_ids=ids)
    assert set(changes) == {RENT, BUDGET}  # people's writes are no news
    rent = changes[RENT]
    assert rent.actors == ["finance", "heartbeat"]  # newest first
    assert rent.latest == NOW - dt.timedelta(hours=2)
    assert len(rent.facts) == 2
    recent = activity.agent_changes(root, NOW - dt.timedelta(hours=10), agent_ids=ids)
    assert set(recent) == {RENT} and recent[RENT].actors == ["finance"]
    looked = {RENT: NOW - dt.timedelta(hours=1), BUDGET: NOW - dt.timedelta(hours=100)}
    since_looked = activity.agent_changes(
        root, NOW - dt.timedelta(hours=100), looked=looked, agent_ids=ids
    )
    assert set(since_looked) == {BUDGET}


def test_agent_changes_ignore_reads(root: Path) -> None:
    reader = at(root, "agent:finance", 0)
    fact = reader.entity(RENT).facts[0]
    reader.mark_accessed([fact.id])
    changes = activity.agent_changes(root, NOW - dt.timedelta(minutes=30), agent_ids=("finance",))
    assert changes == {}


def test_last_write_names_the_writer_of_a_file(root: Path) -> None:
    path = root / "global" / "life" / RENT / "items.json"
    line = activity.last_write(root, path)
    assert line is not None and line["actor"] == "finance"
    assert line["after"] == storage.sha256(path.read_bytes())  # that version is on disk
    assert activity.last_write(root, root / "global" / "nowhere.md") is None
    assert activity.last_write(root, root.parent / "outside.md") is None


def test_a_neighbours_log_and_a_persona_read_as_an_agent(tmp_path: Path) -> None:
    """A neighbour's folder's log, in vault-app's state folder (`log`); a MicroClaw
    persona (`CHAT/PERSONA`, no vault's agent id) is an agent when the folder lists it."""
    state, persona = tmp_path / "state", "-1001234567890/1"
    state.mkdir()
    lines = [
        {"time": "2026-11-24T09:00:00+00:00", "actor": f"agent:{persona}", "action": "tiers.write",
         "target": f"groups/{persona}/MEMORY.md"},
        {"time": "2026-11-24T09:05:00+00:00", "actor": "gui", "action": "review.approve",
         "target": "review/r-1.json"},
    ]  # fmt: skip
    log = state / storage.AUDIT_NAME
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    agents = (persona,)
    found = activity.query(state, activity.Query(actor="kind:agent", agent_ids=agents), log=log)
    assert [line["action"] for line in found.lines] == ["tiers.write"]
    assert activity.actor_title(f"agent:{persona}", agents) == persona
    assert activity.actor_kind(f"agent:{persona}") == "person"  # unlisted: not a vault's id
    mine = activity.Query(actor=f"agent:{persona}", agent_ids=agents)
    assert len(activity.query(state, mine, log=log).lines) == 1
    assert activity.query(state, activity.Query(), log=log).actors == {f"agent:{persona}", "gui"}
