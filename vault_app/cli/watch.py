"""`watch`: print every change to the vault as it happens (text, or one JSON line a batch),
until Ctrl+C or SIGTERM; `--snapshot NAME` first reports what changed since the last run."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import threading
import time

import orjson

from vault_app.cli import declaring, opening
from vault_app.core import errors


def register(commands: declaring.Commands) -> None:
    p = commands.command("watch", cmd_watch, "print every change to the vault as it happens")
    p.add_argument(
        "--snapshot",
        metavar="NAME",
        help="remember what was seen under NAME: the next run with it first reports what "
        "changed in between",
    )
    p.add_argument(
        "--quiet-ms",
        type=declaring.amount(0, 60_000),
        default=100,
        help="report a burst of changes once the disk was quiet this long (default 100)",
    )


def cmd_watch(args: argparse.Namespace) -> int:
    """Print each change batch as it happens, until Ctrl+C or SIGTERM (exit status 0;
    the snapshot is saved). Both are caught even when the process started with them
    ignored (launched in the background by a shell script), where Python would not."""
    import signal  # only here: kept out of the start-up of every other command

    from vault_app.watch import events, quiet, watcher

    root = opening.resolve_vault_path(args.vault)
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
    try:  # from the handlers on: a signal while it starts (a busy machine) stops it too
        if getattr(args, "owns_process", False):
            quiet.quiet_benign_warnings()  # the CLI owns its process: its warnings filters
        watch.start()
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
