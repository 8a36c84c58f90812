"""The injection scan: what in a text an agent writes could steer or rob the agents that read it.

Every text an agent writes into the vault passes through `scan` before it is applied; a
text with findings waits for a person in the review queue, and a stored text with
findings is shown to agents as `blocked_label(...)` (`shown_to_agents`).

Design:
- The rules are data (`data/injection_rules.toml`, loaded once): an id, a kind, a short
  human detail and a regular expression. Every quantifier in them is bounded, and only
  the first `MAX_SCAN_CHARS` characters are matched (a longer text is itself a finding),
  so the cost of a scan is bounded whatever the text.
- Obfuscation is undone before matching, not enumerated in the rules: each code point is
  NFKC-folded (fullwidth, mathematical and ligature letters become ASCII; decomposed so
  accents and combining marks drop), mapped to its prototype by the confusables of
  Unicode TR39 (the skeleton's table, from the `confusable-homoglyphs` package's copy of
  Unicode's confusables.txt: Cyrillic, Greek, Armenian, Cherokee, Latin ɑ/ɩ look-alikes)
  after casefolding (or, where only the capital has one, before it: К -> k), with a few
  letters TR39 leaves out (small capitals) from the rules file, and removed when it is
  invisible (format characters, zero-width, bidi controls, tags, fillers).
  `IG\u200bNORE`, `ｉｇｎｏｒｅ`, `іgnore` and `ɩgnore` all read `ignore`. Every
  Unicode line break (U+2028, U+2029, NEL, VT, FF) reads as a newline, so a fake
  `system:` turn after one starts a line. Folding one code point at a time keeps a map
  back to the raw text, so a finding's excerpt shows what was written, escaped.
- Rules in languages whose letters the skeleton would turn into Latin (Russian,
  Chinese, Hindi, Arabic...) see the `cased` text: NFKC, casefolded, invisible characters
  dropped, but no skeleton and accents kept.
- A name (no blanks, words joined by `-`, `_`, `/`, `.`: an entity address, a profile
  key) is scanned again with its joins read as spaces.
- Encoded segments are decoded and scanned too (`encoded.*` findings): a base64 or hex
  run that decodes to text, and the ROT13 of the whole text (override and role rules):
  an instruction an agent writes encoded is still an instruction.
- The invisible characters are findings in themselves (rules on the raw text), except
  where Unicode needs them: a zero-width joiner inside an emoji sequence, a joiner or
  non-joiner between letters of the scripts that use them (Arabic, Persian, Indic), the
  tag characters of a subdivision flag.
- A scan is a pure function of the text: deterministic, and it never raises on a `str`
  (lone surrogates and control characters included).
"""

from __future__ import annotations

import base64
import binascii
import functools
import importlib.resources
import re
import tomllib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

KINDS: tuple[str, ...] = (
    "invisible", "override", "role", "exfiltration", "markup", "encoded", "oversize",
)  # fmt: skip
MAX_SCAN_CHARS: int = 20_000
RULES_FILE = "injection_rules.toml"
EXCERPT_CHARS = 80

# How each kind reads in a `[BLOCKED: …]` label.
KIND_LABELS: dict[str, str] = {
    "invisible": "hidden characters",
    "override": "instruction override",
    "role": "role hijack",
    "exfiltration": "exfiltration",
    "markup": "HTML/script payload",
    "encoded": "encoded payload",
    "oversize": "oversize",
}

OVERSIZE_RULE = "oversize.size-cap"
_TARGETS = ("folded", "cased", "raw")
# Every Unicode line break reads as "\n" (a rule anchored at a line start sees them all).
_LINE_BREAKS = frozenset("\u2028\u2029\x85\x0b\x0c")
# Encoded segments worth decoding: base64 (standard or URL-safe) and hex of 12+ bytes.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,4000}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:(?:\\x|%)?[0-9A-Fa-f]{2}[ :]?){12,2000}")
# An identifier or an address (`areas/ignore-all-previous-instructions`): scanned again
# with its joins read as spaces, since names reach agents' prompts too.
_SLUG = re.compile(r"[^\s]{0,1000}[-_/.][^\s]{0,1000}")
_SLUG_JOINS = re.compile(r"[-_/.:]")
_ENCODED_SEGMENTS = 8  # decoded per text: the cost of a scan stays bounded
_ROT13_KINDS = frozenset({"override", "role"})
_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")
# Letters that look like nothing (Hangul fillers): dropped from the folded text.
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc"})
_CASED_DROPPED = frozenset({"Cf", "Cc"})  # the "cased" text keeps accents and vowel signs
_KEPT_CONTROLS = frozenset("\t\n\r")
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Scripts whose orthography needs ZWJ / ZWNJ between letters (Persian, the Indic scripts).
_JOINING_SCRIPTS = frozenset(
    {
        *("ARABIC", "SYRIAC", "NKO", "MANDAIC", "MONGOLIAN", "KHMER", "MYANMAR", "SINHALA"),
        *("DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU"),
        *("KANNADA", "MALAYALAM"),
    }
)
_ZWNJ, _ZWJ = "\u200c", "\u200d"
_BLACK_FLAG, _CANCEL_TAG = "\U0001f3f4", "\U000e007f"


