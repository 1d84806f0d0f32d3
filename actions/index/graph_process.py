"""The vector graph built by another process: `agent-ls index` hands it to a niced child.

`agent-ls index` returns once the chunks and vectors are stored; when the SQLite index needs
its HNSW graph (a first build, or many vectors changed), it starts
``python -m actions.index.graph_process DB`` in its own session, niced, with no terminal,
and exits: searches are exact until the graph file is saved (``sqlite_ann``), and the status
of any process shows the child's progress (``graph_lock``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from actions.index.sqlite_store import SqliteStore

NICENESS = 10


def spawn_graph_build(db_path: Path) -> subprocess.Popen[bytes]:
    """Start the niced child that builds ``db_path``'s graph; it outlives the caller."""
    return subprocess.Popen(
        [sys.executable, "-m", "actions.index.graph_process", str(db_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C in the terminal after `agent-ls index` spares it
    )


def main(argv: list[str]) -> int:
    os.nice(NICENESS)
    store = SqliteStore(Path(argv[0]), own_folder=False)
    try:
        store.wait_for_vector_index()
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
