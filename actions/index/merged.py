"""Several folders' indexes searched as one (a multi-root workspace).

Each folder's index ranks its own hits; the merge qualifies every hit's document by its
folder's name (``frontend/src/app.ts``) and keeps the best ``k`` of all by score. (Within one
index, BM25 and vectors are fused by ``embeddings.fuse``.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from actions.index.model import Hit


class Searchable(Protocol):
    """An index as search_docs uses it (``WorkspaceIndex``, the server's live index)."""

    async def search(self, query: str, k: int) -> list[Hit]: ...


class MergedIndex:
    """The indexes of several folders searched as one."""

    def __init__(self, indexes: Sequence[tuple[str, Searchable]]) -> None:
        self.indexes = list(indexes)

    async def search(self, query: str, k: int) -> list[Hit]:
        hits: list[Hit] = []
        for name, index in self.indexes:
            for hit in await index.search(query, k):
                chunk = dataclasses.replace(hit.chunk, document=f"{name}/{hit.chunk.document}")
                hits.append(dataclasses.replace(hit, chunk=chunk))
        hits.sort(key=lambda hit: -hit.score)
        return hits[:k]
