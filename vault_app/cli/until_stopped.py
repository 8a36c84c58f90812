"""The commands that run until stopped (`serve`, `watch`) stop cleanly from their first
moment: a SIGTERM (or Ctrl+C) that comes while they still start - importing, opening the
vault and its index, on a busy machine for seconds - ends them with exit status 0, as
one that comes while they serve does, instead of Python's default death by the signal
(status 143). `install` is called first thing by `cli.main` when the process is the
program; each command then puts its own handlers in place once it can stop gracefully
(`cli.watch`, uvicorn's in `cli.serve`), and this one is what they restore."""

from __future__ import annotations

import signal
from collections.abc import Sequence
from types import FrameType

COMMANDS = frozenset({"serve", "watch"})
# the top-level options that take a value: the command is the first word after them
_VALUED = frozenset({"--vault", "--actor", "--now"})


def command_of(argv: Sequence[str]) -> str | None:
    """The command word of a command line (`--vault v serve --port 0` -> "serve")."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def install(argv: Sequence[str]) -> bool:
    """For a command that runs until stopped, end the process with status 0 on SIGTERM
    or SIGINT from now on (until the command's own handlers replace these); whether it
    was one."""
    if command_of(argv) not in COMMANDS:
        return False
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stopped)
    return True


def _stopped(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # through every `finally` on the way: what was opened is closed
