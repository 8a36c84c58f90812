"""What a command prints: JSON with `--json`, else text for people (`emit`), and the
pieces of that text (tables, fact lines, warnings on stderr)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from vault_app.core import layout, models

if TYPE_CHECKING:
    pass


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
