"""MicroClaw's tiered MEMORY.md: read or replace one tier, every other byte kept; no I/O.

The file holds three level-2 sections, headed exactly as MicroClaw heads them
(`TIER_HEADINGS`: `## Tier 1 — Long term`, `## Tier 2 — Mid term`, `## Tier 3 — Short
term`), usually under a `# Memory` title. A tier's body runs from the line after its
heading to the next line starting with `## ` (any level-2 heading, as MicroClaw reads it)
or the end of the file.

`split` cuts a text into parts — plain text and tier sections — whose concatenation is
the text itself, byte for byte (`render(split(t)) == t`, whatever `t` holds: no tier at
all, tiers out of order, a tier twice, CRLF line ends, no final newline). `replace`
changes the body of one tier and leaves every other part as it was; a missing tier is
inserted in its place in the order 1, 2, 3 (never by rewriting the file from a template,
which would drop what it held). A tier that appears twice is read as its bodies joined
and refused for replacement (`TierError`), since which one is meant cannot be known.

The file I/O (locks, atomic writes, backups, audit) lives in `agent_memory`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vault_app.core import errors

TIER_HEADINGS = {
    1: "## Tier 1 — Long term",
    2: "## Tier 2 — Mid term",
    3: "## Tier 3 — Short term",
}
TIERS = tuple(TIER_HEADINGS)
TITLE = "# Memory"


class TierError(errors.VaultError):
    """A tier number out of 1..3, or a tier that cannot be replaced as asked."""


@dataclass(frozen=True)
class Tier:
    """One tier section: its heading line as written (line end included) and its body
    (every byte up to the next level-2 heading or the end of the file)."""

    number: int
    heading: str
    body: str

    @property
    def text(self) -> str:
        """The body without the blank lines around it."""
        return self.body.strip()


@dataclass(frozen=True)
class TieredMemory:
    """A tiered MEMORY.md cut into parts (`str` for plain text, `Tier` for a tier
    section) in file order; `render` joins them back into the exact text."""

    parts: tuple[str | Tier, ...]

    def sections(self, number: int) -> list[Tier]:
        """The sections of tier `number`, in file order (one, normally)."""
        check(number)
        return [p for p in self.parts if isinstance(p, Tier) and p.number == number]

    def tier(self, number: int) -> str:
        """The text of tier `number` (stripped; "" when the file lacks it)."""
        return "\n\n".join(s.text for s in self.sections(number) if s.text)

    def tiers(self) -> dict[int, str]:
        """Every tier's text, keyed 1, 2, 3."""
        return {n: self.tier(n) for n in TIERS}

    @property
    def has_tiers(self) -> bool:
        return any(isinstance(p, Tier) for p in self.parts)


def check(number: int) -> int:
    """`number` if it names a tier, else a TierError saying which do."""
    if isinstance(number, bool) or number not in TIER_HEADINGS:
        raise TierError(
            f"no tier {number!r}: tiers are 1 (long term), 2 (mid term), 3 (short term)"
        )
    return number


def check_body(body: str) -> str:
    """`body` if it can be a tier's body: no line of it may start with `## `, which would
    end the tier there (and make the rest another section) when the file is read back."""
    for line in body.splitlines():
        if line.startswith("## "):
            raise TierError(
                f"a line starting with '## ' ({line[:40]!r}) would end the tier there; "
                "use '### ' for a heading inside a tier; nothing written"
            )
    return body


def split(text: str) -> TieredMemory:
    """`text` cut into plain parts and tier sections; `render` gives it back exactly."""
    parts: list[str | Tier] = []
    plain: list[str] = []
    current: tuple[int, str, list[str]] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            parts.append(Tier(current[0], current[1], "".join(current[2])))
            current = None
        elif plain:
            parts.append("".join(plain))
        plain.clear()

    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            number = _tier_of(line)
            close()
            if number is not None:
                current = (number, line, [])
                continue
        if current is not None:
            current[2].append(line)
        else:
            plain.append(line)
    close()
    return TieredMemory(tuple(parts))


def render(memory: TieredMemory) -> str:
    """The file text of `memory`: its parts joined, byte for byte."""
    return "".join(p if isinstance(p, str) else p.heading + p.body for p in memory.parts)


def read(text: str, number: int) -> str:
    """The text of tier `number` in a MEMORY.md's `text`."""
    return split(text).tier(number)


def replace(text: str, number: int, new_body: str) -> str:
    """`text` with tier `number`'s body replaced by `new_body` (stripped, blank lines
    around it as MicroClaw writes them); all else byte for byte."""
    check(number)
    check_body(new_body)
    memory = split(text)
    found = memory.sections(number)
    if len(found) > 1:
        raise TierError(
            f"tier {number} appears {len(found)} times ({TIER_HEADINGS[number]!r}); "
            "merge them by hand first, as which one to replace cannot be known"
        )
    parts = list(memory.parts)
    if found:
        at = parts.index(found[0])
        heading = found[0].heading
        newline = "\r\n" if heading.endswith("\r\n") else "\n"
        if not heading.endswith("\n"):
            heading += newline  # a heading on the file's last line, without a line end
        parts[at] = Tier(number, heading, _body(new_body, newline, last=at == len(parts) - 1))
        return render(TieredMemory(tuple(parts)))
    return _insert(memory, number, new_body)


def template(bodies: Mapping[int, str] | None = None, title: str = TITLE) -> str:
    """A new MEMORY.md with the three tiers (as MicroClaw creates one), filled from `bodies`."""
    bodies = bodies or {}
    for number in bodies:
        check(number)
    text = f"{title}\n\n"
    for number in TIERS:
        last = number == TIERS[-1]
        text += TIER_HEADINGS[number] + "\n" + _body(bodies.get(number, ""), "\n", last=last)
    return text


def _tier_of(line: str) -> int | None:
    stripped = line.strip()
    for number, heading in TIER_HEADINGS.items():
        if stripped == heading:
            return number
    return None


def _body(new_body: str, newline: str, *, last: bool) -> str:
    """A tier body: a blank line, the text, and a blank line before whatever follows."""
    content = new_body.strip().replace("\r\n", "\n")
    if newline != "\n":
        content = content.replace("\n", newline)
    if not content:
        return "" if last else newline + newline
    return newline + content + newline + ("" if last else newline)


def _insert(memory: TieredMemory, number: int, new_body: str) -> str:
    """`memory` with a section for the missing tier `number`, before the first tier
    numbered higher, or else at the end; a file without any tier gains all three."""
    text = render(memory)
    if not memory.has_tiers:
        head = text if not text.strip() or text.endswith("\n\n") else text.rstrip("\n") + "\n\n"
        if not text.strip():
            return template({number: new_body})
        return head + template({number: new_body}).removeprefix(f"{TITLE}\n\n")
    parts = list(memory.parts)
    later = [i for i, p in enumerate(parts) if isinstance(p, Tier) and p.number > number]
    section_at_end = not later
    section = Tier(number, TIER_HEADINGS[number] + "\n", _body(new_body, "\n", last=section_at_end))
    if later:
        parts.insert(later[0], section)
        return render(TieredMemory(tuple(parts)))
    if text and not text.endswith("\n"):
        text += "\n"
    if text and not text.endswith("\n\n"):
        text += "\n"
    return text + section.heading + section.body
