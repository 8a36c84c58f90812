"""The injection scan (placeholder of branch `agentcore`; the real module is helper
"inject"'s and replaces this one on merge): what in an agent's text could steer the
agents that read it.

Two honest rules only, with the interface of issue 13: an instruction override
("ignore (all) previous/prior instructions", case-insensitive) and invisible characters
(zero-width space, joiners, bidi controls). `scan` never raises on a `str`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

KINDS: tuple[str, ...] = ("invisible", "override")
KIND_LABELS = {"invisible": "hidden characters", "override": "instruction override"}
_OVERRIDE = re.compile(
    r"\b(ignore|disregard)\s+(all\s+)?(the\s+)?(previous|prior|above)\s+instructions", re.I
)
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


@dataclass(frozen=True)
class Finding:
    """One reason a text is held back: which rule matched, why, and where (escaped)."""

    kind: str
    rule: str
    detail: str
    excerpt: str


def scan(text: str) -> list[Finding]:
    """Every finding in `text`; [] means clean."""
    findings = []
    hidden = _INVISIBLE.search(text)
    if hidden:
        findings.append(
            Finding(
                "invisible",
                "invisible.zero-width",
                "holds invisible characters",
                ascii(text[max(0, hidden.start() - 20) : hidden.end() + 20]),
            )
        )
    override = _OVERRIDE.search(text)
    if override:
        findings.append(
            Finding(
                "override",
                "override.ignore-previous",
                "asks to ignore previous instructions",
                override.group(0),
            )
        )
    return findings


def blocked_label(findings: Sequence[Finding]) -> str:
    if not findings:
        raise ValueError("blocked_label needs at least one finding; a clean text is not blocked")
    kinds = sorted({f.kind for f in findings}, key=KINDS.index)
    return f"[BLOCKED: {', '.join(KIND_LABELS[k] for k in kinds)} — {findings[0].detail}]"


def shown_to_agents(text: str) -> str:
    findings = scan(text)
    return blocked_label(findings) if findings else text
