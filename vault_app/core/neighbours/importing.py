"""`vault-app import`: a neighbour's memory copied into a PARA vault, with a report of
what went where. The source folder is only read.

Each structure goes to its twin in the vault, in the vault's layout (issue 17), kept
whole (so that nothing is lost or reinterpreted, and the agent keeps its notes, tiers
and profile with their budgets):

==================================  ==============================================
source                              in the vault
==================================  ==============================================
Hermes memories/MEMORY.md, USER.md  agents/hermes/memories/MEMORY.md, USER.md
Hermes SOUL.md                      agents/hermes/SOUL.md
PicoClaw memory/profile.json        agents/picoclaw/profile.json (vault's JSON shape)
PicoClaw memory/MEMORY.md           agents/picoclaw/MEMORY.md (as it is)
PicoClaw memory/YYYYMM/YYYYMMDD.md  agents/picoclaw/daily/YYYY-MM-DD.md, one entry
                                    at 00:00:00 (the `# YYYY-MM-DD` title dropped)
MicroClaw <chat>/<persona>/MEMORY.md   agents/microclaw-<chat>-<persona>/MEMORY.md
                                    (a negative chat id written n1001...)
MicroClaw daily logs                that agent's daily notes (a chat's log: every
                                    persona of the chat has it; with several, the
                                    global daily notes, the chat named first)
MicroClaw groups/AGENTS.md          global/AGENTS.md when the vault's is still the
                                    stub; else appended under a heading naming it
==================================  ==============================================

Then every atomic entry (`entries`: a Hermes § entry, a tier's entry, a profile.json
key) also becomes a fact of the agent's workspace, so that the vault's search, decay
and review see it:

=================================  ====================================  ==========
entry                              entity                                category
=================================  ====================================  ==========
Hermes MEMORY.md § entry           agent:hermes:resources/memory         context
Hermes USER.md § entry             agent:hermes:areas/profile            context
PicoClaw profile.json key          agent:picoclaw:areas/profile          context
tier 1 entry (MicroClaw persona,   agent:<id>:resources/memory           context
a tiered PicoClaw MEMORY.md)
tier 2 or 3 entry                  agent:<id>:resources/memory           status
=================================  ====================================  ==========

A fact's `agentId` is the agent's, its time the file's modification time (never later
than now), its `source` names the format and the entry (`hermes memories/MEMORY.md §
entry 3`) and `metadata.extractedFrom` says the same as JSON (format, folder, file,
structure, index, and the target, tier or key). Long-form text (daily notes, principles,
SOUL.md, a free-form MEMORY.md) stays documents and daily notes, as above.

An agent folder is created when missing. A file already in the vault is never
overwritten: the same bytes are reported `already there`, other bytes `skipped` (the
source keeps them; the report says where). A daily entry already present with the same
text is not appended again, and a fact whose text the entity already holds is not added
again, so importing twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import agent_memory, documents, errors, layout, profile
from vault_app.core.neighbours import detect, entries, folder, hermes, microclaw, picoclaw

if TYPE_CHECKING:
    from vault_app.core.vault import Vault


@dataclass(frozen=True)
class Moved:
    """One thing imported (or not): from where, to where, what happened."""

    source: str  # relative to the source folder (a fact's: the entry's place in it)
    target: str  # relative to the vault
    kind: str  # notes, tiers, profile, daily, document, principles, fact
    outcome: str  # imported, already there, skipped: <why>
    entity: str | None = None  # a fact's entity address
    fact_id: str | None = None  # the fact made (or found already there)
    entry: str | None = None  # the entry's key (`entries.Entry.key`)

    def as_json(self) -> dict[str, str]:
        data = {
            "source": self.source,
            "target": self.target,
            "kind": self.kind,
            "outcome": self.outcome,
        }
        extra = {"entity": self.entity, "factId": self.fact_id, "entry": self.entry}
        data.update({k: v for k, v in extra.items() if v is not None})
        return data


@dataclass
class Report:
    source: Path
    format: str
    vault: Path
    moved: list[Moved] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for m in self.moved if m.outcome.startswith(outcome))

    def as_json(self) -> dict[str, Any]:
        return {
            "source": str(self.source),
            "format": self.format,
            "vault": str(self.vault),
            "imported": self.count("imported"),
            "alreadyThere": self.count("already there"),
            "skipped": self.count("skipped"),
            "facts": sum(1 for m in self.moved if m.kind == "fact"),
            "moved": [m.as_json() for m in self.moved],
        }


def microclaw_agent_id(agent: str) -> str:
    """`-1001234567890/1` -> `microclaw-n1001234567890-1` (a valid vault agent id)."""
    chat, persona = agent.split("/")
    return f"microclaw-{chat.replace('-', 'n')}-{persona}"


class _Importer:
    def __init__(self, source: folder.ForeignFolder, vault: Vault) -> None:
        self.source = source
        self.vault = vault
        self.report = Report(source.root, source.format, vault.root)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.source.root).as_posix()

    def agent(self, agent_id: str) -> str:
        if not self.vault.paths.agent_dir(agent_id).is_dir():
            self.vault.create_agent(agent_id)
        return agent_id

    def file(self, source: Path, target: Path, text: str, kind: str) -> None:
        """Write `text` to the new file `target` (never over another file)."""
        where = self.vault.paths.relative(target)
        present = self.vault.storage.read(target)
        if present == text.encode("utf-8"):
            outcome = "already there"
        elif present is not None:
            outcome = f"skipped: {where} exists in the vault with other content; kept as it is"
        else:
            documents.write(self.vault.storage, target, text, None, "import", source=str(source))
            outcome = "imported"
        self.report.moved.append(Moved(self.rel(source), where, kind, outcome))

    def daily(self, source: Path, day: dt.date, text: str, agent: str | None) -> None:
        target = self.vault.paths.relative(self.vault.paths.daily_file(day, agent))
        try:
            present = [e.text for e in self.vault.daily_note(day, agent).entries]
        except errors.NotFoundError:
            present = []
        if not text.strip():
            outcome = "skipped: empty note"
        elif text.strip() in present:
            outcome = "already there"
        else:
            zone = self.vault.now().tzinfo
            self.vault.append_daily(text, agent=agent, at=dt.datetime.combine(day, dt.time(), zone))
            outcome = "imported"
        self.report.moved.append(Moved(self.rel(source), target, "daily", outcome))


def _hermes(im: _Importer, home: hermes.HermesHome) -> None:
    agent = im.agent(hermes.AGENT)
    for target in hermes.TARGETS:
        path = home.path(target)
        text = home.files.read_text(path)
        if text is not None:
            im.file(path, agent_memory.notes_path(im.vault, agent, target), text, "notes")
    soul = home.files.read_text(home.root / "SOUL.md")
    if soul is not None:
        im.file(home.root / "SOUL.md", im.vault.document_path("SOUL.md", agent), soul, "document")


def _picoclaw(im: _Importer, ws: picoclaw.PicoClawWorkspace) -> None:
    agent = im.agent(picoclaw.AGENT)
    state = ws.read_profile(None)
    if state.sha256 is not None:
        target = agent_memory.profile_path(im.vault, agent)
        im.file(state.path, target, profile.dumps(state.values), "profile")
    long_term = ws.long_term()
    if long_term is not None:
        im.file(
            ws.memory / "MEMORY.md", agent_memory.tiers_path(im.vault, agent), long_term, "tiers"
        )
    for day in ws.daily_dates(None):
        note = ws.daily_note(None, day)
        im.daily(note.path, day, entries.untitled(note.text or "", day), agent)


def _microclaw(im: _Importer, rt: microclaw.MicroClawRuntime) -> None:
    by_chat: dict[str, list[str]] = {}
    for agent in rt.agents():
        agent_id = im.agent(microclaw_agent_id(agent))
        by_chat.setdefault(agent.split("/")[0], []).append(agent)
        state = rt.read_tiers(agent)
        if state.text is not None:
            im.file(state.path, agent_memory.tiers_path(im.vault, agent_id), state.text, "tiers")
    logged: set[Path] = set()
    for chat, agents in by_chat.items():
        for agent in agents:
            for day in rt.daily_dates(agent):
                note = rt.daily_note(agent, day)
                shared = note.path.parent == rt.groups / chat / "memory"
                if shared and len(agents) > 1:
                    if note.path in logged:
                        continue
                    logged.add(note.path)
                    text = f"(MicroClaw chat {chat})\n{note.text or ''}"
                    im.daily(note.path, day, text, None)
                else:
                    im.daily(note.path, day, note.text or "", microclaw_agent_id(agent))
    _principles(im, rt)


def _principles(im: _Importer, rt: microclaw.MicroClawRuntime) -> None:
    text = rt.principles()
    if text is None:
        return
    path = im.vault.paths.principles_file
    where = im.vault.paths.relative(path)
    current = im.vault.storage.read_text(path)
    source = im.rel(rt.principles_path())
    if current is not None and (current[0] == text or text.strip() in current[0]):
        im.report.moved.append(Moved(source, where, "principles", "already there"))
        return
    if current is None or current[0] == layout.PRINCIPLES_STUB:
        new = text
    else:
        new = current[0].rstrip("\n") + f"\n\n## From MicroClaw ({source})\n\n{text}"
    documents.write(
        im.vault.storage,
        path,
        new,
        None if current is None else current[1],
        "import",
        source=str(rt.principles_path()),
    )
    im.report.moved.append(Moved(source, where, "principles", "imported"))


MEMORY_ENTITY = "resources/memory"
PROFILE_ENTITY = "areas/profile"


def fact_entity(entry: entries.Entry) -> str:
    """The entity path (in the agent's workspace) an atomic entry's fact goes to."""
    if entry.structure == entries.PROFILE or (
        entry.structure == entries.NOTES and entry.part == "user"
    ):
        return PROFILE_ENTITY
    return MEMORY_ENTITY


def fact_category(entry: entries.Entry) -> str:
    """Tier 2 and 3 (mid and short term) are what is under way: `status`."""
    if entry.structure == entries.TIERS and entry.part in ("2", "3"):
        return "status"
    return "context"


def vault_agent(agent: str) -> str:
    """The vault's agent id of a neighbour's agent."""
    return microclaw_agent_id(agent) if "/" in agent else agent


def _facts(im: _Importer) -> None:
    """Every atomic entry of the source as a fact (see the module's second table)."""
    known: dict[str, dict[str, str]] = {}  # entity -> text -> fact id
    for entry in entries.entries(im.source):
        if not entry.atomic or entry.agent is None:
            continue
        agent = im.agent(vault_agent(entry.agent))
        address = f"agent:{agent}:{fact_entity(entry)}"
        if address not in known:
            try:
                held = im.vault.entity(address).facts
            except errors.NotFoundError:
                held = []
            known[address] = {f.fact: f.id for f in held}
        fact_id = known[address].get(entry.text)
        if fact_id is not None:
            outcome = "already there"
        else:
            now = im.vault.now()
            at = min(entry.modified, now) if entry.modified is not None else None
            origin = {
                **entry.origin(im.source.format),
                "entry": entry.key,
                "folder": str(im.source.root),
            }
            fact = im.vault.add_fact(
                address,
                entry.text,
                fact_category(entry),
                source=f"{im.source.format} {entry.where}",
                agent_id=agent,
                metadata={"extractedFrom": origin},
                create=True,
                at=at,
            )
            fact_id = known[address][entry.text] = fact.id
            outcome = "imported"
        where = im.vault.paths.entity_dir(layout.EntityRef.parse(address))
        target = im.vault.paths.relative(im.vault.paths.facts_file(where) or where)
        im.report.moved.append(
            Moved(entry.where, target, "fact", outcome, address, fact_id, entry.key)
        )


def import_folder(source: folder.ForeignFolder, vault: Vault) -> Report:
    """Copy `source`'s memory into `vault` (see the module's tables); the report."""
    if vault.acting_agent() is not None:
        raise errors.AccessDeniedError("an import is a person's act: agents may not run it")
    im = _Importer(source, vault)
    if isinstance(source, hermes.HermesHome):
        _hermes(im, source)
    elif isinstance(source, picoclaw.PicoClawWorkspace):
        _picoclaw(im, source)
    elif isinstance(source, microclaw.MicroClawRuntime):
        _microclaw(im, source)
    else:  # pragma: no cover - every adapter is listed above
        raise errors.VaultError(f"no import for {detect.NAMES.get(source.format, source.format)}")
    _facts(im)
    return im.report


def lines(report: Report) -> Iterator[str]:
    """The report for people: one line per thing, then the totals."""
    for m in report.moved:
        target = f"{m.entity} {m.fact_id}" if m.fact_id else m.target
        yield f"{m.outcome:<14.14} {m.kind:<10} {m.source} -> {target}" + (
            f"  ({m.outcome[9:]})" if m.outcome.startswith("skipped: ") else ""
        )
    yield (
        f"{report.count('imported')} imported, {report.count('already there')} already there, "
        f"{report.count('skipped')} skipped from the {detect.NAMES[report.format]} "
        f"{report.source} into {report.vault}"
    )
