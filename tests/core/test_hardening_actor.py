"""Who is an agent: one parser (`core.actors`) for every guard that treats agents apart.

`--actor finance` passed the principles guard (agents may read `global/AGENTS.md`, not
overwrite it) that `--actor agent:finance` met, because the guard tested
`actor.startswith("agent:")`. The only actor-dependent guard in vault_app is that one
(`Vault.write_document`); the audit log and the retraction note record the actor as given.

Variants thought of, and where each is covered (`test_parse_rules` unless said):

- `agent:finance`, `Agent:finance`, `AGENT : finance`, ` agent:finance ` -> agent finance;
- `finance`, `FINANCE`, ` finance` naming an existing agent -> that agent (and through
  the CLI: `test_cli_principles_guard`);
- `agent:ghost` (no such folder yet) -> still an agent: the prefix is a claim;
- `agent:`, `agent: `, `agent:../x`, an empty or blank actor -> refused when the vault
  is opened (`test_bad_actor_is_refused`, CLI included);
- `gui`, `cli`, `api`, `demo` (any case) -> the app's own faces, never an agent, even if
  an agent folder of that name was made by hand; creating an agent under one of these
  names is refused (`test_reserved_agent_names`);
- `jane`, `cli-script`, `financial` (not an agent's exact id) -> not an agent.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import cli_process
import pytest

from vault_app.core import actors, errors
from vault_app.core import vault as vault_module

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("actor", "agent"),
    [
        ("agent:finance", "finance"),
        ("Agent:finance", "finance"),
        ("AGENT : finance", "finance"),
        (" agent:finance ", "finance"),
        ("agent:Finance", "finance"),
        ("finance", "finance"),
        ("FINANCE", "finance"),
        (" finance", "finance"),
        ("agent:ghost", "ghost"),
        ("gui", None),
        ("CLI", None),
        ("api", None),
        ("demo", None),
        ("jane", None),
        ("cli-script", None),
        ("financial", None),
    ],
)
def test_parse_rules(actor: str, agent: str | None) -> None:
    parsed = actors.parse(actor, ["finance", "gui"])
    assert parsed.agent == agent and parsed.is_agent is (agent is not None)
    assert parsed.name == actor.strip()


@pytest.mark.parametrize("actor", ["agent:", "agent: ", "Agent :", "agent:../x", "", "  "])
def test_bad_actor_is_refused(tmp_path: Path, actor: str) -> None:
    vault_module.Vault.create(tmp_path / "v")
    with pytest.raises(errors.InvalidIdError):
        vault_module.Vault(tmp_path / "v", actor=actor)
    done = cli(tmp_path / "v", "--actor", actor, "principles", "show")
    assert done.returncode == 1 and done.stderr.startswith("vault-app: error: ")
    assert "Traceback" not in done.stderr


def test_reserved_agent_names(tmp_path: Path) -> None:
    v = vault_module.Vault.create(tmp_path / "v")
    for name in ("gui", "CLI", "api", "demo"):
        with pytest.raises(errors.InvalidIdError, match="reserved"):
            v.create_agent(name)
    # one made by hand stays an agent folder, but `gui` is still the window
    (v.paths.agents_dir / "gui").mkdir(parents=True)
    as_window = vault_module.Vault(v.root, actor="gui")
    assert as_window.acting_agent() is None
    as_window.write_document(
        "AGENTS.md", "# Principles\n\nBy the person.\n", expected=vault_module.Check.SKIP
    )
    with pytest.raises(errors.VaultError, match="principles"):
        vault_module.Vault(v.root, actor="agent:gui").write_document(
            "AGENTS.md", "# Mine\n", expected=vault_module.Check.SKIP
        )


@pytest.mark.parametrize(
    "actor", ["agent:finance", "finance", "Finance", " agent:finance", "Agent:finance"]
)
def test_library_principles_guard(tmp_path: Path, actor: str) -> None:
    v = vault_module.Vault.create(tmp_path / "v")
    v.create_agent("finance")
    before = v.paths.principles_file.read_bytes()
    with pytest.raises(errors.VaultError, match="agents may read it"):
        vault_module.Vault(v.root, actor=actor).write_document(
            "AGENTS.md", "# Principles\n\nAgents rule.\n", expected=vault_module.Check.SKIP
        )
    assert v.paths.principles_file.read_bytes() == before
    # an agent that is created later is that agent from then on, in an open vault
    later = vault_module.Vault(v.root, actor="payroll")
    later.write_document("AGENTS.md", "# Principles\n\nv2\n", expected=vault_module.Check.SKIP)
    v.create_agent("payroll")
    with pytest.raises(errors.VaultError, match="agents may read it"):
        later.write_document("AGENTS.md", "# Principles\n\nv3\n", expected=vault_module.Check.SKIP)


def cli(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return cli_process.run_cli(home, *argv, stdin=stdin, timeout=120)


@pytest.mark.parametrize("actor", ["finance", "agent:finance", "FINANCE"])
def test_cli_principles_guard(tmp_path: Path, actor: str) -> None:
    v = vault_module.Vault.create(tmp_path / "v")
    v.create_agent("finance")
    before = v.paths.principles_file.read_bytes()
    done = cli(
        v.root, "--actor", actor, "principles", "edit", "--file", "-", stdin="# Taken over\n"
    )
    assert done.returncode == 1, done.stdout
    assert "agents may read it, not overwrite it" in done.stderr
    assert v.paths.principles_file.read_bytes() == before
    person = cli(v.root, "--actor", "jane", "principles", "edit", "--file", "-", stdin="# Jane's\n")
    assert person.returncode == 0, person.stderr
    assert v.paths.principles_file.read_text() == "# Jane's\n"