@dataclass(frozen=True)
class Finding:
    """One reason a text is held back: which rule matched, why, and where (escaped)."""

    kind: str
    rule: str
    detail: str
    excerpt: str
    field: str | None = None  # where in a write it was found (`params.text`), when known


@dataclass(frozen=True)
class Rule:
    """One compiled rule of the data file."""

    id: str
    kind: str
    detail: str
    target: str
    regex: re.Pattern[str]


class RulesError(ValueError):
    """The rules data file is malformed (a packaging or editing mistake, never user input)."""


def scan(text: str, *, decode: bool = True) -> list[Finding]:
    """Every finding in `text`, in the order of KINDS then of the rules; [] means clean.
    `decode`: also decode its encoded segments and scan them (once: not theirs)."""
    head = text[:MAX_SCAN_CHARS]
    folded, origin = fold(head)
    cased: tuple[str, list[int] | None] | None = None
    findings: list[Finding] = []
    for rule in rules():
        if rule.target == "raw":
            finding = _raw_finding(rule, head)
        else:
            if rule.target == "cased" and cased is None:
                cased = fold(head, skeleton=False)
            seen, where = (folded, origin) if rule.target == "folded" else cased  # type: ignore[misc]
            match = rule.regex.search(seen)
            finding = None if match is None else _finding(rule, head, where, match)
        if finding is not None:
            findings.append(finding)
    if decode and not findings and _SLUG.fullmatch(head):  # a name: words-joined-like-this
        findings.extend(scan(_SLUG_JOINS.sub(" ", head), decode=False))
    if decode and not findings:
        findings.extend(_encoded(head, folded))
    if len(text) > MAX_SCAN_CHARS:
        detail = f"longer than {MAX_SCAN_CHARS:,} characters; only the start was scanned"
        findings.append(Finding("oversize", OVERSIZE_RULE, detail, escape(text[:EXCERPT_CHARS])))
    findings.sort(key=lambda f: KINDS.index(f.kind))  # stable: rule order within a kind
    return findings


def blocked_label(findings: Sequence[Finding]) -> str:
    """`[BLOCKED: instruction override — asks to ignore previous instructions]`: the kinds,
    in KINDS order, and the first finding's detail."""
    if not findings:
        raise ValueError("blocked_label needs at least one finding; a clean text is not blocked")
    kinds = sorted({f.kind for f in findings}, key=KINDS.index)
    return f"[BLOCKED: {', '.join(KIND_LABELS[k] for k in kinds)} — {findings[0].detail}]"


def shown_to_agents(text: str) -> str:
    """What an agent may read of a stored text: the text when clean, else its blocked label."""
    findings = scan(text)
    return blocked_label(findings) if findings else text


# ── encoded segments ─────────────────────────────────────────────────────────────


def _encoded(head: str, folded: str) -> list[Finding]:
    """Findings in what `head` hides encoded: its base64 and hex runs that decode to text,
    and its ROT13 (override and role rules only)."""
    found: list[Finding] = []
    segments = [(m, "base64") for m in _BASE64.finditer(head)]
    segments += [(m, "hex") for m in _HEX.finditer(head)]
    for match, how in segments[:_ENCODED_SEGMENTS]:
        decoded = _decoded(match.group(), how)
        if decoded is None:
            continue
        inner = scan(decoded, decode=False)
        if inner:
            detail = f"a {how} segment decodes to text that {inner[0].detail}"
            found.append(Finding("encoded", f"encoded.{how}", detail, escape(match.group())))
            break
    if not found and any("a" <= c <= "z" for c in folded):
        turned = folded.translate(_ROT13)
        for rule in rules():
            if rule.kind in _ROT13_KINDS and rule.target == "folded":
                hit = rule.regex.search(turned)
                if hit is not None:
                    detail = f"its ROT13 reads as text that {rule.detail}"
                    found.append(Finding("encoded", "encoded.rot13", detail, escape(head)))
                    break
    return found


