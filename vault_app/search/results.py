"""What a search returns: hits with the parts of their score, and the result of a query.

`Hit.parts` holds the score's parts (`bm25`, `semantic`, and with `explain` their ranks,
normalised values, the hybrid weight and the query coverage); `SearchResult` says which
mode ran, why it fell back, which query words the vault has never seen (`unknown`) and
how many candidates fell under the relevance floor (`below_floor`, see `relevance`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Hit:
    key: str
    kind: str
    scope: str
    text: str
    score: float
    parts: dict[str, float | int | None]
    path: str
    entity: str | None = None
    fact_id: str | None = None
    tier: str | None = None
    status: str | None = None
    category: str | None = None
    agent: str | None = None
    source: str | None = None
    date: dt.date | None = None
    # where a neighbour's entry is (format, structure, agent, file, index, target / tier /
    # key / date: `sources`); None for a vault's documents, whose key and path say it
    origin: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data = {
            "kind": self.kind,
            "scope": self.scope,
            "entity": self.entity,
            "id": self.fact_id,
            "key": self.key,
            "text": self.text,
            "score": round(self.score, 6),
            "parts": self.parts,
            "tier": self.tier,
            "status": self.status,
            "category": self.category,
            "agentId": self.agent,
            "source": self.source,
            "date": self.date.isoformat() if self.date else None,
            "path": str(self.path),
        }
        if self.origin is not None:
            data["origin"] = self.origin
        return data


@dataclass
class SearchResult:
    hits: list[Hit]
    mode: str  # the mode actually used
    notice: str | None = None  # e.g. why semantic search fell back to BM25
    seconds: float = 0.0
    unknown: list[str] = field(default_factory=list)  # query words no document holds
    below_floor: int = 0  # candidates left out by the relevance floor


@dataclass
class OpenReport:
    loaded: bool  # a persisted index was used
    reindexed_sources: int
    removed_sources: int
    documents: int
    seconds: float
    notice: str | None = None


def explain_text(parts: dict[str, Any]) -> str:
    """The parts of a score on one line, as `search --explain` prints them:
    `bm25 6.438, bm25Rank 1, semantic 0.344, ...` (parts without a value left out)."""
    return ", ".join(
        f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
        for k, v in parts.items()
        if v is not None
    )
