"""An agent writing a vault, as its own process, for the sync tests.

    python _agent_writer.py VAULT AGENT COUNT SEED ENTITY [ENTITY...]

COUNT writes as `agent:AGENT`, a few milliseconds apart: mostly new facts in the given
entities, some accesses of facts it wrote, some entries in its daily note. Prints one JSON
object when done: the facts it wrote (entity, id, text), the last access count it saw for
each fact it accessed, and the daily entries it wrote.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vault_app.core import vault


def main() -> None:
    root, agent, count, seed, *entities = sys.argv[1:]
    rng = random.Random(int(seed))
    v = vault.Vault(root, actor=f"agent:{agent}")
    facts: list[dict[str, str]] = []
    counts: dict[str, int] = {}
    entries: list[str] = []
    for n in range(int(count)):
        roll = rng.random()
        if roll < 0.2 and facts:
            chosen = rng.choice(facts)
            counts[chosen["id"]] = v.mark_accessed([chosen["id"]])[chosen["id"]]
        elif roll < 0.3:
            text = f"{agent} noted step {n}"
            v.append_daily(text, agent=agent)
            entries.append(text)
        else:
            entity = rng.choice(entities)
            text = f"{agent} fact {n} about {entity.rsplit('/', 1)[-1]}"
            fact = v.add_fact(entity, text, "context", agent_id=agent)
            facts.append({"entity": entity, "id": fact.id, "text": text})
        time.sleep(rng.uniform(0.002, 0.02))
    print(json.dumps({"facts": facts, "counts": counts, "entries": entries}))


if __name__ == "__main__":
    main()
