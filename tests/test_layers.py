"""Who may import whom: the layers of docs/architecture.md, checked on every module.

    core    the vault logic; imports nothing else of vault_app
    search  core
    watch   core
    heartbeat core, search (the memory growing by itself: extraction, routing, dedup, the
            schedule and its lease)
    workspace core, search, watch, heartbeat (the open vault or folder the faces share: the
            engine's life, search-and-mark, re-indexing, arguments; no Qt)
    cli     core, search, watch, heartbeat, workspace, mcp (`vault-app mcp` and `serve` run
            the MCP server; and the window, which `vault-app app` starts)
    ui      core, search, watch, heartbeat, workspace (the app runs the schedule when nothing
            else does)
    mcp     core, search, watch, workspace (the agents' face)

A face never imports another face's internals (the window does not import the CLI, the CLI
imports only `vault_app.ui.app`, to start the window). Imports are read from the source,
relative ones resolved, including those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vault_app"

ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "search": {"core", "search"},
    "watch": {"core", "watch"},
    "heartbeat": {"core", "search", "heartbeat"},
    "workspace": {"core", "search", "watch", "heartbeat", "workspace"},
    "cli": {"core", "search", "watch", "heartbeat", "workspace", "cli", "mcp", "ui.app"},
    "ui": {"core", "search", "watch", "heartbeat", "workspace", "ui"},
    "mcp": {"core", "search", "watch", "workspace", "mcp"},
}
TOP_LEVEL = {"__init__", "__main__"}  # the package's own entry points: anything


def layer_of(module: str) -> str:
    """`vault_app.search.engine` → "search"; `vault_app.cli` (a module or package) → "cli"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def vault_app_imports(source: Path, root: Path = PACKAGE.parent) -> list[tuple[int, str]]:
    """Every `vault_app.*` module this file imports, as absolute dotted names."""
    rel = source.relative_to(root).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package; for an __init__, the package itself
    tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("vault_app")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("vault_app"):
                continue
            if module == "vault_app":  # `from vault_app import core, __version__`
                found += [(node.lineno, f"vault_app.{a.name}") for a in node.names]
            else:
                found += [(node.lineno, f"{module}.{a.name}") for a in node.names]
    return found


def allowed(layer: str, target: str) -> bool:
    rest = target.split(".", 1)[1] if "." in target else ""
    if rest == "__version__" or rest.split(".")[0] in TOP_LEVEL:
        return True
    return any(rest == ok or rest.startswith(ok + ".") for ok in ALLOWED[layer])


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("source", sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_its_own_and_lower_layers(source: Path) -> None:
    module = ".".join(source.relative_to(PACKAGE.parent).with_suffix("").parts)
    layer = layer_of(module)
    if layer in TOP_LEVEL:
        return
    assert layer in ALLOWED, f"{module}: a new layer; add it to ALLOWED and to the docs"
    wrong = [
        f"{source.name}:{n}: {t}" for n, t in vault_app_imports(source) if not allowed(layer, t)
    ]
    assert not wrong, f"{layer} may import only {sorted(ALLOWED[layer])}:\n" + "\n".join(wrong)


def test_the_checker_resolves_relative_and_package_imports(tmp_path: Path) -> None:
    """The rule must be able to fail: a core module importing search, three spellings."""
    fake = tmp_path / "vault_app" / "core" / "probe.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(
        "from vault_app.search import engine\nfrom ..search import bm25\n"
        "def f():\n    import vault_app.ui.app\n",
        encoding="utf-8",
    )
    found = [t for _, t in vault_app_imports(fake, root=tmp_path)]
    assert found == ["vault_app.search.engine", "vault_app.search.bm25", "vault_app.ui.app"]
    assert not any(allowed("core", t) for t in found)
    assert allowed("cli", "vault_app.ui.app") and not allowed("cli", "vault_app.ui.models")
    assert allowed("mcp", "vault_app.workspace.arguments")
    assert not allowed("workspace", "vault_app.mcp.server")
    assert not allowed("workspace", "vault_app.ui.session")


def test_no_module_is_longer_than_one_person_holds() -> None:
    """Issue 12: no Python module over 700 lines (data files, not Python, aside)."""
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 700
    }
    assert not long, f"split these by concern: {long}"
