"""The `vault-app` command line: every library operation, `--json` on every command.

Run with no command it opens the desktop app. Errors go to stderr as one line
(`vault-app: error: <reason>`, never a traceback) with exit status 1 (2 for a usage
error, 130 for Ctrl+C, 141 when the reader of stdout went away); results go to stdout,
as text for people or as JSON (`--json`) for agents and scripts. The vault is
`--vault PATH`, else the vault containing the current folder, else the configured one
(`VAULT_APP_VAULT`, or `vault = "..."` in the user's config.toml), else - as the window
does - the demo vault in the user's data folder, created on first use and announced on
stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from vault_app import __version__
from vault_app.core import config, daily, decay, errors, layout, memory, models, vault

Handler = Callable[[argparse.Namespace], Any]


class UsageError(errors.VaultError):
    """A command given the wrong arguments (exit status 2)."""


# -- output --------------------------------------------------------------------------------


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print `data` as JSON with --json, else the human text."""
    if args.json:
        sys.stdout.buffer.write(json_bytes(data, indent=True) + b"\n")
    else:
        out = text() if callable(text) else text
        if out:
            print_text(out)


def json_bytes(data: Any, *, indent: bool = False) -> bytes:
    """`data` as JSON. A string that is not valid Unicode (a lone surrogate: a file name
    in another encoding, an odd fact) is written as a `\\udcxx` escape, which is valid
    JSON, rather than refused as orjson does."""
    options = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(data, option=options, default=str)
    except orjson.JSONEncodeError:
        text = json.dumps(data, indent=2 if indent else None, ensure_ascii=True, default=str)
        return text.encode("ascii")


