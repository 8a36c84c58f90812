"""Related entities as the forms type them: the addresses and titles the last scan
knows, what a relatedEntities id names among them, and what is wrong with typed ones.

No disk access: every lookup is over the session's last scan.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from vault_app.core import errors, layout
from vault_app.ui.session import Session


def known_addresses(session: Session) -> list[str]:
    """Every entity address of the session's last scan, sorted."""
    if session.known is None:
        return []
    return sorted(entity.address for entity in session.known.entities)


def resolve_related(reference: str, agent: str | None, known: Collection[str]) -> str | None:
    """The address a relatedEntities id names among `known` (`layout.resolve_reference`).

    No disk access: `known` comes from the last scan.
    """
    found = layout.resolve_reference(reference, agent, lambda ref: str(ref) in known)
    return None if found is None else str(found)


def split_related(text: str) -> list[str]:
    """The comma-separated items of the related-entities field, in order, without repeats."""
    items = [part.strip() for part in text.split(",")]
    return list(dict.fromkeys(item for item in items if item))


def entity_titles(session: Session) -> list[tuple[str, str]]:
    """(address, title) of every entity of the session's last scan: what the related
    entities field completes."""
    return [
        (address, layout.EntityRef.parse(address).title) for address in known_addresses(session)
    ]


def related_problems(
    items: Iterable[str], agent: str | None, known: Collection[str], kept: Collection[str] = ()
) -> dict[str, str]:
    """Every item that names no entity: item → why, in order. `kept` (already on the
    fact) are not the user's to fix here; with no scan yet (`known` empty) only the
    form of an address is checked."""
    found: dict[str, str] = {}
    for item in items:
        if item in kept:
            continue
        try:
            layout.EntityRef.parse(item)
        except errors.InvalidIdError:
            found[item] = "not an entity address"
            continue
        if known and resolve_related(item, agent, known) is None:
            found[item] = "no such entity in this vault"
    return found


def problems_text(problems: dict[str, str]) -> str:
    """All of them at once, in plain words, for the line under the field."""
    malformed = [f"“{item}”" for item, why in problems.items() if why == "not an entity address"]
    missing = [f"“{item}”" for item, why in problems.items() if why != "not an entity address"]
    parts = []
    if malformed:
        parts.append(
            f"{', '.join(malformed)} {'is' if len(malformed) == 1 else 'are'} not an entity "
            "address (addresses look like areas/people/jane or agent:finance:projects/budget)."
        )
    if missing:
        parts.append(f"There is no entity {', '.join(missing)} in this vault: type [[ to pick one.")
    return " ".join(parts)
