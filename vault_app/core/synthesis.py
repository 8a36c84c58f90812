"""Synthesis: rewriting an entity's summary.md, and the vault's index.md, from its facts.

The generated part sits between two marker comments; everything outside them is the
user's and is kept verbatim. A summary without markers keeps all its text and gets the
block appended. The block lists Hot facts, then Warm ones, each by accessCount
(descending); Cold facts are left out (they stay searchable). Nothing in the block depends
on the clock, so re-running with no change in tiers changes nothing on disk.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from vault_app.core import models

BEGIN = "<!-- vault-app:synthesis:begin (generated from the facts; edit outside this block) -->"
END = "<!-- vault-app:synthesis:end -->"
INDEX_BEGIN = "<!-- vault-app:index:begin (generated; edit outside this block) -->"
INDEX_END = "<!-- vault-app:index:end -->"

_CATEGORY_LABEL = {
    models.FactCategory.RELATIONSHIP: "relationship",
    models.FactCategory.MILESTONE: "milestone",
    models.FactCategory.STATUS: "status",
    models.FactCategory.PREFERENCE: "preference",
    models.FactCategory.CONTEXT: "context",
}


def order_for_summary(
    tiered: Iterable[tuple[models.Fact, models.DecayTier]],
) -> list[tuple[models.Fact, models.DecayTier]]:
    """Active Hot then Warm facts, each tier by accessCount descending (stable)."""
    rank = {models.DecayTier.HOT: 0, models.DecayTier.WARM: 1}
    kept = [(f, t) for f, t in tiered if f.is_active and t in rank]
    return sorted(kept, key=lambda ft: (rank[ft[1]], -ft[0].access_count))


def render_block(ordered: list[tuple[models.Fact, models.DecayTier]], cold: int) -> str:
    lines = [BEGIN]
    for tier, heading in ((models.DecayTier.HOT, "Hot"), (models.DecayTier.WARM, "Warm")):
        facts = [f for f, t in ordered if t is tier]
        if not facts:
            continue
        lines += ["", f"## {heading}", ""]
        lines += [f"- {_one_line(f.fact)} _({_CATEGORY_LABEL[f.category]})_" for f in facts]
    if not ordered:
        lines += ["", "_No hot or warm facts._"]
    if cold:
        lines += ["", f"_{cold} cold fact{'s' if cold != 1 else ''} omitted (still searchable)._"]
    lines += ["", END]
    return "\n".join(lines)


def merge_block(current: str | None, block: str, title: str, begin: str, end: str) -> str:
    """Put `block` in place of the existing generated block, keeping the user's text."""
    if current is None or not current.strip():
        return f"# {title}\n\n{block}\n"
    start = current.find(begin.split(" (")[0])
    stop = current.find(end, start if start >= 0 else 0)
    if start >= 0 and stop >= 0:
        return current[:start] + block + current[stop + len(end) :]
    return current.rstrip("\n") + "\n\n" + block + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def diff(path_label: str, before: str | None, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            (before or "").splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path_label}",
            tofile=f"b/{path_label}",
        )
    )


def render_index(rows: list[models.EntitySummary], first_lines: dict[str, str]) -> str:
    """The index block: entities by PARA category with their tier counts."""
    lines = [INDEX_BEGIN]
    by_category: dict[str, list[models.EntitySummary]] = {}
    for row in rows:
        by_category.setdefault(row.path.split("/", 1)[0], []).append(row)
    for category in ("projects", "areas", "resources", "archives"):
        group = by_category.get(category, [])
        lines += ["", f"## {category.title()} ({len(group)})", ""]
        if not group:
            lines.append("_None._")
        for row in group:
            rel = row.path.split("/", 1)[1]
            gist = first_lines.get(row.path, "")
            counts = f"{row.active} active: {row.hot} hot, {row.warm} warm, {row.cold} cold"
            link = f"[{rel}]({row.path}/summary.md)" if row.has_summary else rel
            lines.append(f"- {link} — {counts}" + (f" — {gist}" if gist else ""))
    lines += ["", INDEX_END]
    return "\n".join(lines)


def first_line(summary: str) -> str:
    """The first line of prose in a summary (skipping headings, markers and bullets)."""
    in_block = False
    for line in summary.splitlines():
        stripped = line.strip()
        if stripped.startswith(BEGIN.split(" (")[0]):
            in_block = True
        if in_block:
            if stripped == END:
                in_block = False
            continue
        if stripped and not stripped.startswith(("#", "<!--", "-", "*", "_")):
            return _clip(stripped, 120)
    return ""


def _clip(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return cut + "…"
