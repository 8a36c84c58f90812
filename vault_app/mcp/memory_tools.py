"""The agent's own memory files as tools: Hermes' `memory`, MicroClaw's tiers, the profile.

* `memory` — Hermes' tool: `action` add / replace / remove (and `read`) on `target`
  `memory` (the agent's notes) or `user` (what it knows of the user), entries found by a
  unique substring (`old_text`); every answer carries the usage (`"usage": "924/2,200"`).
  Or, as Hermes' batch, `operations` (a list of `{action, content?, old_text?}`): applied
  in order, all or none, the budget checked on the final state (`notes.apply_batch`), so
  the model frees room and uses it in one call; one write to review when a text is flagged.
  A refusal the agent can fix (over budget, no unique match, a duplicate) is an answer
  with `"success": false`, the reason, the usage and the current entries (as agents may
  read them: a flagged entry is its `[BLOCKED: …]` label), as Hermes answers, so the
  model can consolidate and retry; anything else is a tool error.
* `tiers_read`, `tiers_write` — the agent's tiered MEMORY.md, one tier at a time.
* `profile_read`, `profile_set`, `profile_delete` — its key–value profile.json.

Writes go through `agent_writes.submit` (permission, injection scan, review queue) as
every agent write does; reads through `agent_memory` with the vault opened as the agent.
An agent only ever reaches its own folder: no tool takes an agent id.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ConfigDict

from vault_app.core import agent_writes, injection, vault
from vault_app.mcp import answers
from vault_app.workspace import vault_workspace

if TYPE_CHECKING:  # imported by the tools when called: the handshake needs neither
    from vault_app.core import agent_memory

_DONE = {"add": "Entry added.", "replace": "Entry replaced.", "remove": "Entry removed."}

MEMORY_DESCRIPTION = """Your bounded, curated memory, in two stores of § entries: target
"memory" (your own notes: environment facts, conventions, lessons) and "user" (what you
know of the user: preferences, habits). action "add" stores content; "replace" swaps the
entry holding old_text (a short unique substring) for content; "remove" deletes the entry
holding old_text; "read" lists the entries. Each store has a character budget: every
answer gives "usage" (used/limit). An add or replace over budget is refused
("success": false) and changes nothing: replace or remove entries to make room, then retry.
To free room and add in one call, send operations instead of action: a list of {action,
content, old_text} applied in order, all or none, the budget checked only on the result.
Example: {"action": "add", "target": "user", "content": "Prefers short answers"}"""
TIERS_READ_DESCRIPTION = """Read your tiered MEMORY.md: tier 1 (long term, principles-like), 2 (mid
term: active projects), 3 (short term: recent focus). Without tier, all three.
Example: {"tier": 2}"""
TIERS_WRITE_DESCRIPTION = """Replace one tier of your tiered MEMORY.md (the other tiers are kept as
they are). Tier 1 only on an explicit ask or a long-term pattern; tier 3 often. No line may
start with "## " (use "### " for sub-headings).
Example: {"tier": 3, "content": "This week: moving house; tired."}"""
PROFILE_READ_DESCRIPTION = """Read your key–value profile of the user (profile.json): every key,
or one.
Example: {"key": "timezone"}"""
PROFILE_SET_DESCRIPTION = """Set one key of your key–value profile of the user (a string value).
Example: {"key": "timezone", "value": "Europe/Paris"}"""
PROFILE_DELETE_DESCRIPTION = """Remove one key of your key–value profile of the user.
Example: {"key": "timezone"}"""


class MemoryOperation(BaseModel):
    """One operation of a batch, as Hermes' `operations` items."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["add", "replace", "remove"]
    content: str | None = None
    old_text: str | None = None


