"""The heartbeat acts for the agent whose note it reads (issue 27): with that agent's
rights, a fact for a global entity it may not write waits for a person (approving it
writes it there), one for another agent's workspace goes to its own, the global notes'
heartbeat writes global memory only; and a rerun after a crash writes nothing twice and
never makes an old value current again."""

from __future__ import annotations

import datetime as dt
import json

from tests.grants import let_write_global
from vault_app.core import layout, models, review
from vault_app.core.vault import Vault
from vault_app.heartbeat import entries, extraction, runlog, runs, state

DAY = dt.date(2026, 11, 20)
NOW = dt.datetime(2026, 11, 21, 12, 0).astimezone()
MARIA = layout.EntityRef.parse("areas/people/maria")
REMODEL = layout.EntityRef.parse("projects/bathroom-remodel")
GARAGE = layout.EntityRef.parse("agent:security:areas/garage-door")


def at(hh: int, mm: int = 0) -> dt.datetime:
    return dt.datetime.combine(DAY, dt.time(hh, mm)).astimezone()


class Addressed:
    """An extractor (an LLM's, say) that names the entity each fact is about by address:
    the one way a note's fact can aim at another agent's workspace."""

    name = "addressed"

    def __init__(self, entity: str) -> None:
        self.entity = entity

    def extract(self, batch: list[extraction.Entry]) -> extraction.Extraction:
        return extraction.Extraction(
            [
                extraction.Candidate(e.text, models.FactCategory.CONTEXT, e, entity=self.entity)
                for e in batch
            ]
        )


def beat(vault: Vault, extractor: extraction.Extractor | None = None) -> runlog.RunRecord:
    return runs.run_heartbeat(
        vault.root, runner="cli", trigger="once", extractor=extractor, now=NOW
    )


def texts(vault: Vault, ref: layout.EntityRef) -> list[str]:
    return [f.fact for f in vault.entity(ref).facts if f.source == "heartbeat"]


def held_for_review(vault: Vault, entity: layout.EntityRef, note: str) -> review.Proposal:
    """The household agent (no global writer) notes `note` of the global `entity`: the
    heartbeat holds it for a person, writing nothing there; the one review it waits in."""
    vault.create_agent("household")
    vault.create_entity(entity)
    vault.append_daily(note, agent="household", at=at(9))
    record = beat(vault)
    assert (record.held, record.written) == (1, 0)
    assert texts(vault, entity) == []  # nothing written where it may not write
    [held] = review.pending(vault)
    return held


def test_a_global_fact_its_agent_may_not_write_waits_for_a_person(vault: Vault) -> None:
    note = "The Bathroom Remodel tile budget is now zero."
    held = held_for_review(vault, REMODEL, note)
    assert held.agent == "household" and held.write.via == "heartbeat"
    assert held.write.params["entity"] == str(REMODEL) and held.write.params["text"] == note
    assert "global writer" in held.findings[0].detail
    # a rerun from before the cursor (a crash) proposes nothing again
    state.path(vault.root, entries.CURSOR_NAME).unlink()
    assert beat(vault).held == 0 and len(review.pending(vault)) == 1
    person = Vault(vault.root, actor="jane")
    review.approve(person, held.id)
    [fact] = [f for f in vault.entity(REMODEL).facts]
    assert fact.fact == note and fact.agent_id == "household"
    lines = (vault.paths.state_dir / "audit.jsonl").read_text().splitlines()
    added = [json.loads(line) for line in lines if '"fact.add"' in line]
    assert added[-1]["actor"] == "heartbeat:household"


