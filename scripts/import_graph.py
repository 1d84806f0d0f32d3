"""The import graph of parsing/, actions/ and server/, drawn by package (docs/import-graph.md).

Reads every module's imports with `ast` (imports under `if TYPE_CHECKING:` count), folds the
modules into the packages a reader thinks in (`actions.files`, `server.turns`...; a package's
own top-level modules form one node), and writes a Mermaid drawing with one arrow per pair of
packages (labelled with how many module imports it stands for), followed by any arrow that
goes back up a cycle. `tests/unit/test_layers.py` checks the rules on the module graph built
here and that the drawing in the repository is current.

Run: .venv/bin/python scripts/import_graph.py [--check]
"""

from __future__ import annotations

import argparse
import ast
import functools
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("parsing", "actions", "server")
DRAWING = ROOT / "docs" / "import-graph.md"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The project modules `path` imports (`from a.b import c` counts a.b.c when it is one)."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in modules}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Each module of the three packages -> the project modules it imports (read once per
    process: callers must not change it)."""
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    modules = {module_name(p) for p in files}
    return {module_name(p): imports_of(p, modules) - {module_name(p)} for p in files}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def in_subpackage(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 2 or (len(parts) == 2 and (ROOT.joinpath(*parts) / "__init__.py").exists())


def reachable(graph: dict[str, set[str]], module: str) -> set[str]:
    seen: set[str] = set()
    stack = [module]
    while stack:
        for target in graph.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def nodes_of(graph: dict[str, set[str]]) -> dict[str, str]:
    """Each module -> the node it is drawn in: its sub-package (`actions.files`); a top-level
    module that reaches a sub-package of its own package is drawn alone (`server.app`); the
    other top-level modules, the package's base vocabulary, as one node (`actions (base)`)."""
    drawn: dict[str, str] = {}
    for module in graph:
        top = module.split(".")[0]
        if in_subpackage(module):
            drawn[module] = ".".join(module.split(".")[:2])
        elif any(in_subpackage(t) and t.split(".")[0] == top for t in reachable(graph, module)):
            drawn[module] = module
        else:
            drawn[module] = f"{top} (base)"
    return drawn


def package_edges(graph: dict[str, set[str]]) -> Counter[tuple[str, str]]:
    """(importer node, imported node) -> how many module imports the arrow stands for."""
    drawn = nodes_of(graph)
    edges: Counter[tuple[str, str]] = Counter()
    for module, targets in graph.items():
        for target in targets:
            pair = (drawn[module], drawn[target])
            if pair[0] != pair[1]:
                edges[pair] += 1
    return edges


def package_knots(graph: dict[str, set[str]]) -> list[list[str]]:
    """Drawn nodes that import each other (through any path): none when layered."""
    edges = package_edges(graph)
    nodes = set(nodes_of(graph).values())
    return cycles({n: {b for (a, b) in edges if a == n} for n in nodes})


def node_id(package: str) -> str:
    return package.replace(".", "_").replace(" (base)", "_base")


def drawing(graph: dict[str, set[str]]) -> str:
    edges = package_edges(graph)
    nodes = sorted(set(nodes_of(graph).values()))
    knots = package_knots(graph)
    lines = [
        "# The import graph, by package",
        "",
        "Generated by `scripts/import_graph.py` from the code (`tests/unit/test_layers.py` fails",
        "when it is not current). An arrow `a --> b` means modules of `a` import modules of `b`;",
        "its label is how many module imports it stands for. A node is a sub-package",
        "(`actions.files`), or a top-level module that uses sub-packages of its own package",
        "(`server.app`), or `<package> (base)`: the other top-level modules, the vocabulary the",
        "sub-packages share (`actions/paths.py`, `server/config.py`...). The rules: `parsing`",
        "imports nothing above it; `actions` never imports `server`; inside `actions`, `files` is",
        "below `tools`, `index` and `checkpoints`; the agent core (`server.turns`) imports no",
        "front end; and no two nodes import each other (every arrow points down). See",
        "[architecture.md](architecture.md).",
        "",
        "```mermaid",
        "graph TD",
    ]
    for package in ("parsing", "actions", "server"):
        members = [n for n in nodes if n.split(".")[0] == package]
        lines.append(f"  subgraph {package}_layer [{package}]")
        lines.extend(f'    {node_id(n)}["{n}"]' for n in members)
        lines.append("  end")
    for (source, target), count in sorted(edges.items()):
        lines.append(f"  {node_id(source)} -->|{count}| {node_id(target)}")
    lines.append("```")
    lines.append("")
    if knots:
        lines.append("Nodes that import each other (a knot to untangle):")
        lines.extend(f"- {', '.join(knot)}" for knot in knots)
    else:
        lines.append("No two nodes import each other: every arrow points down.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the drawing is stale")
    args = parser.parse_args()
    text = drawing(import_graph())
    if args.check:
        if DRAWING.read_text(encoding="utf-8") != text:
            sys.exit(f"{DRAWING.relative_to(ROOT)} is stale: run scripts/import_graph.py")
        return
    DRAWING.write_text(text, encoding="utf-8")
    print(f"wrote {DRAWING.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
