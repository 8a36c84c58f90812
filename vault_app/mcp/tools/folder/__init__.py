"""The MCP tools over a neighbour's folder, opened as it is: the tools of a PARA vault
that make sense for the folder's format, with the same names and answer shapes
(`tools(format)` lists them, one module each).

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

import dataclasses

from vault_app.core.neighbours import detect
from vault_app.mcp.tools import Tool

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


def tools(format_: str) -> tuple[Tool, ...]:
    """The tools of a folder of `format_` (see the table above)."""
    from vault_app.mcp.tools.folder import (
        append_daily,
        context,
        memory,
        profile_delete,
        profile_read,
        profile_set,
        read_daily,
        search,
        tiers_read,
        tiers_write,
    )

    named = search.search.description.replace("{folder}", detect.NAMES[format_])
    kept = [dataclasses.replace(search.search, description=named), context.context]
    if format_ in NOTES:
        kept.append(memory.memory)
    if format_ in TIERS:
        kept += [tiers_read.tiers_read, tiers_write.tiers_write]
    if format_ in PROFILE:
        kept += [profile_read.profile_read, profile_set.profile_set, profile_delete.profile_delete]
    if format_ in DAILY:
        kept += [append_daily.append_daily, read_daily.read_daily]
    return tuple(kept)
