"""`agent/search` `{query, k?}`: the best original elements of the workspace's index (of
every folder's index in a multi-root workspace, paths qualified by folder name).

Result: a list of `{path, startLine, endLine, type, headings, content, summary, score}`
(the records of `agent-ls search --json`), best first. `k` defaults to 8 (1..100).
"""

from __future__ import annotations

from typing import Any

import attrs

from actions.index import Hit
from actions.index.merged import MergedIndex
from server.features.indexing import lives
from server.lsp import AgentLanguageServer
from server.protocol import AGENT_SEARCH, SearchHit

DEFAULT_K = 8


@attrs.define(frozen=True)
class SearchParams:
    query: str = attrs.field(validator=attrs.validators.min_len(1))
    k: int = attrs.field(
        default=DEFAULT_K,
        validator=[
            attrs.validators.instance_of(int),
            attrs.validators.ge(1),
            attrs.validators.le(100),
        ],
    )


def register(server: AgentLanguageServer) -> None:
    server.feature(AGENT_SEARCH)(search)


async def search(ls: AgentLanguageServer, params: Any) -> list[SearchHit]:
    typed = ls.typed(params, SearchParams)
    indexes = await lives(ls)
    index = indexes[0][1] if len(indexes) == 1 else MergedIndex(indexes)
    hits = await index.search(typed.query, typed.k)
    return [search_hit(hit) for hit in hits]


def search_hit(hit: Hit) -> SearchHit:
    chunk = hit.chunk
    return SearchHit(
        path=chunk.document,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        type=chunk.type,
        headings=list(chunk.headings),
        content=chunk.content,
        summary=chunk.summary,
        score=round(hit.score, 6),
        start_page=chunk.start_page or None,
        end_page=chunk.end_page or None,
    )
