"""A neighbour's memory folder as the watcher sees it: which files matter, and their meaning.

The neighbours' formats (`core.neighbours`) keep their memory in a few files below one
folder of their own; only those folders are watched (recursively), and only the files of
the format are followed (their `.lock` files, Hermes' `.bak.<ts>` snapshots, temp files,
sessions and logs beside them are not):

==========  ===================  ===================================================
format      watched              files followed (`events.ForeignFile` kind)
==========  ===================  ===================================================
hermes      memories/            MEMORY.md, USER.md (notes)
picoclaw    memory/              MEMORY.md (memory), profile.json (profile),
                                 YYYYMM/YYYYMMDD.md (daily)
microclaw   groups/              AGENTS.md (principles), <chat>/<persona>/MEMORY.md
                                 (tiers), <chat>/memory/YYYY-MM-DD.md and
                                 <chat>/<persona>/memory/YYYY-MM-DD.md (daily)
==========  ===================  ===================================================

`layout(format)` bundles these for `watcher.VaultWatcher` (a `layouts.Layout`); the
snapshot of such a folder is kept in vault-app's state folder for it
(`core.neighbours.files.state_dir`), never inside the neighbour's folder.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from pathlib import Path

from vault_app.core.neighbours import detect, files, hermes, picoclaw
from vault_app.watch import events, layouts

WATCHED = {
    detect.HERMES: ("memories",),
    detect.PICOCLAW: ("memory",),
    detect.MICROCLAW: ("groups",),
}
_NOTES = {name: target for target, name in hermes.TARGETS.items()}


def _date(year: str, month: str, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:
        return None


def _hermes(parts: list[str]) -> events.ForeignFile | None:
    if len(parts) == 2 and parts[0] == "memories" and parts[1] in _NOTES:
        return events.ForeignFile("notes", hermes.AGENT, "/".join(parts))
    return None


def _picoclaw(parts: list[str]) -> events.ForeignFile | None:
    path = "/".join(parts)
    if parts[0] != "memory":
        return None
    if len(parts) == 2:
        kind = {"MEMORY.md": "memory", "profile.json": "profile"}.get(parts[1])
        return None if kind is None else events.ForeignFile(kind, picoclaw.AGENT, path)
    if len(parts) == 3 and detect.PICO_MONTH.match(parts[1]) and parts[2].startswith(parts[1]):
        m = detect.PICO_DAY.match(parts[2])
        day = None if m is None else _date(m[1], m[2], m[3])
        return None if day is None else events.ForeignFile("daily", picoclaw.AGENT, path, day)
    return None


def _microclaw(parts: list[str]) -> events.ForeignFile | None:
    path = "/".join(parts)
    if parts[0] != "groups" or len(parts) < 2:
        return None
    if parts[1:] == ["AGENTS.md"]:
        return events.ForeignFile("principles", None, path)
    ids = [p for p in parts[1:-1] if detect.MICRO_ID.match(p)]
    name = parts[-1]
    if len(parts) == 4 and len(ids) == 2 and name == "MEMORY.md":
        return events.ForeignFile("tiers", f"{parts[1]}/{parts[2]}", path)
    m = detect.MICRO_DAY.match(name)
    if m is None or parts[-2] != "memory" or len(ids) != len(parts) - 3 or not 1 <= len(ids) <= 2:
        return None
    day = _date(m[1], m[2], m[3])
    return None if day is None else events.ForeignFile("daily", "/".join(ids), path, day)


_CLASSIFIERS = {detect.HERMES: _hermes, detect.PICOCLAW: _picoclaw, detect.MICROCLAW: _microclaw}


@functools.lru_cache(maxsize=4096)
def classify(format: str, path: str) -> events.ForeignFile | None:
    """The memory file at the folder-relative `path` of a `format` folder, or None."""
    parts = path.split("/")
    if any(not p or p.startswith(".") for p in parts):
        return None
    return _CLASSIFIERS[format](parts)


def tracks_folder(format: str, folder: str) -> bool:
    """Whether a folder there can hold followed files (a folder event there matters)."""
    parts = folder.split("/") if folder else []
    if not parts or parts[0] not in WATCHED[format] or any(p.startswith(".") for p in parts):
        return False
    if format == detect.HERMES:
        return len(parts) == 1
    if format == detect.PICOCLAW:
        return len(parts) == 1 or (len(parts) == 2 and bool(detect.PICO_MONTH.match(parts[1])))
    rest = parts[1:]  # microclaw: groups/<chat>[/<persona>][/memory]
    if rest and rest[-1] == "memory":
        rest = rest[:-1]
        if not rest:
            return False
    return len(rest) <= 2 and all(detect.MICRO_ID.match(p) for p in rest)


def agent_ids(format: str, root: Path) -> frozenset[str]:
    """The agents the folder holds now (MicroClaw's personas come and go)."""
    if format == detect.MICROCLAW:
        return frozenset(f"{c}/{p}" for c, p in detect.micro_personas(root / "groups"))
    return frozenset({hermes.AGENT if format == detect.HERMES else picoclaw.AGENT})


def build_batch(
    format: str,
    root: Path,
    changed: Iterable[str],
    present: object = (),
    *,
    moves: Iterable[tuple[str, str]] = (),
    agents_before: Iterable[str] = (),
    agents_after: Iterable[str] = (),
    reason: str = "events",
    rescan: bool = False,
) -> events.ChangeBatch:
    """The batch for these changed folder-relative files (created, modified or removed)."""
    paths = sorted(set(changed))
    found = [classify(format, p) for p in paths]
    before, after = set(agents_before), set(agents_after)
    return events.ChangeBatch(
        root=root,
        reason=reason,
        rescan=rescan,
        files=tuple(f for f in found if f is not None),
        agents=tuple(sorted(after - before)),
        removed_agents=tuple(sorted(before - after)),
        paths=tuple(paths),
    )


def snapshot_path(root: Path, name: str) -> Path:
    return files.state_dir(root) / "watch" / f"{name}.json"


def layout(format: str) -> layouts.Layout:
    """What the watcher follows in a `format` folder ("hermes", "picoclaw", "microclaw")."""
    if format not in _CLASSIFIERS:
        raise ValueError(f"no neighbour format {format!r}")
    return layouts.Layout(
        name=format,
        watched=WATCHED[format],
        classify=functools.partial(classify, format),
        tracks_folder=functools.partial(tracks_folder, format),
        agent_ids=functools.partial(agent_ids, format),
        build_batch=functools.partial(build_batch, format),
        snapshot_path=snapshot_path,
        state_inside=False,
    )
