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

from scripts.import_graph import (
    DRAWING,
    cycles,
    drawing,
    import_graph,
    package_knots,
    reachable,
)


def test_the_packages_have_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_no_two_drawn_packages_import_each_other() -> None:
    """Folded into the packages of docs/import-graph.md, every arrow still points down."""
    assert package_knots(import_graph()) == []


def test_the_import_graph_drawing_is_current() -> None:
    assert DRAWING.read_text(encoding="utf-8") == drawing(import_graph()), (
        "docs/import-graph.md is stale: run scripts/import_graph.py"
    )


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


def is_front_end(module: str) -> bool:
    return module in FRONT_END_MODULES or any(
        module == front or module.startswith(front + ".") for front in FRONT_ENDS
    )


def test_the_agent_core_imports_no_front_end() -> None:
    """`server.turns` is shared by LSP, ACP and the `chat` command: it reaches none of them,
    not even through the modules it uses; nor does the assembly above it."""
    graph = import_graph()
    core = [m for m in graph if m.startswith("server.turns.") or m == "server.turn_assembly"]
    assert {"server.turns.loop", "server.turn_assembly"} <= set(core)
    reached = {(m, t) for m in core for t in reachable(graph, m) if is_front_end(t)}
    assert reached == set()


def test_the_mcp_client_imports_no_front_end() -> None:
    """`server.mcp` (and its setting) serve every front end: they reach none of them."""
    graph = import_graph()
    mcp = [m for m in graph if m.startswith(("server.mcp.", "server.mcp_config"))]
    assert {"server.mcp.manager", "server.mcp.tools", "server.mcp_config"} <= set(mcp)
    assert {(m, t) for m in mcp for t in reachable(graph, m) if is_front_end(t)} == set()


def test_every_front_end_assembles_its_turn_in_one_place() -> None:
    """The loop is started by the assembly only: a front end calls `run_front_end_turn`."""
    graph = import_graph()
    callers = {m for m, targets in graph.items() if "server.turns.external" in targets}
    assert callers == {"server.turn_assembly"}
    users = {m for m, targets in graph.items() if "server.turn_assembly" in targets}
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
