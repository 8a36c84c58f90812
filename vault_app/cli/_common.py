"""What every command group shares: how a group declares its commands, the output (text or
`--json`), opening the vault a command works on, and reading dates, numbers and text.

A group module (`entities`, `facts`, ...) has a `register(commands)` function that declares
its commands and their arguments through `Commands`, beside the handlers that run them;
`vault_app.cli.build_parser` calls each group's in turn. A handler takes the parsed
arguments and prints through `emit`; it raises `VaultError` (or `UsageError`) to fail, and
`vault_app.cli.main` turns that into one `vault-app: error:` line and an exit status.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from vault_app.core import errors, layout, models
from vault_app.workspace import arguments

if TYPE_CHECKING:
    from vault_app.core import decay, neighbours, vault

# Only what declaring the commands needs is imported here (the choices of --para,
# --category, --tier): `vault`, `config` and `decay` are imported when a command opens a
# vault, which keeps `vault-app --version` and `--help` from loading them.

Handler = Callable[[argparse.Namespace], Any]
Subcommands = argparse._SubParsersAction  # what `add_subparsers` returns


class UsageError(errors.InvalidArgumentError):
    """A command given the wrong arguments (exit status 2)."""


# -- declaring commands ---------------------------------------------------------------------


class Commands:
    """Where a command group declares its commands: each one gets the options every command
    takes (`common`: --vault, --json, --actor, --now), its help and its handler.

    `old_names` are spellings a command or group had before it was renamed: they still work
    (scripts use them) but `--help` lists only the new name.
    """

    def __init__(self, common: argparse.ArgumentParser, top: Subcommands) -> None:
        self.common = common
        self.top = top

    def command(
        self,
        name: str,
        handler: Handler,
        help_text: str,
        *,
        within: Subcommands | None = None,
        old_names: Sequence[str] = (),
    ) -> argparse.ArgumentParser:
        """A command `vault-app NAME` (or `vault-app GROUP NAME` `within` a group)."""
        parent = within if within is not None else self.top
        p: argparse.ArgumentParser = parent.add_parser(
            name, parents=[self.common], help=help_text, description=help_text
        )
        p.set_defaults(handler=handler)
        _answer_to(parent, old_names, p)
        return p

    def group(self, name: str, help_text: str, *, old_names: Sequence[str] = ()) -> Subcommands:
        """A group of commands, `vault-app NAME COMMAND`; alone it is a usage error."""
        p: argparse.ArgumentParser = self.top.add_parser(
            name, help=help_text, description=help_text
        )
        p.set_defaults(handler=lambda a: p.error(f"name a {name} command"))
        _answer_to(self.top, old_names, p)
        return p.add_subparsers(dest=f"{name}_command", metavar="COMMAND")


def _answer_to(parent: Subcommands, old_names: Sequence[str], p: argparse.ArgumentParser) -> None:
    """Let `p` answer to `old_names` too, unlisted: argparse's own `aliases=` would show them
    in --help, beside the name that replaced them."""
    choices = parent.choices  # the name -> parser map the subcommands are looked up in
    assert isinstance(choices, dict)
    for old in old_names:
        choices[old] = p


def whole(low: int, high: int) -> Callable[[str], int]:
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


def amount(low: float, high: float) -> Callable[[str], float]:
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


# -- output --------------------------------------------------------------------------------


def emit(
    args: argparse.Namespace,
    data: Any,
    text: str | Callable[[], str],
    *,
    out: TextIO | None = None,
) -> None:
    """Print `data` as JSON with --json, else the human text (to `out`, or stdout)."""
    if out is not None and out is not sys.stdout:  # a stream of text (a forwarded answer)
        if args.json:
            out.write(json_bytes(data, indent=True).decode("utf-8", "surrogateescape") + "\n")
        else:
            shown = text() if callable(text) else text
            if shown:
                out.write(shown + "\n")
        return
    if args.json:
        sys.stdout.buffer.write(json_bytes(data, indent=True) + b"\n")
    else:
        shown = text() if callable(text) else text
        if shown:
            print_text(shown)


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


def warn(problems: Sequence[object]) -> None:
    """`vault-app: warning: ...` on stderr, one line a problem (the command goes on)."""
    for problem in problems:
        print(f"vault-app: warning: {problem}", file=sys.stderr)


def fact_json(
    fact: models.Fact, ref: layout.EntityRef | None = None, tier: models.DecayTier | None = None
) -> dict[str, Any]:
    data = fact.model_dump(mode="json", by_alias=True)
    if ref is not None:
        data["entity"] = str(ref)
    if tier is not None:
        data["tier"] = tier.value
    return data


def table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    """Aligned columns, for people (the JSON carries the same rows)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    return "\n".join(lines)


