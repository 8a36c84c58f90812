"""Markdown documents, each with `show` and `edit`: an agent's TACIT.md (`tacit`) and
CONTEXT.md (`context-md`), the principles in global/AGENTS.md (`principles`), and an
entity's summary.md (`summary`).

An edit takes the new text from --text, --file (- for stdin), stdin or $EDITOR, and
refuses to overwrite a file changed meanwhile (`--expect SHA256`, by default the hash read
before editing). `context-md` was `context-file` (still accepted, hidden from --help): the
name says it is the CONTEXT.md document, not the `context` an agent's prompt is built from.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from vault_app.cli import declaring
from vault_app.cli.declaring import Handler
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit
from vault_app.cli.reading import read_text_arg


def register(commands: declaring.Commands) -> None:
    _document_group(commands, "tacit", "TACIT.md", per_agent=True)
    _document_group(
        commands, "context-md", "CONTEXT.md", per_agent=True, old_names=["context-file"]
    )
    # the names `Vault.document` knows (`vault.PRINCIPLES` is AGENTS.md), spelled out: the
    # parser is built without importing the vault
    _document_group(commands, "principles", "AGENTS.md", per_agent=False)

    summary = commands.group("summary", "show or edit an entity's summary.md")
    p = commands.command("show", cmd_summary_show, "print summary.md", within=summary)
    p.add_argument("entity")
    p = commands.command("edit", cmd_summary_edit, "replace summary.md", within=summary)
    p.add_argument("entity")
    p.add_argument("--text")
    p.add_argument("--file")
    p.add_argument("--expect", metavar="SHA256")


def _document_group(
    commands: declaring.Commands,
    name: str,
    file_name: str,
    per_agent: bool,
    old_names: Sequence[str] = (),
) -> None:
    show, edit = _document_commands(file_name)
    group = commands.group(name, f"show or edit {file_name}", old_names=old_names)
    p = commands.command("show", show, f"print {file_name}", within=group)
    if per_agent:
        p.add_argument("--agent", required=True)
    p = commands.command(
        "edit", edit, f"replace {file_name} (--text, --file, stdin or $EDITOR)", within=group
    )
    if per_agent:
        p.add_argument("--agent", required=True)
    p.add_argument("--text")
    p.add_argument("--file", help="read the new text from a file (- for stdin)")
    p.add_argument("--expect", metavar="SHA256", help="refuse unless the file still has this hash")


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
