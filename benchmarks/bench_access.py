"""Print what the access policy costs an agent's call: one decision, one file through the
door (its real place worked out), and a whole read and write through an agent's vault
against the same through a person's (no door), alternated so the machine's drift falls
on both alike.

    .venv/bin/python benchmarks/bench_access.py [--rounds N]

Target (issue 27): the policy check costs at most 0.2 ms a call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vault_app.core import access, config, layout  # noqa: E402
from vault_app.core import vault as vault_module  # noqa: E402

TARGET_MS = 0.2


def per_call_us(fn: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - started) / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        v = vault_module.Vault.create(Path(tmp) / "v", actor="jane")
        for agent in ("finance", "security"):
            v.create_agent(agent)
        own = layout.EntityRef("finance", "areas/budget")
        for i in range(20):
            v.add_fact(own, f"Budget line {i} is {100 + i}", "status", create=True)
        v.add_fact("areas/family", "The family has two cats", "context", create=True)
        link = v.paths.para_root("finance") / "areas" / "peek"
        link.mkdir()
        os.symlink(v.paths.para_root("security") / "areas", link / "items.json")

        policy = access.Policy(config.AgentsSettings(global_writers=["household"]))
        who = access.Principal.of_agent("finance")
        target = access.Target.entity(layout.EntityRef(None, "areas/family"))
        agent = vault_module.Vault(v.root, actor="agent:finance")
        person = vault_module.Vault(v.root, actor="jane")
        guard = agent.storage.guard
        assert guard is not None
        plain = v.paths.entity_dir(own) / "items.json"
        linked = link / "items.json"

        decide: list[float] = []
        plain_file: list[float] = []
        link_file: list[float] = []
        reads: dict[str, list[float]] = {"agent": [], "person": []}
        for _ in range(args.rounds):  # alternated: agent, person, agent, person...
            for name, opened in (("agent", agent), ("person", person)):
                reads[name].append(per_call_us(lambda o=opened: o.entity(own), 200) / 1000)
            decide.append(
                per_call_us(lambda: policy.decide(who, access.Action.WRITE, target), 20_000)
            )
            plain_file.append(per_call_us(lambda: guard(plain, "read"), 5_000))
            link_file.append(per_call_us(lambda: guard.target(linked), 5_000))

        def line(label: str, values: list[float], unit: str) -> str:
            median = statistics.median(values)
            return f"{label:<44} median {median:8.3f} {unit}  (max {max(values):.3f})"

        print(line("one policy decision", decide, "µs"))
        print(line("one file through the door (no symlink)", plain_file, "µs"))
        print(line("one file through the door (a symlink)", link_file, "µs"))
        extra = statistics.median(reads["agent"]) - statistics.median(reads["person"])
        print(line("an entity read through an agent's vault", reads["agent"], "ms"))
        print(line("the same read through a person's vault", reads["person"], "ms"))
        check_ms = (statistics.median(decide) + statistics.median(plain_file) * 3) / 1000
        print(
            f"the door's cost on a read: {extra:+.3f} ms; a check (decision + 3 files): "
            f"{check_ms:.3f} ms (target <= {TARGET_MS} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
