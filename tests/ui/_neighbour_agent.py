"""A neighbour's agent in a process of its own: writes its folder through the adapter, as
Hermes, PicoClaw or MicroClaw would (their locks and formats). One JSON command in argv:

  {"root": R, "op": "notes_add", "target": "memory"|"user", "text": T}
  {"root": R, "op": "profile_set", "key": K, "value": V}
  {"root": R, "op": "daily_append", "text": T}
  {"root": R, "op": "tier", "agent": A, "tier": N, "text": T}
"""

from __future__ import annotations

import json
import sys

from vault_app.core import neighbours


def main() -> None:
    command = json.loads(sys.argv[1])
    folder = neighbours.open_folder(command["root"], actor="agent:neighbour")
    assert folder is not None
    op = command["op"]
    if op == "notes_add":
        folder.change_notes(None, command["target"], "add", content=command["text"])
    elif op == "profile_set":
        folder.set_profile(None, command["key"], command["value"])
    elif op == "daily_append":
        folder.daily_append(command.get("agent"), command["text"])
    elif op == "tier":
        folder.write_tier(command["agent"], int(command["tier"]), command["text"])
    else:
        raise SystemExit(f"no op {op!r}")


if __name__ == "__main__":
    main()
