r"""Synthesis: rewriting an entity's summary.md, and the vault's index.md, from its facts.

The generated part sits between two marker comments; everything outside them is the
user's and is kept verbatim, byte for byte. A summary without markers keeps all its text
and gets the block appended. The block lists Hot facts, then Warm ones, each by
accessCount (descending); Cold facts are left out (they stay searchable). Nothing in the
block depends on the clock, so re-running with no change in tiers changes nothing on disk.

Markers cannot be forged and a damaged block never costs hand-written text:

- a marker is a whole line (up to 3 spaces of indentation, any case and spacing inside
  the comment: `<!--  Vault-App:Synthesis:End -->` counts); text that merely mentions a
  marker inside a line is prose. A line indented 4 spaces or more (markdown code) is not a
  marker; a marker line inside a ``` fence still is one (fences are not tracked: an
  unclosed fence would otherwise hide the block and make every run append another);
- fact texts and index gists are rendered one line each, after a bullet, with every
  `<!--` and `-->` escaped (`<\!--`, `--\>`: markdown shows them unchanged), so a fact can
  neither open a comment that hides the rest of the file nor end the block early;
- the block must be exactly one begin line followed by one end line. A begin without an
  end, an end without a begin, two begins or two ends, or an end before the begin is a
  damaged block: `find_block` raises CorruptFileError naming the line, synthesis leaves
  the file as it is (and says so), and `doctor` reports it.

The functions render and merge text; `Synthesizer` runs them on a vault (what
`Vault.synthesize` and `Vault.synthesize_indexes` do), each file rewritten in one
`storage` transaction, in the encoding (byte-order mark) it had.
"""

from __future__ import annotations

import codecs
import contextlib
import datetime as dt
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vault_app.core import decay, errors, formats, layout, models, scanner, storage

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


_MARKER = re.compile(
    r"^ {0,3}<!--\s*vault-app\s*:\s*(synthesis|index)\s*:\s*(begin|end)\b.*-->\s*$",
    re.IGNORECASE,
)
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def _kind(marker: str) -> str:
    """`synthesis` or `index`: which block a marker constant belongs to."""
    found = _MARKER.match(marker)
    assert found is not None, marker
    return found[1].lower()


def find_block(
    text: str, begin: str, end: str, path: Path | str = "summary.md"
) -> tuple[int, int] | None:
    """Where the generated block sits in `text`: (offset of its begin line, offset of the
    end of its end line, line break excluded), or None if `text` has no marker line.

    Raises CorruptFileError (location `line N`) if the block is damaged (module doc).
    """
    kind = _kind(begin)
    begins: list[tuple[int, int]] = []  # (line number, offset of the line's start)
    ends: list[tuple[int, int]] = []  # (line number, offset of the line's end)
    for number, match in enumerate(_LINE.finditer(text), 1):
        line = match[0].rstrip("\r\n")
        found = _MARKER.match(line) if "<!--" in line else None
        if found and found[1].lower() == kind:
            if found[2].lower() == "begin":
                begins.append((number, match.start()))
            else:
                ends.append((number, match.start() + len(line)))
    if not begins and not ends:
        return None
    damage = _damage(begins, ends)
    if damage is not None:
        where, reason = damage
        raise errors.CorruptFileError(
            path,
            f"{reason}; nothing was rewritten and no hand-written text is lost: put back "
            f"the missing marker line or remove the extra one (the markers are the lines "
            f"{begin} and {end})",
            f"line {where}",
        )
    return begins[0][1], ends[0][1]


def _damage(begins: list[tuple[int, int]], ends: list[tuple[int, int]]) -> tuple[int, str] | None:
    """(line, reason) if the marker lines do not make exactly one begin-then-end block."""
    if len(begins) > 1:
        return begins[1][
            0
        ], f"a second generated block begins here (one begins at line {begins[0][0]})"
    if len(ends) > 1:
        return ends[1][
            0
        ], f"a second end marker of the generated block (one is at line {ends[0][0]})"
    if not ends:
        return begins[0][0], "the generated block begins here and has no end marker line"
    if not begins:
        return ends[0][0], "the generated block ends here and has no begin marker line"
    if ends[0][0] < begins[0][0]:
        return ends[0][0], f"the generated block ends here, before it begins (line {begins[0][0]})"
    return None


