"""Search and agent context: `search` finds facts, summaries and daily entries (BM25,
semantic or hybrid, with filters; `--queries FILE` answers one JSON line a query with the
model loaded once), `context` builds the memory block of an agent's prompt within a budget.
`search` works in a neighbour's folder too (a Hermes home, a PicoClaw workspace, a
MicroClaw runtime): over its entries, each hit's `origin` naming the file and the place
(`search.sources`).

Both open the vault as a one-shot workspace (`_workspace`: the engine reads as the CLI, a
face; an agent named by `--actor` acts as `--agent` does), imported inside the handlers:
numpy, scipy and the model stay out of every other command's start-up. `context` is the
workspace's, the MCP tool's own.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from vault_app.cli import declaring, opening
from vault_app.cli.declaring import UsageError
from vault_app.cli.output import emit, json_bytes
from vault_app.core import errors, layout, models
from vault_app.workspace import arguments

MAX_LIMIT = 100_000  # search hits in one answer
MIN_BUDGET = 200  # characters of one agent context: the context builder's minimum
MAX_BUDGET = 10_000_000


def register(commands: declaring.Commands) -> None:
    p = commands.command(
        "search",
        cmd_search,
        "search facts, summaries and daily notes (in a neighbour's folder: its entries)",
    )
    p.add_argument("query", nargs="?", help="what to look for")
    p.add_argument(
        "--queries", metavar="FILE", help="one query per line (- for stdin): one JSON line out each"
    )
    p.add_argument(
        "--mode",
        choices=["bm25", "semantic", "hybrid"],
        help="default: hybrid when the model is available",
    )
    p.add_argument("--in", dest="within", nargs="+", choices=["facts", "summaries", "daily", "all"])
    p.add_argument("--scope", help="global or agent:ID")
    p.add_argument("--para", choices=layout.PARA_CATEGORIES)
    p.add_argument("--tier", nargs="+", choices=[t.value for t in models.DecayTier])
    p.add_argument("--status", choices=["active", "superseded", "any"], default="active")
    p.add_argument("--category", nargs="+", choices=[c.value for c in models.FactCategory])
    p.add_argument("--author", metavar="AGENT", help="facts written by this agent (agentId)")
    p.add_argument("--since", metavar="DATE")
    p.add_argument("--until", metavar="DATE")
    p.add_argument("--date-field", choices=["timestamp", "lastAccessed"], default="timestamp")
    p.add_argument(
        "--limit",
        type=declaring.whole(1, MAX_LIMIT),
        default=10,
        help="hits to return (default 10)",
    )
    p.add_argument("--explain", action="store_true", help="show the parts of each score")
    p.add_argument("--agent", help="the agent searching: its hits count as accessed")

    p = commands.command("context", cmd_context, "the memory context for an agent's prompt")
    p.add_argument(
        "words", nargs="?", metavar="QUERY", help="what the conversation is about (or --query)"
    )
    p.add_argument(
        "--agent",
        help="the agent (required in a PARA vault; may be left out in a Hermes home or a "
        "PicoClaw workspace, which hold one)",
    )
    p.add_argument("--query", help="what the conversation is about")
    p.add_argument(
        "--budget",
        type=declaring.whole(MIN_BUDGET, MAX_BUDGET),
        default=4000,
        help="characters (default 4000)",
    )
    p.add_argument("--no-access", action="store_true", help="do not count the facts as accessed")
    p.add_argument("--bm25", action="store_true", help="do not load the semantic model")


def _search_filters(args: argparse.Namespace) -> Any:
    return arguments.search_filters(
        kinds=args.within,
        scope=args.scope,
        para=args.para,
        tiers=args.tier,
        status=args.status,
        categories=args.category,
        author=args.author,
        since=args.since,
        until=args.until,
        date_field=args.date_field,
    )


def _progress_printer(args: argparse.Namespace) -> Callable[[int, int], None]:
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] > 2:
            last[0] = now
            print(f"vault-app: encoding {done:,}/{total:,} texts", file=sys.stderr)

    return report


def _print_notices(*notices: str | None) -> None:
    for notice in notices:
        if notice:
            print(f"vault-app: notice: {notice}", file=sys.stderr)


def cmd_search(args: argparse.Namespace) -> int:
    """Search here: open the vault or folder as a workspace (`open_now`), then answer. A
    `serve` already running for the vault answers the same through `serve_link`."""

    if not args.query and not args.queries:
        raise UsageError("give a QUERY, or --queries FILE")
    # a neighbour's folder (Hermes, PicoClaw, MicroClaw) is searched as it is: its
    # entries, each hit naming its file and place (`origin`); nothing is written there
    path = opening.resolve_vault_path(args.vault)
    if args.agent:
        layout.validate_agent_id(args.agent)
    opened = _workspace(args, path, semantic=args.mode in (None, "semantic", "hybrid"))
    searching = _Searching(args, opened)  # its scope checked before the index opens
    report = opened.open_now(progress=_progress_printer(args))
    search = opened.search_engine()
    _print_notices(report.notice, search.cache_notice(), *search.source.problems)
    if args.queries:
        # bytes, decoded line by line: a line that is not UTF-8 stops the run with its
        # number, after the answers to the lines before it
        handle = sys.stdin.buffer if args.queries == "-" else open(args.queries, "rb")  # noqa: SIM115
        source = "stdin" if args.queries == "-" else args.queries
        with handle:
            for number, raw in enumerate(handle, 1):
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise errors.VaultError(
                        f"{source} line {number}, column {exc.start + 1}: not valid UTF-8 "
                        f"({exc.reason})"
                    ) from None
                sys.stdout.buffer.write(json_bytes(searching.run(line.rstrip("\r\n"))) + b"\n")
                sys.stdout.flush()
        return 0
    searching.answer(args.query, sys.stdout, sys.stderr)
    return 0


def answer_search(
    args: argparse.Namespace, opened: Any, out: TextIO, err: TextIO, *, ready_only: bool
) -> int | None:
    """`search QUERY` answered from an open workspace (a running `serve`'s), written to
    `out` and `err` as a local run writes them; None, with `ready_only`, when the answer
    would not be the one a local run gives yet (the index or the model still loading)."""
    wants_meaning = (args.mode or "hybrid") != "bm25"
    if ready_only and (
        opened.search_state == "loading" or (wants_meaning and opened.search_state != "hybrid")
    ):
        return None
    if args.agent:
        layout.validate_agent_id(args.agent)
    _Searching(args, opened).answer(args.query, out, err)
    return 0


def _workspace(args: argparse.Namespace, path: Path, *, semantic: bool) -> Any:
    """The vault or folder at `path` as a one-shot workspace. Its engine reads as the
    CLI, a face: an agent named by `--actor agent:ID` (or a plain agent id) searches as
    `--agent` does, shown what it may read and counted as accessed through its own
    door; its own door would refuse the index the other agents' files."""
    from vault_app import workspace
    from vault_app.workspace import vault_workspace

    actor = args.actor if args.actor is not None else "cli"
    opened = workspace.open_workspace(
        path, actor=actor, semantic=semantic, clock=opening.clock_of(args), watch=False
    )
    if not isinstance(opened, vault_workspace.VaultWorkspace):
        return opened
    acting = opened.reader.principal.agent
    if acting is None:
        return opened
    if args.agent and args.agent != acting:
        raise UsageError(
            f"--actor is agent {acting!r} and --agent is {args.agent!r}: an agent searches "
            "as itself"
        )
    args.agent = acting
    opened.close()
    return workspace.open_workspace(
        path, actor="cli", semantic=semantic, clock=opening.clock_of(args), watch=False
    )


class _Searching:
    """One `search` command over an open workspace: its filters, the agent whose hits
    count as accessed (a folder's entries are not facts: nobody's), and its answers."""

    def __init__(self, args: argparse.Namespace, opened: Any) -> None:
        from vault_app.workspace import folder_workspace

        self.args = args
        self.opened = opened
        self.filters = _search_filters(args)
        self.searcher = args.agent
        if isinstance(opened, folder_workspace.FolderWorkspace):
            if args.agent:  # one of the folder's agents
                opened.agent(args.agent)
            self.searcher = None
        elif args.agent:  # (or --actor agent:ID: `_workspace`)
            # an agent searches what the access policy lets it read
            self.filters.scope = opened.scope_for(args.agent, self.filters.scope)

    def run(self, query: str) -> dict[str, Any]:
        answer = self.opened.search(
            query,
            mode=self.args.mode or "hybrid",
            filters=self.filters,
            limit=self.args.limit,
            explain=self.args.explain,
            agent=self.searcher,
        )
        return dict(answer.person_json(query))

    def answer(self, query: str, out: TextIO, err: TextIO) -> None:
        found = self.run(query)
        if found["notice"] and not self.args.json:
            print(f"vault-app: notice: {found['notice']}", file=err)
        emit(self.args, found, lambda: _hits_text(found, self.args.explain), out=out)


def _hits_text(found: dict[str, Any], explain: bool) -> str:
    from vault_app.search import results

    if not found["hits"]:
        never = ", ".join(found["unknown"])
        return "no good matches" + (f" (the vault never mentions: {never})" if never else "")
    lines = []
    for rank, hit in enumerate(found["hits"], 1):
        where = hit["entity"] or hit["scope"]
        if hit.get("origin"):
            where = hit["origin"]["where"]
        elif hit["kind"] == "daily":
            where = f"{hit['scope']} {hit['date']}"
        badge = f"[{hit['tier']}]" if hit["tier"] else f"[{hit['kind']}]"
        if hit.get("origin"):  # a neighbour's entry: its structure (notes, tiers...)
            badge = f"[{hit['origin']['structure']}]"
        lines.append(f"{rank:>2}. {badge:<9} {hit['score']:.3f}  {where}")
        lines.append(f"    {hit['text'].splitlines()[0][:110] if hit['text'] else ''}")
        if hit["id"]:
            lines.append(f"    {hit['id']}")
        if explain:
            lines.append(f"    explain: {results.explain_text(hit['parts'])}")
    return "\n".join(lines)


def cmd_context(args: argparse.Namespace) -> None:
    """The layered context (`search.context`), from a PARA vault through its search engine,
    or from a neighbour's folder read as it is (the same builder over its files)."""
    from vault_app.search import context

    if args.words and args.query and args.words != args.query:
        raise UsageError("give the query once: as QUERY or as --query")
    query = args.words or args.query
    foreign = opening.open_foreign(args)
    if foreign is not None:
        builder = context.ContextBuilder.over_folder(foreign)
        built = builder.build(args.agent, query, budget=args.budget, mark_access=not args.no_access)
    else:  # the MCP tool's context, through the same workspace (`VaultWorkspace.context`)
        opened = _workspace(args, opening.resolve_vault_path(args.vault), semantic=not args.bm25)
        if not args.agent:
            raise UsageError("--agent is required in a PARA vault")
        report = opened.open_now(progress=_progress_printer(args))
        _print_notices(report.notice, opened.search_engine().cache_notice())
        built = opened.context(
            args.agent, query, budget=args.budget, mark_access=not args.no_access
        )
    if not args.json:  # in the JSON, under "warnings"
        for warning in built.warnings:
            print(f"vault-app: warning: {warning}", file=sys.stderr, flush=True)
    emit(args, built.to_json(), built.text)
