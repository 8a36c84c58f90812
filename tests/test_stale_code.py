"""No dead methods in the headless packages, no docstring naming a method that does not
exist (issue 12, "Defects found while trying it": `EmbeddingCache.forget` was never
called; the ui package's docstring sent readers to `Vault.retract_fact`, which is not
there).

Variants thought of, and where they are covered (all here, by reading the sources):

- a method of a class in vault_app/core, search or watch that nothing in the package, the
  tests, the benchmarks or the scripts names (`test_every_headless_method_is_used`);
  decorated methods (validators, properties) and the hooks a framework calls by name
  (`forward` for torch, `dispatch` for watchdog) are not dead code;
- a backticked dotted name in any docstring or comment of the package that starts at a
  subpackage or `vault_app` (`core.vault.Vault.set_fact_status`): it must import and
  resolve attribute by attribute (`test_dotted_names_in_docstrings_exist`); names of
  other libraries (`rank_bm25.BM25Okapi`) are not checked;
- not covered: undotted names (`load_encoder()`) and prose; a scan of those found only
  other libraries' names (rank_bm25's `get_scores`), so no check pins them.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "vault_app"
HEADLESS = ("core", "search", "watch", "heartbeat", "workspace")
FRAMEWORK_HOOKS = {"forward", "dispatch"}  # torch.nn.Module, watchdog's event handler


def _sources(*folders: Path) -> list[Path]:
    return sorted(p for folder in folders for p in folder.rglob("*.py"))


def test_every_headless_method_is_used() -> None:
    named: set[str] = set()
    everywhere = [PACKAGE, REPO / "tests", REPO / "benchmarks", REPO / "scripts"]
    for path in _sources(*everywhere):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                named.add(node.attr)
            elif isinstance(node, ast.Name):
                named.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                named.add(node.value)  # getattr(obj, "name"), signal names
    unused = []
    for path in _sources(*(PACKAGE / name for name in HEADLESS)):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not item.name.startswith("__")
                    and not item.decorator_list
                    and item.name not in FRAMEWORK_HOOKS
                    and item.name not in named
                ):
                    where = path.relative_to(REPO)
                    unused.append(f"{where}:{item.lineno} {node.name}.{item.name}")
    assert not unused, "methods nothing calls:\n" + "\n".join(unused)


_DOTTED = re.compile(r"`((?:vault_app|core|search|watch|ui)(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`")


def _resolve(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[0] != "vault_app":
        parts.insert(0, "vault_app")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_dotted_names_in_docstrings_exist() -> None:
    missing = []
    for path in _sources(PACKAGE):
        text = path.read_text(encoding="utf-8")
        for match in _DOTTED.finditer(text):
            if not _resolve(match.group(1)):
                line = text.count("\n", 0, match.start()) + 1
                missing.append(f"{path.relative_to(REPO)}:{line} {match.group(1)}")
    assert not missing, "docstrings name what does not exist:\n" + "\n".join(missing)
