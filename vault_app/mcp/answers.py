"""What the MCP tool groups share: who is calling (`AgentOf`), the error adapter
(`tool_errors`), the small argument checks every group makes the same way, an agent
write and its answer (`agent_write`, `write_answer`) and the `context` tool's answer
(`context_answer`), a fact as agents see it (`fact_view`) and a page's position (`page`).

The SDK turns an exception into an `isError` tool result, but shows the client the text
of a `ToolError` only (any other exception is a crash whose text stays on the server):
`tool_errors` maps the vault's errors, which are written for their reader, to ToolError.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from vault_app.core import agent_writes, errors, injection, layout, models, numeric_ids
from vault_app.workspace import arguments

if TYPE_CHECKING:  # the context builder is imported by the tools when called
    from vault_app.search import context

AgentOf = Callable[[Context], str]
"""The calling agent's id for a request (stdio: the fixed `--agent`; HTTP: the agent
whose bearer token the request carries)."""

F = TypeVar("F", bound=Callable[..., Any])
PENDING = "a person will review this write before it is applied; do not send it again"


def tool_errors(root: Path) -> Callable[[F], F]:
    """A decorator running the tool, turning vault errors (and OS errors) into a ToolError
    with their exact text, which the client sees as an `isError` result; a path inside
    the vault (or folder) at `root` is named from it (`global/life/...`), never as the
    server's absolute path, which is not the agent's to know."""
    prefixes = sorted({str(root), str(Path(root).resolve())}, key=len, reverse=True)

    def relative(message: str) -> str:
        for prefix in prefixes:
            message = message.replace(prefix + os.sep, "").replace(prefix, "the vault")
        return message

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except errors.VaultError as exc:
                raise ToolError(relative(str(exc))) from exc
            except OSError as exc:
                where = f"{exc.filename}: " if exc.filename else ""
                raise ToolError(relative(f"{where}{exc.strerror or exc}")) from exc

        return wrapper  # type: ignore[return-value]

    return decorate


def context_answer(
    built: context.Context, budget: int, search_state: str, marked_accessed: int
) -> dict[str, Any]:
    """The `context` tool's answer for a built context, in a vault or a neighbour's folder."""
    return {
        "text": built.text,
        "used": len(built.text),
        "budget": budget,
        "blocks": [
            {
                "name": b.name,
                "used": b.used,
                "cap": b.cap,
                "meter": b.meter(),
                "omitted": b.left_out,
            }
            for b in built.blocks
        ],
        "warnings": built.warnings,
        "search": search_state,
        "marked_accessed": marked_accessed,
    }


def agent_write(
    kind: agent_writes.Kind, agent: str, params: dict[str, Any], at: str | None = None
) -> agent_writes.AgentWrite:
    """One write `agent` asks for: the arguments it gave (None: not given) and `at`, an
    ISO date or time (`arguments.moment`)."""
    return agent_writes.AgentWrite(
        kind=kind,
        agent=agent,
        params={k: v for k, v in params.items() if v is not None},
        at=arguments.optional_moment(at, "timestamp"),
    )


def write_answer(outcome: agent_writes.Applied | agent_writes.Pending) -> dict[str, Any]:
    """A submitted write's answer: `{"status": "applied", ...its result}`, or
    `{"status": "pending_review", "review_id": ..., "note": PENDING}`."""
    if isinstance(outcome, agent_writes.Pending):
        return {"status": "pending_review", "review_id": outcome.review_id, "note": PENDING}
    return {"status": "applied", **outcome.result}


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
    """A paged answer's position: `next_offset` while more remain, else null."""
    end = offset + limit
    return {"total": total, "offset": offset, "next_offset": end if end < total else None}


def with_numbers(answer: dict[str, Any]) -> dict[str, Any]:
    """A fact write's answer with the numeric id of its facts (`fact`, `old`)."""
    for key in ("fact", "old"):
        if isinstance(answer.get(key), dict):
            answer[key]["number"] = numeric_ids.fact_number(answer[key]["id"])
    return answer
