"""Retrieval over the workspace (SPEC §10): chunking, stores, incremental indexing, watching.

``open_index(workspace)`` gives the ``WorkspaceIndex`` of a workspace on its configured store.
"""

from __future__ import annotations

from actions.index.embeddings import Embedder, load_embedder
from actions.index.files import IndexConfig
from actions.index.indexer import WorkspaceIndex
from actions.index.model import Chunk, DocumentRecord, Hit, IndexStatus
from actions.index.store import Store, StoreError, open_store
from actions.index.summary import Summarizer
from actions.index.summary_phase import UpdateReport
from actions.paths import Workspace

__all__ = [
    "Chunk",
    "DocumentRecord",
    "Hit",
    "IndexConfig",
    "IndexStatus",
    "Store",
    "StoreError",
    "Summarizer",
    "UpdateReport",
    "WorkspaceIndex",
    "open_index",
    "open_store",
]


def open_index(
    workspace: Workspace,
    *,
    url: str = "",
    config: IndexConfig | None = None,
    summarizer: Summarizer | None = None,
    dense: bool = True,
    optimize_model: bool = True,
) -> WorkspaceIndex:
    """The index of ``workspace`` (``url``: ``indexUrl``; empty = the embedded store), with
    dense vectors when ``dense`` and the ``embeddings`` extra is installed (``optimize_model``
    False: a process that embeds only a query, see ``load_embedder``)."""
    embedder: Embedder | None = load_embedder(optimize=optimize_model) if dense else None
    store = open_store(workspace.root, url)
    return WorkspaceIndex(workspace, store, config, summarizer, embedder)