def test_a_held_change_of_a_value_is_proposed_as_the_supersede_it_is(vault: Vault) -> None:
    """A value the agent may not change without a person is held as a supersede: the
    person reads the old value beside the new, and approving it retires the old one (it
    was added beside it, both current). What the entity holds already is no proposal."""
    vault.create_agent("household")
    vault.create_entity(MARIA)
    old = vault.add_fact(MARIA, "Maria's favourite colour is blue.", models.FactCategory.PREFERENCE)
    vault.append_daily("Maria's favourite colour is green.", agent="household", at=at(9))
    vault.append_daily("Maria's favourite colour is blue.", agent="household", at=at(10))
    record = beat(vault)
    assert (record.held, record.deduped, record.written) == (1, 1, 0)
    [held] = review.pending(vault)
    assert held.write.kind == "supersede_fact" and held.write.params["fact_id"] == old.id
    shown = review.describe(held)
    assert shown["text"] == "Maria's favourite colour is green."
    assert "Maria's favourite colour is blue." in json.dumps(shown)  # the value it replaces
    review.approve(Vault(vault.root, actor="jane"), held.id)
    facts = {f.fact: f for f in vault.entity(MARIA).facts}
    assert [t for t, f in facts.items() if f.is_active] == ["Maria's favourite colour is green."]
    assert facts["Maria's favourite colour is blue."].superseded_by == (
        facts["Maria's favourite colour is green."].id
    )
    assert facts["Maria's favourite colour is green."].agent_id == "household"


def test_a_global_writer_writes_there_at_once(vault: Vault) -> None:
    vault.create_agent("household")
    vault.create_entity(REMODEL)
    let_write_global(vault.root, "household")
    vault.append_daily("The Bathroom Remodel tile budget is now zero.", agent="household", at=at(9))
    record = beat(vault)
    assert (record.held, record.written) == (1 - 1, 1)
    assert texts(vault, REMODEL) == ["The Bathroom Remodel tile budget is now zero."]


def test_another_agents_workspace_sends_the_fact_to_the_agents_own(vault: Vault) -> None:
    for agent in ("finance", "security"):
        vault.create_agent(agent)
    vault.create_entity(GARAGE)
    theirs = vault.paths.entity_dir(GARAGE) / "items.json"
    before = theirs.read_bytes()
    vault.append_daily("The Garage Door opener needs new batteries.", agent="finance", at=at(9))
    record = beat(vault, Addressed(str(GARAGE)))
    assert record.rerouted == 1 and record.written == 1
    assert texts(vault, GARAGE) == [] and theirs.read_bytes() == before
    own = layout.EntityRef("finance", GARAGE.path)
    assert texts(vault, own) == ["The Garage Door opener needs new batteries."]


def test_the_global_notes_write_no_agents_workspace(vault: Vault) -> None:
    vault.create_agent("security")
    vault.create_entity(GARAGE)
    vault.append_daily("The Garage Door opener needs new batteries.", at=at(9))
    record = beat(vault, Addressed(str(GARAGE)))
    assert record.written == 0 and record.deferred == 1
    assert texts(vault, GARAGE) == []


def test_a_rerun_after_a_crash_writes_nothing_twice_nor_revives_an_old_value(
    vault: Vault,
) -> None:
    """Entries that change one value: a rerun from before the cursor (what a SIGKILL
    between the writes and the cursor's save leaves) finds every fact its entry wrote,
    superseded ones included, and writes none again."""
    vault.create_entity(MARIA)
    for hour, colour in ((9, "blue"), (10, "green"), (11, "red")):
        vault.append_daily(f"Maria's favourite colour is {colour}.", at=at(hour))
    first = beat(vault)
    assert (first.written, first.superseded) == (1, 2)
    before = (vault.paths.entity_dir(MARIA) / "items.json").read_bytes()
    state.path(vault.root, entries.CURSOR_NAME).unlink()
    again = beat(vault)
    assert (again.entries, again.written, again.superseded) == (3, 0, 0)
    assert (vault.paths.entity_dir(MARIA) / "items.json").read_bytes() == before
    active = [f.fact for f in vault.entity(MARIA).facts if f.is_active]
    assert active == ["Maria's favourite colour is red."]


