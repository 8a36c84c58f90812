"""The vault's read tools: search, context, get_entity, list_entities, fact_history,
related, read_daily, read_document, recent_activity.

Each is a thin adapter over one core or search call, as the CLI's commands are. An agent
reads what the context builder gives it: global memory and its own workspace, never
another agent's (a request for one is refused with the rule; a listing leaves them out).
Every stored text an agent is shown passes through `injection.shown_to_agents`. Large
answers are paged (`offset`/`limit`, with `next_offset` while more remain), and
`get_entity` can return chosen fields only, so one large entity does not flood a prompt.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from vault_app.core import access, activity, errors, injection, layout, models, numeric_ids
from vault_app.mcp import answers
from vault_app.workspace import arguments, vault_workspace

Mode = Literal["hybrid", "bm25", "semantic"]
Kind = Literal["facts", "summaries", "daily"]
Tier = Literal["hot", "warm", "cold"]
Para = Literal["projects", "areas", "resources", "archives"]
Status = Literal["active", "superseded", "any"]
Page = Annotated[int, Field(ge=0, description="how many items to skip")]
MAX_DAYS = 366  # one read_daily call
FACT_FIELDS = (
    "id",
    "number",
    "fact",
    "category",
    "status",
    "tier",
    "timestamp",
    "lastAccessed",
    "accessCount",
    "confidence",
    "source",
    "relatedEntities",
    "supersedes",
    "supersededBy",
    "agentId",
    "metadata",
)


def fact_view(
    fact: models.Fact, ref: layout.EntityRef | None, tier: str | None = None
) -> dict[str, Any]:
    """A fact as agents see it: its JSON, the stored text through the injection filter,
    its numeric id (MicroClaw's) and entity."""
    data = fact.model_dump(mode="json", by_alias=True)
    data["fact"] = injection.shown_to_agents(fact.fact)
    data["number"] = numeric_ids.fact_number(fact.id)
    if ref is not None:
        data["entity"] = str(ref)
    if tier is not None:
        data["tier"] = tier
    return data


def page(total: int, offset: int, limit: int) -> dict[str, Any]:
    end = offset + limit
    return {"total": total, "offset": offset, "next_offset": end if end < total else None}


def register(
    server: MCPServer, runtime: vault_workspace.VaultWorkspace, agent_of: answers.AgentOf
) -> None:
    """Add the read tools to `server`."""

    def acting(ctx: Context) -> str:
        agent = agent_of(ctx)
        runtime.vault_for(agent)  # an unknown agent is refused with the reason
        return agent

    @server.tool(
        description="""Search your memory: facts, entity summaries and daily-note entries.
Hybrid (BM25 + semantic) by default; while the semantic model loads, or when it is off,
results come from BM25 and `notice` says so. Searches global memory and your workspace.
Filters: kinds (facts, summaries, daily), scope (global, mine, all), para, tiers,
status (active by default; superseded or any for history), categories, author (a fact's
agentId), since/until (ISO dates) on date_field. Facts found count as accessed unless
mark_access is false.
Example: {"query": "vanity delivery", "kinds": ["facts"], "tiers": ["hot", "warm"], "limit": 5}"""
    )
    @answers.tool_errors(runtime.root)
    def search(
        ctx: Context,
        query: str,
        mode: Mode = "hybrid",
        kinds: list[Kind] | None = None,
        scope: str | None = None,
        para: Para | None = None,
        tiers: list[Tier] | None = None,
        status: Status = "active",
        categories: list[str] | None = None,
        author: str | None = None,
        since: str | None = None,
        until: str | None = None,
        date_field: Literal["timestamp", "lastAccessed"] = "timestamp",
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        mark_access: bool = True,
    ) -> dict[str, Any]:
        agent = acting(ctx)
        filters = arguments.search_filters(
            kinds=kinds,
            scope=runtime.scope_for(agent, scope),
            para=para,
            tiers=tiers,
            status=status,
            categories=categories,
            author=author,
            since=since,
            until=until,
            date_field=date_field,
        )
        answer = runtime.search(
            query, mode=mode, limit=limit, filters=filters, agent=agent, mark_access=mark_access
        )
        return answer.agent_json()

    @server.tool(
        description="""The memory block for your prompt, within a character budget, in layers:
principles (global/AGENTS.md), the user profile (your USER.md and profile.json), your notes
(memories/MEMORY.md), your tiered MEMORY.md, your TACIT.md, relevant entity summaries, hot
and warm facts first, and daily notes when the query names a time ("last week", "in
March"). Each block is headed with its meter; "(+N omitted)" says what did not fit. Facts
included count as accessed unless mark_access is false.
Example: {"query": "what did we decide about the kitchen last week", "budget": 3000}"""
    )
    @answers.tool_errors(runtime.root)
    def context(
        ctx: Context,
        query: str | None = None,
        budget: Annotated[int, Field(ge=200, le=100_000)] = 4000,
        mark_access: bool = True,
    ) -> dict[str, Any]:
        from vault_app.search import context as context_module  # loaded with the engine

        agent = acting(ctx)
        search = runtime.search_engine()
        built = context_module.ContextBuilder(search, for_agents=True).build(
            agent, query, budget=budget, mark_access=False
        )
        marked: dict[str, int] = {}
        if mark_access:
            ids = [k[5:] for b in built.blocks for k in b.keys if k.startswith("fact:")]
            marked = runtime.mark_accessed(agent, ids)
        return answers.context_answer(built, budget, runtime.search_state, len(marked))

    @server.tool(
        description=f"""One entity: its summary and its facts, a page at a time (offset, limit;
next_offset is null on the last page). status: active (default), superseded or any.
fields keeps only those fact fields, e.g. ["id", "fact"] for a compact listing; one of
{", ".join(FACT_FIELDS)}. Entity addresses: "areas/people/jane" (global) or
"agent:<you>:projects/budget" (your workspace).
Example: {{"entity": "areas/people/jane", "fields": ["id", "fact"], "limit": 20}}"""
    )
    @answers.tool_errors(runtime.root)
    def get_entity(
        ctx: Context,
        entity: str,
        offset: Page = 0,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
        status: Status = "active",
        fields: list[str] | None = None,
        include_summary: bool = True,
    ) -> dict[str, Any]:
        agent = acting(ctx)
        ref = layout.as_ref(entity)
        runtime.vault_for(agent).check_read(ref)
        wanted = _fields(fields)
        view = runtime.reader.entity(ref)
        if view.error is not None:
            raise view.error
        now = runtime.reader.now()
        shown = [f for f in view.facts if status == "any" or f.status.value == status]
        chosen = shown[offset : offset + limit]
        rows = []
        for fact in chosen:
            tier = runtime.reader.tier(fact, now).value if fact.is_active else None
            data = fact_view(fact, None, tier)
            rows.append({k: data.get(k) for k in wanted} if wanted else data)
        answer: dict[str, Any] = {"entity": str(ref), **page(len(shown), offset, limit)}
        if include_summary:
            text = view.summary.text
            answer["summary"] = injection.shown_to_agents(text) if text else None
        answer["facts"] = rows
        return answer

    @server.tool(
        description="""List the entities you can read (global and your workspace), a page at a
time. scope: global, mine or all (default); para: projects, areas, resources or archives.
Example: {"scope": "mine", "para": "projects", "limit": 50}"""
    )
    @answers.tool_errors(runtime.root)
    def list_entities(
        ctx: Context,
        scope: str | None = None,
        para: Para | None = None,
        offset: Page = 0,
        limit: Annotated[int, Field(ge=1, le=1000)] = 100,
    ) -> dict[str, Any]:
        agent = acting(ctx)
        allowed = runtime.scope_for(agent, scope)
        assert allowed is not None  # an agent's: the scopes it reads
        scopes = {allowed} if isinstance(allowed, str) else set(allowed)
        rows = [
            r
            for r in runtime.reader.list_entities().entities
            if r.scope in scopes and (para is None or r.path.split("/", 1)[0] == para)
        ]
        chosen = rows[offset : offset + limit]
        return {
            **page(len(rows), offset, limit),
            "entities": [
                {"entity": r.address, "scope": r.scope, "hasSummary": r.has_summary} for r in chosen
            ],
        }

    @server.tool(
        description="""A fact's whole history, oldest first: every version it superseded or was
superseded by. Give the fact's id (uuid) or its numeric id (number).
Example: {"fact_id": "0b6e5c8e-4c1a-4f7e-9a51-2f0f3f0b7d11"}"""
    )
    @answers.tool_errors(runtime.root)
    def fact_history(
        ctx: Context, fact_id: str | None = None, number: int | None = None
    ) -> dict[str, Any]:
        agent = acting(ctx)
        fid = resolve_fact_id(runtime, fact_id, number)
        lineage = runtime.reader.fact_history(fid)
        for ref in {ref for ref, _ in lineage}:
            runtime.vault_for(agent).check_read(ref)
        return {"fact_id": fid, "versions": [fact_view(f, ref) for ref, f in lineage]}

    @server.tool(
        description="""Entities linked to one by relatedEntities, both ways: outgoing (its
active facts name them) and incoming (their active facts name it).
Example: {"entity": "areas/people/jane"}"""
    )
    @answers.tool_errors(runtime.root)
    def related(ctx: Context, entity: str) -> dict[str, Any]:
        agent = acting(ctx)
        ref = layout.as_ref(entity)
        own = runtime.vault_for(agent)
        own.check_read(ref)
        links = runtime.reader.related(ref)
        policy, who = access.Policy(own.config.agents), own.principal
        outgoing, incoming = (
            [a for a in links[way] if policy.can_read_address(who, a)]
            for way in ("outgoing", "incoming")
        )
        return {"entity": str(ref), "outgoing": outgoing, "incoming": incoming}

    @server.tool(
        description="""Daily-note entries of a date range (ISO dates; default today only, at most
366 days), yours (scope "mine", default) or the global notes ("global").
Example: {"since": "2026-03-01", "until": "2026-03-07", "scope": "mine"}"""
    )
    @answers.tool_errors(runtime.root)
    def read_daily(
        ctx: Context,
        since: str | None = None,
        until: str | None = None,
        scope: Literal["mine", "global"] = "mine",
    ) -> dict[str, Any]:
        agent = acting(ctx)
        today = runtime.reader.now().astimezone().date()
        first = arguments.day(since, "since") if since else None
        last = arguments.day(until, "until") if until else None
        first, last = first or last or today, last or first or today
        if last < first:
            raise errors.VaultError(f"until {last} is before since {first}")
        if (last - first).days >= MAX_DAYS:
            raise errors.VaultError(f"at most {MAX_DAYS} days at once: {first} to {last} is more")
        owner = agent if scope == "mine" else None
        days = []
        for day in runtime.reader.daily_dates(owner):
            if first <= day <= last:
                note = runtime.reader.daily_note(day, owner)
                entries = [
                    {"time": e.time, "text": injection.shown_to_agents(e.text)}
                    for e in note.entries
                ]
                days.append({"date": day.isoformat(), "entries": entries})
        return {"scope": scope, "since": first.isoformat(), "until": last.isoformat(), "days": days}

    @server.tool(
        description="""Read a document: your TACIT.md (how the user operates), CONTEXT.md,
SOUL.md, MEMORY.md or USER.md, or the vault's principles, AGENTS.md (global, read-only).
sha256 is what write_document's expected_sha256 takes (null when the file does not exist).
Example: {"name": "TACIT.md"}"""
    )
    @answers.tool_errors(runtime.root)
    def read_document(
        ctx: Context,
        name: Literal["TACIT.md", "CONTEXT.md", "SOUL.md", "MEMORY.md", "USER.md", "AGENTS.md"],
    ) -> dict[str, Any]:
        agent = acting(ctx)
        owner = None if name == "AGENTS.md" else agent
        doc = runtime.reader.document(name, owner)
        if doc.error is not None:
            raise doc.error
        return {
            "name": name,
            "scope": "global" if owner is None else f"agent:{agent}",
            "exists": doc.exists,
            "text": injection.shown_to_agents(doc.text) if doc.text is not None else None,
            "sha256": doc.digest,
        }

    @server.tool(
        description="""Recent changes to the vault from its audit log, newest first: yours by
default, everyone's with everyone=true; since (ISO time) and action (e.g. "fact.add")
narrow it.
Example: {"limit": 20, "action": "fact.add"}"""
    )
    @answers.tool_errors(runtime.root)
    def recent_activity(
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=500)] = 20,
        since: str | None = None,
        action: str | None = None,
        everyone: bool = False,
    ) -> dict[str, Any]:
        agent = acting(ctx)
        rows = activity.recent(
            runtime.root,
            limit=limit,
            agent=None if everyone else agent,
            since=arguments.optional_moment(since, "since"),
            action=action,
            keep=activity.visible_to(
                agent, runtime.vault_for(agent).reads_scope
            ),  # others' private writes
        )
        return {"entries": rows}


def resolve_fact_id(
    runtime: vault_workspace.VaultWorkspace, fact_id: str | None, number: int | None
) -> str:
    """The fact id a tool names by id or by number (exactly one of them)."""
    if (fact_id is None) == (number is None):
        raise errors.VaultError("give either fact_id (the uuid) or number (the numeric id)")
    if fact_id is not None:
        return fact_id
    assert number is not None
    found = runtime.fact_id_for_number(number)
    if found is None:
        raise errors.NotFoundError(f"no fact has number {number}")
    return found


def _fields(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    bad = [v for v in values if v not in FACT_FIELDS]
    if bad:
        raise errors.VaultError(f"unknown fact field {bad[0]!r}: use {', '.join(FACT_FIELDS)}")
    return list(dict.fromkeys(values))
