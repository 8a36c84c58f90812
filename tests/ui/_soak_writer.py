"""One writer process of the live-sync soak test (tests/ui/test_soak.py).

    python _soak_writer.py '{"root": ..., "name": "a", "changes": 2500, "seconds": 55, ...}'

It behaves like an agent working on the vault: it appends facts to its own entities the way
agents do (read items.json, write a temp file, fsync, `os.replace`), appends entries to
daily notes (in place like an editor, or through the core library), now and then creates
an entity (summary.md and items.json in a new folder) and supersedes one of its facts
through `core.vault.Vault`. Each writer owns its entities and notes, so the two writers
never race on one file (nothing of theirs can be lost to the other): whatever the test
finds missing was lost by the app, not by the writers.

Protocol: prints "ready" once the vault is opened, waits for "go" on stdin, makes
`changes` changes spread evenly over `seconds`, then writes all it wrote to the JSON file
`report` (more than a pipe holds): {"facts": [[address, id, text]], "superseded":
[[old id, new id]], "daily": [[path, text]], "created": [address], "seconds": elapsed}.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, run as a script
from agent_writes import raw_fact, replace

from vault_app.core import layout, vault

WORDS = [
    *("boiler", "invoice", "garden", "budget", "meeting", "plumber", "roof", "window"),
    *("contract", "school", "dentist", "holiday", "train", "coffee", "server", "backup"),
    *("report", "tax", "insurance", "neighbour", "birthday", "recipe"),
]


class SoakWriter:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.name: str = spec["name"]
        # a tool of the person's (it writes where no one agent may: both scopes, others' notes)
        self.vault = vault.Vault(spec["root"], actor=f"soak-{self.name}")
        self.rng = random.Random(spec["seed"])
        self.entities: list[str] = list(spec["entities"])
        self.raw_daily: list[str] = list(spec["raw_daily"])  # note paths appended in place
        self.core_daily: list[str | None] = list(spec["core_daily"])  # agents (None: global)
        self.new_entities: list[str] = list(spec["new_entities"])  # created during the run
        self.counter = 0
        self.facts: list[list[str]] = []
        self.active: list[str] = []  # ids this writer may supersede
        self.superseded: list[list[str]] = []
        self.daily: list[list[str]] = []
        self.created: list[str] = []

    def text(self) -> str:
        """A fact or note text with one word found nowhere else (for the search check)."""
        self.counter += 1
        words = " ".join(self.rng.choice(WORDS) for _ in range(4))
        return f"Soak writer {self.name} marker zq{self.name}{self.counter:05d} about {words}"

    def items(self, address: str) -> Path:
        return self.vault.paths.entity_dir(layout.EntityRef.parse(address)) / "items.json"

    def add_fact(self, address: str) -> None:
        path = self.items(address)
        facts = json.loads(path.read_bytes()) if path.exists() else []
        fact_id = f"fact-soak-{self.name}-{self.counter + 1:05d}"
        text = self.text()
        category = self.rng.choice(("status", "context", "milestone"))
        facts.append(raw_fact(fact_id, text, category, f"soak-{self.name}"))
        replace(path, json.dumps(facts, indent=2).encode())
        self.facts.append([address, fact_id, text])
        self.active.append(fact_id)

    def create_entity(self) -> None:
        address = self.new_entities.pop(0)
        folder = self.vault.paths.entity_dir(layout.EntityRef.parse(address))
        folder.mkdir(parents=True)
        summary = f"# {folder.name}\n\nMade by soak writer {self.name}.\n"
        replace(folder / "summary.md", summary.encode())
        self.add_fact(address)
        self.entities.append(address)
        self.created.append(address)

    def supersede(self) -> None:
        old = self.active.pop(self.rng.randrange(len(self.active)))
        text = self.text()
        _, new = self.vault.supersede_fact(old, text, source=f"soak-{self.name}")
        self.superseded.append([old, new.id])
        address = next(a for a, fid, _ in self.facts if fid == old)
        self.facts.append([address, new.id, text])
        self.active.append(new.id)

    def append_daily(self) -> None:
        text = self.text()
        choice = self.rng.randrange(len(self.raw_daily) + len(self.core_daily))
        if choice < len(self.raw_daily):
            path = self.raw_daily[choice]
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(f"\n## {time.strftime('%H:%M:%S')}\n\n{text}\n")
        else:
            agent = self.core_daily[choice - len(self.raw_daily)]
            entry = self.vault.append_daily(text, agent=agent)
            path = str(self.vault.paths.daily_file(entry.date, agent))
        self.daily.append([path, text])

    def change(self, n: int, total: int) -> None:
        every = max(1, total // (len(self.new_entities) + len(self.created) + 1))
        if self.new_entities and n % every == every // 2:
            self.create_entity()
            return
        roll = self.rng.random()
        if roll < 0.04 and self.active:
            self.supersede()
        elif roll < 0.16:
            self.append_daily()
        else:
            self.add_fact(self.rng.choice(self.entities))

    def run(self, changes: int, seconds: float) -> float:
        started = time.monotonic()
        for n in range(changes):
            due = started + seconds * n / changes
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.change(n, changes)
        return time.monotonic() - started


def main() -> None:
    spec = json.loads(sys.argv[1])
    writer = SoakWriter(spec)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")
    elapsed = writer.run(spec["changes"], spec["seconds"])
    report = {
        "facts": writer.facts,
        "superseded": writer.superseded,
        "daily": writer.daily,
        "created": writer.created,
        "seconds": elapsed,
    }
    Path(spec["report"]).write_text(json.dumps(report), encoding="utf-8")


if __name__ == "__main__":
    main()
