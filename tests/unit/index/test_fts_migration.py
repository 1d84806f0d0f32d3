"""An embedded index of schema version 3 (FTS5 `unicode61`, which cut `findme_normal_word` into
three words the query check never looked up) gets its FTS table again from its chunks when
it is opened: the identifier is found, no file is read, the chunk's vector is kept."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path

from actions.index.sqlite_store import SCHEMA_VERSION, SqliteStore
from tests.unit.index.test_store import chunk, ready

V3_FTS = "CREATE VIRTUAL TABLE chunks_fts USING fts5(head, small, body, tokenize = 'unicode61')"


def v3_words(text: str) -> str:
    """How version 3 wrote the FTS columns: ``\\w+`` words, ``_`` kept inside."""
    return " ".join(re.findall(r"\w+", text.lower()))


def test_a_version_3_index_is_recut_on_open_keeping_its_vectors(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path)
    code = "def findme_normal_word(items):\n    return items\n"
    vector = (0.6, 0.8, 0.0)
    store.replace_chunks(
        ready("src/normal.py", 1),
        [replace(chunk("src/normal.py", 0, code), embedding=vector, embedding_status="ready")],
    )
    store.close()
    db = sqlite3.connect(path, isolation_level=None)  # the layout version 3 left
    db.execute("DROP TABLE chunks_vocab")
    db.execute("DROP TABLE chunks_fts")
    db.execute(V3_FTS)
    db.execute("CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row')")
    for row_id, text in db.execute("SELECT id, indexed_text FROM chunks").fetchall():
        db.execute(
            "INSERT INTO chunks_fts (rowid, head, small, body) VALUES (?, ?, ?, '')",
            (row_id, v3_words(text.split("\n")[0]), v3_words(text.split("\n", 2)[2])),
        )
    db.execute("PRAGMA user_version=3")
    db.close()

    reopened = SqliteStore(path)
    try:
        (hit,) = reopened.search("findme_normal_word", 5)
        assert hit.chunk.content == code
        assert [h.chunk.document for h in reopened.search("normal word", 5)] == ["src/normal.py"]
        assert reopened.embedding_counts()["ready"] == 1  # the vector survived
        check = sqlite3.connect(path)
        assert check.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        check.close()
    finally:
        reopened.close()
