"""The MCP tools, one module each: a tool's description, its parameters (the schema the
SDK derives from the signature) and its body in one place, at module level.

    @tool('''Search your memory: ... Example: {"query": "vanity delivery"}''')
    def search(ctx: Context, query: str, limit: int = 10) -> dict[str, Any]:
        runtime, agent = calls.on_vault(ctx)
        ...

`tool` makes the function a `Tool` record; a group lists its tools in order
(`tools.vault.tools()`, `tools.folder.tools(format)`), and `add` registers them on a
`calls.ToolServer`, each wrapped in `answers.tool_errors` for the workspace's root. A
tool finds the workspace it serves and the calling agent through its `ctx`
(`calls.on_vault`, `calls.on_folder`): no closure holds them, so a tool reads as what it
is, and adding one touches its module and its group's list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from vault_app.mcp import answers, calls


@dataclass(frozen=True)
class Tool:
    """One MCP tool: its name, the description the model reads, and its function (whose
    signature, `ctx: Context` first, is the tool's schema)."""

    name: str
    description: str
    fn: Callable[..., Any]


def tool(description: str, *, name: str | None = None) -> Callable[[Callable[..., Any]], Tool]:
    """Declare the decorated function a tool (named after it unless `name` is given)."""

    def declare(fn: Callable[..., Any]) -> Tool:
        return Tool(name=name or fn.__name__, description=description, fn=fn)

    return declare


def add(server: calls.ToolServer, tools: Iterable[Tool]) -> None:
    """Register `tools` on `server`, in order, each turning vault errors into tool errors
    whose paths are named inside the workspace (`answers.tool_errors`)."""
    errors_named = answers.tool_errors(server.workspace.root)
    for t in tools:
        server.add_tool(errors_named(t.fn), name=t.name, description=t.description)
