"""The ``search_docs`` tool: ranked passages of the workspace's indexed documents and code.

Arguments: ``{"query": str, "k"?: int}`` (k: 1..20, default 5). Each hit is the ORIGINAL
element (a whole table, code block, definition or prose passage) with its path, line range,
heading path and type, so the model can answer from it or ``read_file`` around it. A hit
longer than ``max_hit_chars`` is cut with a notice giving the range to read instead.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from actions.errors import ToolExecutionError
from actions.tools.base import Tool, ToolResult

if TYPE_CHECKING:  # the index (and its stores) is imported when search_docs first runs
    from actions.index import Hit
    from actions.index.merged import Searchable

NAME = "search_docs"
DEFAULT_K = 5
MAX_K = 20
MAX_HIT_CHARS = 4000

MANIFEST = Tool(
    name=NAME,
    description=(
        "Search the workspace's documentation and code by meaning/keywords. Returns the best "
        "matching passages (whole tables, code blocks, definitions, paragraphs) with path, "
        "line range and heading path. Use it before reading files blind."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to look for"},
            "k": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_K,
                "description": f"How many results (default {DEFAULT_K})",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)


IndexSource = Callable[[], Awaitable["Searchable"]]


class SearchDocs:
    """``search_docs`` over the index that ``index_source`` gives (opened on first use)."""

    name = NAME

    def __init__(self, index_source: IndexSource, max_hit_chars: int = MAX_HIT_CHARS) -> None:
        self._index_source = index_source
        self.max_hit_chars = max_hit_chars

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        query = str(args["query"])
        k = int(args.get("k", DEFAULT_K))
        from actions.index import StoreError

        try:
            index = await self._index_source()
            hits = await index.search(query, k)
        except StoreError as error:
            raise ToolExecutionError(f"search_docs: {error}; use search_files instead") from None
        if not hits:
            return ToolResult.success(
                f"No indexed passage matches {query!r}. Try other words or search_files.",
                {"hits": []},
            )
        text = "\n\n".join(self._render(rank, hit) for rank, hit in enumerate(hits, 1))
        return ToolResult.success(text, {"hits": [hit.to_json() for hit in hits]})

    def _render(self, rank: int, hit: Hit) -> str:
        chunk = hit.chunk
        where = f"/{chunk.document} {chunk.pages or f'lines {chunk.start_line}-{chunk.end_line}'}"
        heading = f" — {' > '.join(chunk.headings)}" if chunk.headings else ""
        lines = [f"{rank}. {where} ({chunk.type}){heading}"]
        if chunk.summary:
            lines.append(f"summary: {chunk.summary}")
        content = chunk.content
        if len(content) > self.max_hit_chars:
            content = content[: self.max_hit_chars]
            more = "search more precisely" if chunk.pages else "read_file the range"
            lines.append(f"(cut at {self.max_hit_chars} chars: {more} for all)")
        fence = "`" * max(3, _longest_run(content) + 1)
        lines += [fence, content, fence]
        return "\n".join(lines)


def _longest_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
