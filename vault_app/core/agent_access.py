"""What an agent may write and read: the one set of rules every agent write (and every
agent read through the MCP server) is checked against.

An agent writes its own workspace (`agents/<id>/workspace/...`), its own daily notes
and its own documents (TACIT.md, CONTEXT.md, ... in `agents/<id>/`). Global entities
and global daily notes are shared by every agent: only the agents listed in
`[agents] global_writers` of `.vault/config.toml` write them. Another agent's workspace,
daily notes and documents are never written, nor `global/AGENTS.md` (the principles,
which people write). A refusal is an `AccessDeniedError` naming the agent, the target
and the rule, so that the agent (or the person reading its log) knows what to change.

An agent reads global memory and its own workspace, never another agent's workspace
(`check_read`, `can_read`): the same scopes the context builder gives it. People (the
CLI, the window) read everything; this rule is for agents.

`chat_entity` says where a chat's memories go: the entity `[agents.chats]` maps the chat
to, else the agent's own `resources/chat-<id>` (a negative id spelled `chat-m<id>`),
else, with no chat, the agent's `resources/memories`.
"""

from __future__ import annotations

from vault_app.core import config, documents, errors, layout

_GLOBAL_RULE = "add it to [agents] global_writers in .vault/config.toml"


def check_entity(settings: config.VaultConfig, agent: str, ref: layout.EntityRef) -> None:
    """Refuse (`AccessDeniedError`) a write by `agent` to the entity `ref`."""
    if ref.agent is not None:
        if ref.agent == agent:
            return
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not write entity {ref} of agent {ref.agent!r}: "
            "an agent writes only its own workspace and the global entities it is allowed"
        )
    if agent not in settings.agents.global_writers:
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not write global entities (entity {ref}): {_GLOBAL_RULE}"
        )


def can_read(agent: str, ref: layout.EntityRef) -> bool:
    """Whether `agent` may read the entity `ref`: global, or its own workspace."""
    return ref.agent is None or ref.agent == agent


def check_read(agent: str, ref: layout.EntityRef) -> None:
    """Refuse (`AccessDeniedError`) a read by `agent` of another agent's entity `ref`."""
    if not can_read(agent, ref):
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not read {ref}: an agent reads global memory and its own "
            "workspace, not another agent's"
        )


def check_daily(settings: config.VaultConfig, agent: str, daily_agent: str | None) -> None:
    """Refuse a write by `agent` to the daily notes of `daily_agent` (None: global)."""
    if daily_agent == agent:
        return
    if daily_agent is not None:
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not write the daily notes of agent {daily_agent!r}: "
            "an agent writes only its own daily notes"
        )
    if agent not in settings.agents.global_writers:
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not write global daily notes: {_GLOBAL_RULE}"
        )


def check_document(agent: str, name: str, doc_agent: str | None) -> None:
    """Refuse a write by `agent` to the document `name` of `doc_agent` (None: global)."""
    if doc_agent is None or name == documents.PRINCIPLES:
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not write global/{name}: the principles are written by "
            "people; agents read them"
        )
    if doc_agent != agent:
        raise errors.AccessDeniedError(
            f"agent {agent!r} may not write {name} of agent {doc_agent!r}: an agent "
            "writes only its own documents"
        )
    if name not in documents.AGENT_DOCUMENTS:
        raise errors.InvalidIdError(
            f"unknown agent document {name!r}: use one of {', '.join(documents.AGENT_DOCUMENTS)}"
        )


def chat_entity(settings: config.VaultConfig, agent: str, chat_id: int | None) -> layout.EntityRef:
    """The entity where `agent`'s memories of chat `chat_id` go (see the module doc).

    The mapping is where they go, not a permission: writing a mapped global entity still
    needs the agent in global_writers (`check_entity`).
    """
    layout.validate_agent_id(agent)
    if chat_id is None:
        return layout.EntityRef(agent, "resources/memories")
    if isinstance(chat_id, bool) or not isinstance(chat_id, int):
        raise errors.InvalidIdError(f"chat id {chat_id!r} is not an integer")
    mapped = settings.agents.chats.get(str(chat_id))
    if mapped is not None:
        return layout.EntityRef.parse(mapped)
    spelled = f"m{-chat_id}" if chat_id < 0 else str(chat_id)
    return layout.EntityRef(agent, f"resources/chat-{spelled}")
