"""The MCP tools over a neighbour's folder, opened as it is: the tools of a PARA vault
that make sense for the folder's format, with the same names and answer shapes.

==================  ===========  ============  ============
tool                Hermes home  PicoClaw ws   MicroClaw rt
==================  ===========  ============  ============
search, context     yes          yes           yes
memory              yes          -             -
tiers_read/_write   -            -             yes
profile_read/_set/  -            yes           -
_delete
append_daily,       -            yes           yes
read_daily
==================  ===========  ============  ============

What a format does not keep is not listed (rather than listed and failing): a PARA
vault's facts and entities (`add_fact`, `get_entity`...), its documents, and MicroClaw's
`memory_query` / `memory_upsert`, which map onto facts (a MicroClaw runtime's structured
memory is its own SQLite database, not in the folder this server opens).

`search` runs the folder's search engine (`FolderRuntime.search`), each hit naming
where its entry is (`origin`: file, structure, place); `context` is the layered
builder over the folder (`ContextBuilder.over_folder`). Nothing is marked accessed: a
neighbour's entries are not the vault's facts (`marked_accessed` is 0).

Every write is an `agent_writes.AgentWrite` handed to `neighbours.agents.submit`
through the folder opened as the calling agent: its own memory only, in the owner's
format, every text scanned, a flagged write waiting in the review queue of vault-app's
state folder (`{"status": "pending_review", "review_id": ...}`), every write audited
with the agent as actor. Principles (MicroClaw's `groups/AGENTS.md`) are read in the
context, never written by an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from vault_app.core import agent_writes, errors, injection
from vault_app.core.neighbours import agents as neighbour_agents
from vault_app.core.neighbours import detect
from vault_app.core.neighbours import entries as neighbour_entries
from vault_app.mcp import answers, memory_tools
from vault_app.workspace import arguments, folder_workspace

Mode = Literal["hybrid", "bm25", "semantic"]
Kind = Literal["facts", "summaries", "daily"]
MAX_DAYS = 366
Acting = Callable[[Context], str]
Submit = Callable[..., dict[str, Any]]

NOTES = frozenset({detect.HERMES})
TIERS = frozenset({detect.MICROCLAW})
PROFILE = frozenset({detect.PICOCLAW})
DAILY = frozenset({detect.PICOCLAW, detect.MICROCLAW})

INSTRUCTIONS = {
    detect.HERMES: "a Hermes home: your § notes (target memory) and what you know of the "
    "user (target user), each with a character budget; keep them with `memory`.",
    detect.PICOCLAW: "a PicoClaw workspace: your key–value profile of the user "
    "(`profile_read`, `profile_set`, `profile_delete`) and daily notes (`append_daily`, "
    "`read_daily`).",
    detect.MICROCLAW: "a MicroClaw runtime: your persona's tiered MEMORY.md (`tiers_read`, "
    "`tiers_write`), your chat's daily log (`append_daily`, `read_daily`) and the "
    "principles (read-only, in `context`).",
}


def instructions(format_: str) -> str:
    """The server's instructions for a folder of `format_`."""
    return (
        f"vault-app: your memory, kept in {INSTRUCTIONS[format_]} Start with `context` (what "
        "your prompt should carry) or `search`. Your writes go to your own memory, in the "
        'folder\'s own format. A write may answer {"status": "pending_review"}: a person '
        "will review it; do not retry it."
    )


def register(
    server: MCPServer, runtime: folder_workspace.FolderWorkspace, agent_of: answers.AgentOf
) -> None:
    """Add the tools the folder's format keeps to `server` (see the module's table)."""
    fmt = runtime.format

    def acting(ctx: Context) -> str:
        return runtime.agent(agent_of(ctx))  # an unknown agent is refused with the reason

    def submit(
        ctx: Context, kind: agent_writes.Kind, params: dict[str, Any], at: str | None = None
    ) -> dict[str, Any]:
        agent = acting(ctx)
        write = answers.agent_write(kind, agent, params, at)
        answer = answers.write_answer(neighbour_agents.submit(runtime.folder_for(agent), write))
        answer.pop("path", None)  # the server's files are not the agent's business
        return answer

    @server.tool(
        description=f"""Search your memory in this {detect.NAMES[fmt]}: its entries, each hit
with its origin (file, structure, place). Hybrid (BM25 + semantic) by default; while the
semantic model loads, or when it is off, results come from BM25 and `notice` says so.
kinds: facts (atomic entries: § notes, tier items, profile keys), summaries (long-form
blocks, principles), daily (daily-note paragraphs).
Example: {{"query": "trip to Porto", "limit": 5}}"""
    )
    @answers.tool_errors(runtime.root)
    def search(
        ctx: Context,
        query: str,
        mode: Mode = "hybrid",
        kinds: list[Kind] | None = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
    ) -> dict[str, Any]:
        agent = acting(ctx)
        filters = arguments.search_filters(kinds=kinds)
        answer = runtime.search(query, mode=mode, limit=limit, filters=filters, agent=agent)
        return answer.agent_json()

    @server.tool(
        description="""The memory block for your prompt, within a character budget, in layers:
principles, the user profile, your notes, your tiered memory, long-term memory and daily
notes (those of the period when the query names one: "last week"), as this folder keeps
them. Each block is headed with its meter; "(+N omitted)" says what did not fit.
Example: {"query": "what did we plan for the trip last week", "budget": 3000}"""
    )
    @answers.tool_errors(runtime.root)
    def context(
        ctx: Context,
        query: str | None = None,
        budget: Annotated[int, Field(ge=200, le=100_000)] = 4000,
    ) -> dict[str, Any]:
        from vault_app.search import context as context_module

        agent = acting(ctx)
        builder = context_module.ContextBuilder.over_folder(runtime.reader, for_agents=True)
        built = builder.build(agent, query, budget=budget, mark_access=False)
        return answers.context_answer(built, budget, runtime.search_state, 0)

    if fmt in NOTES:
        _register_notes(server, runtime, acting, submit)
    if fmt in TIERS:
        _register_tiers(server, runtime, acting, submit)
    if fmt in PROFILE:
        _register_profile(server, runtime, acting, submit)
    if fmt in DAILY:
        _register_daily(server, runtime, acting, submit)


