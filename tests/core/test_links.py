"""The link index: both directions of relatedEntities, kept current one entity at a time,
and the neighbourhood graph with its deterministic layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vault_app.core import links, vault

JANE = "areas/people/jane"
ACME = "areas/companies/acme"
ROOF = "projects/roof"


@pytest.fixture
def v(tmp_path: Path) -> vault.Vault:
    v = vault.Vault.create(tmp_path / "v")
    for address in (JANE, ACME, ROOF):
        v.create_entity(address)
    v.add_fact(JANE, "Jane buys from Acme", "relationship", related=[ACME])
    v.add_fact(ROOF, "Jane fixes the roof with Acme pipes", "context", related=[JANE, ACME])
    return v


def addresses(found: list[links.Link]) -> list[str]:
    return [f"{link.source}->{link.target}" for link in found]


def test_both_directions_with_the_facts_that_link(v: vault.Vault) -> None:
    index = v.link_index()
    assert addresses(index.links_from(ROOF)) == [f"{ROOF}->{ACME}", f"{ROOF}->{JANE}"]
    assert addresses(index.backlinks(ACME)) == [f"{JANE}->{ACME}", f"{ROOF}->{ACME}"]
    (link,) = index.backlinks(JANE)
    assert link.source == ROOF and len(link.fact_ids) == 1
    assert index.neighbours(JANE) == [ACME, ROOF]
    assert index.link_count() == 3
    # the facade's on-demand answer agrees
    assert v.related(ACME)["incoming"] == [JANE, ROOF]


def test_superseded_facts_do_not_link_and_a_replace_follows_an_edit(v: vault.Vault) -> None:
    index = v.link_index()
    fact = next(f for f in v.entity(JANE).facts if f.related_entities)
    v.supersede_fact(fact.id, "Jane buys from the roof people", related=[ROOF])
    index.replace(v.entity_links(JANE))  # type: ignore[arg-type]
    assert addresses(index.links_from(JANE)) == [f"{JANE}->{ROOF}"]
    assert addresses(index.backlinks(ACME)) == [f"{ROOF}->{ACME}"]  # the old link is history
    assert index.backlinks(ROOF)[0].source == JANE


def test_unknown_names_wait_and_resolve_when_the_entity_comes(v: vault.Vault) -> None:
    v.add_fact(JANE, "Jane met Bob", "relationship", related=["areas/people/bob"])
    index = v.link_index()
    assert list(index.unresolved(JANE)) == ["areas/people/bob"]
    v.create_entity("areas/people/bob")
    bob = v.entity_links("areas/people/bob")
    assert bob is not None
    index.replace(bob)  # new to the index: every reference resolved again
    assert index.backlinks("areas/people/bob")[0].source == JANE
    assert index.unresolved(JANE) == {}


def test_archived_entities_are_followed_and_removed_ones_unlinked(v: vault.Vault) -> None:
    moved = v.archive_entity(ACME)
    index = v.link_index()
    assert [link.target for link in index.links_from(JANE)] == [str(moved)]
    # the facade's on-demand answer follows the same rule
    assert v.related(moved)["incoming"] == [JANE, ROOF]
    assert [link.source for link in index.backlinks(str(moved))] == [JANE, ROOF]
    fresh = links.LinkIndex(index.addresses - {JANE}, index.written())  # Jane is gone
    assert fresh.backlinks(str(moved)) == [
        links.Link(ROOF, str(moved), fresh.backlinks(str(moved))[0].fact_ids)
    ]
    index.remove(str(moved))
    assert index.links_from(JANE) == [] and list(index.unresolved(JANE)) == [ACME]


def test_an_agents_bare_id_names_its_own_entity_first(v: vault.Vault) -> None:
    v.create_agent("fin")
    v.create_entity("agent:fin:projects/roof")
    v.add_fact(
        "agent:fin:projects/roof", "Roof budget", "context", related=[ROOF, f"global:{ROOF}"]
    )
    index = v.link_index()
    # own first; global: skips it (a link to itself is no link)
    assert [link.target for link in index.links_from("agent:fin:projects/roof")] == [ROOF]
    assert v.related(ROOF)["incoming"] == ["agent:fin:projects/roof"]


def test_odd_files_link_nowhere_without_failing(v: vault.Vault) -> None:
    folder = v.paths.life_dir / "resources" / "odd"
    folder.mkdir()
    (folder / "items.json").write_text(json.dumps({"items": [
        {"id": "x1", "fact": "wrapped", "category": "context", "relatedEntities": [JANE]},
        {"id": "x2", "fact": "old", "category": "context", "status": "historical",
         "relatedEntities": [ACME]},
        {"id": "x3", "fact": "odd", "category": "context", "relatedEntities": [7, None, ""]},
        "not an object",
    ]}))  # fmt: skip
    broken = v.paths.life_dir / "resources" / "broken"
    broken.mkdir()
    (broken / "items.json").write_text("[{")
    index = v.link_index()
    assert [link.target for link in index.links_from("resources/odd")] == [JANE]
    assert index.links_from("resources/broken") == []


def test_neighbourhood_depth_and_cap(tmp_path: Path) -> None:
    v = vault.Vault.create(tmp_path / "v")
    hub = "projects/hub"
    v.create_entity(hub)
    spokes = [f"areas/people/p{i:02}" for i in range(12)]
    for address in spokes:
        v.create_entity(address)
        v.add_fact(address, "knows the hub", "relationship", related=[hub])
    v.create_entity("resources/far")
    v.add_fact("resources/far", "knows p00", "relationship", related=[spokes[0]])
    index = v.link_index()
    one = index.neighbourhood(hub, depth=1)
    assert one.nodes[0] == hub and set(one.nodes[1:]) == set(spokes)
    assert one.more == {spokes[0]: 1}  # p00 has a neighbour left out at depth 1
    two = index.neighbourhood(hub, depth=2)
    assert two.depth["resources/far"] == 2 and two.more == {}
    capped = index.neighbourhood(hub, depth=2, limit=5)
    assert len(capped.nodes) == 5 and capped.total == 14 and capped.hidden == 9
    assert capped.more[hub] == 8
    assert all(a in capped.depth and b in capped.depth for a, b in capped.edges)
    with pytest.raises(ValueError):
        index.neighbourhood(hub, depth=-1)


def test_layout_is_deterministic_and_rings_by_depth(v: vault.Vault) -> None:
    index = v.link_index()
    graph = index.neighbourhood(JANE, depth=2)
    placed = links.radial_layout(graph)
    assert placed == links.radial_layout(index.neighbourhood(JANE, depth=2))
    assert placed[JANE] == (0.0, 0.0)
    radius = {a: round((x * x + y * y) ** 0.5) for a, (x, y) in placed.items()}
    assert radius[ACME] == radius[ROOF] == round(links.RING)
    whole = index.whole()
    assert sorted(links.radial_layout(whole)) == sorted(index.addresses)
    assert len(set(links.radial_layout(whole).values())) == len(index.addresses)


def test_whole_vault_is_refused_above_the_limit(v: vault.Vault) -> None:
    index = v.link_index()
    with pytest.raises(links.TooLargeError, match="whole-vault graph is drawn for up to 2"):
        index.whole(limit=2)


VARIANTS = Path(__file__).resolve().parents[1] / "fixtures" / "variants"


@pytest.mark.parametrize(
    "variant", sorted(p.name for p in VARIANTS.iterdir() if p.is_dir()), ids=str
)
def test_every_file_variant_links_as_its_full_decode_says(variant: str) -> None:
    from vault_app.core import formats, layout

    (path,) = [p for p in (VARIANTS / variant).iterdir() if p.suffix == ".json"]
    data = path.read_bytes()
    facts, _ = formats.decode(path, data).facts()
    expected = [(f.id, name) for f in facts if f.is_active for name in f.related_entities]
    ref = layout.EntityRef.parse("projects/variant")
    assert list(links.entity_links(ref, path, data).references) == expected
