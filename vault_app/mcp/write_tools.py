"""The vault's write tools: add_fact, supersede_fact, append_daily, write_document,
record_interaction.

Each builds an `agent_writes.AgentWrite` and hands it to `agent_writes.submit`, the one
path of agent writes (permission, validation, injection scan, apply), through the vault
opened as the calling agent, so the audit log names it. The answer is the applied
result with `"status": "applied"`, or `{"status": "pending_review", "review_id": ...}`
when the scan sent the write to a person. After an applied write the runtime re-indexes
what changed, so the agent's next search finds it. `timestamp` (ISO) backdates a write
whose real moment was earlier (a backfill); a refused write is a tool error naming the
rule it broke.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer

from vault_app.core import agent_writes, layout, numeric_ids, vault
from vault_app.mcp import answers
from vault_app.workspace import arguments, vault_workspace

Category = Literal["relationship", "milestone", "status", "preference", "context"]


def register(
    server: MCPServer, runtime: vault_workspace.VaultWorkspace, agent_of: answers.AgentOf
) -> None:
    """Add the write tools to `server`."""

    def submit(
        ctx: Context, kind: agent_writes.Kind, params: dict[str, Any], at: str | None
    ) -> tuple[vault.Vault | None, dict[str, Any]]:
        """Submit one write as the calling agent: (its vault if applied, the answer)."""
        agent = agent_of(ctx)
        target = runtime.vault_for(agent)
        write = answers.agent_write(kind, agent, params, at)
        outcome = agent_writes.submit(target, write)
        held = isinstance(outcome, agent_writes.Pending)
        return (None if held else target), answers.write_answer(outcome)

    def with_number(answer: dict[str, Any]) -> dict[str, Any]:
        for key in ("fact", "old"):
            if isinstance(answer.get(key), dict):
                answer[key]["number"] = numeric_ids.fact_number(answer[key]["id"])
        return answer

    @server.tool(
        description="""Record one durable fact on an entity (created if missing). Write to your
workspace ("agent:<you>:projects/x") or, if the vault allows you, a global entity
("areas/people/jane"). One atomic statement per fact; category is relationship, milestone,
status, preference or context. timestamp (ISO) backdates a fact learned earlier.
Example: {"entity": "areas/people/jane", "text": "Jane prefers tea",
 "category": "preference"}"""
    )
    @answers.tool_errors(runtime.root)
    def add_fact(
        ctx: Context,
        entity: str,
        text: str,
        category: Category,
        related: list[str] | None = None,
        source: str | None = None,
        confidence: float | None = None,
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        params = {
            "entity": entity,
            "text": text,
            "category": category,
            "related": related,
            "source": source,
            "confidence": confidence,
        }
        target, answer = submit(ctx, "add_fact", params, timestamp)
        if target is not None:
            runtime.after_write([layout.as_ref(entity)])
        return with_number(answer)

    @server.tool(
        description="""Replace a fact that changed or was wrong: the old version stays, marked
superseded, linked to the new one (see fact_history). Give the fact's id or its numeric
id (number); category and the rest default to the old fact's.
Example: {"fact_id": "fact-9a2b2b50acb149d1b53aa43aeea6046f",
 "text": "Jane now drinks coffee", "reason": "she said so today"}"""
    )
    @answers.tool_errors(runtime.root)
    def supersede_fact(
        ctx: Context,
        text: str,
        fact_id: str | None = None,
        number: int | None = None,
        category: Category | None = None,
        related: list[str] | None = None,
        source: str | None = None,
        confidence: float | None = None,
        reason: str | None = None,
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        from vault_app.mcp import vault_tools

        fid = vault_tools.resolve_fact_id(runtime, fact_id, number)
        params = {
            "fact_id": fid,
            "text": text,
            "category": category,
            "related": related,
            "source": source,
            "confidence": confidence,
            "reason": reason,
        }
        target, answer = submit(ctx, "supersede_fact", params, timestamp)
        if target is not None:
            runtime.after_write(set(target.locate([fid, answer["fact"]["id"]]).values()))
        return with_number(answer)

    @server.tool(
        description="""Append an entry to today's daily note: yours (scope "agent", default) or
the global one ("global", if the vault allows you). For events, decisions, what happened.
Example: {"text": "Booked the plumber for Thursday 9:00."}"""
    )
    @answers.tool_errors(runtime.root)
    def append_daily(
        ctx: Context,
        text: str,
        scope: Literal["agent", "global"] = "agent",
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        target, answer = submit(ctx, "append_daily", {"text": text, "scope": scope}, timestamp)
        if target is not None:
            entry = answer["entry"]
            runtime.after_daily(arguments.day(entry["date"]), entry["agent"])
        return answer

    @server.tool(
        description="""Record one conversation turn in your daily note (role: user, assistant, ...;
optional speaker name and chat_id), for later reflection.
Example: {"role": "user", "speaker": "Jane", "text": "Remind me about the boiler",
 "chat_id": 42}"""
    )
    @answers.tool_errors(runtime.root)
    def record_interaction(
        ctx: Context,
        role: str,
        text: str,
        speaker: str | None = None,
        chat_id: int | None = None,
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        params = {"role": role, "text": text, "speaker": speaker, "chat_id": chat_id}
        target, answer = submit(ctx, "record_interaction", params, timestamp)
        if target is not None:
            entry = answer["entry"]
            runtime.after_daily(arguments.day(entry["date"]), entry["agent"])
        return answer

    @server.tool(
        description="""Replace one of your documents (TACIT.md, CONTEXT.md, SOUL.md, MEMORY.md,
USER.md) with new text. expected_sha256 is the sha256 read_document gave (null: the file
must not exist yet; "*": overwrite whatever is there). A changed file is refused: read
it again and merge. global AGENTS.md is read-only.
Example: {"name": "CONTEXT.md", "text": "# Context\\n...", "expected_sha256": "3f2a..."}"""
    )
    @answers.tool_errors(runtime.root)
    def write_document(
        ctx: Context,
        name: Literal["TACIT.md", "CONTEXT.md", "SOUL.md", "MEMORY.md", "USER.md"],
        text: str,
        expected_sha256: str | None = None,
    ) -> dict[str, Any]:
        params = {"name": name, "text": text, "expected_sha256": expected_sha256}
        _, answer = submit(ctx, "write_document", params, None)
        return answer
