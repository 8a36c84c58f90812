"""Who may do what in a vault: the one access policy, asked at one door.

`Policy.decide(principal, action, target)` answers every question of the form "may this
actor do this to that?" with a `Decision`: allow, review (a person must approve it
first) or deny, and the reason in words an agent or a person can act on.

The principal (`Principal`) is who acts:

- a **person** (the window, the CLI without `--actor agent:…`, a script): every action
  on every target;
- an **agent** (`agent:<id>`: an MCP client, `vault-app … --actor agent:<id>`);
- the **heartbeat acting for an agent**: it reads that agent's daily note and writes what
  it extracts with that agent's rights (`heartbeat:<id>`; plain `heartbeat` acts for the
  global notes, which only people and global writers write).

The target (`Target`) is where: the principles (`global/AGENTS.md`), a global entity,
daily note or document, an agent's own, or another agent's. At the door it is where a
file really is, its symlinks resolved (`Guard.target`): a link inside an agent's own
workspace that leads into another's is the other's.

The actions: `read` (see it), `touch` (count an access: it changes the fact file's
counters, so it is not a read, but needs no more than one), `write`, `propose` (queue a
write for a person) and `decide` (approve or reject a proposal).

The defaults (`[agents]` of `.vault/config.toml` changes them):

| principal | global | own workspace | another agent's | principles | decide |
|---|---|---|---|---|---|
| person | all | - | all | all | yes |
| agent | read, touch; write if a global writer | all | read, touch if granted | read | no |
| heartbeat for an agent | read, touch; write if a global writer, | all | read, touch | read | no |
|  | else after review |  | if granted |  |  |
| heartbeat for the global notes | all | - | read (every note) | read | no |

"Granted" is `[agents.grants.<id>] read = ["finance"]` (or `["*"]`: a household manager
reading every agent's workspace). Proposing needs what writing needs, with review counting
as allowed: a proposal is how a write that needs a person reaches one. `tests/core/
test_access.py` states this table cell by cell, and the README's table is tested
against `table`, which reads it off the policy.

The door is `Vault`: a vault opened as an agent (or as the heartbeat for one) asks the
policy before every read and write it makes, so no face can forget to. The MCP server's
shared, index-backed readers ask it for the agent on whose behalf they read.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import actors, config, errors, layout

HEARTBEAT = "heartbeat"


class Action(enum.StrEnum):
    READ = "read"
    TOUCH = "touch"
    WRITE = "write"
    PROPOSE = "propose"
    DECIDE = "decide"


class Verdict(enum.StrEnum):
    ALLOW = "allow"
    REVIEW = "review"
    DENY = "deny"


class Kind(enum.StrEnum):
    PERSON = "person"
    AGENT = "agent"
    HEARTBEAT = "heartbeat"


@dataclass(frozen=True)
class Principal:
    """Who acts: a person, an agent, or the heartbeat for an agent (None: the global notes)."""

    kind: Kind
    agent: str | None = None
    name: str = "person"

    @classmethod
    def person(cls, name: str = "person") -> Principal:
        return cls(Kind.PERSON, None, name)

    @classmethod
    def of_agent(cls, agent: str) -> Principal:
        return cls(Kind.AGENT, layout.validate_agent_id(agent), f"agent {agent!r}")

    @classmethod
    def heartbeat(cls, agent: str | None) -> Principal:
        if agent is None:
            return cls(Kind.HEARTBEAT, None, "the heartbeat (global notes)")
        return cls(Kind.HEARTBEAT, layout.validate_agent_id(agent), f"the heartbeat for {agent!r}")

    @property
    def is_person(self) -> bool:
        return self.kind is Kind.PERSON


def principal_of(actor: str, agent_ids: Callable[[], list[str]]) -> Principal:
    """Who a vault's `actor` is: `heartbeat` or `heartbeat:<id>` the heartbeat, an agent
    as `actors.parse` tells (the vault's agents listed only for a plain name), else a
    person."""
    name = actor.strip()
    head, colon, rest = name.partition(":")
    if head.strip().casefold() == HEARTBEAT:
        return Principal.heartbeat(rest.strip() or None if colon else None)
    parsed = actors.parse(name)
    if parsed.agent is None and not actors.is_face(name):
        parsed = actors.parse(name, agent_ids())
    if parsed.agent is not None:
        return Principal.of_agent(parsed.agent)
    return Principal.person(name)


def heartbeat_actor(agent: str | None) -> str:
    """The audit actor of the heartbeat acting for `agent` (`heartbeat:<id>`)."""
    return HEARTBEAT if agent is None else f"{HEARTBEAT}:{agent}"


class Place(enum.StrEnum):
    PRINCIPLES = "principles"
    GLOBAL = "global"
    AGENT = "agent"  # an agent's workspace, daily notes, documents or memory files


@dataclass(frozen=True)
class Target:
    """Where an action lands: its place, its owner (an agent's id) and its name."""

    place: Place
    owner: str | None
    label: str

    @classmethod
    def entity(cls, ref: layout.EntityRef) -> Target:
        if ref.agent is None:
            return cls(Place.GLOBAL, None, f"entity {ref}")
        return cls(Place.AGENT, ref.agent, f"entity {ref}")

    @classmethod
    def daily(cls, agent: str | None) -> Target:
        if agent is None:
            return cls(Place.GLOBAL, None, "the global daily notes")
        return cls(Place.AGENT, agent, f"the daily notes of agent {agent!r}")

    @classmethod
    def document(cls, name: str, agent: str | None) -> Target:
        if agent is None or name == layout.PRINCIPLES_NAME:
            return cls(Place.PRINCIPLES, None, f"global/{name} (the principles)")
        return cls(Place.AGENT, agent, f"{name} of agent {agent!r}")

    @classmethod
    def scope(cls, scope: str) -> Target:
        """A search scope (`global`, `agent:<id>`) as a target."""
        if scope == layout.GLOBAL_SCOPE:
            return cls(Place.GLOBAL, None, "global memory")
        agent = scope.removeprefix("agent:")
        return cls(Place.AGENT, agent, f"the workspace of agent {agent!r}")


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str

    @property
    def allowed(self) -> bool:
        return self.verdict is Verdict.ALLOW

    def check(self, *, approved: bool = False) -> None:
        """Raise `AccessDeniedError` (with the reason) unless allowed, or approved by a
        person where the verdict asked for review."""
        if self.verdict is Verdict.ALLOW or (approved and self.verdict is Verdict.REVIEW):
            return
        raise errors.AccessDeniedError(self.reason)


ALLOWED = Decision(Verdict.ALLOW, "allowed")


def deciding(who: Principal) -> Decision:
    """Whether `who` may decide reviews (approve, reject; issue or revoke tokens): people
    only, whatever the settings."""
    if who.is_person:
        return ALLOWED
    return Decision(
        Verdict.DENY, f"{who.name} may not decide reviews: a person decides what agents proposed"
    )


_GLOBAL_RULE = "add it to [agents] global_writers in .vault/config.toml"
_GRANT_RULE = "grant it with [agents.grants.{agent}] read = [...] in .vault/config.toml"


class Policy:
    """The rules of the module doc over one vault's `[agents]` settings."""

    def __init__(self, settings: config.AgentsSettings) -> None:
        self.global_writers = frozenset(settings.global_writers)
        self.grants = {agent: frozenset(g.read) for agent, g in settings.grants.items()}

    def reads_agent(self, reader: str, owner: str) -> bool:
        """Whether `reader`'s grants let it read agent `owner`'s memory."""
        granted = self.grants.get(reader, frozenset())
        return owner in granted or "*" in granted

    def decide(self, who: Principal, action: Action, target: Target) -> Decision:
        if who.is_person:
            return ALLOWED
        if action is Action.DECIDE:
            return deciding(who)
        if action is Action.PROPOSE:  # a proposal is how a write reaches a person
            wanted = self.decide(who, Action.WRITE, target)
            return ALLOWED if wanted.verdict is Verdict.REVIEW else wanted
        if target.place is Place.PRINCIPLES:
            if action is Action.READ:
                return ALLOWED
            return Decision(
                Verdict.DENY,
                f"{who.name} may not {action} {target.label}: the principles are written "
                "by people; agents read them",
            )
        own = who.agent
        if target.place is Place.AGENT and target.owner == own:
            return ALLOWED  # an agent's own memory (and the heartbeat's for it)
        if target.place is Place.GLOBAL:
            if action in (Action.READ, Action.TOUCH) or own is None or own in self.global_writers:
                return ALLOWED  # (own is None: the heartbeat of the global notes)
            if who.kind is Kind.HEARTBEAT:
                return Decision(
                    Verdict.REVIEW,
                    f"{who.name} may not write {target.label} without a person's approval: "
                    f"agent {own!r} is not a global writer ({_GLOBAL_RULE})",
                )
            return Decision(
                Verdict.DENY, f"{who.name} may not write {target.label}: {_GLOBAL_RULE}"
            )
        owner = target.owner or "?"
        if action in (Action.READ, Action.TOUCH):
            if own is not None and self.reads_agent(own, owner):
                return ALLOWED
            if own is None and action is Action.READ:  # the heartbeat service: every note
                return ALLOWED
            return Decision(
                Verdict.DENY,
                f"{who.name} may not {action} {target.label}: an agent reads global memory "
                f"and its own workspace, not another agent's unless "
                + _GRANT_RULE.format(agent=own or "<agent>"),
            )
        return Decision(
            Verdict.DENY,
            f"{who.name} may not {action} {target.label}: an agent writes only its own "
            "workspace, daily notes and documents (and the global ones it is allowed)",
        )

    def check(self, who: Principal, action: Action, target: Target) -> None:
        """`decide`, raising `AccessDeniedError` unless allowed."""
        self.decide(who, action, target).check()

    def readable_scopes(self, who: Principal, agents: list[str]) -> frozenset[str] | None:
        """The search scopes `who` reads among the vault's `agents` (None: every scope)."""
        if who.is_person:
            return None
        scopes = {layout.GLOBAL_SCOPE}
        for agent in agents:
            if self.decide(who, Action.READ, Target.daily(agent)).allowed:
                scopes.add(f"agent:{agent}")
        if who.agent is not None:
            scopes.add(f"agent:{who.agent}")
        return frozenset(scopes)

    def can_read_address(self, who: Principal, address: str) -> bool:
        """Whether `who` reads the entity at `address` (an unparsable one: no)."""
        try:
            ref = layout.EntityRef.parse(address)
        except errors.InvalidIdError:
            return False
        return self.decide(who, Action.READ, Target.entity(ref)).allowed


TOUCH_ACTIONS = frozenset({"fact.access"})  # audit actions that only count accesses
STATE = "<state>"  # `real_owner` of no one's memory (no agent id holds "<")


def real_owner(paths: layout.VaultLayout, path: Path) -> str | None:
    """Whose memory `path` really is, its symlinks resolved: an agent's id (under
    `agents/<id>/`), None for global memory (under `global/`), else `STATE` (the vault's
    own state, or outside the vault). A file not made yet is whose its folder is: creating
    another agent's daily note is writing that agent's memory."""
    spelled = str(path)
    if paths.plainly_inside(spelled):  # no symlink on the way: as it is spelled
        parts = spelled[len(str(paths.root)) + 1 :].split("/")
    else:
        resolved = _resolved(path)
        root = paths.root.resolve()
        if resolved is None or root not in resolved.parents:
            return STATE
        parts = list(resolved.relative_to(root).parts)
    if parts[0] == "global":
        return None
    if parts[0] == "agents" and len(parts) > 1:
        return parts[1]
    return STATE


def _resolved(path: Path) -> Path | None:
    """`path` with its nearest existing folder's symlinks resolved and the parts not made
    yet as spelled (normalised: no `..` left to climb out), None when it cannot be read."""
    missing: list[str] = []
    current = path
    while not os.path.lexists(current):
        if current.parent == current:
            return None
        missing.append(current.name)
        current = current.parent
    try:
        base = current.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return Path(os.path.normpath(base.joinpath(*reversed(missing))))


class Guard:
    """The door of one vault opened by an agent (or the heartbeat for one): `Storage`
    asks it before every file it reads and every change it commits, with the file's real
    place (its symlinks resolved). The vault's own state (`.vault/`: the review queue, the
    audit log, caches) is the app's, written for the agent by code that checked first."""

    def __init__(
        self,
        paths: layout.VaultLayout,
        who: Principal,
        settings: Callable[[], config.AgentsSettings],
        *,
        approved: bool = False,
    ) -> None:
        self.paths, self.who, self.approved = paths, who, approved
        self._settings = settings
        self._policy: tuple[config.AgentsSettings, Policy] | None = None

    @property
    def policy(self) -> Policy:
        settings = self._settings()  # the vault's settings now (they may be adopted anew)
        if self._policy is None or self._policy[0] is not settings:
            self._policy = (settings, Policy(settings))
        return self._policy[1]

    def target(self, path: Path) -> Target | None:
        """The target `path` really is, or None for the vault's own state."""
        owner = real_owner(self.paths, path)
        if owner == STATE:
            return None
        if owner is None:
            principles = self.paths.principles_file
            if os.path.realpath(path) == os.path.realpath(principles):
                return Target.document(principles.name, None)
            return Target(Place.GLOBAL, None, self._shown(path))
        assert isinstance(owner, str)
        return Target(Place.AGENT, owner, f"{self._shown(path)} (agent {owner!r}'s)")

    def _shown(self, path: Path) -> str:
        try:
            return self.paths.relative(path)
        except (ValueError, errors.VaultError):
            return path.name

    def __call__(self, path: Path, operation: str) -> None:
        """Refuse (`AccessDeniedError`) `operation` ("read" or an audit action) on `path`."""
        target = self.target(path)
        if target is None:
            return
        if operation == "read":
            action = Action.READ
        else:
            action = Action.TOUCH if operation in TOUCH_ACTIONS else Action.WRITE
        self.policy.decide(self.who, action, target).check(approved=self.approved)

    def reads_scope(self, agent: str | None) -> bool:
        """Whether the principal reads the memory of scope `agent` (None: global)."""
        return self.policy.decide(self.who, Action.READ, Target.daily(agent)).allowed

    def writes_scope(self, agent: str | None) -> bool:
        """Whether the principal writes the memory of scope `agent` without a person's
        approval (None: global)."""
        decision = self.policy.decide(self.who, Action.WRITE, Target.daily(agent))
        return decision.verdict is Verdict.ALLOW


# The README's table of who may do what, as this policy answers it (tested against it):
# (principal, target) -> the actions allowed ("review" where a person must approve).
def table(policy: Policy) -> list[tuple[str, str, str]]:
    """Rows (principal, target, answer) for the README, from the policy itself."""
    principals = [
        ("a person", Principal.person()),
        ("agent `a`", Principal.of_agent("a")),
        ("the heartbeat for `a`", Principal.heartbeat("a")),
    ]
    targets = [
        ("global entities and daily notes", Target.entity(layout.EntityRef(None, "areas/x"))),
        ("`a`'s own workspace, notes, documents", Target.daily("a")),
        ("another agent's (`b`)", Target.daily("b")),
        ("the principles (`global/AGENTS.md`)", Target.document("AGENTS.md", None)),
    ]
    rows = []
    for who_name, who in principals:
        for target_name, target in targets:
            answers = []
            for action in (Action.READ, Action.TOUCH, Action.WRITE):
                verdict = policy.decide(who, action, target).verdict
                if verdict is Verdict.ALLOW:
                    answers.append(str(action))
                elif verdict is Verdict.REVIEW:
                    answers.append(f"{action} after review")
            rows.append((who_name, target_name, ", ".join(answers) or "nothing"))
    return rows
