"""`memory`: Hermes' tool over the agent's own notes and what it knows of the user.

`action` add / replace / remove (and `read`) on `target` `memory` (the agent's notes) or
`user` (what it knows of the user), entries found by a unique substring (`old_text`);
every answer carries the usage (`"usage": "924/2,200"`). Or, as Hermes' batch,
`operations` (a list of `{action, content?, old_text?}`): applied in order, all or none,
the budget checked on the final state (`notes.apply_batch`), so the model frees room and
uses it in one call; one write to review when a text is flagged. A refusal the agent can
fix (over budget, no unique match, a duplicate) is an answer with `"success": false`,
the reason, the usage and the current entries (as agents may read them: a flagged entry
is its `[BLOCKED: …]` label), as Hermes answers, so the model can consolidate and retry;
anything else is a tool error. `memory_answer` is the answer in a vault or a neighbour's
folder alike (the folder's `memory` tool uses it with its own reading and writing).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict

from vault_app.core import agent_writes, injection
from vault_app.mcp import calls
from vault_app.mcp.tools import tool

if TYPE_CHECKING:  # imported by the tool when called: the handshake needs neither
    from vault_app.core import agent_memory

_DONE = {"add": "Entry added.", "replace": "Entry replaced.", "remove": "Entry removed."}


class MemoryOperation(BaseModel):
    """One operation of a batch, as Hermes' `operations` items."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["add", "replace", "remove"]
    content: str | None = None
    old_text: str | None = None


@tool(
    """Your bounded, curated memory, in two stores of § entries: target
"memory" (your own notes: environment facts, conventions, lessons) and "user" (what you
know of the user: preferences, habits). action "add" stores content; "replace" swaps the
entry holding old_text (a short unique substring) for content; "remove" deletes the entry
holding old_text; "read" lists the entries. Each store has a character budget: every
answer gives "usage" (used/limit). An add or replace over budget is refused
("success": false) and changes nothing: replace or remove entries to make room, then retry.
To free room and add in one call, send operations instead of action: a list of {action,
content, old_text} applied in order, all or none, the budget checked only on the result.
Example: {"action": "add", "target": "user", "content": "Prefers short answers"}"""
)
def memory(
    ctx: Context,
    action: Literal["add", "replace", "remove", "read"] | None = None,
    target: Literal["memory", "user"] = "memory",
    content: str | None = None,
    old_text: str | None = None,
    operations: list[MemoryOperation] | None = None,
) -> dict[str, Any]:
    from vault_app.core import agent_memory

    runtime, agent = calls.on_vault(ctx)
    v = runtime.vault_for(agent)
    return memory_answer(
        v.root,
        lambda t: agent_memory.read_notes(v, agent, t),
        lambda kind, fields: calls.vault_write(ctx, kind, fields)[1],
        action,
        target,
        content,
        old_text,
        operations,
    )


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