def _decoded(segment: str, how: str) -> str | None:
    """`segment` decoded as `how`, when that gives text (mostly printable UTF-8), else None."""
    try:
        if how == "hex":
            digits = re.sub(r"\\x|%|[ :]", "", segment)
            data = bytes.fromhex(digits[: len(digits) // 2 * 2])
        else:
            body = segment.rstrip("=").replace("-", "+").replace("_", "/")
            data = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        text = data.decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    letters = sum(1 for c in text if c.isalpha())
    if len(text) < 8 or printable < 0.95 * len(text) or letters < 0.5 * len(text):
        return None
    return text


# ── folding ──────────────────────────────────────────────────────────────────────


def fold(text: str, *, skeleton: bool = True) -> tuple[str, list[int] | None]:
    """The text the rules see ("folded", or "cased" without `skeleton`), and for each of
    its characters the raw index.

    The map is None when the text is ASCII: folding is then `lower()` and indexes agree.
    """
    if text.isascii() and _ASCII_CONTROL.search(text) is None:
        return text.lower(), None
    pieces: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        piece = _fold_char(char, skeleton)
        if piece:
            pieces.append(piece)
            origin.extend([index] * len(piece))
    return "".join(pieces), origin


@functools.lru_cache(maxsize=8192)
def _fold_char(char: str, skeleton: bool = True) -> str:
    """One code point as the "folded" rules see it, or with no `skeleton` the "cased"
    ones: NFKC (accents and combining marks kept), casefolded, invisibles dropped."""
    if char in _FILLERS:
        return ""
    if char in _LINE_BREAKS:
        return "\n"
    dropped = _DROPPED_CATEGORIES if skeleton else _CASED_DROPPED
    prototypes = _homoglyphs() if skeleton else {}
    out = []
    for part in unicodedata.normalize("NFKD" if skeleton else "NFKC", char):
        if part not in _KEPT_CONTROLS and unicodedata.category(part) in dropped:
            continue
        low = part.casefold()
        mapped = "".join(prototypes.get(c, c) for c in low)
        if mapped == low and part != low:  # only the capital has a prototype (К -> K)
            mapped = prototypes.get(part, low)
        out.append(mapped.casefold())  # (Cherokee small letters fold to capitals)
    return "".join(out)


# ── findings and excerpts ────────────────────────────────────────────────────────


def _finding(rule: Rule, raw: str, origin: list[int] | None, match: re.Match[str]) -> Finding:
    start, end = match.span()
    if origin is not None:  # back to raw indexes (an empty match at the end maps past it)
        first = origin[start] if start < len(origin) else len(raw)
        start, end = first, origin[end - 1] + 1 if end > start else first
    return Finding(rule.kind, rule.id, rule.detail, escape(raw[start:end]))


def _raw_finding(rule: Rule, raw: str) -> Finding | None:
    """The first match of an invisible-character rule that Unicode does not need."""
    for match in rule.regex.finditer(raw):
        if not _needed(raw, match.start(), match.end()):
            start = max(0, match.start() - 24)
            return Finding(rule.kind, rule.id, rule.detail, escape(raw[start : match.end() + 24]))
    return None


def _needed(raw: str, start: int, end: int) -> bool:
    """Whether raw[start:end] is an invisible run that legitimate text requires."""
    before = raw[start - 1] if start > 0 else ""
    after = raw[end] if end < len(raw) else ""
    run = raw[start:end]
    if run == _ZWJ:
        return (_pictographic(before) and _pictographic(after)) or _joined_letters(before, after)
    if run == _ZWNJ:
        return _joined_letters(before, after)
    if run[0] >= "\U000e0000" and run[-1] == _CANCEL_TAG:  # a subdivision flag: 🏴 + tags + cancel
        return before == _BLACK_FLAG and 2 <= len(run) <= 8 and _CANCEL_TAG not in run[:-1]
    return False


def _pictographic(char: str) -> bool:
    """An emoji-like code point (or its presentation / skin-tone suffix) around a ZWJ."""
    if not char:
        return False
    code = ord(char)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2600 <= code <= 0x27BF
        or 0x2300 <= code <= 0x23FF
        or 0x2B00 <= code <= 0x2BFF
        or code in (0xFE0F, 0x2640, 0x2642, 0x2695, 0x2708, 0x2764)
    )


def _joined_letters(before: str, after: str) -> bool:
    return _joining_letter(before) and _joining_letter(after)


def _joining_letter(char: str) -> bool:
    if not char or unicodedata.category(char)[0] not in "LM":
        return False
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] in _JOINING_SCRIPTS


_SHOWN_CONTROLS = frozenset("\n\t")


