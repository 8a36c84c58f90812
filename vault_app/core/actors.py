"""Who is writing: the actor a vault is opened with, and whether that actor is an agent.

An actor is a free name recorded in the audit log (`gui`, `cli`, `api`, `agent:finance`,
`jane`…). Guards that treat agents differently (an agent may read `global/AGENTS.md`,
not overwrite it) ask `parse` and nothing else. The rules:

- surrounding blanks are ignored (` agent:finance` is `agent:finance`);
- `agent:ID`, the prefix in any case and with blanks around the colon (`Agent : finance`),
  is agent ID; an empty or invalid ID (`agent:`, `agent:../x`) is refused;
- the app's own faces, `gui`, `cli`, `api` and `demo` in any case, are never agents (an
  agent cannot be created under one of these names; one made by hand must act as
  `agent:gui`);
- any other name that equals an existing agent's id, ignoring case (`finance`,
  `FINANCE`), is that agent: naming an agent is being it, with or without the prefix;
- everything else is a person or a tool, not an agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from vault_app.core import errors, layout

FACES = frozenset({"gui", "cli", "api", "demo"})
_AGENT_PREFIX = re.compile(r"agent\s*:", re.IGNORECASE)


@dataclass(frozen=True)
class Actor:
    name: str  # as given, without surrounding blanks
    agent: str | None  # the agent this actor is, or None

    @property
    def is_agent(self) -> bool:
        return self.agent is not None


def parse(actor: str, agent_ids: Iterable[str] = ()) -> Actor:
    """`actor` read against the vault's agents (`agent_ids`); see the module doc.

    Raises InvalidIdError for an empty actor or an `agent:` prefix without a valid id.
    """
    if not isinstance(actor, str) or not actor.strip():
        raise errors.InvalidIdError("an actor needs a name (gui, cli, api, agent:ID, …)")
    name = actor.strip()
    prefix = _AGENT_PREFIX.match(name)
    known = {a.casefold(): a for a in agent_ids}
    if prefix:
        agent = name[prefix.end() :].strip()
        if not agent:
            raise errors.InvalidIdError(f"actor {actor!r} names no agent: use agent:ID")
        try:
            layout.validate_agent_id(agent)
        except errors.InvalidIdError as exc:
            raise errors.InvalidIdError(f"actor {actor!r}: {exc}") from None
        return Actor(name, known.get(agent.casefold(), agent))
    if name.casefold() in FACES:
        return Actor(name, None)
    return Actor(name, known.get(name.casefold()))


def is_face(agent_id: str) -> bool:
    """Whether `agent_id` is one of the app's own actor names (reserved, not an agent)."""
    return agent_id.strip().casefold() in FACES
