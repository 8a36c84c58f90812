"""What the MCP tool groups share: who is calling (`AgentOf`), the error adapter
(`tool_errors`) and the small argument checks every group makes the same way.

The SDK turns an exception into an `isError` tool result, but shows the client the text
of a `ToolError` only (any other exception is a crash whose text stays on the server):
`tool_errors` maps the vault's errors, which are written for their reader, to ToolError.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from vault_app.core import decay, errors

AgentOf = Callable[[Context], str]
"""The calling agent's id for a request (stdio: the fixed `--agent`; HTTP: the agent
whose bearer token the request carries)."""

F = TypeVar("F", bound=Callable[..., Any])


def tool_errors(fn: F) -> F:
    """Run `fn`, turning vault errors (and OS errors) into a ToolError with their exact
    text, which the client sees as an `isError` result."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except errors.VaultError as exc:
            raise ToolError(str(exc)) from exc
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise ToolError(f"{where}{exc.strerror or exc}") from exc

    return wrapper  # type: ignore[return-value]


def moment(value: str | None, field: str = "timestamp") -> dt.datetime | None:
    """An ISO date or time from a tool argument (a naive one is local time), or None."""
    if value is None:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise errors.VaultError(
            f"{field} {value!r} is not an ISO date or time (e.g. 2026-03-14 or "
            "2026-03-14T09:30:00+01:00)"
        ) from None
    if not 1000 <= parsed.year <= 8999:
        raise errors.VaultError(f"{field} {value!r} is out of range: give a year 1000-8999")
    return decay.as_aware(parsed)


def day(value: str, field: str = "date") -> dt.date:
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise errors.VaultError(f"{field} {value!r} is not a YYYY-MM-DD date") from None
