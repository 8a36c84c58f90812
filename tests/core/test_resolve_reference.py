"""`layout.resolve_reference`: the one rule naming an entity from a relatedEntities id,
used on disk by `Vault.resolve_reference` and on the last scan by the fact dialog.

Variants: the id as it is; an agent's bare id (its own workspace first, then global; a
`global:` prefix skips the agent's); an archived entity followed into archives/; an id
naming nothing; an id that does not parse; the order in which candidates are tried.
"""

from __future__ import annotations

from vault_app.core import layout


def _resolve(reference: str, agent: str | None, known: set[str]) -> str | None:
    tried: list[str] = []

    def exists(ref: layout.EntityRef) -> bool:
        tried.append(str(ref))
        return str(ref) in known

    found = layout.resolve_reference(reference, agent, exists)
    return None if found is None else str(found)


def test_the_id_as_it_is() -> None:
    assert _resolve("areas/people/jane", None, {"areas/people/jane"}) == "areas/people/jane"


def test_an_agents_bare_id_prefers_its_own_workspace() -> None:
    both = {"agent:fin:projects/x", "projects/x"}
    assert _resolve("projects/x", "fin", both) == "agent:fin:projects/x"
    assert _resolve("projects/x", "fin", {"projects/x"}) == "projects/x"
    assert _resolve("global:projects/x", "fin", both) == "projects/x"


def test_an_archived_entity_is_followed() -> None:
    assert _resolve("projects/roof", None, {"archives/roof"}) == "archives/roof"
    assert _resolve("projects/x", "fin", {"agent:fin:archives/x"}) == "agent:fin:archives/x"


def test_nothing_found_or_not_an_id() -> None:
    assert _resolve("projects/nobody", None, {"projects/x"}) is None
    assert _resolve("../etc", None, {"../etc"}) is None


def test_candidates_are_tried_own_then_global_then_their_archives() -> None:
    tried: list[str] = []

    def exists(ref: layout.EntityRef) -> bool:
        tried.append(str(ref))
        return False

    assert layout.resolve_reference("projects/x", "fin", exists) is None
    assert tried == [
        "agent:fin:projects/x",
        "projects/x",
        "agent:fin:archives/x",
        "archives/x",
    ]