def fact_line(fact: models.Fact, tier: models.DecayTier | None = None) -> str:
    badge = f"[{tier.value}]" if tier else f"[{fact.status.value}]"
    usage = f"{fact.category.value}, accessed {fact.access_count}×"
    return f"{badge:<12} {fact.id}  {fact.fact}  ({usage})"


# -- opening the vault ----------------------------------------------------------------------


def resolve_vault_path(given: str | None) -> Path:
    """The vault a command works on: `--vault PATH`, else the vault containing the current
    folder, else the configured one, else (as the window does) the demo vault in the
    user's data folder, created on first use and announced on stderr."""
    from vault_app.core import config

    if given:
        return Path(given).expanduser()
    found = config.default_vault(Path.cwd())
    if found is not None:
        return found
    from vault_app.core import demo

    path, created = demo.ensure_demo_vault()
    if path not in _ANNOUNCED:  # once a command, however often it resolves the vault
        _ANNOUNCED.add(path)
        print(
            f"vault-app: notice: no vault given, none here or configured: using the demo "
            f"vault at {path}{' (created now)' if created else ''}; pass --vault PATH for "
            "another",
            file=sys.stderr,
        )
    return path


_ANNOUNCED: set[Path] = set()


def open_vault(args: argparse.Namespace, agent: str | None = None) -> vault.Vault:
    """The PARA vault a command works on. A neighbour's folder (a Hermes home, a PicoClaw
    workspace, a MicroClaw runtime) is refused, naming the commands that work in it: it
    is never opened as a PARA vault (which would lay vault-app's `.vault/` into it)."""
    from vault_app.core import vault

    path = resolve_vault_path(args.vault)
    refuse_foreign(args, path)
    actor = args.actor if args.actor is not None else (f"agent:{agent}" if agent else "cli")
    clock = clock_of(args)
    return vault.Vault(path, actor=actor, clock=clock)


# The commands that work in a neighbour's folder (each calls `open_foreign` first)
FOREIGN_COMMANDS = (
    "info, notes, tiers, profile, daily, context, search, mcp, serve, review, activity, "
    "agent token, and the window (no command)"
)


def refuse_foreign(args: argparse.Namespace, path: Path) -> None:
    """Refuse a neighbour's folder (or an unknown or ambiguous one, precisely) where a
    command works on PARA vaults only."""
    from vault_app.core.neighbours import detect

    if not path.is_dir():
        return  # Vault() says precisely what is wrong
    found = detect.detect(path)
    if found.format != detect.PARA:
        command = getattr(args, "command", None) or "gui"
        raise errors.VaultError(
            f"{path} is a {detect.NAMES[found.format]}, not a PARA vault: `vault-app "
            f"{command}` works on PARA vaults only; in it use {FOREIGN_COMMANDS}"
        )


def open_foreign(args: argparse.Namespace) -> neighbours.ForeignFolder | None:
    """The neighbour's folder a command works on, in its own format; None when the
    folder is a PARA vault (then `open_vault` it). Unknown and ambiguous folders are
    refused by `neighbours.detect`, naming what was looked for or found."""
    from vault_app.core import neighbours

    path = resolve_vault_path(args.vault)
    if not path.is_dir():
        return None  # Vault() says precisely what is wrong
    actor = args.actor if args.actor is not None else "cli"
    clock = clock_of(args)
    return neighbours.open_folder(path, actor=actor, clock=clock)


# -- reading arguments and input ------------------------------------------------------------


def clock_of(args: argparse.Namespace) -> decay.Clock:
    """The clock a command runs by: `--now` (an ISO time, for scripts and tests) or the
    system's."""
    from vault_app.core import decay

    return decay.fixed_clock(arguments.moment(args.now)) if args.now else decay.system_clock


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
    import subprocess  # only here: kept out of the start-up of every command
    import tempfile

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


def end_server_process(code: int) -> None:
    """End a server process (`mcp`, `serve`) that owns itself, without the interpreter's
    teardown, once it has shut down cleanly.

    The runtime loads the semantic model on a background thread; stopped while ONNX
    Runtime is inside that load, the interpreter's teardown destroys the runtime's
    native threads under it and the process aborts (SIGABRT, exit 134) instead of ending
    with its status. Nothing is lost by skipping the teardown: every vault write is
    atomic and synced when it returns, and the caches are rebuilt from the files.
    """
    import contextlib
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to flush
            stream.flush()
    os._exit(code)
