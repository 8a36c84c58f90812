"""The three faces over one workspace give the same answer: the CLI, an MCP client and
the window, for the same search and for the same write.

Each face runs on its own copy of one demo vault (a write in one must not be seen by
the others), through its real entry point: `vault-app` in process, the official MCP
SDK's in-process client, and the window's search dock and session driven by pytest-qt.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from pytestqt.qtbot import QtBot

from vault_app import cli
from vault_app.core import demo, vault
from vault_app.mcp import server
from vault_app.ui import session as session_module
from vault_app.ui.pages import search_panel
from vault_app.ui.widgets import search_results
from vault_app.workspace.vault_workspace import VaultWorkspace

AGENT = "finance"
QUERIES = ("plumber", "roof inspection", "insurance premium")
ENTITY = "areas/home-maintenance"
TEXT = "The kitchen tap was replaced with a pull-down mixer in November"


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "v"
    demo.create_demo(root)
    return root


def copy(original: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(original, target)
    return target


def cli_json(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> Any:
    code = cli.main(["--vault", str(root), *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def mcp_call(root: Path, name: str, args: dict[str, Any]) -> Any:
    served = VaultWorkspace(root, semantic=False, watch=False)

    async def go() -> Any:
        async with Client(server.build_server(served, lambda ctx: AGENT)) as client:
            result = await client.call_tool(name, args)
            assert not result.is_error, result.content
            return result.structured_content

    try:
        return asyncio.run(go())
    finally:
        served.close()


def window_search(qtbot: QtBot, root: Path, query: str) -> list[str]:
    """What the search dock lists for `query` in BM25, as keys in order."""
    session = session_module.Session(vault.Vault(root))
    try:
        session.rescan()
        panel = search_panel.SearchPanel(session)
        qtbot.addWidget(panel)
        with qtbot.waitSignal(session.searchReady, timeout=60_000):
            session.open_search(semantic=False)
        panel.query_edit.clear()
        qtbot.keyClicks(panel.query_edit, query)
        qtbot.waitUntil(panel.idle, timeout=30_000)
        return [row.hit.key for row in panel.model.rows()]
    finally:
        session.close()


def test_a_persons_search_is_the_same_in_the_cli_and_the_window(
    qtbot: QtBot, capsys: pytest.CaptureFixture[str], original: Path, tmp_path: Path
) -> None:
    root = copy(original, tmp_path, "v")
    limit = str(search_results.LIMIT)
    for query in QUERIES:
        printed = cli_json(capsys, root, "search", query, "--mode", "bm25", "--limit", limit)
        shown = window_search(qtbot, root, query)
        assert shown, query
        assert [h["key"] for h in printed["hits"]] == shown, query


def test_an_agents_search_is_the_same_in_the_cli_and_over_mcp(
    capsys: pytest.CaptureFixture[str], original: Path, tmp_path: Path
) -> None:
    """Same hits, same scopes (what the access policy lets the agent read), and the same
    facts counted as accessed, each on its own copy."""
    by_cli, by_mcp = copy(original, tmp_path, "cli"), copy(original, tmp_path, "mcp")
    for query in QUERIES:
        printed = cli_json(
            capsys, by_cli, "search", query, "--mode", "bm25", "--agent", AGENT, "--limit", "20"
        )
        answered = mcp_call(by_mcp, "search", {"query": query, "mode": "bm25", "limit": 20})
        assert printed["hits"], query
        assert [h["key"] for h in printed["hits"]] == [h["key"] for h in answered["hits"]]
        assert {h["scope"] for h in printed["hits"]} <= {"global", f"agent:{AGENT}"}
        assert len(printed["markedAccessed"]) == answered["marked_accessed"]
    assert access_counts(by_cli) == access_counts(by_mcp) != access_counts(original)


def access_counts(root: Path) -> dict[str, int]:
    v = vault.Vault(root)
    return {f.id: f.access_count for ref in v.entity_refs() for f in v.entity(ref).facts}


def test_the_same_write_lands_the_same_from_every_face(
    qtbot: QtBot, capsys: pytest.CaptureFixture[str], original: Path, tmp_path: Path
) -> None:
    """One fact added by the CLI, by an agent over MCP and in the window: the same fact
    (text, category, entity, status) in each copy, found first by each face's search."""
    roots = {face: copy(original, tmp_path, face) for face in ("cli", "mcp", "window")}
    cli_json(capsys, roots["cli"], "fact", "add", ENTITY, "--text", TEXT, "--category", "milestone")
    mcp_call(roots["mcp"], "add_fact", {"entity": ENTITY, "text": TEXT, "category": "milestone"})
    session = session_module.Session(vault.Vault(roots["window"]))
    with qtbot.waitSignal(session.entityChanged, timeout=30_000):
        session.write(lambda v: v.add_fact(ENTITY, TEXT, "milestone"), entities=(ENTITY,))
    session.close()

    def added(root: Path) -> tuple[str, str, str, list[str]]:
        (fact,) = [f for f in vault.Vault(root).entity(ENTITY).facts if f.fact == TEXT]
        return fact.fact, fact.category.value, fact.status.value, fact.related_entities

    assert added(roots["cli"]) == added(roots["mcp"]) == added(roots["window"])
    firsts = set()
    for face, root in roots.items():
        printed = cli_json(capsys, root, "search", "pull-down mixer", "--mode", "bm25")
        answered = mcp_call(root, "search", {"query": "pull-down mixer", "mode": "bm25"})
        shown = window_search(qtbot, root, "pull-down mixer")
        assert printed["hits"][0]["text"] == answered["hits"][0]["text"] == TEXT, face
        assert shown[0] == printed["hits"][0]["key"] == answered["hits"][0]["key"], face
        firsts.add(printed["hits"][0]["text"])
    assert firsts == {TEXT}
