"""The rules' word lists (`data/rules.toml`) and how a list becomes a regex.

`words` reads the lists once; `alt` turns one into an alternation that takes the longest
phrase matching where it is tried, written as a trie so that the gate's long lists cost
a fraction of a flat alternation. `rulebook` compiles its patterns with both.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import tomllib
from collections.abc import Iterable
from typing import Any


@functools.cache
def words() -> dict[str, Any]:
    text = importlib.resources.files("vault_app.heartbeat").joinpath("data/rules.toml")
    return tomllib.loads(text.read_text(encoding="utf-8"))


def alt(phrases: Iterable[str]) -> str:
    """A regex alternation of literal phrases, spaces matching any blank and "'" either
    apostrophe, that takes the longest phrase matching where it is tried. Written as a
    trie ("i (?:love it|loved it)" is "i love(?:d)? it" in spirit): Python's engine tries
    a flat alternation one phrase after another at every position, a trie one character
    at a time, so the gate's long lists cost a fraction (a longer phrase is still tried
    before its own beginning, as the longest-first flat list did)."""
    trie: dict[str, Any] = {}
    for phrase in set(phrases):
        node = trie
        for symbol in _symbols(phrase):
            node = node.setdefault(symbol, {})
        node[""] = {}  # a phrase ends here
    return _trie_regex(trie)


def _symbols(phrase: str) -> list[str]:
    return [r"\s+" if c == " " else "['’]" if c == "'" else re.escape(c) for c in phrase]


def _trie_regex(node: dict[str, Any]) -> str:
    ends = "" in node
    branches = [symbol + _trie_regex(child) for symbol, child in sorted(node.items()) if symbol]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if ends else body
