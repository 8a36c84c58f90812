"""The permission matrix's search and context rows (`tests/mcp/test_mcp_permission_matrix`)
answered the same by the CLI, for an agent named by `--actor agent:ID`: its own memory and
the global one, another agent's only when granted, and a context of its own and the global
memory whatever it was granted. One table, two faces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.mcp.test_mcp_permission_matrix import ENTITY, TABLE, TEXT, WHO, base
from vault_app import cli

__all__ = ["base"]  # the MCP matrix's vault, made once for this module too

KINDS = tuple(ENTITY)
SEARCH_SCOPE = {"own": "agent:{agent}", "global": "global", "other": "agent:security"}


def run(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = cli.main(["--vault", str(root), *argv])
    out, err = capsys.readouterr()
    return code, out if code == 0 else err


@pytest.fixture
def home(base: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "v"
    shutil.copytree(base, copy)
    return copy


def test_the_cli_answers_the_matrix_search_and_context_rows(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    wrong = []
    for column, agent in enumerate(WHO):
        for kind in KINDS:
            scope = SEARCH_SCOPE[kind].format(agent=agent)
            code, out = run(
                capsys, home, "--actor", f"agent:{agent}", "search", "code keeps notes",
                "--mode", "bm25", "--scope", scope, "--json",
            )  # fmt: skip
            got = "no" if code != 0 else "ok"
            if got != TABLE[("search", kind)][column]:
                wrong.append(f"search {kind} as {agent}: {got} ({out.strip()[:120]})")
            code, out = run(
                capsys, home, "--actor", f"agent:{agent}", "context", "--query",
                TEXT[kind].format(agent=agent), "--bm25", "--no-access", "--json",
            )  # fmt: skip
            assert code == 0, out
            text = json.dumps(json.loads(out)["blocks"])
            got = "ok" if TEXT[kind].format(agent=agent) in text else "none"
            if got != TABLE[("context", kind)][column]:
                wrong.append(f"context {kind} as {agent}: {got}")
    assert not wrong, "\n".join(wrong)
