"""How the engine's two rankings become one: the floors that keep noise out, and the
hybrid's blend (see `engine`'s docstring for the whole).

Each mode keeps what its floor allows (`relevance`): BM25 a hit holding enough of the
query's weight, semantic a cosine of at least `min_cosine`. Hybrid takes both rankings'
candidates, scores each in both (a candidate one ranking did not return is scored by
it here), scales BM25 by its maximum and the cosine min-max over the candidates, and
blends them `w * bm25 + (1 - w) * semantic`: `w` is the engine's `bm25_weight` (0.2),
halved for a query naming someone (`intent.NAMED_BM25`: its lexical match is then mostly
the name), and `LEXICAL_BM25` when one candidate holds most of the query's words
(`LEXICAL_COVER`). A daily entry then gains from the entries beside it in its note
(`replies`): a turn of a conversation is often answered, or asked, by the next one. A fact
that cites the entries it was taken from gains from how well they answer (`origins`,
`ORIGIN`). A candidate holding two of the query's words side by side gains from it
(`proximity`). `intent`'s bonus for the names and days the query speaks of is added last.
Ties go by key, so a ranking is the same on every run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vault_app.search import intent, origins, proximity, relevance

if TYPE_CHECKING:
    from vault_app.search.engine import SearchEngine

Ranked = tuple[str, float, dict[str, float | int | None]]  # key, score, parts

# a query whose words one document holds (its best BM25 candidate covers this share of
# the query's weight, `relevance.Coverage`) is answered in those words: BM25 then weighs
# `LEXICAL_BM25` in the hybrid, whatever names the query has. Chosen on LoCoMo's
# development half and held to our own sets (benchmarks/search_quality.py): facts hit@1
# 0.583 -> 0.599, turns hit@1 0.366 -> 0.413, hit@5 0.667 -> 0.687; our conversation set
# facts 0.619 -> 0.613, turns 0.441 -> 0.437 (hit@5 unchanged), held out turns 0.579 ->
# 0.592. A cover of 0.5 or a weight of 0.5 and more lose more than 0.01 on our sets.
LEXICAL_COVER = 0.6
LEXICAL_BM25 = 0.4
# a daily entry whose neighbour in its note (the entry just before or after it) matches the
# query better than it does gains this share of the difference, its blended scores without
# the names' and days' bonus (`replies`). In a conversation the words of a question are
# often in the turn before the answer ("Any good ones you'd recommend?" / "I just watched
# Little Women!") or after it. Chosen on LoCoMo's development half: turns hit@1 0.412 ->
# 0.419, hit@5 0.685 -> 0.728, hit@10 0.768 -> 0.815, MRR 0.527 -> 0.549 (0.3: hit@5 0.711;
# 0.7: 0.728 with our sets losing more); our conversation set, whose neighbouring turns are
# unrelated by construction, turns hit@5 0.775 -> 0.767, held out unchanged (0.875).
# Tried and left out: the previous turn's words in an entry's BM25 text (hit@5 0.706 but
# hit@1 0.365), the neighbour's whole score instead of its excess (hit@1 falls), the turn
# before only (hit@5 0.718), neighbours brought in as candidates when neither ranking
# returned them (+0.002).
NEIGHBOUR = 0.5
# a fact that cites the entries it was taken from (`origins`: the heartbeat's entry, or turn
# ids in its `source`) gains this share of the best of their scores as the turns' ranking
# gives them (blended, with their neighbours' gain and the names' and days' bonus): a
# question is often asked in the words of the turn a fact came from, which the fact's
# rewording lost. Chosen on LoCoMo's development half, whose facts cite their turns:
# facts hit@5 0.805 -> 0.853, hit@10 0.864 -> 0.897, MRR 0.686 -> 0.698, hit@1 0.604 ->
# 0.599 (0.3: 0.607 / 0.837; 0.45: 0.604 / 0.846; 0.8: 0.596 / 0.851). Tried and left out:
# the entries' own blended score only (0.590 / 0.846), without their bonus (0.596 / 0.854),
# only what they score above the fact (0.602 / 0.829), times the fact's score (0.605 /
# 0.838).
ORIGIN = 0.5


def fuse(
    engine: SearchEngine,
    asked: tuple[str, str, list[str]],  # the query, its meaning (`intent`), its names
    tokens: list[str],
    mode: str,
    found: tuple[list[tuple[str, float]], list[tuple[str, float]]],  # lexical, semantic
    limit: int,
    cover: relevance.Coverage,
    explain: bool = False,
    scope: str | frozenset[str] | None = None,  # the scopes the query may read
) -> tuple[list[Ranked], int]:
    """The ranked hits with their parts, and how many fell under the floor (a hybrid
    hit's coverage is worked out for `explain` only where the floor did not need it)."""
    query, meaning, names = asked
    lexical, semantic = found
    if mode == "bm25":
        shares = {k: cover.of(k) for k, _ in lexical}
        kept = [(k, s) for k, s in lexical if relevance.keeps_bm25(engine.floor, shares[k])]
        ranked: list[Ranked] = [
            (k, s, {"bm25": s, "bm25Rank": i + 1, "coverage": shares[k]})
            for i, (k, s) in enumerate(kept[:limit])
        ]
        return ranked, len(lexical) - len(kept)
    floor = engine.min_cosine
    if mode == "semantic":
        kept = [(k, s) for k, s in semantic if s >= floor]
        ranked = [
            (k, s, {"semantic": s, "semanticRank": i + 1}) for i, (k, s) in enumerate(kept[:limit])
        ]
        return ranked, len(semantic) - len(kept)
    lex = dict(lexical)
    sem = dict(semantic)
    union = list(dict.fromkeys([*lex, *sem]))
    cited = origins.linked(engine, union, scope)  # facts' entries: scored, never returned
    sources = _with_beside(engine, cited, set(union)) if cited else []
    missing = [k for k in [*union, *sources] if k not in sem]
    if missing and (vectors := engine.semantic) is not None:
        at = np.array([engine.columns.row[k] for k in missing], dtype=np.int64)
        scored_now = vectors.scores_of(meaning, at, engine.columns.size).tolist()
        sem.update(zip(missing, scored_now, strict=True))
    missing_lex = [k for k in [*union, *sources] if k not in lex]
    if missing_lex and tokens:
        scores = engine.bm25.scores(tokens)
        for key in missing_lex:
            slot = engine.bm25.find(key)
            lex[key] = float(scores[slot]) if slot >= 0 else 0.0
    top_lex = max(lex.values(), default=0.0)
    sem_values = [sem[k] for k in union if k in sem]
    lo, hi = (min(sem_values), max(sem_values)) if sem_values else (0.0, 0.0)
    lex_rank = {k: i + 1 for i, (k, _) in enumerate(lexical)}
    sem_rank = {k: i + 1 for i, (k, _) in enumerate(semantic)}
    w = engine.bm25_weight * (intent.NAMED_BM25 if names else 1.0)
    if lexical and relevance.coverages(cover, [lexical[0][0]])[0] >= LEXICAL_COVER:
        w = LEXICAL_BM25  # the query's own words are in a document: trust them more
    passed: list[tuple[str, float, float, float, float, float]] = []  # key and its parts
    below = 0
    # the coverage decides only below the cosine floor (worked out for all of those at
    # once); else only for the hits returned, when explained
    needed = [
        k for k in union if lex.get(k, 0.0) > 0.0 and sem.get(k, lo) < engine.floor.min_cosine
    ]
    shares = dict(zip(needed, relevance.coverages(cover, needed), strict=True))
    boost = intent.boosts(engine, query, names, [*union, *sources])  # names, days it speaks of
    blended: dict[str, float] = {}
    for key in union:
        b = lex.get(key, 0.0)
        s = sem.get(key, lo)
        share = shares.get(key, -1.0)
        if key not in boost.named and not relevance.keeps_hybrid(engine.floor, s, share):
            below += 1  # no query term and a cosine of noise, or too little of both
            continue
        nb = b / top_lex if top_lex > 0 else 0.0
        ns = (s - lo) / (hi - lo) if hi > lo else (1.0 if sem_values else 0.0)
        blended[key] = w * nb + (1 - w) * ns
        passed.append((key, b, nb, s, ns, share))
    gain = replies(blended)

    def turn(entry: str) -> float:  # an entry as the turns' ranking would score it
        own = _blend(w, lex.get(entry, 0.0), top_lex, sem.get(entry, lo), lo, hi)
        near = [
            _blend(w, lex.get(k, 0.0), top_lex, sem.get(k, lo), lo, hi)
            for k in _beside(entry)
            if k in sem
        ]
        gained = NEIGHBOUR * max(max(near, default=0.0) - own, 0.0)
        return own + gained + boost.bonus.get(entry, 0.0)

    came = {  # a fact's gain from the entries it was taken from
        key: ORIGIN * max(turn(e) for e in entries)
        for key, entries in cited.items()
        if key in blended
    }
    add = boost.bonus
    total = {k: blended[k] + gain.get(k, 0.0) + came.get(k, 0.0) + add.get(k, 0.0) for k in blended}
    near = proximity.bonuses(engine, tokens, total, limit)  # its words side by side
    scored = sorted(  # best first, ties by key
        (-(total[k] + near.get(k, 0.0)), k, b, nb, s, ns, c) for k, b, nb, s, ns, c in passed
    )
    ranked = [  # the parts only for what is returned
        (
            key,
            -negated,
            {
                "bm25": b,
                "bm25Norm": nb,
                "bm25Rank": lex_rank.get(key),
                "semantic": s,
                "semanticNorm": ns,
                "semanticRank": sem_rank.get(key),
                "bm25Weight": w,
                "boost": boost.bonus.get(key, 0.0),
                "neighbour": gain.get(key, 0.0),
                "origin": came.get(key, 0.0),
                "phrase": near.get(key, 0.0),
                "coverage": share if share >= 0.0 or not explain else cover.of(key),
            },
        )
        for negated, key, b, nb, s, ns, share in scored[:limit]
    ]
    return ranked, below


def _blend(w: float, b: float, top_lex: float, s: float, lo: float, hi: float) -> float:
    """A document's blended score on the candidates' scales, clipped to them (a fact's
    entry need not be a candidate)."""
    nb = min(b / top_lex, 1.0) if top_lex > 0 else 0.0
    ns = min(max((s - lo) / (hi - lo), 0.0), 1.0) if hi > lo else float(s >= hi)
    return w * nb + (1 - w) * ns


def _beside(key: str) -> tuple[str, ...]:
    """The keys of the entries just before and after a daily entry in its note
    (`daily:<scope>:<date>:<index>` ± 1); none for another kind of key."""
    if not key.startswith("daily:"):
        return ()
    note, _, index = key.rpartition(":")
    try:
        at = int(index)
    except ValueError:
        return ()
    return f"{note}:{at - 1}", f"{note}:{at + 1}"


def _with_beside(engine: SearchEngine, cited: dict[str, list[str]], union: set[str]) -> list[str]:
    """The entries facts cite and the live ones beside them, those not candidates already."""
    row, live = engine.columns.row, engine.columns.live
    entries = dict.fromkeys(e for es in cited.values() for e in es)
    near = (k for e in entries for k in _beside(e) if k in row and live[row[k]])
    return [k for k in dict.fromkeys([*entries, *near]) if k not in union]


def replies(blended: dict[str, float]) -> dict[str, float]:
    """The gain of each daily entry among the candidates (only those with one) from its
    neighbours in its note: `NEIGHBOUR` times how much the better of the entries just before
    and after it (`_beside`, when a candidate too) scored above it."""
    gain: dict[str, float] = {}
    for key, own in blended.items():
        if not key.startswith("daily:"):
            continue  # (most candidates: a fact's search has no entry among them)
        near = max((blended.get(k, 0.0) for k in _beside(key)), default=0.0)
        if near > own:
            gain[key] = NEIGHBOUR * (near - own)
    return gain
