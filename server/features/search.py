"""`agent/search` `{query, k?}`: the best original elements of the workspace's index.

Result: a list of `{path, startLine, endLine, type, headings, content, summary, score}`
(the records of `agent-ls search --json`), best first. `k` defaults to 8 (1..100).
"""

from __future__ import annotations

from typing import Any

import attrs

from server.features.indexing import live
from server.lsp import AgentLanguageServer
from server.protocol import AGENT_SEARCH

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


async def search(ls: AgentLanguageServer, params: Any) -> list[dict[str, Any]]:
    typed = ls.typed(params, SearchParams)
    index = await live(ls)
    hits = await index.search(typed.query, typed.k)
    return [hit.to_json() for hit in hits]
