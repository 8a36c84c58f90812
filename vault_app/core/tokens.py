"""Bearer tokens of agents for the HTTP server: issued once, stored only as hashes.

`.vault/agent-tokens.json` maps each agent to the sha256 of its current token (and when
it was issued); the token itself is shown once, to the person who issued it, and is
never stored, logged or audited. Issuing again rotates (the old token stops working);
`revoke` removes an agent's entry. The file is written through the vault's storage
(lock, atomic replace, no symlink followed; the audit line says `token.issue` /
`token.revoke` and the agent, never the token). `verify` hashes the presented token and
compares it with every stored hash in constant time (`hmac.compare_digest`), so the
time it takes does not tell how much of a guess was right.

Tokens are issued by people: a vault acting as an agent may not issue or revoke one.

A neighbour's folder (a Hermes home...) keeps its table in vault-app's state folder for
it, never in the folder (`core.neighbours.agents`): a `Table` says where a table lives
and which agent ids it may name, and `verify` reads either.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import access, errors, formats, layout, safe_fs, storage

if TYPE_CHECKING:
    from vault_app.core.vault import Vault

TOKENS_NAME = "agent-tokens.json"
PREFIX = "vat_"
_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class Table:
    """Where an agent-token table lives: `path`, below the trusted folder `root` (no
    symlink between them is followed), naming agents that `check_agent` accepts."""

    root: Path
    path: Path
    check_agent: Callable[[str], object] = layout.validate_agent_id


def table_of(root: Path | Table) -> Table:
    """The table of the PARA vault at `root` (`.vault/agent-tokens.json`), or `root`
    itself when it is a `Table` already."""
    if isinstance(root, Table):
        return root
    return Table(Path(root), tokens_path(root))


def new_token() -> tuple[str, str]:
    """A new token and its stored hash."""
    token = PREFIX + secrets.token_urlsafe(32)
    return token, _hash(token)


def issue(vault: Vault, agent: str) -> str:
    """A new token for `agent` (replacing any it had); returned once, stored as a hash."""
    _check_person(vault, "issue")
    layout.validate_agent_id(agent)
    if not vault.paths.agent_dir(agent).is_dir():
        raise errors.NotFoundError(f"no agent {agent!r} in {vault.root}: create it first")
    token, digest = new_token()
    entry = {"sha256": digest, "issued": formats.iso(vault.now())}
    path = tokens_path(vault.root)
    with vault.storage.transaction(path) as tx:
        table = _decode(path, tx.data)
        table[agent] = entry
        tx.commit(encode(table), "token.issue", agent=agent)
    return token


def revoke(vault: Vault, agent: str) -> bool:
    """Forget `agent`'s token; False when it had none."""
    _check_person(vault, "revoke")
    path = tokens_path(vault.root)
    with vault.storage.transaction(path) as tx:
        table = _decode(path, tx.data)
        if agent not in table:
            return False
        del table[agent]
        tx.commit(encode(table), "token.revoke", agent=agent)
    return True


def verify(root: Path | Table, token: str) -> str | None:
    """The agent whose current token `token` is, or None (unknown, revoked, malformed);
    `root` is a PARA vault's folder or a `Table`."""
    if not isinstance(token, str) or not token.startswith(PREFIX):
        return None
    where = table_of(root)
    table = read_table(where)
    presented = _hash(token)
    found = None
    for agent, entry in table.items():  # every entry compared: no early exit
        if hmac.compare_digest(presented, entry["sha256"]) and found is None:
            found = agent
    return found


def read_table(where: Table) -> dict[str, dict[str, Any]]:
    """The table at `where`: agent -> {"sha256", "issued"} (empty when absent)."""
    safe_fs.check_tree(where.root, where.path, safe_fs.STATE_READ)
    return decode(where.path, safe_fs.read_file(where.path, _MAX_BYTES), where.check_agent)


def agents_with_tokens(root: Path) -> dict[str, str]:
    """Each agent that has a token -> when it was issued (ISO)."""
    table = read_table(table_of(root))
    return {agent: str(entry.get("issued", "")) for agent, entry in table.items()}


def tokens_path(root: Path) -> Path:
    return Path(root) / layout.STATE_DIR / TOKENS_NAME


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _decode(path: Path, data: bytes | None) -> dict[str, dict[str, Any]]:
    return decode(path, data, layout.validate_agent_id)


def decode(
    path: Path, data: bytes | None, check_agent: Callable[[str], object]
) -> dict[str, dict[str, Any]]:
    """A token table's bytes read (agents named as `check_agent` accepts), or
    `CorruptFileError`."""
    if not data:
        return {}
    try:
        raw = json.loads(storage.decode_text(path, data))
        agents = raw["agents"]
        if not isinstance(agents, dict):
            raise TypeError("agents is not an object")
        for agent, entry in agents.items():
            check_agent(agent)
            if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
                raise TypeError(f"agent {agent!r} has no sha256")
    except (ValueError, KeyError, TypeError, errors.InvalidIdError) as exc:
        raise errors.CorruptFileError(
            path, f"not a token table ({exc}); fix or remove it, then issue tokens again"
        ) from None
    return agents


def encode(table: dict[str, dict[str, Any]]) -> bytes:
    data = {"version": 1, "agents": dict(sorted(table.items()))}
    return json.dumps(data, indent=2).encode("utf-8") + b"\n"


def _check_person(vault: Vault, verb: str) -> None:
    if not access.deciding(vault.principal).allowed:
        raise errors.AccessDeniedError(
            f"{vault.principal.name} may not {verb} tokens: a person does (vault-app agent token)"
        )
