"""Each MCP tool is one module at module level: `tools/<group>/<name>.py` declares one
`Tool` named after the module, and the group's list carries every module."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from vault_app.core.neighbours import detect
from vault_app.mcp import tools
from vault_app.mcp.tools import folder, vault


def _declared(package: str) -> dict[str, tools.Tool]:
    found = {}
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        declared = [v for v in vars(module).values() if isinstance(v, tools.Tool)]
        own = [t for t in declared if t.fn.__module__ == module.__name__]
        assert len(own) == 1, f"{module.__name__} declares {len(own)} tools, not one"
        assert own[0].name == info.name, f"{module.__name__} declares {own[0].name}"
        found[info.name] = own[0]
    return found


def test_a_vault_lists_every_tool_module_once() -> None:
    declared = _declared("vault_app.mcp.tools.vault")
    listed = [t.name for t in vault.tools()]
    assert sorted(listed) == sorted(declared)
    assert len(listed) == len(set(listed))


def test_every_folder_tool_module_serves_some_format() -> None:
    declared = _declared("vault_app.mcp.tools.folder")
    served = {
        t.name
        for fmt in (detect.HERMES, detect.PICOCLAW, detect.MICROCLAW)
        for t in folder.tools(fmt)
    }
    assert served == set(declared)


@pytest.mark.parametrize("fmt", [detect.HERMES, detect.PICOCLAW, detect.MICROCLAW])
def test_a_folder_search_names_its_format(fmt: str) -> None:
    (search,) = [t for t in folder.tools(fmt) if t.name == "search"]
    assert detect.NAMES[fmt] in search.description and "{folder}" not in search.description
