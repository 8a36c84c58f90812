"""`serve` and `watch` stop with exit status 0 on SIGTERM from their first moment, not
only once they serve (a busy machine's start takes seconds: the README's check saw 143)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from vault_app.cli import until_stopped


@pytest.fixture
def handlers() -> Iterator[None]:
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["serve"], "serve"),
        (["--vault", "v", "serve", "--port", "0"], "serve"),
        (["--actor", "agent:x", "--now", "2026-01-01", "watch"], "watch"),
        (["--json", "search", "serve"], "search"),  # a query that says "serve"
        (["--vault", "watch"], None),  # the vault's path, no command
        ([], None),
    ],
)
def test_the_command_word_is_found_after_the_options(argv: list[str], command: str | None) -> None:
    assert until_stopped.command_of(argv) == command


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_serve_starts_ends_it_with_status_0(handlers: None, sig: int) -> None:
    assert until_stopped.install(["--vault", "v", "serve"])
    with pytest.raises(SystemExit) as stopped:
        os.kill(os.getpid(), sig)  # delivered at once, to this (the main) thread
    assert stopped.value.code == 0


def test_any_other_command_keeps_pythons_handling(handlers: None) -> None:
    before = signal.getsignal(signal.SIGTERM)
    assert not until_stopped.install(["search", "plumber"])
    assert signal.getsignal(signal.SIGTERM) is before