def merge_block(
    current: str | None,
    block: str,
    title: str,
    begin: str,
    end: str,
    path: Path | str = "summary.md",
) -> str:
    """`current` with `block` in place of its generated block, or appended if it has none.

    Every byte outside the old block is kept; the block keeps its own line breaks, and a
    new block takes the file's (CRLF if its first line ends so). Raises CorruptFileError
    if the block is damaged.
    """
    if not current:
        return f"# {title}\n\n{block}\n"
    span = find_block(current, begin, end, path)
    # The block keeps the line breaks it has (so a rewrite settles), a new one takes the
    # file's first.
    first = current.find("\n", span[0] if span is not None else 0)
    eol = "\r\n" if first > 0 and current[first - 1] == "\r" else "\n"
    block = block.replace("\n", eol)
    if span is not None:
        return current[: span[0]] + block + current[span[1] :]
    gap = "" if current.endswith(eol * 2) else eol if current.endswith("\n") else eol * 2
    return current + gap + block + eol


def outside_block(text: str, begin: str = BEGIN, end: str = END) -> str:
    """`text` without its generated block (all of it if the block is damaged or absent)."""
    try:
        span = find_block(text, begin, end)
    except errors.CorruptFileError:
        return text
    return text if span is None else text[: span[0]] + text[span[1] :]


def is_marker(line: str) -> bool:
    """Whether `line` (without its line break) is a block marker line of any kind."""
    return "<!--" in line and _MARKER.match(line) is not None


def escape_comments(text: str) -> str:
    """`text` with no HTML comment opener or closer left; markdown renders it unchanged."""
    return text.replace("<!--", "<\\!--").replace("-->", "--\\>")


def _one_line(text: str) -> str:
    """`text` on one line, comment markers escaped: what a bullet of a block may hold."""
    return escape_comments(" ".join(text.split()))


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
            link = escape_comments(link)
            lines.append(f"- {link} — {counts}" + (f" — {_one_line(gist)}" if gist else ""))
    lines += ["", INDEX_END]
    return "\n".join(lines)


def first_line(summary: str) -> str:
    """The first line of prose in a summary (skipping headings, markers, bullets and the
    generated block)."""
    for line in outside_block(summary).splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "<!--", "-", "*", "_")):
            return _clip(stripped, 120)
    return ""


