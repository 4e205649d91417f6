"""The engine's own layout: its modules import one another without a circle (lazy imports inside functions
included), and docs/architecture.md names exactly the modules there are."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"


def _engine_imports(path: Path) -> set[str]:
    """The engine modules a module imports, at any depth, except under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for child in node.body
        for n in ast.walk(child)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "engine":
            found.update(a.name for a in node.names if (ENGINE / f"{a.name}.py").exists())
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("engine."))
    return found - {path.stem}


def _graph() -> dict[str, set[str]]:
    return {p.stem: _engine_imports(p) for p in sorted(ENGINE.glob("*.py")) if p.stem != "__init__"}


def test_engine_modules_import_each_other_without_a_circle() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            circle = [*path[path.index(module) :], module]
            raise AssertionError("import circle: " + " -> ".join(circle))
        if module in done:
            return
        for nxt in sorted(graph.get(module, ())):
            visit(nxt, [*path, module])
        done.add(module)

    for module in graph:
        visit(module, [])


def test_architecture_doc_names_the_engine_modules_there_are() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`engine/(\w+)\.py`", text))
    modules = {p.stem for p in ENGINE.glob("*.py")} - {"__init__"}
    assert named - modules == set(), "docs/architecture.md names modules that do not exist"
    assert modules - named == set(), "engine modules docs/architecture.md does not mention"
