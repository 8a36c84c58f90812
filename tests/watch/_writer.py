"""Another process that changes a vault the way agents, people and their editors do.

    python _writer.py      then one JSON command per line on stdin; "ok" once it is done

Commands (paths are absolute):
  {"op": "fact", "path": ITEMS_JSON, "text": T}   append a fact: temp file, then os.replace
  {"op": "entity", "folder": F}                    a new entity: summary.md and items.json
  {"op": "daily", "path": NOTE, "text": T}         append an entry to a daily note in place
  {"op": "agent", "root": VAULT, "id": ID}         create an agent with the core library
  {"op": "move", "source": S, "target": T}         rename a folder (to archives, elsewhere)
  {"op": "remove", "path": P}                      delete a file or a whole folder
  {"op": "touch", "path": P}                       new mtime, same content
  {"op": "vim", "path": P, "text": T}              save like vim: probe file, swap file,
                                                   backup by rename, write in place
  {"op": "noise", "folder": F}                     temp, lock, swap and backup files only
  {"op": "syncthing", "path": P, "text": T}        receive a file as Syncthing does: written
                                                   in .syncthing.<name>.tmp, renamed to P
  {"op": "syncthing_tmp", "folder": F}             Syncthing's temporary files only
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, run as a script
from agent_writes import raw_fact, replace

from vault_app.core import vault


def add_fact(path: Path, text: str) -> None:
    facts = json.loads(path.read_bytes()) if path.exists() else []
    facts.append(raw_fact(f"fact-{time.monotonic_ns()}", text, "status", "writer"))
    replace(path, json.dumps(facts, indent=2).encode())


def vim_save(path: Path, text: str) -> None:
    swap = path.with_name(f".{path.name}.swp")
    swap.write_bytes(b"b0VIM 9.0")
    probe = path.with_name("4913")
    probe.write_bytes(b"")
    probe.unlink()
    backup = path.with_name(path.name + "~")
    os.rename(path, backup)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    backup.unlink()
    swap.unlink()


def noise(folder: Path) -> None:
    for name in (".items.json.1.ab.vault-tmp", "items.json.lock", ".summary.md.swp", "x~"):
        (folder / name).write_bytes(b"noise")
    (folder / "#summary.md#").write_bytes(b"autosave")
    for name in (".items.json.1.ab.vault-tmp", "items.json.lock", "#summary.md#"):
        (folder / name).unlink()


def run(command: dict[str, Any]) -> None:
    op = command["op"]
    if op == "fact":
        add_fact(Path(command["path"]), command["text"])
    elif op == "entity":
        folder = Path(command["folder"])
        folder.mkdir(parents=True)
        replace(folder / "summary.md", f"# {folder.name}\n".encode())
        add_fact(folder / "items.json", f"{folder.name} was created by another process")
    elif op == "daily":
        with open(command["path"], "a", encoding="utf-8") as handle:
            handle.write(f"\n## {time.strftime('%H:%M:%S')}\n\n{command['text']}\n")
    elif op == "agent":
        vault.Vault(command["root"], actor=f"agent:{command['id']}").create_agent(command["id"])
    elif op == "move":
        target = Path(command["target"])
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(command["source"], target)
    elif op == "remove":
        path = Path(command["path"])
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    elif op == "touch":
        info = os.stat(command["path"])
        later = info.st_mtime_ns + 3_000_000_000
        os.utime(command["path"], ns=(later, later))
    elif op == "vim":
        vim_save(Path(command["path"]), command["text"])
    elif op == "noise":
        noise(Path(command["folder"]))
    elif op == "syncthing":
        target = Path(command["path"])
        temp = target.with_name(f".syncthing.{target.name}.tmp")
        temp.write_text(command["text"], "utf-8")
        os.replace(temp, target)
    elif op == "syncthing_tmp":
        folder = Path(command["folder"])
        for name in (".syncthing.items.json.tmp", "~syncthing~summary.md.tmp"):
            (folder / name).write_bytes(b"half a file")
            (folder / name).unlink()
    else:
        raise SystemExit(f"unknown op {op!r}")


def main() -> None:
    for line in sys.stdin:
        run(json.loads(line))
        print("ok", flush=True)


if __name__ == "__main__":
    main()
