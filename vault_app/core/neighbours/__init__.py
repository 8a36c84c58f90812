"""The neighbours' memory folders, opened as they are: Hermes, PicoClaw, MicroClaw.

`detect` says what a folder is ("para", "hermes", "picoclaw", "microclaw"; a precise
error for a folder that is none, or more than one); `open_folder` returns the adapter
that reads and writes that folder in its owner's format, or None for a PARA vault (open
that with `vault.Vault`). Opening a neighbour's folder never writes into it: vault-app's
own state about it (audit log, backups of what each write replaced, locks for formats
that keep none) lives in the user's state folder, keyed by the folder's path (`files`).

    detect      the formats' marks, the errors for unknown and ambiguous folders
    files       bounded reads, atomic replace, appends, Hermes' `.lock` protocol, state dir
    folder      `ForeignFolder`: the structures every adapter answers to, the refusals
    hermes      memories/MEMORY.md and USER.md: § notes, budgets, drift `.bak.<ts>`
    picoclaw    memory/profile.json, memory/YYYYMM/YYYYMMDD.md, memory/MEMORY.md
    microclaw   groups/AGENTS.md, groups/<chat>/<persona>/MEMORY.md tiers, daily logs
    entries     every entry of a folder, listed once: what search indexes, what import files
    importing   `vault-app import`: a neighbour's memory copied into a PARA vault (atomic
                entries as facts), a report
    agents      its agents' writes over MCP (scan, review queue, audit), their tokens:
                kept in vault-app's state folder for it

The formats' rules come from the owners' code (Hermes `tools/memory_tool.py`, PicoClaw
`pkg/agent/memory.go` and seed 004, MicroClaw `src/memory.rs` and
`src/tools/tiered_memory.rs`); the text logic is the pure modules `core.notes`,
`core.tiers` and `core.profile`, shared with the PARA vault.
"""

from __future__ import annotations

from pathlib import Path

from vault_app.core import decay
from vault_app.core.neighbours import detect, folder, hermes, microclaw, picoclaw

ForeignFolder = folder.ForeignFolder
UnsupportedError = folder.UnsupportedError
UnknownFormatError = detect.UnknownFormatError
AmbiguousFormatError = detect.AmbiguousFormatError
FORMATS = detect.FORMATS

ADAPTERS: dict[str, type[folder.ForeignFolder]] = {
    detect.HERMES: hermes.HermesHome,
    detect.PICOCLAW: picoclaw.PicoClawWorkspace,
    detect.MICROCLAW: microclaw.MicroClawRuntime,
}


def format_of(path: Path | str) -> str:
    """ "para", "hermes", "picoclaw" or "microclaw" (errors: see `detect.detect`)."""
    return detect.detect(path).format


def open_folder(
    path: Path | str, *, actor: str = "api", clock: decay.Clock = decay.system_clock
) -> folder.ForeignFolder | None:
    """The adapter for the neighbour's folder at `path`; None when it is a PARA vault."""
    found = detect.detect(path)
    adapter = ADAPTERS.get(found.format)
    return None if adapter is None else adapter(found.root, actor=actor, clock=clock)
