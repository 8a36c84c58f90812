"""A PARA vault's tools, in the order a client lists them: reading (search, context,
entities, history, daily notes, documents, activity), writing (facts, daily notes,
documents: each an agent write through `core.agent_writes`), the agent's own memory
(Hermes' `memory`, MicroClaw's tiers, PicoClaw's profile) and MicroClaw's
structured-memory contract (`memory_query`, `memory_upsert`)."""

from __future__ import annotations

from vault_app.mcp.tools import Tool


def tools() -> tuple[Tool, ...]:
    """Every tool of a vault's server."""
    from vault_app.mcp.tools.vault import (
        add_fact,
        append_daily,
        context,
        fact_history,
        get_entity,
        list_entities,
        memory,
        memory_query,
        memory_upsert,
        profile_delete,
        profile_read,
        profile_set,
        read_daily,
        read_document,
        recent_activity,
        record_interaction,
        related,
        search,
        supersede_fact,
        tiers_read,
        tiers_write,
        write_document,
    )

    return (
        search.search,
        context.context,
        get_entity.get_entity,
        list_entities.list_entities,
        fact_history.fact_history,
        related.related,
        read_daily.read_daily,
        read_document.read_document,
        recent_activity.recent_activity,
        add_fact.add_fact,
        supersede_fact.supersede_fact,
        append_daily.append_daily,
        record_interaction.record_interaction,
        write_document.write_document,
        memory.memory,
        tiers_read.tiers_read,
        tiers_write.tiers_write,
        profile_read.profile_read,
        profile_set.profile_set,
        profile_delete.profile_delete,
        memory_query.memory_query,
        memory_upsert.memory_upsert,
    )
