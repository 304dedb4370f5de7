"""No import cycle between our modules (imports for type checking included), and the
packages import each other one way only: ``evaluator``, ``leaderboards`` and
``protocol`` (the wire format) nothing of the others; the bot SDK, which loads the games,
is ``referee.sdk``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "protocol", "leaderboards", "evaluator")


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (by absolute import)."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                deps |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules
                         else node.module for a in node.names}
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(import_graph()) == []


def test_the_packages_import_each_other_one_way() -> None:
    uses: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for module, deps in import_graph().items():
        uses[module.split(".")[0]] |= {d.split(".")[0] for d in deps}
    assert uses["evaluator"] <= {"evaluator"}
    assert uses["leaderboards"] <= {"leaderboards"}
    assert uses["protocol"] <= {"protocol"}
    assert uses["referee"] <= {"referee", "protocol", "leaderboards", "evaluator"}
