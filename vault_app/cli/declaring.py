"""How a command group declares its commands (`Commands`: each with the options every
command takes), the usage error (exit status 2), and argparse types for bounded numbers.

A group module (`entities`, `facts`, ...) has a `register(commands)` function that declares
its commands and their arguments through `Commands`, beside the handlers that run them;
`program.build_parser` calls each group's in turn. A handler raises `VaultError` (or
`UsageError`) to fail, and `program.main` turns that into one `vault-app: error:` line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vault_app.core import errors

if TYPE_CHECKING:
    pass


Handler = Callable[[argparse.Namespace], Any]


Subcommands = argparse._SubParsersAction  # what `add_subparsers` returns


class UsageError(errors.InvalidArgumentError):
    """A command given the wrong arguments (exit status 2)."""


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
