"""What an agent may write (issue 13): the permission matrix of `agent_access`, the
`[agents]` settings that feed it, and the stable numbers of fact ids."""

from __future__ import annotations

import hashlib

import pytest

from vault_app.core import agent_access, config, errors, layout, numeric_ids
from vault_app.core import vault as vault_module

WRITERS = config.VaultConfig.model_validate({"agents": {"global_writers": ["household"]}})
NOBODY = config.VaultConfig()
OWN = layout.EntityRef("finance", "areas/budget")
OTHER = layout.EntityRef("household", "areas/kitchen")
GLOBAL = layout.EntityRef(None, "areas/family")


def allowed(check: object) -> bool:
    try:
        check()  # type: ignore[operator]
    except errors.AccessDeniedError:
        return False
    return True


MATRIX = [
    # (what, agent, check, allowed)
    ("own workspace", "finance", lambda s, a: agent_access.check_entity(s, a, OWN), True),
    ("other workspace", "finance", lambda s, a: agent_access.check_entity(s, a, OTHER), False),
    (
        "global entity, no writers",
        None,
        lambda s, a: agent_access.check_entity(s, a, GLOBAL),
        False,
    ),
    ("own daily", "finance", lambda s, a: agent_access.check_daily(s, a, "finance"), True),
    ("other daily", "finance", lambda s, a: agent_access.check_daily(s, a, "household"), False),
    ("own TACIT.md", "finance", lambda s, a: agent_access.check_document(a, "TACIT.md", a), True),
    (
        "own CONTEXT.md",
        "finance",
        lambda s, a: agent_access.check_document(a, "CONTEXT.md", a),
        True,
    ),
    (
        "other TACIT.md",
        "finance",
        lambda s, a: agent_access.check_document(a, "TACIT.md", "household"),
        False,
    ),
    (
        "global AGENTS.md",
        "household",
        lambda s, a: agent_access.check_document(a, "AGENTS.md", None),
        False,
    ),
]


@pytest.mark.parametrize(("what", "agent", "check", "expected"), MATRIX, ids=[m[0] for m in MATRIX])
def test_the_permission_matrix(what: str, agent: str | None, check: object, expected: bool) -> None:
    settings = NOBODY if agent is None else WRITERS
    who = agent or "household"
    assert allowed(lambda: check(settings, who)) is expected  # type: ignore[operator]


def test_global_writes_need_global_writers() -> None:
    assert allowed(lambda: agent_access.check_entity(WRITERS, "household", GLOBAL))
    assert not allowed(lambda: agent_access.check_entity(WRITERS, "finance", GLOBAL))
    assert allowed(lambda: agent_access.check_daily(WRITERS, "household", None))
    assert not allowed(lambda: agent_access.check_daily(WRITERS, "finance", None))
    assert not allowed(lambda: agent_access.check_daily(NOBODY, "household", None))
    # a global writer still never writes another agent's workspace, daily notes, documents
    assert not allowed(lambda: agent_access.check_entity(WRITERS, "household", OWN))
    assert not allowed(lambda: agent_access.check_daily(WRITERS, "household", "finance"))
    assert not allowed(lambda: agent_access.check_document("household", "TACIT.md", "finance"))


def test_the_refusal_names_agent_target_and_rule() -> None:
    with pytest.raises(errors.AccessDeniedError) as caught:
        agent_access.check_entity(NOBODY, "finance", GLOBAL)
    message = str(caught.value)
    assert "'finance'" in message and "areas/family" in message
    assert "[agents] global_writers in .vault/config.toml" in message
    with pytest.raises(
        errors.AccessDeniedError, match=r"'finance'.*agent:household:areas/kitchen.*'household'"
    ):
        agent_access.check_entity(NOBODY, "finance", OTHER)
    with pytest.raises(errors.AccessDeniedError, match=r"global/AGENTS\.md"):
        agent_access.check_document("finance", "AGENTS.md", None)


def test_an_unknown_document_is_an_invalid_id() -> None:
    with pytest.raises(errors.InvalidIdError, match=r"NOTES\.md"):
        agent_access.check_document("finance", "NOTES.md", "finance")


