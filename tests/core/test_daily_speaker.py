"""Whose turn a daily-note entry is (`core.daily.speaker`): what search weighs a name by
and the heartbeat reads "I" with."""

from __future__ import annotations

import pytest

from vault_app.core import daily


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("**Maya**: We got a puppy!", "Maya"),
        ("**Melanie** (D14:4): I made it in pottery class.", "Melanie"),
        ("**user** (Jane, chat 42): my flight moved", "Jane"),
        ("**Maya Chen** (from ChatGPT, Trip ideas): hello", "Maya Chen"),
        ("Maya Chen: the boiler is fixed", "Maya Chen"),
        ("Leo: There's a kitten living with us now.", "Leo"),
        ("**user** (chat 42): my flight moved", None),  # a role with no name
        ("User: remember the gate code", None),
        ("**assistant**: noted", None),
        ("**memory** (from ChatGPT: Trip): User prefers Python.", None),  # a role, no name
        ("**Melanie** (D14:4) said nothing", None),  # no colon: no turn
        ("the boiler is fixed: finally", None),
        ("Replaced the furnace filter.", None),
    ],
)
def test_the_speaker_of_a_turn(text: str, who: str | None) -> None:
    assert daily.speaker(text) == who


def test_the_heartbeat_reads_turns_with_the_same_pattern() -> None:
    from vault_app.heartbeat import rulebook

    assert rulebook.patterns().turn is daily.TURN
