"""Choosing the JSON parser: orjson unless a number could be too big for it."""

from __future__ import annotations

from pathlib import Path

from vault_app.core import strict_json


def test_long_digit_runs_inside_strings_keep_the_fast_parser() -> None:
    """Only a 19+ digit run where a number can stand sends a file to the stdlib parser."""
    fast = b'[{"id": "fact-ea0d2c9263204912519723552eddbdd6", "fact": "call 1234567890123456789"}]'
    assert strict_json.parse_json(Path("items.json"), fast)[1] is False
    big = 12345678901234567890
    for data, where in (
        (b"[12345678901234567890]", lambda v: v[0]),
        (b'{"a": -12345678901234567890}', lambda v: -v["a"]),
        (b"[1,\n  12345678901234567890]", lambda v: v[1]),
    ):
        value, stdlib = strict_json.parse_json(Path("items.json"), data)
        assert stdlib is True and where(value) == big  # exact, not rounded through a float
    fraction = b"[0.12345678901234567890]"
    assert strict_json.parse_json(Path("items.json"), fraction)[1] is False
