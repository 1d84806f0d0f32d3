"""The import graph of the three packages: layered as the design says, and without cycles.

`parsing` imports nothing from `actions` or `server`; `actions` never imports `server`;
the JSON decoder (`parsing.json`) sits below the snippet readers, and the retrieval chunkers
live in `actions.index` (`parsing` means "model reply -> blocks"); within `actions`, `files`
(listing, ignore rules, git environment) sits below its users `tools`, `index` and
`checkpoints`, the index never imports the tools, and checkpoints import neither the tools
nor the index. No module reaches itself through its imports (imports under
`if TYPE_CHECKING:` count too: a cycle a type checker needs is still a cycle a reader has to
untangle).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("parsing", "actions", "server")


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


def import_graph() -> dict[str, set[str]]:
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    modules = {module_name(p) for p in files}
    return {module_name(p): imports_of(p, modules) - {module_name(p)} for p in files}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
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


def test_the_packages_have_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_parsing_and_actions_do_not_import_the_layers_above_them() -> None:
    graph = import_graph()
    upward = {
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if (module.startswith("parsing") and not target.startswith("parsing"))
        or (module.startswith("actions") and target.startswith("server"))
    }
    assert upward == set()


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def imports_between(source: str, targets: tuple[str, ...]) -> set[tuple[str, str]]:
    """The imports from modules of the package `source` into any of the packages `targets`."""
    return {
        (module, target)
        for module, imported in import_graph().items()
        if within(module, source)
        for target in imported
        if any(within(target, package) for package in targets)
    }


def test_files_import_none_of_their_users() -> None:
    users = ("actions.tools", "actions.index", "actions.checkpoints")
    assert imports_between("actions.files", users) == set()


def test_the_index_does_not_import_the_tools() -> None:
    assert imports_between("actions.index", ("actions.tools",)) == set()


def test_checkpoints_import_neither_the_tools_nor_the_index() -> None:
    assert imports_between("actions.checkpoints", ("actions.tools", "actions.index")) == set()


def test_the_layer_checks_see_imports_across_packages() -> None:
    assert ("actions.tools.list_files", "actions.files.listing") in imports_between(
        "actions.tools", ("actions.files",)
    )


JSON_DECODER_USES = {"parsing.blocks", "parsing.regions", "parsing.resume"}
"""What the JSON decoder may import from the rest of `parsing`: the blocks' and the snippet
layer's vocabulary, and the stream's kept work."""
CHUNKERS = ("markdown_elements", "source_chunks")


def test_the_json_decoder_imports_only_the_vocabulary_of_parsing() -> None:
    graph = import_graph()
    decoder = {module for module in graph if module.startswith("parsing.json")}
    assert {"parsing.json.tolerant", "parsing.json.strict"} <= decoder
    outside = {
        (module, target)
        for module in decoder
        for target in graph[module]
        if not target.startswith("parsing.json") and target not in JSON_DECODER_USES
    }
    assert outside == set()
    assert not [m for m in graph if m.startswith("parsing.json_")]  # no decoder file left flat


def test_the_retrieval_chunkers_live_in_the_index() -> None:
    graph = import_graph()
    for name in CHUNKERS:
        assert f"actions.index.{name}" in graph
        assert f"parsing.{name}" not in graph
        assert not {t for t in graph[f"actions.index.{name}"] if t.startswith("server")}


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


FRONT_ENDS = ("server.acp", "server.features", "server.commands", "server.lsp", "server.editor")
FRONT_END_MODULES = ("server.app", "server.stdio", "server.__main__")


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph[todo.pop()] - seen:
            seen.add(target)
            todo.append(target)
    return seen


def is_front_end(module: str) -> bool:
    return module in FRONT_END_MODULES or any(
        module == front or module.startswith(front + ".") for front in FRONT_ENDS
    )


def test_the_agent_core_imports_no_front_end() -> None:
    """`server.turns` is shared by LSP, ACP and the `chat` command: it reaches none of them,
    not even through the modules it uses."""
    graph = import_graph()
    core = [module for module in graph if module.startswith("server.turns")]
    assert "server.turns.assembly" in core
    reached = {(m, t) for m in core for t in reachable(graph, m) if is_front_end(t)}
    assert reached == set()


def test_every_front_end_assembles_its_turn_in_one_place() -> None:
    """The loop is started by the assembly only: a front end calls `run_front_end_turn`."""
    graph = import_graph()
    callers = {m for m, targets in graph.items() if "server.turns.external" in targets}
    assert callers == {"server.turns.assembly"}
    users = {m for m, targets in graph.items() if "server.turns.assembly" in targets}
    assert {"server.features.chat", "server.acp.agent", "server.commands.chat"} <= users


def test_the_providers_reach_neither_the_server_state_nor_the_agent_core() -> None:
    """`server.providers` (and their stream `events`) sit below everything that holds state:
    they reach no front end, no turn, no server or folder state."""
    graph = import_graph()
    providers = [module for module in graph if within(module, "server.providers")]
    assert "server.providers.events" in providers
    above = ("server.state", "server.workspace", "server.live_index", "server.history")
    reached = {
        (module, target)
        for module in providers
        for target in reachable(graph, module)
        if target in above or within(target, "server.turns") or is_front_end(target)
    }
    assert reached == set()
