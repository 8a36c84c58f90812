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
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import errors, formats, layout, safe_fs, storage

if TYPE_CHECKING:
    from vault_app.core.vault import Vault

TOKENS_NAME = "agent-tokens.json"
PREFIX = "vat_"
_MAX_BYTES = 1 << 20


def issue(vault: Vault, agent: str) -> str:
    """A new token for `agent` (replacing any it had); returned once, stored as a hash."""
    _check_person(vault, "issue")
    layout.validate_agent_id(agent)
    if not vault.paths.agent_dir(agent).is_dir():
        raise errors.NotFoundError(f"no agent {agent!r} in {vault.root}: create it first")
    token = PREFIX + secrets.token_urlsafe(32)
    entry = {"sha256": _hash(token), "issued": formats.iso(vault.now())}
    path = tokens_path(vault.root)
    with vault.storage.transaction(path) as tx:
        table = _decode(path, tx.data)
        table[agent] = entry
        tx.commit(_encode(table), "token.issue", agent=agent)
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
        tx.commit(_encode(table), "token.revoke", agent=agent)
    return True


def verify(root: Path, token: str) -> str | None:
    """The agent whose current token `token` is, or None (unknown, revoked, malformed)."""
    if not isinstance(token, str) or not token.startswith(PREFIX):
        return None
    path = tokens_path(root)
    safe_fs.check_tree(root, path, safe_fs.STATE_READ)
    table = _decode(path, safe_fs.read_file(path, _MAX_BYTES))
    presented = _hash(token)
    found = None
    for agent, entry in table.items():  # every entry compared: no early exit
        if hmac.compare_digest(presented, entry["sha256"]) and found is None:
            found = agent
    return found


def agents_with_tokens(root: Path) -> dict[str, str]:
    """Each agent that has a token -> when it was issued (ISO)."""
    path = tokens_path(root)
    safe_fs.check_tree(root, path, safe_fs.STATE_READ)
    table = _decode(path, safe_fs.read_file(path, _MAX_BYTES))
    return {agent: str(entry.get("issued", "")) for agent, entry in table.items()}


def tokens_path(root: Path) -> Path:
    return Path(root) / layout.STATE_DIR / TOKENS_NAME


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _decode(path: Path, data: bytes | None) -> dict[str, dict[str, Any]]:
    if not data:
        return {}
    try:
        raw = json.loads(storage.decode_text(path, data))
        agents = raw["agents"]
        if not isinstance(agents, dict):
            raise TypeError("agents is not an object")
        for agent, entry in agents.items():
            layout.validate_agent_id(agent)
            if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
                raise TypeError(f"agent {agent!r} has no sha256")
    except (ValueError, KeyError, TypeError, errors.InvalidIdError) as exc:
        raise errors.CorruptFileError(
            path, f"not a token table ({exc}); fix or remove it, then issue tokens again"
        ) from None
    return agents


def _encode(table: dict[str, dict[str, Any]]) -> bytes:
    data = {"version": 1, "agents": dict(sorted(table.items()))}
    return json.dumps(data, indent=2).encode("utf-8") + b"\n"


def _check_person(vault: Vault, verb: str) -> None:
    agent = vault.acting_agent()
    if agent is not None:
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not {verb} tokens: a person does (vault-app agent token)"
        )