def visible(text: str) -> str:
    """`text` for a person to read whole, with every invisible, bidi, control, line- or
    paragraph-separator, private-use, unassigned or lone-surrogate character shown as a
    mark such as ⟨U+202E⟩ (newlines and tabs kept): a terminal or a text view then shows
    what an agent wrote, never what its escapes or reorderings would make of it."""
    return "".join(
        f"⟨U+{ord(c):04X}⟩"
        if c not in _SHOWN_CONTROLS
        and unicodedata.category(c) in ("Cf", "Cc", "Co", "Cn", "Cs", "Zl", "Zp")
        else c
        for c in text
    )


def escape(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` safe to show: whitespace as one space, unprintable characters as \\u escapes,
    at most `limit` characters (an ellipsis marks a cut)."""
    pieces: list[str] = []
    size = 0
    for char in text:
        if char in "\n\r\t":
            piece = " "
        elif char.isprintable():
            piece = char
        else:
            code = ord(char)
            piece = f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
        if size + len(piece) > limit - 1:
            pieces.append("…")
            break
        pieces.append(piece)
        size += len(piece)
    return "".join(pieces)


# ── the rules file ───────────────────────────────────────────────────────────────


def rules() -> tuple[Rule, ...]:
    """The compiled rules, in file order (grouped by kind)."""
    return _load()[0]


def _homoglyphs() -> dict[str, str]:
    return _load()[1]


def confusables() -> dict[str, str]:
    """Each non-ASCII code point Unicode TR39 calls confusable with ASCII text, mapped to
    that text (its skeleton's prototype): read from the `confusable-homoglyphs` package's
    copy of Unicode's confusables.txt, a maintained source, not a table of ours."""
    import json

    source = importlib.resources.files("confusable_homoglyphs").joinpath("confusables.json")
    data = json.loads(source.read_text(encoding="utf-8"))
    table: dict[str, str] = {}
    for char, entries in data.items():
        if char.isascii():
            continue
        for entry in entries:
            text = entry["c"].strip("\u200e\u200f")
            if text and text.isascii() and text.strip() and len(text) <= 2:
                table[char] = text
                break
    return table


@functools.cache
def _load() -> tuple[tuple[Rule, ...], dict[str, str]]:
    source = importlib.resources.files("vault_app.core").joinpath("data", RULES_FILE)
    compiled, supplement = parse_rules(source.read_text(encoding="utf-8"))
    return compiled, {**confusables(), **supplement}


def parse_rules(document: str) -> tuple[tuple[Rule, ...], dict[str, str]]:
    """The rules and homoglyph table of a rules document; RulesError names what is wrong."""
    try:
        data = tomllib.loads(document)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{RULES_FILE}: {error}") from None
    fragments = _str_table(data, "fragments")
    homoglyphs = _str_table(data, "homoglyphs")
    if any(len(key) != 1 for key in homoglyphs):
        raise RulesError(f"{RULES_FILE}: [homoglyphs] keys must be single characters")
    entries = data.get("rule")
    if not isinstance(entries, list) or not entries:
        raise RulesError(f"{RULES_FILE}: no [[rule]] entries")
    compiled = tuple(_rule(entry, fragments) for entry in entries)
    ids = [rule.id for rule in compiled]
    if len(set(ids)) != len(ids):
        raise RulesError(f"{RULES_FILE}: duplicate rule ids")
    return compiled, homoglyphs


def _str_table(data: dict[str, Any], name: str) -> dict[str, str]:
    table = data.get(name, {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise RulesError(f"{RULES_FILE}: [{name}] must map names to strings")
    return table


def _rule(entry: Any, fragments: dict[str, str]) -> Rule:
    if not isinstance(entry, dict):
        raise RulesError(f"{RULES_FILE}: a [[rule]] is not a table")
    fields = {key: entry.get(key) for key in ("id", "kind", "detail", "pattern")}
    target = entry.get("target", "folded")
    missing = [key for key, value in fields.items() if not isinstance(value, str) or not value]
    if missing:
        raise RulesError(f"{RULES_FILE}: rule {entry.get('id')!r} lacks {', '.join(missing)}")
    rule_id, kind = str(fields["id"]), str(fields["kind"])
    if kind not in KINDS or kind == "oversize" or not rule_id.startswith(kind + "."):
        raise RulesError(f"{RULES_FILE}: rule {rule_id!r} has kind {kind!r}")
    if target not in _TARGETS:
        raise RulesError(f"{RULES_FILE}: rule {rule_id!r} has target {target!r}")
    pattern = str(fields["pattern"])
    for name, fragment in fragments.items():
        pattern = pattern.replace(f"«{name}»", fragment)
    if "«" in pattern:
        raise RulesError(f"{RULES_FILE}: rule {rule_id!r} uses an unknown «fragment»")
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise RulesError(f"{RULES_FILE}: rule {rule_id!r}: {error}") from None
    return Rule(rule_id, kind, str(fields["detail"]), target, regex)
