"""Vaults for the decay outlook's tests (core/test_outlook.py, ui/test_dashboard.py): facts
last touched at chosen distances before a fixed noon, and the demo household."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from vault_app.core import config, decay, demo, models
from vault_app.core import vault as vault_module

TODAY = dt.date(2026, 7, 15)  # no daylight-saving change within 60 days before or 7 after
NOON = dt.datetime.combine(TODAY, dt.time(12)).astimezone()
JANE = "areas/people/jane"
BUDGET = "agent:finance:projects/budget"
GOING_COLD = {"exactly 24 days", "exactly 30 days", "often, 39 days", "agent fact, 26 days"}


def at(
    root: Path, moment: dt.datetime, settings: config.VaultConfig | None = None
) -> vault_module.Vault:
    """A handle on the vault at `root` whose clock stands still at `moment`."""
    return vault_module.Vault(root, clock=decay.fixed_clock(moment), settings=settings)


def small_vault(root: Path) -> vault_module.Vault:
    """A vault whose facts were last touched at chosen distances before NOON (the four of
    GOING_COLD are Warm at NOON and Cold a week later)."""
    v = vault_module.Vault.create(root, clock=decay.fixed_clock(NOON))
    v.create_entity(JANE)
    v.create_agent("finance")
    v.create_entity(BUDGET)

    def add(address: str, text: str, age: dt.timedelta, accesses: int = 0) -> models.Fact:
        then = at(root, NOON - age)
        fact = then.add_fact(address, text, "context")
        for _ in range(accesses):
            then.mark_accessed([fact.id])
        return fact

    add(JANE, "exactly 24 days", dt.timedelta(days=24))
    add(JANE, "one second short of 24 days", dt.timedelta(days=24) - dt.timedelta(seconds=1))
    add(JANE, "exactly 30 days", dt.timedelta(days=30))
    add(JANE, "exactly 31 days", dt.timedelta(days=31))
    add(JANE, "hot 3 days", dt.timedelta(days=3))
    add(JANE, "often, 39 days", dt.timedelta(days=39), accesses=11)
    add(JANE, "often, 38 days", dt.timedelta(days=38), accesses=11)
    replaced = add(JANE, "replaced, 25 days", dt.timedelta(days=25))
    v.supersede_fact(replaced.id, "the replacement, new today")
    add(BUDGET, "agent fact, 26 days", dt.timedelta(days=26))
    return vault_module.Vault(root, clock=decay.fixed_clock(NOON), actor="gui")


def demo_vault(root: Path) -> vault_module.Vault:
    """The demo household, made on TODAY, seen at NOON."""
    demo.create_demo(root, today=TODAY, clock=decay.fixed_clock(NOON))
    return vault_module.Vault(root, clock=decay.fixed_clock(NOON), actor="gui")