def test_chat_entity_mapping_and_defaults() -> None:
    settings = config.VaultConfig.model_validate(
        {
            "agents": {
                "chats": {"-1001234": "areas/family", "42": "agent:household:resources/kitchen"}
            }
        }
    )
    assert agent_access.chat_entity(settings, "household", -1001234) == GLOBAL
    assert str(agent_access.chat_entity(settings, "finance", 42)) == (
        "agent:household:resources/kitchen"
    )
    assert str(agent_access.chat_entity(settings, "finance", 7)) == "agent:finance:resources/chat-7"
    assert str(agent_access.chat_entity(settings, "finance", -55)) == (
        "agent:finance:resources/chat-m55"
    )
    assert str(agent_access.chat_entity(settings, "finance", None)) == (
        "agent:finance:resources/memories"
    )
    with pytest.raises(errors.InvalidIdError):
        agent_access.chat_entity(settings, "finance", True)


@pytest.mark.parametrize(
    ("agents", "where"),
    [
        ({"global_writers": ["../x"]}, "agents.global_writers"),
        ({"chats": {"family": "areas/family"}}, "agents.chats"),
        ({"chats": {"1": "nowhere/x"}}, "agents.chats"),
        ({"chats": {"1": "agent:../x:areas/y"}}, "agents.chats"),
        ({"writers": []}, "agents.writers"),
    ],
)
def test_bad_agents_settings_are_refused_precisely(
    vault: vault_module.Vault, agents: dict[str, object], where: str
) -> None:
    import tomlkit

    path = vault.paths.state_dir / config.CONFIG_NAME
    path.write_text(tomlkit.dumps({"agents": agents}), encoding="utf-8")
    with pytest.raises(errors.CorruptFileError) as caught:
        config.VaultConfig.load(vault.root)
    assert caught.value.location == where


def test_agents_settings_save_and_load(vault: vault_module.Vault) -> None:
    settings = config.VaultConfig.load(vault.root)
    assert settings.agents == config.AgentsSettings()
    settings.agents.global_writers = ["household"]
    settings.agents.chats = {"-1001234": "areas/family", "42": "agent:household:resources/x"}
    settings.save(vault.storage)
    assert config.VaultConfig.load(vault.root) == settings
    settings.agents.chats = {"42": "agent:household:resources/x"}  # a chat unmapped
    settings.save(vault.storage)
    loaded = config.VaultConfig.load(vault.root)
    assert loaded.agents.chats == {"42": "agent:household:resources/x"}
    text = (vault.paths.state_dir / config.CONFIG_NAME).read_text("utf-8")
    assert "# vault-app settings" in text and "[search]" in text


def test_a_file_without_agents_does_not_grow_an_empty_section(vault: vault_module.Vault) -> None:
    path = vault.paths.state_dir / config.CONFIG_NAME
    path.write_text("[search]\nsemantic = false  # mine\n", encoding="utf-8")
    settings = config.VaultConfig.load(vault.root)
    settings.save(vault.storage)
    assert "[agents]" not in path.read_text("utf-8")


def test_fact_number_is_stable_positive_int64() -> None:
    fid = "fact-0123456789abcdef0123456789abcdef"
    expected = int.from_bytes(hashlib.sha256(fid.encode()).digest()[:8], "big") & (2**63 - 1)
    assert numeric_ids.fact_number(fid) == expected
    numbers = {numeric_ids.fact_number(f"fact-{i:032x}") for i in range(5000)}
    assert len(numbers) == 5000
    assert all(0 < n < 2**63 for n in numbers)


@pytest.mark.parametrize(
    ("agent", "address", "readable"),
    [
        ("finance", "areas/people/jane", True),  # global memory
        ("finance", "agent:finance:projects/budget", True),  # its own workspace
        ("finance", "agent:security:areas/incidents", False),  # another agent's
        ("security", "agent:finance:projects/budget", False),
    ],
)
def test_an_agent_reads_global_memory_and_its_own_workspace(
    agent: str, address: str, readable: bool
) -> None:
    ref = layout.EntityRef.parse(address)
    assert agent_access.can_read(agent, ref) is readable
    if readable:
        agent_access.check_read(agent, ref)
        return
    with pytest.raises(errors.AccessDeniedError) as refused:
        agent_access.check_read(agent, ref)
    assert str(refused.value) == (
        f"agent {agent!r} may not read {address}: an agent reads global memory and its own "
        "workspace, not another agent's"
    )