def _clip(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return cut + "…"


# -- running it on a vault ----------------------------------------------------------------


def encoded_like(original: bytes | None, text: str) -> bytes:
    """`text` in UTF-8, with the byte-order mark `original` started with (if it did)."""
    bom = codecs.BOM_UTF8 if original is not None and original.startswith(codecs.BOM_UTF8) else b""
    return bom + text.encode("utf-8")


@dataclass(frozen=True)
class Synthesizer:
    """Rewrites the generated blocks of a vault's summary.md and index.md files, reading
    and tiering the facts with `source` (its layout, storage, decay policy and clock)."""

    source: scanner.Scanner

    @property
    def paths(self) -> layout.VaultLayout:
        return self.source.paths

    @property
    def store(self) -> storage.Storage:
        return self.source.store

    def run(
        self,
        refs: Iterable[layout.EntityRef | str] | None = None,
        *,
        dry_run: bool = False,
        at: dt.datetime | None = None,
        scopes: Iterable[str | None] | None = None,
    ) -> tuple[list[models.SynthesisResult], list[models.Problem]]:
        """Rewrite summary.md of each entity (all by default) and, for a full run, index.md.

        A full run covers the scopes its actor writes (`scopes`, None for global, narrows
        them): a person's every scope; an agent's (or the heartbeat's for it) its own
        workspace, and global memory only as a global writer — never a write the access
        policy would refuse half-way, nor one a person must approve."""
        moment = decay.as_aware(at) if at else self.source.now()
        written = self._written_scopes(scopes)
        targets = (
            [layout.as_ref(r) for r in refs]
            if refs is not None
            else [f.ref for f in self.paths.iter_all_entities(reads=written.__contains__)]
        )
        results: list[models.SynthesisResult] = []
        problems: list[models.Problem] = []
        for ref in targets:
            try:
                result, invalid = self.entity(ref, moment, dry_run)
            except errors.CorruptFileError as exc:
                problems.append(self.source.problem(exc))
                continue
            results.append(result)
            problems.extend(self.source.problem(exc) for exc in invalid)  # left out of the summary
        if refs is None:
            damaged: list[errors.CorruptFileError] = []
            results.extend(
                self.indexes(dry_run=dry_run, at=moment, damaged=damaged, scopes=written)
            )
            problems.extend(self.source.problem(exc) for exc in damaged)
        return results, problems

    def entity(
        self, ref: layout.EntityRef, moment: dt.datetime, dry_run: bool
    ) -> tuple[models.SynthesisResult, list[errors.CorruptFileError]]:
        """Rewrite one entity's summary block (not with `dry_run`): what changed, and the
        fact entries left out of it because they do not validate."""
        folder = self.paths.existing_entity_dir(ref)
        facts_path = self.paths.facts_path(folder)
        data = self.store.read(facts_path)
        facts: list[models.Fact] = []
        invalid: list[errors.CorruptFileError] = []
        if data is not None:
            scanner.check_not_emptied(self.store, facts_path, data)
            facts, invalid = formats.decode(facts_path, data).facts()
        tiered = [(f, self.source.policy.tier(f, moment)) for f in facts if f.is_active]
        ordered = order_for_summary(tiered)
        cold = sum(1 for _, t in tiered if t is models.DecayTier.COLD)
        block = render_block(ordered, cold)
        path = folder / layout.SUMMARY_NAME
        hot = sum(1 for _, t in ordered if t is models.DecayTier.HOT)
        with self.store.transaction(path) as tx:
            before = None if tx.data is None else storage.decode_text(path, tx.data)
            after = merge_block(before, block, ref.title, BEGIN, END, path)
            changed = after != before
            if changed and not dry_run:
                tx.commit(encoded_like(tx.data, after), "summary.synthesize", entity=str(ref))
        result = models.SynthesisResult(
            ref=ref,
            path=path,
            changed=changed,
            diff=diff(self.paths.relative(path), before, after) if changed else "",
            hot=hot,
            warm=len(ordered) - hot,
            cold=cold,
        )
        return result, invalid

    def _written_scopes(self, scopes: Iterable[str | None] | None) -> list[str | None]:
        """The scopes of `scopes` (all by default) the actor writes unasked."""
        wanted = self.paths.scopes() if scopes is None else list(scopes)
        return [scope for scope in wanted if self.store.writes_scope(scope)]

    def indexes(
        self,
        *,
        dry_run: bool = False,
        at: dt.datetime | None = None,
        damaged: list[errors.CorruptFileError] | None = None,
        scopes: Iterable[str | None] | None = None,
    ) -> list[models.SynthesisResult]:
        """Refresh `global/life/index.md` and each agent's `workspace/index.md` (of
        `scopes`, and those the actor writes: `run`).

        An index whose generated block is damaged is left as it is (its error goes to
        `damaged` when given); the others are still refreshed.
        """
        moment = decay.as_aware(at) if at else self.source.now()
        counter = decay.RawTierCounter(self.source.policy, moment)
        results = []
        for agent in self._written_scopes(scopes):
            root = self.paths.para_root(agent)
            if not root.is_dir():
                continue
            rows: list[models.EntitySummary] = []
            gists: dict[str, str] = {}
            for folder in self.paths.iter_entities(agent):
                row, _ = self.source.summarize(folder, counter, keep=False)
                rows.append(row)
                if folder.has_summary:
                    with contextlib.suppress(errors.CorruptFileError):
                        doc = self.store.read_text(folder.folder / layout.SUMMARY_NAME)
                        if doc:
                            gists[row.path] = first_line(doc[0])
            block = render_index(rows, gists)
            path = root / "index.md"
            title = "Index" if agent is None else f"Index — agent {agent}"
            with self.store.transaction(path) as tx:
                before = None if tx.data is None else storage.decode_text(path, tx.data)
                try:
                    after = merge_block(before, block, title, INDEX_BEGIN, INDEX_END, path)
                except errors.CorruptFileError as exc:
                    if damaged is not None:
                        damaged.append(exc)
                    continue
                changed = after != before
                if changed and not dry_run:
                    tx.commit(encoded_like(tx.data, after), "index.synthesize")
            results.append(
                models.SynthesisResult(
                    ref=None,
                    path=path,
                    changed=changed,
                    diff=diff(self.paths.relative(path), before, after) if changed else "",
                )
            )
        return results