def print_text(text: str) -> None:
    """Print `text`; characters that stand for undecodable bytes (surrogate escapes, as
    in a non-UTF-8 file name) go out as those bytes, not as an encoding error."""
    try:
        print(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate that stands for no byte
            data = text.encode("utf-8", "backslashreplace")
        sys.stdout.buffer.write(data + b"\n")


def fact_json(
    fact: models.Fact, ref: layout.EntityRef | None = None, tier: models.DecayTier | None = None
) -> dict[str, Any]:
    data = fact.model_dump(mode="json", by_alias=True)
    if ref is not None:
        data["entity"] = str(ref)
    if tier is not None:
        data["tier"] = tier.value
    return data


def summary_json(row: models.EntitySummary) -> dict[str, Any]:
    return {
        "entity": row.address,
        "scope": row.scope,
        "path": row.path,
        "facts": row.total,
        "active": row.active,
        "hot": row.hot,
        "warm": row.warm,
        "cold": row.cold,
        "superseded": row.superseded,
        "hasSummary": row.has_summary,
        "problem": row.problem,
    }


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    return "\n".join(lines)


def _fact_line(fact: models.Fact, tier: models.DecayTier | None = None) -> str:
    badge = f"[{tier.value}]" if tier else f"[{fact.status.value}]"
    usage = f"{fact.category.value}, accessed {fact.access_count}×"
    return f"{badge:<12} {fact.id}  {fact.fact}  ({usage})"


# -- opening the vault ----------------------------------------------------------------------


def resolve_vault_path(given: str | None) -> Path:
    """The vault a command works on: `--vault PATH`, else the vault containing the current
    folder, else the configured one, else (as the window does) the demo vault in the
    user's data folder, created on first use and announced on stderr."""
    if given:
        return Path(given).expanduser()
    found = config.default_vault(Path.cwd())
    if found is not None:
        return found
    from vault_app.core import demo

    path, created = demo.ensure_demo_vault()
    print(
        f"vault-app: notice: no vault given, none here or configured: using the demo vault "
        f"at {path}{' (created now)' if created else ''}; pass --vault PATH for another",
        file=sys.stderr,
    )
    return path


def open_vault(args: argparse.Namespace, agent: str | None = None) -> vault.Vault:
    actor = args.actor if args.actor is not None else (f"agent:{agent}" if agent else "cli")
    clock = decay.fixed_clock(parse_moment(args.now)) if args.now else decay.system_clock
    return vault.Vault(resolve_vault_path(args.vault), actor=actor, clock=clock)


_YEARS = (1000, 8999)  # dates are computed with, plus or minus a few centuries


def parse_moment(value: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(f"not an ISO date or time: {value!r}") from None
    if not _YEARS[0] <= moment.year <= _YEARS[1]:
        raise UsageError(f"{value!r} is out of range: give a year from {_YEARS[0]} to {_YEARS[1]}")
    try:
        return decay.as_aware(moment)
    except (ValueError, OverflowError) as exc:
        raise UsageError(f"{value!r} is out of range ({exc})") from None


def parse_day(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"not a YYYY-MM-DD date: {value!r}") from None


def decode_input(data: bytes, source: str) -> str:
    """Text read from a file or stdin; bad UTF-8 is an error naming the source and line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise errors.VaultError(
            f"{source} line {line}, column {column}: not valid UTF-8 ({exc.reason})"
        ) from None


def read_stdin() -> str:
    return decode_input(sys.stdin.buffer.read(), "stdin")


def read_text_arg(args: argparse.Namespace, initial: str, suffix: str = ".md") -> str:
    """The new text of a document: --text, --file (- for stdin), or $EDITOR."""
    if args.text is not None:
        return str(args.text)
    if args.file is not None:
        if args.file == "-":
            return read_stdin()
        return decode_input(Path(args.file).read_bytes(), args.file)
    if not sys.stdin.isatty():
        return read_stdin()
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False, encoding="utf-8") as tmp:
        tmp.write(initial)
    try:
        try:
            subprocess.run([*editor.split(), tmp.name], check=True)
        except subprocess.CalledProcessError as exc:
            raise errors.VaultError(
                f"the editor ({editor}) exited with status {exc.returncode}; nothing was saved"
            ) from None
        return decode_input(Path(tmp.name).read_bytes(), tmp.name)
    finally:
        os.unlink(tmp.name)


# -- commands -------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> None:
    path = Path(args.path).expanduser()
    if args.demo:
        from vault_app.core import demo

        created = demo.create_demo(path)
    else:
        created = vault.Vault.create(path, actor="cli")
    scan = created.scan()
    emit(
        args,
        {"vault": str(created.root), "entities": len(scan.entities), "facts": scan.fact_count},
        f"Created {'demo ' if args.demo else ''}vault at {created.root} "
        f"({len(scan.entities)} entities, {scan.fact_count} facts)",
    )


def cmd_info(args: argparse.Namespace) -> None:
    v = open_vault(args)
    scan = v.scan()
    agents = v.agents()
    data = {
        "vault": str(v.root),
        "entities": len(scan.entities),
        "globalEntities": sum(1 for e in scan.entities if e.scope == layout.GLOBAL_SCOPE),
        "facts": scan.fact_count,
        "tiers": scan.tier_totals(),
        "agents": [a.id for a in agents],
        "dailyNotes": {
            "global": len(v.daily_dates()),
            **{a.id: len(a.daily_dates) for a in agents},
        },
        "problems": [p.model_dump() for p in scan.problems],
        "seconds": round(scan.seconds, 3),
    }

    def text() -> str:
        t = data["tiers"]
        lines = [
            f"Vault      {v.root}",
            f"Entities   {data['entities']} ({data['globalEntities']} global)",
            f"Facts      {data['facts']}: {t['hot']} hot, {t['warm']} warm, {t['cold']} cold, "
            f"{t['superseded']} superseded",
            f"Agents     {', '.join(data['agents']) or '-'}",
            f"Daily      {data['dailyNotes']['global']} global notes",
        ]
        if scan.problems:
            lines.append(f"Problems   {len(scan.problems)} (run `vault-app doctor`)")
            lines += [f"  {p}" for p in scan.problems[:10]]
        lines.append(f"Scanned in {scan.seconds:.2f} s")
        return "\n".join(lines)

    emit(args, data, text)


def cmd_entities(args: argparse.Namespace) -> None:
    v = open_vault(args)
    rows = v.scan().entities
    if args.scope:
        rows = [
            r
            for r in rows
            if r.scope == args.scope or (args.scope == "agents" and r.scope != "global")
        ]
    if args.category:
        rows = [r for r in rows if r.path.split("/", 1)[0] == args.category]
    emit(
        args,
        [summary_json(r) for r in rows],
        lambda: _table(
            [
                [r.address, r.active, r.hot, r.warm, r.cold, r.superseded, r.problem or ""]
                for r in rows
            ],
            ["entity", "active", "hot", "warm", "cold", "superseded", "problem"],
        ),
    )


def cmd_show(args: argparse.Namespace) -> None:
    v = open_vault(args)
    view = v.entity(args.entity)
    now = v.now()
    shown = [f for f in view.facts if args.all or f.is_active]
    tiers = {f.id: v.tier(f, now) for f in view.facts if f.is_active}
    data = {
        "entity": str(view.ref),
        "folder": str(view.folder),
        "factsFile": str(view.facts_path),
        "format": view.file.dialect.describe() if view.file else [],
        "summary": view.summary.text,
        "facts": [fact_json(f, view.ref, tiers.get(f.id)) for f in shown],
        "invalid": [{"location": e.location, "reason": e.reason} for e in view.invalid],
        "error": str(view.error) if view.error else None,
        "summaryError": str(view.summary.error) if view.summary.error else None,
    }

    def text() -> str:
        lines = [f"# {view.ref}", ""]
        for problem in (view.error, view.summary.error):
            if problem:
                lines += [f"error: {problem}", ""]
        if view.summary.text:
            lines += [view.summary.text.rstrip(), ""]
        lines.append(f"Facts ({len(shown)} shown of {len(view.facts)}):")
        lines += ["  " + _fact_line(f, tiers.get(f.id)) for f in shown]
        lines += [f"  invalid {e.location}: {e.reason}" for e in view.invalid]
        return "\n".join(lines)

    emit(args, data, text)


def cmd_entity_create(args: argparse.Namespace) -> None:
    v = open_vault(args)
    folder = v.create_entity(args.entity, args.summary)
    emit(args, {"entity": args.entity, "folder": str(folder)}, f"Created {args.entity} at {folder}")


def cmd_entity_archive(args: argparse.Namespace) -> None:
    v = open_vault(args)
    target = v.archive_entity(args.entity)
    emit(
        args,
        {"entity": args.entity, "archivedAs": str(target)},
        f"Archived {args.entity} as {target}",
    )


def cmd_related(args: argparse.Namespace) -> None:
    v = open_vault(args)
    links = v.related(args.entity)
    emit(
        args,
        {"entity": args.entity, **links},
        lambda: "\n".join(
            [f"{args.entity} names:"]
            + [f"  → {r}" for r in links["outgoing"]]
            + ["named by:"]
            + [f"  ← {r}" for r in links["incoming"]]
        ),
    )


def cmd_fact_add(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    fact = v.add_fact(
        args.entity,
        args.text,
        args.category,
        related=args.related or (),
        source=args.source,
        agent_id=args.agent,
        confidence=args.confidence,
        create=args.create,
    )
    ref = layout.EntityRef.parse(args.entity)
    emit(args, fact_json(fact, ref, v.tier(fact)), f"Added {fact.id} to {ref}")


def cmd_fact_supersede(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    old, new = v.supersede_fact(
        args.fact_id,
        args.text,
        category=args.category,
        related=args.related,
        source=args.source,
        agent_id=args.agent,
        confidence=args.confidence,
    )
    emit(
        args,
        {"old": fact_json(old), "new": fact_json(new)},
        f"Superseded {old.id} by {new.id}",
    )


def cmd_fact_access(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    counts = v.mark_accessed(args.fact_ids)
    emit(
        args,
        [{"id": fid, "accessCount": n} for fid, n in counts.items()],
        lambda: "\n".join(f"{fid}: accessCount {n}" for fid, n in counts.items()),
    )


def cmd_fact_history(args: argparse.Namespace) -> None:
    v = open_vault(args)
    chain = v.fact_history(args.fact_id)
    emit(
        args,
        [fact_json(f, ref) for ref, f in chain],
        lambda: "\n".join(
            f"{'→ ' if i else '  '}{f.id} [{f.status.value}] {f.fact}  ({ref}, {f.timestamp})"
            for i, (ref, f) in enumerate(chain)
        ),
    )


def cmd_fact_show(args: argparse.Namespace) -> None:
    v = open_vault(args)
    ref, fact = v.fact(args.fact_id)
    tier = v.tier(fact) if fact.is_active else None
    emit(args, fact_json(fact, ref, tier), lambda: f"{ref}\n{_fact_line(fact, tier)}")


def cmd_decay(args: argparse.Namespace) -> None:
    v = open_vault(args)
    at = parse_moment(args.at) if args.at else None
    rows, problems = v.decay_report(at)
    for problem in problems:
        print(f"vault-app: warning: {problem}", file=sys.stderr)
    data = [
        {
            "id": r.fact.id,
            "entity": str(r.ref),
            "tier": r.tier.value,
            "days": r.days,
            "accessCount": r.fact.access_count,
            "lastAccessed": r.fact.last_touched.isoformat() if r.fact.last_touched else None,
            "fact": r.fact.fact,
        }
        for r in rows
    ]

    def text() -> str:
        counts = {t: sum(1 for r in rows if r.tier is t) for t in models.DecayTier}
        head = ", ".join(f"{n} {t.value}" for t, n in counts.items())
        body = [
            f"{r.tier.value:<5} {r.days:>5}d  {r.fact.access_count:>3}×  {r.ref}: {r.fact.fact}"
            for r in rows
        ]
        return "\n".join([f"{len(rows)} active facts: {head}", *body])

    emit(args, data, text)


def cmd_synthesize(args: argparse.Namespace) -> None:
    v = open_vault(args)
    results, problems = v.synthesize(args.entities or None, dry_run=args.dry_run)
    for problem in problems:
        print(f"vault-app: warning: {problem}", file=sys.stderr)
    data = {
        "dryRun": args.dry_run,
        "results": [
            {
                "entity": str(r.ref) if r.ref else None,
                "file": v.paths.relative(r.path),
                "changed": r.changed,
                "hot": r.hot,
                "warm": r.warm,
                "cold": r.cold,
                "diff": r.diff,
            }
            for r in results
        ],
        "problems": [p.model_dump() for p in problems],
    }

    def text() -> str:
        changed = [r for r in results if r.changed]
        verb = "would change" if args.dry_run else "changed"
        lines = [f"{len(changed)} of {len(results)} files {verb}"]
        if args.dry_run:
            lines += [r.diff for r in changed]
        return "\n".join(lines)

    emit(args, data, text)


def cmd_daily_append(args: argparse.Namespace) -> None:
    v = open_vault(args, args.agent)
    content = " ".join(args.text) if args.text else read_stdin()
    entry = v.append_daily(content, agent=args.agent)
    emit(
        args,
        entry.model_dump(mode="json"),
        f"Appended to {entry.date.isoformat()} at {entry.time}"
        + (f" ({args.agent})" if args.agent else ""),
    )


def cmd_daily_show(args: argparse.Namespace) -> None:
    v = open_vault(args)
    if args.list:
        dates = v.daily_dates(args.agent)
        emit(args, [d.isoformat() for d in dates], lambda: "\n".join(d.isoformat() for d in dates))
        return
    day = parse_day(args.date) if args.date else v.now().date()
    note = v.daily_note(day, args.agent)
    emit(
        args,
        note.model_dump(mode="json"),
        lambda: "\n".join(
            [f"# {note.date.isoformat()}" + (f" — {note.agent}" if note.agent else "")]
            + [f"\n## {e.time}\n\n{daily.escape_text(e.text)}" for e in note.entries]
        ),
    )


def _document_commands(name: str) -> tuple[Handler, Handler]:
    """show/edit handlers for one markdown document (TACIT.md, CONTEXT.md, AGENTS.md)."""

    def show(args: argparse.Namespace) -> None:
        v = open_vault(args)
        doc = v.document(name, getattr(args, "agent", None))
        emit(
            args,
            {"path": str(doc.path), "exists": doc.exists, "text": doc.text, "sha256": doc.digest},
            doc.text if doc.text is not None else f"({doc.path} does not exist yet)",
        )

    def edit(args: argparse.Namespace) -> None:
        agent = getattr(args, "agent", None)
        v = open_vault(args)
        doc = v.document(name, agent)
        text = read_text_arg(args, doc.text or "")
        expected = args.expect if args.expect is not None else doc.digest
        digest = v.write_document(name, text, agent=agent, expected=expected)
        emit(args, {"path": str(doc.path), "sha256": digest}, f"Saved {doc.path}")

    return show, edit


def cmd_summary_show(args: argparse.Namespace) -> None:
    v = open_vault(args)
    doc = v.summary(args.entity)
    emit(args, {"path": str(doc.path), "text": doc.text, "sha256": doc.digest}, doc.text or "")


def cmd_summary_edit(args: argparse.Namespace) -> None:
    v = open_vault(args)
    doc = v.summary(args.entity)
    text = read_text_arg(args, doc.text or "")
    expected = args.expect if args.expect is not None else doc.digest
    digest = v.write_summary(args.entity, text, expected=expected)
    emit(args, {"path": str(doc.path), "sha256": digest}, f"Saved {doc.path}")


def cmd_agents(args: argparse.Namespace) -> None:
    v = open_vault(args)
    agents = v.agents()
    emit(
        args,
        [
            {
                "id": a.id,
                "folder": str(a.folder),
                "tacit": a.has_tacit,
                "context": a.has_context,
                "dailyNotes": len(a.daily_dates),
                "entities": len(v.entity_refs(a.id)),
            }
            for a in agents
        ],
        lambda: _table(
            [
                [a.id, len(v.entity_refs(a.id)), len(a.daily_dates), "yes" if a.has_tacit else "no"]
                for a in agents
            ],
            ["agent", "entities", "daily notes", "TACIT.md"],
        ),
    )


def cmd_agent_create(args: argparse.Namespace) -> None:
    v = open_vault(args)
    folder = v.create_agent(args.agent_id)
    emit(
        args,
        {"agent": args.agent_id, "folder": str(folder)},
        f"Created agent {args.agent_id} at {folder}",
    )


def cmd_doctor(args: argparse.Namespace) -> int:
    from vault_app.core import doctor

    v = open_vault(args)
    report = doctor.run(v, repair=args.repair)
    data = {
        "ok": report.ok,
        "filesChecked": report.files_checked,
        "factsChecked": report.facts_checked,
        "seconds": round(report.seconds, 3),
        "problems": [p.model_dump() for p in report.problems],
    }

    def text() -> str:
        lines = [str(p) for p in report.problems]
        lines.append(
            f"{'OK' if report.ok else 'PROBLEMS'}: {report.files_checked} files, "
            f"{report.facts_checked} facts checked in {report.seconds:.2f} s; "
            f"{len(report.errors)} errors, {len(report.problems) - len(report.errors)} other"
        )
        return "\n".join(lines)

    emit(args, data, text)
    return 0 if report.ok else 1


def _search_filters(args: argparse.Namespace) -> Any:
    from vault_app.search import engine

    kinds = {"facts": ["fact"], "summaries": ["summary"], "daily": ["daily"]}
    chosen = [
        k for name in (args.within or ["all"]) for k in kinds.get(name, engine.documents.KINDS)
    ]
    return engine.Filters(
        kinds=frozenset(chosen),
        scope=args.scope,
        para=args.para,
        tiers=frozenset(args.tier) if args.tier else None,
        status=None if args.status == "any" else args.status,
        categories=frozenset(args.category) if args.category else None,
        agent=args.author,
        since=parse_moment(args.since) if args.since else None,
        until=parse_moment(args.until) if args.until else None,
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
    from vault_app.search import engine

    if not args.query and not args.queries:
        raise UsageError("give a QUERY, or --queries FILE")
    v = open_vault(args, args.agent)
    want_semantic = args.mode in (None, "semantic", "hybrid")
    search, report = engine.open_engine(
        v, semantic=want_semantic, progress=_progress_printer(args)
    )
    _print_notices(report.notice, search.cache_notice())
    mode = args.mode or ("hybrid" if search.semantic is not None else "bm25")
    fallback = None
    if args.mode is None and search.semantic is None:
        fallback = (
            f"{search.semantic_notice or 'semantic search is not available'}; showing BM25 results"
        )
    filters = _search_filters(args)

    def run_one(query: str) -> dict[str, Any]:
        result = search.search(
            query, mode=mode, filters=filters, limit=args.limit, explain=args.explain
        )
        marked: dict[str, int] = {}
        if args.agent:
            ids = [h.fact_id for h in result.hits if h.fact_id and h.status == "active"]
            if ids:
                marked = search.mark_accessed(ids)
        return {
            "query": query,
            "mode": result.mode,
            "notice": result.notice or fallback,
            "hits": [h.to_json() for h in result.hits],
            "markedAccessed": marked,
            "seconds": round(result.seconds, 4),
        }

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
                out = run_one(line.rstrip("\r\n"))
                sys.stdout.buffer.write(json_bytes(out) + b"\n")
                sys.stdout.flush()
        return 0
    out = run_one(args.query)
    if out["notice"] and not args.json:
        print(f"vault-app: notice: {out['notice']}", file=sys.stderr)

    def text() -> str:
        if not out["hits"]:
            return "no results"
        lines = []
        for rank, hit in enumerate(out["hits"], 1):
            where = hit["entity"] or hit["scope"]
            if hit["kind"] == "daily":
                where = f"{hit['scope']} {hit['date']}"
            badge = f"[{hit['tier']}]" if hit["tier"] else f"[{hit['kind']}]"
            lines.append(f"{rank:>2}. {badge:<9} {hit['score']:.3f}  {where}")
            lines.append(f"    {hit['text'].splitlines()[0][:110] if hit['text'] else ''}")
            if hit["id"]:
                lines.append(f"    {hit['id']}")
            if args.explain:
                parts = ", ".join(
                    f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in hit["parts"].items()
                    if v is not None
                )
                lines.append(f"    explain: {parts}")
        return "\n".join(lines)

    emit(args, out, text)
    return 0


def cmd_context(args: argparse.Namespace) -> None:
    from vault_app.search import context, engine

    v = open_vault(args, args.agent)
    search, report = engine.open_engine(
        v, semantic=not args.bm25, progress=_progress_printer(args)
    )
    _print_notices(report.notice, search.cache_notice())
    built = context.ContextBuilder(search).build(
        args.agent, args.query, budget=args.budget, mark_access=not args.no_access
    )
    emit(args, built.to_json(), built.text)


def cmd_watch(args: argparse.Namespace) -> int:
    """Print each change batch as it happens, until Ctrl+C or SIGTERM (exit status 0;
    the snapshot is saved). Both are caught even when the process started with them
    ignored (launched in the background by a shell script), where Python would not."""
    from vault_app.watch import events, watcher

    root = resolve_vault_path(args.vault)
    if not root.is_dir():
        raise errors.NotFoundError(f"no vault at {root}: not a folder")
    closed = threading.Event()

    def show(batch: events.ChangeBatch) -> None:
        if args.json:
            line = orjson.dumps(batch.to_json()) + b"\n"
        else:
            stamp = dt.datetime.fromtimestamp(batch.created).strftime("%H:%M:%S")
            line = f"{stamp} {batch.describe()}\n".encode()
        try:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):  # the reader went away: stop quietly
            closed.set()

    def status(state: watcher.WatchStatus) -> None:
        print(f"vault-app: {state.state}: {state.message}", file=sys.stderr, flush=True)

    watch = watcher.VaultWatcher(
        root, show, on_status=status, snapshot=args.snapshot, quiet_ms=args.quiet_ms
    )
    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    caught = (signal.SIGINT, signal.SIGTERM)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, interrupted) for sig in caught} if main_thread else {}
    watcher.quiet_benign_warnings()  # the CLI owns its process: its warnings filters
    watch.start()
    try:
        while watch.running and not closed.is_set():
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        watch.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if closed.is_set():  # keep Python from complaining about the closed pipe at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0 if closed.is_set() or watch.status.state != "error" else 1


def cmd_gui(args: argparse.Namespace) -> int:
    from vault_app.ui import app

    # no vault given, none here or configured: None, and the app opens the demo vault, as
    # every other command does (resolve_vault_path)
    path = Path(args.vault).expanduser() if args.vault else config.default_vault(Path.cwd())
    return app.run(path, demo=getattr(args, "demo", False))


# -- parser ---------------------------------------------------------------------------------


def _whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{number} is out of range ({low} to {high:,})")
        return number

    parse.__name__ = "whole number"
    return parse


def _amount(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number from `low` to `high`."""

    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
        if not (math.isfinite(number) and low <= number <= high):
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low:g} to {high:g})")
        return number

    parse.__name__ = "number"
    return parse