def _register_notes(
    server: MCPServer, runtime: folder_workspace.FolderWorkspace, acting: Acting, submit: Submit
) -> None:
    @server.tool(name="memory", description=memory_tools.MEMORY_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def memory(
        ctx: Context,
        action: Literal["add", "replace", "remove", "read"] | None = None,
        target: Literal["memory", "user"] = "memory",
        content: str | None = None,
        old_text: str | None = None,
        operations: list[memory_tools.MemoryOperation] | None = None,
    ) -> dict[str, Any]:
        agent = acting(ctx)
        return memory_tools.memory_answer(
            runtime.root,
            lambda t: runtime.reader.read_notes(agent, t),
            lambda kind, params: submit(ctx, kind, params),
            action,
            target,
            content,
            old_text,
            operations,
        )


def _register_tiers(
    server: MCPServer, runtime: folder_workspace.FolderWorkspace, acting: Acting, submit: Submit
) -> None:
    @server.tool(description=memory_tools.TIERS_READ_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def tiers_read(ctx: Context, tier: Literal[1, 2, 3] | None = None) -> dict[str, Any]:
        answer = runtime.reader.read_tiers(acting(ctx)).to_dict(runtime.root, tier)
        answer.pop("path", None)
        return answer

    @server.tool(description=memory_tools.TIERS_WRITE_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def tiers_write(ctx: Context, tier: Literal[1, 2, 3], content: str) -> dict[str, Any]:
        return submit(ctx, "tiers_write", {"tier": tier, "text": content})


def _register_profile(
    server: MCPServer, runtime: folder_workspace.FolderWorkspace, acting: Acting, submit: Submit
) -> None:
    @server.tool(description=memory_tools.PROFILE_READ_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def profile_read(ctx: Context, key: str | None = None) -> dict[str, Any]:
        values = runtime.reader.read_profile(acting(ctx)).values
        if key is None:
            return {"profile": values}
        return {"key": key, "value": values.get(key), "exists": key in values}

    @server.tool(description=memory_tools.PROFILE_SET_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def profile_set(ctx: Context, key: str, value: str) -> dict[str, Any]:
        return submit(ctx, "profile_set", {"key": key, "value": value})

    @server.tool(description=memory_tools.PROFILE_DELETE_DESCRIPTION)
    @answers.tool_errors(runtime.root)
    def profile_delete(ctx: Context, key: str) -> dict[str, Any]:
        return submit(ctx, "profile_delete", {"key": key})


def _register_daily(
    server: MCPServer, runtime: folder_workspace.FolderWorkspace, acting: Acting, submit: Submit
) -> None:
    @server.tool(
        description="""Append a paragraph to your daily note (today's, or the day of timestamp,
an ISO date), in this folder's own format.
Example: {"text": "Booked the train to Porto for Friday."}"""
    )
    @answers.tool_errors(runtime.root)
    def append_daily(ctx: Context, text: str, timestamp: str | None = None) -> dict[str, Any]:
        return submit(ctx, "append_daily", {"text": text}, timestamp)

    @server.tool(
        description="""Your daily notes of a date range (ISO dates; default today only, at most
366 days), one entry a paragraph.
Example: {"since": "2026-11-01", "until": "2026-11-07"}"""
    )
    @answers.tool_errors(runtime.root)
    def read_daily(
        ctx: Context, since: str | None = None, until: str | None = None
    ) -> dict[str, Any]:
        agent = acting(ctx)
        folder = runtime.reader
        today = folder.today()
        first = arguments.day(since, "since") if since else None
        last = arguments.day(until, "until") if until else None
        first, last = first or last or today, last or first or today
        if last < first:
            raise errors.VaultError(f"until {last} is before since {first}")
        if (last - first).days >= MAX_DAYS:
            raise errors.VaultError(f"at most {MAX_DAYS} days at once: {first} to {last} is more")
        days = []
        for day in folder.daily_dates(agent):
            if first <= day <= last:
                text = neighbour_entries.untitled(folder.daily_note(agent, day).text or "", day)
                entries = [
                    {"time": None, "text": injection.shown_to_agents(p)}
                    for p in neighbour_entries.paragraphs(text)
                ]
                days.append({"date": day.isoformat(), "entries": entries})
        span = {"since": first.isoformat(), "until": last.isoformat()}
        return {"scope": "mine", **span, "days": days}
