"""The ``find_symbol`` tool: definitions by name, with their file and exact line range.

Arguments: ``{"name": str, "kind"?: str, "k"?: int}``. ``name`` is a definition's name or the
tail of its qualified name (``load_settings``, ``Store.load``, ``Store::load``, ``Store#load``);
``kind`` keeps one kind (``function``, ``method``, ``class``, ``struct``, ...). The index
(``search_docs``'s, so every folder of a multi-root workspace) gives the candidate chunks, in
which the definitions are found by their syntax (``actions.index.symbols``): Python,
JavaScript, TypeScript, Go, Rust, Java, C, C++, Ruby and shell. Each result names its kind,
qualified name, signature, path and lines, and shows the definition's code when it is short.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from actions.errors import ToolExecutionError
from actions.tools.base import Tool, ToolResult
from actions.tools.search_docs import IndexSource

if TYPE_CHECKING:  # the index (and its stores) is imported when find_symbol first runs
    from actions.index.model import Chunk
    from actions.index.symbols import Symbol

_TICKS = re.compile(r"`+")
NAME = "find_symbol"
DEFAULT_K = 5
MAX_K = 20
CANDIDATES = 40  # chunks the index is asked for
SHOWN_LINES = 60  # a definition up to this long is shown whole

MANIFEST = Tool(
    name=NAME,
    description=(
        "Find where a function, method, class, struct, type... is defined, by its name "
        "(snake_case, camelCase or qualified like Store.load). Returns each definition's path, "
        "exact line range, kind and signature (and its code when short)."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "The definition's name"},
            "kind": {
                "type": "string",
                "description": "Only this kind (function, method, class, struct, interface...)",
            },
            "k": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_K,
                "description": f"How many results (default {DEFAULT_K})",
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
)


class FindSymbol:
    """``find_symbol`` over the index that ``index_source`` gives."""

    name = NAME

    def __init__(self, index_source: IndexSource) -> None:
        self._index_source = index_source

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        wanted = str(args["name"]).strip()
        kind = str(args.get("kind", "")).strip().lower()
        k = int(args.get("k", DEFAULT_K))
        from actions.index import StoreError
        from actions.index.symbols import chunk_symbols, matches, merged

        try:
            index = await self._index_source()
            hits = await index.search(wanted, CANDIDATES)
        except StoreError as error:
            raise ToolExecutionError(f"find_symbol: {error}; use search_files instead") from None
        contents: dict[tuple[str, int], Chunk] = {}
        symbols: list[Symbol] = []
        for hit in hits:
            for symbol in chunk_symbols(hit.chunk):
                if matches(symbol, wanted) and (not kind or symbol.kind == kind):
                    symbols.append(symbol)
                    contents.setdefault((symbol.document, symbol.start_line), hit.chunk)
        found = _ranked(merged(symbols), wanted)[:k]
        if not found:
            what = f"{kind} {wanted!r}" if kind else repr(wanted)
            return ToolResult.success(
                f"No indexed definition named {what}. Try search_docs or search_files.",
                {"symbols": []},
            )
        texts = [_render(rank, symbol, contents) for rank, symbol in enumerate(found, 1)]
        data = {"symbols": [_record(symbol) for symbol in found]}
        return ToolResult.success("\n\n".join(texts), data)


def _ranked(symbols: list[Symbol], wanted: str) -> list[Symbol]:
    """Exact names first, then in the index's order; of one name's definitions in one file
    (overloads and their implementation), the longest first."""
    order: dict[tuple[str, str], int] = {}
    for symbol in symbols:
        order.setdefault((symbol.document, symbol.qualified), len(order))

    def key(symbol: Symbol) -> tuple[int, int, int]:
        span = symbol.end_line - symbol.start_line
        return _exactness(symbol, wanted), order[(symbol.document, symbol.qualified)], -span

    return sorted(symbols, key=key)


def _exactness(symbol: Symbol, wanted: str) -> int:
    """0: the same name as written; 1: the same tail of the qualified name; 2: other case."""
    if symbol.name == wanted or symbol.qualified == wanted:
        return 0
    return 1 if symbol.qualified.endswith(f".{wanted}") else 2


def _render(rank: int, symbol: Symbol, contents: Mapping[tuple[str, int], Chunk]) -> str:
    where = f"/{symbol.document} lines {symbol.start_line}-{symbol.end_line}"
    lines = [f"{rank}. {symbol.kind} {symbol.qualified} — {where}", f"   {symbol.signature}"]
    chunk = contents.get((symbol.document, symbol.start_line))
    short = symbol.end_line - symbol.start_line < SHOWN_LINES
    if chunk is not None and chunk.end_line >= symbol.end_line and short:
        source = chunk.content.splitlines()
        first = symbol.start_line - chunk.start_line
        code = "\n".join(source[first : first + symbol.end_line - symbol.start_line + 1])
        fence = "`" * max(3, 1 + max((len(run) for run in _TICKS.findall(code)), default=0))
        lines += [fence, code, fence]
    else:
        lines.append(f"   (read_file lines {symbol.start_line}-{symbol.end_line} for its code)")
    return "\n".join(lines)


def _record(symbol: Symbol) -> dict[str, Any]:
    return {
        "path": symbol.document,
        "name": symbol.name,
        "qualifiedName": symbol.qualified,
        "kind": symbol.kind,
        "signature": symbol.signature,
        "startLine": symbol.start_line,
        "endLine": symbol.end_line,
        "language": symbol.language,
    }