MAX_LIMIT = 100_000  # search hits in one answer
MIN_BUDGET = 200  # characters of one agent context: the context builder's minimum
MAX_BUDGET = 10_000_000


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--vault", metavar="PATH", default=argparse.SUPPRESS, help="the vault folder"
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output"
    )
    common.add_argument("--actor", default=argparse.SUPPRESS, help="who writes, for the audit log")
    common.add_argument(
        "--now", metavar="ISO", default=argparse.SUPPRESS, help="pretend it is this time (tests)"
    )

    parser = argparse.ArgumentParser(
        prog="vault-app",
        description="See, search and curate the PARA memory vaults of AI agents. "
        "With no command, opens the desktop app.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"vault-app {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(
        parent: Any, name: str, handler: Handler, help_text: str, **kw: Any
    ) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = parent.add_parser(
            name, parents=[common], help=help_text, description=help_text, **kw
        )
        p.set_defaults(handler=handler)
        return p

    def group(name: str, help_text: str) -> Any:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(handler=lambda a: p.error(f"name a {name} command"))
        return p.add_subparsers(dest=f"{name}_command", metavar="COMMAND")

    p = command(sub, "init", cmd_init, "create a vault (empty, or the household demo)")
    p.add_argument("path")
    p.add_argument("--demo", action="store_true", help="fill it with the demo household")

    command(sub, "info", cmd_info, "what the vault holds")
    p = command(sub, "entities", cmd_entities, "list entities with their tier counts")
    p.add_argument("--scope", help="global, agents, or agent:ID")
    p.add_argument("--category", choices=layout.PARA_CATEGORIES)
    p = command(sub, "show", cmd_show, "an entity's summary and facts")
    p.add_argument("entity", help="areas/people/jane or agent:finance:projects/budget")
    p.add_argument("--all", action="store_true", help="include superseded facts")
    p = command(sub, "related", cmd_related, "entities linked by relatedEntities, both ways")
    p.add_argument("entity")

    entity = group("entity", "create or archive entities")
    p = command(entity, "create", cmd_entity_create, "create an entity")
    p.add_argument("entity")
    p.add_argument("--summary", help="first lines of summary.md")
    p = command(entity, "archive", cmd_entity_archive, "move an entity under archives/")
    p.add_argument("entity")

    fact = group("fact", "add, supersede, access and trace facts")

    def fact_fields(p: argparse.ArgumentParser, required: bool) -> None:
        p.add_argument("--text", required=True, help="the fact: one clear, atomic statement")
        p.add_argument(
            "--category",
            required=required,
            choices=[c.value for c in models.FactCategory],
        )
        p.add_argument("--related", nargs="+", metavar="ENTITY", help="related entity ids")
        p.add_argument("--source", help="a date or a reference (conversation id…)")
        p.add_argument("--agent", help="the agent writing it (audited as agent:ID)")
        p.add_argument("--confidence", type=float, default=None if not required else 1.0)

    p = command(fact, "add", cmd_fact_add, "add a fact to an entity")
    p.add_argument("entity")
    fact_fields(p, required=True)
    p.add_argument("--create", action="store_true", help="create the entity if missing")
    p = command(fact, "supersede", cmd_fact_supersede, "replace a fact, keeping the old one")
    p.add_argument("fact_id")
    fact_fields(p, required=False)
    p = command(fact, "access", cmd_fact_access, "count an access of facts")
    p.add_argument("fact_ids", nargs="+", metavar="FACT_ID")
    p.add_argument("--agent")
    p = command(fact, "history", cmd_fact_history, "a fact's lineage, oldest first")
    p.add_argument("fact_id")
    p = command(fact, "show", cmd_fact_show, "one fact")
    p.add_argument("fact_id")

    p = command(sub, "decay", cmd_decay, "every active fact with its tier")
    p.add_argument("--at", metavar="DATE", help="compute tiers at this date/time")
    p = command(sub, "synthesize", cmd_synthesize, "rewrite summary.md from facts, and index.md")
    p.add_argument("entities", nargs="*", metavar="ENTITY")
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")

    daily_group = group("daily", "daily notes")
    p = command(daily_group, "append", cmd_daily_append, "append an entry to today's note")
    p.add_argument("text", nargs="*", help="the entry (stdin when absent)")
    p.add_argument("--agent")
    p = command(daily_group, "show", cmd_daily_show, "a day's note (today by default)")
    p.add_argument("date", nargs="?", help="YYYY-MM-DD")
    p.add_argument("--agent")
    p.add_argument("--list", action="store_true", help="list the days that have notes")

    def document_group(name: str, file_name: str, per_agent: bool) -> None:
        show, edit = _document_commands(file_name)
        g = group(name, f"show or edit {file_name}")
        p = command(g, "show", show, f"print {file_name}")
        if per_agent:
            p.add_argument("--agent", required=True)
        p = command(g, "edit", edit, f"replace {file_name} (--text, --file, stdin or $EDITOR)")
        if per_agent:
            p.add_argument("--agent", required=True)
        p.add_argument("--text")
        p.add_argument("--file", help="read the new text from a file (- for stdin)")
        p.add_argument(
            "--expect", metavar="SHA256", help="refuse unless the file still has this hash"
        )

    document_group("tacit", "TACIT.md", per_agent=True)
    document_group("context-file", "CONTEXT.md", per_agent=True)
    document_group("principles", vault.PRINCIPLES, per_agent=False)

    summary = group("summary", "show or edit an entity's summary.md")
    p = command(summary, "show", cmd_summary_show, "print summary.md")
    p.add_argument("entity")
    p = command(summary, "edit", cmd_summary_edit, "replace summary.md")
    p.add_argument("entity")
    p.add_argument("--text")
    p.add_argument("--file")
    p.add_argument("--expect", metavar="SHA256")

    command(sub, "agents", cmd_agents, "list agents")
    agent = group("agent", "manage agents")
    p = command(agent, "create", cmd_agent_create, "create an agent folder")
    p.add_argument("agent_id")

    p = command(sub, "search", cmd_search, "search facts, summaries and daily notes")
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
        "--limit", type=_whole(1, MAX_LIMIT), default=10, help="hits to return (default 10)"
    )
    p.add_argument("--explain", action="store_true", help="show the parts of each score")
    p.add_argument("--agent", help="the agent searching: its hits count as accessed")
    p = command(sub, "context", cmd_context, "the memory context for an agent's prompt")
    p.add_argument("--agent", required=True)
    p.add_argument("--query", help="what the conversation is about")
    p.add_argument(
        "--budget",
        type=_whole(MIN_BUDGET, MAX_BUDGET),
        default=4000,
        help="characters (default 4000)",
    )
    p.add_argument("--no-access", action="store_true", help="do not count the facts as accessed")
    p.add_argument("--bm25", action="store_true", help="do not load the semantic model")

    p = command(sub, "watch", cmd_watch, "print every change to the vault as it happens")
    p.add_argument(
        "--snapshot",
        metavar="NAME",
        help="remember what was seen under NAME: the next run with it first reports what "
        "changed in between",
    )
    p.add_argument(
        "--quiet-ms",
        type=_amount(0, 60_000),
        default=100,
        help="report a burst of changes once the disk was quiet this long (default 100)",
    )

    p = command(sub, "doctor", cmd_doctor, "validate every file; --repair restores from backups")
    p.add_argument("--repair", action="store_true")
    p = command(sub, "gui", cmd_gui, "open the desktop app (the default)")
    p.add_argument("--demo", action="store_true", help="open the demo vault")
    return parser


# Exit status of a command whose reader went away (`vault-app decay | head -1`): what a
# shell reports for a program killed by SIGPIPE, as `seq 1 100000 | head -1` does; quiet.
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130
# Arguments that name local files: bytes that are not UTF-8 are kept (surrogateescape)
# there, as the file system has them; in any other argument (ids, text) they are refused.
_PATH_ARGUMENTS = frozenset({"vault", "path", "file", "queries"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure ends as one `vault-app: error:` line on stderr.

    Exit status: 0 done, 1 error, 2 wrong arguments, 130 interrupted (Ctrl+C), 141 the
    reader of stdout went away (a pipe closed early; nothing more is printed).
    `VAULT_APP_DEBUG=1` shows the traceback of an unexpected error.
    """
    memory.tune_process()  # the CLI owns its process: bulk loads pause/freeze the gc
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        # the Python documentation's way: point stdout at devnull so that the
        # interpreter's own flush at exit does not fail again
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _fail(message: str) -> int:
    line = message.replace("\r", " ").replace("\n", " ")  # one line, whatever it held
    print(f"vault-app: error: {line}", file=sys.stderr)
    return 1


def describe_os_error(exc: OSError) -> str:
    """`<path>: <reason>`, the reason in words (no `[Errno 28]`)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    target = os.fsdecode(exc.filename) if isinstance(exc.filename, bytes) else str(exc.filename)
    if exc.filename2 is not None:
        target += f" -> {exc.filename2}"
    return f"{target}: {reason}"


def _undecodable_argument(args: argparse.Namespace) -> str | None:
    """The first argument (not a file path) holding bytes that are not UTF-8, shown."""
    for name, value in vars(args).items():
        if name in _PATH_ARGUMENTS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                shown = repr(item.encode("utf-8", "surrogateescape"))[1:]
                return f"{name.replace('_', '-')} {shown}"
    return None


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, default in (("vault", None), ("json", False), ("actor", None), ("now", None)):
        if not hasattr(args, name):
            setattr(args, name, default)
    bad = _undecodable_argument(args)
    if bad is not None:
        print(f"vault-app: error: argument is not valid UTF-8: {bad}", file=sys.stderr)
        return 2
    handler: Handler = getattr(args, "handler", cmd_gui)
    try:
        result = handler(args)
    except UsageError as exc:
        parser.error(str(exc))
    except errors.VaultError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        raise
    except OSError as exc:
        return _fail(describe_os_error(exc))
    except RecursionError:
        return _fail("data nested too deeply to handle (a recursion limit was reached)")
    except MemoryError:
        return _fail("out of memory")
    except Exception as exc:
        if os.environ.get("VAULT_APP_DEBUG"):
            raise
        return _fail(
            f"unexpected {type(exc).__name__}: {exc} (a bug: please report it; "
            "VAULT_APP_DEBUG=1 shows the traceback)"
        )
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
