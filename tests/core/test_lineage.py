"""`models.walk_lineage`: the one walk of a fact's versions, used by `Vault.fact_history`,
the facts table's lineage tooltip, the entity pane's history and the fact dialog's
"changed on disk" check.

Variants: a clean chain walked from its middle (both directions), one direction only,
a version the finder does not have (before and after), a finder that raises (the error
ends the walk), and a cycle of links (the walk ends instead of looping).
"""

from __future__ import annotations

import pytest

from vault_app.core import errors, models


def _fact(fid: str, *, supersedes: str | None = None, by: str | None = None) -> models.Fact:
    status = models.FactStatus.SUPERSEDED if by else models.FactStatus.ACTIVE
    return models.Fact(
        id=fid,
        fact=f"text {fid}",
        category=models.FactCategory.STATUS,
        supersedes=supersedes,
        superseded_by=by,
        status=status,
    )


A = _fact("a", by="b")
B = _fact("b", supersedes="a", by="c")
C = _fact("c", supersedes="b")
BY_ID = {f.id: f for f in (A, B, C)}


def test_walks_both_ways_from_the_middle_oldest_first() -> None:
    walk = models.walk_lineage(B, BY_ID.get)
    assert [f.id for f in walk.chain] == ["a", "b", "c"]
    assert walk.complete


def test_one_direction_only() -> None:
    assert [f.id for f in models.walk_lineage(B, BY_ID.get, older=False).chain] == ["b", "c"]
    assert [f.id for f in models.walk_lineage(B, BY_ID.get, newer=False).chain] == ["a", "b"]


def test_a_missing_version_ends_the_walk_and_is_named() -> None:
    walk = models.walk_lineage(B, {"b": B}.get)
    assert [f.id for f in walk.chain] == ["b"]
    assert (walk.missing_before, walk.missing_after) == ("a", "c")
    assert not walk.complete


def test_a_finder_that_raises_ends_the_walk_with_its_error() -> None:
    def find(fid: str) -> models.Fact:
        raise errors.NotFoundError(f"no fact with id {fid}")

    with pytest.raises(errors.NotFoundError):
        models.walk_lineage(C, find)


def test_a_cycle_of_links_ends() -> None:
    x = _fact("x", supersedes="y", by="y")
    y = _fact("y", supersedes="x", by="x")
    walk = models.walk_lineage(x, {"x": x, "y": y}.get)
    assert sorted(f.id for f in walk.chain) == ["x", "y"]
    assert len(walk.chain) == 2
