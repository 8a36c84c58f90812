"""The vault as a whole: `init` creates one (empty, or the demo household), `info` says what
it holds, `doctor` validates every file and can repair from backups."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.cli import declaring, opening
from vault_app.cli.opening import open_vault
from vault_app.cli.output import emit
from vault_app.core import layout

if TYPE_CHECKING:
    from vault_app.core import neighbours


def register(commands: declaring.Commands) -> None:
    p = commands.command("init", cmd_init, "create a vault (empty, or the household demo)")
    p.add_argument("path")
    p.add_argument("--demo", action="store_true", help="fill it with the demo household")
    commands.command("info", cmd_info, "what the vault holds")
    p = commands.command(
        "doctor", cmd_doctor, "validate every file; --repair restores from backups"
    )
    p.add_argument("--repair", action="store_true")


def cmd_init(args: argparse.Namespace) -> None:
    from vault_app.core import vault

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
    foreign = opening.open_foreign(args)
    if foreign is not None:
        _info_foreign(args, foreign)
        return
    v = open_vault(args)
    scan = v.scan()
    agents = v.agents()
    tiers = scan.tier_totals()
    agent_ids = [a.id for a in agents]
    global_entities = sum(1 for e in scan.entities if e.scope == layout.GLOBAL_SCOPE)
    daily_notes = {"global": len(v.daily_dates()), **{a.id: len(a.daily_dates) for a in agents}}
    data: dict[str, Any] = {
        "vault": str(v.root),
        "format": "para",
        "entities": len(scan.entities),
        "globalEntities": global_entities,
        "facts": scan.fact_count,
        "tiers": tiers,
        "agents": agent_ids,
        "dailyNotes": daily_notes,
        "problems": [p.model_dump() for p in scan.problems],
        "seconds": round(scan.seconds, 3),
    }

    def text() -> str:
        t = tiers
        lines = [
            f"Vault      {v.root}",
            "Format     para",
            f"Entities   {len(scan.entities)} ({global_entities} global)",
            f"Facts      {scan.fact_count}: {t['hot']} hot, {t['warm']} warm, {t['cold']} cold, "
            f"{t['superseded']} superseded",
            f"Agents     {', '.join(agent_ids) or '-'}",
            f"Daily      {daily_notes['global']} global notes",
        ]
        if scan.problems:
            lines.append(f"Problems   {len(scan.problems)} (run `vault-app doctor`)")
            lines += [f"  {p}" for p in scan.problems[:10]]
        lines.append(f"Scanned in {scan.seconds:.2f} s")
        return "\n".join(lines)

    emit(args, data, text)


def _info_foreign(args: argparse.Namespace, folder: neighbours.ForeignFolder) -> None:
    """`info` on a neighbour's folder: its format, agents and what each structure holds."""
    data = folder.describe()

    def text() -> str:
        lines = [
            f"Vault      {folder.root}",
            f"Format     {folder.format} ({folder.name}, opened as it is)",
            f"Agents     {', '.join(data['agents']) or '-'}",
        ]
        for target, store in data.get("notes", {}).items():
            state = "" if store["enabled"] else ", switched off"
            lines.append(
                f"Notes      {target}: {store['entry_count']} entries [{store['meter']}]{state}"
            )
        if "profileKeys" in data:
            lines.append(f"Profile    {data['profileKeys']} keys")
        daily = data.get("dailyNotes")
        if isinstance(daily, int):
            lines.append(f"Daily      {daily} notes")
        elif isinstance(daily, dict):
            lines += [f"Daily      {agent}: {n} logs" for agent, n in daily.items()]
        if data.get("principlesChars") is not None:
            lines.append(f"Principles {data['principlesChars']:,} chars (groups/AGENTS.md)")
        lines.append(f"State      {data['state']} (vault-app's audit log and backups)")
        return "\n".join(lines)

    emit(args, data, text)


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