def test_a_fact_routed_by_a_name_before_it_passes_the_same_door(vault: Vault) -> None:
    # the routes this policy must hold for are every way a fact finds its entity; the
    # one by a name its entry gave before it (routing's `around`) is no exception
    roofer = layout.EntityRef.parse("areas/companies/summit-roofing")
    note = "Called Summit Roofing; the quote is $14,200 for a full replacement."
    held = held_for_review(vault, roofer, note)
    assert held.write.params["entity"] == str(roofer)
    assert held.write.params["text"] == "The quote is $14,200 for a full replacement."


def test_the_routes_by_a_thing_or_the_users_name_stay_in_the_agents_own_workspace(
    vault: Vault,
) -> None:
    """Two more ways a fact finds its entity: the thing it opens on (made on its third
    entry) and the user's name (which the agent may read in the global Me). Both write the
    agent's own workspace, never global memory it may not write."""
    vault.create_agent("maintenance")
    me = layout.EntityRef.parse("areas/me")
    vault.create_entity(me)
    vault.add_fact(me, "The user's name is Alex Rivera.", "context")
    before = (vault.paths.entity_dir(me) / "items.json").read_bytes()
    for hour, note in enumerate(
        ["The dishwasher is leaking again.", "The dishwasher needs a new door seal.",
         "The dishwasher was repaired on 2026-11-19.",
         "Alex wants the thermostat at 68 during the day."], start=9,
    ):  # fmt: skip
        vault.append_daily(note, agent="maintenance", at=at(hour))
    record = beat(vault)
    assert (record.written, record.held) == (4, 0)
    assert len(texts(vault, layout.EntityRef.parse("agent:maintenance:areas/dishwasher"))) == 3
    assert texts(vault, layout.EntityRef("maintenance", "areas/me")) == [
        "Alex wants the thermostat at 68 during the day."
    ]
    assert (vault.paths.entity_dir(me) / "items.json").read_bytes() == before
    assert not vault.paths.holds_entity(layout.EntityRef.parse("areas/dishwasher"))


def test_a_held_fact_that_makes_a_person_heads_them_with_their_name_as_written(
    vault: Vault,
) -> None:
    """Approving a held fact about someone new makes their entity headed "# Tomás", as the
    heartbeat heads one it makes itself, not "# Tomas" from the folder; whichever of the
    held facts is approved first, and the person sees the heading proposed."""
    vault.create_agent("household")
    for minute, note in enumerate(
        ["My cousin Tomás is staying with us next week.", "Tomás is allergic to penicillin."]
    ):
        vault.append_daily(note, agent="household", at=at(9, minute))
    assert beat(vault).held == 3
    held = review.pending(vault)
    assert {p.write.params["entity"] for p in held} == {"areas/people/tomas"}
    assert {p.write.params.get("title") for p in held} == {"Tomás"}
    allergy = next(p for p in held if "penicillin" in p.write.params["text"])
    assert review.describe(allergy)["params"]["title"] == "Tomás"
    review.approve(Vault(vault.root, actor="jane"), allergy.id)
    tomas = layout.EntityRef.parse("areas/people/tomas")
    assert (vault.entity(tomas).summary.text or "").startswith("# Tomás\n")
    assert texts(vault, tomas) == ["Tomás is allergic to penicillin."]


def test_an_agent_write_names_no_heading_but_as_a_string(vault: Vault) -> None:
    from vault_app.core import agent_writes, errors

    vault.create_agent("household")
    write = agent_writes.AgentWrite(
        kind="add_fact",
        agent="household",
        params={"entity": "agent:household:areas/x", "text": "X.", "category": "context",
                "title": ["not", "a", "string"]},
    )  # fmt: skip
    try:
        agent_writes.submit(Vault(vault.root, actor="agent:household"), write)
    except errors.InvalidFactError as exc:
        assert "title" in str(exc)
    else:
        raise AssertionError("a title that is no string was taken")