def register(
    server: MCPServer, runtime: vault_workspace.VaultWorkspace, agent_of: answers.AgentOf
) -> None:
    """Add the memory, tiers and profile tools to `server`."""

    def submit(ctx: Context, kind: agent_writes.Kind, params: dict[str, Any]) -> dict[str, Any]:
        agent = agent_of(ctx)
        write = answers.agent_write(kind, agent, params)
        return answers.write_answer(agent_writes.submit(runtime.vault_for(agent), write))

    def own(ctx: Context) -> tuple[vault.Vault, str]:
        agent = agent_of(ctx)
        return runtime.vault_for(agent), agent

    @server.tool(name="memory", description=MEMORY_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def memory(
        ctx: Context,
        action: Literal["add", "replace", "remove", "read"] | None = None,
        target: Literal["memory", "user"] = "memory",
        content: str | None = None,
        old_text: str | None = None,
        operations: list[MemoryOperation] | None = None,
    ) -> dict[str, Any]:
        from vault_app.core import agent_memory

        v, agent = own(ctx)
        return memory_answer(
            v.root,
            lambda t: agent_memory.read_notes(v, agent, t),
            lambda kind, params: submit(ctx, kind, params),
            action,
            target,
            content,
            old_text,
            operations,
        )

    @server.tool(description=TIERS_READ_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def tiers_read(ctx: Context, tier: Literal[1, 2, 3] | None = None) -> dict[str, Any]:
        from vault_app.core import agent_memory

        v, agent = own(ctx)
        answer = agent_memory.read_tiers(v, agent).to_dict(v.root, tier)
        answer.pop("path", None)  # the server's files are not the agent's business
        return answer

    @server.tool(description=TIERS_WRITE_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def tiers_write(ctx: Context, tier: Literal[1, 2, 3], content: str) -> dict[str, Any]:
        answer = submit(ctx, "tiers_write", {"tier": tier, "text": content})
        answer.pop("path", None)
        return answer

    @server.tool(description=PROFILE_READ_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def profile_read(ctx: Context, key: str | None = None) -> dict[str, Any]:
        from vault_app.core import agent_memory

        v, agent = own(ctx)
        state = agent_memory.read_profile(v, agent)
        if key is None:
            return {"profile": state.values}
        return {"key": key, "value": state.values.get(key), "exists": key in state.values}

    @server.tool(description=PROFILE_SET_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def profile_set(ctx: Context, key: str, value: str) -> dict[str, Any]:
        answer = submit(ctx, "profile_set", {"key": key, "value": value})
        answer.pop("path", None)
        return answer

    @server.tool(description=PROFILE_DELETE_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def profile_delete(ctx: Context, key: str) -> dict[str, Any]:
        answer = submit(ctx, "profile_delete", {"key": key})
        answer.pop("path", None)
        return answer


def memory_answer(
    root: Path,
    read: Callable[[str], agent_memory.NotesState],
    submit: Callable[[agent_writes.Kind, dict[str, Any]], dict[str, Any]],
    action: str | None,
    target: str,
    content: str | None,
    old_text: str | None,
    operations: list[MemoryOperation] | None,
) -> dict[str, Any]:
    """The `memory` tool's answer, in a vault or a neighbour's folder alike: `read` the
    target's notes (files under `root`), `submit` one agent write (answering
    `{"status": ...}`)."""
    from vault_app.core import errors, notes

    if action == "read" and not operations:
        answer = read(target).to_dict(root)
        answer.pop("path", None)  # the server's files are not the agent's business
        return {"success": True, **answer}
    if operations:  # Hermes' batch: it wins over a single action, as in Hermes
        kind: agent_writes.Kind = "memory_batch"
        params: dict[str, Any] = {
            "target": target,
            "operations": [op.model_dump(exclude_none=True) for op in operations],
        }
        done = f"Applied {len(operations)} operation{'s' if len(operations) != 1 else ''}."
    elif action is None:
        raise errors.VaultError("memory: give an action (add, replace, remove, read) or operations")
    else:
        kind = "memory"
        params = {"action": action, "target": target, "content": content, "old_text": old_text}
        done = _DONE[action]
    try:
        answer = submit(kind, params)
    except notes.NotesError as exc:
        state = read(target)
        shown = (injection.shown_to_agents(e) for e in state.entries)
        return {
            "success": False,
            **exc.to_dict(),
            "target": target,
            "usage": state.usage.fraction(),
            "current_entries": [notes.preview(e, 200) for e in shown],
        }
    if answer["status"] == "pending_review":
        return {"success": True, **answer, "target": target, "usage": read(target).usage.fraction()}
    return {
        "success": True,
        "status": "applied",
        "message": done,
        "target": target,
        "usage": answer["usage"],
        "meter": answer["meter"],
        "entry_count": answer["entry_count"],
    }
